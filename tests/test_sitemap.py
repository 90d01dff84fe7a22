"""The ``sitemap`` format: the sitemaps.org 0.9 urlset reader (lenient) and writer (XSD order, escaping)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from pathlib import Path

import pytest
from conftest import codes
from lxml import etree

import feedmap
from feedmap import Alternate, ChangeFreq, Diagnostic, DocKind, Entry, Image, Level, News, Reporter, Video, W3CDate
from feedmap.cli import main

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML = "http://www.w3.org/1999/xhtml"
NEWS = "http://www.google.com/schemas/sitemap-news/0.9"
VIDEO = "http://www.google.com/schemas/sitemap-video/1.1"
XSI = "http://www.w3.org/2001/XMLSchema-instance"


# ------------------------------------------------------------------------------------------------ helpers


def read(data: bytes, format: str | None = "sitemap") -> tuple[list[Entry], list[Diagnostic], DocKind]:
    """Read all entries of ``data``; returns entries, diagnostics and the document kind."""
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), format=format, reporter=reporter) as doc:
        entries = list(doc)
        kind = doc.meta.kind
    return entries, reporter.diagnostics, kind


def coded(diagnostics: Iterable[Diagnostic]) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in diagnostics]


def urlset(body: str, namespace: str | None = SM, extra: str = "") -> bytes:
    xmlns = f' xmlns="{namespace}"' if namespace is not None else ""
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset{xmlns}{extra}>\n{body}\n</urlset>\n'.encode()


def write(
    entries: Iterable[Entry], *, schema_location: bool = False, encode_urls: bool = False, keep_urls: bool = False
) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    summary = feedmap.write(
        entries,
        sink,
        "sitemap",
        options=feedmap.Options(schema_location=schema_location, encode_urls=encode_urls, keep_urls=keep_urls),
    )
    return sink.getvalue(), summary.diagnostics


def url_elements(data: bytes) -> list[etree._Element]:
    root = etree.fromstring(data)
    assert root.tag == f"{{{SM}}}urlset"
    return list(root)


# ------------------------------------------------------------------------------------------------ reading

NAMESPACES_READ_AS_09 = [
    SM,
    "https://www.sitemaps.org/schemas/sitemap/0.9",
    SM + "/",
    "https://www.sitemaps.org/schemas/sitemap/0.9/",
    "http://www.google.com/schemas/sitemap/0.84",
    None,
]


@pytest.mark.parametrize("namespace", NAMESPACES_READ_AS_09, ids=lambda ns: ns or "no-namespace")
@pytest.mark.parametrize("format", ["sitemap", None], ids=["named", "detected"])
def test_namespace_variants_read_as_09(namespace: str | None, format: str | None) -> None:
    body = "<url><loc>https://www.example.com/a</loc><lastmod>2024-01-02</lastmod><priority>0.4</priority></url>"
    entries, diagnostics, _ = read(urlset(body, namespace), format)
    assert entries == [Entry(loc="https://www.example.com/a", lastmod=W3CDate("2024-01-02"), priority=0.4)]
    assert codes(diagnostics) == []


def test_unknown_namespace_is_read_with_a_warning() -> None:
    body = "<url><loc>https://www.example.com/a</loc><changefreq>daily</changefreq></url>"
    entries, diagnostics, _ = read(urlset(body, "http://example.com/not-sitemaps"), None)
    assert [(e.loc, e.changefreq) for e in entries] == [("https://www.example.com/a", ChangeFreq.DAILY)]
    assert coded(diagnostics) == [(2, "unknown-namespace")]


def test_any_prefix_for_the_sitemap_namespace() -> None:
    # shaped like crawler-commons' sitemap.ns.xml: the sitemap namespace bound to "sit:", no default namespace
    data = f"""<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<sit:urlset xmlns:image="{IMAGE}" xmlns:video="{VIDEO}" xmlns:sit="{SM}" xmlns:xhtml="{XHTML}"
    xmlns:xsi="{XSI}" xsi:schemaLocation="{SM} sitemap.xsd {IMAGE} image.xsd">
    <sit:url>
        <sit:loc>http://www.example.com/1</sit:loc>
        <sit:changefreq>daily</sit:changefreq>
    </sit:url>
    <sit:url>
        <sit:loc>http://www.example.com/2</sit:loc>
        <sit:changefreq>daily</sit:changefreq>
        <image:image><image:loc>http://www.example.com/2.png</image:loc></image:image>
    </sit:url>
</sit:urlset>
""".encode()
    entries, diagnostics, _ = read(data, None)
    assert entries == [
        Entry(loc="http://www.example.com/1", changefreq=ChangeFreq.DAILY),
        Entry(
            loc="http://www.example.com/2",
            changefreq=ChangeFreq.DAILY,
            images=(Image(loc="http://www.example.com/2.png"),),
        ),
    ]
    assert codes(diagnostics) == []


def test_children_in_any_order() -> None:
    in_order = (
        "<url><loc>https://www.example.com/x</loc><lastmod>2024-05-06T07:08:09Z</lastmod>"
        "<changefreq>hourly</changefreq><priority>0.7</priority></url>"
    )
    reversed_order = (
        "<url><priority>0.7</priority><changefreq>hourly</changefreq>"
        "<lastmod>2024-05-06T07:08:09Z</lastmod><loc>https://www.example.com/x</loc></url>"
    )
    first, d1, _ = read(urlset(in_order))
    second, d2, _ = read(urlset(reversed_order))
    assert (
        first
        == second
        == [
            Entry(
                loc="https://www.example.com/x",
                lastmod=W3CDate("2024-05-06T07:08:09Z"),
                changefreq=ChangeFreq.HOURLY,
                priority=0.7,
            )
        ]
    )
    assert codes(d1) == codes(d2) == []


def test_images_with_all_five_children_in_any_order_and_prefix() -> None:
    body = f"""<url xmlns:pic="{IMAGE}"><loc>https://www.example.com/p</loc>
  <pic:image>
    <pic:license>https://www.example.com/licence</pic:license>
    <pic:title>Title &amp; more</pic:title>
    <pic:geo_location>Limerick, Ireland</pic:geo_location>
    <pic:caption>A &lt;caption&gt;</pic:caption>
    <pic:loc>https://www.example.com/p.jpg</pic:loc>
  </pic:image>
  <pic:image><pic:loc>https://www.example.com/q.jpg</pic:loc></pic:image>
