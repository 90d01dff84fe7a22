"""Property tests: for every registered format that reads and writes, ``read(write(entries))`` gives back
the entries projected on the format's ``fields`` (``origin`` is never compared).

Values are generated in the form a format can hold exactly: XML formats trim blanks around text values
and cannot hold characters XML 1.0 forbids, so their text values are generated trimmed and XML-safe;
XML formats keep only verbatim-XML extras (``{namespace}local`` keys), text extras are dropped by design.
"""

from __future__ import annotations

import dataclasses
import datetime
import io
import re
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import feedmap
from feedmap import (
    Alternate,
    ChangeFreq,
    Entry,
    FormatSpec,
    Image,
    News,
    Precision,
    Reporter,
    Video,
    VideoPrice,
    W3CDate,
)
from feedmap._core.model import ENTRY_FIELDS
from feedmap.formats import Context
from feedmap.formats._registry import all_formats
from feedmap.formats._xmlwrite import PRIORITY_PLACES
from feedmap.formats.feeds import _html as _feedhtml
from feedmap.formats.feeds._html import unambiguous_ampersands

#: Formats whose extras are XML: only ``{namespace}local`` keys survive; every other format keeps all.
XML_FORMATS = frozenset({"sitemap", "sitemapindex", "rss", "ror", "atom"})
#: Fields a format's writer fills in when absent (an RSS item needs a title: the loc stands in), so they
#: are always generated with a value for that format.
ALWAYS_SET: dict[str, frozenset[str]] = {"rss": frozenset({"title"}), "ror": frozenset({"title"})}

ROUND_TRIP_FORMATS = [spec for spec in all_formats() if spec.reader is not None and spec.writer is not None]

# ------------------------------------------------------------------------------------------------ strategies

URL_ALPHABET = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?#%<>\"[]{}|^`éüßçø日本語€Ωж"
)
HOSTS = ["www.example.com", "example.org", "bücher.example", "例え.テスト", "xn--bcher-kva.example", "127.0.0.1:8080"]


URLS: st.SearchStrategy[str] = st.builds(
    lambda scheme, host, path: f"{scheme}://{host}/{path}",
    st.sampled_from(["http", "https"]),
    st.sampled_from(HOSTS),
    st.text(alphabet=URL_ALPHABET, max_size=40),
)

#: Text an XML element holds exactly: no forbidden characters, no surrounding blanks, not empty.
XML_TEXT: st.SearchStrategy[str] = (
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Cn")) | st.sampled_from("&<>'\"\n\t"),
        min_size=1,
        max_size=20,
    )
    .map(str.strip)
    .filter(bool)
)

#: Text that survives feedparser unchanged: it decodes entities and repairs what looks like mojibake in
#: titles and descriptions, so the rss reader is checked on plain text.
FEED_TEXT: st.SearchStrategy[str] = (
    st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .:;!?-_()'", min_size=1, max_size=20
    )
    .map(str.strip)
    .filter(bool)
)

#: Text the ror reader keeps exactly: it undoes double escaping (text that still looks like an entity
#: reference after parsing is unescaped once, with a warning), so no entity-like text here; and no
#: markup: the writer keeps titles plain text and descriptions HTML an RSS description may hold (a tag HTML
#: does not allow is removed, html-sanitized; markup in a title is written as its text, markup-in-text).
ROR_TEXT: st.SearchStrategy[str] = XML_TEXT.filter(
    lambda text: re.search(r"&(?:#?\w+);", text) is None and re.search(r"<[A-Za-z/]", text) is None
)

#: Text an Atom title, summary and category keep exactly: XML text without markup (a title is plain text, a
#: description HTML an entry may hold, as in RSS).
ATOM_TEXT: st.SearchStrategy[str] = XML_TEXT.filter(lambda text: re.search(r"<[A-Za-z/!?]", text) is None)

#: Any Unicode string (no lone surrogates, which UTF-8 cannot carry).
ANY_TEXT: st.SearchStrategy[str] = st.text(alphabet=st.characters(codec="utf-8"), max_size=20)


ZONES = ["Z", "+00:00", "-08:00", "+05:30", "+14:00", "-12:00", "+01:00"]


