"""Boundary tests: the edges of each value range, one test per edge a hand-made mutant moved undetected.

* dates (feedmap._core.dates): W3C-DTF (https://www.w3.org/TR/NOTE-datetime) and the sitemap XSD's
  ``xsd:date | xsd:dateTime`` (XML Schema 1.1 Part 2, D.3: years 0001-9999 here, since a value must become a
  ``datetime``; hours 00-23, minutes 00-59, seconds 00-60 with a leap second kept as text; zone offsets
  -14:00..+14:00).  The fast path (:func:`feedmap._core.dates._common_form`) must agree with the full grammar
  (``_W3C`` + ``_valid``): a hypothesis property checks it on date-like strings.
* URLs (feedmap._core.urls): RFC 3986 §3.4/§3.5 allow ``?`` and ``/`` in a query and a fragment; §6.2.3 makes an
  empty or default port the same as none, and scheme and host case-insensitive (the site of a URL).
* priorities (feedmap.formats._fields): an ``xsd:decimal`` from 0.0 to 1.0, both ends included.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Level, Reporter, W3CDate
from feedmap._core.dates import _COMMON, _W3C, _common_form, _valid, parse_lenient
from feedmap._core.urls import encode_url, origin, same_site
from feedmap.formats import Context
from feedmap.formats._fields import PLAIN_PRIORITIES, read_priority

# ------------------------------------------------------------------------------------------------ dates


def full_grammar(text: str) -> bool:
    """The full grammar alone (without the fast path): the regular expression and the range checks."""
    match = _W3C.fullmatch(text)
    return match is not None and _valid(match)


# Each value is given in several granularities so that both the fast path (date, or seconds with a zone) and
# the full grammar (minutes, fractions, no zone) see it.
INVALID_DATES = [
    "0000",  # year 0: datetime's years are 1-9999, so to_datetime() could not work
    "0000-01",
    "0000-01-01",
    "0000-01-01T00:00:00Z",
    "0000-01-01T00:00Z",
    "2005-00",  # month 00 and 13
    "2005-13",
    "2005-00-01",
    "2005-13-01",
    "2005-13-01T00:00:00Z",
    "2005-01-00",  # day 00 and 32
    "2005-01-32",
    "2005-01-32T00:00:00Z",
    "2005-04-31",
    "2005-04-31T00:00:00Z",
    "2005-02-29",  # not a leap year (and 1900 is not one either)
    "2005-02-29T00:00:00Z",
    "1900-02-29",
    "2005-01-01T24:00:00Z",  # hour 24 (XSD 1.0's 24:00:00 end of day is not kept: datetime cannot hold it)
    "2005-01-01T24:00Z",
    "2005-01-01T24:00:00",
    "2005-01-01T24:00:00.5+01:00",
    "2005-01-01T10:60:00Z",  # minute 60
    "2005-01-01T10:60Z",
    "2005-01-01T10:00:61Z",  # second 61
    "2005-01-01T10:00:61",
    "2005-01-01T10:00:00+14:30",  # past the end of the zone range
    "2005-01-01T10:00:00-14:30",
    "2005-01-01T10:00:00+14:01",
    "2005-01-01T10:00:00+15:00",
    "2005-01-01T10:00:00+24:00",
    "2005-01-01T10:00:00+13:60",  # zone minute 60
    "2005-01-01T10:00+14:30",
    "2005-01-01T10:00:00.5+14:30",
    "2005-01-01+14:30",
    "2005-01-01T10:00",  # minutes without a zone: W3C-DTF wants the zone, xsd:dateTime the seconds
    "2005-01-01T23:59",
]

VALID_DATES = [
    "0001",  # the first and last years
    "0001-01-01",
    "0001-01-01T00:00:00Z",
    "9999-12-31",
    "9999-12-31T23:59:59Z",
    "2004-02-29",  # leap years: divisible by 4, and 2000 by 400
    "2000-02-29T00:00:00Z",
    "2005-12-31",
    "2005-01-01T23:59:59Z",
    "2005-01-01T23:59Z",
    "2005-01-01T00:00:00Z",
    "2016-12-31T23:59:60Z",  # a leap second: kept as written, read as :59
    "2016-12-31T23:59:60",
    "2016-12-31T23:59:60.5+01:00",
    "2005-01-01T10:00:00+14:00",  # both ends of the zone range
    "2005-01-01T10:00:00-14:00",
    "2005-01-01T10:00:00+13:59",
    "2005-01-01T10:00+14:00",
    "2005-01-01T10:00:00-00:00",  # minus zero: allowed by the XSD lexical space, the same instant as Z
    "2005-01-01T10:00:00+00:00",
    "2005-01-01-14:00",
    "2005-01-01T10:00Z",  # minutes with a zone (W3C-DTF), seconds without one (xsd:dateTime)
    "2005-01-01T10:00:00",
    "2005-01-01T10:00:00.5",
]


@pytest.mark.parametrize("text", INVALID_DATES)
def test_dates_past_each_edge_are_rejected(text: str) -> None:
    assert not _common_form(text)
    assert not full_grammar(text)
    with pytest.raises(ValueError):
        W3CDate(text)


@pytest.mark.parametrize("text", INVALID_DATES)
def test_dates_past_each_edge_are_not_read_as_written(text: str) -> None:
    value, note = parse_lenient(text)
    assert note is not None  # repaired (with a note) or refused, never taken silently
    if value is not None:
        value.to_datetime()  # and whatever was made of it is a real instant


@pytest.mark.parametrize("text", VALID_DATES)
def test_dates_at_each_edge_are_accepted(text: str) -> None:
    assert full_grammar(text)
    value = W3CDate(text)
    assert value.text == text
    moment = value.to_datetime()  # every accepted value becomes a datetime
    assert moment.tzinfo is not None
    assert isinstance(value.sort_key(), float)


def test_minutes_without_a_zone_are_repaired_to_seconds(tmp_path: Path) -> None:
    """In neither grammar; read (with a warning) as the xsd:dateTime it means, so a sitemap written from it
    validates against the sitemap XSD."""
    assert parse_lenient("2005-01-01T10:00") == (
        W3CDate("2005-01-01T10:00:00"),
        "'2005-01-01T10:00' is not W3C Datetime; read as '2005-01-01T10:00:00'",
    )
    path = tmp_path / "s.xml"
    path.write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<url><loc>https://a.example/</loc><lastmod>2005-01-01T10:00</lastmod></url>\n</urlset>\n",
        "utf-8",
    )
    reporter = Reporter()
    with feedmap.read(path, reporter=reporter) as doc:
        (entry,) = doc
    assert entry.lastmod == W3CDate("2005-01-01T10:00:00")
    assert [(d.code, d.line) for d in reporter.diagnostics] == [("lastmod-repaired", 2)]


def test_a_leap_second_is_read_as_the_second_before() -> None:
    leap = W3CDate("2016-12-31T23:59:60.5+01:00").to_datetime()
    assert leap == dt.datetime(2016, 12, 31, 23, 59, 59, 500000, tzinfo=dt.timezone(dt.timedelta(hours=1)))


def test_minus_zero_is_the_same_instant_as_zulu() -> None:
    minus_zero = W3CDate("2005-01-01T10:00:00-00:00")
    assert minus_zero.offset == dt.timedelta(0)
    assert minus_zero.to_datetime() == W3CDate("2005-01-01T10:00:00Z").to_datetime()
    assert minus_zero != W3CDate("2005-01-01T10:00:00Z")  # but written differently, so kept as written


# The fast path agrees with the full grammar -------------------------------------------------------------------


def _two(low: int, high: int) -> st.SearchStrategy[str]:
    """Two digits, mostly within ``low..high`` but also just past both ends (and 00/99)."""
    return st.one_of(
        st.integers(min_value=low, max_value=high),
        st.sampled_from([low - 1, high + 1, 0, 99]).filter(lambda n: 0 <= n <= 99),
    ).map(lambda n: f"{n:02d}")


_ZONE = st.one_of(
    st.just("Z"),
    st.just(""),
    st.builds(lambda sign, hh, mm: f"{sign}{hh}:{mm}", st.sampled_from("+-"), _two(0, 14), _two(0, 59)),
)


@st.composite
def date_like(draw: st.DrawFn) -> str:
    """Strings shaped like W3C dates, with each part drawn near and past the edges of its range."""
    year = draw(st.one_of(st.integers(min_value=0, max_value=9999), st.sampled_from([0, 1, 1900, 2000, 9999])))
    text = f"{year:04d}"
    parts = draw(st.integers(min_value=0, max_value=6))
    if parts >= 1:
        text += "-" + draw(_two(1, 12))
    if parts >= 2:
        text += "-" + draw(_two(1, 31))
    if parts >= 3:
        text += "T" + draw(_two(0, 23)) + ":" + draw(_two(0, 59))
        if parts >= 4:
            text += ":" + draw(_two(0, 60))
        if parts >= 5:
            text += "." + draw(st.text(alphabet="0123456789", min_size=1, max_size=8))
    if parts >= 2:
        text += draw(_ZONE)
    if parts == 6:  # any other character somewhere
        where = draw(st.integers(min_value=0, max_value=len(text)))
        text = text[:where] + draw(st.characters(codec="utf-8")) + text[where:]
    return text


def _as_datetime(text: str) -> dt.datetime:
    """What the fast path's parser (datetime.fromisoformat) reads, missing zone as UTC like to_datetime."""
    moment = dt.datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.timezone.utc)