</url>"""
    entries, diagnostics, _ = read(urlset(body))
    assert entries[0].images == (
        Image(
            loc="https://www.example.com/p.jpg",
            caption="A <caption>",
            geo_location="Limerick, Ireland",
            title="Title & more",
            license="https://www.example.com/licence",
        ),
        Image(loc="https://www.example.com/q.jpg"),
    )
    assert codes(diagnostics) == []


def test_image_without_loc_is_skipped_with_a_warning() -> None:
    body = (
        f'<url xmlns:image="{IMAGE}"><loc>https://www.example.com/p</loc>'
        "<image:image><image:caption>no loc</image:caption></image:image></url>"
    )
    entries, diagnostics, _ = read(urlset(body))
    assert entries == [Entry(loc="https://www.example.com/p")]
    assert codes(diagnostics) == ["loc-missing"]


def test_hreflang_alternates() -> None:
    body = f"""<url xmlns:xhtml="{XHTML}"><loc>https://www.example.com/en</loc>
  <xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de?a=1&amp;b=2"/>
  <xhtml:link rel="alternate" hreflang="x-default" href="https://www.example.com/"/>
</url>"""
    entries, diagnostics, _ = read(urlset(body))
    assert entries[0].alternates == (
        Alternate(hreflang="de", href="https://www.example.com/de?a=1&b=2"),
        Alternate(hreflang="x-default", href="https://www.example.com/"),
    )
    assert entries[0].extras == {}
    assert codes(diagnostics) == []


#: Elements of namespaces no extension claims: Google's retired mobile and PageMap sitemap extensions.
MOBILE = "http://www.google.com/schemas/sitemap-mobile/1.0"
PAGEMAP = "http://www.google.com/schemas/sitemap-pagemap/1.0"
MOBILE_XML = f'<mobile:mobile xmlns:mobile="{MOBILE}"/>'
PAGEMAP_XML = (
    f'<PageMap xmlns="{PAGEMAP}"><DataObject type="document"><Attribute name="title">Tea &amp; biscuits</Attribute>'
    "</DataObject></PageMap>"
)


def test_foreign_elements_are_kept_verbatim_in_extras() -> None:
    body = f"<url><loc>https://www.example.com/n</loc>{MOBILE_XML}{PAGEMAP_XML}</url>"
    entries, diagnostics, _ = read(urlset(body))
    assert codes(diagnostics) == []
    extras = entries[0].extras
    assert set(extras) == {f"{{{MOBILE}}}mobile", f"{{{PAGEMAP}}}PageMap"}
    assert extras[f"{{{MOBILE}}}mobile"] == MOBILE_XML
    assert extras[f"{{{PAGEMAP}}}PageMap"] == PAGEMAP_XML


def test_foreign_elements_are_written_back() -> None:
    body = f"<url><loc>https://www.example.com/n</loc>{MOBILE_XML}{PAGEMAP_XML}</url>"
    entries, _, _ = read(urlset(body))
    data, _ = write(entries)
    (url,) = url_elements(data)
    assert url.find(f"{{{MOBILE}}}mobile") is not None
    assert url.findtext(f".//{{{PAGEMAP}}}Attribute") == "Tea & biscuits"
    again, diagnostics, _ = read(data)
    assert again == entries
    assert codes(diagnostics) == []


def test_two_foreign_elements_of_one_name_are_kept_together() -> None:
    second = PAGEMAP_XML.replace("Tea &amp; biscuits", "Second")
    body = f"<url><loc>https://www.example.com/n</loc>{PAGEMAP_XML}{second}</url>"
    entries, _, _ = read(urlset(body))
    assert entries[0].extras == {f"{{{PAGEMAP}}}PageMap": PAGEMAP_XML + second}
    data, _ = write(entries)
    (url,) = url_elements(data)
    assert [n.text for n in url.iter(f"{{{PAGEMAP}}}Attribute")] == ["Tea & biscuits", "Second"]


def test_unknown_element_in_the_sitemap_namespace_is_reported_and_kept() -> None:
    body = "<url><loc>https://www.example.com/u</loc><colour>blue</colour></url>"
    entries, diagnostics, _ = read(urlset(body))
    assert codes(diagnostics) == ["unknown-element"]
    assert list(entries[0].extras) == [f"{{{SM}}}colour"]


@pytest.mark.parametrize(
    ("written", "expected", "code"),
    [
        ("daily", ChangeFreq.DAILY, None),
        ("Daily", ChangeFreq.DAILY, "changefreq-case"),
        ("NEVER", ChangeFreq.NEVER, "changefreq-case"),
        (" weekly ", ChangeFreq.WEEKLY, "whitespace-trimmed"),
        ("sometimes", None, "changefreq-invalid"),
        ("", None, "changefreq-invalid"),
    ],
)
def test_changefreq_repairs(written: str, expected: ChangeFreq | None, code: str | None) -> None:
    body = f"<url><loc>https://www.example.com/c</loc>\n<changefreq>{written}</changefreq></url>"
    entries, diagnostics, _ = read(urlset(body))
    assert entries[0].changefreq is expected
    assert coded(diagnostics) == ([(4, code)] if code else [])


@pytest.mark.parametrize(
    ("written", "expected", "code"),
    [
        ("0.5", 0.5, None),
        ("0.50", 0.5, None),
        ("1", 1.0, None),
        ("0.0", 0.0, None),
        # out of range: an invalid value, never clamped to the top (or bottom) priority
        ("1.5", None, "priority-invalid"),
        ("1.1", None, "priority-invalid"),
        ("5.0", None, "priority-invalid"),
        ("-0.2", None, "priority-invalid"),
        ("high", None, "priority-invalid"),
        ("NaN", None, "priority-invalid"),
        ("", None, "priority-invalid"),
        # xsd:decimal only: no exponent, no digit separators, ASCII digits, no infinity
        ("1e-1", None, "priority-invalid"),
        ("5e-324", None, "priority-invalid"),
        ("0_5", None, "priority-invalid"),
        ("\u0660.\u0665", None, "priority-invalid"),  # Arabic-Indic digits
        ("inf", None, "priority-invalid"),
        ("0x1", None, "priority-invalid"),
        ("0.5.1", None, "priority-invalid"),
        ("1,0", None, "priority-invalid"),
        # valid decimals kept as they are (the same number is written back)
        ("0.64", 0.64, None),
        (" 0.3 ", 0.3, None),
        ("0.0000001", 1e-7, None),
        # valid decimals whose written form changes: noted
        ("+.5", 0.5, "priority-normalised"),
        (".5", 0.5, "priority-normalised"),
        ("00.5", 0.5, "priority-normalised"),
        ("1.", 1.0, "priority-normalised"),
        ("-0", 0.0, "priority-normalised"),
        ("0.12345678901234567890", 0.12345678901234568, "priority-normalised"),
    ],
)
def test_priority_repairs(written: str, expected: float | None, code: str | None) -> None:
    body = f"<url><loc>https://www.example.com/p</loc>\n<priority>{written}</priority></url>"
    entries, diagnostics, _ = read(urlset(body))
    assert entries[0].priority == expected
    assert coded(diagnostics) == ([(4, code)] if code else [])


def test_negative_zero_priority_is_zero() -> None:
    entries, _, _ = read(urlset("<url><loc>https://www.example.com/p</loc><priority>-0.0</priority></url>"))
    assert str(entries[0].priority) == "0.0"


@pytest.mark.parametrize(
    ("field", "first", "second"),
    [
        ("loc", "https://www.example.com/a", "https://www.example.com/b"),
        ("lastmod", "2024-01-02", "2025-03-04"),
        ("changefreq", "daily", "weekly"),
        ("priority", "0.3", "0.9"),
    ],
)
def test_a_field_given_twice_keeps_the_first_and_is_reported(field: str, first: str, second: str) -> None:
    loc = "" if field == "loc" else "<loc>https://www.example.com/a</loc>"
    body = f"<url>{loc}<{field}>{first}</{field}>\n<{field}>{second}</{field}></url>"
    entries, diagnostics, _ = read(urlset(body))
    assert len(entries) == 1
    value = getattr(entries[0], field)
    assert (value.text if field == "lastmod" else getattr(value, "value", value)) == (
        float(first) if field == "priority" else first
    )
    assert coded(diagnostics) == [(4, "element-repeated")]
    assert "<url> at line 3" in diagnostics[0].message


def test_duplicate_image_fields_keep_the_first() -> None:
    body = (
        f'<url xmlns:image="{IMAGE}"><loc>https://www.example.com/a</loc><image:image>'
        "<image:loc>https://www.example.com/1.png</image:loc>\n<image:loc>https://www.example.com/2.png</image:loc>"
        "<image:title>one</image:title><image:title>two</image:title></image:image></url>"
    )
    entries, diagnostics, _ = read(urlset(body))
    assert entries[0].images == (Image(loc="https://www.example.com/1.png", title="one"),)
    assert coded(diagnostics) == [(4, "element-repeated"), (4, "element-repeated")]


def test_duplicate_loc_stops_strict_reading() -> None:
    body = "<url><loc>https://www.example.com/a</loc><loc>https://www.example.com/b</loc></url>"
    with (
        pytest.raises(feedmap.StrictError) as info,
        feedmap.read(io.BytesIO(urlset(body)), options=feedmap.Options(strict=True)) as doc,
    ):
        list(doc)
    assert info.value.diagnostic.code == "element-repeated"


def test_absent_priority_stays_absent() -> None:
    entries, _, _ = read(urlset("<url><loc>https://www.example.com/p</loc></url>"))
    assert entries[0].priority is None
    assert entries[0].changefreq is None
    assert entries[0].lastmod is None


@pytest.mark.parametrize(
    "value",
    [
        "2024",
        "2024-02",
        "2024-02-29",
        "2024-02-29T10:11Z",
        "2024-02-29T10:11:12+05:30",
        "2024-02-29T10:11:12.345-08:00",
        "2024-02-29T10:11:12",
        "2024-02-29+01:00",
    ],
)
def test_lastmod_kept_as_written(value: str) -> None:
    entries, diagnostics, _ = read(urlset(f"<url><loc>https://www.example.com/d</loc><lastmod>{value}</lastmod></url>"))
    assert entries[0].lastmod == W3CDate(value)
    assert entries[0].lastmod is not None and entries[0].lastmod.text == value
    assert codes(diagnostics) == []


@pytest.mark.parametrize(
    ("written", "expected", "code"),
    [
        ("2024-1-5", "2024-01-05", "lastmod-repaired"),
        ("2024-01-05 10:20:30", "2024-01-05T10:20:30", "lastmod-repaired"),
        ("2024-01-05T10:20:30+0000", "2024-01-05T10:20:30+00:00", "lastmod-repaired"),
        ("Tue, 02 Jan 2024 10:00:00 GMT", "2024-01-02T10:00:00Z", "lastmod-repaired"),
        ("not a date", None, "lastmod-invalid"),
        ("2024-13-45", None, "lastmod-invalid"),
        ("", None, "lastmod-invalid"),
        (" 2024-01-05 ", "2024-01-05", "whitespace-trimmed"),
    ],
)
def test_lastmod_repairs(written: str, expected: str | None, code: str) -> None:
    body = f"<url><loc>https://www.example.com/d</loc>\n<lastmod>{written}</lastmod></url>"
    entries, diagnostics, _ = read(urlset(body))
    assert entries[0].lastmod == (W3CDate(expected) if expected else None)
    assert coded(diagnostics) == [(4, code)]


def test_missing_loc_is_skipped_and_the_rest_is_read() -> None:
    body = """<url><lastmod>2024-01-01</lastmod></url>
