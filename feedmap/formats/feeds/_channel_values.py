"""The value checks of ``feedmap validate`` for RSS 2.0 and ROR: dates, URLs, guids and ROR vocabularies.

One job: say what is wrong with one element's text, as ``(level, code, message)`` or None; the walk over the
document (:mod:`feedmap.formats.feeds._channel_checks`) places the finding.  Specs:

* dates: RSS 2.0 (https://www.rssboard.org/rss-specification) wants RFC 822 date-times (RFC 822 §5.1), with
  the four-digit years of RFC 1123 §5.2.14 / RFC 2822 §3.3.  As the W3C Feed Validator does, a value outside
  RFC 822's grammar, an impossible date or time, or a day of the week that does not match the date is an
  error; RFC 822 forms that RFC 2822 does not write (two-digit year, names in another case, no zone, a
  military zone) are a warning with the date written correctly;
* links and permalink guids: an absolute URL (RFC 3986 §4.3) of URI characters (RFC 3986 §2); a guid is a
  permalink unless ``isPermaLink="false"`` (RSS 2.0, ``<guid>``); a ``tag:`` or ``urn:`` id is no permalink;
* ROR (http://rorweb.com/0.1/, rorweb.com "How to Create a ROR feed"): ``ror:updatePeriod`` takes the
  sitemaps.org ``changefreq`` values; ``ror:type`` names an object type; the vocabulary is open (custom types
  are allowed), so a type it does not name is only noted.
"""

from __future__ import annotations

import datetime as _dt
import re
from email.utils import format_datetime

from feedmap._core.errors import Level
from feedmap._core.urls import is_absolute_url, is_http_url, is_uri, not_in_iris

__all__ = [
    "ROR_NS",
    "ROR_TYPES",
    "UPDATE_PERIODS",
    "Finding",
    "check_date",
    "check_link",
    "check_permalink",
    "check_ror_type",
    "check_update_period",
    "is_ror_namespace",
]

Finding = tuple[Level, str, str]

ROR_NS = "http://rorweb.com/0.1/"
UPDATE_PERIODS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
_PERIOD_NOUNS = {"hour": "hourly", "day": "daily", "week": "weekly", "month": "monthly", "year": "yearly"}
#: The object types rorweb.com names (its "How to Create a ROR feed" pages and the format's own list).
ROR_TYPES = (
    "Main",
    "SiteMap",
    "Feed",
    "Article",
    "Newsletter",
    "Product",
    "Service",
    "Image",
    "Review",
    "Contact",
    "Event",
    "Job",
    "Classified",
    "Discount",
)
_TYPES_BY_CASE = {kind.lower(): kind for kind in ROR_TYPES}

_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_ZONES = {"ut": 0, "gmt": 0, "z": 0, "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6}
_ZONES.update({"pst": -8, "pdt": -7})
# RFC 822 §5.1 (any case, as RFC 822 §3.4.7 reads names; a two-digit year; the zone left out, as the W3C
# validator tolerates it; a military zone letter), and the form RFC 1123/2822 write.
_RFC822 = re.compile(
    r"(?:(?P<dow>[a-z]{3})\s*,\s*)?(?P<day>\d\d?)\s+(?P<month>[a-z]{3})\s+(?P<year>\d\d(?:\d\d)?)\s+"
    r"(?P<hour>\d\d):(?P<minute>\d\d)(?::(?P<second>\d\d))?(?:\s+(?P<zone>[+-]\d{4}|[a-z]{1,3}))?",
    re.IGNORECASE | re.ASCII,  # RFC 822 digits are ASCII; \d alone also matches Arabic-Indic ones, which int() reads
)
_RFC2822 = re.compile(
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), )?\d\d? (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} "
    r"\d\d:\d\d(?::\d\d)? (?:[+-]\d{4}|UT|GMT|EST|EDT|CST|CDT|MST|MDT|PST|PDT|Z)",
    re.ASCII,
)
_QUOTED_PAIR = re.compile(r"\\.")
_INNER_COMMENT = re.compile(r"\([^()]*\)")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")


def check_date(text: str, what: str) -> Finding | None:
    """An RSS date (``pubDate``, ``lastBuildDate``): None when it is RFC 822 in the RFC 2822 form."""
    value = text.strip()
    match = _RFC822.fullmatch(_uncommented(value).strip())
    if match is None:
        return (
            Level.ERROR,
            "rss-date",
            f"<{what}> {value!r} is not an RFC 822 date (write 'Sat, 07 Sep 2002 00:00:01 GMT')",
        )
    moment = _moment(match)
    if isinstance(moment, str):
        return Level.ERROR, "rss-date", f"<{what}> {value!r}: {moment}"
    if _RFC2822.fullmatch(text) is None:
        return Level.WARNING, "rss-date-form", f"<{what}> {text!r} is old RFC 822; write {format_datetime(moment)!r}"
    return None


def _uncommented(text: str) -> str:
    """The text without RFC 822 comments (§3.4.3: nested parentheses, a backslash quoting the next character)."""
    if "(" not in text:
        return text
    text = _QUOTED_PAIR.sub("", text)
    while True:
        shorter = _INNER_COMMENT.sub(" ", text)
        if shorter == text:
            return text
        text = shorter


