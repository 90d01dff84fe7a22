"""The ``rss`` format: feeds read through feedparser (RSS 0.9x/1.0/2.0, Atom 0.3/1.0, RDF), RSS 2.0 written.

Reading (sitemaps.org, "Other Sitemap formats"): ``loc`` from ``link``, else a permalink ``guid`` (``isPermaLink``
defaults to true), else Atom ``link[@rel=alternate or no rel]``; ``lastmod`` from ``updated`` / ``pubDate`` /
``modified`` with the offset as written; title, description (summary) and keywords (categories).  Items
without a usable URL are skipped with a warning naming the item; a malformed feed (feedparser's bozo) is a
warning, so ``--strict`` exits 1.

Writing (rssboard.org RSS 2.0 and its Best Practices Profile): one channel with non-empty title, link and
description (from the options, else the input, else derived from the site); every item has a title or a
description, a permalink guid equal to the loc and an RFC 822 pubDate with a four-digit year;
``atom:link rel="self"`` when the feed's URL is given.  feedparser re-reads every written feed with ``bozo == 0``.
"""

from __future__ import annotations

import email.utils
import io
import re
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

import feedparser
import pytest
from conftest import codes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from test_roundtrip import entries_for

import feedmap
from feedmap import (
    ChangeFreq,
    Diagnostic,
    DocKind,
    DocMeta,
    Entry,
    Image,
    Level,
    ReadError,
    Reporter,
    StrictError,
    W3CDate,
)
from feedmap._core.urls import encode_url
from feedmap.cli import main
from feedmap.formats._registry import get

ATOM = "http://www.w3.org/2005/Atom"

# ------------------------------------------------------------------------------------------------ helpers


def read(data: bytes, format: str | None = None) -> tuple[DocMeta, list[Entry], list[Diagnostic], str | None]:
    """Meta, entries, diagnostics and the detected format of ``data``."""
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), format=format, reporter=reporter) as doc:
        entries = list(doc)
        return doc.meta, entries, reporter.diagnostics, doc.format


CHANNEL = "<title>C</title><link>https://www.example.com/</link><description>D</description>"


def rss20(items: str) -> bytes:
    """An RSS 2.0 document with a complete channel around ``items``."""
    return f'<?xml version="1.0"?>\n<rss version="2.0"><channel>{CHANNEL}\n{items}\n</channel></rss>\n'.encode()


def atom10(entries: str) -> bytes:
    """An Atom 1.0 feed around ``entries``."""
    return f'<?xml version="1.0"?>\n<feed xmlns="{ATOM}"><title>A</title><id>urn:x</id>\n{entries}\n</feed>\n'.encode()


def write_rss(entries: Iterable[Entry]) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    summary = feedmap.write(entries, sink, "rss")
    return sink.getvalue(), summary.diagnostics


def channel_of(data: bytes) -> etree._Element:
    root = etree.fromstring(data)
    assert root.tag == "rss"
    assert root.get("version") == "2.0"
    channels = root.findall("channel")
    assert len(channels) == 1
    return channels[0]


RFC822 = re.compile(
    r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} "
    r"\d{2}:\d{2}:\d{2} (GMT|[+-]\d{4})"
)


def assert_valid_rss20(data: bytes) -> None:
    """The RSS 2.0 rules feedmap promises (rssboard.org 2.0.11 + Best Practices Profile)."""
    channel = channel_of(data)
    for name in ("title", "link", "description"):
        element = channel.find(name)
        assert element is not None and (element.text or "").strip(), f"channel <{name}> missing or empty"
    for item in channel.findall("item"):
        title, description = item.findtext("title"), item.findtext("description")
        assert (title or "").strip() or (description or "").strip(), "an item needs a title or a description"
        guid = item.find("guid")
        assert guid is not None and guid.text == item.findtext("link")
        assert guid.get("isPermaLink", "true") == "true"
        pub = item.findtext("pubDate")
        if pub is not None:
            assert RFC822.fullmatch(pub), pub


def assert_feedparser_reads(data: bytes, locs: Sequence[str]) -> None:
    parsed = feedparser.parse(data)
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    assert parsed.version == "rss20"
    assert [entry.get("link") for entry in parsed.entries] == list(locs)


# ------------------------------------------------------------------------------------------------ reading: loc


def test_rss20_item_fields() -> None:
    meta, entries, diagnostics, fmt = read(
        rss20(
            "<item><title>Sale &amp; more</title><link>https://www.example.com/sale</link>"
            "<description>Half price</description><category>sales</category><category> spring </category>"
            "<pubDate>Tue, 02 Apr 2024 09:30:00 +0200</pubDate></item>"
        )
    )
    assert fmt == "rss"
    assert meta == DocMeta(kind=DocKind.FEED, title="C", link="https://www.example.com/", description="D")
    assert entries == [
        Entry(
            loc="https://www.example.com/sale",
            lastmod=W3CDate("2024-04-02T09:30:00+02:00"),
            title="Sale & more",
            description="Half price",
            keywords=("sales", "spring"),
        )
    ]
    assert diagnostics == []


@pytest.mark.parametrize("attribute", ["", ' isPermaLink="true"', ' isPermaLink="TRUE"'])
def test_permalink_guid_is_the_loc_when_there_is_no_link(attribute: str) -> None:
    _, entries, diagnostics, _ = read(
        rss20(f"<item><title>G</title><guid{attribute}>https://www.example.com/g</guid></item>")
    )
    assert [entry.loc for entry in entries] == ["https://www.example.com/g"]
    assert diagnostics == []