@st.composite
def w3c_dates(draw: st.DrawFn) -> W3CDate:
    """Every granularity of W3C Datetime, plus the XSD forms (time without zone, date with zone)."""
    moment = draw(st.datetimes(min_value=datetime.datetime(1000, 1, 1)))
    granularity = draw(
        st.sampled_from(["year", "month", "day", "minute", "second", "fraction", "local-time", "day-zone"])
    )
    zone = draw(st.sampled_from(ZONES))
    day = f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
    text = {
        "year": f"{moment.year:04d}",
        "month": f"{moment.year:04d}-{moment.month:02d}",
        "day": day,
        "minute": f"{day}T{moment.hour:02d}:{moment.minute:02d}{zone}",
        "second": f"{day}T{moment:%H:%M:%S}{zone}",
        "fraction": f"{day}T{moment:%H:%M:%S}.{draw(st.integers(0, 999_999)):0{draw(st.integers(1, 6))}d}{zone}",
        "local-time": f"{day}T{moment:%H:%M:%S}",
        "day-zone": f"{day}{zone}",
    }[granularity]
    return W3CDate(text)


def images(text: st.SearchStrategy[str]) -> st.SearchStrategy[Image]:
    return st.builds(
        Image,
        loc=URLS,
        caption=st.none() | text,
        geo_location=st.none() | text,
        title=st.none() | text,
        license=st.none() | URLS,
    )


def alternates() -> st.SearchStrategy[Alternate]:
    return st.builds(
        Alternate,
        hreflang=st.sampled_from(["de", "en-GB", "x-default", "zh-Hant-TW", "fr"]),
        href=URLS,
    )


FOREIGN_NAMESPACES = [
    ("mobile", "http://www.google.com/schemas/sitemap-mobile/1.0", "mobile"),
    ("x", "urn:example:extension", "thing"),
]


@st.composite
def kept_children(draw: st.DrawFn) -> dict[str, str]:
    """What a news entry or video keeps verbatim: a child of a foreign namespace, a video's category (a child its
    XSD names that no part holds), as the readers serialize them."""
    chosen = draw(
        st.lists(
            st.sampled_from([("x", "urn:example:extension", "note"), ("video", VIDEO_NS, "category")]),
            unique=True,
            max_size=2,
        )
    )
    kept = {}
    for prefix, namespace, local in chosen:
        element = etree.Element(f"{{{namespace}}}{local}", nsmap={prefix: namespace})
        element.text = draw(XML_TEXT)
        kept[f"{{{namespace}}}{local}"] = etree.tostring(element, encoding="unicode")
    return kept


VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"


def news(text: st.SearchStrategy[str]) -> st.SearchStrategy[News]:
    maybe = st.none() | text
    return st.builds(
        News,
        publication_name=maybe,
        publication_language=maybe,
        publication_date=st.none() | w3c_dates(),
        title=maybe,
        keywords=maybe,
        genres=maybe,
        stock_tickers=maybe,
        access=maybe,
        extras=kept_children(),
    )


def videos(text: st.SearchStrategy[str]) -> st.SearchStrategy[Video]:
    maybe, flag, url = st.none() | text, st.none() | st.booleans(), st.none() | URLS
    words = st.lists(st.sampled_from(["IE", "GB", "US", "web", "tv", "mobile"]), max_size=3).map(tuple)
    price = st.builds(
        VideoPrice,
        value=st.just("") | st.sampled_from(["1.99", "0", "12.50"]),
        currency=st.none() | st.sampled_from(["EUR", "USD"]),
        type=st.none() | st.sampled_from(["rent", "purchase"]),
        resolution=st.none() | st.sampled_from(["HD", "SD"]),
    )
    return st.builds(
        Video,
        thumbnail_loc=url,
        title=maybe,
        description=maybe,
        content_loc=url,
        player_loc=url,
        player_allow_embed=flag,
        player_autoplay=maybe,
        duration=st.none() | st.integers(0, 10**12),
        expiration_date=st.none() | w3c_dates(),
        rating=st.none() | st.floats(0.0, 5.0),
        view_count=st.none() | st.integers(0, 10**12),
        publication_date=st.none() | w3c_dates(),
        tags=st.lists(text, max_size=2).map(tuple),
        family_friendly=flag,
        restriction=words,
        restriction_relationship=st.none() | st.sampled_from(["allow", "deny"]),
        prices=st.lists(price, max_size=2).map(tuple),
        requires_subscription=flag,
        uploader=maybe,
        uploader_info=url,
        platform=words,
        platform_relationship=st.none() | st.sampled_from(["allow", "deny"]),
        live=flag,
        extras=kept_children(),
    ).map(_attributes_with_their_element)


