"""Following sitemap indexes over HTTP (issue 4, points 2, 3 and 6) against a real server on 127.0.0.1.

sitemaps.org "Sitemap index files" and "Sitemap file location": an index lists sitemaps of its own site
(scheme, host and port), read here concurrently but yielded in index order; nested indexes are followed
up to a depth cap, loops are reported (``index-loop``) and cut, off-site children are reported
(``child-off-site``) and never fetched, a failing child is reported (``child-unreadable``, naming it) while
the others still come.  ``follow=`` / ``--since`` choose children by loc and lastmod (``child-skipped``),
``--no-follow`` yields the index's own entries, and ``--map PREFIX=DIR`` reads mapped URLs from disk
with no network at all.  Other hosts are simulated with ``localhost`` against ``127.0.0.1``.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import codes, run, urlset_xml
from localsite import LocalSite

import feedmap
from feedmap import Diagnostic, HttpSettings, Level, Options, ReadError, Reporter, W3CDate, sitemap_tree

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
FAST = HttpSettings(connect_timeout=2.0, read_timeout=3.0, deadline=10.0, retries=1, backoff=0.01)


def index_xml(*children: str | tuple[str, str | None]) -> bytes:
    """An index listing ``children``: a loc, or (loc, lastmod)."""
    parts = [f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SM}">\n']
    for child in children:
        loc, lastmod = child if isinstance(child, tuple) else (child, None)
        extra = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
        parts.append(f"  <sitemap><loc>{loc}</loc>{extra}</sitemap>\n")
    parts.append("</sitemapindex>\n")
    return "".join(parts).encode()


def pages(name: str, count: int = 2) -> list[str]:
    return [f"https://www.example.com/{name}/{n}" for n in range(count)]


def read(url: str, **options: object) -> tuple[list[str], list[Diagnostic]]:
    reporter = Reporter()
    options.setdefault("http", FAST)
    with feedmap.read(url, options=feedmap.Options(**options), reporter=reporter) as doc:  # type: ignore[arg-type]
        locs = [entry.loc for entry in doc]
    return locs, reporter.diagnostics


# ------------------------------------------------------------------------------------------------ children


def test_index_with_a_gzip_child_and_a_plain_child(web: LocalSite) -> None:
    gz = web.add("/posts.xml.gz", gzip.compress(urlset_xml(*pages("posts"))), content_type="application/gzip")
    plain = web.add("/pages.xml", urlset_xml(*pages("pages")))
    index = web.add("/sitemap_index.xml", index_xml(gz, plain))
    locs, diagnostics = read(index)
    assert locs == pages("posts") + pages("pages")
    assert [d for d in diagnostics if d.level >= Level.WARNING] == []
    assert web.hits("/posts.xml.gz") == web.hits("/pages.xml") == web.hits("/sitemap_index.xml") == 1


def test_children_come_in_index_order_when_the_first_is_slowest(web: LocalSite) -> None:
    slow = web.add("/a.xml", urlset_xml(*pages("a")), delay=0.5)
    fast = web.add("/b.xml", urlset_xml(*pages("b")), encoding="gzip")
    index = web.add("/index.xml", index_xml(slow, fast), encoding="gzip")
    assert read(index)[0] == pages("a") + pages("b")


def test_the_command_line_follows_a_remote_index(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    a = web.add("/a.xml", urlset_xml(*pages("a")))
    b = web.add("/b.xml.gz", gzip.compress(urlset_xml(*pages("b"))))
    index = web.add("/index.xml", index_xml(a, b))
    code, out, err = run(capsys, "convert", index, "-t", "text")
    assert code == 0, err
    assert out.split() == pages("a") + pages("b")


def test_nested_index(web: LocalSite) -> None:
    leaf = web.add("/leaf.xml", urlset_xml(*pages("leaf")))
    inner = web.add("/inner-index.xml", index_xml(leaf))
    first = web.add("/first.xml", urlset_xml(*pages("first")))
    last = web.add("/last.xml", urlset_xml(*pages("last")))
    outer = web.add("/index.xml", index_xml(first, inner, last))
    locs, diagnostics = read(outer)
    assert locs == pages("first") + pages("leaf") + pages("last")
    assert codes(d for d in diagnostics if d.level >= Level.WARNING) == []


def test_an_index_listing_itself_is_a_loop_reported_once(web: LocalSite) -> None:
    index = web.url("/index.xml")
    child = web.add("/a.xml", urlset_xml(*pages("a")))
    web.add("/index.xml", index_xml(index, child))
    locs, diagnostics = read(index)
    assert locs == pages("a")
    assert codes(diagnostics) == ["index-loop"]
    assert index in diagnostics[0].message
    assert web.hits("/index.xml") == 1


def test_two_indexes_listing_each_other_are_a_loop_reported_once(web: LocalSite) -> None:
    a, b = web.url("/a-index.xml"), web.url("/b-index.xml")
    leaf = web.add("/leaf.xml", urlset_xml(*pages("leaf")))
    web.add("/a-index.xml", index_xml(b))
    web.add("/b-index.xml", index_xml(a, leaf))
    locs, diagnostics = read(a)
    assert locs == pages("leaf")
    assert codes(diagnostics) == ["index-loop"]
    assert a in diagnostics[0].message
    assert web.hits("/a-index.xml") == web.hits("/b-index.xml") == 1


@pytest.mark.parametrize(
    "spelling",
    ["/./index.xml", "/a/../index.xml", "/%69ndex.xml", "/index.xml#top", "HTTP://127.0.0.1:{port}/index.xml"],
)
def test_an_index_listing_itself_under_another_spelling_is_a_loop(web: LocalSite, spelling: str) -> None:
    # issue 8: loop detection missed /./index.xml (RFC 3986 6.2.2: the same resource)
    port = web.base.rsplit(":", 1)[1]
    written = spelling.format(port=port) if spelling.startswith("HTTP") else web.url(spelling)
    index = web.url("/index.xml")
    child = web.add("/a.xml", urlset_xml(*pages("a")))
    web.add("/index.xml", index_xml(written, child))
    locs, diagnostics = read(index)
    assert locs == pages("a")
    assert codes(diagnostics) == ["index-loop"]
    assert web.hits("/index.xml") == 1


def test_loop_on_the_command_line(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = web.url("/a-index.xml"), web.url("/b-index.xml")
    web.add("/a-index.xml", index_xml(b))
    web.add("/b-index.xml", index_xml(a))
    code, out, err = run(capsys, "convert", a, "-t", "text")
    assert code == 0
    assert out == ""
    assert err.count("[index-loop]") == 1
    assert run(capsys, "convert", a, "-t", "text", "--strict")[0] == 1


def test_depth_cap(web: LocalSite, tmp_path: Path) -> None:
    leaf = web.add("/leaf.xml", urlset_xml(*pages("leaf")))
    inner = web.add("/inner-index.xml", index_xml(leaf))
    near = web.add("/near.xml", urlset_xml(*pages("near")))
    outer = web.add("/index.xml", index_xml(inner, near))
    out = tmp_path / "out.jsonl"
    reporter = Reporter()
    feedmap.convert(outer, out, format="jsonl", options=Options(max_depth=1, http=FAST), reporter=reporter)
    assert [json.loads(line)["loc"] for line in out.read_text().splitlines()] == pages("near")
    assert codes(reporter.diagnostics) == ["index-too-deep"]
    assert leaf in reporter.diagnostics[0].message
    assert web.hits("/leaf.xml") == 0
    # the default depth reads it
    feedmap.convert(outer, out, format="jsonl", options=Options(http=FAST))
    assert len(out.read_text().splitlines()) == 4


def test_depth_cap_on_the_command_line(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    leaf = web.add("/leaf.xml", urlset_xml(*pages("leaf")))
    inner = web.add("/inner-index.xml", index_xml(leaf))
    outer = web.add("/index.xml", index_xml(inner))
    code, out, err = run(capsys, "convert", outer, "--max-depth", "1", "-t", "text")
    assert (code, out) == (1, "")  # the only child was not read: nothing was (issue 9)
    assert f"{inner}:3: warning[index-too-deep]" in err
    assert f"{outer}: error[no-child-read]" in err
    code, out, _ = run(capsys, "convert", outer, "--max-depth", "2", "-t", "text")
    assert out.split() == pages("leaf")
    code, out, _ = run(capsys, "info", outer, "--max-depth", "1", "--json")
    assert (code, out) == (1, "")


# ------------------------------------------------------------------------------------------------ scope, failures


def test_an_off_site_child_is_reported_and_not_fetched(web: LocalSite) -> None:
    other_host = web.url("/elsewhere.xml").replace("127.0.0.1", "localhost")
    web.add("/elsewhere.xml", urlset_xml(*pages("elsewhere")))
    mine = web.add("/mine.xml", urlset_xml(*pages("mine")))
    index = web.add("/index.xml", index_xml(other_host, mine))
    locs, diagnostics = read(index)
    assert locs == pages("mine")
    assert codes(diagnostics) == ["child-off-site"]
    assert other_host in diagnostics[0].message
    assert web.hits("/elsewhere.xml") == 0


def test_scope_is_the_site_an_index_was_redirected_to(web: LocalSite) -> None:
    # http://example.com/sitemap.xml -> https://www.example.com/sitemap.xml is common: the children are on
    # the site the index is served from, not the one first asked
    other = web.base.replace("127.0.0.1", "localhost")
    web.add("/a.xml", urlset_xml(*pages("a")))
    web.add("/index.xml", index_xml(f"{other}/a.xml"))
    old = web.add("/old-index.xml", status=301, headers={"Location": f"{other}/index.xml"})
    locs, diagnostics = read(old)
    assert locs == pages("a")
    assert diagnostics == []


def test_a_nested_index_redirected_on_its_site_keeps_its_scope(web: LocalSite) -> None:
    web.add("/leaf.xml", urlset_xml(*pages("leaf")))
    web.add("/new/inner.xml", index_xml(web.url("/leaf.xml")))
    moved = web.add("/moved.xml", status=302, headers={"Location": "/new/inner.xml"})
    index = web.add("/index.xml", index_xml(moved))
    locs, diagnostics = read(index)
    assert locs == pages("leaf")
    assert diagnostics == []


def test_a_child_redirected_to_another_host_is_off_site_and_not_requested(web: LocalSite) -> None:
    # issue 8: an on-site child answering 302 to another host was fetched and its entries written
    with LocalSite(host="127.0.0.2") as other:
        other.add("/inner.xml", index_xml(other.url("/leaf.xml")))
        other.add("/leaf.xml", urlset_xml(*pages("elsewhere")))
        moved = web.add("/moved.xml", status=302, headers={"Location": other.url("/inner.xml")})
        mine = web.add("/mine.xml", urlset_xml(*pages("mine")))
        index = web.add("/index.xml", index_xml(moved, mine))
        locs, diagnostics = read(index)
        assert other.hits("/inner.xml") == 0  # refused before it was requested
    assert locs == pages("mine")
    assert codes(diagnostics) == ["child-off-site"]
    assert diagnostics[0].source == index
    assert moved in diagnostics[0].message
    assert other.url("/inner.xml") in diagnostics[0].message  # the redirect is named


def test_every_hop_of_a_child_redirect_stays_on_site(web: LocalSite) -> None:
    # on-site -> on-site -> another host: refused at the last hop, before it is requested
    with LocalSite(host="127.0.0.2") as other:
        other.add("/leaf.xml", urlset_xml(*pages("elsewhere")))
        web.add("/hop2.xml", status=307, headers={"Location": other.url("/leaf.xml")})
        first = web.add("/hop1.xml", status=301, headers={"Location": "/hop2.xml"})
        index = web.add("/index.xml", index_xml(first))
        reporter = Reporter()
        with pytest.raises(ReadError, match="nothing was read"), feedmap.read(index, reporter=reporter) as doc:
            assert list(doc) == []
        assert other.hits("/leaf.xml") == 0
    assert codes(reporter.diagnostics) == ["child-off-site"]
    assert web.hits("/hop2.xml") == 1


def test_a_child_redirect_to_another_scheme_is_refused(web: LocalSite, tmp_path: Path) -> None:
    secret = tmp_path / "secret.xml"
    secret.write_bytes(urlset_xml("https://www.example.com/secret"))
    moved = web.add("/moved.xml", status=302, headers={"Location": secret.as_uri()})
    index = web.add("/index.xml", index_xml(moved))
    reporter = Reporter()
    with pytest.raises(ReadError, match="nothing was read"), feedmap.read(index, reporter=reporter) as doc:
        assert list(doc) == []
    assert codes(reporter.diagnostics) == ["child-off-site"]


def test_discover_tree_refuses_a_child_redirected_to_another_host(web: LocalSite) -> None:
    with LocalSite(host="127.0.0.2") as other:
        other.add("/leaf.xml", urlset_xml(*pages("elsewhere")))
        moved = web.add("/moved.xml", status=302, headers={"Location": other.url("/leaf.xml")})
        index = web.add("/index.xml", index_xml(moved))
        tree = sitemap_tree(index, Options(http=FAST))
        assert other.hits("/leaf.xml") == 0
    assert [(child.url, child.code) for child in tree.children] == [(moved, "child-off-site")]
    assert tree.urls == 0


def test_a_remote_index_cannot_make_us_read_local_files(web: LocalSite, tmp_path: Path) -> None:
    secret = tmp_path / "secret.xml"
    secret.write_bytes(urlset_xml("https://www.example.com/secret"))
    mine = web.add("/mine.xml", urlset_xml(*pages("mine")))
    index = web.add("/index.xml", index_xml(secret.as_uri(), mine))
    locs, diagnostics = read(index)
    assert locs == pages("mine")
    assert "child-off-site" in codes(diagnostics)  # (and loc-not-absolute: a file: URL has no host)


def test_an_other_scheme_or_port_is_off_site(web: LocalSite) -> None:
    port = int(web.base.rsplit(":", 1)[1])
    https = web.url("/a.xml").replace("http://", "https://")
    other_port = f"http://127.0.0.1:{port + 1 if port < 65535 else port - 1}/b.xml"
    mine = web.add("/mine.xml", urlset_xml(*pages("mine")))
    index = web.add("/index.xml", index_xml(https, other_port, mine))
    locs, diagnostics = read(index)
    assert locs == pages("mine")
    assert codes(diagnostics) == ["child-off-site", "child-off-site"]


def test_a_failing_child_is_reported_and_the_others_still_come(web: LocalSite) -> None:
    a = web.add("/a.xml", urlset_xml(*pages("a")))
    missing = web.url("/missing.xml")
    c = web.add("/c.xml", urlset_xml(*pages("c")))
    index = web.add("/index.xml", index_xml(a, missing, c))
    locs, diagnostics = read(index)
    assert locs == pages("a") + pages("c")
    assert codes(diagnostics) == ["child-unreadable"]
    assert missing in diagnostics[0].message
    assert diagnostics[0].line == 4  # the <sitemap> of the missing child in the index


def test_a_malformed_child_url_is_reported_and_the_others_still_come(web: LocalSite) -> None:
    a = web.add("/a.xml", urlset_xml(*pages("a")))
    c = web.add("/c.xml", urlset_xml(*pages("c")))
    index = web.add("/index.xml", index_xml(a, "http://[::1/x.xml", c))
    locs, diagnostics = read(index)
    assert locs == pages("a") + pages("c")
    assert [(d.code, d.line) for d in diagnostics] == [("loc-not-absolute", 4), ("child-off-site", 4)]


def test_the_failure_of_a_child_names_it_once(web: LocalSite) -> None:
    big = web.add("/big.xml", urlset_xml(*pages("big", 100)))
    missing = web.url("/missing.xml")
    small = web.add("/small.xml", urlset_xml(*pages("small")))
    index = web.add("/index.xml", index_xml(big, missing, small))
    locs, diagnostics = read(index, max_bytes=2048)
    assert locs == pages("small")
    assert codes(diagnostics) == ["child-unreadable", "child-unreadable"]
    assert [d.message.count(url) for d, url in zip(diagnostics, [big, missing], strict=True)] == [1, 1]


def test_a_slow_child_fails_on_its_timeout_and_the_others_still_come(web: LocalSite) -> None:
    slow = web.add("/slow.xml", urlset_xml(*pages("slow")), held=True)  # answers when the test ends
    b = web.add("/b.xml", urlset_xml(*pages("b")))
    index = web.add("/index.xml", index_xml(slow, b))
    locs, diagnostics = read(index, http=HttpSettings(read_timeout=0.5, retries=0))
    assert web.answered("/slow.xml") == 0  # given up before it answered
    assert locs == pages("b")
    assert codes(diagnostics) == ["child-unreadable"]
    assert slow in diagnostics[0].message


def test_a_failing_child_on_the_command_line(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    a = web.add("/a.xml", urlset_xml(*pages("a")))
    missing = web.url("/missing.xml")
    index = web.add("/index.xml", index_xml(missing, a))
    code, out, err = run(capsys, "convert", index, "-t", "text")
    assert code == 0
    assert out.split() == pages("a")
    (line,) = [line for line in err.splitlines() if "[child-unreadable]" in line]
    assert line.startswith(f"{index}:3: warning[child-unreadable]:")
    assert missing in line
    code, _, err = run(capsys, "convert", index, "-t", "text", "--strict")
    assert code == 1
    assert "[child-unreadable]" in err
    assert "Traceback" not in err


def test_a_child_over_the_size_cap_is_reported(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    big = web.add("/big.xml", urlset_xml(*pages("big", 100)), encoding="gzip")
    small = web.add("/small.xml", urlset_xml(*pages("small")))
    index = web.add("/index.xml", index_xml(big, small))
    code, out, err = run(capsys, "convert", index, "-t", "text", "--max-bytes", "2K")
    assert code == 0
    assert out.split() == pages("small")
    assert "[child-unreadable]" in err
    assert big in err


# ------------------------------------------------------------------------------------------------ concurrency


def slow_children(site: LocalSite, count: int = 8, **route: Any) -> str:
    """An index of ``count`` children under ``/part-`` answering as ``route`` says (see localsite.Route)."""
    children = [site.add(f"/part-{n}.xml", urlset_xml(*pages(f"part-{n}")), **route) for n in range(count)]
    return site.add("/index.xml", index_xml(*children))


def expected_parts(count: int = 8) -> list[str]:
    return [loc for n in range(count) for loc in pages(f"part-{n}")]


def test_children_are_fetched_concurrently(web: LocalSite) -> None:
    index = slow_children(web, wait_for_peak=8)  # each child answers once all 8 are asked for at once
    locs, diagnostics = read(index, concurrency=8)
    assert locs == expected_parts()
    assert diagnostics == []
    assert web.peak("/part-") == 8


def test_concurrency_on_the_command_line(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    index = slow_children(web, wait_for_peak=8)
    code, out, _ = run(capsys, "convert", index, "-t", "text", "--concurrency", "8")
    assert code == 0
    assert out.split() == expected_parts()
    assert web.peak("/part-") == 8


def test_concurrency_one_on_the_command_line(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    index = slow_children(web, delay=0.05)  # long enough for a second request to arrive if one were sent
    code, out, _ = run(capsys, "convert", index, "-t", "text", "--concurrency", "1")
    assert code == 0
    assert out.split() == expected_parts()
    assert web.peak("/part-") == 1  # one at a time


def test_closing_early_does_not_wait_for_children_in_flight(web: LocalSite) -> None:
    first = web.add("/first.xml", urlset_xml(*pages("first")))
    slow = [web.add(f"/slow-{n}.xml", urlset_xml(*pages(f"slow-{n}")), held=True) for n in range(3)]
    index = web.add("/index.xml", index_xml(first, *slow))
    doc = feedmap.read(index, options=feedmap.Options(http=FAST, concurrency=4))
    assert next(iter(doc)).loc == pages("first")[0]
    assert web.wait_in_flight(3, "/slow-")  # the other children are being fetched
    doc.close()
    # closing returned while every other child was still unanswered: it did not wait for them
    assert [web.answered(f"/slow-{n}.xml") for n in range(3)] == [0, 0, 0]


def test_concurrency_is_bounded(web: LocalSite) -> None:
    # the first two children answer once both are asked for; every child then takes long enough that a third
    # request sent beside them would be seen in flight
    index = slow_children(web, count=6, wait_for_peak=2, delay=0.1)
    locs, _ = read(index, concurrency=2)
    assert locs == expected_parts(6)
    assert web.peak("/part-") == 2


# ------------------------------------------------------------------------------------------------ follow, --since


def dated_index(site: LocalSite) -> tuple[str, list[str]]:
    old = site.add("/old.xml", urlset_xml(*pages("old")))
    new = site.add("/new.xml", urlset_xml(*pages("new")))
    undated = site.add("/undated.xml", urlset_xml(*pages("undated")))
    children = [(old, "2024-01-15"), (new, "2024-07-01T10:00:00+00:00"), (undated, None)]
    return site.add("/index.xml", index_xml(*children)), [old, new, undated]


def test_since_skips_older_children_and_reads_undated_ones(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    index, (old, _, _) = dated_index(web)
    code, out, err = run(capsys, "convert", index, "-t", "text", "--since", "2024-06-01")
    assert code == 0
    assert out.split() == pages("new") + pages("undated")
    (skipped,) = [line for line in err.splitlines() if "[child-skipped]" in line]
    assert "info[child-skipped]" in skipped
    assert old in skipped
    assert web.hits("/old.xml") == 0
    assert web.hits("/new.xml") == web.hits("/undated.xml") == 1
    # a skipped child is a note, not a warning: --strict still succeeds
    assert run(capsys, "convert", index, "-t", "text", "--since", "2024-06-01", "--strict")[0] == 0


def test_follow_predicate_sees_loc_and_lastmod(web: LocalSite) -> None:
    index, (old, new, undated) = dated_index(web)
    seen: list[tuple[str, str | None]] = []

    def follow(loc: str, lastmod: W3CDate | None) -> bool:
        seen.append((loc, lastmod.text if lastmod is not None else None))
        return loc != new

    locs, diagnostics = read(index, follow_child=follow)
    assert seen == [(old, "2024-01-15"), (new, "2024-07-01T10:00:00+00:00"), (undated, None)]
    assert locs == pages("old") + pages("undated")
    assert codes(diagnostics) == ["child-skipped"]
    assert diagnostics[0].level == Level.INFO
    assert web.hits("/new.xml") == 0


def test_no_follow_yields_the_index_entries(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    index, children = dated_index(web)
    code, out, _ = run(capsys, "convert", index, "-t", "jsonl", "--no-follow")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0] == {"kind": "index"}
    assert [(row["loc"], row.get("lastmod")) for row in rows[1:]] == [
        (children[0], "2024-01-15"),
        (children[1], "2024-07-01T10:00:00+00:00"),
        (children[2], None),
    ]
    assert sum(web.hits(path) for path in ("/old.xml", "/new.xml", "/undated.xml")) == 0


def test_no_follow_in_the_library(web: LocalSite) -> None:
    index, children = dated_index(web)
    assert read(index, follow=False)[0] == children
    assert web.hits("/old.xml") == 0


# ------------------------------------------------------------------------------------------------ --map


def build_dir(root: Path, site_url: str) -> None:
    """A static-site build: an index, a nested index, a plain and a gzip sitemap, under ``site_url``."""
    (root / "blog").mkdir(parents=True)
    (root / "sitemap_index.xml").write_bytes(
        index_xml(f"{site_url}pages.xml", f"{site_url}blog/", f"{site_url}posts.xml.gz")
    )
    (root / "blog" / "index.xml").write_bytes(index_xml(f"{site_url}blog/2024.xml"))
    (root / "blog" / "2024.xml").write_bytes(urlset_xml(*pages("blog")))
    (root / "pages.xml").write_bytes(urlset_xml(*pages("pages")))
    (root / "posts.xml.gz").write_bytes(gzip.compress(urlset_xml(*pages("posts"))))


def test_map_reads_everything_from_disk_with_no_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], refused_port: int
) -> None:
    site_url = f"http://127.0.0.1:{refused_port}/"  # nothing listens there
    build_dir(tmp_path / "public", site_url)
    code, out, err = run(
        capsys, "convert", f"{site_url}sitemap_index.xml", "--map", f"{site_url}={tmp_path / 'public'}", "-t", "text",
        "--retries", "0", "--strict",
    )  # fmt: skip
    assert code == 0, err  # --strict: a child fetched from the closed port would have failed the run
    assert out.split() == pages("pages") + pages("blog") + pages("posts")


def test_map_in_the_library_with_no_server(tmp_path: Path, refused_port: int) -> None:
    site_url = f"http://127.0.0.1:{refused_port}/"
    build_dir(tmp_path, site_url)
    locs, diagnostics = read(f"{site_url}sitemap_index.xml", maps=[(site_url, tmp_path)])
    assert locs == pages("pages") + pages("blog") + pages("posts")
    assert diagnostics == []


def test_map_children_of_a_remote_index(web: LocalSite, tmp_path: Path) -> None:
    (tmp_path / "mapped.xml").write_bytes(urlset_xml(*pages("mapped")))
    fetched = web.add("/fetched.xml", urlset_xml(*pages("fetched")))
    index = web.add("/index.xml", index_xml(web.url("/static/mapped.xml"), fetched))
    locs, diagnostics = read(index, maps=[(web.url("/static/"), tmp_path)])
    assert locs == pages("mapped") + pages("fetched")
    assert diagnostics == []
    assert web.hits("/static/mapped.xml") == 0
    assert web.hits("/fetched.xml") == 1


def test_a_map_prefix_ends_at_the_host(web: LocalSite, tmp_path: Path) -> None:
    # --map PREFIX=DIR without a trailing slash: http://127.0.0.1:4321 must not cover http://127.0.0.1:43215/
    # (as https://example.com must not cover https://example.com.evil/)
    port = web.base.rsplit(":", 1)[1]
    prefix = f"http://127.0.0.1:{port[:-1]}"
    (tmp_path / "mapped.xml").write_bytes(urlset_xml(*pages("mapped")))
    (tmp_path / port[-1]).mkdir()
    (tmp_path / port[-1] / "fetched.xml").write_bytes(urlset_xml(*pages("from-disk")))
    fetched = web.add("/fetched.xml", urlset_xml(*pages("fetched")))
    index = tmp_path / "index.xml"
    index.write_bytes(index_xml(f"{prefix}/mapped.xml", fetched))
    locs, diagnostics = read(str(index), maps=[(prefix, tmp_path)])
    assert locs == pages("mapped") + pages("fetched")
    assert diagnostics == []
    assert web.hits("/fetched.xml") == 1


def test_unmapped_child_on_a_closed_port_is_reported(tmp_path: Path, refused_port: int) -> None:
    site_url = f"http://127.0.0.1:{refused_port}/"
    (tmp_path / "a.xml").write_bytes(urlset_xml(*pages("a")))
    (tmp_path / "index.xml").write_bytes(index_xml(f"{site_url}static/a.xml", f"{site_url}other/b.xml"))
    locs, diagnostics = read(
        f"{site_url}static/index.xml", maps=[(f"{site_url}static/", tmp_path)], http=HttpSettings(retries=0)
    )
    assert locs == pages("a")
    assert codes(diagnostics) == ["child-unreadable"]
    assert f"{site_url}other/b.xml" in diagnostics[0].message
