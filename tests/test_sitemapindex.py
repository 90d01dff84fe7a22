"""The ``sitemapindex`` format: following children (maps, gzip, nesting, loops, depth cap) and writing."""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest
from conftest import codes, release_fifo_reader, urlset_xml
from lxml import etree

import feedmap
from feedmap import Diagnostic, DocKind, Entry, HttpSettings, Level, Options, ReadError, Reporter, W3CDate

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
SITE = "https://www.example.com/"


# ------------------------------------------------------------------------------------------------ helpers


def index_xml(*children: str, lastmod: str | None = None) -> bytes:
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n', f'<sitemapindex xmlns="{SM}">\n']
    for loc in children:
        extra = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
        parts.append(f"  <sitemap>\n    <loc>{loc}</loc>{extra}\n  </sitemap>\n")
    parts.append("</sitemapindex>\n")
    return "".join(parts).encode()


def read_index(
    path: Path, maps: Sequence[tuple[str, Path]] = (), *, follow: bool = True, **options: int
) -> tuple[list[Entry], list[Diagnostic], DocKind, str | None]:
    reporter = Reporter()
    settings = feedmap.Options(maps=maps, follow=follow, **options)  # type: ignore[arg-type]
    with feedmap.read(str(path), options=settings, reporter=reporter) as doc:
        entries = list(doc)
        return entries, reporter.diagnostics, doc.meta.kind, doc.format