def _moment(match: re.Match[str]) -> _dt.datetime | str:
    """The date-time a matched RFC 822 date names, or what is impossible in it."""
    month = match["month"].lower()
    if month not in _MONTHS:
        return f"{match['month']!r} is not a month name (Jan ... Dec)"
    zone = _zone(match["zone"])
    if zone is None:
        return f"{match['zone']!r} is not a time zone (+hhmm, -hhmm, GMT, UT, EST ... PDT)"
    year = int(match["year"])
    if len(match["year"]) == 2:  # RFC 2822 §4.3: 00-49 are 2000-2049, 50-99 are 1950-1999
        year += 2000 if year < 50 else 1900
    second = int(match["second"] or 0)
    try:
        moment = _dt.datetime(
            year,
            _MONTHS.index(month) + 1,
            int(match["day"]),
            int(match["hour"]),
            int(match["minute"]),
            min(second, 59) if second == 60 else second,
            tzinfo=zone,  # RFC 2822 §3.3: 60 is a leap second
        )
    except ValueError as exc:
        return f"no such date or time ({exc})"
    day = match["dow"]
    if day is not None:
        if day.lower() not in _DAYS:
            return f"{day!r} is not a day of the week (Mon ... Sun)"
        if _DAYS.index(day.lower()) != moment.weekday():
            return f"{moment:%d %b %Y} is a {moment:%a}, not a {day}"
    return moment


def _zone(text: str | None) -> _dt.timezone | None:
    if text is None:
        return _dt.timezone.utc
    if text[0] in "+-":
        hours, minutes = int(text[1:3]), int(text[3:])
        if hours > 23 or minutes > 59:
            return None
        offset = _dt.timedelta(hours=hours, minutes=minutes)
        return _dt.timezone(-offset if text[0] == "-" else offset)
    lower = text.lower()
    if lower in _ZONES:
        return _dt.timezone(_dt.timedelta(hours=_ZONES[lower]))
    if len(lower) == 1 and lower != "j":  # RFC 822 military zones; RFC 2822 §4.3 reads them as -0000
        return _dt.timezone.utc
    return None


def check_link(text: str, what: str) -> Finding | None:
    """A ``<link>``: an absolute http(s) URL of URI characters."""
    value = text.strip()
    if not value:
        return Level.ERROR, "rss-link", f"<{what}> is empty"
    if not is_absolute_url(value):
        return Level.ERROR, "rss-link", f"<{what}> {value!r} is not an absolute URL (scheme://host/...)"
    bad = not_in_iris(value)
    if bad:
        return Level.ERROR, "rss-link", f"<{what}> {value!r} holds {bad}, which no URL holds: escape them"
    if not is_http_url(value):
        return Level.WARNING, "rss-link-scheme", f"<{what}> {value!r} is not http(s): sitemap readers skip it"
    return None


def check_permalink(text: str) -> Finding | None:
    """A ``<guid>`` that is a permalink (``isPermaLink`` absent or ``true``): an absolute URL."""
    value = text.strip()
    advice = 'a guid that is no URL needs isPermaLink="false"'
    if not value:
        return Level.ERROR, "rss-guid-permalink", "<guid> is empty"
    scheme = _SCHEME.match(value)
    if scheme is None:
        return Level.ERROR, "rss-guid-permalink", f"<guid> {value!r} is not an absolute URL; {advice}"
    name = scheme.group(1).lower()
    if name in ("tag", "urn"):
        return Level.ERROR, "rss-guid-permalink", f"<guid> {value!r} is a {name}: id, not a permalink; {advice}"
    if not is_uri(value):
        return Level.ERROR, "rss-guid-permalink", f"<guid> {value!r} holds characters a URL cannot hold: escape them"
    if name in ("http", "https", "ftp") and not is_absolute_url(value):
        return Level.ERROR, "rss-guid-permalink", f"<guid> {value!r} has no host after {name}://"
    return None


def check_update_period(text: str) -> Finding | None:
    value = text.strip()
    if not value:
        return Level.WARNING, "ror-empty-value", "<ror:updatePeriod> is empty: leave it out or give a period"
    if value in UPDATE_PERIODS:
        return None
    meant = _PERIOD_NOUNS.get(value.lower(), value.lower())
    hint = f"; write {meant!r}" if meant in UPDATE_PERIODS else ""
    return (
        Level.ERROR,
        "ror-update-period",
        f"<ror:updatePeriod> {value!r} is not one of {' '.join(UPDATE_PERIODS)}{hint}",
    )


def check_ror_type(text: str) -> Finding | None:
    value = text.strip()
    if not value:
        return Level.WARNING, "ror-empty-value", "<ror:type> is empty: leave it out or name a type"
    if value in ROR_TYPES:
        return None
    known = _TYPES_BY_CASE.get(value.lower())
    if known is not None:
        return Level.WARNING, "ror-type-case", f"<ror:type> {value!r} is spelt {known!r} in the ROR vocabulary"
    return Level.INFO, "ror-custom-type", f"<ror:type> {value!r} is not a type the ROR vocabulary names (custom)"


def is_ror_namespace(uri: str) -> bool:
    """True for the ROR namespace and its variants (https, ``www.``, no trailing slash, another case)."""
    lower = uri.strip().lower()
    for prefix in ("http://", "https://"):
        if lower.startswith(prefix):
            lower = lower[len(prefix) :]
            break
    lower = lower.removeprefix("www.")
    return lower.rstrip("/") == "rorweb.com/0.1"