def test_link_wins_over_a_permalink_guid() -> None:
    _, entries, _, _ = read(
        rss20("<item><guid>https://www.example.com/guid</guid><link>https://www.example.com/link</link></item>")
    )
    assert [entry.loc for entry in entries] == ["https://www.example.com/link"]


def test_an_empty_link_does_not_hide_a_permalink_guid() -> None:
    _, entries, _, _ = read(rss20("<item><title>E</title><link></link><guid>https://www.example.com/g</guid></item>"))
    assert [entry.loc for entry in entries] == ["https://www.example.com/g"]


def test_items_without_a_usable_url_are_skipped_with_a_warning_naming_them() -> None:
    _, entries, diagnostics, _ = read(
        rss20(
            "<item><title>Kept</title><link>https://www.example.com/kept</link></item>"
            '<item><title>Opaque guid</title><guid isPermaLink="false">https://www.example.com/not-a-page</guid></item>'
            "<item><description>No title and no URL</description></item>"
        )
    )
    assert [entry.loc for entry in entries] == ["https://www.example.com/kept"]
    assert codes(diagnostics) == ["loc-missing", "loc-missing"]
    assert all(d.level is Level.WARNING for d in diagnostics)
    # the warning names the item: by its title, else by its position
    assert "Opaque guid" in diagnostics[0].message
    assert "3" in diagnostics[1].message


@pytest.mark.parametrize(
    "loc", ["https://www.example.com/?a=1&amp;b=2", "https://www.example.com/&0;", "https://www.example.com/&lt;x"]
)
def test_entity_like_text_in_a_link_is_kept_as_written(loc: str) -> None:
    """feedparser rewrites such text in RSS links; the URL is what the XML says."""
    escaped = loc.replace("&", "&amp;")
    _, entries, _, _ = read(rss20(f"<item><title>t</title><link>{escaped}</link></item>"))
    assert [entry.loc for entry in entries] == [loc]


def test_a_relative_link_is_resolved_against_the_channel_link() -> None:
    _, entries, diagnostics, _ = read(rss20("<item><title>R</title><link>/relative/page</link></item>"))
    assert [entry.loc for entry in entries] == ["https://www.example.com/relative/page"]
    assert codes(diagnostics) == ["relative-url-resolved"]


def test_a_relative_link_without_a_base_is_kept_with_a_warning() -> None:
    data = b'<rss version="2.0"><channel><title>T</title><item><link>/relative/page</link></item></channel></rss>'
    _, entries, diagnostics, _ = read(data)
    assert [entry.loc for entry in entries] == ["/relative/page"]
    assert codes(diagnostics) == ["relative-url"]


# ------------------------------------------------------------------------------------------------ reading: versions


def test_atom10_alternate_link_updated_summary_categories() -> None:
    meta, entries, diagnostics, fmt = read(
        atom10(
            '<entry><title>One</title><link rel="edit" href="https://example.org/edit/1"/>'
            '<link rel="alternate" type="text/html" href="https://example.org/1"/><id>urn:1</id>'
            "<published>2024-01-01T00:00:00Z</published><updated>2024-02-03T04:05:06.5-08:00</updated>"
            '<summary>First</summary><category term="intro"/><category term="news"/></entry>'
            '<entry><title>Two</title><link rel="enclosure" href="https://example.org/2.mp3"/>'
            '<link href="https://example.org/2"/><id>urn:2</id><published>2024-03-01T10:00Z</published></entry>'
        ).replace(b"<id>urn:x</id>", b'<id>urn:x</id><subtitle>Sub</subtitle><link href="https://example.org/"/>')
    )
    assert fmt == "rss"
    assert (meta.title, meta.link, meta.description) == ("A", "https://example.org/", "Sub")
    assert entries == [
        Entry(
            loc="https://example.org/1",
            lastmod=W3CDate("2024-02-03T04:05:06.5-08:00"),
            title="One",
            description="First",
            keywords=("intro", "news"),
        ),
        Entry(loc="https://example.org/2", lastmod=W3CDate("2024-03-01T10:00Z"), title="Two"),
    ]
    assert diagnostics == []


def test_atom_id_is_not_a_link() -> None:
    """feedparser takes an Atom <id> as the link when no alternate link precedes it; feedmap does not."""
    _, entries, diagnostics, _ = read(
        atom10(
            '<entry><title>Id only</title><id>https://example.org/id</id><link rel="edit" href="https://example.org/e"/></entry>'
            '<entry><title>Id first</title><id>https://example.org/id2</id><link href="https://example.org/page"/></entry>'
        )
    )
    assert [entry.loc for entry in entries] == ["https://example.org/page"]
    assert codes(diagnostics) == ["loc-missing"]
    assert "Id only" in diagnostics[0].message


def test_atom_alternate_link_wins_over_a_later_link_without_href() -> None:
    """feedparser's own expectation (atom10/entry_link_no_href_link_priority.xml), which feedparser 6 misses."""
    _, entries, _, _ = read(
        atom10(
            '<entry><link rel="alternate" href="https://example.org/alternate"/>'
            '<link rel="enclosure" type="text/html">https://example.org/enclosure</link></entry>'
        )
    )
    assert [entry.loc for entry in entries] == ["https://example.org/alternate"]


