"""A lastmod as an RSS 2.0 ``pubDate``: RFC 822 (RFC 1123's four-digit year), the common forms in one step.

RSS 2.0 (https://www.rssboard.org/rss-specification, ``<pubDate>``) takes RFC 822 dates; the RSS Best
Practices Profile asks for the four-digit year of RFC 1123 §5.2.14.  :func:`pubdate` gives exactly what
:func:`feedmap._core.dates.to_rfc822` gives (``email.utils.format_datetime``: ``GMT`` for UTC, a zone written
``+hhmm`` otherwise, fractions of a second left out), but for the forms nearly every lastmod has (a date; a
time of seconds with ``Z`` or an offset) it formats the written digits at once instead of parsing the text
again for the instant and again for the zone; every other form (a year, a month, minutes, a leap second,
year 0) goes through ``to_rfc822``.
"""

from __future__ import annotations

import datetime as _dt
import re

from feedmap._core.dates import W3CDate, from_rfc822, to_rfc822

__all__ = ["exact_pubdate", "pubdate"]

#: A date, or a time of seconds (any fraction) with ``Z`` or an offset of hours 00-23 and minutes 00-59.
_PLAIN = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)(?:T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.\d+)?(?:(Z)|([+-])([01]\d|2[0-3]):([0-5]\d)))?",
    re.ASCII,
)
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


#: The start of a pubDate ("Tue, 02 Jan 2024") by its date's text ("2024-01-02"): the dates of a sitemap repeat
#: far more than its times.  Bounded: past this many dates, the others are made each time.
_STARTS: dict[str, str] = {}
_STARTS_KEPT = 4096


def pubdate(lastmod: W3CDate) -> str:
    """``lastmod`` in RFC 822 form, as :func:`feedmap._core.dates.to_rfc822` writes it (and raises)."""
    text = lastmod.text
    match = _PLAIN.fullmatch(text)
    if match is None or match[1] == "0000":
        return to_rfc822(lastmod)
    start = _STARTS.get(text[:10])
    if start is None:
        start = _start(match)
        if len(_STARTS) < _STARTS_KEPT:
            _STARTS[text[:10]] = start
    if match[4] is None:  # a date: midnight UTC
        return f"{start} 00:00:00 GMT"
    time = text[11:19]  # the matched hh:mm:ss, as written
    sign = match[8]
    if sign is None or (match[9] == "00" and match[10] == "00"):  # Z, +00:00, -00:00: UTC
        return f"{start} {time} GMT"
    return f"{start} {time} {sign}{match[9]}{match[10]}"


def _start(match: re.Match[str]) -> str:
    """The weekday, day, month and year of a matched date."""
    year, month, day = int(match[1]), int(match[2]), int(match[3])
    weekday = _DAYS[_dt.date(year, month, day).weekday()]  # a valid date: W3CDate checked it
    return f"{weekday}, {match[3]} {_MONTHS[month - 1]} {match[1]}"


def exact_pubdate(lastmod: W3CDate) -> str | None:
    """The lastmod as an RFC 822 ``pubDate`` when that reads back (:func:`feedmap._core.dates.from_rfc822`) as
    exactly the same W3C text, else None (a date without a time, fractions of seconds, ``+00:00`` rather than
    ``Z``, a year before 1000)."""
    text = lastmod.text
    match = _PLAIN.fullmatch(text)
    if match is not None and len(text) in (20, 25) and text[19] != "." and match[6] is not None and match[1] >= "1000":
        # seconds, no fraction: Z (20 characters) or an offset (25; ".1000Z" is 25 characters too)
        if match[7] is not None:
            return pubdate(lastmod)
        if match[9] <= "13" and (match[9] != "00" or match[10] != "00"):  # +-00:00 reads back as Z
            return pubdate(lastmod)
    return _read_back(lastmod)


def _read_back(lastmod: W3CDate) -> str | None:
    """:func:`exact_pubdate` the long way: written, read back, compared."""
    try:
        text = to_rfc822(lastmod)
    except (ValueError, OverflowError):
        return None
    back = from_rfc822(text)
    return text if back is not None and back.text == lastmod.text else None