@settings(max_examples=600)
@given(st.one_of(date_like(), st.text(alphabet="0123456789-+:TZ.", max_size=30), st.text(max_size=30)))
@example("2005-01-01T10:00:00+14:30")
@example("2005-01-01T10:00:00-14:30")
@example("2005-01-01T24:00:00Z")
@example("0000-01-01")
@example("2016-12-31T23:59:60Z")
@example("2005-01-01T10:00:00-00:00")
@example("2005-01-01T10:00:00+00:60")
def test_property_the_fast_path_agrees_with_the_full_grammar(text: str) -> None:
    fast = _common_form(text)
    full = full_grammar(text)
    if fast:
        # a quick yes is a yes of the full grammar, for the same instant
        assert full, text
        assert W3CDate(text).to_datetime() == _as_datetime(text), text
    elif full and _COMMON.fullmatch(text) is not None:
        # the fast path may only pass on a form it does not handle: a leap second (fromisoformat refuses it)
        assert text[17:19] == "60", text
    # whatever the path, W3CDate accepts exactly what the full grammar accepts, and can always convert it
    try:
        value = W3CDate(text)
    except ValueError:
        assert not full, text
    else:
        assert full, text
        value.to_datetime()


# ------------------------------------------------------------------------------------------------- URLs


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/p?a=b?c",  # '?' within a query (RFC 3986 §3.4)
        "http://example.com/p?next=/a/b?c=d",
        "http://example.com/p#frag?x",  # '?' and '/' within a fragment (§3.5)
        "http://example.com/p#/route?x=1",
        "http://example.com/p?q=1#a?b/c",
        "http://example.com/p??",
    ],
)
def test_encode_url_keeps_question_marks_in_query_and_fragment(url: str) -> None:
    assert encode_url(url) == url


