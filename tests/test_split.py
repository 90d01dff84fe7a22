"""Splitting an output into numbered files and a sitemap index (``feedmap.split``, ``convert -o DIR/``).

sitemaps.org: at most 50,000 URLs and 52,428,800 bytes uncompressed per file, an index listing each file
with the newest lastmod of its URLs, never nested.  The limits are lowered here to keep the tests small;
the 50,000-file cap of the index is a constant of feedmap's, lowered by monkeypatching.
"""

from __future__ import annotations

import gzip
import inspect
import io
import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from lxml import etree

import feedmap
from feedmap import Diagnostic, Entry, Image, W3CDate
from feedmap._publish import split as _split

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
BASE = "https://example.com/maps/"
INDEX = "sitemap_index.xml"


def pages(count: int, *, images: int = 0, start: int = 0) -> Iterator[Entry]:
    for number in range(start, start + count):
        pictures = tuple(Image(loc=f"https://example.com/img/{number}/{i}.jpg") for i in range(images))
        yield Entry(loc=f"https://example.com/page/{number}?{'x' * (number % 37)}", images=pictures)


def split(entries: object, directory: Path, format: str = "sitemap", **settings: object) -> feedmap.SplitSummary:
    seen: list[Diagnostic] = []
    options = feedmap.Options(base_url=BASE, **settings)  # type: ignore[arg-type]
    summary = feedmap.split(entries, directory, format, options, on_diagnostic=seen.append)  # type: ignore[arg-type]
    assert summary.diagnostics == seen
    return summary


def locs(path: Path) -> list[str]:
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    return [element.text or "" for element in etree.fromstring(data).iter(f"{SM}loc")]


def flat(groups: Iterable[list[str]]) -> list[str]:
    return list(itertools.chain.from_iterable(groups))


def index_of(directory: Path, name: str = "sitemap_index.xml") -> list[tuple[str, str | None]]:
    root = etree.fromstring((directory / name).read_bytes())
    return [(child.findtext(f"{SM}loc") or "", child.findtext(f"{SM}lastmod")) for child in root]


def first_block(path: Path, start: str, end: str) -> bytes:
    """The first entry's block of a written file (``<url>...</url>\\n``)."""
    text = path.read_bytes()
    begin = text.index(start.encode())
    return text[begin : text.index(end.encode(), begin) + len(end) + 1]


# ------------------------------------------------------------------------------------------------- limits


def test_files_are_cut_at_the_url_count(tmp_path: Path) -> None:
    summary = split(pages(25), tmp_path / "out", max_urls=10)
    assert summary.entries == 25
    assert summary.files == ("sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml")
    assert summary.index == "sitemap_index.xml"
    written = [locs(tmp_path / "out" / name) for name in summary.files]
    assert [len(group) for group in written] == [10, 10, 5]
    assert flat(written) == [entry.loc for entry in pages(25)]
    assert sorted(os.listdir(tmp_path / "out")) == [*summary.files, "sitemap_index.xml"]


def test_files_are_cut_at_the_byte_limit_before_the_entry_that_would_pass_it(tmp_path: Path) -> None:
    limit = 2_000
    summary = split(pages(60), tmp_path, max_file_bytes=limit)
    paths = [tmp_path / name for name in summary.files]
    assert len(paths) > 2
    assert all(path.stat().st_size <= limit for path in paths)
    for path, following in itertools.pairwise(paths):
        assert path.stat().st_size + len(first_block(following, "<url>", "</url>")) > limit  # it would not fit
    assert flat(locs(path) for path in paths) == [entry.loc for entry in pages(60)]


def test_both_limits_apply_together(tmp_path: Path) -> None:
    limit = 520
    summary = split(pages(80), tmp_path, max_urls=6, max_file_bytes=limit)
    counts = [len(locs(tmp_path / name)) for name in summary.files]
    sizes = [(tmp_path / name).stat().st_size for name in summary.files]
    assert max(counts) == 6 and all(size <= limit for size in sizes)
    assert any(count < 6 for count in counts[:-1])  # some files were cut by bytes, others by count
    assert sum(counts) == 80


def test_extension_elements_count_in_the_bytes(tmp_path: Path) -> None:
    plain = split(pages(40), tmp_path / "plain", max_file_bytes=6_000)
    pictured = split(pages(40, images=5), tmp_path / "pictured", max_file_bytes=6_000)
    assert len(pictured.files) > len(plain.files)
    assert all((tmp_path / "pictured" / name).stat().st_size <= 6_000 for name in pictured.files)
    first = (tmp_path / "pictured" / pictured.files[0]).read_bytes()
    assert first.count(b"<image:image>") == 5 * len(locs(tmp_path / "pictured" / pictured.files[0]))


def test_an_entry_larger_than_a_file_is_written_alone_with_a_warning(tmp_path: Path) -> None:
    big = Entry(
        loc="https://example.com/big", images=tuple(Image(loc=f"https://example.com/{i}.jpg") for i in range(60))
    )
    entries = [*pages(3), big, *pages(3, start=3)]
    summary = split(entries, tmp_path, max_file_bytes=2_000)
    assert [d.code for d in summary.diagnostics if d.level >= feedmap.Level.WARNING] == ["entry-too-large"]
    alone = [name for name in summary.files if locs(tmp_path / name) == ["https://example.com/big"]]
    assert len(alone) == 1
    assert flat(locs(tmp_path / name) for name in summary.files) == [entry.loc for entry in entries]