def test_atom03_modified_and_alternate_link() -> None:
    data = (
        b'<?xml version="1.0"?><feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>Old</title>'
        b'<entry><title>E</title><link rel="alternate" type="text/html" href="https://example.org/e"/>'
        b"<issued>2003-12-13T08:29:29-04:00</issued><modified>2003-12-13T18:30:02Z</modified></entry></feed>"
    )
    _, entries, diagnostics, fmt = read(data)
    assert fmt == "rss"
    assert entries == [Entry(loc="https://example.org/e", lastmod=W3CDate("2003-12-13T18:30:02Z"), title="E")]
    assert diagnostics == []


def test_rss10_rdf() -> None:
    data = (
        b'<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        b'xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">'
        b'<channel rdf:about="https://example.org/"><title>R</title><link>https://example.org/</link>'
        b"<description>RDF site</description></channel>"
        b'<item rdf:about="https://example.org/1"><title>One</title><link>https://example.org/1</link>'
        b"<description>first</description><dc:date>2024-01-02T03:04:05+01:00</dc:date><dc:subject>kw</dc:subject></item>"
        b"</rdf:RDF>"
    )
    meta, entries, diagnostics, fmt = read(data)
    assert fmt == "rss"
    assert (meta.title, meta.link, meta.description) == ("R", "https://example.org/", "RDF site")
    assert entries == [
        Entry(
            loc="https://example.org/1",
            lastmod=W3CDate("2024-01-02T03:04:05+01:00"),
            title="One",
            description="first",
            keywords=("kw",),
        )
    ]
    assert diagnostics == []


@pytest.mark.parametrize("version", ["0.91", "0.92", "2.0"])
def test_rss_0_9x_and_2_0(version: str) -> None:
    data = (
        f'<?xml version="1.0"?><rss version="{version}"><channel><title>C</title><link>https://example.org/</link>'
        "<description>D</description><item><title>One</title><link>https://example.org/1</link>"
        "<description>x</description></item></channel></rss>"
    ).encode()
    _, entries, diagnostics, fmt = read(data)
    assert fmt == "rss"
    assert entries == [Entry(loc="https://example.org/1", title="One", description="x")]
    assert diagnostics == []


# ------------------------------------------------------------------------------------------------ reading: dates


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("Tue, 02 Apr 2024 09:30:00 +0200", "2024-04-02T09:30:00+02:00"),
        ("Wed, 14 Feb 2024 12:00:00 -0500", "2024-02-14T12:00:00-05:00"),
        ("Mon, 01 Jan 2024 08:00:00 GMT", "2024-01-01T08:00:00Z"),
        ("Tue, 05 Mar 2024 10:30:00 +0530", "2024-03-05T10:30:00+05:30"),
    ],
)
def test_pubdate_keeps_the_offset_written(written: str, expected: str) -> None:
    _, entries, _, _ = read(rss20(f"<item><link>https://example.org/1</link><pubDate>{written}</pubDate></item>"))
    assert entries[0].lastmod is not None
    assert entries[0].lastmod.text == expected


def test_dc_date_is_read_exactly_and_wins_over_pubdate() -> None:
    data = rss20(
        "<item><link>https://example.org/1</link><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate>"
        '<dc:date xmlns:dc="http://purl.org/dc/elements/1.1/">2024-01</dc:date></item>'
    )
    _, entries, _, _ = read(data)
    assert entries[0].lastmod == W3CDate("2024-01")


