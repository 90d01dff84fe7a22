"""What ``feedmap validate`` says, and how much of it (issue 17, points 9 and 18).

sitemaps.org "Sitemap file location": a sitemap may list only URLs under its own directory unless the
site's robots.txt names it ("Sitemaps & Cross Submits").  ``validate`` says so once per file with a count,
as ``convert`` does (INFO), and not at all when robots.txt names the sitemap or its index.  Paths are
compared in their RFC 3986 normal form, so ``..`` and ``%2e%2e`` do not climb out of the scope unseen.
Text output shows a few findings of each code per file; ``--json`` all of them; ``--ignore CODE`` none.
A text sitemap's lines end at LF, CR LF or a lone CR, and an encoding no reader uses (UTF-7) is read as
UTF-8, by the reader and by ``validate`` alike.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import codes, run
from localsite import LocalSite

import feedmap

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"


def urlset(*locs: str, extra: str = "") -> bytes:
    body = "".join(f"<url><loc>{loc}</loc>{extra}</url>\n" for loc in locs)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}">\n{body}</urlset>\n'.encode()


# ------------------------------------------------------------------------------------------ scope, once


def test_validating_the_split_output_of_the_help_example_is_one_note_per_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """convert -o DIR/ --base-url .../sitemaps/ writes files listing URLs at the root; validate agrees with
    convert: one INFO per file with its count, exit 0 (it said one error per URL and exited 1)."""
    source = tmp_path / "urls.txt"
    source.write_text("".join(f"https://example.com/page/{n}\n" for n in range(250)), encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run(
        capsys,
        "convert",
        str(source),
        "-o",
        f"{out}/",
        "--base-url",
        "https://example.com/sitemaps/",
        "--max-urls",
        "100",
    )
    assert code == 0 and "info[outside-sitemap-scope]" in err
    index = "https://example.com/sitemaps/sitemap_index.xml"
    code, stdout, _ = run(capsys, "validate", index, "--map", f"https://example.com/sitemaps/={out}")
    notes = [line for line in stdout.splitlines() if "[loc-out-of-scope]" in line]
    assert code == 0, stdout
    assert len(notes) == 3 and all("info[loc-out-of-scope]" in note for note in notes)
    assert sorted(int(re.search(r": ([\d,]+) URLs", note)[1]) for note in notes) == [50, 100, 100]  # type: ignore[index]


def test_robots_naming_the_sitemap_or_its_index_lifts_the_directory_rule(web: LocalSite) -> None:
    sitemap = web.add("/sitemaps/pages.xml", urlset(web.url("/a"), web.url("/b")))
    report = feedmap.validate(sitemap)
    assert codes(report) == ["loc-out-of-scope"] and "2 URLs" in report.findings[0].message
    web.add("/robots.txt", f"User-agent: *\nDisallow:\n\nSitemap: {sitemap}\n", content_type="text/plain")
    assert codes(feedmap.validate(sitemap)) == []
    assert web.hits("/robots.txt") == 2  # asked once per run, only when URLs are outside the directory
    index = web.add(
        "/sitemaps/index.xml",
        f'<sitemapindex xmlns="{SM}"><sitemap><loc>{web.url("/sitemaps/more.xml")}</loc></sitemap></sitemapindex>',
    )
    web.add("/sitemaps/more.xml", urlset(web.url("/c")))
    assert codes(feedmap.validate(index)) == ["loc-out-of-scope"]  # robots.txt names pages.xml, not this index
    web.add("/robots.txt", f"Sitemap: {index}\n", content_type="text/plain")
    assert codes(feedmap.validate(index)) == []  # named: its children may list the site's URLs


def test_robots_does_not_lift_the_rule_for_another_host(web: LocalSite) -> None:
    sitemap = web.add("/pages.xml", urlset(web.url("/a"), "https://elsewhere.example/b"))
    web.add("/robots.txt", f"Sitemap: {sitemap}\n", content_type="text/plain")
    (finding,) = feedmap.validate(sitemap).findings
    assert finding.code == "loc-out-of-scope" and "1 URL (1 of them on other sites)" in finding.message


DOTTED = [
    "https://example.com/maps/../secret/x",
    "https://example.com/maps/%2e%2e/secret/x",
    "https://example.com/maps/%2E%2e/secret/y",
    "https://example.com/maps/.%2E/secret/z",
    "https://example.com/maps/a/../../secret/w",
]


def test_dot_segments_and_their_escapes_are_outside_the_scope_in_validate(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_bytes(urlset("https://example.com/maps/a", "https://example.com/maps/b/./c", *DOTTED))
    report = feedmap.validate(path, options=feedmap.Options(base_url="https://example.com/maps/sitemap.xml"))
    (finding,) = report.findings
    assert finding.code == "loc-out-of-scope" and finding.message.startswith(f"{len(DOTTED)} URLs ")
    text = tmp_path / "sitemap.txt"
    text.write_text("\n".join(["https://example.com/maps/a", *DOTTED]) + "\n", encoding="utf-8")
    report = feedmap.validate(text, options=feedmap.Options(base_url="https://example.com/maps/urls.txt"))
    assert [f.code for f in report.findings] == ["loc-out-of-scope"]  # text sitemaps have the rule too
    assert report.findings[0].message.startswith(f"{len(DOTTED)} URLs ")


def test_dot_segments_and_their_escapes_are_outside_the_scope_when_splitting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("\n".join(["https://example.com/maps/a", *DOTTED]) + "\n", encoding="utf-8")
    code, _, err = run(
        capsys, "convert", str(source), "-o", f"{tmp_path / 'out'}/", "--base-url", "https://example.com/maps/"
    )
    assert code == 0
    (note,) = [line for line in err.splitlines() if "[outside-sitemap-scope]" in line]
    assert f": {len(DOTTED)} URLs not under" in note
    reporter = feedmap.Reporter()
    with feedmap.read(source) as doc:
        feedmap.split(
            doc, tmp_path / "lib", options=feedmap.Options(base_url="https://example.com/maps/"), reporter=reporter
        )
    (said,) = [d for d in reporter.diagnostics if d.code == "outside-sitemap-scope"]
    assert said.message.startswith(f"{len(DOTTED)} URLs not under")


# -------------------------------------------------------------------------------------- how much is said


def test_text_output_caps_the_repeats_of_a_code_per_file_and_json_keeps_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.xml"
    path.write_bytes(urlset(*(f"https://example.com/{n}" for n in range(25)), extra="<priority>high</priority>"))
    code, out, _ = run(capsys, "validate", str(path))
    lines = out.splitlines()
    assert code == 1
    assert sum("error[priority-invalid]: priority" in line for line in lines) == 10
    (more,) = [line for line in lines if "and 15 more" in line]
    assert more.startswith(f"{path}: error[priority-invalid]: and 15 more")
    assert lines[-1] == "25 errors, 0 warnings in 1 file, 25 entries"  # counted all the same
    code, out, _ = run(capsys, "validate", "--json", str(path))
    assert [f["code"] for f in json.loads(out)["findings"]] == ["priority-invalid"] * 25


def test_ignore_leaves_a_code_out_of_the_listing_and_the_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "in.xml"
    path.write_bytes(urlset("https://example.com/a", "https://example.com/a", "https://example.com/b c"))
    assert run(capsys, "validate", str(path), "--strict")[0] == 1
    code, out, _ = run(capsys, "validate", str(path), "--ignore", "loc-duplicate", "--ignore", "loc-not-escaped")
    assert code == 0 and out == "0 errors, 0 warnings in 1 file, 3 entries\n"
    code, out, err = run(capsys, "validate", str(path), "--ignore", "no-such-code")
    assert code == 2 and "no-such-code" in err and out == ""
    report = feedmap.validate(path, ignore=["loc-duplicate"])
    assert codes(report) == ["loc-not-escaped"] and report.warnings == 0
    with pytest.raises(ValueError, match="no-such-code"):
        feedmap.validate(path, ignore=["no-such-code"])


def test_findings_come_in_line_order(tmp_path: Path) -> None:
    """Fields were checked loc last and unknown elements first: an entry's findings came out of order."""
    entry = (
        "<url>\n<title>t</title>\n<loc>https://example.com/a b</loc>\n<lastmod>2024-13-01</lastmod>\n"
        "<changefreq>Daily</changefreq>\n<title>u</title>\n<priority>2</priority>\n</url>\n"
    )
    document = f'<?xml version="1.0"?>\n<urlset xmlns="{SM}">\n{entry}{entry}</urlset>\n'
    path = tmp_path / "in.xml"
    path.write_text(document, encoding="utf-8")
    report = feedmap.validate(path)
    lines = [finding.line for finding in report.findings]
    assert len(lines) == 13 and lines == sorted(lines)  # 6 a <url>, and the second's loc is a repeat
    assert codes(report)[:6] == [
        "unknown-element",
        "loc-not-escaped",
        "lastmod-invalid",
        "changefreq-invalid",
        "unknown-element",
        "priority-invalid",
    ]