def test_gzip_files_hold_the_same_bytes_compressed_the_same_way_each_time(tmp_path: Path) -> None:
    plain = split(pages(25), tmp_path / "plain", max_urls=10)
    once = split(pages(25), tmp_path / "once", max_urls=10, gzip=True)
    again = split(pages(25), tmp_path / "again", max_urls=10, gzip=True)
    assert once.files == again.files == ("sitemap-1.xml.gz", "sitemap-2.xml.gz", "sitemap-3.xml.gz")
    for name, gz in zip(plain.files, once.files, strict=True):
        data = (tmp_path / "once" / gz).read_bytes()
        assert data[:2] == b"\x1f\x8b" and data[4:8] == b"\0\0\0\0" and not data[3] & 0x08  # mtime 0, no name
        assert gzip.decompress(data) == (tmp_path / "plain" / name).read_bytes()
        assert data == (tmp_path / "again" / gz).read_bytes()
    assert [loc for loc, _ in index_of(tmp_path / "once")] == [BASE + name for name in once.files]
    with feedmap.read(
        tmp_path / "once" / "sitemap_index.xml", options=feedmap.Options(maps=[(BASE, tmp_path / "once")])
    ) as doc:
        assert [entry.loc for entry in doc.entries] == [entry.loc for entry in pages(25)]


def test_the_byte_limit_is_on_the_uncompressed_bytes(tmp_path: Path) -> None:
    summary = split(pages(60), tmp_path, max_file_bytes=2_000, gzip=True)
    sizes = [len(gzip.decompress((tmp_path / name).read_bytes())) for name in summary.files]
    assert all(size <= 2_000 for size in sizes) and len(sizes) > 2


# -------------------------------------------------------------------------------------------------- index


def test_the_index_lists_each_file_with_its_newest_lastmod(tmp_path: Path) -> None:
    dates = [
        "2024-01-01T10:00:00+05:00",  # 05:00 UTC: older than the next one, though its text sorts after it
        "2024-01-01T06:00:00Z",
        "2023-12-31",
        None,
        None,
        None,
        "2024-02",
    ]
    entries = [
        Entry(loc=f"https://example.com/{i}", lastmod=W3CDate.parse(d) if d else None) for i, d in enumerate(dates)
    ]
    summary = split(entries, tmp_path, max_urls=3)
    assert index_of(tmp_path) == [
        (BASE + "sitemap-1.xml", "2024-01-01T06:00:00Z"),
        (BASE + "sitemap-2.xml", None),
        (BASE + "sitemap-3.xml", "2024-02"),
    ]
    assert summary.files == ("sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml")


def test_a_base_url_without_a_slash_gets_one(tmp_path: Path) -> None:
    feedmap.split(pages(2), tmp_path, options=feedmap.Options(base_url="https://example.com/maps"))
    assert index_of(tmp_path) == [("https://example.com/maps/sitemap-1.xml", None)]


@pytest.mark.parametrize("base", [None, "https://e.com/?a=1"])
def test_the_base_url_must_be_an_absolute_http_url(tmp_path: Path, base: str | None) -> None:
    with pytest.raises(feedmap.FormatError, match="URL"):
        feedmap.split(pages(2), tmp_path / "out", options=feedmap.Options(base_url=base))
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("base", ["", "maps/", "ftp://example.com/", "https:///x", "https://example.com:99999/maps/"])
def test_a_base_url_that_is_no_absolute_http_url_is_refused_when_the_options_are_made(base: str) -> None:
    """As ``--base-url`` refuses it: ValueError naming the field, before anything is read or written."""
    with pytest.raises(ValueError, match=r"^base_url: .*absolute http"):
        feedmap.Options(base_url=base)


def test_name_pattern_and_index_name(tmp_path: Path) -> None:
    summary = split(pages(5), tmp_path, max_urls=2, name="products_{n}.xml", index_name="products.xml")
    assert summary.files == ("products_1.xml", "products_2.xml", "products_3.xml")
    assert [loc for loc, _ in index_of(tmp_path, "products.xml")] == [BASE + name for name in summary.files]
    with pytest.raises(feedmap.FormatError, match="index name"):
        split(pages(5), tmp_path, name="s{n}.xml", index_name="s1.xml")


