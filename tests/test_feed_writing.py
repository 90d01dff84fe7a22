"""What the W3C Feed Validator asks of written RSS 2.0 and ROR (issue 9), on small hand-made inputs.

* the channel's last update (``lastBuildDate``, Atom feed ``updated``) is kept and written (``SlashDate``);
* a sitemap's hreflang alternates are ``atom:link rel="alternate" hreflang`` in RSS items, read back as
  alternates (``MisplacedXHTMLContent``); the older ``xhtml:link`` is still read;
* titles and the channel description are plain text: HTML markup in them is written as its text
  (``ContainsHTML``, diagnostic ``markup-in-text``);
* item descriptions are sanitized HTML: what is not HTML (MathML, SVG, unknown elements, scripts) is
  removed (``NotHtml``, diagnostic ``html-sanitized``), ordinary HTML is written as it is.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

import feedparser
import lxml.html
import pytest
from conftest import codes
from lxml import etree

import feedmap
from feedmap import Alternate, Diagnostic, DocKind, DocMeta, Document, Entry, Reporter, W3CDate

ATOM = "http://www.w3.org/2005/Atom"
XHTML = "http://www.w3.org/1999/xhtml"
SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
FEEDS = ("rss", "ror")


def convert(data: bytes, target: str, source: str | None = None) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    reporter = Reporter()
    feedmap.convert(io.BytesIO(data), sink, target, source_format=source, reporter=reporter)
    return sink.getvalue(), reporter.diagnostics


def write(doc: Document | Iterable[Entry], target: str) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    summary = feedmap.write(doc, sink, target, feedmap.Options(keep_urls=True))
    return sink.getvalue(), summary.diagnostics


def read(data: bytes, format: str | None = None) -> tuple[DocMeta, list[Entry]]:
    with feedmap.read(io.BytesIO(data), format=format, reporter=Reporter()) as doc:
        return doc.meta, list(doc)


def channel_of(data: bytes) -> etree._Element:
    channel = etree.fromstring(data).find("channel")
    assert channel is not None
    return channel


def pages(data: bytes) -> list[etree._Element]:
    """The items of a written feed that are pages (not ROR's header item)."""
    return [item for item in channel_of(data).findall("item") if item.findtext("guid", "").find("#ror-sitemap") < 0]


# ----------------------------------------------------------------------------------- the channel's last update

RSS_BUILD_DATE = b"""<?xml version="1.0"?>
<rss version="2.0"><channel><title>T</title><link>https://www.example.com/</link><description>D</description>
<lastBuildDate>Thu, 24 Apr 2008 21:51:40 GMT</lastBuildDate>
<item><link>https://www.example.com/a</link><title>A</title></item>
</channel></rss>
"""
ATOM_UPDATED = f"""<?xml version="1.0"?>
<feed xmlns="{ATOM}"><title>T</title><id>urn:x</id><updated>2008-04-24T23:51:40+02:00</updated>
<entry><title>A</title><link href="https://www.example.com/a"/><id>urn:a</id></entry>
</feed>
""".encode()


def test_rss_last_build_date_is_read_into_the_document_metadata() -> None:
    meta, _ = read(RSS_BUILD_DATE)
    assert meta.updated == W3CDate("2008-04-24T21:51:40Z")


def test_atom_feed_updated_is_read_into_the_document_metadata() -> None:
    meta, _ = read(ATOM_UPDATED)
    assert meta.updated is not None and meta.updated.text == "2008-04-24T23:51:40+02:00"


def test_the_feedparser_path_reads_the_last_build_date_too() -> None:
    broken = RSS_BUILD_DATE.replace(b"<title>A</title>", b"<title>A &broken</title>")  # not well-formed
    meta, entries = read(broken)
    assert len(entries) == 1
    assert meta.updated == W3CDate("2008-04-24T21:51:40Z")


@pytest.mark.parametrize("target", FEEDS)
@pytest.mark.parametrize(
    ("data", "expected"),
    [(RSS_BUILD_DATE, "Thu, 24 Apr 2008 21:51:40 GMT"), (ATOM_UPDATED, "Thu, 24 Apr 2008 23:51:40 +0200")],
)
def test_the_channel_last_update_is_written_as_last_build_date(data: bytes, expected: str, target: str) -> None:
    out, _ = convert(data, target)
    assert channel_of(out).findtext("lastBuildDate") == expected
    meta, _ = read(out, target)
    assert meta.updated is not None and meta.updated.to_datetime() == W3CDate("2008-04-24T21:51:40Z").to_datetime()


@pytest.mark.parametrize("target", FEEDS)
def test_no_last_build_date_without_a_channel_date(target: str) -> None:
    out, _ = write([Entry(loc="https://www.example.com/a")], target)
    assert channel_of(out).find("lastBuildDate") is None


# ------------------------------------------------------------------------------------------ hreflang alternates

SITEMAP_ALTERNATES = f"""<?xml version="1.0"?>
<urlset xmlns="{SM}" xmlns:xhtml="{XHTML}">
<url><loc>https://www.example.com/en/p</loc>
<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/p?a=1&amp;b=2"/>
<xhtml:link rel="alternate" hreflang="x-default" href="https://www.example.com/p"/></url>
</urlset>
""".encode()
ALTERNATES = (
    Alternate(hreflang="de", href="https://www.example.com/de/p?a=1&b=2"),
    Alternate(hreflang="x-default", href="https://www.example.com/p"),
)


@pytest.mark.parametrize("target", FEEDS)
def test_alternates_are_atom_links_in_feed_items(target: str) -> None:
    out, _ = convert(SITEMAP_ALTERNATES, target)
    (item,) = pages(out)
    assert item.findall(f"{{{XHTML}}}link") == []
    links = item.findall(f"{{{ATOM}}}link")
    assert [(link.get("rel"), link.get("hreflang"), link.get("href")) for link in links] == [
        ("alternate", "de", "https://www.example.com/de/p?a=1&b=2"),
        ("alternate", "x-default", "https://www.example.com/p"),
    ]
    # feedparser (and readers like it) still take the item's <link>, not an alternate, as its link
    parsed = feedparser.parse(out)
    assert parsed.bozo == 0
    assert [entry.get("link") for entry in parsed.entries][-1] == "https://www.example.com/en/p"


@pytest.mark.parametrize("target", FEEDS)
def test_sitemap_alternates_survive_a_feed_round_trip(target: str) -> None:
    out, _ = convert(SITEMAP_ALTERNATES, target)
    _, entries = read(out, target)
    assert [entry.alternates for entry in entries] == [ALTERNATES]
    back, _ = convert(out, "sitemap", target)
    _, again = read(back, "sitemap")
    assert [(entry.loc, entry.alternates) for entry in again] == [("https://www.example.com/en/p", ALTERNATES)]


@pytest.mark.parametrize("target", FEEDS)
def test_xhtml_link_alternates_in_feed_items_are_still_read(target: str) -> None:
    ror = ' xmlns:ror="http://rorweb.com/0.1/"' if target == "ror" else ""
    data = (
        f'<rss version="2.0" xmlns:xhtml="{XHTML}"{ror}><channel><title>T</title>'
        "<link>https://www.example.com/</link><description>D</description><item>"
        "<link>https://www.example.com/en/p</link>"
        '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/p?a=1&amp;b=2"/>'
        '<xhtml:link rel="alternate" hreflang="x-default" href="https://www.example.com/p"/>'
        "</item></channel></rss>"
    ).encode()
    _, entries = read(data, target)
    assert [entry.alternates for entry in entries] == [ALTERNATES]


def test_an_atom_link_with_hreflang_is_no_candidate_for_the_item_link_in_rss() -> None:
    data = (
        f'<rss version="2.0" xmlns:atom="{ATOM}"><channel><title>T</title><link>https://www.example.com/</link>'
        "<description>D</description><item><title>P</title>"
        '<atom:link rel="alternate" hreflang="de" href="https://www.example.com/de/p"/>'
        "<link>https://www.example.com/en/p</link></item></channel></rss>"
    ).encode()
    _, entries = read(data, "rss")
    assert [(entry.loc, entry.alternates) for entry in entries] == [
        ("https://www.example.com/en/p", (Alternate(hreflang="de", href="https://www.example.com/de/p"),))
    ]


# ------------------------------------------------------------------------------------------- plain-text titles

TITLE_BASE64 = f"""<feed xmlns="{ATOM}">
<title type="application/octet-stream">RXhhbXBsZSA8Yj5BdG9tPC9iPg==</title>
<subtitle type="application/octet-stream">PHA+SGlzdG9yeSBvZiB0aGUgJmx0O2JsaW5rJmd0OyB0YWc8L3A+</subtitle>
<entry><title>E</title><link href="https://www.example.com/e"/><id>urn:e</id></entry>
</feed>""".encode()


@pytest.mark.parametrize("target", FEEDS)
def test_decoded_markup_in_channel_title_and_subtitle_is_written_as_text(target: str) -> None:
    out, diagnostics = convert(TITLE_BASE64, target)
    channel = channel_of(out)
    assert channel.findtext("title") == "Example Atom"
    assert channel.findtext("description") == "History of the <blink> tag"
    assert b"</b>" not in out and b"</p>" not in out
    assert codes(diagnostics).count("markup-in-text") >= 2


@pytest.mark.parametrize("target", FEEDS)
def test_a_channel_description_of_naked_markup_is_written_as_text(target: str) -> None:
    data = b'<rss version="2.0"><channel><description><p>Example description</p></description></channel></rss>'
    meta, _ = read(data, "rss")
    assert meta.description == "<p>Example description</p>"
    out, diagnostics = write(Document(meta, [Entry(loc="https://www.example.com/a")]), target)
    assert channel_of(out).findtext("description") == "Example description"
    assert "markup-in-text" in codes(diagnostics)


@pytest.mark.parametrize("target", FEEDS)
def test_an_item_title_with_html_markup_is_written_as_text(target: str) -> None:
    out, diagnostics = write([Entry(loc="https://www.example.com/a", title="Example <b>bold</b> title")], target)
    (item,) = pages(out)
    assert item.findtext("title") == "Example bold title"
    assert "markup-in-text" in codes(diagnostics)


@pytest.mark.parametrize("target", FEEDS)
def test_a_character_xml_cannot_hold_in_markup_is_reported_not_a_failure(target: str) -> None:
    """The HTML parsers cannot take a lone surrogate: it is dropped and reported before they run."""
    entry = Entry(loc="https://www.example.com/a", title="A\ud800 <b>b</b>", description="<svg></svg>\ud800d\x01")
    out, diagnostics = write([entry], target)
    (item,) = pages(out)
    assert (item.findtext("title"), item.findtext("description")) == ("A b", "d")
    dropped = [d.message for d in diagnostics if d.code == "character-dropped"]
    assert len(dropped) == 2 and "U+D800" in dropped[0] and "U+0001" in dropped[1]


@pytest.mark.parametrize("target", FEEDS)
@pytest.mark.parametrize(
    "title", ["a < b && c > d", "Use the <br> tag", "Tom &amp; Jerry", "</notatag>", "<b></b>", "<p> </p>"]
)
def test_a_title_without_html_markup_holding_text_is_written_as_it_is(title: str, target: str) -> None:
    out, diagnostics = write([Entry(loc="https://www.example.com/a", title=title)], target)
    (item,) = pages(out)
    assert item.findtext("title") == title
    assert "markup-in-text" not in codes(diagnostics)


# ----------------------------------------------------------------------------------- sanitized descriptions

ORDINARY_HTML = (
    '<p>Some <em>text</em> and <strong>more</strong>, <a href="https://www.example.com/x">a link</a>.</p>'
    '<img src="https://www.example.com/i.png" alt="i"><ul><li>one</li><li>two</li></ul>'
    "<table><tbody><tr><td>cell</td></tr></tbody></table>"
)


def description_of(description: str, target: str) -> tuple[str | None, list[Diagnostic]]:
    out, diagnostics = write(
        Document(DocMeta(kind=DocKind.FEED), [Entry(loc="https://www.example.com/a", description=description)]), target
    )
    (item,) = pages(out)
    return item.findtext("description"), diagnostics


@pytest.mark.parametrize("target", FEEDS)
@pytest.mark.parametrize(
    ("description", "expected", "removed"),
    [
        (
            'This is <mathml xmlns="http://www.w3.org/1998/Math/MathML"><none bogus="true">MathML</none></mathml>'
            " content.",
            "This is  content.",
            "<mathml>, <none>",
        ),
        ("This is <svg><circle r='1'/></svg> content.", "This is  content.", "<circle>, <svg>"),
        ("This is <bogus/> content.", "This is  content.", "<bogus>"),
        ("<plaintext>", "", "<plaintext>"),
        ("<p onclick='x()'>Hi</p><script>alert(1)</script>", "<p>Hi</p>", "<script>, p@onclick"),
        ('<a href="javascript:alert(1)">l</a>', "<a>l</a>", "a@href=javascript:"),
    ],
)
def test_what_is_not_html_is_removed_from_descriptions(
    description: str, expected: str, removed: str, target: str
) -> None:
    written, diagnostics = description_of(description, target)
    assert written == expected
    messages = [d.message for d in diagnostics if d.code == "html-sanitized"]
    assert len(messages) == 1 and removed in messages[0]


@pytest.mark.parametrize("target", FEEDS)
@pytest.mark.parametrize(
    "description",
    [
        *(ORDINARY_HTML, "Tom & Jerry", "a < b", "Tom &amp; Jerry", "&copyright", "&hellip; &#38; &#x26;"),
        *("plain", "<b>unclosed", "<!-- c -->"),
    ],
)
def test_ordinary_html_and_text_descriptions_are_written_as_they_are(description: str, target: str) -> None:
    written, diagnostics = description_of(description, target)
    assert written == description
    assert "html-sanitized" not in codes(diagnostics)


@pytest.mark.parametrize("target", FEEDS)
@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("Paws&Toebeans", "Paws&amp;Toebeans"),  # the validator's NotHtml (html5lib: a named entity expected)
        ("<p>Paws&Toebeans &amp; co</p>", "<p>Paws&amp;Toebeans &amp; co</p>"),
        ('<a href="https://e.com/?a=1&b=2">l</a>', '<a href="https://e.com/?a=1&amp;b=2">l</a>'),
        ("&hellipx; &#x; &#; &1st", "&amp;hellipx; &amp;#x; &amp;#; &amp;1st"),
    ],
)
def test_an_ampersand_that_starts_no_character_reference_is_written_as_amp(
    description: str, expected: str, target: str
) -> None:
    """Read as HTML, ``&amp;`` is the text ``&`` that the bare ``&`` also is (HTML standard, "named character
    reference state"): the same description, without the parse error a strict HTML parser reports."""
    written, diagnostics = description_of(description, target)
    assert written == expected
    assert lxml.html.fragment_fromstring(written, create_parent="div").text_content() == (
        lxml.html.fragment_fromstring(description, create_parent="div").text_content()
    )
    assert "html-sanitized" not in codes(diagnostics)