def test_reading_dates_raises_no_python_warnings() -> None:
    """feedparser warns when ``updated`` is looked up on an entry that has only ``published``."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, entries, _, _ = read(
            rss20("<item><link>https://example.org/1</link><pubDate>Mon, 01 Jan 2024 08:00:00 GMT</pubDate></item>")
        )
    assert entries[0].lastmod == W3CDate("2024-01-01T08:00:00Z")


def test_an_unreadable_pubdate_is_reported_and_the_item_kept() -> None:
    _, entries, diagnostics, _ = read(rss20("<item><link>https://example.org/1</link><pubDate>soon</pubDate></item>"))
    assert entries == [Entry(loc="https://example.org/1")]
    assert "lastmod-invalid" in codes(diagnostics)


# ------------------------------------------------------------------------------------------------ reading: bozo

BOZO = rss20(
    "<item><title>a</title><link>https://example.org/1</link></item>"
    "<item><title>b</title><link>https://example.org/2</link><broken></item>"
)


def test_a_malformed_feed_is_read_leniently_with_a_warning() -> None:
    assert feedparser.parse(BOZO).bozo
    _, entries, diagnostics, fmt = read(BOZO)
    assert fmt == "rss"
    assert [entry.loc for entry in entries] == ["https://example.org/1", "https://example.org/2"]
    malformed = [d for d in diagnostics if d.code == "malformed-feed"]
    assert len(malformed) == 1
    assert malformed[0].level is Level.WARNING


def test_a_malformed_feed_stops_strict_reading() -> None:
    strict = feedmap.Options(strict=True)
    with pytest.raises(StrictError) as caught, feedmap.read(io.BytesIO(BOZO), options=strict) as doc:
        list(doc)
    assert caught.value.code == "malformed-feed"


def test_cli_exit_codes_on_a_malformed_feed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    feed = tmp_path / "bozo.xml"
    feed.write_bytes(BOZO)
    lenient = tmp_path / "lenient.xml"
    assert main(["convert", str(feed), "-t", "sitemap", "-o", str(lenient)]) == 0
    assert "warning[malformed-feed]" in capsys.readouterr().err
    strict = tmp_path / "strict.xml"
    assert main(["convert", str(feed), "-t", "sitemap", "-o", str(strict), "--strict"]) == 1
    assert "[malformed-feed]" in capsys.readouterr().err
    assert not strict.exists()
    assert main(["convert", str(feed), "-t", "sitemap", "-o", str(strict), "--strict", "-f", "rss"]) == 1


def test_a_well_formed_feed_passes_strict(tmp_path: Path) -> None:
    feed = tmp_path / "feed.xml"
    feed.write_bytes(rss20("<item><title>a</title><link>https://example.org/1</link></item>"))
    assert main(["convert", str(feed), "-t", "jsonl", "-o", str(tmp_path / "out.jsonl"), "--strict", "-q"]) == 0


def test_a_document_that_is_no_feed_is_a_read_error() -> None:
    data = b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>'
    with pytest.raises(ReadError) as caught:
        read(data, format="rss")
    assert caught.value.code == "not-a-feed"


# ------------------------------------------------------------------------------------------------ writing

FULL = Entry(
    loc="https://www.example.com/a?x=1&y=2",
    lastmod=W3CDate("2024-03-05T10:30:00+01:00"),
    changefreq=ChangeFreq.WEEKLY,
    priority=0.8,
    title="A & B",
    description="<about>",
    keywords=("k1", "k2"),
    images=(Image(loc="https://www.example.com/i.png", caption="Cap"),),
)
BARE = Entry(loc="https://www.example.com/bare")
DESCRIBED = Entry(loc="https://www.example.com/d", description="Only a description", lastmod=W3CDate("2023"))


def test_written_feed_is_valid_rss20() -> None:
    data, _ = write_rss([FULL, BARE, DESCRIBED])
    assert_valid_rss20(data)
    items = channel_of(data).findall("item")
    assert [item.findtext("link") for item in items] == [FULL.loc, BARE.loc, DESCRIBED.loc]
    # an item with neither title nor description gets its URL as title; a description alone is enough
    assert items[1].findtext("title") == BARE.loc
    assert items[2].find("title") is None
    assert_feedparser_reads(data, [FULL.loc, BARE.loc, DESCRIBED.loc])


@pytest.mark.parametrize(
    "lastmod",
    [
        "2024-03-05T10:30:00+01:00",
        "2024-01-02",
        "2023",
        "2024-04-01T08:15:30.25Z",
        "1999-12-31T23:59-12:00",
        "0999-01-01",
    ],
)
def test_pubdate_is_rfc822_with_a_four_digit_year_for_the_same_instant(lastmod: str) -> None:
    # ROR writes pubDate for every lastmod (ror:updated keeps the exact text); rss only for an exact one
    sink = io.BytesIO()
    feedmap.write([Entry(loc="https://www.example.com/", title="t", lastmod=W3CDate(lastmod))], sink, "ror")
    data = sink.getvalue()
    pub = channel_of(data).find("item[2]/pubDate")
    assert pub is not None and pub.text is not None
    assert RFC822.fullmatch(pub.text), pub.text
    # pubDate has whole seconds: the instant is the lastmod's, fractions cut
    assert email.utils.parsedate_to_datetime(pub.text) == W3CDate(lastmod).to_datetime().replace(microsecond=0)


def test_the_offset_written_is_kept_in_pubdate() -> None:
    data, _ = write_rss(
        [Entry(loc="https://www.example.com/", title="t", lastmod=W3CDate("2024-03-05T10:30:00+05:30"))]
    )
    assert channel_of(data).findtext("item/pubDate") == "Tue, 05 Mar 2024 10:30:00 +0530"


def test_self_url_becomes_atom_link_self(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    feedmap.write([BARE], source, "jsonl")
    with_self, without = tmp_path / "with.rss", tmp_path / "without.rss"
    url = "https://www.example.com/feed.rss"
    assert main(["convert", str(source), "-t", "rss", "-o", str(with_self), "--self-url", url, "-q"]) == 0
    assert main(["convert", str(source), "-t", "rss", "-o", str(without), "-q"]) == 0
    links = channel_of(with_self.read_bytes()).findall(f"{{{ATOM}}}link")
    assert [(link.get("rel"), link.get("href")) for link in links] == [("self", url)]
    assert channel_of(without.read_bytes()).findall(f"{{{ATOM}}}link") == []
    assert feedparser.parse(with_self.read_bytes()).bozo == 0


def test_channel_defaults_come_from_the_site_of_the_urls() -> None:
    data, diagnostics = write_rss([Entry(loc="https://www.example.com/deep/page", title="t"), BARE])
    channel = channel_of(data)
    assert channel.findtext("link") == "https://www.example.com/"
    for name in ("title", "description"):
        text = channel.findtext(name)
        assert text and "www.example.com" in text
    assert not [d for d in diagnostics if d.level >= Level.WARNING]


def test_channel_metadata_from_the_input_document(samples_dir: Path) -> None:
    sink = io.BytesIO()
    feedmap.convert(str(samples_dir / "rss" / "feed.xml"), sink, "rss")
    channel = channel_of(sink.getvalue())
    assert (channel.findtext("title"), channel.findtext("link"), channel.findtext("description")) == (
        "Example News",
        "https://www.example.com/news/",
        "News from example.com",
    )


def test_channel_options_win_over_the_input(samples_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.rss"
    argv = ["convert", str(samples_dir / "rss" / "feed.xml"), "-t", "rss", "-o", str(out), "-q"]
    argv += ["--title", "T & T", "--link", "https://other.example/", "--description", "Desc"]
    assert main(argv) == 0
    channel = channel_of(out.read_bytes())
    assert (channel.findtext("title"), channel.findtext("link"), channel.findtext("description")) == (
        "T & T",
        "https://other.example/",
        "Desc",
    )


def test_no_entries_still_give_a_valid_channel() -> None:
    data, diagnostics = write_rss([])
    assert_valid_rss20(data)
    assert channel_of(data).findall("item") == []
    assert {"channel-link-missing", "empty-document"} <= set(codes(diagnostics))
    assert feedparser.parse(data).bozo == 0


def test_fields_rss_cannot_hold_are_reported_once_each() -> None:
    entries = [
        Entry(loc=f"https://www.example.com/{n}", title="t", type="Article", extras={"ror:sortOrder": str(n)})
        for n in range(3)
    ]
    data, diagnostics = write_rss(entries)
    dropped = [d for d in diagnostics if d.code == "field-dropped"]
    assert len(dropped) == 2
    assert all(d.level is Level.INFO for d in dropped)
    assert b"Article" not in data and b"sortOrder" not in data


# ------------------------------------------------------------------------------------------------ feedparser re-reads


def test_feedparser_reads_the_written_samples(samples_dir: Path) -> None:
    inputs = [samples_dir / "sitemap" / "basic.xml", samples_dir / "rss" / "feed.xml", samples_dir / "rss" / "atom.xml"]
    inputs += [
        samples_dir / "ror" / "site.xml",
        samples_dir / "jsonl" / "entries.jsonl",
        samples_dir / "text" / "urls.txt",
    ]
    for source in inputs:
        sink = io.BytesIO()
        feedmap.convert(str(source), sink, "rss")
        with feedmap.read(str(source)) as doc:
            locs = list(dict.fromkeys(encode_url(entry.loc) for entry in doc))  # no repeated guid; IRIs as URIs
        assert_valid_rss20(sink.getvalue())
        assert_feedparser_reads(sink.getvalue(), locs)


def test_the_rss_golden_is_valid(samples_dir: Path) -> None:
    data = (samples_dir / "sitemap" / "basic.expected.rss.xml").read_bytes()
    assert_valid_rss20(data)
    assert feedparser.parse(data).bozo == 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# unique as written: an IRI and its URI spelling are one guid, merged (issue 9)
@given(entries=st.lists(entries_for(get("rss")), max_size=4, unique_by=lambda e: encode_url(e.loc)))
def test_feedparser_reads_what_we_write(entries: list[Entry]) -> None:
    sink = io.BytesIO()
    feedmap.write(entries, sink, "rss")
    data = sink.getvalue()
    assert_valid_rss20(data)
    parsed = feedparser.parse(data)
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    assert len(parsed.entries) == len(entries)


def test_a_malformed_first_url_does_not_stop_a_feed_being_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The channel link is derived from the first URL's site: one that cannot be parsed gives no site."""
    source = tmp_path / "urls.txt"
    source.write_text("http://[::1/x\nhttps://www.example.com/2\n")
    for target in ("rss", "ror"):
        assert main(["convert", str(source), "-t", target]) == 0
        out, err = capsys.readouterr()
        assert "<link>https://www.example.com/2</link>" in out
        assert "names no site" in err and "Traceback" not in err


