"""The ``ror`` format: RSS 2.0 carrying ROR elements (http://rorweb.com/0.1/), read with lxml by namespace URI.

Reading (ROR, rorweb.com): the ROR namespace and its ``www.`` variant under any prefix; ``link`` (else a
permalink guid) -> loc, ``ror:updated`` (exact, wins) else ``pubDate`` -> lastmod, ``ror:updatePeriod`` ->
changefreq (``day`` -> ``daily`` ...; unknown or empty values stay in extras), ``ror:keywords`` split on
commas, ``ror:type`` -> type, ``sitemap:priority`` -> priority, ``image:image`` -> images, every other
``ror:*`` -> ``extras["ror:NAME"]``.  The header item (``ror:about`` sitemap, or type SiteMap/Main on an item
without ``ror:resourceOf``) is document metadata, never an entry.  Text escaped twice is repaired with a
``double-escaped`` warning; CRLF files report the right lines.

Writing: channel, header item, then per entry title, link, guid, description, pubDate, ror:keywords,
ror:updated, ror:updatePeriod, ror:type, ror:resourceOf, sitemap:priority, image:image.  feedparser re-reads
the output with ``bozo == 0``.
"""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Iterable
from pathlib import Path

import feedparser
import pytest
from conftest import codes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from test_roundtrip import ROR_TEXT, entries_for

import feedmap
from feedmap import Alternate, ChangeFreq, Diagnostic, DocMeta, Entry, Image, Level, ReadError, Reporter, W3CDate
from feedmap.cli import main
from feedmap.formats._registry import get
from feedmap.formats.feeds._html import unambiguous_ampersands

ROR = "http://rorweb.com/0.1/"
ROR_WWW = "http://www.rorweb.com/0.1/"
SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML = "http://www.w3.org/1999/xhtml"
ATOM = "http://www.w3.org/2005/Atom"

HEADER = "<item><title>ROR Sitemap</title><link>https://www.example.com/</link>"
HEADER += "<ror:about>sitemap</ror:about><ror:type>SiteMap</ror:type></item>"

# ------------------------------------------------------------------------------------------------ helpers


def ror_doc(items: str, *, namespace: str = ROR, prefix: str = "ror", description: bool = True) -> bytes:
    """A ROR document: ``items`` use the ``ror:`` prefix, renamed to ``prefix`` (and bound to ``namespace``)."""
    channel = "<title>ROR Sitemap for https://www.example.com/</title><link>https://www.example.com/</link>"
    if description:
        channel += "<description>All pages</description>"
    body = items.replace("<ror:", f"<{prefix}:").replace("</ror:", f"</{prefix}:")
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:{prefix}="{namespace}" '
        f'xmlns:sitemap="{SM}" xmlns:image="{IMAGE}" xmlns:xhtml="{XHTML}">\n'
        f"<channel>{channel}\n{body}\n</channel>\n</rss>\n"
    ).encode()


def read(data: bytes, format: str | None = None) -> tuple[DocMeta, list[Entry], list[Diagnostic], str | None]:
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), format=format, reporter=reporter) as doc:
        entries = list(doc)
        return doc.meta, entries, reporter.diagnostics, doc.format


def write_ror(entries: Iterable[Entry]) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    summary = feedmap.write(
        entries, sink, "ror", options=feedmap.Options(keep_urls=True)
    )  # URLs as read: the round trips are exact
    return sink.getvalue(), summary.diagnostics


def items_of(data: bytes) -> list[etree._Element]:
    root = etree.fromstring(data)
    assert root.tag == "rss" and root.get("version") == "2.0"
    channel = root.find("channel")
    assert channel is not None
    return channel.findall("item")


def ror_text(item: etree._Element, name: str) -> str | None:
    return item.findtext(f"{{{ROR}}}{name}")


def assert_feedparser_reads(data: bytes, count: int) -> None:
    parsed = feedparser.parse(data)
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    assert parsed.version == "rss20"
    assert len(parsed.entries) == count + 1  # the header item is an RSS item too


# ------------------------------------------------------------------------------------------------ namespaces, sniffing

NAMESPACE_VARIANTS = [ROR, ROR_WWW, "http://rorweb.com/0.1", "http://www.rorweb.com/0.1"]