<url><loc>   </loc></url>
<url><loc>https://www.example.com/kept</loc></url>"""
    entries, diagnostics, _ = read(urlset(body))
    assert [e.loc for e in entries] == ["https://www.example.com/kept"]
    assert coded(diagnostics) == [(3, "loc-missing"), (4, "loc-missing")]


def test_relative_loc_without_a_base_is_kept_with_a_warning() -> None:
    entries, diagnostics, _ = read(urlset("<url>\n<loc>/relative/path</loc></url>"))
    assert [e.loc for e in entries] == ["/relative/path"]
    assert coded(diagnostics) == [(4, "relative-url")]


def test_padded_loc_is_trimmed_with_an_info() -> None:
    entries, diagnostics, _ = read(urlset("<url>\n<loc>\n  https://www.example.com/p  \n</loc></url>"))
    assert [e.loc for e in entries] == ["https://www.example.com/p"]
    assert [(d.line, d.code, d.level) for d in diagnostics] == [(4, "whitespace-trimmed", Level.INFO)]


@pytest.mark.parametrize("data", [urlset(""), b"<urlset/>", f'<urlset xmlns="{SM}"></urlset>'.encode()])
def test_empty_urlset_has_no_entries(data: bytes) -> None:
    entries, diagnostics, kind = read(data, None)
    assert entries == []
    assert kind is DocKind.URLSET
    assert codes(diagnostics, Level.WARNING) == []