# ---------------------------------------------------------------------------- XHTML elements that are no alternates

SITEMAP_OTHER_LINKS = f"""<?xml version="1.0"?>
<urlset xmlns="{SM}" xmlns:xhtml="{XHTML}">
<url><loc>https://www.example.com/en/p</loc>
<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/p"/>
<xhtml:link rel="amphtml" href="https://www.example.com/amp/p"/>
<xhtml:link rel="alternate" href="android-app://com.example/p"/></url>
</urlset>
""".encode()


@pytest.mark.parametrize("target", FEEDS)
def test_xhtml_elements_that_are_no_alternates_are_left_out_of_feed_items(target: str) -> None:
    """An ``xhtml:link`` that is no hreflang alternate is kept verbatim (an extra); an RSS item cannot hold
    XHTML (the validator's ``MisplacedXHTMLContent``), so it is left out, reported once each."""
    out, diagnostics = convert(SITEMAP_OTHER_LINKS, target)
    (item,) = pages(out)
    assert [element for element in item.iter() if str(element.tag).startswith(f"{{{XHTML}}}")] == []
    assert XHTML.encode() not in out
    dropped = [d for d in diagnostics if d.code == "extra-dropped"]
    assert len(dropped) == 1 and "XHTML" in dropped[0].message  # one extra holds both links
    _, entries = read(out, target)
    assert [(entry.alternates, entry.extras) for entry in entries] == [
        ((Alternate(hreflang="de", href="https://www.example.com/de/p"),), {})
    ]