@pytest.mark.parametrize(
    "settings",
    [{"max_urls": 0}, {"max_urls": 50_001}, {"max_file_bytes": 52_428_801}, {"name": "s.xml"}, {"name": "a/{n}.xml"},
     {"index_name": "a/index.xml"}],
)  # fmt: skip
def test_options_out_of_range_are_refused(settings: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        feedmap.Options(**settings)  # type: ignore[arg-type]


def test_past_the_file_cap_nothing_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    split(pages(4), tmp_path, max_urls=2)
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    monkeypatch.setattr(_split, "MAX_FILES", 3)
    with pytest.raises(feedmap.LimitError, match="3 files") as caught:
        split(pages(7, start=100), tmp_path, max_urls=2)
    assert caught.value.code == "too-many-files"
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before  # no temporary file either
    with pytest.raises(feedmap.LimitError):
        split(pages(7), tmp_path / "new", max_urls=2)
    assert not (tmp_path / "new").exists() or os.listdir(tmp_path / "new") == []  # nothing left in it
    assert split(pages(6), tmp_path / "fits", max_urls=2).files[-1] == "sitemap-3.xml"


def test_stale_files_of_the_same_naming_are_removed_others_kept(tmp_path: Path) -> None:
    split(pages(25), tmp_path, max_urls=10)
    (tmp_path / "robots.txt").write_text("keep")
    (tmp_path / "sitemap-x.xml").write_text("keep")
    summary = split(pages(5), tmp_path, max_urls=10)
    assert set(summary.removed) == {"sitemap-2.xml", "sitemap-3.xml"}
    assert sorted(os.listdir(tmp_path)) == ["robots.txt", "sitemap-1.xml", "sitemap-x.xml", "sitemap_index.xml"]


def test_no_entries_write_one_empty_file_and_the_index(tmp_path: Path) -> None:
    summary = split([], tmp_path)
    assert summary.files == ("sitemap-1.xml",) and summary.entries == 0
    assert [d.code for d in summary.diagnostics] == ["empty-document"]
    assert locs(tmp_path / "sitemap-1.xml") == []
    assert index_of(tmp_path) == [(BASE + "sitemap-1.xml", None)]


def test_the_conversion_steps_run_as_in_write(tmp_path: Path) -> None:
    entries = [Entry(loc="https://example.com/a"), Entry(loc="relative"), Entry(loc="https://example.com/a")]
    summary = split(entries, tmp_path)
    assert locs(tmp_path / "sitemap-1.xml") == ["https://example.com/a"]
    assert {"loc-duplicate", "relative-url"} <= {d.code for d in summary.diagnostics}


# -------------------------------------------------------------------------------------- the other formats


def test_text_is_split_into_url_lists(tmp_path: Path) -> None:
    summary = split(pages(5), tmp_path, "text", max_urls=2)
    assert summary.files == ("urls-1.txt", "urls-2.txt", "urls-3.txt")
    lines = [(tmp_path / name).read_text().splitlines() for name in summary.files]
    assert lines == [[e.loc for e in pages(2)], [e.loc for e in pages(2, start=2)], [e.loc for e in pages(1, start=4)]]
    assert [loc for loc, _ in index_of(tmp_path)] == [BASE + name for name in summary.files]


def test_a_text_line_break_is_skipped_not_counted(tmp_path: Path) -> None:
    entries = [
        Entry(loc="https://example.com/a"),
        Entry(loc="https://example.com/b\nc"),
        Entry(loc="https://example.com/d"),
    ]
    summary = split(entries, tmp_path, "text", max_urls=2)
    assert summary.entries == 2 and summary.files == ("urls-1.txt",)


@pytest.mark.parametrize(("format", "first"), [("rss", "feed-1.xml"), ("ror", "ror-1.xml")])
def test_feeds_are_split_into_whole_channels(tmp_path: Path, format: str, first: str) -> None:
    entries = [Entry(loc=f"https://example.com/{i}", priority=0.5) for i in range(5)]
    summary = split(entries, tmp_path, format, max_urls=2)
    assert summary.files[0] == first and len(summary.files) == 3
    read_back = []
    for name in summary.files:
        root = etree.fromstring((tmp_path / name).read_bytes())  # well-formed, namespaces declared
        assert root.tag == "rss" and len(root.findall("channel")) == 1
        with feedmap.read(tmp_path / name, format) as doc:
            read_back += [(entry.loc, entry.priority) for entry in doc.entries]
    assert read_back == [(entry.loc, 0.5) for entry in entries]


@pytest.mark.parametrize("format", ["jsonl", "sitemapindex"])
def test_formats_without_a_renderer_cannot_be_split(tmp_path: Path, format: str) -> None:
    with pytest.raises(feedmap.FormatError, match="ror, rss, sitemap, text"):
        split(pages(2), tmp_path / "out", format)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("format", ["sitemap", "text", "rss", "ror"])
def test_writing_is_the_rendered_parts_joined(format: str) -> None:
    """One rendering path: the writer writes the renderer's header, blocks and footer."""
    spec = feedmap.formats._registry.get(format)
    assert spec.renderer is not None
    entries = list(pages(600, images=1))  # more than the first batch a feed renders before its root
    sink = io.BytesIO()
    feedmap.write(entries, sink, format)
    from feedmap.formats import Context

    ctx = Context(reporter=feedmap.Reporter())
    rendered = spec.renderer(feedmap.Document(entries=iter(entries)), ctx=ctx)
    header = rendered.header  # final before any block is asked for
    blocks = list(rendered.items)
    assert [entry for entry, _ in blocks] == entries
    assert (header + "".join(block for _, block in blocks) + rendered.footer).encode() == sink.getvalue()


# ------------------------------------------------------------------------------------------------ library


def test_convert_into_a_directory_splits(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("".join(f"{entry.loc}\n" for entry in pages(7)))
    counted: list[Entry] = []

    def count(entries: object) -> Iterator[Entry]:
        for entry in entries:  # type: ignore[attr-defined]
            counted.append(entry)
            yield entry

    options = feedmap.Options(base_url=BASE, max_urls=3)
    summary = feedmap.convert(source, f"{tmp_path / 'out'}/", "sitemap", options, wrap=count)
    assert isinstance(summary, feedmap.SplitSummary)
    assert summary.files == ("sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml") and len(counted) == 7
    assert set(summary.written) >= set(summary.files)  # an empty directory: every file is new
    again = feedmap.convert([source], tmp_path / "out", "text", options)  # an existing directory (a Path)
    assert isinstance(again, feedmap.SplitSummary) and again.files == ("urls-1.txt", "urls-2.txt", "urls-3.txt")


def test_split_takes_a_document(tmp_path: Path) -> None:
    source = io.BytesIO("".join(f"{entry.loc}\n" for entry in pages(4)).encode())
    with feedmap.read(source) as doc:
        summary = split(doc, tmp_path, max_urls=3)
    assert summary.entries == 4 and summary.format == "sitemap"
    assert [d.code for d in summary.diagnostics] == ["outside-sitemap-scope"]  # pages not under BASE


def test_written_files_are_valid_against_the_xsd(tmp_path: Path, corpus_dir: Path) -> None:
    from test_xsd import strip_extensions

    folder = corpus_dir / "xsd"
    schemas = {
        "urlset": etree.XMLSchema(etree.parse(str(folder / "sitemap-0.9.xsd"))),
        "sitemapindex": etree.XMLSchema(etree.parse(str(folder / "siteindex-0.9.xsd"))),
    }
    entries = [Entry(loc=e.loc, images=e.images, lastmod=W3CDate.parse("2024-05-01")) for e in pages(9, images=2)]
    summary = split(entries, tmp_path, max_urls=4)
    for name in (*summary.files, summary.index):
        root, _ = strip_extensions((tmp_path / name).read_bytes())
        schema = schemas[etree.QName(root).localname]
        assert schema.validate(root), schema.error_log


def test_split_takes_its_arguments_as_the_other_calls_do() -> None:
    parameters = inspect.signature(feedmap.split).parameters
    assert list(parameters) == ["data", "directory", "format", "options", "on_diagnostic", "reporter"]
    assert parameters["format"].default == "sitemap"
    assert parameters["on_diagnostic"].kind is parameters["reporter"].kind is inspect.Parameter.KEYWORD_ONLY


def test_a_file_in_the_way_of_the_directory_is_an_io_error(tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("kept")
    for directory in (tmp_path / "file.txt", tmp_path / "file.txt" / "sub"):
        with pytest.raises(feedmap.SourceError, match=r"file\.txt is not a directory"):
            split(pages(2), directory)
    assert sorted(os.listdir(tmp_path)) == ["file.txt"] and (tmp_path / "file.txt").read_text() == "kept"


def test_an_input_failing_halfway_leaves_the_directory_as_it_was(tmp_path: Path) -> None:
    split(pages(4), tmp_path, max_urls=2)
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}

    def broken() -> Iterator[Entry]:
        yield from pages(15, start=50)
        raise feedmap.ReadError("the input breaks off", source="in.xml", code="broken")

    with pytest.raises(feedmap.ReadError, match="breaks off"):
        split(broken(), tmp_path, max_urls=2)
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before


def test_convert_into_a_directory_with_the_format_chosen_by_kind(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("https://example.com/a\nhttps://example.com/b\n")
    options = feedmap.Options(base_url=BASE, max_urls=1)
    summary = feedmap.convert(source, f"{tmp_path / 'out'}/", lambda kind: "text", options)
    assert isinstance(summary, feedmap.SplitSummary) and summary.files == ("urls-1.txt", "urls-2.txt")
    assert summary.format == "text"


# --------------------------------------------------------------------------------------- review: names


@pytest.mark.parametrize("gzip_too", [False, True])
def test_a_pattern_ending_in_gz_writes_gzip_and_no_second_gz(tmp_path: Path, gzip_too: bool) -> None:
    """``name="s-{n}.xml.gz"`` names gzip files, as ``-o sitemap.xml.gz`` does for one file: never plain XML
    under a ``.gz`` name, nor ``.gz.gz`` with ``gzip``."""
    summary = split(pages(5), tmp_path, max_urls=2, name="s-{n}.xml.gz", gzip=gzip_too)
    assert summary.files == ("s-1.xml.gz", "s-2.xml.gz", "s-3.xml.gz")
    for name in summary.files:
        assert (tmp_path / name).read_bytes()[:2] == b"\x1f\x8b"
    assert flat(locs(tmp_path / name) for name in summary.files) == [entry.loc for entry in pages(5)]
    assert [loc for loc, _ in index_of(tmp_path)] == [BASE + name for name in summary.files]
    again = split(pages(3), tmp_path, max_urls=2, name="s-{n}.xml")  # the plain form of the same pattern
    assert set(again.removed) == {"s-1.xml.gz", "s-2.xml.gz", "s-3.xml.gz"}


def test_zero_padded_numbers(tmp_path: Path) -> None:
    """``{n:03d}`` pads the number with zeros (as str.format does); only files the index named are removed."""
    (tmp_path / "s-1.xml").write_text("not ours")
    (tmp_path / "s-0000.xml").write_text("not ours")
    summary = split(pages(5), tmp_path, max_urls=2, name="s-{n:03d}.xml")
    assert summary.files == ("s-001.xml", "s-002.xml", "s-003.xml")
    assert [loc for loc, _ in index_of(tmp_path)] == [BASE + name for name in summary.files]
    (tmp_path / "s-1000.xml").write_text("of the naming, but not written by feedmap: no index named it")
    assert split(pages(1), tmp_path, name="s-{n:03d}.xml").removed == ("s-002.xml", "s-003.xml")
    assert sorted(os.listdir(tmp_path)) == ["s-0000.xml", "s-001.xml", "s-1.xml", "s-1000.xml", "sitemap_index.xml"]


@pytest.mark.parametrize("name", ["s-{n:5}.xml", "s-{n:x}.xml", "s-{n:03d}-{n}.xml", "s-{m}.xml", "s-{n:003d}.xml"])
def test_other_format_specs_are_refused_with_what_is_allowed(name: str) -> None:
    with pytest.raises(ValueError, match=r"\{n\} or \{n:0Wd\}"):
        feedmap.Options(name=name)


@pytest.mark.parametrize("base", ["https://user:secret@example.com/maps/"])
def test_a_base_url_with_credentials_is_refused(tmp_path: Path, base: str) -> None:
    """The index would publish an unusable URL, or a password, in every loc."""
    with pytest.raises(feedmap.FormatError, match="base URL"):
        feedmap.split(pages(2), tmp_path / "out", options=feedmap.Options(base_url=base))
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------------------ review: feed files


def _self_links(path: Path) -> list[str]:
    root = etree.fromstring(path.read_bytes())
    links = root.iter("{http://www.w3.org/2005/Atom}link")
    return [link.get("href") or "" for link in links if link.get("rel") == "self"]


@pytest.mark.parametrize("format", ["rss", "ror"])
@pytest.mark.parametrize("self_url", [None, "https://example.com/feed.xml"])
def test_each_feed_file_names_itself_as_its_self_link(tmp_path: Path, format: str, self_url: str | None) -> None:
    """RSS Best Practices / the W3C validator: ``atom:link rel="self"`` is the document's own URL; a split feed
    file is served at the base URL + its name, never at one URL shared by every file."""
    entries = [Entry(loc=f"https://example.com/{i}") for i in range(25)]
    summary = split(entries, tmp_path, format, max_urls=10, self_url=self_url)
    assert len(summary.files) == 3
    for name in summary.files:
        assert _self_links(tmp_path / name) == [BASE + name]


def test_feed_files_keep_the_byte_limit_with_their_own_self_links(tmp_path: Path) -> None:
    """The header differs from file to file by its self link (feed-9.xml, feed-10.xml): each file's own
    header is what counts against the byte limit, to the byte."""
    entries = [Entry(loc=f"https://example.com/{i:03d}") for i in range(60)]
    three = split(entries, tmp_path / "three", "rss", max_urls=3)
    limit = (tmp_path / "three" / "feed-1.xml").stat().st_size  # feed-1.xml to feed-9.xml are exactly full
    summary = split(entries, tmp_path / "limit", "rss", max_file_bytes=limit)
    sizes = [(tmp_path / "limit" / name).stat().st_size for name in summary.files]
    assert sizes[:9] == [limit] * 9 and max(sizes) <= limit
    assert len(summary.files) > len(three.files)  # feed-10.xml on holds fewer entries: its name is longer


# ------------------------------------------------------------------------------ review: another naming


def test_files_the_replaced_index_named_under_another_naming_are_removed_and_named(tmp_path: Path) -> None:
    """The index being replaced (this run's index name) names the set an earlier run wrote: whatever its naming
    or format, the files it named that this run does not write are removed, and named in one note."""
    split(pages(25), tmp_path, max_urls=10)
    (tmp_path / "robots.txt").write_text("keep")
    (tmp_path / "sitemap-4.xml").write_text("of the old naming, but no index named it: keep")
    summary = split(pages(25), tmp_path, max_urls=10, name="p-{n}.xml")
    assert summary.removed == ("sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml")
    (note,) = [d for d in summary.diagnostics if d.code == "stale-files-removed"]
    assert str(note.level) == "info" and "sitemap-1.xml, sitemap-2.xml, sitemap-3.xml" in note.message
    assert sorted(os.listdir(tmp_path)) == ["p-1.xml", "p-2.xml", "p-3.xml", "robots.txt", "sitemap-4.xml", INDEX]
    text = split(pages(5), tmp_path, "text", max_urls=1)
    assert text.removed == ("p-1.xml", "p-2.xml", "p-3.xml")
    many = split(pages(2), tmp_path, "text", max_urls=1, name="u{n}.txt")
    (note,) = [d for d in many.diagnostics if d.code == "stale-files-removed"]
    assert "urls-1.txt, urls-2.txt, urls-3.txt, urls-4.txt, urls-5.txt" in note.message  # the first five
    assert "5 files" in note.message and "and" not in note.message.split("urls-5.txt")[1]
    more = split(pages(1), tmp_path, "text", max_urls=1, name="v{n}.txt")
    assert more.removed == ("u1.txt", "u2.txt")
    assert "stale-files-removed" not in {d.code for d in split(pages(1), tmp_path, "text", name="v{n}.txt").diagnostics}


def test_only_the_first_removed_names_are_shown_then_a_count(tmp_path: Path) -> None:
    split(pages(8), tmp_path, max_urls=1)
    summary = split(pages(1), tmp_path, name="q-{n}.xml")
    assert summary.removed == tuple(f"sitemap-{n}.xml" for n in range(1, 9))
    (note,) = [d for d in summary.diagnostics if d.code == "stale-files-removed"]
    assert "sitemap-5.xml and 3 more" in note.message and "sitemap-6.xml" not in note.message


def test_an_unreadable_earlier_index_is_no_trouble(tmp_path: Path) -> None:
    (tmp_path / "sitemap_index.xml").write_text("<not xml")
    summary = split(pages(3), tmp_path)
    assert "stale-files-left" not in {d.code for d in summary.diagnostics}
    assert summary.files == ("sitemap-1.xml",)


# ------------------------------------------------------------------------------------------ review: scope


@pytest.mark.parametrize("format", ["sitemap", "text", "rss"])
def test_urls_outside_the_directory_the_files_are_served_from_are_noted_once(tmp_path: Path, format: str) -> None:
    """sitemaps.org "Sitemap file location": a sitemap at https://example.com/maps/ may list only URLs under
    it unless robots.txt names it; one INFO (not a warning: robots.txt submission is common) counts them."""
    entries = [
        Entry(loc="https://example.com/maps/a"),
        Entry(loc="HTTPS://EXAMPLE.COM/maps/b"),  # the same scheme and host
        Entry(loc="https://example.com/blog/c"),
        Entry(loc="https://other.example/maps/d"),
        Entry(loc="http://example.com/maps/e"),
        Entry(loc="https://example.com/MAPS/f"),  # a path is case-sensitive
        Entry(loc="https://example.com:443/maps/g"),  # the same port, made explicit
        Entry(loc="https://example.com:8443/maps/h"),  # another port: another site
    ]
    summary = split(entries, tmp_path, format, max_urls=2)
    notes = [d for d in summary.diagnostics if d.code == "outside-sitemap-scope"]
    assert len(notes) == 1 and str(notes[0].level) == "info"
    assert "5 URLs not under https://example.com/maps/" in notes[0].message
    assert "first: https://example.com/blog/c" in notes[0].message and "robots.txt" in notes[0].message
    inside = split([Entry(loc=BASE + "x"), Entry(loc=BASE + "y/z")], tmp_path / "in", format)
    assert "outside-sitemap-scope" not in {d.code for d in inside.diagnostics}


def test_an_earlier_index_that_is_a_link_to_a_fifo_is_not_read(tmp_path: Path) -> None:
    """The check of the earlier index opens no link and waits on no FIFO (the link is replaced as before)."""
    site = tmp_path / "site"
    site.mkdir()
    os.mkfifo(tmp_path / "fifo")
    (site / "sitemap_index.xml").symlink_to(tmp_path / "fifo")
    summary = split(pages(3), site)
    assert summary.files == ("sitemap-1.xml",) and (site / "sitemap_index.xml").is_file()
    assert not (site / "sitemap_index.xml").is_symlink()


def test_a_base_url_written_encoded_is_reported_once_not_per_file(tmp_path: Path) -> None:
    seen: list[Diagnostic] = []
    options = feedmap.Options(base_url="https://example.com/ä-b/", max_urls=1)
    summary = feedmap.split(pages(4), tmp_path, "sitemap", options, on_diagnostic=seen.append)
    assert [loc for loc, _ in index_of(tmp_path)] == [f"https://example.com/%C3%A4-b/{n}" for n in summary.files]
    assert [d.code for d in seen].count("url-encoded") == 1


@pytest.mark.parametrize("gzip", [False, True])
def test_a_file_exactly_at_the_byte_limit_is_kept_and_one_byte_less_cuts_one_entry(tmp_path: Path, gzip: bool) -> None:
    entries = [Entry(loc=f"https://example.com/p/{i:04d}") for i in range(30)]  # blocks of one length
    ten = split(entries, tmp_path / "ten", max_urls=10)
    limit = (tmp_path / "ten" / ten.files[0]).stat().st_size
    exact = split(entries, tmp_path / "exact", max_file_bytes=limit, gzip=gzip)
    assert [len(locs(tmp_path / "exact" / name)) for name in exact.files] == [10, 10, 10]
    less = split(entries, tmp_path / "less", max_file_bytes=limit - 1, gzip=gzip)
    assert [len(locs(tmp_path / "less" / name)) for name in less.files] == [9, 9, 9, 3]


@pytest.mark.parametrize("base", ["https://example.com/sitemap_index.xml", "https://example.com/maps/urls.txt"])
def test_a_base_url_naming_a_file_is_warned_of(tmp_path: Path, base: str) -> None:
    """The base URL is the directory's: one naming the index or a sitemap file (a likely mistake) gives locs
    like .../sitemap_index.xml/sitemap-1.xml, so it is warned of; a directory URL is not."""
    seen: list[Diagnostic] = []
    feedmap.split(pages(2), tmp_path / "a", options=feedmap.Options(base_url=base), on_diagnostic=seen.append)
    assert [d.code for d in seen if d.code == "base-url-names-a-file"] == ["base-url-names-a-file"]
    seen.clear()
    for fine in ("https://example.com/maps", "https://example.com/v1.2/", "https://example.com/maps.xml/"):
        feedmap.split(pages(2), tmp_path / "b", options=feedmap.Options(base_url=fine), on_diagnostic=seen.append)
    assert "base-url-names-a-file" not in {d.code for d in seen}


@pytest.mark.parametrize("options", [{"index_name": "a\0b.xml"}, {"name": "a\0{n}.xml"}, {"index_name": "a/b.xml"}])
def test_a_name_holding_nul_or_a_separator_is_refused_at_once(options: dict[str, str]) -> None:
    # refused when the Options are made, not after every file was staged (the Publisher refused NUL only then)
    with pytest.raises(ValueError, match="file name"):
        feedmap.Options(base_url="https://e.com/", **options)  # type: ignore[arg-type]


# -------------------------------------------------------------------- issue 17: only what feedmap wrote is removed


def test_a_first_run_removes_no_file_of_its_naming(tmp_path: Path) -> None:
    """No index was there: nothing is stale, whatever the directory holds (sitemap-2024.xml, even
    sitemap-3.xml of the very naming)."""
    for name in ("sitemap-2024.xml", "sitemap-3.xml", "sitemap-1.xml.gz", "notes.txt"):
        (tmp_path / name).write_text("the site's own")
    summary = split(pages(5), tmp_path, max_urls=3)
    assert summary.removed == () and "stale-files-removed" not in {d.code for d in summary.diagnostics}
    for name in ("sitemap-2024.xml", "sitemap-3.xml", "sitemap-1.xml.gz", "notes.txt"):
        assert (tmp_path / name).read_text() == "the site's own"
    again = split(pages(2), tmp_path, max_urls=3)  # the index now names sitemap-1 and -2 only: none removed
    assert again.removed == ("sitemap-2.xml",) and (tmp_path / "sitemap-3.xml").read_text() == "the site's own"


def test_a_bare_number_pattern_keeps_an_unrelated_404_page(tmp_path: Path) -> None:
    (tmp_path / "404.xml").write_text("the site's error page")
    (tmp_path / "7.xml").write_text("the site's own")
    split(pages(5), tmp_path, max_urls=1, name="{n}.xml")
    summary = split(pages(2), tmp_path, max_urls=1, name="{n}.xml")
    assert summary.removed == ("3.xml", "4.xml", "5.xml")
    assert (tmp_path / "404.xml").read_text() == "the site's error page" and (tmp_path / "7.xml").exists()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({}, {"gzip": True}),  # sitemap-{n}.xml and sitemap-{n}.xml.gz: one naming for the old rule
        ({"name": "{n}.xml"}, {"name": "{n}.xml.gz"}),
        ({"name": "s{n}.xml"}, {"name": "s{n:03d}.xml", "gzip": True}),
    ],
)
def test_two_sets_sharing_a_directory_by_index_name_keep_each_others_files(
    tmp_path: Path, first: dict[str, object], second: dict[str, object]
) -> None:
    """As the README suggests: two sets, each with its own index name, in one directory; each run of one
    leaves the other's files (and index) whole, and its index names only files that are there."""
    for count in (12, 3, 7):
        one = split(pages(count), tmp_path, max_urls=1, index_name="one.xml", **first)
        two = split(pages(count + 1), tmp_path, max_urls=1, index_name="two.xml", **second)
        for summary, index in ((one, "one.xml"), (two, "two.xml")):
            assert not set(summary.removed) & set(one.files + two.files)
            assert all((tmp_path / loc[len(BASE) :]).is_file() for loc, _ in index_of(tmp_path, index))
        assert len(index_of(tmp_path, "one.xml")) == count and len(index_of(tmp_path, "two.xml")) == count + 1


def test_an_index_name_holding_a_set_of_another_kind_removes_nothing(tmp_path: Path) -> None:
    """The file at the index name is read only as a sitemap index: a urlset there (the site's own sitemap
    under that name) names pages, not files to remove."""
    (tmp_path / "page.xml").write_text("a page")
    (tmp_path / INDEX).write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{BASE}page.xml</loc></url><sitemap><loc>{BASE}page.xml</loc></sitemap></urlset>"
    )
    assert split(pages(1), tmp_path).removed == () and (tmp_path / "page.xml").exists()


