"""Written sitemaps and indexes validate against the sitemaps.org 0.9 XSDs (from the external corpus).

The XSDs' ``xsd:any namespace="##other" processContents="strict"`` wildcards require a schema for every
extension element, and Google's image schema may not be shipped; so image, hreflang and other foreign
elements are removed before validation and checked to be well-formed on their own.  The XSD is stricter
than W3C Datetime (no ``YYYY``, ``YYYY-MM`` or minute precision): lastmod values here are xsd:date or
xsd:dateTime.
"""

from __future__ import annotations

import datetime
import io
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import feedmap
from feedmap import Alternate, ChangeFreq, Diagnostic, Entry, Image, Options, W3CDate

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML = "http://www.w3.org/1999/xhtml"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
NEWS = "http://www.google.com/schemas/sitemap-news/0.9"
NEWS_XML = (
    f'<news:news xmlns:news="{NEWS}"><news:publication>'
    "<news:name>Example &amp; Co</news:name><news:language>en</news:language></news:publication>"
    "<news:publication_date>2024-06-01</news:publication_date><news:title>T</news:title></news:news>"
)


@pytest.fixture(scope="module")
def schemas(corpus_dir: Path) -> dict[str, etree.XMLSchema]:
    folder = corpus_dir / "xsd"
    paths = {"urlset": folder / "sitemap-0.9.xsd", "sitemapindex": folder / "siteindex-0.9.xsd"}
    missing = [str(path) for path in paths.values() if not path.is_file()]
    if missing:
        pytest.skip(f"sitemaps.org XSD not found: {', '.join(missing)}")
    return {root: etree.XMLSchema(etree.parse(str(path))) for root, path in paths.items()}


def strip_extensions(data: bytes) -> tuple[etree._Element, list[bytes]]:
    """The document without elements outside the sitemap namespace, and those elements serialized."""
    root = etree.fromstring(data)
    removed: list[bytes] = []
    for entry in root:
        for child in list(entry):
            if etree.QName(child).namespace != SM:
                removed.append(etree.tostring(child))
                entry.remove(child)
    return root, removed


def assert_valid(data: bytes, schemas: dict[str, etree.XMLSchema]) -> list[bytes]:
    """Assert the extension-free document is schema-valid and each extension element is well-formed."""
    root, removed = strip_extensions(data)
    schema = schemas[etree.QName(root).localname]
    if not schema.validate(root):
        pytest.fail(f"not valid against the XSD: {schema.error_log}\n{data.decode()[:2000]}")
    for fragment in removed:
        etree.fromstring(fragment)  # raises XMLSyntaxError if not well-formed standalone
    return removed


def write(
    entries: Iterable[Entry], format: str = "sitemap", *, schema_location: bool = False, encode_urls: bool = False
) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    summary = feedmap.write(
        entries, sink, format, options=feedmap.Options(schema_location=schema_location, encode_urls=encode_urls)
    )
    return sink.getvalue(), summary.diagnostics


FULL = Entry(
    loc="https://www.example.com/a?b=1&c='2'&d=\"3\"&e=<4>",
    lastmod=W3CDate("2024-02-03T04:05:06.789+07:00"),
    changefreq=ChangeFreq.MONTHLY,
    priority=0.25,
    images=(
        Image(
            loc="https://www.example.com/i.png",
            caption="c & <d>",
            geo_location="g",
            title="t",
            license="https://www.example.com/lic",
        ),
        Image(loc="https://www.example.com/j.png"),
    ),
    alternates=(Alternate(hreflang="de", href="https://www.example.com/de?x=1&y=2"),),
    extras={f"{{{NEWS}}}news": NEWS_XML},
)


@pytest.mark.parametrize("schema_location", [False, True])
def test_full_entry_is_valid(schemas: dict[str, etree.XMLSchema], schema_location: bool) -> None:
    data, _ = write([FULL, Entry(loc="https://www.example.com/min")], schema_location=schema_location)
    removed = assert_valid(data, schemas)
    tags = [etree.QName(etree.fromstring(fragment)).text for fragment in removed]
    assert tags == [f"{{{IMAGE}}}image", f"{{{IMAGE}}}image", f"{{{XHTML}}}link", f"{{{NEWS}}}news"]
    if schema_location:
        assert etree.fromstring(data).get(f"{{{XSI}}}schemaLocation") == f"{SM} {SM}/sitemap.xsd"