# ---------------------------------------------------------------------------- reader and validate agree


def reader_locs(path: Path) -> list[tuple[str, int]]:
    with feedmap.read(path) as doc:
        return [(entry.loc, entry.origin.line if entry.origin else 0) for entry in doc]


def test_a_lone_cr_ends_a_text_line_for_the_reader_and_for_validate(tmp_path: Path) -> None:
    path = tmp_path / "mac.txt"
    path.write_bytes(b"https://example.com/a\rhttps://example.com/b\r\nhttps://example.com/a\rhttps://example.com/c\n")
    assert reader_locs(path) == [
        ("https://example.com/a", 1),
        ("https://example.com/b", 2),
        ("https://example.com/a", 3),
        ("https://example.com/c", 4),
    ]
    report = feedmap.validate(path)
    assert [(f.code, f.line) for f in report.findings] == [("loc-duplicate", 3)]
    assert "also on line 1" in report.findings[0].message and report.entries == 4


def test_a_cr_inside_an_xml_loc_is_the_same_line_break_for_both(tmp_path: Path) -> None:
    """XML 1.0 §2.11: a lone CR is read as LF by both parsers, so both see a URL holding a line break."""
    path = tmp_path / "cr.xml"
    path.write_bytes(urlset("https://example.com/a\rb"))
    ((loc, line),) = reader_locs(path)
    assert loc == "https://example.com/a\nb"
    (finding,) = feedmap.validate(path).findings
    assert finding.code == "loc-not-escaped" and repr(loc) in finding.message and finding.line == line


