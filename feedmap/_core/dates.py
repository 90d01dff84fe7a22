"""Dates as sitemaps and feeds write them.

* W3C Datetime (https://www.w3.org/TR/NOTE-datetime): six granularities, ``YYYY`` to
  ``YYYY-MM-DDThh:mm:ss.sTZD``; the zone designator (``Z`` or ``+hh:mm``) is required with a time.
* The sitemap XSD (``xsd:date | xsd:dateTime``) also allows a time with seconds but no zone, and a date with
  zone; a time of minutes without zone is in neither grammar (it is repaired to seconds).  Its seconds run
  00-59 (XML Schema 1.0 Part 2 §3.2.7, as libxml2 checks them): a leap second ``:60``, which W3C Datetime
  (ISO 8601) allows, is no xsd:dateTime (:func:`is_xsd_lastmod`).

:class:`W3CDate` accepts the union of both grammars and keeps the text exactly as written, so every
granularity round-trips byte-exact and ``2005-01-01`` never becomes a datetime.  Values outside both
grammars (a space instead of ``T``, ``+0000``, unpadded parts, RFC 1123 strings) are repaired by
:func:`parse_lenient`, which says what it changed so the reader can report it.

RFC 822 output (RSS ``pubDate``) goes through :func:`email.utils.format_datetime`, never the locale.
"""

from __future__ import annotations

import datetime as _dt
import enum
import re

__all__ = [
    "Precision",
    "W3CDate",
    "from_rfc822",
    "is_w3c_datetime",
    "is_xsd_lastmod",
    "known_date",
    "parse_lenient",
    "read_rfc822",
    "to_rfc822",
    "with_seconds",
]


class Precision(enum.IntEnum):
    """How much of a date was written; ordered from coarsest to finest."""

    YEAR = 1
    MONTH = 2
    DAY = 3
    MINUTE = 4
    SECOND = 5
    FRACTION = 6


_W3C = re.compile(
    r"(?P<Y>\d{4})(?:-(?P<M>\d{2})(?:-(?P<D>\d{2})"
    r"(?:T(?P<h>\d{2}):(?P<m>\d{2})(?::(?P<s>\d{2})(?:\.(?P<f>\d+))?)?)?"
    r"(?P<tz>Z|[+-]\d{2}:\d{2})?)?)?",
    re.ASCII,  # W3C-DTF digits are ASCII; without the flag \d also matches e.g. Arabic-Indic digits
)


_FROMISO = _dt.datetime.fromisoformat


# The forms most sitemaps use: date, or seconds with Z or an offset within +-14:00.
_COMMON = re.compile(r"\d{4}-\d\d-\d\d(?:T\d\d:\d\d:\d\d(?:Z|[+-](?:0\d|1[0-3]):[0-5]\d|[+-]14:00))?", re.ASCII)


def _common_form(text: str) -> bool:
    """A quick yes for the forms most sitemaps use; False means "ask the full grammar".

    The shape is checked by a small regular expression and the ranges (month, day of month, hour, ...) by
    :meth:`datetime.fromisoformat`, in C: several times faster than the full grammar and :func:`_valid`.
    (Python 3.10's fromisoformat refuses ``Z``; such values simply take the long way.)
    """
    if _COMMON.fullmatch(text) is None:
        return False
    try:
        _FROMISO(text)
    except ValueError:
        return False
    return True


#: Texts already validated (dates repeat a lot within a sitemap); bounded, cleared when full.
_VALIDATED: set[str] = set()
_VALIDATED_MAX = 4096