def test_lenient_repairs_before_parsing_keep_the_url() -> None:
    data = b'\n\n  <?xml version="1.0"?>\n<urlset><url><loc>https://www.example.com/?a=1&b=2\x07</loc></url></urlset>'
    entries, diagnostics, _ = read(data, None)
    assert [e.loc for e in entries] == ["https://www.example.com/?a=1&b=2"]
    assert sorted(coded(diagnostics)) == [(1, "leading-whitespace"), (4, "bare-ampersand"), (4, "control-character")]


def test_truncated_document_keeps_the_entries_before_the_cut() -> None:
    data = urlset("<url><loc>https://www.example.com/1</loc></url><url><loc>https://www.example.com/2</loc></url>")
    entries, diagnostics, _ = read(data[: data.index(b"</urlset>") + 4])
    assert [e.loc for e in entries] == ["https://www.example.com/1", "https://www.example.com/2"]
    assert codes(diagnostics) == ["xml-not-well-formed"]


def test_entries_remember_their_line() -> None:
    entries, _, _ = read(
        urlset("<url><loc>https://www.example.com/1</loc></url>\n\n<url>\n<loc>https://www.example.com/2</loc></url>")
    )
    assert [e.origin.line if e.origin else None for e in entries] == [3, 5]


def test_a_sitemap_index_named_as_sitemap_is_read_as_an_index() -> None:
    data = (
        f'<sitemapindex xmlns="{SM}"><sitemap><loc>https://www.example.com/s.xml</loc>'
        "<lastmod>2024-01-01</lastmod></sitemap></sitemapindex>"
    ).encode()
    reporter = Reporter()
    with feedmap.read(
        io.BytesIO(data), format="sitemap", reporter=reporter, options=feedmap.Options(follow=False)
    ) as doc:
        entries = list(doc)
        assert doc.format == "sitemapindex"
    assert entries == [Entry(loc="https://www.example.com/s.xml", lastmod=W3CDate("2024-01-01"))]
    assert codes(reporter.diagnostics) == ["read-as-index"]


def test_wrong_root_is_a_read_error() -> None:
    with pytest.raises(feedmap.ReadError) as info:
        read(b"<rss><channel/></rss>", "sitemap")
    assert info.value.code == "wrong-root"


# ------------------------------------------------------------------------------------------------ writing

FULL = Entry(
    loc="https://www.example.com/full",
    lastmod=W3CDate("2024-02-03T04:05:06+07:00"),
    changefreq=ChangeFreq.MONTHLY,
    priority=0.25,
    images=(
        Image(
            loc="https://www.example.com/i.png",
            caption="cap",
            geo_location="geo",
            title="tit",
            license="https://www.example.com/lic",
        ),
    ),
    alternates=(Alternate(hreflang="fr", href="https://www.example.com/fr/full"),),
    news=News(publication_name="N", publication_language="en", publication_date="2024-02-03", title="T"),
    videos=(
        Video(
            thumbnail_loc="https://www.example.com/t.png",
            title="V",
            description="D",
            content_loc="https://www.example.com/v.mp4",
        ),
    ),
    extras={f"{{{MOBILE}}}mobile": MOBILE_XML},
)