def locs(entries: Iterable[Entry]) -> list[str]:
    return [entry.loc for entry in entries]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A build directory with a plain child and a gzipped child."""
    root = tmp_path / "public"
    root.mkdir()
    (root / "pages.xml").write_bytes(urlset_xml(f"{SITE}a", f"{SITE}b"))
    (root / "posts.xml.gz").write_bytes(gzip.compress(urlset_xml(f"{SITE}posts/1", f"{SITE}posts/2")))
    return root


# ------------------------------------------------------------------------------------------------ following


def test_follow_mapped_children_plain_and_gzip(site: Path) -> None:
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}pages.xml", f"{SITE}posts.xml.gz"))
    entries, diagnostics, kind, fmt = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}a", f"{SITE}b", f"{SITE}posts/1", f"{SITE}posts/2"]
    assert codes(diagnostics) == []
    assert kind is DocKind.URLSET
    assert fmt == "sitemapindex"


def test_diagnostics_of_a_child_name_the_child(site: Path) -> None:
    (site / "bad.xml").write_bytes(
        f'<urlset xmlns="{SM}">\n<url><loc>{SITE}x</loc>\n<priority>2</priority></url></urlset>'.encode()
    )
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}bad.xml"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}x"]
    assert [(Path(d.source).name, d.line, d.code) for d in diagnostics] == [("bad.xml", 3, "priority-invalid")]


def test_file_urls_are_followed_without_a_map(site: Path) -> None:
    index = site / "sitemap.xml"
    # file:///path has no host, so it is not a valid sitemap loc (reported), but it is followed
    index.write_bytes(index_xml((site / "pages.xml").as_uri(), "file://localhost" + (site / "pages.xml").as_posix()))
    entries, diagnostics, _, _ = read_index(index)
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"] * 2
    assert [(d.line, d.code) for d in diagnostics] == [(4, "loc-not-absolute")]


def test_a_directory_url_maps_to_its_index_xml(site: Path) -> None:
    (site / "blog").mkdir()
    (site / "blog" / "index.xml").write_bytes(urlset_xml(f"{SITE}blog/1"))
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}blog/"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}blog/1"]
    assert codes(diagnostics) == []


def test_nested_index_is_followed(site: Path) -> None:
    (site / "inner.xml").write_bytes(index_xml(f"{SITE}posts.xml.gz"))
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}pages.xml", f"{SITE}inner.xml"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}a", f"{SITE}b", f"{SITE}posts/1", f"{SITE}posts/2"]
    assert codes(diagnostics) == []


def test_index_listing_itself_is_a_loop(site: Path) -> None:
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}sitemap.xml", f"{SITE}pages.xml"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"]
    assert [(d.line, d.code) for d in diagnostics] == [(3, "index-loop")]


def test_two_indexes_listing_each_other_are_a_loop(site: Path) -> None:
    (site / "a.xml").write_bytes(index_xml(f"{SITE}b.xml", f"{SITE}pages.xml"))
    (site / "b.xml").write_bytes(index_xml(f"{SITE}a.xml", f"{SITE}posts.xml.gz"))
    entries, diagnostics, _, _ = read_index(site / "a.xml", [(SITE, site)])
    assert locs(entries) == [f"{SITE}posts/1", f"{SITE}posts/2", f"{SITE}a", f"{SITE}b"]
    assert [(Path(d.source).name, d.code) for d in diagnostics] == [("b.xml", "index-loop")]


def test_the_same_child_twice_is_not_a_loop(site: Path) -> None:
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}pages.xml", f"{SITE}pages.xml"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"] * 2
    assert codes(diagnostics) == []


def _chain(site: Path, depth: int) -> Path:
    """index0.xml -> index1.xml -> ... -> index{depth-1}.xml -> pages.xml."""
    for level in range(depth):
        child = f"index{level + 1}.xml" if level + 1 < depth else "pages.xml"
        (site / f"index{level}.xml").write_bytes(index_xml(f"{SITE}{child}"))
    return site / "index0.xml"


def _convert_to_entries(source: Path, options: Options, tmp_path: Path) -> tuple[list[Entry], list[Diagnostic]]:
    out = tmp_path / "out.jsonl"
    reporter = Reporter()
    feedmap.convert(str(source), out, "jsonl", options=options, reporter=reporter)
    with feedmap.read(str(out), format="jsonl") as doc:
        return list(doc), reporter.diagnostics


@pytest.mark.parametrize("max_depth", [1, 2, 3])
def test_depth_cap_stops_nested_indexes(site: Path, tmp_path: Path, max_depth: int) -> None:
    # with max_depth N, a chain of N indexes is read in full, a chain of N + 1 is cut
    top = _chain(site, max_depth)
    entries, diagnostics = _convert_to_entries(top, Options(maps=((SITE, site),), max_depth=max_depth), tmp_path)
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"]
    assert codes(diagnostics) == []

    top = _chain(site, max_depth + 1)
    reporter = Reporter()
    with pytest.raises(ReadError) as nothing:  # the only child was not read: nothing was (issue 9)
        feedmap.convert(
            str(top),
            tmp_path / "cut.jsonl",
            "jsonl",
            options=Options(maps=((SITE, site),), max_depth=max_depth),
            reporter=reporter,
        )
    assert nothing.value.code == "no-child-read"
    diagnostics = reporter.diagnostics
    assert codes(d for d in diagnostics if d.level >= Level.WARNING) == ["index-too-deep"]
    (too_deep,) = [d for d in diagnostics if d.code == "index-too-deep"]
    assert Path(too_deep.source).name == f"index{max_depth}.xml"


def test_default_depth_cap_allows_five_levels(site: Path) -> None:
    entries, diagnostics, _, _ = read_index(_chain(site, 5), [(SITE, site)])
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"]
    assert codes(diagnostics) == []
    reporter = Reporter()
    with (
        pytest.raises(ReadError) as nothing,
        feedmap.read(str(_chain(site, 6)), reporter=reporter, options=feedmap.Options(maps=[(SITE, site)])) as doc,
    ):
        assert list(doc) == []
    assert nothing.value.code == "no-child-read"
    assert codes(reporter.diagnostics) == ["index-too-deep"]


def test_missing_child_is_reported_and_the_rest_goes_on(site: Path) -> None:
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}gone.xml", f"{SITE}pages.xml"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"]
    assert [(d.line, d.code) for d in diagnostics] == [(3, "child-unreadable")]


def test_a_feed_child_is_read_as_a_sitemap(site: Path) -> None:
    """sitemaps.org accepts RSS 2.0 and Atom feeds as sitemaps, so an index may list one."""
    (site / "feed.xml").write_bytes(
        b'<rss version="2.0"><channel><title>t</title><link>https://www.example.com/</link>'
        b"<item><link>https://www.example.com/posts/9</link></item></channel></rss>"
    )
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}feed.xml", f"{SITE}pages.xml"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}posts/9", f"{SITE}a", f"{SITE}b"]
    assert "child-unreadable" not in codes(diagnostics)


def test_unreadable_child_content_is_reported_and_the_rest_goes_on(site: Path) -> None:
    (site / "garbage.xml").write_bytes(b"\x00\x01\x02 this is not a sitemap \xff\xfe")
    (site / "page.xml").write_bytes(b"<html><body/></html>")  # XML, but no format reads <html>
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}garbage.xml", f"{SITE}page.xml", f"{SITE}posts.xml.gz"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}posts/1", f"{SITE}posts/2"]
    assert codes(diagnostics) == ["child-unreadable", "child-unreadable"]
    # says what the child is instead; the advice to use -f is for inputs given on the command line
    assert "is not a sitemap: it is an HTML page" in diagnostics[1].message
    assert all("-f" not in d.message for d in diagnostics)


def test_a_child_that_is_not_an_http_url_is_not_read(site: Path) -> None:
    index = site / "sitemap.xml"
    index.write_bytes(index_xml("ftp://elsewhere.example.org/sitemap.xml", f"{SITE}pages.xml"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"]
    assert [(d.line, d.code) for d in diagnostics] == [(3, "child-not-read")]


def test_a_malformed_child_url_is_reported_and_the_rest_goes_on(site: Path) -> None:
    index = site / "sitemap.xml"
    index.write_bytes(index_xml("http://[::1/sitemap.xml", f"{SITE}pages.xml"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"]
    assert [(d.line, d.code) for d in diagnostics] == [(4, "loc-not-absolute"), (3, "child-unreadable")]
    assert "http://[::1/sitemap.xml" in diagnostics[1].message


@pytest.mark.parametrize(
    ("prefix", "inside", "outside"),
    [
        ("http://127.0.0.1", "http://127.0.0.1/a", "http://127.0.0.10:{port}/a"),  # a host the prefix begins
        ("http://127.0.0.1", "http://127.0.0.1/a", "http://127.0.0.1:{port}/a"),  # another port
        ("http://127.0.0.1/", "http://127.0.0.1/a", "http://127.0.0.10:{port}/a"),
        ("http://127.0.0.1:{port}/blog", "http://127.0.0.1:{port}/blog/a", "http://127.0.0.1:{port}/blogger/a"),
    ],
)
def test_a_map_prefix_ends_at_a_boundary(
    tmp_path: Path, refused_port: int, prefix: str, inside: str, outside: str
) -> None:
    """A URL under the prefix is read from the map's directory (no connection: the port refuses); one that
    only begins like it is not mapped, and is fetched from the network (refused there, said as a fetch)."""
    prefix, inside, outside = (text.format(port=refused_port) for text in (prefix, inside, outside))
    (tmp_path / "a").write_bytes(urlset_xml(f"{SITE}from-the-map"))
    settings = Options(maps=((prefix, tmp_path),), http=HttpSettings(retries=0))
    with feedmap.read(inside, options=settings) as doc:
        assert locs(doc) == [f"{SITE}from-the-map"]
    with (
        pytest.raises(feedmap.FetchError, match="cannot fetch") as raised,
        feedmap.read(outside, options=settings) as doc,
    ):
        list(doc)
    assert str(raised.value).startswith(f"{outside}: ")


def test_a_map_cannot_reach_outside_its_directory(site: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.xml").write_bytes(urlset_xml(f"{SITE}secret"))
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}../secret.xml", f"{SITE}%2e%2e/secret.xml", f"{SITE}pages.xml"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"]
    assert [(d.line, d.code) for d in diagnostics] == [(3, "map-escape"), (6, "map-escape")]


def test_no_follow_yields_the_index_entries(site: Path) -> None:
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}pages.xml", f"{SITE}posts.xml.gz", lastmod="2024-03-04T05:06:07Z"))
    entries, diagnostics, kind, fmt = read_index(index, [(SITE, site)], follow=False)
    assert entries == [
        Entry(loc=f"{SITE}pages.xml", lastmod=W3CDate("2024-03-04T05:06:07Z")),
        Entry(loc=f"{SITE}posts.xml.gz", lastmod=W3CDate("2024-03-04T05:06:07Z")),
    ]
    assert codes(diagnostics) == []
    assert kind is DocKind.INDEX
    assert fmt == "sitemapindex"


def test_index_field_repairs_are_reported(tmp_path: Path) -> None:
    index = tmp_path / "sitemap.xml"
    index.write_bytes(
        f'<sitemapindex xmlns="{SM}">\n<sitemap><loc>{SITE}s.xml</loc>\n<lastmod>2024-1-2</lastmod></sitemap>\n'
        f"<sitemap><lastmod>2024-01-02</lastmod></sitemap>\n</sitemapindex>".encode()
    )
    entries, diagnostics, _, _ = read_index(index, follow=False)
    assert entries == [Entry(loc=f"{SITE}s.xml", lastmod=W3CDate("2024-01-02"))]
    assert [(d.line, d.code) for d in diagnostics] == [(3, "lastmod-repaired"), (4, "loc-missing")]


def test_unknown_namespace_index(tmp_path: Path) -> None:
    index = tmp_path / "sitemap.xml"
    index.write_bytes(
        f'<sitemapindex xmlns="urn:other"><sitemap><loc>{SITE}s.xml</loc></sitemap></sitemapindex>'.encode()
    )
    entries, diagnostics, _, fmt = read_index(index, follow=False)
    assert locs(entries) == [f"{SITE}s.xml"]
    assert codes(diagnostics) == ["unknown-namespace"]
    assert fmt == "sitemapindex"


def test_strict_mode_stops_at_a_child_problem(site: Path) -> None:
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}gone.xml", f"{SITE}pages.xml"))
    with (
        pytest.raises(feedmap.StrictError) as info,
        feedmap.read(str(index), options=feedmap.Options(maps=[(SITE, site)], strict=True)) as doc,
    ):
        list(doc)
    assert info.value.code == "child-unreadable"


# ------------------------------------------------------------------------------------------------ writing


def write_index(
    entries: Iterable[Entry], *, schema_location: bool = False, encode_urls: bool = False
) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    summary = feedmap.write(
        entries, sink, "sitemapindex", options=feedmap.Options(schema_location=schema_location, encode_urls=encode_urls)
    )
    return sink.getvalue(), summary.diagnostics


def test_writer_emits_loc_and_lastmod_in_order() -> None:
    entries = [
        Entry(loc=f"{SITE}a.xml?x=1&y=2", lastmod=W3CDate("2024-01-02")),
        Entry(loc=f"{SITE}b.xml"),
    ]
    data, diagnostics = write_index(entries)
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex ')
    root = etree.fromstring(data)
    assert root.tag == f"{{{SM}}}sitemapindex"
    assert [[child.tag for child in sitemap] for sitemap in root] == [
        [f"{{{SM}}}loc", f"{{{SM}}}lastmod"],
        [f"{{{SM}}}loc"],
    ]
    assert root[0].findtext(f"{{{SM}}}loc") == f"{SITE}a.xml?x=1&y=2"
    assert codes(diagnostics) == []
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), reporter=reporter, options=feedmap.Options(follow=False)) as doc:
        assert list(doc) == entries
    assert codes(reporter.diagnostics) == []


def test_writer_drops_other_fields_with_an_info() -> None:
    entry = Entry(loc=f"{SITE}a.xml", priority=0.5, images=(feedmap.Image(loc=f"{SITE}i.png"),))
    data, diagnostics = write_index([entry])
    assert b"priority" not in data
    assert b"image" not in data
    assert codes(diagnostics) == ["field-dropped"]  # priority, images: one line
    assert {d.level for d in diagnostics} == {Level.INFO}


def test_writer_schema_location() -> None:
    data, _ = write_index([Entry(loc=f"{SITE}a.xml")], schema_location=True)
    root = etree.fromstring(data)
    xsi = "http://www.w3.org/2001/XMLSchema-instance"
    assert root.get(f"{{{xsi}}}schemaLocation") == f"{SM} {SM}/siteindex.xsd"


def test_writer_zero_entries_warns() -> None:
    data, diagnostics = write_index([])
    root = etree.fromstring(data)
    assert root.tag == f"{{{SM}}}sitemapindex" and len(root) == 0
    assert codes(diagnostics) == ["empty-document"]


def test_writer_more_than_50000_sitemaps_warns() -> None:
    _, diagnostics = write_index(Entry(loc=f"{SITE}s{i}.xml") for i in range(50_001))
    assert codes(diagnostics) == ["too-many-entries"]


def test_a_second_loc_in_a_sitemap_element_is_reported_and_the_first_kept(tmp_path: Path) -> None:
    index = tmp_path / "index.xml"
    index.write_bytes(
        index_xml(SITE + "a.xml").replace(b"</loc>", b"</loc>\n    <loc>" + SITE.encode() + b"b.xml</loc>", 1)
    )
    entries, diagnostics, _, _ = read_index(index, follow=False)
    assert locs(entries) == [SITE + "a.xml"]
    assert [(d.code, d.line) for d in diagnostics] == [("element-repeated", 5)]
    assert "<sitemap> at line 3" in diagnostics[0].message


# ------------------------------------------------------------------- issue 8: crashes, hangs and escapes


def test_250_nested_indexes_under_a_huge_depth_cap_are_followed_without_recursion(tmp_path: Path) -> None:
    # issue 8: --max-depth 100000 with a 250-level chain raised RecursionError (one generator per level)
    site = tmp_path / "public"
    site.mkdir()
    (site / "pages.xml").write_bytes(urlset_xml(f"{SITE}a", f"{SITE}b"))
    top = _chain(site, 250)
    entries, diagnostics = _convert_to_entries(top, Options(maps=((SITE, site),), max_depth=100_000), tmp_path)
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"]
    assert codes(diagnostics) == []


def test_deep_nesting_keeps_index_order_and_reports_failures_at_their_level(tmp_path: Path) -> None:
    # each level: a leaf before the nested index, a missing child after it; everything in index order
    site = tmp_path / "public"
    site.mkdir()
    depth = 300
    for level in range(depth):
        (site / f"leaf{level}.xml").write_bytes(urlset_xml(f"{SITE}{level}"))
        children = [f"{SITE}leaf{level}.xml"]
        if level + 1 < depth:
            children.append(f"{SITE}index{level + 1}.xml")
        children.append(f"{SITE}missing{level}.xml")
        (site / f"index{level}.xml").write_bytes(index_xml(*children))
    entries, diagnostics, _, _ = read_index(site / "index0.xml", [(SITE, site)], max_depth=depth)
    assert locs(entries) == [f"{SITE}{level}" for level in range(depth)]
    failed = [d for d in diagnostics if d.code == "child-unreadable"]
    assert [Path(d.source).name for d in failed] == [f"index{level}.xml" for level in reversed(range(depth))]
    assert all(f"missing{Path(d.source).stem[5:]}.xml" in d.message for d in failed)


def test_a_nested_index_that_fails_midway_is_reported_and_its_parent_goes_on(site: Path) -> None:
    # the nested index is larger than --max-bytes: its first child is read, then it stops (child-unreadable on
    # the parent's line naming it), and the parent goes on with its next child
    # compressed: the cap counts decompressed bytes (a plain local file is read whole)
    big = index_xml(f"{SITE}pages.xml", *(f"{SITE}pad{n:04}.xml" for n in range(3000)))
    (site / "big.xml").write_bytes(gzip.compress(big))
    (site / "after.xml").write_bytes(urlset_xml(f"{SITE}after"))
    (site / "top.xml").write_bytes(index_xml(f"{SITE}big.xml", f"{SITE}after.xml"))
    entries, diagnostics, _, _ = read_index(site / "top.xml", [(SITE, site)], max_bytes=100_000, concurrency=1)
    assert locs(entries) == [f"{SITE}a", f"{SITE}b", f"{SITE}after"]
    failed = [d for d in diagnostics if d.code == "child-unreadable" and "big.xml" in d.message]
    assert len(failed) == 1
    assert Path(failed[0].source).name == "top.xml"
    assert "larger than 100,000 bytes" in failed[0].message


def test_closing_a_deeply_nested_read_early_releases_every_level(tmp_path: Path) -> None:
    site = tmp_path / "public"
    site.mkdir()
    (site / "pages.xml").write_bytes(urlset_xml(*(f"{SITE}{n}" for n in range(10))))
    top = _chain(site, 50)
    with feedmap.read(str(top), options=feedmap.Options(maps=[(SITE, site)], max_depth=100)) as doc:
        first = next(iter(doc))
    assert first.loc == f"{SITE}0"


@pytest.mark.parametrize("child", [f"{SITE}pa%00ges.xml", f"{SITE}sub%00/index.xml", "file:///tmp/a%00b.xml"])
def test_a_nul_in_a_child_url_is_child_failed(site: Path, child: str) -> None:
    # issue 8: ValueError: embedded null byte
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(child, f"{SITE}pages.xml"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"]
    failed = [d for d in diagnostics if d.code != "loc-not-absolute"]  # (a file: URL has no host)
    assert codes(failed) == ["child-unreadable"]
    assert "NUL" in failed[0].message


def test_a_nul_in_a_mapped_input_url_is_a_source_error(site: Path) -> None:
    with pytest.raises(feedmap.SourceError, match="NUL"):
        feedmap.read(f"{SITE}pa%00ges.xml", options=feedmap.Options(maps=[(SITE, site)]))


def test_a_file_url_with_a_nul_or_a_malformed_authority_is_a_source_error(site: Path) -> None:
    with pytest.raises(feedmap.SourceError, match="NUL"):
        feedmap.read("https://ex.com/a%00", options=feedmap.Options(maps=[("https://ex.com/", site)]))
    with pytest.raises(feedmap.SourceError, match="NUL"):
        feedmap.read("file:///a%00b")
    with pytest.raises(feedmap.SourceError, match="not a valid URL"):
        feedmap.read("file://[x/a.xml")


def _read_in_thread(index: Path, maps: Sequence[tuple[str, Path]], fifo: Path) -> tuple[list[Entry], list[Diagnostic]]:
    """Read the index on a thread; a reader blocked on the FIFO is released (by opening it for writing) and
    the test fails instead of hanging."""
    import threading

    result: list[tuple[list[Entry], list[Diagnostic]]] = []

    def work() -> None:
        entries, diagnostics, _, _ = read_index(index, maps)
        result.append((entries, diagnostics))

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(20)  # only a hang takes this long
    if thread.is_alive():
        release_fifo_reader(fifo)
        thread.join(5)
        pytest.fail(f"reading an index blocked on the FIFO {fifo}")
    return result[0]


@pytest.mark.parametrize("layout", ["file", "directory", "file-url"])
def test_a_fifo_child_is_not_opened(site: Path, layout: str) -> None:
    # issue 8: a FIFO inside a --map directory used as an index child hung forever
    if layout == "directory":
        (site / "sub").mkdir()
        fifo, child = site / "sub" / "index.xml", f"{SITE}sub/"
    elif layout == "file":
        fifo, child = site / "pipe.xml", f"{SITE}pipe.xml"
    else:
        fifo = site / "pipe.xml"
        child = fifo.as_uri()
    os.mkfifo(fifo)
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(child, f"{SITE}pages.xml"))
    entries, diagnostics = _read_in_thread(index, [(SITE, site)], fifo)
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"]
    failed = [d for d in diagnostics if d.code != "loc-not-absolute"]  # (a file: URL has no host)
    assert codes(failed) == ["child-unreadable"]
    assert "not a regular file" in failed[0].message


@pytest.mark.parametrize("link", ["sub/index.xml", "sub"])
def test_a_map_cannot_escape_through_a_symlinked_index_file(site: Path, tmp_path: Path, link: str) -> None:
    # issue 8: DIR/sub3/index.xml -> outside was read (the fallback index.xml was not checked)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "index.xml").write_bytes(urlset_xml(f"{SITE}secret"))
    if link == "sub":
        (site / "sub").symlink_to(outside)  # a symlinked directory (refused before the fix too)
    else:
        (site / "sub").mkdir()
        (site / "sub" / "index.xml").symlink_to(outside / "index.xml")
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}sub/", f"{SITE}pages.xml"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"]
    assert codes(diagnostics) == ["map-escape"]


def test_a_symlinked_index_file_inside_the_map_is_read(site: Path) -> None:
    (site / "sub").mkdir()
    (site / "sub" / "index.xml").symlink_to(site / "pages.xml")
    index = site / "sitemap.xml"
    index.write_bytes(index_xml(f"{SITE}sub/"))
    entries, diagnostics, _, _ = read_index(index, [(SITE, site)])
    assert locs(entries) == [f"{SITE}a", f"{SITE}b"]
    assert diagnostics == []


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("https://ex.com/./index.xml", "https://ex.com/index.xml"),
        ("https://ex.com/a/../index.xml", "https://ex.com/index.xml"),
        ("https://ex.com/a/b/../../index.xml", "https://ex.com/index.xml"),
        ("https://ex.com/../index.xml", "https://ex.com/index.xml"),
        ("https://ex.com/a/.", "https://ex.com/a/"),
        ("https://ex.com/a/..", "https://ex.com/"),
        ("HTTPS://EX.com/index.xml", "https://ex.com/index.xml"),
        ("https://ex.com:443/index.xml", "https://ex.com/index.xml"),
        ("http://ex.com:80/index.xml", "http://ex.com/index.xml"),
        ("https://ex.com", "https://ex.com/"),
        ("https://ex.com/%7euser/%2e/a%2fb", "https://ex.com/~user/a%2Fb"),
        ("https://ex.com/index.xml?q=%c3%a9#top", "https://ex.com/index.xml?q=%C3%A9"),
        ("https://[::1]:443/a", "https://[::1]/a"),
    ],
)
def test_loop_key_normalises_equivalent_spellings(spelling: str, canonical: str) -> None:
    from feedmap._web.follow import loop_key

    assert loop_key(spelling) == loop_key(canonical) == canonical


def test_loop_key_keeps_what_differs() -> None:
    from feedmap._web.follow import loop_key

    assert loop_key("https://ex.com:8443/a") == "https://ex.com:8443/a"
    assert loop_key("https://ex.com/A") != loop_key("https://ex.com/a")  # paths are case-sensitive
    assert loop_key("https://ex.com/a%2Fb") != loop_key("https://ex.com/a/b")  # %2F is not /
    assert loop_key("http://[::1/x") == "http://[::1/x"  # malformed: as written


def test_cli_250_nested_indexes_with_max_depth_100000(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from feedmap.cli import main

    site = tmp_path / "public"
    site.mkdir()
    (site / "pages.xml").write_bytes(urlset_xml(f"{SITE}a", f"{SITE}b"))
    top = _chain(site, 250)
    code = main(["convert", str(top), "-t", "text", "--map", f"{SITE}={site}", "--max-depth", "100000"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.splitlines() == [f"{SITE}a", f"{SITE}b"]
    assert "Traceback" not in captured.err