def test_names_the_index_gives_outside_the_directory_are_never_removed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "outside.xml").write_text("keep")
    (site / "sub").mkdir()
    (site / "sub" / "inner.xml").write_text("keep")
    listed = ["../outside.xml", "sub/inner.xml", "%2E%2E%2Foutside.xml", ".", "..", "sub%2Finner.xml"]
    body = "".join(f"<sitemap><loc>{BASE}{name}</loc></sitemap>" for name in listed)
    (site / INDEX).write_text(
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</sitemapindex>'
    )
    assert split(pages(1), site).removed == ()
    assert (tmp_path / "outside.xml").exists() and (site / "sub" / "inner.xml").exists()


def test_files_named_at_another_base_url_are_left_and_reported(tmp_path: Path) -> None:
    split(pages(3), tmp_path, max_urls=1)
    seen: list[Diagnostic] = []
    options = feedmap.Options(base_url="https://cdn.example.com/s/", max_urls=1, name="p-{n}.xml")
    summary = feedmap.split(pages(2), tmp_path, "sitemap", options, on_diagnostic=seen.append)
    assert summary.removed == ()
    (left,) = [d for d in seen if d.code == "stale-files-left"]
    assert "sitemap-1.xml, sitemap-2.xml, sitemap-3.xml" in left.message and str(left.level) == "warning"
    assert {"sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml"} <= set(os.listdir(tmp_path))