def _attributes_with_their_element(video: Video) -> Video:
    """A video whose attributes have their element: the ``autoplay`` of no ``player_loc`` is not written (said)."""
    if video.player_loc is None:
        video = dataclasses.replace(video, player_allow_embed=None, player_autoplay=None)
    return video if video.uploader is not None else dataclasses.replace(video, uploader_info=None)


@st.composite
def xml_extras(draw: st.DrawFn) -> dict[str, str]:
    """Verbatim foreign elements, serialized as the readers serialize them."""
    chosen = draw(st.lists(st.sampled_from(FOREIGN_NAMESPACES), unique=True, max_size=2))
    extras = {}
    for prefix, namespace, local in chosen:
        element = etree.Element(f"{{{namespace}}}{local}", nsmap={prefix: namespace})
        if draw(st.booleans()):
            element.set("kind", draw(XML_TEXT))
        child = etree.SubElement(element, f"{{{namespace}}}title")
        child.text = draw(XML_TEXT)
        extras[f"{{{namespace}}}{local}"] = etree.tostring(element, encoding="unicode")
    return extras


def text_extras() -> st.SearchStrategy[dict[str, str]]:
    keys = st.sampled_from(["ror:sortOrder", "ror:about", "x:note", "feed:guid"])
    return st.dictionaries(keys, ANY_TEXT, max_size=3)


#: Values for the fields a format does not hold: cheap to draw, and still checked to be dropped.
UNHELD_SAMPLES: dict[str, object] = {
    "lastmod": W3CDate("2024-01-02"),
    "changefreq": ChangeFreq.DAILY,
    "priority": 0.5,
    "title": "A title",
    "description": "A description",
    "keywords": ("a", "b"),
    "type": "Article",
    "images": (Image(loc="https://www.example.com/i.png", caption="c"),),
    "alternates": (Alternate(hreflang="de", href="https://www.example.com/de"),),
    "news": News(publication_name="P", publication_language="en", publication_date="2024-01-02", title="T"),
    "videos": (Video(thumbnail_loc="https://www.example.com/t.png", title="V", description="D"),),
    "extras": {"x:note": "n"},
}


#: Priorities every writer keeps exactly: at most PRIORITY_PLACES decimal places (5e-324 is written as 0.0).
PRIORITIES = st.floats(min_value=0.0, max_value=1.0).map(lambda priority: round(priority, PRIORITY_PLACES))


#: The lastmods an Atom feed holds exactly (as its RFC 3339 ``updated``, or beside it as ``dc:date``): a W3C
#: Datetime, not the XSD's time without zone or date with one (Atom writes the instant they start at).
ATOM_DATES = w3c_dates().filter(lambda date: ("T" in date.text) == bool(re.search(r"(?:Z|[+-]\d\d:\d\d)$", date.text)))


def field_strategies(spec: FormatSpec, atom: bool = False) -> dict[str, st.SearchStrategy[object]]:
    """A strategy per IR field: values the format holds exactly, or fixed samples for fields it drops; ``atom``:
    values an Atom feed holds exactly too (the entries go through one)."""
    xml = spec.name in XML_FORMATS
    text = {"rss": FEED_TEXT, "ror": ROR_TEXT, "atom": ATOM_TEXT}.get(spec.name, XML_TEXT if xml else ANY_TEXT)
    # ror:keywords is one comma-separated element: a keyword cannot hold a comma there
    keyword = text.filter(lambda word: "," not in word) if spec.name == "ror" else text
    held: dict[str, st.SearchStrategy[object]] = {
        "loc": URLS,
        # Atom requires a date of each entry: one without a lastmod reads back with the feed's
        "lastmod": ATOM_DATES if atom else st.none() | w3c_dates(),
        "changefreq": st.none() | st.sampled_from(list(ChangeFreq)),
        "priority": st.none() | PRIORITIES,
        "title": st.none() | text,
        "description": st.none() | text,
        # feedparser merges repeated categories, so rss keywords are distinct
        "keywords": st.lists(keyword, max_size=3, unique=spec.name == "rss" or atom).map(tuple),
        "type": st.none() | text,
        "images": st.lists(images(text), max_size=2).map(tuple),
        # an Atom entry holds one alternate link per language
        "alternates": (
            st.lists(alternates(), max_size=2, unique_by=lambda a: a.hreflang)
            if atom
            else st.lists(alternates(), max_size=2)
        ).map(tuple),
        # read by the extensions' hooks (lxml), not by a feed reader's text repairs: any text XML holds
        "news": st.none() | news(XML_TEXT if xml else ANY_TEXT),
        "videos": st.lists(videos(XML_TEXT if xml else ANY_TEXT), max_size=1).map(tuple),
        "extras": xml_extras() if xml else st.builds(lambda a, b: {**a, **b}, xml_extras(), text_extras()),
    }
    for name in ALWAYS_SET.get(spec.name, frozenset()):
        held[name] = text
    unheld = {name: st.sampled_from([_DEFAULTS[name], UNHELD_SAMPLES[name]]) for name in UNHELD_SAMPLES}
    return {name: held[name] if name in spec.fields or name == "loc" else unheld[name] for name in held}