def test_writer_uses_xsd_element_order() -> None:
    data, _ = write([FULL])
    (url,) = url_elements(data)
    assert [child.tag for child in url] == [
        f"{{{SM}}}loc",
        f"{{{SM}}}lastmod",
        f"{{{SM}}}changefreq",
        f"{{{SM}}}priority",
        f"{{{IMAGE}}}image",
        f"{{{XHTML}}}link",
        f"{{{NEWS}}}news",
        f"{{{VIDEO}}}video",
        f"{{{MOBILE}}}mobile",
    ]
    image = url.find(f"{{{IMAGE}}}image")
    assert image is not None
    assert [child.tag for child in image] == [
        f"{{{IMAGE}}}{name}" for name in ("loc", "caption", "geo_location", "title", "license")
    ]
    assert [url.findtext(f"{{{SM}}}{name}") for name in ("loc", "lastmod", "changefreq", "priority")] == [
        "https://www.example.com/full",
        "2024-02-03T04:05:06+07:00",
        "monthly",
        "0.25",
    ]


def test_writer_declares_namespaces_once_on_the_root() -> None:
    entries = [FULL, Entry(loc="https://www.example.com/2", images=(Image(loc="https://www.example.com/2.png"),))]
    data, _ = write(entries)
    text = data.decode()
    root_tag = text[text.index("<urlset") : text.index(">", text.index("<urlset")) + 1]
    for declaration in (f'xmlns="{SM}"', f'xmlns:image="{IMAGE}"', f'xmlns:xhtml="{XHTML}"'):
        assert text.count(declaration) == 1
        assert declaration in root_tag
    root = etree.fromstring(data)
    for element in root.iter():
        if element is not root and element.tag.startswith(("{" + SM, "{" + IMAGE, "{" + XHTML)):
            assert element.nsmap == root.nsmap


@pytest.mark.parametrize(
    "loc",
    [
        "https://www.example.com/?a=1&b=2",
        "https://www.example.com/<tag>",
        "https://www.example.com/it's",
        'https://www.example.com/"quoted"',
        "https://www.example.com/&amp;already",
    ],
)
def test_writer_escapes_markup_characters(loc: str) -> None:
    entry = Entry(
        loc=loc,
        images=(Image(loc=loc, caption=f"caption {loc}", title="a & b < c > d ' e \" f"),),
        alternates=(Alternate(hreflang="de", href=loc),),
    )
    data, _ = write([entry], keep_urls=True)  # the escaping of URLs as read (encoded, they hold no markup)
    body = data.decode().split("\n", 2)[2]
    assert "&amp;" in body or "&" not in loc
    for raw, escaped in (("<", "&lt;"), (">", "&gt;"), ("'", "&apos;"), ('"', "&quot;")):
        if raw in loc:
            assert escaped in body
    entries, diagnostics, _ = read(data)
    assert entries == [entry]
    # characters no URI holds are kept as read, never silently: each such loc is reported
    assert codes(diagnostics) == (["loc-not-escaped"] if set(loc) & set('<>"') else [])


def test_writer_escapes_every_markup_character_in_one_value() -> None:
    entry = Entry(loc="https://www.example.com/x", images=(Image(loc="https://www.example.com/i", caption="&<>'\""),))
    data, _ = write([entry])
    assert b"<image:caption>&amp;&lt;&gt;&apos;&quot;</image:caption>" in data


def test_writer_drops_characters_xml_cannot_hold() -> None:
    entry = Entry(
        loc="https://www.example.com/x", images=(Image(loc="https://www.example.com/i", caption="a\x00b\x1fc"),)
    )
    data, diagnostics = write([entry])
    entries, _, _ = read(data)
    assert entries[0].images[0].caption == "abc"
    assert codes(diagnostics) == ["character-dropped"]
    assert "U+0000, U+001F" in diagnostics[0].message


HOME = "https://www.example.com/"


@pytest.mark.parametrize(
    ("entry", "what"),
    [
        (Entry(loc="https://www.example.com/ctl\u0001x"), "loc of 'https://www.example.com/ctl\\x01x'"),
        (Entry(loc="https://www.example.com/\ufffe"), "loc of"),
        (Entry(loc="https://www.example.com/\ud800"), "loc of"),
        (Entry(loc=HOME, images=(Image(loc="https://www.example.com/\x02.png"),)), "image:loc"),
        (Entry(loc=HOME, images=(Image(loc="https://www.example.com/i", title="\uffff"),)), "title"),
        (Entry(loc=HOME, alternates=(Alternate(hreflang="d\x0be", href=HOME),)), "hreflang"),
        (Entry(loc=HOME, alternates=(Alternate(hreflang="de", href="https://www.example.com/\x1b"),)), "href"),
    ],
)
def test_every_dropped_character_is_reported(entry: Entry, what: str) -> None:
    data, diagnostics = write([entry], keep_urls=True)  # encoded URLs hold no control character
    assert [(d.code, d.level) for d in diagnostics] == [("character-dropped", Level.WARNING)]
    assert what in diagnostics[0].message
    etree.fromstring(data)


def test_carriage_returns_tabs_and_newlines_survive_the_round_trip() -> None:
    """Raw, a CR reads back as LF (XML 1.0 §2.11) and LF or tab in an attribute as a space (§3.3.3)."""
    entry = Entry(
        loc="https://www.example.com/",
        images=(Image(loc="https://www.example.com/i", caption="one\r\ntwo\rthree\tfour\nfive"),),
        alternates=(Alternate(hreflang="a\tb\nc\rd", href="https://www.example.com/x"),),
    )
    data, diagnostics = write([entry])
    assert b"&#13;" in data and b"&#10;" in data and b"&#9;" in data
    entries, _, _ = read(data)
    assert entries == [entry]
    assert codes(diagnostics) == []