def test_utf7_is_read_as_utf8_by_the_reader_and_by_validate(tmp_path: Path) -> None:
    """UTF-7 is no document encoding (WHATWG Encoding): "+AGE-" is five characters, not "a", for both."""
    path = tmp_path / "utf7.xml"
    data = urlset("https://example.com/+AGE-", "https://example.com/a").replace(b"UTF-8", b"UTF-7", 1)
    path.write_bytes(data)
    assert [loc for loc, _ in reader_locs(path)] == ["https://example.com/+AGE-", "https://example.com/a"]
    report = feedmap.validate(path)
    assert codes(report) == ["unknown-encoding"]  # and no loc-duplicate: the two URLs differ
    utf16 = tmp_path / "utf16.xml"
    utf16.write_bytes(urlset("https://example.com/a").replace(b"UTF-8", b"UTF-16", 1))
    assert [loc for loc, _ in reader_locs(utf16)] == ["https://example.com/a"]
    assert codes(feedmap.validate(utf16)) == ["unknown-encoding"]  # not "not well-formed"


# ------------------------------------------------------------------------------- messages of following


def test_child_unreadable_names_the_url_once(web: LocalSite) -> None:
    missing = web.url("/missing.xml")
    index = web.add("/index.xml", f'<sitemapindex xmlns="{SM}"><sitemap><loc>{missing}</loc></sitemap></sitemapindex>')
    (finding,) = feedmap.validate(index).findings
    assert finding.code == "child-unreadable" and finding.message.count(missing) == 1


def test_no_child_read_counts_the_siblings_the_filter_left_out(
    web: LocalSite, capsys: pytest.CaptureFixture[str]
) -> None:
    old = [f"<sitemap><loc>{web.url(f'/old-{n}.xml')}</loc><lastmod>2001-01-01</lastmod></sitemap>" for n in range(2)]
    new = f"<sitemap><loc>{web.url('/missing.xml')}</loc><lastmod>2024-01-01</lastmod></sitemap>"
    index = web.add("/index.xml", f'<sitemapindex xmlns="{SM}">{"".join(old)}{new}</sitemapindex>')
    code, _, err = run(capsys, "convert", index, "-t", "text", "--since", "2020-01-01", "--retries", "0")
    (message,) = [line for line in err.splitlines() if "no-child-read" in line]
    assert code == 1
    assert "the only child sitemap the follow filter kept (2 others left out by it)" in message


def test_a_child_or_an_input_over_the_size_cap_is_a_finding_not_a_traceback(
    web: LocalSite, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Content-Length over --max-bytes ended validate in a LimitError traceback (found by the fuzz test)."""
    big = web.add("/big.xml", urlset(*(web.url(f"/{n}") for n in range(100))))
    index = web.add("/index.xml", f'<sitemapindex xmlns="{SM}"><sitemap><loc>{big}</loc></sitemap></sitemapindex>')
    report = feedmap.validate(index, options=feedmap.Options(max_bytes=1000))
    (finding,) = report.findings
    assert finding.code == "child-unreadable" and "larger than 1,000 bytes" in finding.message
    code, out, _ = run(capsys, "validate", big, "--max-bytes", "1000")
    assert code == 2 and "error[unreadable]" in out
