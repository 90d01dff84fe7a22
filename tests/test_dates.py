"""feedmap._core.dates: W3C Datetime values kept as written, lenient repairs, RFC 822 output.

References: W3C-DTF (https://www.w3.org/TR/NOTE-datetime) has six granularities and requires a zone
designator with a time; the sitemap XSD (xsd:date | xsd:dateTime) also allows a time without zone and a
date with zone.  Zone offsets range from -14:00 to +14:00 (XML Schema 1.1 Part 2, D.3.7).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feedmap import Precision, W3CDate
from feedmap._core.dates import parse_lenient, to_rfc822

# ------------------------------------------------------------------------------------ kept as written

GRANULARITIES = [
    ("1997", Precision.YEAR),
    ("1997-07", Precision.MONTH),
    ("1997-07-16", Precision.DAY),
    ("1997-07-16T19:20+01:00", Precision.MINUTE),
    ("1997-07-16T19:20:30+01:00", Precision.SECOND),
    ("1997-07-16T19:20:30.45+01:00", Precision.FRACTION),
]


@pytest.mark.parametrize(("text", "precision"), GRANULARITIES)
def test_every_w3c_granularity_is_kept_byte_exact(text: str, precision: Precision) -> None:
    value = W3CDate(text)
    assert value.text == text
    assert str(value) == text
    assert value.precision is precision
    assert W3CDate(str(value)) == value


def test_precisions_are_ordered_coarsest_to_finest() -> None:
    assert [p for _, p in GRANULARITIES] == sorted(p for _, p in GRANULARITIES)


def test_zulu_and_negative_offsets_are_kept() -> None:
    assert W3CDate("1997-07-16T19:20:30Z").text == "1997-07-16T19:20:30Z"
    assert W3CDate("1997-07-16T19:20:30-05:00").offset == -dt.timedelta(hours=5)
    assert W3CDate("1997-07-16T19:20:30Z").offset == dt.timedelta(0)
    assert W3CDate("1997-07-16").offset is None


def test_a_date_never_becomes_a_datetime() -> None:
    value = W3CDate("2005-01-01")
    assert not value.has_time
    assert value.text == "2005-01-01"
    assert W3CDate("2005-01-01T00:00Z").has_time


def test_equality_is_textual_but_instants_compare_equal() -> None:
    zulu = W3CDate("2005-01-01T00:00Z")
    plus_zero = W3CDate("2005-01-01T00:00+00:00")
    assert zulu != plus_zero
    assert zulu.to_datetime() == plus_zero.to_datetime()


def test_long_fractions_are_kept_as_text() -> None:
    value = W3CDate("2005-01-01T10:00:00.1234567890Z")
    assert value.text == "2005-01-01T10:00:00.1234567890Z"
    assert value.precision is Precision.FRACTION
    assert value.to_datetime().microsecond == 123456


# ------------------------------------------------------------------------------------- XSD-only forms


@pytest.mark.parametrize(
    ("text", "precision", "offset"),
    [
        ("2005-01-01T10:00:00", Precision.SECOND, None),  # xsd:dateTime without zone
        ("2005-01-01T10:00:00.5", Precision.FRACTION, None),
        ("2005-01-01Z", Precision.DAY, dt.timedelta(0)),  # xsd:date with zone
        ("2005-01-01+02:00", Precision.DAY, dt.timedelta(hours=2)),
    ],
)
def test_xsd_forms_are_accepted_and_kept(text: str, precision: Precision, offset: dt.timedelta | None) -> None:
    value = W3CDate(text)
    assert value.text == text
    assert value.precision is precision
    assert value.offset == offset


def test_a_missing_zone_is_read_as_utc() -> None:
    assert W3CDate("2005-01-01T10:00:00").to_datetime() == dt.datetime(2005, 1, 1, 10, tzinfo=dt.timezone.utc)


# --------------------------------------------------------------------------------------------- invalid


@pytest.mark.parametrize(
    "text",
    [
        "2005-13",  # month 13
        "2005-00-10",  # month 0
        "2005-02-30",  # no 30 February
        "2005-02-29",  # 2005 is not a leap year
        "2005-04-31",
        "2005-01-01T25:00Z",  # hour 25
        "2005-01-01T10:60Z",  # minute 60
        "2005-01-01T10:00:61Z",
        "2005-01-01T10:00+15:00",  # zone out of range
        "2005-01-01T10:00+14:30",
        "2005-01-01T10:00-14:01",
        "2005-01-01T10:00+02:60",
        "05-01-01",  # two-digit year
        "2005-1-1",  # unpadded (repaired by parse_lenient, but not valid as written)
        "2005-01-01T10Z",  # hour without minutes
        "2005-01-01T10:00:00.Z",  # empty fraction
        "2005-01-01 10:00Z",  # space instead of T
        "2005-01-01T10:00:00+0000",  # offset without colon
        " 2005-01-01",  # blanks are not part of the value
        "2005-01-01\n",
        "",
        "\u0662\u0660\u0660\u0665",  # Arabic-Indic digits: \d would match them, W3C-DTF is ASCII
        "\uff12\uff10\uff10\uff15-01-01",  # full-width digits
    ],
)
def test_invalid_values_are_rejected(text: str) -> None:
    with pytest.raises(ValueError):
        W3CDate(text)


def test_extreme_zone_offsets_are_accepted() -> None:
    assert W3CDate("2005-01-01T10:00+14:00").offset == dt.timedelta(hours=14)
    assert W3CDate("2005-01-01T10:00-14:00").offset == -dt.timedelta(hours=14)


def test_leap_day_and_leap_second() -> None:
    assert W3CDate("2004-02-29").text == "2004-02-29"
    leap_second = W3CDate("2016-12-31T23:59:60Z")
    assert leap_second.text == "2016-12-31T23:59:60Z"
    assert leap_second.to_datetime() == dt.datetime(2016, 12, 31, 23, 59, 59, tzinfo=dt.timezone.utc)


def test_parse_strips_surrounding_blanks_only() -> None:
    assert W3CDate.parse("  2005-01-01\n") == W3CDate("2005-01-01")
    with pytest.raises(ValueError):
        W3CDate.parse("2005-01-01 junk")


# ----------------------------------------------------------------------------------- instants, sorting


def test_to_datetime_uses_the_written_offset() -> None:
    value = W3CDate("2005-01-01T10:00:00+02:00")
    assert value.to_datetime() == dt.datetime(2005, 1, 1, 8, tzinfo=dt.timezone.utc)
    assert value.to_datetime().utcoffset() == dt.timedelta(hours=2)


def test_missing_parts_are_the_earliest() -> None:
    assert W3CDate("2005").to_datetime() == dt.datetime(2005, 1, 1, tzinfo=dt.timezone.utc)
    assert W3CDate("2005-07").to_datetime() == dt.datetime(2005, 7, 1, tzinfo=dt.timezone.utc)


def test_sort_key_orders_by_instant_across_offsets() -> None:
    # Written order is not instant order: 10:00+02:00 is 08:00Z, 05:30-05:00 is 10:30Z.
    values = [
        W3CDate("2005-01-01T05:30-05:00"),
        W3CDate("2005-01-01T10:00+02:00"),
        W3CDate("2005-01-01T09:00:00Z"),
        W3CDate("2005-01-01"),
        W3CDate("2004"),
        W3CDate("2005-01-01T09:00:00.5Z"),
    ]
    ordered = sorted(values, key=W3CDate.sort_key)
    assert [v.text for v in ordered] == [
        "2004",
        "2005-01-01",
        "2005-01-01T10:00+02:00",
        "2005-01-01T09:00:00Z",
        "2005-01-01T09:00:00.5Z",
        "2005-01-01T05:30-05:00",
    ]
    assert W3CDate("2005-01-01T10:00+02:00").sort_key() == W3CDate("2005-01-01T08:00Z").sort_key()


def test_sort_key_handles_the_edges_of_the_calendar() -> None:
    assert W3CDate("0001-01-01T00:00+14:00").sort_key() < W3CDate("0001-01-01").sort_key()
    assert W3CDate("9999-12-31T23:59-14:00").sort_key() > W3CDate("9999-12-31T23:59Z").sort_key()


# ------------------------------------------------------------------------------------- parse_lenient


def test_parse_lenient_accepts_valid_values_without_a_note() -> None:
    assert parse_lenient("2005-01-01T10:00:00+02:00") == (W3CDate("2005-01-01T10:00:00+02:00"), None)
    assert parse_lenient("  2005-01  ") == (W3CDate("2005-01"), None)


@pytest.mark.parametrize(
    ("text", "expected", "precision"),
    [
        ("2005-01-01 10:00:00Z", "2005-01-01T10:00:00Z", Precision.SECOND),  # space instead of T
        ("2005-01-01 10:00Z", "2005-01-01T10:00Z", Precision.MINUTE),
        ("2005-01-01t10:00:00Z", "2005-01-01T10:00:00Z", Precision.SECOND),
        ("2005-01-01T10:00:00+0000", "2005-01-01T10:00:00+00:00", Precision.SECOND),  # +hhmm
        ("2005-01-01T10:00:00-0530", "2005-01-01T10:00:00-05:30", Precision.SECOND),
        ("2005-01-01T10:00:00+02", "2005-01-01T10:00:00+02:00", Precision.SECOND),
        ("2005-1-2", "2005-01-02", Precision.DAY),  # unpadded
        ("2005-01-01T9:05:07Z", "2005-01-01T09:05:07Z", Precision.SECOND),
        ("2005-01-01 10:00:00.25Z", "2005-01-01T10:00:00.25Z", Precision.FRACTION),
        ("2005-01-01T10:00:00 GMT", "2005-01-01T10:00:00Z", Precision.SECOND),  # GMT / UTC suffix
        ("2005-01-01T10:00 UTC", "2005-01-01T10:00Z", Precision.MINUTE),
        ("2005-01-01T10:00:00UTC", "2005-01-01T10:00:00Z", Precision.SECOND),
        ("Sat, 07 Sep 2002 00:00:01 GMT", "2002-09-07T00:00:01Z", Precision.SECOND),  # RFC 1123
        ("Sat, 07 Sep 2002 00:00:01 +0200", "2002-09-07T00:00:01+02:00", Precision.SECOND),
    ],
)
def test_parse_lenient_repairs_with_a_note(text: str, expected: str, precision: Precision) -> None:
    value, note = parse_lenient(text)
    assert value is not None
    assert value.text == expected
    assert value.precision is precision
    assert note is not None and note  # the reader turns the note into a lastmod-repaired diagnostic


def test_parse_lenient_repair_keeps_the_instant() -> None:
    value, _ = parse_lenient("Sat, 07 Sep 2002 00:00:01 +0200")
    assert value is not None
    assert value.to_datetime() == dt.datetime(2002, 9, 6, 22, 0, 1, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "garbage", "yesterday", "2005-13-45", "2005-02-30 10:00:00", "not a date at all", "12:99"],
)
def test_parse_lenient_gives_up_with_a_note(text: str) -> None:
    value, note = parse_lenient(text)
    assert value is None
    assert note is not None and note


# ---------------------------------------------------------------------------------------------- RFC 822

_RFC1123 = re.compile(r"[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} (?:GMT|[+-]\d{4})")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2002-09-07T00:00:01Z", "Sat, 07 Sep 2002 00:00:01 GMT"),
        ("2002-09-07T00:00:01+00:00", "Sat, 07 Sep 2002 00:00:01 GMT"),
        ("2002-09-07T02:00:01+02:00", "Sat, 07 Sep 2002 02:00:01 +0200"),
        ("2002-09-07T00:00:01.75-05:30", "Sat, 07 Sep 2002 00:00:01 -0530"),
        ("2002-09-07", "Sat, 07 Sep 2002 00:00:00 GMT"),
        ("2002-09-07T10:00:00", "Sat, 07 Sep 2002 10:00:00 GMT"),  # no zone: UTC
        ("2002", "Tue, 01 Jan 2002 00:00:00 GMT"),
        ("0999-01-01", "Tue, 01 Jan 0999 00:00:00 GMT"),  # the year keeps four digits
    ],
)
def test_to_rfc822(text: str, expected: str) -> None:
    out = to_rfc822(W3CDate(text))
    assert out == expected
    assert _RFC1123.fullmatch(out)


def test_to_rfc822_reads_back_as_the_same_instant() -> None:
    value = W3CDate("2016-02-29T23:59:59-08:00")
    again, note = parse_lenient(to_rfc822(value))
    assert again is not None and note is not None
    assert again.to_datetime() == value.to_datetime()


# ---------------------------------------------------------------------------------------------- property

_ZONES = st.one_of(
    st.just("Z"),
    st.builds(
        lambda sign, minutes: f"{sign}{minutes // 60:02d}:{minutes % 60:02d}",
        st.sampled_from("+-"),
        st.integers(min_value=0, max_value=14 * 60),
    ),
)


@st.composite
def w3c_strings(draw: st.DrawFn) -> tuple[str, Precision]:
    """A valid W3C-DTF string of a drawn granularity, with that granularity."""
    precision = draw(st.sampled_from(list(Precision)))
    year = draw(st.integers(min_value=1, max_value=9999))
    text = f"{year:04d}"
    if precision >= Precision.MONTH:
        month = draw(st.integers(min_value=1, max_value=12))
        text += f"-{month:02d}"
    if precision >= Precision.DAY:
        day = draw(st.integers(min_value=1, max_value=calendar.monthrange(year, month)[1]))
        text += f"-{day:02d}"
    if precision >= Precision.MINUTE:
        hour = draw(st.integers(min_value=0, max_value=23))
        minute = draw(st.integers(min_value=0, max_value=59))
        text += f"T{hour:02d}:{minute:02d}"
        if precision >= Precision.SECOND:
            text += f":{draw(st.integers(min_value=0, max_value=59)):02d}"
        if precision >= Precision.FRACTION:
            text += "." + draw(st.text(alphabet="0123456789", min_size=1, max_size=9))
        text += draw(_ZONES)
    return text, precision


@given(w3c_strings())
def test_property_valid_w3c_strings_round_trip(case: tuple[str, Precision]) -> None:
    text, precision = case
    value = W3CDate(text)
    assert value.text == text
    assert str(value) == text
    assert W3CDate(str(value)) == value
    assert value.precision is precision
    assert parse_lenient(text) == (value, None)
    assert isinstance(value.sort_key(), float)


# ------------------------------------------------------------------------------- the order of W3CDate

ORDER_SAMPLES = [
    "2024", "2024-01", "2024-02", "2024-01-01", "2024-01-02", "2024-01-01+05:00", "2024-01-01T06:00Z",
    "2024-01-01T06:00:00Z", "2024-01-01T06:00:00+00:00", "2024-01-01T10:00:00+05:00", "2024-01-01T04:00:00-02:00",
    "2024-01-01T06:00:00.5Z", "2024-01-01T06:00:00.25Z", "2024-01-01T06:00:00.50Z", "2024-01-01T06:00:00",
    "2023-12-31T23:59:59-01:00", "2024-01-01T06:30+01:00", "2016-12-31T23:59:60Z", "2016-12-31T23:59:59Z",
    "0001-01-01T00:00+14:00", "0001-01-01", "9999-12-31T23:59-14:00", "9999-12-31T23:59Z",
    "2024-01-01T06:00:00.0000001Z", "2024-01-01T06:00:00.0000002Z",
]  # fmt: skip


def _expected_order(text: str) -> tuple[dt.datetime, str, int, str]:
    """The documented rule, from to_datetime: the instant (to the microsecond, then the fraction's further
    digits), coarser first at one instant, then the text."""
    value = W3CDate(text)
    fraction = text.partition(".")[2].rstrip("Z").split("+")[0].split("-")[0]
    return value.to_datetime(), fraction[6:].rstrip("0"), int(value.precision), text


@pytest.mark.parametrize("first", ORDER_SAMPLES)
def test_w3cdates_order_by_the_instant_they_start_at_then_precision_then_text(first: str) -> None:
    a = W3CDate(first)
    for second in ORDER_SAMPLES:
        b = W3CDate(second)
        assert (a < b) == (_expected_order(first) < _expected_order(second)), (first, second)
        # total, and agreeing with ==: exactly one of <, ==, > holds
        assert [a < b, a == b, a > b].count(True) == 1, (first, second)
        assert (a <= b) == (a < b or a == b) and (a >= b) == (a > b or a == b)
        assert (a < b) == (a.order_key() < b.order_key())


def test_periods_compare_by_their_start_coarser_first() -> None:
    assert W3CDate("2005-06") > W3CDate("2005") < W3CDate("2005-01") < W3CDate("2005-01-01")
    assert W3CDate("2005-01-01") < W3CDate("2004-12-31T23:00:00-01:00") < W3CDate("2005-01-01T00:00:00Z")
    assert W3CDate("2005-01-01T10:00+02:00") < W3CDate("2005-01-01T09:00Z")
    assert max([W3CDate("2005-01-01T10:00+02:00"), W3CDate("2005-01-01T09:00Z")]).text == "2005-01-01T09:00Z"
    assert W3CDate("2005-01-01T00:00:00+00:00") < W3CDate("2005-01-01T00:00:00Z")  # one instant: by text
    assert W3CDate("2024-01-01").__lt__("2024") is NotImplemented
    with pytest.raises(TypeError):
        _ = W3CDate("2024") < "2025"  # type: ignore[operator]