@pytest.mark.parametrize(
    "lastmod",
    ["2024-02-29", "2024-02-29+05:00", "2024-02-29T10:11:12Z", "2024-02-29T10:11:12", "2024-02-29T10:11:12.5-03:30"],
)
def test_every_xsd_lastmod_form_is_valid(schemas: dict[str, etree.XMLSchema], lastmod: str) -> None:
    data, _ = write([Entry(loc="https://www.example.com/", lastmod=W3CDate(lastmod))])
    assert_valid(data, schemas)
    index, _ = write([Entry(loc="https://www.example.com/s.xml", lastmod=W3CDate(lastmod))], "sitemapindex")
    assert_valid(index, schemas)


@pytest.mark.parametrize("lastmod", ["2024", "2024-02", "2024-02-29T10:11Z"])
def test_the_xsd_rejects_coarse_w3c_dates(schemas: dict[str, etree.XMLSchema], lastmod: str) -> None:
    """W3C Datetime allows these, the XSD does not: the oracle itself is checked, so the tests above mean something."""
    data = f'<urlset xmlns="{SM}"><url><loc>https://www.example.com/</loc><lastmod>{lastmod}</lastmod></url></urlset>'
    assert not schemas["urlset"].validate(etree.fromstring(data))


def test_empty_document_is_invalid_and_warned(schemas: dict[str, etree.XMLSchema]) -> None:
    data, diagnostics = write([])
    assert [d.code for d in diagnostics] == ["empty-document"]
    assert not schemas["urlset"].validate(etree.fromstring(data))


def test_index_is_valid(schemas: dict[str, etree.XMLSchema]) -> None:
    entries = [
        Entry(loc="https://www.example.com/sitemap-1.xml?a=1&b=2", lastmod=W3CDate("2024-01-02T03:04:05Z")),
        Entry(loc="https://www.example.com/sitemap-2.xml.gz"),
    ]
    for schema_location in (False, True):
        data, _ = write(entries, "sitemapindex", schema_location=schema_location)
        assert_valid(data, schemas)
        if schema_location:
            assert etree.fromstring(data).get(f"{{{XSI}}}schemaLocation") == f"{SM} {SM}/siteindex.xsd"


def test_encoded_protocol_example_is_valid(schemas: dict[str, etree.XMLSchema]) -> None:
    entries = [Entry(loc="http://www.example.com/ümlat.html&q=name"), Entry(loc="https://bücher.example/straße")]
    data, _ = write(entries, encode_urls=True, schema_location=True)
    assert_valid(data, schemas)


@pytest.mark.parametrize("case", ["text/urls.txt", "sitemapindex/index.xml"])
def test_samples_converted_to_sitemap_are_valid(
    schemas: dict[str, etree.XMLSchema], samples_dir: Path, tmp_path: Path, case: str
) -> None:
    out = tmp_path / "out.xml"
    options = Options(maps=(("https://www.example.com/", samples_dir / "site"),), schema_location=True)
    feedmap.convert(str(samples_dir / case), out, "sitemap", options=options)
    assert_valid(out.read_bytes(), schemas)


def test_basic_sample_is_valid_apart_from_its_year_only_lastmod(
    schemas: dict[str, etree.XMLSchema], samples_dir: Path
) -> None:
    data = (samples_dir / "sitemap" / "basic.expected.sitemap.xml").read_bytes()
    root, removed = strip_extensions(data)
    assert len(removed) == 4
    schema = schemas["urlset"]
    assert not schema.validate(root)
    assert [error.line for error in schema.error_log] == [5]  # type: ignore[attr-defined]  # <lastmod>2023
    for lastmod in root.iter(f"{{{SM}}}lastmod"):
        if lastmod.text == "2023":
            lastmod.text = "2023-01-01"
    assert schema.validate(root), schema.error_log


# ------------------------------------------------------------------------------------------------ properties