class W3CDate:
    """A W3C-DTF / XSD date or datetime, kept as written; immutable.

    Equality is textual: ``2005-01-01T00:00Z`` and ``2005-01-01T00:00+00:00`` are the same instant written
    two ways, and a converter must give back what it was given.

    The order (``<``, ``max()``, ``sorted()``) is by the instant a value starts at, the rule of
    :meth:`to_datetime` (missing parts are the earliest, a missing zone is UTC, a leap second is second 59;
    the fraction counts to its last digit), so ``2005-01-01T10:00+02:00 < 2005-01-01T09:00Z``.  A value names
    a period (``2005`` is the whole year), and periods compare by their start: ``2005-06 > 2005``.  Values
    starting at the same instant order coarser first (``2005 < 2005-01 < 2005-01-01 < 2005-01-01T00:00Z``),
    then by their text (``+00:00`` before ``Z``): the order is total and agrees with ``==``.  Every "which
    lastmod is newer" of feedmap (duplicates, sort, split, diff, info) is this order.
    A plain ``__slots__`` class rather than a frozen dataclass: it is built for every lastmod read, and
    this makes that several times cheaper.
    """

    __slots__ = ("text",)
    text: str

    def __init__(self, text: str) -> None:
        if text not in _VALIDATED:
            if not _common_form(text):
                match = _W3C.fullmatch(text)
                if match is None or not _valid(match):
                    raise ValueError(f"not a W3C datetime: {text!r}")
            if len(_VALIDATED) >= _VALIDATED_MAX:
                _VALIDATED.clear()
            _VALIDATED.add(text)
        object.__setattr__(self, "text", text)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("W3CDate is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("W3CDate is immutable")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, W3CDate):
            return self.text == other.text
        return NotImplemented

    def __hash__(self) -> int:
        return hash((W3CDate, self.text))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, W3CDate):
            return NotImplemented
        mine, theirs = self.text, other.text
        if len(mine) == len(theirs) and _zone(mine) == _zone(theirs):  # written alike: the text is the order
            return mine < theirs
        return _order_key(mine) < _order_key(theirs)

    def order_key(self) -> tuple[int, str, int, str]:
        """What the order of :class:`W3CDate` compares (``a < b`` is ``a.order_key() < b.order_key()``): the
        UTC instant it starts at in whole POSIX seconds, the digits of its fraction (trailing zeros removed,
        compared as text), its precision, its text."""
        return _order_key(self.text)

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, W3CDate):
            return NotImplemented
        return other < self

    def __le__(self, other: object) -> bool:
        if not isinstance(other, W3CDate):
            return NotImplemented
        return not other < self

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, W3CDate):
            return NotImplemented
        return not self < other

    def __repr__(self) -> str:
        return f"W3CDate(text={self.text!r})"

    def __reduce__(self) -> tuple[type[W3CDate], tuple[str]]:
        return (W3CDate, (self.text,))

    @classmethod
    def from_datetime(cls, value: _dt.datetime | _dt.date) -> W3CDate:
        """The W3C-DTF text of a :class:`datetime.datetime` (or a :class:`datetime.date`, written ``YYYY-MM-DD``).

        An aware datetime keeps its offset (``Z`` for UTC), seconds always and fractions when it has any; a
        naive one is taken as UTC (W3C-DTF requires a zone designator with a time), as :meth:`to_datetime`
        reads a value without zone.
        """
        if not isinstance(value, _dt.datetime):
            if not isinstance(value, _dt.date):
                raise TypeError(f"W3CDate.from_datetime() needs a datetime or a date, not {type(value).__name__}")
            return cls(value.isoformat())
        offset = value.utcoffset()
        text = value.replace(tzinfo=None).isoformat(timespec="microseconds" if value.microsecond else "seconds")
        if offset is None or not offset:
            return cls(text + "Z")
        if offset.seconds % 60 or offset.microseconds:
            raise ValueError(f"{value!r}: W3C-DTF zone offsets are whole minutes")
        minutes = int(offset.total_seconds()) // 60
        sign = "-" if minutes < 0 else "+"
        return cls(f"{text}{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}")

    @classmethod
    def parse(cls, text: str) -> W3CDate:
        """Parse a value already in W3C-DTF/XSD form (surrounding blanks removed); ValueError otherwise."""
        return cls(text.strip())

    def __str__(self) -> str:
        return self.text

    @property
    def precision(self) -> Precision:
        """The granularity as written."""
        match = _W3C.fullmatch(self.text)
        assert match is not None
        return Precision(_precision(match))

    @property
    def has_time(self) -> bool:
        return "T" in self.text

    @property
    def offset(self) -> _dt.timedelta | None:
        """The zone offset as written, or None when no zone was written."""
        match = _W3C.fullmatch(self.text)
        assert match is not None
        return _offset(match["tz"])

    def to_datetime(self) -> _dt.datetime:
        """The instant this value starts at; missing parts are the earliest, a missing zone is UTC."""
        match = _W3C.fullmatch(self.text)
        assert match is not None
        return _to_datetime(match)

    def sort_key(self) -> float:
        """The instant as POSIX seconds (a float: values a microsecond apart may tie; the order of
        :class:`W3CDate` itself is exact and total)."""
        return self.to_datetime().timestamp()