# ------------------------------------------------------------------------------------------------ streaming (issue 8)


class _CountingReader(io.RawIOBase):
    """A feed of ``items`` RSS items, generated as it is read; counts the bytes handed out."""

    def __init__(self, items: int) -> None:
        self._parts = iter(
            [
                rss20("").split(b"\n</channel>")[0],
                *(
                    f"<item><title>t{n}</title><link>https://example.org/{n}</link></item>\n".encode()
                    for n in range(items)
                ),
                b"</channel></rss>\n",
            ]
        )
        self._pending = b""
        self.handed_out = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while len(self._pending) < len(buffer):
            part = next(self._parts, None)
            if part is None:
                break
            self._pending += part
        count = min(len(buffer), len(self._pending))
        buffer[:count] = self._pending[:count]
        self._pending = self._pending[count:]
        self.handed_out += count
        return count


def test_a_feed_is_read_as_it_streams() -> None:
    """The first entry comes before the whole feed (some 2.5 MB here) was read: it is not read whole."""
    reader = _CountingReader(40_000)
    with feedmap.read(reader, format="rss") as doc:
        first = next(iter(doc))
        assert first.loc == "https://example.org/0"
        assert doc.meta.title == "C"
        assert reader.handed_out < 1_000_000
        assert sum(1 for _ in doc) == 39_999