@pytest.mark.parametrize("target", FEEDS)
def test_an_xhtml_link_of_another_relation_is_no_alternate_in_feed_items(target: str) -> None:
    """Only ``rel="alternate"`` makes an hreflang alternate (Google's localized versions); the ror reader
    took any ``xhtml:link`` with ``hreflang`` for one, so ``ror -> sitemap`` turned an AMP page into the
    English version.  Both feed readers read it through the hreflang extension now: kept as it is."""
    ror = ' xmlns:ror="http://rorweb.com/0.1/"' if target == "ror" else ""
    amp = '<xhtml:link rel="amphtml" hreflang="en" href="https://www.example.com/amp/p"/>'
    data = (
        f'<rss version="2.0" xmlns:xhtml="{XHTML}"{ror}><channel><title>T</title>'
        "<link>https://www.example.com/</link><description>D</description><item>"
        f"<link>https://www.example.com/en/p</link>{amp}</item></channel></rss>"
    ).encode()
    _, entries = read(data, target)
    assert [(entry.alternates, list(entry.extras)) for entry in entries] == [((), [f"{{{XHTML}}}link"])]
    out, _ = convert(data, "sitemap", target)
    (link,) = etree.fromstring(out).iter(f"{{{XHTML}}}link")
    assert (link.get("rel"), link.get("hreflang")) == ("amphtml", "en")


