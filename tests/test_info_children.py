"""``feedmap.info`` and ``feedmap info``: each child sitemap of an index followed, with its entries, images, lastmod
range, bytes read and status, and the same with ``--jobs 2``.

The expected values are worked out from the files themselves (the URLs and images written, the lastmods that are
dates, the bytes of each file or of its gzip decompressed), never from feedmap's reading.  The site is that of
``tests/jobsite.py``: good children, a truncated one, a missing one, an HTML page, a nested index and a gzip child.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from conftest import SITEMAP_NS, index_xml, run, urlset_xml
from jobsite import SITE, jobs_site
from localsite import LocalSite

import feedmap
from feedmap import Diagnostic, DocKind, Info, Options, W3CDate

#: The children of the jobsite's index, in its order, and of its nested index (inner.xml).
LISTED = ["c0.xml", "c1.xml", "c2.xml", "c3.xml", "missing.xml", "page.html", "inner.xml", "c4.xml", "c5.xml.gz"]
INNER = ["c4.xml", "c1.xml"]
#: The keys of each child in ``feedmap info --json``, and of the input (the keys before this change kept).
CHILD_KEYS = [
    "loc",
    "index",
    "line",
    "depth",
    "status",
    "code",
    "reason",
    "entries",
    "images",
    "with_lastmod",
    "lastmod_min",
    "lastmod_max",
    "bytes",
]
INPUT_KEYS = [
    "input",
    "format",
    "kind",
    "followed",
    "entries",
    "images",
    "with_lastmod",
    "lastmod_min",
    "lastmod_max",
    "errors",
    "warnings",
    "notes",
    "diagnostics",
    "children",
]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    jobs_site(folder)
    return folder


def expected_child(data: bytes) -> dict[str, object]:
    """What a child holds, read from its bytes with regular expressions: a URL per ``</loc>`` (a file cut inside an
    entry keeps the entry whose loc is whole), an image per ``</image:image>``, the lastmods that are dates."""
    text = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode()
    dates = re.findall(r"<lastmod>(\d{4}-\d\d-\d\d)</lastmod>", text)
    return {
        "entries": text.count("</loc>"),
        "images": text.count("</image:image>"),
        "with_lastmod": len(dates),
        "lastmod_min": min(dates) if dates else None,
        "lastmod_max": max(dates) if dates else None,
        "bytes": len(text.encode()),
    }


def the_info(site: Path, **options: object) -> tuple[Info, list[Diagnostic]]:
    said: list[Diagnostic] = []
    found = feedmap.info(
        str(site / "index.xml"), options=Options(maps=((SITE, site),), **options), on_diagnostic=said.append
    )  # type: ignore[arg-type]
    return found, said


def test_each_child_is_described_from_what_it_holds(site: Path) -> None:
    found, said = the_info(site)
    rows = [(child.loc.removeprefix(SITE), child.depth, child.status) for child in found.children]
    order = [name for listed in LISTED for name in ([listed, *INNER] if listed == "inner.xml" else [listed])]
    depths = [2 if i in (7, 8) else 1 for i in range(len(order))]  # the nested index's children, after it
    statuses = {"missing.xml": "failed", "page.html": "failed", "inner.xml": "index"}
    assert rows == [(name, depth, statuses.get(name, "read")) for name, depth in zip(order, depths, strict=True)]
    for child in found.children:
        name = child.loc.removeprefix(SITE)
        assert child.index == (f"{SITE}inner.xml" if child.depth == 2 else str(site / "index.xml"))
        if child.status == "read":
            want = expected_child((site / name).read_bytes())
            assert child.to_dict() | want == child.to_dict(), name
            assert child.code is None and child.reason is None
        elif child.status == "index":
            assert (child.entries, child.bytes) == (0, len((site / name).read_bytes()))
        else:  # nothing read of it, and why
            assert (child.entries, child.images, child.bytes, child.code) == (0, 0, None, "child-unreadable")
    assert "no such file" in (found.children[4].reason or "") and "HTML page" in (found.children[5].reason or "")
    # the lines of the index naming each child, and the totals those of the children's
    lines = (site / "index.xml").read_text().splitlines()
    for child in found.children:
        if child.depth == 1:
            assert child.loc in lines[child.line - 1]
    assert found.entries == sum(child.entries for child in found.children)
    assert found.images == sum(child.images for child in found.children)
    assert found.lastmod_min == min(c.lastmod_min for c in found.children if c.lastmod_min is not None)
    assert found.followed and found.kind is DocKind.URLSET and found.format == "sitemapindex"
    assert found.warnings == sum(1 for one in said if one.level is feedmap.Level.WARNING)
    assert found.diagnostics["child-unreadable"] == 2


def test_the_same_with_two_jobs(site: Path) -> None:
    one, said_one = the_info(site)
    two, said_two = the_info(site, jobs=2)
    assert two == one and [str(d) for d in said_two] == [str(d) for d in said_one]


@pytest.mark.parametrize("flags", [[], ["--json"], ["--cron"]])
def test_the_command_is_the_same_with_two_jobs(
    capsys: pytest.CaptureFixture[str], site: Path, flags: list[str]
) -> None:
    argv = ["info", str(site / "index.xml"), "--map", f"{SITE}={site}", *flags]
    one = run(capsys, *argv)
    assert run(capsys, *argv, "--jobs", "2") == one
    assert one[0] == 0


def test_json_gives_each_child_with_the_documented_keys(capsys: pytest.CaptureFixture[str], site: Path) -> None:
    code, out, _err = run(capsys, "info", "--json", site / "index.xml", "--map", f"{SITE}={site}")
    assert code == 0
    described = json.loads(out)
    assert list(described) == INPUT_KEYS
    assert [list(child) for child in described["children"]] == [CHILD_KEYS] * len(described["children"])
    c0 = described["children"][0]
    assert c0 | expected_child((site / "c0.xml").read_bytes()) == c0
    assert (c0["status"], c0["depth"], c0["loc"]) == ("read", 1, f"{SITE}c0.xml")
    gzipped = described["children"][-1]
    assert gzipped["bytes"] == len(gzip.decompress((site / "c5.xml.gz").read_bytes()))  # decompressed
    assert described["entries"] == sum(child["entries"] for child in described["children"])
    # a sitemap that is no index has no children
    code, out, _err = run(capsys, "info", "--json", site / "c0.xml")
    assert json.loads(out)["children"] == [] and json.loads(out)["followed"] is False


def test_the_text_has_a_row_per_child_then_the_totals(capsys: pytest.CaptureFixture[str], site: Path) -> None:
    code, out, _err = run(capsys, "info", site / "index.xml", "--map", f"{SITE}={site}")
    assert code == 0
    lines = out.splitlines()
    header = next(
        i
        for i, line in enumerate(lines)
        if line.split() == ["status", "entries", "images", "bytes", "lastmod", "sitemap"]
    )
    rows = lines[header + 1 : header + 1 + len(LISTED) + len(INNER)]
    c0 = expected_child((site / "c0.xml").read_bytes())
    assert rows[0].split() == [
        "read",
        "400",
        f"{c0['images']}",
        f"{c0['bytes']:,}",
        str(c0["lastmod_min"]),
        "..",
        str(c0["lastmod_max"]),
        f"{SITE}c0.xml",
    ]
    assert rows[4].split()[:2] == ["failed", "(child-unreadable)"] and rows[4].endswith("no such file")
    assert rows[6].split()[0] == "index" and rows[7].split()[-1] == f"{SITE}c4.xml"
    assert f"  {SITE}c4.xml" in rows[7]  # a nested index's children indented under it
    total = len(LISTED) + len(INNER)  # two failed (missing.xml, page.html), one nested index, the others read
    assert lines.index(f"  children:    {total} sitemaps: {total - 3} read, 2 failed, 1 nested index") < header
    assert header < next(i for i, line in enumerate(lines) if line.startswith("  entries:"))


def _small_site(folder: Path) -> str:
    """An index (at SITE) naming an old child, itself (a loop), a child on another site, a nested index, and a
    child that is fine; the nested index names one more."""
    folder.mkdir()
    dated = f'<?xml version="1.0"?>\n<sitemapindex xmlns="{SITEMAP_NS}">\n'
    for loc, lastmod in [
        ("old.xml", "2020-01-01"),
        ("index.xml", None),
        ("https://elsewhere.example/x.xml", None),
        ("nested.xml", None),
        ("fine.xml", "2024-06-01"),
    ]:
        stamp = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
        dated += f"<sitemap><loc>{loc if '//' in loc else SITE + loc}</loc>{stamp}</sitemap>\n"
    (folder / "index.xml").write_text(dated + "</sitemapindex>\n")
    (folder / "old.xml").write_bytes(urlset_xml(f"{SITE}old"))
    (folder / "fine.xml").write_bytes(urlset_xml(f"{SITE}a", f"{SITE}b"))
    (folder / "nested.xml").write_bytes(index_xml(f"{SITE}deep.xml"))
    (folder / "deep.xml").write_bytes(urlset_xml(f"{SITE}deep"))
    return f"{SITE}index.xml"


def test_skipped_looping_off_site_and_too_deep_children_are_said_in_their_place(tmp_path: Path) -> None:
    folder = tmp_path / "small"
    index = _small_site(folder)
    options = Options(
        maps=((SITE, folder),),
        follow_child=lambda loc, lastmod: lastmod is None or lastmod > W3CDate("2024-01-01"),
        max_depth=1,
    )
    found = feedmap.info(index, options=options)
    assert [(c.loc.removeprefix(SITE), c.depth, c.status, c.code) for c in found.children] == [
        ("old.xml", 1, "skipped", "child-skipped"),
        ("index.xml", 1, "skipped", "index-loop"),
        ("https://elsewhere.example/x.xml", 1, "failed", "child-off-site"),
        ("nested.xml", 1, "index", None),
        ("deep.xml", 2, "failed", "index-too-deep"),
        ("fine.xml", 1, "read", None),
    ]
    fine = found.children[-1]
    assert (fine.entries, fine.bytes) == (2, len((folder / "fine.xml").read_bytes()))
    assert all(c.reason for c in found.children if c.status in ("failed", "skipped"))
    assert found.entries == 2


def test_children_fetched_over_http(web: LocalSite) -> None:
    body = urlset_xml(web.url("/a"), web.url("/b"), web.url("/c"))
    web.add("/one.xml.gz", gzip.compress(body))
    web.add("/index.xml", index_xml(web.url("/one.xml.gz"), web.url("/gone.xml")))
    found = feedmap.info(web.url("/index.xml"), options=Options(http=feedmap.HttpSettings(retries=0)))
    one, gone = found.children
    assert (one.status, one.entries, one.bytes) == ("read", 3, len(body))
    assert (gone.status, gone.code, gone.bytes) == ("failed", "child-unreadable", None)
    assert "404" in (gone.reason or "")


def test_info_refuses_what_it_cannot_use_and_reads_no_index_as_it_is(site: Path) -> None:
    with pytest.raises(ValueError, match="since"):
        feedmap.info(str(site / "c0.xml"), options=Options(since="2024-01-01"))
    found = feedmap.info(str(site / "index.xml"), options=Options(follow=False))
    assert found.kind is DocKind.INDEX and not found.followed and found.children == ()
    assert found.entries == len(LISTED)