def test_a_well_formed_feed_is_read_without_feedparser(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("feedparser was asked to read a well-formed feed")

    monkeypatch.setattr(feedparser, "parse", refuse)
    _, entries, diagnostics, _ = read(rss20("<item><title>a</title><link>https://example.org/1</link></item>"))
    assert [entry.loc for entry in entries] == ["https://example.org/1"]
    assert diagnostics == []


def test_channel_elements_after_the_items_fill_the_metadata() -> None:
    data = b'<rss version="2.0"><channel><item><link>https://example.org/1</link></item><title>Late</title></channel></rss>'
    meta, entries, _, _ = read(data)
    assert meta.title == "Late"
    assert [entry.loc for entry in entries] == ["https://example.org/1"]


def test_a_feed_that_breaks_off_after_items_gives_the_rest_through_feedparser() -> None:
    """The items before the break stream; feedparser gives those after it, none twice, in order."""
    items = "".join(f"<item><title>t{n}</title><link>https://example.org/{n}</link></item>" for n in range(1, 4))
    broken = "<item><title>t4</title><link>https://example.org/4</link><p></item>"
    after = "<item><title>t5</title><link>https://example.org/5</link></item>"
    _, entries, diagnostics, _ = read(rss20(items + broken + after))
    assert [entry.loc for entry in entries] == [f"https://example.org/{n}" for n in range(1, 6)]
    assert [entry.title for entry in entries] == [f"t{n}" for n in range(1, 6)]
    assert codes(diagnostics) == ["malformed-feed"]


def test_a_feed_broken_before_its_first_item_is_read_by_feedparser() -> None:
    data = rss20("<item><title>a</title><link>https://example.org/1</link></item>").replace(b"<title>C", b"<title><x>C")
    _meta, entries, diagnostics, _ = read(data)
    assert [entry.loc for entry in entries] == ["https://example.org/1"]
    assert codes(diagnostics) == ["malformed-feed"]


@pytest.mark.parametrize(
    ("element", "recovered", "expected"),
    [
        # feedparser keeps the escape in a guid, drops an entity's ';' and a reference's meaning in a link
        (
            "<guid>https://example.org/?q=1&amp;sect=2</guid>",
            "https://example.org/?q=1&amp;sect=2",
            "https://example.org/?q=1&sect=2",
        ),
        ("<link>https://&host;/a</link>", "https://&host/a", "https://&host;/a"),
        ("<link>https://example.org/a&lt;b</link>", "https://example.org/a&ltb", "https://example.org/a<b"),
    ],
)
def test_urls_feedparser_recovers_are_read_as_written_and_reported(element: str, recovered: str, expected: str) -> None:
    data = rss20(f"<item><title>t</title>{element}<p></item>")
    assert feedparser.parse(data).entries[0].link == recovered
    _, entries, diagnostics, _ = read(data)
    assert [entry.loc for entry in entries] == [expected]
    reports = [d for d in diagnostics if d.code == "feed-recovered-url"]
    assert len(reports) == 1 and recovered in reports[0].message and reports[0].level is Level.WARNING


def test_a_recovered_url_not_in_the_feed_is_reported_unverified() -> None:
    """feedparser resolves the references, then drops the ";" of what looks like an entity: no form of the
    text as written gives its URL, so it is kept and reported as unverified."""
    data = rss20("<item><title>t</title><link>https://example.org/&amp;&#x26;x;</link><p></item>")
    parsed = feedparser.parse(data)
    _, entries, diagnostics, _ = read(data)
    assert [entry.loc for entry in entries] == [parsed.entries[0].link]
    assert "feed-recovered-url" in codes(diagnostics)


SURROGATE_CASES = {
    "title": ("<item><title>a&#xD800;b</title><link>https://example.org/2</link></item>", "title", "a\ufffdb"),
    "description": (
        "<item><description>a&#55296;b</description><link>https://example.org/2</link></item>",
        "description",
        "a\ufffdb",
    ),
    "category": (
        "<item><category>a&#xDFFF;</category><link>https://example.org/2</link></item>",
        "keywords",
        ("a\ufffd",),
    ),
    "link": (
        "<item><title>t</title><link>https://example.org/&#xD800;</link></item>",
        "loc",
        "https://example.org/\ufffd",
    ),
    "guid": (
        "<item><title>t</title><guid>https://example.org/&#xdbff;</guid></item>",
        "loc",
        "https://example.org/\ufffd",
    ),
    "pubDate": ("<item><link>https://example.org/2</link><pubDate>&#xD800;</pubDate></item>", "lastmod", None),
}


@pytest.mark.parametrize("broken", [False, True], ids=["well-formed", "malformed"])
@pytest.mark.parametrize("case", sorted(SURROGATE_CASES))
def test_character_references_to_surrogates_are_replaced_not_fatal(case: str, broken: bool) -> None:
    """``&#xD800;`` is no XML character (XML 1.0 §2.2): U+FFFD with a warning, on both reading paths."""
    item, field, expected = SURROGATE_CASES[case]
    tail = "<item><link>https://example.org/3</link><p></item>" if broken else ""
    data = rss20("<item><title>first</title><link>https://example.org/1</link></item>" + item + tail)
    _, entries, diagnostics, _ = read(data)
    assert entries[0].loc == "https://example.org/1"
    assert getattr(entries[1], field) == expected
    assert codes(diagnostics).count("invalid-character") == 1
    for target in ("jsonl", "rss", "sitemap"):
        feedmap.convert(io.BytesIO(data), io.BytesIO(), target)


def test_surrogate_references_in_atom_attributes_and_channel_are_replaced() -> None:
    data = atom10('<entry><title>x</title><link href="https://example.org/&#xD800;"/></entry>').replace(
        b"<title>A</title>", b"<title>A&#xDC00;</title>"
    )
    meta, entries, diagnostics, _ = read(data)
    assert meta.title == "A\ufffd"
    assert [entry.loc for entry in entries] == ["https://example.org/\ufffd"]
    assert codes(diagnostics) == ["invalid-character", "invalid-character"]


def test_surrogate_references_across_read_boundaries_are_all_replaced() -> None:
    """10,000 references (80 kB) in one element cross the stream's chunk boundaries."""
    _, entries, diagnostics, _ = read(
        rss20("<item><link>https://example.org/1</link><description>" + "&#xD800;" * 10_000 + "</description></item>")
    )
    assert entries[0].description == "\ufffd" * 10_000
    assert codes(diagnostics) == ["invalid-character"] * 10_000


def test_html_entities_are_read_as_their_characters_once_reported_each() -> None:
    """RSS 0.91 declares HTML 4's entities in its DTD, which is never loaded: they are read as feedparser
    reads them, each name reported once; in a URL without ';' the '&' stays literal, CDATA is left alone."""
    data = (
        b'<?xml version="1.0"?>\n<rss version="0.91"><channel><title>Caf&eacute;</title>\n'
        b"<item><title>a&nbsp;b &amp; caf&eacute;</title><link>https://example.org/?a=1&copy=3</link>\n"
        b"<description><![CDATA[x &nbsp; y]]> &hellip;</description></item></channel></rss>\n"
    )
    meta, entries, diagnostics, _ = read(data)
    assert meta.title == "Caf\u00e9"
    assert [(entry.loc, entry.title, entry.description) for entry in entries] == [
        ("https://example.org/?a=1&copy=3", "a\u00a0b & caf\u00e9", "x &nbsp; y \u2026")
    ]
    entities = [(d.line, d.message.split(";")[0]) for d in diagnostics if d.code == "html-entity"]
    assert entities == [(2, "&eacute"), (3, "&nbsp"), (4, "&hellip")]
    assert codes(diagnostics).count("bare-ampersand") == 1


def test_surrogate_references_are_reported_on_their_line() -> None:
    data = rss20("<item><link>https://example.org/1</link>\n\n<title>a&#xD800;</title></item>")
    _, _, diagnostics, _ = read(data)
    assert [(d.code, d.line) for d in diagnostics] == [("invalid-character", 5)]


def test_rss_in_a_userland_namespace_is_read_as_rss() -> None:
    """RSS 2.0 in the ``backend.userland.com/rss2`` namespace: its elements are the item's fields, not extras."""
    data = (
        b'<?xml version="1.0"?><rss version="2.0" xmlns="http://backend.userland.com/rss2"><channel><title>C</title>'
        b"<item><title>T</title><link>https://example.org/1</link><description>D</description></item></channel></rss>"
    )
    meta, entries, diagnostics, _ = read(data)
    assert meta.title == "C"
    assert entries == [Entry(loc="https://example.org/1", title="T", description="D")]
    assert entries[0].extras == {}
    assert diagnostics == []


def test_a_feed_over_the_byte_cap_is_a_limit_error() -> None:
    data = rss20("".join(f"<item><link>https://example.org/{n}</link></item>" for n in range(2000)))
    with (
        pytest.raises(ReadError) as caught,
        feedmap.read(io.BytesIO(data), options=feedmap.Options(max_bytes=10_000)) as doc,
    ):
        list(doc)
    assert caught.value.code == "too-large"


class _Trickle:
    """A reader handing out its bytes a few at a time (1 to 7), so that every boundary gets cut."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._step = 0

    def read(self, size: int = -1, /) -> bytes:
        self._step = self._step % 7 + 1
        piece, self._data = self._data[: self._step], self._data[self._step :]
        return piece


def test_reference_repairs_hold_across_any_read_boundary() -> None:
    from feedmap.formats.feeds._repair import ReferenceRepairs

    text = b"<a>x&#xD800;y&nbsp;<![CDATA[&nbsp;&#xD800;]]]]>&eacute;&amp;&#55296;&#1234;&unknown;</a>\n" * 40
    expected = b"<a>x&#xFFFD;y&#160;<![CDATA[&nbsp;&#xD800;]]]]>&#233;&amp;&#xFFFD;&#1234;&unknown;</a>\n" * 40
    reporter = Reporter()
    repairs = ReferenceRepairs(_Trickle(text), reporter=reporter, name="t")
    out = b"".join(iter(lambda: repairs.read(64), b""))
    assert out == expected
    assert repairs.replaced == 80
    assert [d.code for d in reporter.diagnostics].count("html-entity") == 2
    assert [d.line for d in reporter.diagnostics if d.code == "invalid-character"][-2:] == [40, 40]


@pytest.mark.parametrize(
    ("item", "loc", "lastmod"),
    [
        ("<item><link>https://e.com/b<x/>z</link><guid>https://e.com/g</guid></item>", "https://e.com/g", None),
        ("<item><guid>https://e.com/g<x/>z</guid></item>", None, None),
        (
            "<item><link>https://e.com/a</link><pubDate>Mon, 01 Jan 2024 <x/>00:00:00 GMT</pubDate></item>",
            "https://e.com/a",
            None,
        ),
    ],
    ids=["link", "guid", "pubDate"],
)
def test_a_url_or_date_holding_an_element_is_not_cut_at_it(item: str, loc: str | None, lastmod: str | None) -> None:
    """lxml's .text stops at a child element: <link>https://e.com/b<x/>z</link> was read as https://e.com/b."""
    _, entries, diagnostics, _ = read(rss20(item))
    assert [(e.loc, e.lastmod) for e in entries] == ([] if loc is None else [(loc, lastmod)])
    assert "unknown-element" in codes(diagnostics)


def test_a_link_holding_an_unexpanded_entity_is_not_used() -> None:
    data = (
        b'<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY site "e.com">]>\n<rss version="2.0"><channel>'
        + CHANNEL.encode()
        + b"\n<item><link>https://&site;/a</link></item>\n<item><link>https://e.com/b</link></item>\n</channel></rss>\n"
    )
    _, entries, diagnostics, _ = read(data)
    assert [e.loc for e in entries] == ["https://e.com/b"]
    assert any(d.code == "unresolved-entity" and d.message.startswith("<link> holds") for d in diagnostics)


def test_a_second_link_title_or_date_in_an_rss_item_is_reported() -> None:
    """Two <link> in one item: the first was kept without a word (issue 8, silent change 3, for feeds)."""
    item = (
        "<item><link>https://e.com/a</link><link>https://e.com/b</link><title>x</title><title>y</title>"
        "<pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate><pubDate>Tue, 02 Jan 2024 00:00:00 GMT</pubDate></item>"
    )
    _, entries, diagnostics, _ = read(rss20(item))
    assert [(e.loc, e.title, str(e.lastmod)) for e in entries] == [("https://e.com/a", "x", "2024-01-01T00:00:00Z")]
    assert [d.message.split(" in ")[0] for d in diagnostics if d.code == "element-repeated"] == [
        "a second <link>",
        "a second <title>",
        "a second <pubDate>",
    ]


def test_two_atom_alternates_of_one_type_and_language_are_reported_with_the_one_used() -> None:
    entry = (
        '<entry><link rel="alternate" hreflang="de" href="https://e.com/de"/><link href="https://e.com/a"/>'
        '<link rel="alternate" href="https://e.com/b"/><link rel="edit" href="https://e.com/e"/>'
        '<link rel="edit" href="https://e.com/f"/><title>x</title><title>y</title></entry>'
    )
    _, entries, diagnostics, _ = read(atom10(entry))
    assert [(e.loc, e.title) for e in entries] == [("https://e.com/b", "x")]
    duplicates = [d.message for d in diagnostics if d.code == "element-repeated"]
    assert len(duplicates) == 2  # not the other language, not the edit links
    assert duplicates[0].startswith('a second <link rel="alternate">') and "https://e.com/b is used" in duplicates[0]
    assert duplicates[1].startswith("a second <title>")


def test_distinct_alternates_and_repeatable_elements_are_not_duplicates() -> None:
    item = (
        "<item><link>https://e.com/a</link><category>a</category><category>b</category>"
        '<enclosure url="https://e.com/x.mp3" length="1" type="audio/mpeg"/></item>'
    )
    entry = (
        '<entry><link href="https://e.com/a"/><link rel="alternate" type="application/pdf" href="https://e.com/a.pdf"/>'
        '<link rel="alternate" hreflang="de" href="https://e.com/de"/><category term="a"/><category term="b"/></entry>'
    )
    for data in (rss20(item), atom10(entry)):
        _, entries, diagnostics, _ = read(data)
        assert len(entries) == 1
        assert "element-repeated" not in codes(diagnostics)


def test_reference_repairs_count_lines_once_across_sections_and_matches() -> None:
    """Lines were counted from the start of the chunk for each CDATA-separated segment and each match (quadratic
    in a large read: 3.2 MB of surrogate references read in 1 MiB chunks took 51 s); counted incrementally now."""
    from feedmap.formats.feeds._repair import ReferenceRepairs

    text = b"".join(b"<![CDATA[\n]]>&#xD800;\n&nbsp;&#55296;\n" if i % 2 else b"&eacute;\n" for i in range(200))
    reporter = Reporter()
    repairs = ReferenceRepairs(io.BytesIO(text), reporter=reporter, name="t")
    assert repairs.read(1 << 20) + repairs.read(1 << 20) == text.replace(b"&#xD800;", b"&#xFFFD;").replace(
        b"&#55296;", b"&#xFFFD;"
    ).replace(b"&nbsp;", b"&#160;").replace(b"&eacute;", b"&#233;")
    lines = [(d.code, d.line) for d in reporter.diagnostics]
    assert lines[:4] == [("html-entity", 1), ("invalid-character", 3), ("html-entity", 4), ("invalid-character", 4)]
    surrogate_lines = [line for code, line in lines if code == "invalid-character"]
    assert surrogate_lines == [line for k in range(100) for line in (4 * k + 3, 4 * k + 4)][: len(surrogate_lines)]


@pytest.mark.parametrize("ror", [False, True])
@pytest.mark.parametrize(
    ("written", "warned"),
    [
        ("Mon, 01 Jan 2024 10:00:00", True),  # no zone: UTC was invented in silence
        ("Mon, 01 Jan 2024 10:00:00 -0000", True),  # RFC 5322 §3.3: "no information about the local time zone"
        ("Mon, 01 Jan 2024 10:00:00 GMT", False),
        ("Mon, 01 Jan 2024 10:00:00 +0000", False),
    ],
)
def test_a_pubdate_without_a_zone_is_read_as_utc_with_a_warning(ror: bool, written: str, warned: bool) -> None:
    namespace = ' xmlns:ror="http://rorweb.com/0.1/"' if ror else ""
    resource = "<ror:resourceOf>sitemap</ror:resourceOf>" if ror else ""
    data = (
        f'<rss version="2.0"{namespace}><channel><title>T</title><link>https://www.example.com/</link>'
        f"<description>D</description>\n<item><title>A</title><link>https://www.example.com/a</link>"
        f"<pubDate>{written}</pubDate>{resource}</item></channel></rss>"
    ).encode()
    _, entries, diagnostics, _ = read(data, "ror" if ror else "rss")
    assert [e.lastmod.text if e.lastmod else None for e in entries] == ["2024-01-01T10:00:00Z"]
    assert [(d.line, d.code) for d in diagnostics if d.code == "date-no-zone"] == [(2, "date-no-zone")] * warned