def entries_for(spec: FormatSpec, atom: bool = False) -> st.SearchStrategy[Entry]:
    """Entries whose values the format (and, with ``atom``, an Atom feed) can hold exactly (fields it cannot hold
    are filled too)."""
    return st.builds(Entry, **field_strategies(spec, atom or spec.name == "atom"))


# ------------------------------------------------------------------------------------------------ helpers

_DEFAULTS = {field.name: field.default for field in dataclasses.fields(Entry) if field.name in ENTRY_FIELDS}
_DEFAULTS.update(extras={})


def project(entry: Entry, spec: FormatSpec) -> Entry:
    """The entry as the format can hold it: fields outside ``spec.fields`` reset to their defaults."""
    changes: dict[str, object] = {name: _DEFAULTS[name] for name in ENTRY_FIELDS if name not in spec.fields}
    if "extras" in spec.fields and spec.name in XML_FORMATS:
        changes["extras"] = {key: value for key, value in entry.extras.items() if key.startswith("{")}
    if spec.name in FEED_FORMATS and "description" in spec.fields and entry.description is not None:
        # a feed description is HTML: an ``&`` that starts no reference is written (and read back) ``&amp;``
        changes["description"] = unambiguous_ampersands(entry.description)
    if spec.name in XSD_FORMATS and "lastmod" in spec.fields:
        changes["lastmod"] = with_seconds(entry.lastmod)
    if spec.name == "csv":  # an empty cell is no value: an empty title and no title are one cell
        changes.update({name: None for name in EMPTY_IS_NONE if getattr(entry, name) == ""})
    return dataclasses.replace(entry, **changes)  # type: ignore[arg-type]


#: The text fields a CSV file holds in a cell of their own: empty, they are read back as absent.
EMPTY_IS_NONE = ("title", "description", "type")


#: The formats whose lastmod is the sitemaps XSD's: a time of minutes is written with ``:00`` seconds.
XSD_FORMATS = frozenset({"sitemap", "sitemapindex"})


def with_seconds(lastmod: W3CDate | None) -> W3CDate | None:
    """The lastmod as a sitemap writes it: the same instant, with seconds when it was given to the minute."""
    if lastmod is None or lastmod.precision is not Precision.MINUTE:
        return lastmod
    return W3CDate(re.sub(r"(T\d\d:\d\d)", r"\1:00", lastmod.text, count=1))


#: The formats whose description is HTML.
FEED_FORMATS = frozenset({"rss", "ror", "atom"})


def write_then_read(entries: Sequence[Entry], spec: FormatSpec) -> list[Entry]:
    sink = io.BytesIO()
    feedmap.write(
        entries, sink, spec.name, options=feedmap.Options(keep_urls=True)
    )  # URLs as read: XML outputs encode IRIs otherwise
    reporter = Reporter()
    with feedmap.read(
        io.BytesIO(sink.getvalue()), format=spec.name, reporter=reporter, options=feedmap.Options(follow=False)
    ) as doc:
        return list(doc)


# ------------------------------------------------------------------------------------------------ tests


def test_the_built_in_formats_take_part() -> None:
    assert {"sitemap", "sitemapindex", "text", "jsonl"} <= {spec.name for spec in ROUND_TRIP_FORMATS}


@pytest.mark.parametrize("spec", ROUND_TRIP_FORMATS, ids=lambda spec: spec.name)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_read_write_round_trip(spec: FormatSpec, data: st.DataObject) -> None:
    entries = data.draw(st.lists(entries_for(spec), max_size=4, unique_by=lambda e: e.loc), label="entries")
    assert write_then_read(entries, spec) == [project(entry, spec) for entry in entries]