@pytest.mark.parametrize("namespace", NAMESPACE_VARIANTS)
@pytest.mark.parametrize("prefix", ["ror", "r", "x"])
def test_read_by_namespace_uri_under_any_prefix(namespace: str, prefix: str) -> None:
    data = ror_doc(
        HEADER + "<item><title>P</title><link>https://www.example.com/p</link>"
        "<ror:updated>2024-01-02</ror:updated><ror:updatePeriod>day</ror:updatePeriod>"
        "<ror:keywords>a, b</ror:keywords><ror:sortOrder>3</ror:sortOrder></item>",
        namespace=namespace,
        prefix=prefix,
    )
    meta, entries, diagnostics, fmt = read(data)
    assert fmt == "ror"
    assert entries == [
        Entry(
            loc="https://www.example.com/p",
            lastmod=W3CDate("2024-01-02"),
            changefreq=ChangeFreq.DAILY,
            title="P",
            keywords=("a", "b"),
            extras={"ror:sortOrder": "3"},
        )
    ]
    assert meta.extras == {"ror:about": "sitemap", "ror:type": "SiteMap", "header:title": "ROR Sitemap"}
    assert diagnostics == []


def test_ror_elements_in_a_default_namespace() -> None:
    data = (
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://a.example/</link>'
        f'<item><link>https://a.example/1</link><updated xmlns="{ROR}">2024</updated></item></channel></rss>'
    ).encode()
    _, entries, _, fmt = read(data, format="ror")
    assert fmt == "ror"
    assert entries == [Entry(loc="https://a.example/1", lastmod=W3CDate("2024"))]


PLAIN_RSS = (
    b'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://a.example/</link>'
    b"<description>D</description><item><title>One</title><link>https://a.example/1</link></item></channel></rss>"
)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (ror_doc(HEADER), "ror"),
        (ror_doc(HEADER, namespace=ROR_WWW, prefix="r"), "ror"),
        (PLAIN_RSS, "rss"),
        (b'<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title></feed>', "rss"),
    ],
    ids=["ror", "ror-www", "plain-rss", "atom"],
)
def test_sniffing_an_rss_root_declaring_ror_is_ror(data: bytes, expected: str) -> None:
    with feedmap.read(io.BytesIO(data)) as doc:
        list(doc)
        assert doc.format == expected


def test_forcing_ror_on_plain_rss_warns_no_ror_namespace() -> None:
    _, entries, diagnostics, fmt = read(PLAIN_RSS, format="ror")
    assert fmt == "ror"
    assert [entry.loc for entry in entries] == ["https://a.example/1"]
    assert codes(diagnostics) == ["no-ror-namespace"]
    assert diagnostics[0].level is Level.WARNING