def _zone(text: str) -> str:
    """The zone a W3C datetime ends with: ``Z``, ``+hh:mm`` / ``-hh:mm``, or nothing."""
    if text.endswith("Z"):
        return "Z"
    return text[-6:] if len(text) > 10 and text[-6] in "+-" else ""


_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()


def _order_key(text: str) -> tuple[int, str, int, str]:
    """What :class:`W3CDate` orders by: the instant it starts at (whole seconds, UTC, and the fraction's
    digits, which compare as text once their trailing zeros are gone), its precision, its text."""
    match = _W3C.fullmatch(text)
    assert match is not None
    days = _dt.date(int(match["Y"]), int(match["M"] or 1), int(match["D"] or 1)).toordinal() - _EPOCH_ORDINAL
    clock = int(match["h"] or 0) * 3600 + int(match["m"] or 0) * 60 + min(int(match["s"] or 0), 59)
    offset = _offset(match["tz"])
    seconds = days * 86400 + clock - (int(offset.total_seconds()) if offset is not None else 0)
    precision = _precision(match)
    return seconds, (match["f"] or "").rstrip("0"), precision, text


def _precision(match: re.Match[str]) -> int:
    for group, precision in (("f", 6), ("s", 5), ("h", 4), ("D", 3), ("M", 2)):
        if match[group]:
            return precision
    return 1


# The grammars of a lastmod are one: _W3C (the union W3CDate takes); the XSD's and the W3C note's are read
# from its groups, so that reading, writing and validate never disagree on which grammar a value is in.


def is_xsd_lastmod(text: str) -> bool:
    """Whether a lastmod (a W3C Datetime or XSD value) is what the sitemaps XSD's ``tLastmod`` takes
    (xsd:date | xsd:dateTime, XML Schema 1.0 Part 2 §3.2.9 and §3.2.7): not a year, a month, a time of
    minutes, or a leap second."""
    match = _W3C.fullmatch(text)
    if match is None or match["D"] is None:
        return False
    return match["h"] is None or (match["s"] is not None and match["s"] <= "59")


def is_w3c_datetime(text: str) -> bool:
    """Whether a lastmod is in the W3C Datetime note's own grammar: a zone with any time, none with a date
    (the XSD takes a time without zone and a date with one; W3CDate takes both grammars)."""
    match = _W3C.fullmatch(text)
    return match is not None and (match["h"] is None) == (match["tz"] is None)


def with_seconds(text: str) -> str | None:
    """The XSD form of a W3C Datetime of minutes (``2024-01-01T10:00Z`` -> ``2024-01-01T10:00:00Z``, the same
    instant), or None when ``text`` is no time of minutes."""
    match = _W3C.fullmatch(text)
    if match is None or match["m"] is None or match["s"] is not None or match["tz"] is None:
        return None
    return f"{text[: match.end('m')]}:00{match['tz']}"