@pytest.mark.parametrize("spec", ROUND_TRIP_FORMATS, ids=lambda spec: spec.name)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_round_trip_is_stable(spec: FormatSpec, data: st.DataObject) -> None:
    """Writing what was read gives the same bytes again (a writer's output is a fixed point); for a format that
    writes where each entry was read (parquet's sitemap and line columns), once it was read from itself."""
    entries = data.draw(st.lists(entries_for(spec), max_size=3, unique_by=lambda e: e.loc), label="entries")
    first = io.BytesIO()
    feedmap.write(entries, first, spec.name)
    if spec.name in WRITES_ORIGIN:
        first = _rewritten(first.getvalue(), spec)
    assert _rewritten(first.getvalue(), spec).getvalue() == first.getvalue()


#: Formats that write where each entry was read (``Entry.origin``): the parquet format's sitemap and line columns.
WRITES_ORIGIN = frozenset({"parquet"})


def _rewritten(written: bytes, spec: FormatSpec) -> io.BytesIO:
    """What ``written`` (in ``spec``) gives when read and written again."""
    with feedmap.read(io.BytesIO(written), format=spec.name, options=feedmap.Options(follow=False)) as doc:
        again = io.BytesIO()
        feedmap.write(doc, again, spec.name)
    return again


# ------------------------------------------------------------------------------------------ format pairs

#: From the format whose text survives least unchanged to the one that keeps anything; a pair's entries
#: are drawn as the more restrictive of its two formats can hold them.
_RESTRICTIVENESS = ["rss", "ror", "atom", "sitemap", "sitemapindex", "text", "csv", "jsonl"]


def _pair_spec(first: FormatSpec, second: FormatSpec) -> FormatSpec:
    """A stand-in spec holding what both formats hold, named after the more restrictive one."""
    order = {name: rank for rank, name in enumerate(_RESTRICTIVENESS)}
    strict = min((first, second), key=lambda spec: order.get(spec.name, len(order)))
    return dataclasses.replace(strict, fields=first.fields & second.fields)


PAIRS = [(a, b) for a in ROUND_TRIP_FORMATS for b in ROUND_TRIP_FORMATS if a.name != b.name]


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=lambda spec: spec.name)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_format_pair_keeps_the_fields_both_hold(
    first: FormatSpec, second: FormatSpec, data: st.DataObject
) -> None:
    """X -> Y -> back through Y's reader keeps every field X and Y both hold (and only those)."""
    both = _pair_spec(first, second)
    atom = "atom" in (first.name, second.name)
    entries = data.draw(st.lists(entries_for(both, atom), max_size=3, unique_by=lambda e: e.loc), label="entries")
    through_first = write_then_read(entries, first)
    through_both = write_then_read(through_first, second)
    # compared on what both hold: a field outside it may come back filled in (an RSS title from the loc)
    expected = [project(entry, both) for entry in entries]
    if {first.name, second.name} & XSD_FORMATS:
        expected = [dataclasses.replace(entry, lastmod=with_seconds(entry.lastmod)) for entry in expected]
    assert [project(entry, both) for entry in through_both] == expected


def test_control_characters_in_a_description_are_dropped_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A description made of characters XML cannot hold loses them (reported) building their set once, not
    once per character: that made a 1 MB description of control characters take hours."""
    built = []

    def counted_set(*args: object) -> set[object]:
        built.append(1)
        return set(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(_feedhtml, "set", counted_set, raising=False)
    codes = []
    ctx = Context(reporter=Reporter(handler=lambda diagnostic: codes.append(diagnostic.code)))
    value = "<p>" + "\x01\x02" * 5_000 + "</p>"
    assert _feedhtml.description_html(value, "https://e.com/a", ctx) == "<p></p>"
    assert _feedhtml.plain_text(value, "title", "https://e.com/a", ctx) == "<p></p>"
    assert codes and len(built) <= 4


@pytest.mark.parametrize("depth", [300, 20_000])
def test_a_script_nested_past_the_parsers_depth_is_still_sanitized(depth: int) -> None:
    """lxml's HTML parser silently drops elements nested past 255 levels, so a ``<script>`` that deep went
    unseen and the description was written as it came: now such a fragment is sanitized (reported)."""
    codes = []
    ctx = Context(reporter=Reporter(handler=lambda diagnostic: codes.append(diagnostic.code)))
    value = "<b>" * depth + "<script>alert(1)</script>" + "</b>" * depth
    written = _feedhtml.description_html(value, "https://e.com/a", ctx)
    assert "<script" not in written and "alert" not in written
    assert written.count("<b>") == depth
    assert codes == ["html-sanitized"]