def test_encode_url_encodes_around_question_marks_in_query_and_fragment() -> None:
    assert encode_url("http://example.com/p?a=ü?#ö?") == "http://example.com/p?a=%C3%BC?#%C3%B6?"


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("https://e.com:443/x", "https://e.com/"),  # the default port written out (RFC 3986 §6.2.3)
        ("https://e.com/x", "https://e.com:443/"),
        ("http://e.com:80/x", "http://e.com/"),
        ("http://e.com/x", "http://e.com:80/"),
        ("http://e.com:/x", "http://e.com/"),  # an empty port is the default one
        ("HTTPS://E.COM/x", "https://e.com/"),  # scheme and host are case-insensitive
        ("https://e.com/x", "HTTPS://E.Com:443/"),
        ("http://e.com./x", "http://e.com/"),  # the root label's dot
        ("http://[::1]:80/x", "http://[::1]/"),  # IPv6 literals, default port written out
        ("https://[2001:DB8::1]:443/x", "https://[2001:db8::1]/"),
        ("http://user:pw@e.com/x", "http://e.com/"),  # user information is not part of the site
    ],
)
def test_same_site_ignores_default_ports_and_case(url: str, base: str) -> None:
    assert same_site(url, base)
    assert same_site(base, url)


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("https://e.com:8443/x", "https://e.com/"),
        ("http://e.com:443/x", "https://e.com/"),  # the https port under http is another site
        ("http://e.com:443/x", "http://e.com/"),
        ("https://e.com:80/x", "https://e.com/"),
        ("http://e.com/x", "https://e.com/"),  # another scheme
        ("http://e.com:0/x", "http://e.com/"),  # port 0 is not "no port"
        ("http://e.com:8080/x", "http://e.com:8081/"),
        ("http://[::1]:8080/x", "http://[::1]/"),
        ("http://[::1]/x", "http://[::2]/"),
        ("http://www.e.com/x", "http://e.com/"),  # another host
    ],
)
def test_same_site_tells_other_ports_schemes_and_hosts_apart(url: str, base: str) -> None:
    assert not same_site(url, base)
    assert not same_site(base, url)