INJECTION = '<x:y xmlns:x="urn:x"/></url><url><loc>https://injected.example/</loc>'


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("{urn:x}y", INJECTION),  # closes <url> and opens another
        ("{", "<"),
        ("{urn:x}y", "<x:y xmlns:x='urn:x'>"),  # not closed
        ("{urn:x}y", '<x:z xmlns:x="urn:x"/>'),  # another element than the key names
        ("{urn:x}y", '<x:y xmlns:x="urn:other"/>'),  # the key's name in another namespace
        ("{urn:x}y", "<x:y/>"),  # prefix never declared
        ("{urn:x}y", 'text<x:y xmlns:x="urn:x"/>'),  # text beside the element
        ("{urn:x}y", '<x:y xmlns:x="urn:x"/><!-- c -->'),
        ("{urn:x}y", '<x:y xmlns:x="urn:x">&ent;</x:y>'),  # an entity no DTD declares
        ("{urn:x}y", '<!DOCTYPE x [<!ENTITY e "e">]><x:y xmlns:x="urn:x"/>'),
        ("{urn:x}y", ""),
        ("{}xhtml:link", '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de"/>'),
    ],
)
def test_an_extra_that_is_not_one_well_formed_element_is_dropped(key: str, value: str) -> None:
    data, diagnostics = write([Entry(loc="https://www.example.com/", extras={key: value})])
    assert codes(diagnostics) == ["invalid-extra"]
    (url,) = url_elements(data)
    assert [child.tag for child in url] == [f"{{{SM}}}loc"]


@pytest.mark.parametrize(
    ("format", "key", "value"),
    [
        ("sitemap", f"{{{SM}}}loc", f'<loc xmlns="{SM}">https://injected.example/</loc>'),
        ("sitemap", f"{{{SM}}}url", f'<url xmlns="{SM}"><loc>https://injected.example/</loc></url>'),
        ("sitemap", "{}loc", "<loc>https://injected.example/</loc>"),
        ("sitemapindex", f"{{{SM}}}sitemap", f'<sitemap xmlns="{SM}"><loc>https://injected.example/</loc></sitemap>'),
        ("rss", "{}link", "<link>https://injected.example/</link>"),
        ("rss", "{}item", "<item><link>https://injected.example/</link></item>"),
        ("ror", "{}item", "<item><link>https://injected.example/</link></item>"),
    ],
)
def test_an_extra_named_like_an_element_the_writer_writes_is_dropped(format: str, key: str, value: str) -> None:
    """Well-formed, yet a second <loc> or a nested <url>/<item>: another URL for whoever reads the output."""
    sink = io.BytesIO()
    diagnostics = feedmap.write([Entry(loc="https://www.example.com/", extras={key: value})], sink, format).diagnostics
    assert "invalid-extra" in codes(diagnostics)
    assert b"injected.example" not in sink.getvalue()


def test_extras_of_several_elements_of_the_key_are_written() -> None:
    value = '<x:y xmlns:x="urn:x">1</x:y> <x:y xmlns:x="urn:x">2</x:y>'
    data, diagnostics = write([Entry(loc="https://www.example.com/", extras={"{urn:x}y": value})])
    assert codes(diagnostics) == []
    (url,) = url_elements(data)
    assert [child.text for child in url.iter("{urn:x}y")] == ["1", "2"]


def test_an_undeclared_prefix_read_from_a_sitemap_is_not_bound_to_the_roots_namespace() -> None:
    """``<xhtml:link>`` without ``xmlns:xhtml`` is no XHTML link: reported, never written as one."""
    body = (
        "<url><loc>https://www.example.com/</loc>"
        '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de"/>'
        "<image:image><image:loc>https://www.example.com/i.png</image:loc></image:image></url>"
    )
    entries, _, _ = read(urlset(body))
    for format in ("sitemap", "sitemapindex", "rss", "ror"):
        sink = io.BytesIO()
        diagnostics = feedmap.write(entries, sink, format).diagnostics
        assert codes(diagnostics).count("invalid-extra") == 2, format
        root = etree.fromstring(sink.getvalue())
        assert not list(root.iter(f"{{{XHTML}}}link")), format
        assert not list(root.iter(f"{{{IMAGE}}}image")), format


def test_a_no_namespace_extra_stays_out_of_the_sitemap_namespace() -> None:
    entries, diagnostics, _ = read(urlset("<url><loc>https://www.example.com/</loc><colour>blue</colour></url>", None))
    assert entries[0].extras == {"{}colour": "<colour>blue</colour>"}
    data, _ = write(entries)
    (url,) = url_elements(data)
    assert url.find("colour") is not None and url.findtext("colour") == "blue"
    again, diagnostics, _ = read(data)
    assert "unknown-element" not in codes(diagnostics)
    assert again == entries


def test_writer_starts_with_the_declaration_and_writes_utf8() -> None:
    data, _ = write([Entry(loc="https://www.example.com/café/日本")], keep_urls=True)
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset ')
    assert "https://www.example.com/café/日本".encode() in data
    data.decode("utf-8")


def test_schema_location_attributes() -> None:
    data, _ = write([Entry(loc="https://www.example.com/")], schema_location=True)
    root = etree.fromstring(data)
    assert root.get(f"{{{XSI}}}schemaLocation") == f"{SM} {SM}/sitemap.xsd"
    assert root.nsmap["xsi"] == XSI
    plain, _ = write([Entry(loc="https://www.example.com/")])
    assert b"schemaLocation" not in plain
    assert b"xmlns:xsi" not in plain