def test_names_at_another_base_url_that_leave_the_directory_are_not_reported_as_its_files(tmp_path: Path) -> None:
    """stale-files-left names files of the directory only: ``..%2Fx`` is a path out of it, never looked up."""
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "outside.xml").write_text("not of this directory")
    (site / "kept.xml").write_text("an earlier run's file")
    listed = ["..%2Foutside.xml", "%2E%2E%2Foutside.xml", "kept.xml", "%2e%2e"]
    body = "".join(f"<sitemap><loc>https://cdn.example.com/s/{name}</loc></sitemap>" for name in listed)
    (site / INDEX).write_text(
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</sitemapindex>'
    )
    seen: list[feedmap.Diagnostic] = []
    feedmap.split(pages(1), site, "sitemap", feedmap.Options(base_url=BASE), on_diagnostic=seen.append)
    (left,) = [d for d in seen if d.code == "stale-files-left"]
    assert "kept.xml" in left.message and "outside" not in left.message and "1 file" in left.message
    assert (tmp_path / "outside.xml").exists() and (site / "kept.xml").exists()


def test_a_stale_name_another_spelling_of_a_file_written_is_not_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a file system folding case (macOS, Windows, casefolded ext4: made here at the OS boundary, lstat and
    unlink finding a name in any case), the replaced index's ``SITEMAP-1.XML`` is this run's ``sitemap-1.xml``."""
    split(pages(2), tmp_path, max_urls=1)
    index = tmp_path / INDEX
    index.write_text(index.read_text().replace("sitemap-", "SITEMAP-").replace(".xml</loc>", ".XML</loc>"))
    real_lstat, real_unlink = os.lstat, os.unlink

    def folded(path: str) -> str:
        where, name = os.path.split(os.fspath(path))
        if os.path.samefile(where or ".", tmp_path):
            name = next((found for found in os.listdir(tmp_path) if found.casefold() == name.casefold()), name)
        return os.path.join(where, name)

    monkeypatch.setattr(os, "lstat", lambda path, *args, **kwargs: real_lstat(folded(path), *args, **kwargs))
    monkeypatch.setattr(os, "unlink", lambda path, *args, **kwargs: real_unlink(folded(path), *args, **kwargs))
    summary = split(pages(2, start=5), tmp_path, max_urls=1)
    assert summary.removed == ()
    assert [name for name, _ in index_of(tmp_path)] == [f"{BASE}sitemap-1.xml", f"{BASE}sitemap-2.xml"]
    assert (tmp_path / "sitemap-1.xml").exists() and (tmp_path / "sitemap-2.xml").exists()


def test_files_this_run_writes_again_are_not_reported_left(tmp_path: Path) -> None:
    """Moved to another base URL under the same names: the files written again are replaced, not left; the
    warning named them all ("sitemap-1.xml, sitemap-2.xml, sitemap-3.xml ... left in place")."""
    split(pages(3), tmp_path, max_urls=1)
    seen: list[Diagnostic] = []
    options = feedmap.Options(base_url="https://cdn.example.com/s/", max_urls=1)
    summary = feedmap.split(pages(2), tmp_path, "sitemap", options, on_diagnostic=seen.append)
    assert [os.path.basename(name) for name in summary.files] == ["sitemap-1.xml", "sitemap-2.xml"]
    (left,) = [d for d in seen if d.code == "stale-files-left"]
    assert "1 file" in left.message and "sitemap-3.xml" in left.message
    assert "sitemap-1.xml" not in left.message and "sitemap-2.xml" not in left.message


def test_a_non_ascii_base_url_still_finds_the_files_its_index_named(tmp_path: Path) -> None:
    options = feedmap.Options(base_url="https://example.com/cartes-é/", max_urls=1)
    feedmap.split(pages(3), tmp_path, "sitemap", options)
    summary = feedmap.split(pages(1), tmp_path, "sitemap", options)
    assert summary.removed == ("sitemap-2.xml", "sitemap-3.xml")


# --------------------------------------------------------------------- issue 17: what killed runs leave behind

#: A run that stages 3 files of 10 entries (the third still open), says so, then waits to be killed.
STALLED_RUN = """
import sys, time, feedmap
from pathlib import Path