def test_an_atom_entry_link_with_hreflang_stays_the_entry_link() -> None:
    """In an Atom feed, Atom elements are the entry's own: the hreflang extension's ``atom:link`` hook (for
    RSS items) does not take an entry's only link for an alternate."""
    data = (
        f'<feed xmlns="{ATOM}"><title>T</title><id>urn:f</id><updated>2024-01-01T00:00:00Z</updated>'
        '<entry><title>E</title><id>urn:e</id><link rel="alternate" hreflang="de" href="https://www.example.com/de"/>'
        "</entry></feed>"
    ).encode()
    _, entries = read(data, "rss")
    assert [(entry.loc, entry.alternates) for entry in entries] == [("https://www.example.com/de", ())]


@pytest.mark.parametrize("local", ["loc", "lastmod", "other"])
def test_a_sitemap_element_that_is_no_field_of_a_feed_item_is_reported_and_kept(local: str) -> None:
    data = (
        f'<rss version="2.0" xmlns:sitemap="{SM}"><channel><title>T</title><link>https://www.example.com/</link>'
        f"<description>D</description><item><link>https://www.example.com/a</link>"
        f"<sitemap:changefreq>daily</sitemap:changefreq><sitemap:{local}>x</sitemap:{local}></item></channel></rss>"
    ).encode()
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), format="rss", reporter=reporter) as doc:
        (entry,) = doc
    assert entry.changefreq is not None and entry.changefreq.value == "daily"
    assert list(entry.extras) == [f"{{{SM}}}{local}"]
    assert [(d.code, d.line) for d in reporter.diagnostics] == [("unknown-element", 1)]