XSD_DATES = st.builds(
    lambda moment, form, zone: W3CDate(
        {
            "date": moment.strftime("%Y-%m-%d"),
            "date-zone": moment.strftime("%Y-%m-%d") + zone,
            "seconds": moment.strftime("%Y-%m-%dT%H:%M:%S") + zone,
            "local": moment.strftime("%Y-%m-%dT%H:%M:%S"),
            "fraction": moment.strftime("%Y-%m-%dT%H:%M:%S.%f") + zone,
        }[form]
    ),
    st.datetimes(min_value=datetime.datetime(1000, 1, 1)),
    st.sampled_from(["date", "date-zone", "seconds", "local", "fraction"]),
    st.sampled_from(["Z", "+00:00", "-08:00", "+05:30", "+14:00", "-12:00"]),
)
URI_CHARS = "abcdefghijklmnopqrstuvwxyzABC0123456789-._~!$&'()*+,;=:@/?"
URI_PIECES = st.lists(st.sampled_from(URI_CHARS) | st.sampled_from(["%41", "%c3%bc", "%2F"]), max_size=20).map("".join)
IRI_PIECES = st.lists(
    st.sampled_from(URI_CHARS) | st.sampled_from(["%41", "%", "%4", "é", "ü", "日本", " ", '"', "<", ">", "{", "|"]),
    max_size=20,
).map("".join)


def urls(pieces: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """``https://www.example.com/`` + path and query from ``pieces`` + an optional fragment."""
    fragment = st.none() | URI_PIECES.map(lambda text: "#" + text.replace("#", ""))
    return st.builds(lambda path, tail: f"https://www.example.com/{path}{tail or ''}", pieces, fragment)


TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Cn")), min_size=1, max_size=20)


def xsd_entries(locs: st.SearchStrategy[str]) -> st.SearchStrategy[Entry]:
    return st.builds(
        Entry,
        loc=locs,
        lastmod=st.none() | XSD_DATES,
        changefreq=st.none() | st.sampled_from(list(ChangeFreq)),
        priority=st.none() | st.floats(min_value=0.0, max_value=1.0),
        images=st.lists(st.builds(Image, loc=locs, caption=st.none() | TEXT, title=st.none() | TEXT), max_size=2).map(
            tuple
        ),
        alternates=st.lists(st.builds(Alternate, hreflang=st.sampled_from(["de", "en-GB"]), href=locs), max_size=2).map(
            tuple
        ),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(xsd_entries(urls(URI_PIECES)), min_size=1, max_size=4))
def test_written_sitemaps_are_valid(schemas: dict[str, etree.XMLSchema], entries: list[Entry]) -> None:
    """Valid URIs are written as they are and validate."""
    data, _ = write(entries, schema_location=True)
    assert_valid(data, schemas)
    index, _ = write(entries, "sitemapindex")
    assert_valid(index, schemas)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(xsd_entries(urls(IRI_PIECES)), min_size=1, max_size=4))
def test_encode_urls_makes_iris_valid(schemas: dict[str, etree.XMLSchema], entries: list[Entry]) -> None:
    """IRIs (non-ASCII, spaces, quotes, a lone %) become valid URIs with --encode-urls."""
    data, _ = write(entries, encode_urls=True)
    assert_valid(data, schemas)
    index, _ = write(entries, "sitemapindex", encode_urls=True)
    assert_valid(index, schemas)


@pytest.mark.parametrize(
    "loc", ["https://www.example.com/p?a[]=1", "https://www.example.com/[x]", "https://www.example.com/p#a#b"]
)
def test_encode_urls_escapes_brackets_and_a_second_hash(schemas: dict[str, etree.XMLSchema], loc: str) -> None:
    data, _ = write([Entry(loc=loc)], encode_urls=True)
    assert_valid(data, schemas)


def test_tiny_priorities_are_written_as_xsd_decimals(schemas: dict[str, etree.XMLSchema]) -> None:
    entries = [Entry(loc=f"https://www.example.com/{p}", priority=p) for p in (1e-7, 5e-324, 2.5e-05, 1.0, 0.0)]
    data, _ = write(entries)
    assert_valid(data, schemas)