def entries():  # past the first 512, which the writer renders before its first file (the namespaces they use)
    for number in range(600):
        yield feedmap.Entry(loc=f"https://example.com/maps/p{number}")
    Path(sys.argv[2]).write_text("staging")
    time.sleep(120)

# rebalance: files cut in order are staged as the entries come (a run keeping each URL's file stages at the end);
# dedupe first: the entries are written as they come (the default merge reads them all before the first file)
options = feedmap.Options(base_url="https://example.com/maps/", max_urls=10, rebalance=True, dedupe="first")
feedmap.split(entries(), sys.argv[1], "sitemap", options)
"""


def stalled_run(directory: Path, ready: Path) -> subprocess.Popen[bytes]:
    """A real feedmap process in the middle of a split into ``directory`` (its temporary files staged)."""
    process = subprocess.Popen([sys.executable, "-c", STALLED_RUN, str(directory), str(ready)])
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert process.poll() is None and time.monotonic() < deadline, "the run did not start staging"
        time.sleep(0.05)
    return process


def hidden(directory: Path) -> set[str]:
    return {name for name in os.listdir(directory) if name.startswith(".")}


@pytest.mark.skipif(sys.platform != "linux", reason="flock(2) and SIGKILL as on Linux")
def test_the_temporaries_of_a_killed_run_are_removed_by_the_next_not_those_of_a_live_one(tmp_path: Path) -> None:
    """SIGKILL mid-split leaves .part files (and the run's lock file); the next run removes them, and only
    them: not the temporaries of a run still writing, not hidden files of other naming."""
    site = tmp_path / "site"
    split(pages(3), site)
    (site / ".notes.part").write_text("someone else's")
    (site / ".sitemap-1.xml.0123abcd.part").write_text("a single-file write's temporary: not a run's")
    others = hidden(site)
    killed = stalled_run(site, tmp_path / "killed")
    of_killed = hidden(site) - others
    alive = stalled_run(site, tmp_path / "alive")
    of_alive = hidden(site) - others - of_killed
    try:
        for run in (of_killed, of_alive):  # its temporary files and its lock file
            assert any(name.endswith(".part") for name in run) and any(name.endswith(".lock") for name in run)
        killed.send_signal(signal.SIGKILL)
        killed.wait(30)
        assert hidden(site) - others == of_killed | of_alive  # nothing removes them by itself
        summary = split(pages(3), site)
        (note,) = [d for d in summary.diagnostics if d.code == "leftovers-removed"]
        assert f"{len(of_killed)} temporary files" in note.message
        assert hidden(site) - others == of_alive  # the live run's, whole
        assert "leftovers-removed" not in {d.code for d in split(pages(3), site).diagnostics}
    finally:
        alive.send_signal(signal.SIGKILL)
        alive.wait(30)
        killed.kill()
    summary = split(pages(3), site)
    assert "leftovers-removed" in {d.code for d in summary.diagnostics}
    assert hidden(site) == others  # every temporary of both gone, the others kept
    assert (site / ".notes.part").read_text() == "someone else's"


# ------------------------------------------------------------------------- issue 17: names a URL must encode


@pytest.mark.parametrize("pattern", ["a#{n}.xml", "a?{n}.xml", "a%{n}.xml", "a%23{n}.xml", "a {n}.xml", "café-{n}.xml"])
def test_each_index_loc_is_the_url_of_its_file_whatever_the_name_holds(tmp_path: Path, pattern: str) -> None:
    """A name holding '#', '?', '%', a blank or non-ASCII is percent-encoded in its URL (RFC 3986 path
    segment): the loc resolves to the file, not to a fragment, a query or another name."""
    summary = split(pages(3), tmp_path, max_urls=2, name=pattern)
    assert summary.files == (pattern.format(n=1), pattern.format(n=2))
    for (loc, _), name in zip(index_of(tmp_path), summary.files, strict=True):
        parts = urlsplit(loc)
        assert parts.fragment == "" and parts.query == "" and loc.isascii()
        assert unquote(parts.path) == "/maps/" + name and (tmp_path / name).is_file()
    again = split(pages(1), tmp_path, max_urls=2, name=pattern)  # the names are read back from the index
    assert again.removed == (pattern.format(n=2),)


@pytest.mark.parametrize("pattern", ["{n}.xml.GZ", "s-{n}.Gz"])
def test_a_gz_suffix_in_any_case_writes_gzip_under_the_name_as_given(tmp_path: Path, pattern: str) -> None:
    summary = split(pages(3), tmp_path, max_urls=2, name=pattern)
    assert summary.files == (pattern.format(n=1), pattern.format(n=2))  # not renamed .gz
    assert sorted(os.listdir(tmp_path)) == sorted([*summary.files, INDEX])
    assert all((tmp_path / name).read_bytes()[:2] == b"\x1f\x8b" for name in summary.files)
    assert [loc for loc, _ in index_of(tmp_path)] == [BASE + name for name in summary.files]
    assert split(pages(3), tmp_path, max_urls=2, name=pattern, gzip=True).files == summary.files  # no .GZ.gz


@pytest.mark.parametrize(
    "options",
    [
        {"name": "a\n{n}.xml"},
        {"name": "a\x85{n}.xml"},
        {"name": "\udcff{n}.xml"},
        {"index_name": "index\t.xml"},
        {"index_name": "\udcffindex.xml"},
    ],
)
def test_a_name_no_url_can_publish_is_refused_before_anything_is_written(
    tmp_path: Path, options: dict[str, str]
) -> None:
    with pytest.raises(feedmap.FormatError, match="control character or is not UTF-8"):
        split(pages(3), tmp_path / "out", **options)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "options",
    [
        {"name": ".feedmap-{n:08d}.lock"},
        {"name": ".feedmap-{n}.lock"},
        {"name": ".a.{n:08d}.0123abcd.part"},
        {"index_name": ".feedmap-0123abcd.lock"},
    ],
)
def test_names_of_feedmaps_temporary_files_are_refused(tmp_path: Path, options: dict[str, str]) -> None:
    """A published file named as a run's lock or temporary file would be removed by the next run as a killed
    run's leftover: such names are refused before anything is written."""
    with pytest.raises(feedmap.FormatError, match="feedmap's temporary files"):
        split(pages(3), tmp_path / "out", **options)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("index_name", ["sitemap_index.xml.gz", "INDEX.XML.GZ"])
def test_an_index_named_gz_is_gzip_and_its_names_are_removed_when_stale(tmp_path: Path, index_name: str) -> None:
    """--index-name NAME.xml.gz wrote plain XML under a gzip name; and the next run, reading the replaced
    index as plain XML, found no names in it and removed none of the files it no longer writes."""
    first = split(pages(25), tmp_path, max_urls=10, index_name=index_name)
    data = (tmp_path / index_name).read_bytes()
    assert data[:2] == b"\x1f\x8b"
    assert [loc.rsplit("/", 1)[-1] for loc in locs_of(gzip.decompress(data))] == list(first.files)
    second = split(pages(5), tmp_path, max_urls=10, index_name=index_name)
    assert sorted(second.removed) == sorted(set(first.files) - set(second.files))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([index_name, *second.files])


def locs_of(data: bytes) -> list[str]:
    return [element.text or "" for element in etree.fromstring(data).iter(f"{SM}loc")]
