"""Converters and cross-format round trips: feed -> sitemap, sitemap -> ROR, and what survives a trip.

* :func:`feedmap.converters._pipeline.plan` picks ``feed_to_sitemap`` for a feed written as a sitemap, index or text
  sitemap, and ``sitemap_to_ror`` for anything not already ROR written as ROR;
* ``feed_to_sitemap`` lists each URL once, in first-seen order, keeping the entry with the newest lastmod
  (compared as instants), and reports the merged count (INFO ``duplicates-merged``);
* sitemap -> ror -> sitemap and sitemap -> rss -> sitemap keep loc, lastmod (byte-exact), changefreq,
  priority and images; ror -> jsonl -> ror keeps every field and extra;
* converting into a format that cannot hold a field reports one INFO ``field-dropped`` per field.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_ror import as_written_html, ror_entries
from test_roundtrip import PRIORITIES, URLS, XML_TEXT, alternates, images, w3c_dates

import feedmap
from feedmap import (
    Alternate,
    ChangeFreq,
    Diagnostic,
    DocKind,
    DocMeta,
    Document,
    Entry,
    Image,
    Level,
    Options,
    Position,
    Reporter,
    W3CDate,
)
from feedmap._core.entry_checks import check_web_urls, keep_absolute
from feedmap.cli import main
from feedmap.converters._duplicates import merge_duplicates, report_duplicates
from feedmap.converters._pipeline import as_urlset, feed_to_sitemap, on_entries, plan, sitemap_to_ror
from feedmap.formats import Context

# ------------------------------------------------------------------------------------------------ helpers


def convert(
    data: bytes, to: str, *, from_: str | None = None, options: Options | None = None
) -> tuple[bytes, Reporter]:
    reporter = Reporter()
    sink = io.BytesIO()
    # URLs as read (XML outputs encode IRIs otherwise): these tests check that conversions keep every value
    options = options or Options(keep_urls=True)
    feedmap.convert(io.BytesIO(data), sink, to, source_format=from_, options=options, reporter=reporter)
    return sink.getvalue(), reporter


def write(entries: Sequence[Entry], format: str) -> bytes:
    sink = io.BytesIO()
    feedmap.write(entries, sink, format, options=feedmap.Options(keep_urls=True))
    return sink.getvalue()


def entries_of(data: bytes, format: str | None = None) -> list[Entry]:
    with feedmap.read(io.BytesIO(data), format=format, options=feedmap.Options(follow=False)) as doc:
        return list(doc)


def with_code(diagnostics: Sequence[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code == code]


def feed(items: Sequence[tuple[str, str | None, str]]) -> bytes:
    """An RSS 2.0 feed of (link, pubDate or None, title) items."""
    body = "".join(
        f"<item><title>{title}</title><link>{link}</link>" + (f"<pubDate>{date}</pubDate>" if date else "") + "</item>"
        for link, date, title in items
    )
    return (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>C</title><link>https://www.example.com/</link>'
        f"<description>D</description>{body}</channel></rss>"
    ).encode()


def doc_of(data: bytes) -> Document:
    return feedmap.read(io.BytesIO(data))


# ------------------------------------------------------------------------------------------------ plan


def web_step(xml: bool, *, parts: bool) -> object:
    return on_entries(check_web_urls, xml=xml, parts=parts)


def absolute_step(target: str) -> object:
    return on_entries(keep_absolute, target=target)


merge_step = on_entries(merge_duplicates)
unique_step = on_entries(report_duplicates, drop=True)
report_step = on_entries(report_duplicates)


@pytest.mark.parametrize(
    ("data", "target", "expected"),
    [
        (feed([]), "sitemap", [web_step(True, parts=True), absolute_step("sitemap"), merge_step, as_urlset]),
        (feed([]), "sitemapindex", [web_step(True, parts=False), absolute_step("sitemapindex"), merge_step, as_urlset]),
        (feed([]), "text", [web_step(False, parts=False), unique_step, as_urlset]),
        (feed([]), "jsonl", [web_step(False, parts=True), report_step]),
        (feed([]), "rss", [web_step(True, parts=True), absolute_step("rss"), merge_step]),
        (feed([]), "ror", [web_step(True, parts=True), absolute_step("ror"), merge_step, sitemap_to_ror]),
        (b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>', "ror",
         [web_step(True, parts=True), absolute_step("ror"), merge_step, sitemap_to_ror]),
        (b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>', "sitemap",
         [web_step(True, parts=True), absolute_step("sitemap"), merge_step]),
        (b'<rss version="2.0" xmlns:ror="http://rorweb.com/0.1/"><channel/></rss>', "ror",
         [web_step(True, parts=True), absolute_step("ror"), merge_step]),
        (b'<rss version="2.0" xmlns:ror="http://rorweb.com/0.1/"><channel/></rss>', "sitemap",
         [web_step(True, parts=True), absolute_step("sitemap"), merge_step, as_urlset]),
    ],
    ids=["feed-sitemap", "feed-index", "feed-text", "feed-jsonl", "feed-rss", "feed-ror", "sitemap-ror",
         "sitemap-sitemap", "ror-ror", "ror-sitemap"],
)  # fmt: skip
def test_plan(data: bytes, target: str, expected: list[object]) -> None:
    with doc_of(data) as doc:
        assert plan(doc, target) == expected


# ------------------------------------------------------------------------------------------------ feed -> sitemap

DUPLICATED = feed(
    [
        ("https://www.example.com/a", "Tue, 02 Apr 2024 09:30:00 +0200", "a first"),  # 07:30Z
        ("https://www.example.com/b", None, "b without date"),
        ("https://www.example.com/a", "Tue, 02 Apr 2024 08:00:00 GMT", "a newest"),  # 08:00Z: newer, lower text
        ("https://www.example.com/c", "Mon, 01 Jan 2024 00:00:00 GMT", "c"),
        ("https://www.example.com/b", "Mon, 01 Jan 2024 00:00:00 GMT", "b dated"),
        ("https://www.example.com/a", "Mon, 01 Apr 2024 00:00:00 GMT", "a older"),
        ("https://www.example.com/c", "Mon, 01 Jan 2024 00:00:00 GMT", "c again, same date"),
    ]
)


def test_feed_to_sitemap_keeps_each_url_once_with_the_newest_lastmod() -> None:
    reporter = Reporter()
    ctx = Context(reporter=reporter)
    with doc_of(DUPLICATED) as doc:
        result = feed_to_sitemap(doc, ctx)
        assert result.meta.kind is DocKind.URLSET
        assert (result.meta.title, result.meta.link, result.meta.description) == ("C", "https://www.example.com/", "D")
        entries = list(result)
    assert [(entry.loc, entry.title) for entry in entries] == [
        ("https://www.example.com/a", "a newest"),
        ("https://www.example.com/b", "b dated"),
        ("https://www.example.com/c", "c"),
    ]
    assert entries[0].lastmod == W3CDate("2024-04-02T08:00:00Z")
    merged = with_code(reporter.diagnostics, "duplicates-merged")
    assert len(merged) == 1
    assert merged[0].level is Level.INFO
    assert re.search(r"\b4\b", merged[0].message), "the number of merged items is reported"


def test_feed_to_sitemap_keeps_every_field_and_the_origin_of_the_entries_it_holds() -> None:
    """The kept entries wait in a temporary file (a 100 MB feed must not be held as objects): nothing is lost."""
    full = Entry(
        loc="https://www.example.com/a",
        lastmod=W3CDate("2024-04-02T08:00:00.5+02:00"),
        changefreq=ChangeFreq.WEEKLY,
        priority=0.3,
        title="T",
        description="D",
        keywords=("k1", "k2"),
        type="Article",
        images=(Image(loc="https://www.example.com/i.png", caption="c"),),
        alternates=(Alternate(hreflang="de", href="https://www.example.com/de"),),
        extras={"{urn:x}y": '<y xmlns="urn:x">1</y>'},
        origin=Position("feed.xml", 7),
    )
    older = Entry(loc=full.loc, lastmod=W3CDate("2024-01-01"), origin=Position("feed.xml", 3))
    bare = Entry(loc="https://www.example.com/b")
    doc = Document(DocMeta(kind=DocKind.FEED), [older, bare, full, bare])
    result = list(feed_to_sitemap(doc, Context(reporter=Reporter())))
    assert result == [full, bare]
    assert [entry.origin for entry in result] == [Position("feed.xml", 7), None]
    assert result[1].lastmod is None and result[1].extras == {}


def test_no_duplicates_no_report() -> None:
    out, reporter = convert(
        feed([("https://www.example.com/a", None, "a"), ("https://www.example.com/b", None, "b")]), "sitemap"
    )
    assert [entry.loc for entry in entries_of(out)] == ["https://www.example.com/a", "https://www.example.com/b"]
    assert with_code(reporter.diagnostics, "duplicates-merged") == []


@pytest.mark.parametrize("target", ["sitemap", "text", "sitemapindex"])
def test_convert_dedupes_a_feed_for_sitemap_targets(target: str) -> None:
    out, reporter = convert(DUPLICATED, target)
    assert len(with_code(reporter.diagnostics, "duplicates-merged")) == 1
    assert entries_of(out, target) == [
        Entry(loc="https://www.example.com/a", lastmod=W3CDate("2024-04-02T08:00:00Z")),
        Entry(loc="https://www.example.com/b", lastmod=W3CDate("2024-01-01T00:00:00Z")),
        Entry(loc="https://www.example.com/c", lastmod=W3CDate("2024-01-01T00:00:00Z")),
    ] if target != "text" else [
        Entry(loc=f"https://www.example.com/{name}") for name in "abc"
    ]  # fmt: skip


def test_a_feed_written_as_jsonl_keeps_every_item_and_reports_the_repeats() -> None:
    out, reporter = convert(DUPLICATED, "jsonl")
    assert len(entries_of(out, "jsonl")) == 7
    assert with_code(reporter.diagnostics, "duplicates-merged") == []
    assert len(with_code(reporter.diagnostics, "loc-duplicate")) == 3


def test_a_feed_written_as_rss_or_ror_never_repeats_a_guid() -> None:
    for target in ("rss", "ror"):
        out, reporter = convert(DUPLICATED, target)
        assert [entry.loc for entry in entries_of(out, target)] == [f"https://www.example.com/{n}" for n in "abc"]
        assert re.findall(r"<guid[^>]*>([^<]*)</guid>", out.decode()).count("https://www.example.com/a") == 1
        assert next(entry.title for entry in entries_of(out, target)) == "a newest"
        assert len(with_code(reporter.diagnostics, "duplicates-merged")) == 1


def test_feed_to_sitemap_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, out = tmp_path / "feed.xml", tmp_path / "sitemap.xml"
    source.write_bytes(DUPLICATED)
    assert main(["convert", str(source), "-t", "sitemap", "-o", str(out)]) == 0
    assert "info[duplicates-merged]" in capsys.readouterr().err
    assert [entry.loc for entry in entries_of(out.read_bytes(), "sitemap")] == [
        f"https://www.example.com/{name}" for name in "abc"
    ]


# ------------------------------------------------------------------------------------------------ sitemap -> ror


def test_sitemap_to_ror_directly() -> None:
    sitemap = write(
        [Entry(loc="https://www.example.com/a"), Entry(loc="https://www.example.com/b", title="B")], "sitemap"
    )
    reporter = Reporter()
    with doc_of(sitemap) as doc:
        result = sitemap_to_ror(doc, Context(reporter=reporter))
        assert result.meta.kind is DocKind.FEED
        assert [entry.loc for entry in result] == ["https://www.example.com/a", "https://www.example.com/b"]
    missing = with_code(reporter.diagnostics, "title-missing")
    assert len(missing) == 1 and missing[0].level is Level.INFO


def test_sitemap_to_ror_through_the_cli_with_channel_options(tmp_path: Path, samples_dir: Path) -> None:
    out = tmp_path / "ror.xml"
    argv = ["convert", str(samples_dir / "sitemap" / "basic.xml"), "-t", "ror", "-o", str(out), "-q"]
    argv += ["--title", "My site", "--description", "Every page", "--self-url", "https://www.example.com/ror.xml"]
    assert main(argv) == 0
    data = out.read_bytes()
    with feedmap.read(io.BytesIO(data)) as doc:
        assert doc.format == "ror"
        assert (doc.meta.title, doc.meta.link, doc.meta.description) == (
            "My site",
            "https://www.example.com/",
            "Every page",
        )
        assert len(list(doc)) == 4
    assert b'<atom:link href="https://www.example.com/ror.xml" rel="self"' in data


# ------------------------------------------------------------------------------------------------ round trips


def chain(data: bytes, *formats: str) -> tuple[bytes, list[Diagnostic]]:
    """``data`` converted to each format in turn; the diagnostics of the last step."""
    diagnostics: list[Diagnostic] = []
    for target in formats:
        data, reporter = convert(data, target)
        diagnostics = reporter.diagnostics
    return data, diagnostics


@pytest.mark.parametrize("via", ["ror", "rss"])
def test_sitemap_round_trip_through_a_feed_on_the_sample(samples_dir: Path, via: str) -> None:
    basic = (samples_dir / "sitemap" / "basic.xml").read_bytes()
    direct, _ = chain(basic, "sitemap")
    through, _ = chain(basic, via, "sitemap")
    assert through == direct
    assert [entry.lastmod for entry in entries_of(through)] == [
        W3CDate(text) for text in ("2024-01-02", "2024-03-05T10:30:00+01:00", "2023", "2024-04-01T08:15:30.25Z")
    ]


@st.composite
def sitemap_entries(draw: st.DrawFn) -> list[Entry]:
    """Entries with what a sitemap holds (distinct locs: a feed read as a sitemap is deduplicated)."""
    entry = st.builds(
        Entry,
        loc=URLS,
        lastmod=st.none() | w3c_dates(),
        changefreq=st.none() | st.sampled_from(list(ChangeFreq)),
        priority=st.none() | PRIORITIES,
        images=st.lists(images(XML_TEXT), max_size=2).map(tuple),
        alternates=st.lists(alternates(), max_size=2).map(tuple),
    )
    return draw(st.lists(entry, max_size=4, unique_by=lambda e: e.loc))


@pytest.mark.parametrize("via", ["ror", "rss"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=sitemap_entries())
def test_sitemap_round_trip_through_a_feed(via: str, entries: list[Entry]) -> None:
    sitemap = write(entries, "sitemap")
    through, _ = chain(sitemap, via, "sitemap")
    assert through == sitemap
    back = entries_of(through)
    held = entries_of(sitemap)  # as the entries: a lastmod of minutes has its seconds in a sitemap (the XSD)
    assert [entry.lastmod.text if entry.lastmod else None for entry in back] == [
        entry.lastmod.text if entry.lastmod else None for entry in held
    ]
    assert back == held
    assert [entry.lastmod.to_datetime() if entry.lastmod else None for entry in back] == [
        entry.lastmod.to_datetime() if entry.lastmod else None for entry in entries
    ]


def test_ror_jsonl_ror_on_the_sample(samples_dir: Path) -> None:
    site = (samples_dir / "ror" / "site.xml").read_bytes()
    direct, _ = chain(site, "ror")
    through, _ = chain(site, "jsonl", "ror")
    assert through == direct
    assert entries_of(through) == entries_of(site)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=st.lists(ror_entries(), max_size=4, unique_by=lambda e: e.loc))
def test_ror_jsonl_ror_keeps_every_field_and_extra(entries: list[Entry]) -> None:
    ror = write(entries, "ror")
    direct, _ = chain(ror, "ror")
    through, diagnostics = chain(ror, "jsonl", "ror")
    assert with_code(diagnostics, "field-dropped") == []
    assert through == direct
    # a description is HTML: an ``&`` that starts no reference (``&0``) is written, and read back, ``&amp;``
    assert entries_of(through) == [as_written_html(entry) for entry in entries]


# ------------------------------------------------------------------------------------------------ field-dropped

RICH = [
    Entry(
        loc=f"https://www.example.com/{n}",
        lastmod=W3CDate("2024-01-02"),
        changefreq=ChangeFreq.DAILY,
        priority=0.5,
        title=f"T{n}",
        description="D",
        keywords=("k",),
        type="Article",
        extras={"ror:sortOrder": str(n), "ror:seeAlso": "https://www.example.com/"},
    )
    for n in range(3)
]


@pytest.mark.parametrize(
    ("source", "target", "dropped"),
    [
        ("ror", "sitemap", 3),  # title, description, keywords, type in one line; ror:sortOrder, ror:seeAlso
        ("ror", "text", 1),  # lastmod, changefreq, priority, title, description, keywords, type, extras
        ("ror", "rss", 3),  # type, ror:sortOrder, ror:seeAlso
        ("ror", "jsonl", 0),
        ("ror", "ror", 0),
        ("sitemap", "rss", 0),
        ("sitemap", "ror", 0),
    ],
)
def test_one_field_dropped_per_field(source: str, target: str, dropped: int) -> None:
    data = write(RICH, source)
    _, reporter = convert(data, target)
    reports = with_code(reporter.diagnostics, "field-dropped")
    assert all(d.level is Level.INFO for d in reports)
    assert len({d.message for d in reports}) == len(reports), "each field is reported once"
    assert len(reports) == dropped