def test_encode_urls_on_the_protocol_example() -> None:
    example = "http://www.example.com/ümlat.html&q=name"
    data, diagnostics = write([Entry(loc=example)], encode_urls=True)
    assert b"<loc>http://www.example.com/%C3%BCmlat.html&amp;q=name</loc>" in data
    assert [(d.code, d.level) for d in diagnostics] == [("url-encoded", Level.INFO)]
    by_default, default_diagnostics = write([Entry(loc=example)])
    assert by_default == data
    assert [(d.code, d.level) for d in default_diagnostics] == [("url-encoded", Level.INFO)]
    plain, plain_diagnostics = write([Entry(loc=example)], keep_urls=True)
    assert "<loc>http://www.example.com/ümlat.html&amp;q=name</loc>".encode() in plain
    assert codes(plain_diagnostics) == []


def test_encode_urls_applies_idna_to_the_host_and_to_images_and_alternates() -> None:
    entry = Entry(
        loc="https://bücher.example/straße?q=ä",
        images=(Image(loc="https://www.example.com/bild ä.png"),),
        alternates=(Alternate(hreflang="de", href="https://www.example.com/über"),),
    )
    data, _ = write([entry], encode_urls=True)
    (url,) = url_elements(data)
    assert url.findtext(f"{{{SM}}}loc") == "https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4"
    assert url.findtext(f"{{{IMAGE}}}image/{{{IMAGE}}}loc") == "https://www.example.com/bild%20%C3%A4.png"
    link = url.find(f"{{{XHTML}}}link")
    assert link is not None and link.get("href") == "https://www.example.com/%C3%BCber"


def test_zero_entries_write_a_valid_empty_document_with_a_warning() -> None:
    data, diagnostics = write([])
    root = etree.fromstring(data)
    assert root.tag == f"{{{SM}}}urlset"
    assert len(root) == 0
    assert codes(diagnostics) == ["empty-document"]
    assert read(data)[0] == []


def test_more_than_50000_entries_warn_once() -> None:
    entries = (Entry(loc=f"https://www.example.com/{i}") for i in range(50_001))
    data, diagnostics = write(entries)
    assert codes(diagnostics) == ["too-many-entries"]
    assert data.count(b"<url>") == 50_001


def test_exactly_50000_entries_do_not_warn() -> None:
    entries = (Entry(loc=f"https://www.example.com/{i}") for i in range(50_000))
    _, diagnostics = write(entries)
    assert codes(diagnostics) == []


def test_reading_more_than_50000_entries_warns() -> None:
    body = "".join(f"<url><loc>https://www.example.com/{i}</loc></url>\n" for i in range(50_001))
    entries, diagnostics, _ = read(urlset(body))
    assert len(entries) == 50_001
    assert codes(diagnostics) == ["too-many-entries"]


def test_text_extras_are_dropped_with_an_info() -> None:
    entries = [Entry(loc=f"https://www.example.com/{n}", extras={"ror:sortOrder": "1"}) for n in range(2)]
    data, diagnostics = write(entries)
    assert b"sortOrder" not in data
    assert [(d.code, d.level) for d in diagnostics] == [("field-dropped", Level.INFO)]


def test_fields_the_format_cannot_hold_are_reported_once() -> None:
    entries = [Entry(loc=f"https://www.example.com/{i}", title="t", keywords=("k",)) for i in range(3)]
    _, diagnostics = write(entries)
    assert codes(diagnostics) == ["field-dropped"]  # one line for all of them
    assert "cannot hold title, keywords;" in diagnostics[0].message
    assert {d.level for d in diagnostics} == {Level.INFO}


@pytest.mark.parametrize(
    ("priority", "written", "code"),
    [
        (5e-324, "0.0", "priority-rounded"),
        (1e-300, "0.0", "priority-rounded"),
        (1.2345678901234567e-05, "0.000012345678901235", "priority-rounded"),
        (1e-18, "0.000000000000000001", None),
        (0.12345678901234568, "0.12345678901234568", None),
        (1.5, None, "priority-invalid"),
        (-0.0, "-0.0", None),
        (float("nan"), None, "priority-invalid"),
        (float("inf"), None, "priority-invalid"),
    ],
)
def test_priority_is_a_short_decimal_and_changes_are_reported(
    priority: float, written: str | None, code: str | None
) -> None:
    data, diagnostics = write([Entry(loc="https://www.example.com/", priority=priority)])
    (url,) = url_elements(data)
    assert url.findtext(f"{{{SM}}}priority") == written
    assert codes(diagnostics) == ([code] if code else [])
    assert len(data) < 600


def test_priority_is_written_as_a_decimal() -> None:
    priorities = (0.0, 1.0, 0.5, 0.1, 1e-7)
    data, _ = write([Entry(loc=f"https://www.example.com/{n}", priority=p) for n, p in enumerate(priorities)])
    values = [url.findtext(f"{{{SM}}}priority") for url in url_elements(data)]
    assert values[:4] == ["0.0", "1.0", "0.5", "0.1"]
    assert all(value is not None and "e" not in value.lower() for value in values)
    assert [e.priority for e in read(data)[0]] == [0.0, 1.0, 0.5, 0.1, 1e-7]


def test_a_sitemap_field_given_twice_in_an_rss_item_is_reported() -> None:
    data = (
        f'<?xml version="1.0"?>\n<rss version="2.0" xmlns:sitemap="{SM}"><channel><title>t</title>'
        "<link>https://www.example.com/</link><description>d</description>\n"
        "<item><link>https://www.example.com/a</link><sitemap:priority>0.3</sitemap:priority>\n"
        "<sitemap:priority>0.5</sitemap:priority></item></channel></rss>\n"
    ).encode()
    entries, diagnostics, _ = read(data, format=None)
    assert [e.priority for e in entries] == [0.3]
    assert codes(diagnostics) == ["element-repeated"]
    assert "<priority>" in diagnostics[0].message