# ------------------------------------------------------------------------------------------------ lastmods

MINUTE_DATES = st.builds(
    lambda moment, zone: W3CDate(moment.strftime("%Y-%m-%dT%H:%M") + zone),
    st.datetimes(min_value=datetime.datetime(1000, 1, 1)),
    st.sampled_from(["Z", "+00:00", "-08:00", "+05:30", "+14:00", "-12:00"]),
)


@pytest.mark.parametrize("format", ["sitemap", "sitemapindex"])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lastmods=st.lists(MINUTE_DATES | XSD_DATES, min_size=1, max_size=4))
def test_written_lastmods_are_xsd_valid_and_the_same_instant(
    schemas: dict[str, etree.XMLSchema], format: str, lastmods: list[W3CDate]
) -> None:
    """A time of minutes (W3C Datetime, not the XSD) is written with its seconds: the same instant, reported."""
    entries = [Entry(loc=f"https://www.example.com/{n}", lastmod=lastmod) for n, lastmod in enumerate(lastmods)]
    data, diagnostics = write(entries, format)
    assert_valid(data, schemas)
    written = [W3CDate(element.text or "") for element in etree.fromstring(data).iter(f"{{{SM}}}lastmod")]
    assert [date.to_datetime() for date in written] == [date.to_datetime() for date in lastmods]
    minutes = [date for date in lastmods if date.precision is feedmap.Precision.MINUTE]
    added = [d for d in diagnostics if d.code == "lastmod-seconds-added"]
    assert len(added) == len(minutes) and all(d.level is feedmap.Level.INFO for d in added)
    assert [d.code for d in diagnostics if d.level >= feedmap.Level.WARNING] == []


@pytest.mark.parametrize("format", ["sitemap", "sitemapindex"])
def test_a_lastmod_of_minutes_read_is_written_with_seconds(
    schemas: dict[str, etree.XMLSchema], format: str, tmp_path: Path
) -> None:
    source = tmp_path / "in.xml"
    source.write_text(
        f'<urlset xmlns="{SM}"><url><loc>https://www.example.com/a</loc><lastmod>2024-03-01T10:00Z</lastmod></url>'
        "<url><loc>https://www.example.com/b</loc><lastmod>2024-03-01T10:00+05:30</lastmod></url></urlset>"
    )
    out = tmp_path / "out.xml"
    summary = feedmap.convert(source, out, format)
    assert_valid(out.read_bytes(), schemas)
    written = [element.text for element in etree.parse(str(out)).iter(f"{{{SM}}}lastmod")]
    assert written == ["2024-03-01T10:00:00Z", "2024-03-01T10:00:00+05:30"]
    assert [d.code for d in summary.diagnostics if d.code.startswith("lastmod")] == ["lastmod-seconds-added"] * 2


@pytest.mark.parametrize("lastmod", ["2023", "2023-05", "2016-12-31T23:59:60Z"])
@pytest.mark.parametrize("format", ["sitemap", "sitemapindex"])
def test_a_year_or_month_lastmod_is_kept_and_warned_as_validate_warns(
    schemas: dict[str, etree.XMLSchema], format: str, lastmod: str, tmp_path: Path
) -> None:
    """A full date would invent a month or a day, ``:59`` another instant than a leap second (W3C Datetime
    takes ``:60``, xsd:dateTime does not): the value is kept, with the warning validate gives it."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.xml"
    source.write_text(f'{{"loc": "https://www.example.com/a", "lastmod": "{lastmod}"}}\n')
    summary = feedmap.convert(source, out, format)
    written = [element.text for element in etree.parse(str(out)).iter(f"{{{SM}}}lastmod")]
    assert written == [lastmod]
    warned = [d.code for d in summary.diagnostics if d.level >= feedmap.Level.WARNING and d.code.startswith("lastmod")]
    validated = [d.code for d in feedmap.validate(out).findings if d.code.startswith("lastmod")]
    assert warned == validated == ["lastmod-not-xsd"]
    root, _ = strip_extensions(out.read_bytes())
    assert not schemas[etree.QName(root).localname].validate(root)  # the warning is the XSD's own verdict