def test_cli_forcing_ror_on_plain_rss(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "plain.xml"
    source.write_bytes(PLAIN_RSS)
    assert main(["convert", str(source), "-f", "ror", "-t", "jsonl", "-o", str(tmp_path / "out.jsonl")]) == 0
    assert "warning[no-ror-namespace]" in capsys.readouterr().err
    assert main(["convert", str(source), "-f", "ror", "-t", "jsonl", "-o", str(tmp_path / "s.jsonl"), "--strict"]) == 1


def test_ror_needs_an_rss_root() -> None:
    with pytest.raises(ReadError) as caught:
        read(b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>', format="ror")
    assert caught.value.code == "wrong-root"


# ------------------------------------------------------------------------------------------------ the header item


def test_the_header_item_is_metadata_not_an_entry() -> None:
    meta, entries, diagnostics, _ = read(ror_doc(HEADER + "<item><link>https://www.example.com/p</link></item>"))
    assert [entry.loc for entry in entries] == ["https://www.example.com/p"]
    assert (meta.title, meta.link, meta.description) == (
        "ROR Sitemap for https://www.example.com/",
        "https://www.example.com/",
        "All pages",
    )
    assert meta.extras["ror:about"] == "sitemap"
    assert meta.extras["ror:type"] == "SiteMap"
    assert diagnostics == []


@pytest.mark.parametrize(
    "header",
    [
        "<item><link>https://www.example.com/</link><ror:about>sitemap</ror:about></item>",
        "<item><link>https://www.example.com/</link><ror:type>SiteMap</ror:type></item>",
        "<item><link>https://www.example.com/</link><ror:type>Main</ror:type></item>",
    ],
    ids=["about", "type-sitemap", "type-main"],
)
def test_header_items_wherever_they_are(header: str) -> None:
    page = "<item><link>https://www.example.com/p{}</link><ror:resourceOf>sitemap</ror:resourceOf></item>"
    _, entries, _, _ = read(ror_doc(page.format(1) + header + page.format(2)))
    assert [entry.loc for entry in entries] == ["https://www.example.com/p1", "https://www.example.com/p2"]


def test_a_page_typed_main_with_resource_of_stays_a_page() -> None:
    page = (
        "<item><title>Home</title><link>https://www.example.com/</link><ror:type>Main</ror:type>"
        "<ror:resourceOf>sitemap</ror:resourceOf></item>"
    )
    _, entries, _, _ = read(ror_doc(HEADER + page))
    assert entries == [Entry(loc="https://www.example.com/", title="Home", type="Main")]


@pytest.mark.parametrize(
    "entry",
    [
        Entry(loc="https://www.example.com/", title="Home", type="Main"),
        Entry(loc="https://www.example.com/", title="Map", type="SiteMap"),
        Entry(loc="https://www.example.com/", title="About", extras={"ror:about": "sitemap"}),
    ],
    ids=["main", "sitemap", "about-sitemap"],
)
def test_written_pages_never_read_back_as_the_header(entry: Entry) -> None:
    data, _ = write_ror([entry, Entry(loc="https://www.example.com/2", title="Two")])
    _, entries, _, _ = read(data)
    assert entries == [entry, Entry(loc="https://www.example.com/2", title="Two")]


def test_header_metadata_is_known_before_the_entries(tmp_path: Path) -> None:
    """jsonl writes metadata first: the header item's elements reach its header line (and come back)."""
    header = (
        "<item><title>Header title</title><link>https://www.example.com/</link><ror:about>sitemap</ror:about>"
        "<ror:type>SiteMap</ror:type><ror:descLong>All about it</ror:descLong></item>"
    )
    source = tmp_path / "in.xml"
    source.write_bytes(ror_doc(header + "<item><title>P</title><link>https://www.example.com/p</link></item>"))
    jsonl, back = tmp_path / "out.jsonl", tmp_path / "back.xml"
    feedmap.convert(str(source), jsonl, "jsonl")
    first = json.loads(jsonl.read_text("utf-8").splitlines()[0])
    assert first["extras"] == {
        "ror:about": "sitemap",
        "ror:type": "SiteMap",
        "ror:descLong": "All about it",
        "header:title": "Header title",
    }
    feedmap.convert(str(jsonl), back, "ror")
    header_item = items_of(back.read_bytes())[0]
    assert header_item.findtext("title") == "Header title"
    assert ror_text(header_item, "descLong") == "All about it"


# ------------------------------------------------------------------------------------------------ every ror:* mapped


@pytest.mark.parametrize(
    ("period", "expected"),
    [
        *[(member.value, member) for member in ChangeFreq],
        ("day", ChangeFreq.DAILY),
        ("hour", ChangeFreq.HOURLY),
        ("week", ChangeFreq.WEEKLY),
        ("month", ChangeFreq.MONTHLY),
        ("year", ChangeFreq.YEARLY),
        (" weekly ", ChangeFreq.WEEKLY),
    ],
)
def test_update_period_is_changefreq(period: str, expected: ChangeFreq) -> None:
    page = f"<item><link>https://www.example.com/p</link><ror:updatePeriod>{period}</ror:updatePeriod></item>"
    _, entries, diagnostics, _ = read(ror_doc(page))
    assert entries == [Entry(loc="https://www.example.com/p", changefreq=expected)]
    assert diagnostics == []


def test_an_update_period_in_other_case_is_read_with_a_warning() -> None:
    page = "<item><link>https://www.example.com/p</link><ror:updatePeriod>Daily</ror:updatePeriod></item>"
    _, entries, diagnostics, _ = read(ror_doc(page))
    assert entries == [Entry(loc="https://www.example.com/p", changefreq=ChangeFreq.DAILY)]
    assert [d.code for d in diagnostics] == ["changefreq-case"]


def test_an_empty_update_period_is_kept_silently() -> None:
    page = "<item><link>https://www.example.com/p</link><ror:updatePeriod></ror:updatePeriod></item>"
    _, entries, diagnostics, _ = read(ror_doc(page))
    assert entries == [Entry(loc="https://www.example.com/p", extras={"ror:updatePeriod": ""})]
    assert diagnostics == []


def test_an_unknown_update_period_is_kept_in_extras_with_a_warning() -> None:
    page = "<item><link>https://www.example.com/p</link><ror:updatePeriod>fortnightly</ror:updatePeriod></item>"
    _, entries, diagnostics, _ = read(ror_doc(page))
    assert entries == [Entry(loc="https://www.example.com/p", extras={"ror:updatePeriod": "fortnightly"})]
    assert codes(diagnostics) == ["changefreq-invalid"]


def test_keywords_are_split_on_commas() -> None:
    page = (
        "<item><link>https://www.example.com/p</link><ror:keywords> tea, biscuits ,,  loose tea, </ror:keywords></item>"
    )
    _, entries, _, _ = read(ror_doc(page))
    assert entries[0].keywords == ("tea", "biscuits", "loose tea")


def test_every_ror_element_has_a_place() -> None:
    page = (
        "<item><title>T</title><link>https://www.example.com/p</link><description>D</description>"
        "<ror:keywords>k</ror:keywords><ror:updated>2024-05</ror:updated><ror:updatePeriod>month</ror:updatePeriod>"
        "<ror:type>Product</ror:type><ror:sortOrder>2</ror:sortOrder><ror:resourceOf>sitemap</ror:resourceOf>"
        "<ror:seeAlso>https://www.example.com/more</ror:seeAlso><ror:descLong>Long text</ror:descLong>"
        "<ror:price>9.99</ror:price><ror:currency>EUR</ror:currency></item>"
    )
    _, entries, diagnostics, _ = read(ror_doc(page))
    assert entries == [
        Entry(
            loc="https://www.example.com/p",
            lastmod=W3CDate("2024-05"),
            changefreq=ChangeFreq.MONTHLY,
            title="T",
            description="D",
            keywords=("k",),
            type="Product",
            extras={
                "ror:sortOrder": "2",
                "ror:seeAlso": "https://www.example.com/more",
                "ror:descLong": "Long text",
                "ror:price": "9.99",
                "ror:currency": "EUR",
            },
        )
    ]
    assert diagnostics == []


def test_a_resource_of_other_than_the_sitemap_is_kept() -> None:
    page = "<item><link>https://www.example.com/p</link><ror:resourceOf>catalog</ror:resourceOf></item>"
    _, entries, _, _ = read(ror_doc(page))
    assert entries[0].extras == {"ror:resourceOf": "catalog"}
    data, _ = write_ror(entries)
    assert [ror_text(item, "resourceOf") for item in items_of(data)[1:]] == ["catalog"]


def test_ror_updated_wins_over_pubdate_and_pubdate_stands_in() -> None:
    pages = (
        "<item><link>https://www.example.com/1</link><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate>"
        "<ror:updated>2024-02-03T04:05:06.789+05:30</ror:updated></item>"
        "<item><link>https://www.example.com/2</link><pubDate>Tue, 02 Apr 2024 09:30:00 +0200</pubDate></item>"
        "<item><link>https://www.example.com/3</link><pubDate>Tue, 02 Apr 2024 09:30:00 +0200</pubDate>"
        "<ror:updated>not a date</ror:updated></item>"
    )
    _, entries, diagnostics, _ = read(ror_doc(pages))
    assert [entry.lastmod for entry in entries] == [
        W3CDate("2024-02-03T04:05:06.789+05:30"),
        W3CDate("2024-04-02T09:30:00+02:00"),
        W3CDate("2024-04-02T09:30:00+02:00"),
    ]
    assert codes(diagnostics) == ["lastmod-invalid"]


def test_priority_images_and_alternates_are_read_from_their_namespaces() -> None:
    page = (
        "<item><link>https://www.example.com/p</link><ror:sortOrder>0.9</ror:sortOrder>"
        "<sitemap:priority>0.3</sitemap:priority><sitemap:changefreq>yearly</sitemap:changefreq>"
        "<image:image><image:loc>https://www.example.com/i.png</image:loc><image:caption>C</image:caption></image:image>"
        '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/p"/></item>'
    )
    _, entries, _, _ = read(ror_doc(page))
    assert entries == [
        Entry(
            loc="https://www.example.com/p",
            priority=0.3,
            changefreq=ChangeFreq.YEARLY,
            images=(Image(loc="https://www.example.com/i.png", caption="C"),),
            alternates=(Alternate(hreflang="de", href="https://www.example.com/de/p"),),
            extras={"ror:sortOrder": "0.9"},
        )
    ]


def test_a_permalink_guid_stands_in_for_a_missing_link() -> None:
    pages = (
        "<item><title>G</title><guid>https://www.example.com/g</guid></item>"
        '<item><title>Opaque</title><guid isPermaLink="false">https://www.example.com/x</guid></item>'
    )
    _, entries, diagnostics, _ = read(ror_doc(pages))
    assert [entry.loc for entry in entries] == ["https://www.example.com/g"]
    assert codes(diagnostics) == ["loc-missing"]


# ------------------------------------------------------------------------------------------------ wild text


def test_double_escaped_text_is_repaired_with_a_warning() -> None:
    page = (
        "<item>\n<link>https://www.example.com/p?a=1&amp;amp;b=2</link>\n"
        "<title>Tea &amp;amp; Biscuits</title>\n<description>friend&amp;#x27;s &amp;lt;b&amp;gt;</description>\n"
        "<ror:keywords>salt &amp;amp; pepper, herbs</ror:keywords>\n</item>"
    )
    _, entries, diagnostics, _ = read(ror_doc(page))
    assert entries == [
        Entry(
            # URLs are never touched
            loc="https://www.example.com/p?a=1&amp;b=2",
            title="Tea & Biscuits",
            description="friend's <b>",
            keywords=("salt & pepper", "herbs"),
        )
    ]
    assert sorted((d.line, d.code) for d in diagnostics) == [
        (6, "double-escaped"),
        (7, "double-escaped"),
        (8, "double-escaped"),
    ]


def test_singly_escaped_text_is_left_alone() -> None:
    _, entries, diagnostics, _ = read(
        ror_doc("<item><link>https://www.example.com/p</link><title>A &amp; B &lt;C&gt;</title></item>")
    )
    assert entries[0].title == "A & B <C>"
    assert diagnostics == []


def test_crlf_files_report_the_same_lines() -> None:
    pages = (
        "<item>\n<link>https://www.example.com/1</link>\n<title>A &amp;amp; B</title>\n</item>\n"
        "<item>\n<link>https://www.example.com/2</link>\n<ror:updatePeriod>often</ror:updatePeriod>\n</item>"
    )
    lf = ror_doc(pages)
    crlf = lf.replace(b"\n", b"\r\n")
    _, lf_entries, lf_diagnostics, _ = read(lf)
    _, crlf_entries, crlf_diagnostics, _ = read(crlf)
    assert crlf_entries == lf_entries
    lines = [(d.line, d.code) for d in crlf_diagnostics]
    assert lines == [(d.line, d.code) for d in lf_diagnostics]
    text = lf.decode()
    expected = [
        (text[: text.index("A &amp;amp;")].count("\n") + 1, "double-escaped"),
        (text[: text.index("<ror:updatePeriod>often")].count("\n") + 1, "changefreq-invalid"),
    ]
    assert sorted(lines) == expected


def test_the_sample_keeps_its_crlf_line_ends(samples_dir: Path) -> None:
    """samples/ror/site.xml must keep CRLF (a checkout that converts line ends would hide the CRLF case)."""
    data = (samples_dir / "ror" / "site.xml").read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n") > 10


def test_a_missing_channel_description_is_read_as_none_and_written_as_text() -> None:
    meta, entries, _, _ = read(
        ror_doc(HEADER + "<item><link>https://www.example.com/p</link></item>", description=False)
    )
    assert meta.description is None
    assert [entry.loc for entry in entries] == ["https://www.example.com/p"]
    sink = io.BytesIO()
    with feedmap.read(io.BytesIO(ror_doc(HEADER, description=False))) as doc:
        feedmap.write(doc, sink, "ror")
    channel = etree.fromstring(sink.getvalue()).find("channel")
    assert channel is not None and (channel.findtext("description") or "").strip()


# ------------------------------------------------------------------------------------------------ writing

FULL = Entry(
    loc="https://www.example.com/a?x=1&y=2",
    lastmod=W3CDate("2024-04-01T08:15:30.25Z"),
    changefreq=ChangeFreq.MONTHLY,
    priority=0.8,
    title="A & B",
    description="About <A>",
    keywords=("k1", "k 2"),
    type="Article",
    images=(Image(loc="https://www.example.com/i.png", caption="Cap", title="T"),),
    alternates=(Alternate(hreflang="de", href="https://www.example.com/de/a"),),
    extras={"ror:sortOrder": "4"},
)


def test_written_structure_header_then_entries_in_order() -> None:
    data, _ = write_ror([FULL, Entry(loc="https://www.example.com/bare")])
    root = etree.fromstring(data)
    channel = root.find("channel")
    assert channel is not None
    for name in ("title", "link", "description"):
        assert (channel.findtext(name) or "").strip()
    header, full, bare = items_of(data)
    assert (ror_text(header, "about"), ror_text(header, "type")) == ("sitemap", "SiteMap")
    assert header.findtext("link") == channel.findtext("link") == "https://www.example.com/"
    assert [etree.QName(child).text for child in full] == [
        f"{{{ATOM}}}link",  # hreflang alternates first: feedparser would take the last as the item's link
        "title",
        "link",
        "guid",
        "description",
        "pubDate",
        f"{{{ROR}}}keywords",
        f"{{{ROR}}}updated",
        f"{{{ROR}}}updatePeriod",
        f"{{{ROR}}}type",
        f"{{{ROR}}}resourceOf",
        f"{{{SM}}}priority",
        f"{{{IMAGE}}}image",
        f"{{{ROR}}}sortOrder",
    ]
    assert full.findtext("link") == full.findtext("guid") == FULL.loc
    guid = full.find("guid")
    assert guid is not None and guid.get("isPermaLink") == "true"
    assert ror_text(full, "keywords") == "k1, k 2"
    assert ror_text(full, "updated") == "2024-04-01T08:15:30.25Z"
    assert full.findtext("pubDate") == "Mon, 01 Apr 2024 08:15:30 GMT"
    assert ror_text(full, "updatePeriod") == "monthly"
    assert ror_text(full, "resourceOf") == "sitemap"
    # an entry without title or description gets its URL as title (RSS wants one of the two)
    assert bare.findtext("title") == "https://www.example.com/bare"
    assert ror_text(bare, "resourceOf") == "sitemap"


def test_written_entries_read_back_exactly() -> None:
    data, _ = write_ror([FULL])
    _, entries, diagnostics, fmt = read(data)
    assert fmt == "ror"
    assert entries == [FULL]
    assert diagnostics == []


@pytest.mark.parametrize("priority", [0.0, 0.1, 0.123456789, 1 / 3, 0.5, 1.0])
def test_priority_is_kept_losslessly(priority: float) -> None:
    data, _ = write_ror([Entry(loc="https://www.example.com/", title="t", priority=priority)])
    _, entries, _, _ = read(data)
    assert entries[0].priority == priority


def test_round_trips_neither_gain_nor_lose_entries() -> None:
    entries = [Entry(loc=f"https://www.example.com/{n}", type=kind) for n, kind in enumerate(["Main", None, "SiteMap"])]
    data, _ = write_ror(entries)
    _, once, _, _ = read(data)
    again, _ = write_ror(once)
    _, twice, _, _ = read(again)
    assert [entry.loc for entry in once] == [entry.loc for entry in twice] == [entry.loc for entry in entries]
    assert again == data


def test_no_entries_write_only_the_header_item() -> None:
    data, diagnostics = write_ror([])
    assert len(items_of(data)) == 1
    assert "empty-document" in codes(diagnostics)
    _, entries, _, _ = read(data)
    assert entries == []


def test_text_extras_outside_ror_are_reported_once() -> None:
    entries = [Entry(loc=f"https://www.example.com/{n}", title="t", extras={"x:note": "n"}) for n in range(3)]
    data, diagnostics = write_ror(entries)
    assert [d.code for d in diagnostics if d.code == "field-dropped"] == ["field-dropped"]
    assert b"note" not in data


# ------------------------------------------------------------------------------------------------ feedparser re-reads


def test_feedparser_reads_the_written_samples(samples_dir: Path) -> None:
    inputs = [
        samples_dir / "sitemap" / "basic.xml",
        samples_dir / "ror" / "site.xml",
        samples_dir / "rss" / "feed.xml",
        samples_dir / "jsonl" / "entries.jsonl",
    ]
    for source in inputs:
        sink = io.BytesIO()
        feedmap.convert(str(source), sink, "ror")
        with feedmap.read(io.BytesIO(sink.getvalue())) as doc:
            count = len(list(doc))
            assert doc.format == "ror"
        assert_feedparser_reads(sink.getvalue(), count)


def test_the_ror_golden_is_read_by_feedparser(samples_dir: Path) -> None:
    assert_feedparser_reads((samples_dir / "sitemap" / "basic.expected.ror.xml").read_bytes(), 4)


ROR_EXTRAS = st.dictionaries(
    st.sampled_from(["ror:sortOrder", "ror:seeAlso", "ror:descLong", "ror:price", "ror:about"]),
    ROR_TEXT | st.just(""),
    max_size=3,
)


@st.composite
def ror_entries(draw: st.DrawFn) -> Entry:
    """Entries the ror format holds exactly, with ror:* text extras besides the verbatim XML ones."""
    entry = draw(entries_for(get("ror")))
    return dataclasses.replace(entry, extras={**entry.extras, **draw(ROR_EXTRAS)})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=st.lists(ror_entries(), max_size=4, unique_by=lambda e: e.loc))
def test_what_we_write_reads_back_and_feedparser_reads_it(entries: list[Entry]) -> None:
    data, _ = write_ror(entries)
    assert_feedparser_reads(data, len(entries))
    _, back, _, fmt = read(data)
    assert fmt == "ror"
    # a description is HTML: an ``&`` that starts no reference (``&0``) is written, and so read back, ``&amp;``
    assert back == [as_written_html(entry) for entry in entries]


def as_written_html(entry: Entry) -> Entry:
    """``entry`` as a feed writer spells its description (the same HTML text)."""
    if entry.description is None:
        return entry
    return dataclasses.replace(entry, description=unambiguous_ampersands(entry.description))


# ------------------------------------------------------------------------------------------------ reading repairs


def test_a_field_given_twice_in_an_item_keeps_the_first_and_is_reported() -> None:
    item = (
        "<item><link>https://www.example.com/a</link>\n<link>https://www.example.com/b</link>"
        "<ror:updated>2024-01-02</ror:updated><ror:updated>2025-01-01</ror:updated>"
        "<sitemap:priority>0.3</sitemap:priority><sitemap:priority>0.9</sitemap:priority>"
        "<category>x</category><category>y</category></item>"
    )
    _, entries, diagnostics, _ = read(ror_doc(HEADER + item))
    assert [(e.loc, e.lastmod, e.priority, e.keywords) for e in entries] == [
        ("https://www.example.com/a", W3CDate("2024-01-02"), 0.3, ("x", "y"))
    ]
    duplicates = [d for d in diagnostics if d.code == "element-repeated"]
    assert [d.line for d in duplicates] == [5, 5, 5]
    assert "<link>" in duplicates[0].message and "<item> at line 4" in duplicates[0].message


def test_a_surrogate_namespace_in_an_item_is_no_crash() -> None:
    item = '<item><link>https://www.example.com/a</link><x:y xmlns:x="&#xD800;">v</x:y></item>'
    _, entries, diagnostics, _ = read(ror_doc(HEADER + item))
    assert [e.loc for e in entries] == ["https://www.example.com/a"]
    assert "invalid-char-ref" in codes(diagnostics)
    assert "xml-not-well-formed" not in codes(diagnostics)


def test_a_link_with_an_unexpanded_entity_is_never_a_url() -> None:
    data = ror_doc(HEADER + "<item><link>https://www.example.com/&page;</link></item>").replace(
        b"<rss", b'<!DOCTYPE rss [<!ENTITY page "p.html">]>\n<rss', 1
    )
    _, entries, diagnostics, _ = read(data, format="ror")
    assert entries == []
    assert codes(diagnostics).count("unresolved-entity") == 2  # the reference, and the link that is not used
    assert "doctype-ignored" in codes(diagnostics)


@pytest.mark.parametrize(
    ("written", "expected", "code"), [("+.5", 0.5, "priority-normalised"), ("1e-1", None, "priority-invalid")]
)
def test_priority_is_read_as_an_xsd_decimal(written: str, expected: float | None, code: str) -> None:
    item = f"<item><link>https://www.example.com/a</link><sitemap:priority>{written}</sitemap:priority></item>"
    _, entries, diagnostics, _ = read(ror_doc(HEADER + item))
    assert entries[0].priority == expected
    assert code in codes(diagnostics)


def test_a_field_holding_an_element_is_not_cut_at_it() -> None:
    """<link>https://e.com/b<x/>z</link> was read as https://e.com/b (lxml's .text stops at the element)."""
    data = ror_doc(
        HEADER
        + "<item><link>https://www.example.com/b<x/>z</link></item>"
        + "<item><link>https://www.example.com/c</link><ror:updatePeriod>da<x/>y</ror:updatePeriod></item>"
    )
    _, entries, diagnostics, _ = read(data)
    assert [(e.loc, e.changefreq, e.extras) for e in entries] == [("https://www.example.com/c", None, {})]
    assert codes(diagnostics).count("unknown-element") == 2


def test_a_ror_text_extra_repeating_a_field_of_the_entry_is_not_written_twice() -> None:
    """changefreq and extras["ror:updatePeriod"] both became <ror:updatePeriod>: two values, one item."""
    entry = Entry(
        loc="https://www.example.com/a",
        lastmod=W3CDate("2024-01-01"),
        changefreq=ChangeFreq.DAILY,
        extras={"ror:updatePeriod": "weekly", "ror:updated": "2020-01-01", "ror:about": "page"},
    )
    data, diagnostics = write_ror([entry])
    (item,) = [i for i in items_of(data) if i.findtext("link") == "https://www.example.com/a"]
    assert [child.text for child in item.iter(f"{{{ROR}}}updatePeriod")] == ["daily"]
    assert [child.text for child in item.iter(f"{{{ROR}}}updated")] == ["2024-01-01"]
    assert [child.text for child in item.iter(f"{{{ROR}}}about")] == ["page"]
    assert codes(diagnostics).count("invalid-extra") == 2
    assert [(e.changefreq, e.extras.get("ror:about")) for e in read(data)[1]] == [(ChangeFreq.DAILY, "page")]


def _ror_of(entries: list[Entry]) -> bytes:
    sink = io.BytesIO()
    feedmap.write(entries, sink, "ror")
    return sink.getvalue()


def test_feedmaps_own_text_holding_an_escape_reads_back_as_written_strictly() -> None:
    """Text that holds ``&amp;`` is written ``&amp;amp;``; in feedmap's own output (its ``<generator>``) that is
    the text escaped once, read back as written even under strict, not undone as wild double escaping."""
    entries = [
        Entry(loc="https://e.com/a", title="Tom &amp; Jerry", description="&#65; &lt;b&gt;", keywords=("R&amp;D",))
    ]
    data = _ror_of(entries)
    assert b"<generator>feedmap</generator>" in data
    with feedmap.read(io.BytesIO(data), "ror", feedmap.Options(strict=True)) as doc:
        (entry,) = list(doc)
    assert (entry.title, entry.description, entry.keywords) == ("Tom &amp; Jerry", "&#65; &lt;b&gt;", ("R&amp;D",))


def test_the_same_text_from_another_generator_is_undone_as_double_escaping() -> None:
    data = _ror_of([Entry(loc="https://e.com/a", title="Tom &amp; Jerry")])
    reporter = Reporter()
    for other in (b"<generator>Joomla RSSeo</generator>", b""):
        with feedmap.read(io.BytesIO(data.replace(b"<generator>feedmap</generator>", other)), "ror",
                          reporter=reporter) as doc:  # fmt: skip
            (entry,) = list(doc)
        assert entry.title == "Tom & Jerry"
    assert [d.code for d in reporter.diagnostics if d.level >= Level.WARNING] == ["double-escaped"] * 2