def test_origin_makes_the_default_port_explicit() -> None:
    assert origin("HTTPS://Example.COM/x") == ("https", "example.com", 443)
    assert origin("http://example.com:/x") == ("http", "example.com", 80)
    assert origin("http://[::1]:8080/") == ("http", "::1", 8080)


# ------------------------------------------------------------------------------------------- priorities


def _read_priority(text: str) -> tuple[float | None, list[tuple[Level, str]]]:
    reporter = Reporter()
    value = read_priority(text, Context(reporter=reporter, name="t"), 1)
    return value, [(d.level, d.code) for d in reporter.diagnostics]


@pytest.mark.parametrize(
    ("text", "number"),
    [("0", 0.0), ("0.0", 0.0), ("0.00", 0.0), ("1", 1.0), ("1.0", 1.0), ("1.00", 1.0), ("0.5", 0.5), ("0.99", 0.99)],
)
def test_priorities_at_the_ends_of_the_range_are_read_without_a_word(text: str, number: float) -> None:
    assert _read_priority(text) == (number, [])
    assert _read_priority(f" {text}\n") == (number, [])  # xsd:decimal collapses blanks
    assert PLAIN_PRIORITIES.get(text, number) == number  # the sitemap reader's fast path agrees


@pytest.mark.parametrize(("text", "number"), [("1.000", 1.0), ("1.0000000000", 1.0), ("0.000", 0.0)])
def test_more_zeros_at_the_ends_are_still_in_range(text: str, number: float) -> None:
    value, diagnostics = _read_priority(text)
    assert value == number
    assert all(level is Level.INFO for level, _ in diagnostics)  # never a warning: --strict reads it


@pytest.mark.parametrize("text", ["1.01", "1.0000001", "2", "-0.01", "-1"])
def test_priorities_just_past_the_ends_are_ignored_with_a_warning(text: str) -> None:
    """Not clamped: 2 is an invalid value, not a claim to the top priority."""
    assert _read_priority(text) == (None, [(Level.WARNING, "priority-invalid")])


def test_minus_zero_is_zero_with_a_note() -> None:
    value, diagnostics = _read_priority("-0.0")
    assert value == 0.0 and str(value) == "0.0"
    assert diagnostics == [(Level.INFO, "priority-normalised")]


def test_an_offset_of_24_hours_is_an_invalid_lastmod_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from feedmap.cli import main

    dates = ["2005-01-01T10:00:00+24:00", "2005-01-01T10:00:00-24:00", "2005-01-01 10:00 +9999"]
    body = "".join(f"<url><loc>https://a.example/{n}</loc><lastmod>{t}</lastmod></url>\n" for n, t in enumerate(dates))
    path = tmp_path / "s.xml"
    path.write_text(f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}</urlset>\n', "utf-8")
    assert main(["convert", str(path), "-t", "text"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [f"https://a.example/{n}" for n in range(3)]
    assert captured.err.count("warning[lastmod-invalid]") == 3
    assert "Traceback" not in captured.err