# ------------------------------------------------------------------- fields holding more than text


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("<url><loc>https://e.com/b<x>y</x>z</loc></url>", None),
        (
            f'<url><loc>https://e.com/a</loc><image:image xmlns:image="{IMAGE}"><image:loc>'
            "https://e.com/i<b/>.png</image:loc></image:image></url>",
            Entry(loc="https://e.com/a"),
        ),
        ("<url><loc>https://e.com/a</loc><priority>0.<b/>5</priority></url>", Entry(loc="https://e.com/a")),
        ("<url><loc>https://e.com/a</loc><lastmod>2024-01-<b/>02</lastmod></url>", Entry(loc="https://e.com/a")),
        ("<url><loc>https://e.com/a</loc><changefreq>dai<b/>ly</changefreq></url>", Entry(loc="https://e.com/a")),
    ],
    ids=["loc", "image-loc", "priority", "lastmod", "changefreq"],
)
def test_a_field_holding_an_element_is_not_read_as_the_text_before_it(body: str, expected: Entry | None) -> None:
    """lxml's .text stops at a child element: <loc>https://e.com/b<x>y</x>z</loc> was read as https://e.com/b,
    silently (a URL changed); <priority>0.<b/>5</priority> as 0.0."""
    entries, diagnostics, _ = read(urlset(body))
    assert [(e.loc, e.priority, e.lastmod, e.changefreq, e.images) for e in entries] == (
        [] if expected is None else [(expected.loc, None, None, None, ())]
    )
    assert "unknown-element" in codes(diagnostics)


@pytest.mark.parametrize("field", ["priority", "lastmod", "changefreq"])
def test_a_field_holding_an_unexpanded_entity_is_not_used(field: str) -> None:
    """Like <loc>: the text around a reference to an entity of the ignored DOCTYPE is no value (0.&y; was 0.0)."""
    value = {"priority": "0.&y;", "lastmod": "2024-&y;", "changefreq": "dai&y;ly"}[field]
    data = (
        f'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY y "5">]>\n<urlset xmlns="{SM}">\n'
        f"<url><loc>https://e.com/a</loc><{field}>{value}</{field}></url>\n</urlset>\n"
    ).encode()
    entries, diagnostics, _ = read(data)
    assert [(e.loc, e.priority, e.lastmod, e.changefreq) for e in entries] == [("https://e.com/a", None, None, None)]
    assert [d.message for d in diagnostics if d.code == "unresolved-entity"][-1].startswith(f"<{field}> holds")


@pytest.mark.parametrize("format", ["sitemap", "jsonl", "rss", "ror"])
@pytest.mark.parametrize("priority", ["1.1", "5.0", "-0.5"])
def test_an_out_of_range_priority_is_read_as_absent_by_every_reader(
    format: str, priority: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Clamped, 5.0 became 1.0: an invalid value turned into the top priority. It is ignored, with the warning."""
    sink = io.BytesIO()
    feedmap.write([Entry(loc="https://www.example.com/a", title="A", priority=0.25)], sink, format)
    assert sink.getvalue().count(b"0.25") == 1
    source = tmp_path / f"in.{format}"
    source.write_bytes(sink.getvalue().replace(b"0.25", priority.encode()))
    out = tmp_path / "out.jsonl"
    assert main(["convert", str(source), "-f", format, "-t", "jsonl", "-o", str(out)]) == 0
    assert "priority" not in json.loads(out.read_text().splitlines()[-1])  # after a feed's header line
    assert "warning[priority-invalid]" in capsys.readouterr().err


@pytest.mark.parametrize("format", ["sitemap", "jsonl", "rss", "ror"])
def test_an_out_of_range_priority_built_in_python_is_not_written(format: str) -> None:
    sink = io.BytesIO()
    summary = feedmap.write([Entry(loc="https://www.example.com/a", title="A", priority=5.0)], sink, format)
    assert b"priority>" not in sink.getvalue() and b'"priority"' not in sink.getvalue()
    assert codes(summary.diagnostics, Level.WARNING) == ["priority-invalid"]


XHTML_DECLARED = ' xmlns:xhtml="http://www.w3.org/1999/xhtml"'


@pytest.mark.parametrize(
    ("link", "reported"),
    [
        ("<xhtml:link/>", True),
        ('<xhtml:link rel="alternate" href="https://www.example.com/de"/>', True),
        ('<xhtml:link rel="alternate" hreflang="de"/>', True),
        ('<xhtml:link rel="alternate" hreflang="de" href=""/>', True),
        ('<xhtml:link hreflang="de" href="https://www.example.com/de"/>', True),
        ('<xhtml:link rel="canonical" href="https://www.example.com/"/>', False),  # another kind of link
        ('<xhtml:link rel="alternate" href="android-app://com.example/page"/>', False),  # an app deep link
    ],
)
@pytest.mark.parametrize("format", ["sitemap", "rss"])
def test_an_incomplete_hreflang_link_is_reported_and_kept(link: str, reported: bool, format: str) -> None:
    if format == "sitemap":
        data = urlset(f"<url><loc>https://www.example.com/</loc>\n{link}</url>", extra=XHTML_DECLARED)
    else:
        data = (
            f'<rss version="2.0"{XHTML_DECLARED}><channel><title>T</title><link>https://www.example.com/</link>'
            f"<description>D</description><item><title>I</title><link>https://www.example.com/</link>\n{link}"
            "</item></channel></rss>"
        ).encode()
    entries, diagnostics, _ = read(data, format)
    assert entries[0].alternates == ()
    assert "{http://www.w3.org/1999/xhtml}link" in entries[0].extras  # kept verbatim, written back
    assert [(d.line, d.code) for d in diagnostics if d.code == "alternate-incomplete"] == (
        [(4, "alternate-incomplete")] if format == "sitemap" else [(2, "alternate-incomplete")]
    ) * reported