def known_date(text: str) -> W3CDate:
    """``W3CDate(text)`` without validating ``text`` again: only for the text of a W3CDate built before (read
    back from a temporary file feedmap wrote itself), where the check would be repeated for nothing."""
    date: W3CDate = object.__new__(W3CDate)
    object.__setattr__(date, "text", text)
    return date


def _offset(tz: str | None) -> _dt.timedelta | None:
    if tz is None:
        return None
    if tz == "Z":
        return _dt.timedelta(0)
    sign = -1 if tz[0] == "-" else 1
    return sign * _dt.timedelta(hours=int(tz[1:3]), minutes=int(tz[4:6]))


def _to_datetime(match: re.Match[str]) -> _dt.datetime:
    offset = _offset(match["tz"]) or _dt.timedelta(0)
    fraction = match["f"] or ""
    micro = int((fraction + "000000")[:6]) if fraction else 0
    return _dt.datetime(
        int(match["Y"]),
        int(match["M"] or 1),
        int(match["D"] or 1),
        int(match["h"] or 0),
        int(match["m"] or 0),
        min(int(match["s"] or 0), 59),  # a leap second 60 is kept as text, clamped here
        micro,
        tzinfo=_dt.timezone(offset),
    )


def _valid(match: re.Match[str]) -> bool:
    """Whether a value _W3C matched is a real date (what _to_datetime accepts) with an XSD zone offset.

    Written for speed, as it runs for every lastmod read: _W3C makes every part ASCII digits of a fixed
    width, so comparing the strings compares the numbers, and no int() or datetime is needed except for
    days 29-31.  (_to_datetime clamps seconds to 59 and cuts the fraction to 6 digits: neither can fail.)
    """
    year, month, day, hour, minute, second, _fraction, tz = match.groups()
    if year == "0000":  # datetime's years are 1-9999
        return False
    # XSD: a zone offset lies between -14:00 and +14:00 (so +14:30 is out of range too)
    if tz is not None and tz != "Z" and (tz[4:6] > "59" or tz[1:3] > "14" or (tz[1:3] == "14" and tz[4:6] != "00")):
        return False
    if hour is not None and (hour > "23" or minute > "59" or (second is not None and second > "60")):
        return False
    # minutes without a zone: W3C-DTF wants the zone with any time, xsd:dateTime wants the seconds
    if hour is not None and second is None and tz is None:
        return False
    if month is None:
        return True
    if not "01" <= month <= "12":
        return False
    if day is None or "01" <= day <= "28":
        return True
    try:
        _dt.date(int(year), int(month), int(day))
    except ValueError:
        return False
    return True


# Near-misses that are repaired with the same precision: a space or lower-case t, unpadded parts,
# +hhmm / +hh offsets, "UTC"/"GMT" suffixes.
_NEAR = re.compile(
    r"(?P<Y>\d{4})-(?P<M>\d{1,2})-(?P<D>\d{1,2})"
    r"(?:\s*[Tt ]\s*(?P<h>\d{1,2}):(?P<m>\d{1,2})(?::(?P<s>\d{1,2})(?:[.,](?P<f>\d+))?)?)?"
    r"\s*(?P<tz>Z|z|UTC|GMT|[+-]\d{1,2}(?::?\d{2})?)?",
    re.ASCII,
)


def _near_miss(text: str) -> str | None:
    match = _NEAR.fullmatch(text)
    if match is None:
        return None
    out = f"{match['Y']}-{int(match['M']):02d}-{int(match['D']):02d}"
    if match["h"] is not None:
        out += f"T{int(match['h']):02d}:{int(match['m']):02d}"
        if match["s"] is not None:
            out += f":{int(match['s']):02d}"
            if match["f"]:
                out += "." + match["f"]
    tz = match["tz"]
    if tz:
        if tz in ("Z", "z", "UTC", "GMT"):
            out += "Z"
        else:
            digits = tz[1:].replace(":", "")
            hours = digits[:-2] if len(digits) > 2 else digits
            minutes = digits[-2:] if len(digits) > 2 else "00"
            out += f"{tz[0]}{int(hours):02d}:{minutes}"
    return out


def _with_dateutil(text: str) -> str | None:
    from dateutil import parser as du_parser  # slow to import; only a date that is not W3C-DTF needs it

    try:
        parsed = du_parser.parse(text, default=_dt.datetime(1, 1, 1))
    except (ValueError, OverflowError, TypeError):
        return None
    has_time = ":" in text
    if not has_time:
        return f"{parsed.year:04d}-{parsed.month:02d}-{parsed.day:02d}"
    out = parsed.strftime("%Y-%m-%dT%H:%M:%S")
    if parsed.microsecond:
        out += f".{parsed.microsecond:06d}".rstrip("0")
    try:
        offset = parsed.utcoffset()
    except ValueError:  # dateutil keeps offsets of 24 h or more (+24:00, +9999) that datetime refuses
        return None
    if offset is not None:
        if offset == _dt.timedelta(0):
            out += "Z"
        else:
            total = int(offset.total_seconds()) // 60
            sign = "-" if total < 0 else "+"
            out += f"{sign}{abs(total) // 60:02d}:{abs(total) % 60:02d}"
    return out


def parse_lenient(text: str) -> tuple[W3CDate | None, str | None]:
    """Parse a date as found in the wild.

    Returns ``(value, None)`` when the text is valid as written (after removing surrounding blanks),
    ``(value, note)`` when it had to be repaired (``note`` says how), and ``(None, note)`` when nothing
    usable could be read.
    """
    stripped = text.strip()
    if not stripped:
        return None, "empty date"
    try:
        return W3CDate(stripped), None
    except ValueError:
        pass
    for repair in (_near_miss, _with_dateutil):
        candidate = repair(stripped)
        if candidate is None:
            continue
        try:
            value = W3CDate(candidate)
        except ValueError:
            continue
        return value, f"{stripped!r} is not W3C Datetime; read as {candidate!r}"
    return None, f"{stripped!r} is not a date"


def from_rfc822(text: str) -> W3CDate | None:
    """An RFC 822 / RFC 1123 date (RSS ``pubDate``) as a W3C value with the same offset; None if not one."""
    return read_rfc822(text)[0]


def read_rfc822(text: str) -> tuple[W3CDate | None, bool]:
    """:func:`from_rfc822`, and whether the date gave no zone (none, ``-0000`` or one RFC 5322 §4.3 does not
    know): such a date is read as UTC, which the caller reports, as the zone is then invented."""
    from email.utils import parsedate_to_datetime  # RSS dates only: email.* stays unloaded for the others

    try:
        moment = parsedate_to_datetime(text.strip())
    except (TypeError, ValueError, IndexError, OverflowError):  # OverflowError: a number no C long holds
        return None, False
    if moment is None:
        return None, False
    if moment.year < 1000:
        return None, False
    return _rfc822_value(moment), moment.tzinfo is None


def _rfc822_value(moment: _dt.datetime) -> W3CDate | None:
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S")
    offset = moment.utcoffset()
    if offset is None or offset == _dt.timedelta(0):
        # GMT/UT/+0000, and (read_rfc822 says so) no zone, "-0000" (RFC 5322: no zone information): Z
        return W3CDate(stamp + "Z")
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    try:
        return W3CDate(f"{stamp}{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}")
    except ValueError:  # an offset beyond +-14:00
        return None


def to_rfc822(value: W3CDate) -> str:
    """RFC 822 / RFC 1123 form with a four-digit year, as RSS 2.0 ``pubDate`` wants it."""
    from email.utils import format_datetime  # RSS dates only: email.* stays unloaded for the others

    moment = value.to_datetime()
    if value.offset is None or value.offset == _dt.timedelta(0):
        return format_datetime(moment.astimezone(_dt.timezone.utc), usegmt=True)
    return format_datetime(moment)
