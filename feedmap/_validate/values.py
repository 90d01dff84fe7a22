"""The checks of one sitemap value: loc, lastmod, changefreq, priority; each says what is wrong, or nothing.

Specs: sitemaps.org protocol 0.9 (https://www.sitemaps.org/protocol.html: "Sitemap file location" for the
scope, "Entity escaping" for the escaped form), the sitemaps.org 0.9 XSD (``xsd:date | xsd:dateTime``,
``xsd:decimal`` 0.0-1.0, the changefreq enumeration), W3C Datetime (https://www.w3.org/TR/NOTE-datetime),
RFC 3986 for URIs.  A check returns ``(code, message)`` pairs; the caller adds the position.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Callable
from urllib.parse import urlsplit

from feedmap._core.dates import W3CDate, is_w3c_datetime, is_xsd_lastmod, parse_lenient
from feedmap._core.priority import parse_priority
from feedmap._core.urls import MAX_LOC_LENGTH, check_loc, encode_url, is_uri, same_site, scope_check
from feedmap._core.wording import counted

__all__ = [
    "CHANGEFREQS",
    "Problem",
    "ScopeTally",
    "check_changefreq",
    "check_lastmod",
    "check_priority",
    "check_url",
    "looks_like_page",
    "looks_like_sitemap",
    "plain_url",
]

Problem = tuple[str, str]

CHANGEFREQS = frozenset({"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"})
#: A lastmod later than now by more than this is in the future (zones reach +14:00).
FUTURE_SLACK = dt.timedelta(days=1)
#: The XSD's tLoc minLength.
MIN_LOC_LENGTH = 12
_SITEMAP_END = re.compile(r"\.(?:xml|xml\.gz|txt|txt\.gz)$", re.IGNORECASE)
_PAGE_END = re.compile(r"(?:\.(?:html?|php|aspx?|jsp)|/)$", re.IGNORECASE)


# What nearly every loc is: http(s), a plain host and a port of at most four digits (five may be out of
# range: check_loc looks), then only characters a URI holds (RFC 3986 §2), no
# '%' (an escape is looked at by the long way); one regex call instead of urlsplit on the hot path.
_PLAIN = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,4})?(?:[/?#][A-Za-z0-9\-._~:/?#@!$&'()*+,;=]*)?")
#: Whether a text is such a URL (an absolute http(s) URL that is its own escaped form, but for a second '#').
plain_url = _PLAIN.fullmatch


def check_url(url: str) -> Problem | None:
    """An absolute http(s) URL, escaped, of 12 to 2,047 characters; the first problem, or None.

    Built on :func:`feedmap._core.urls.check_loc`, the check reading makes (an authority that does not
    parse is ``loc-not-absolute``, 2,048 characters or more ``loc-too-long``), with validate's stricter
    rules: http(s) only, every character escaped, the XSD's minimum length."""
    if MIN_LOC_LENGTH <= len(url) < MAX_LOC_LENGTH and _PLAIN.fullmatch(url) is not None and url.count("#") < 2:
        return None
    parts = None
    with contextlib.suppress(ValueError):
        parts = urlsplit(url)
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return "loc-not-absolute", f"{url!r} is not an absolute http(s) URL"
    shared = check_loc(url)
    if shared is not None and shared[0] == "loc-not-absolute":  # a host or port that does not parse
        return shared
    if not (url.isascii() and is_uri(url)):  # stricter than reading: every character escaped
        escaped = encode_url(url)
        if escaped != url:
            return "loc-not-escaped", f"{url!r} is not escaped; write {escaped}"
    if len(url) < MIN_LOC_LENGTH:
        return "loc-too-short", f"{url!r} is shorter than the {MIN_LOC_LENGTH} characters the XSD wants"
    return shared if shared is not None and shared[0] == "loc-too-long" else None


class ScopeTally:
    """The URLs of one sitemap outside its scope (sitemaps.org "Sitemap file location"), said once at the end.

    ``base`` is the sitemap's URL: a URL must be on its site and under its directory (:func:`scope_check`:
    paths in their normal form, so ``/maps/../x`` and ``/maps/%2e%2e/x`` are not under ``/maps/``).  The
    protocol lifts the directory rule for a sitemap the site's robots.txt names ("Sitemaps & Cross
    Submits"): ``lifted`` says so (asked once, at the end, only when a URL of the site is outside the
    directory).  What is left is one INFO ``loc-out-of-scope`` with a count, as ``convert`` says it.
    """

    def __init__(self, base: str, lifted: Callable[[], bool] | None = None) -> None:
        self.base = base
        self.inside = scope_check(base)
        self.lifted = lifted
        self.outside = self.off_site = 0
        self.first: tuple[str, int] | None = None

    def check(self, url: str, line: int) -> None:
        if self.inside(url):
            return
        if same_site(url, self.base):
            self.outside += 1
        else:
            self.off_site += 1
        if self.first is None:
            self.first = (url, line)

    def finding(self) -> Problem | None:
        """The one finding of the file, or None (nothing outside, or only what robots.txt lifts)."""
        if self.outside and self.lifted is not None and self.lifted():
            self.outside = 0
            if not self.off_site:
                return None
        total = self.outside + self.off_site
        if not total or self.first is None:
            return None
        directory = self.base.partition("?")[0].rpartition("/")[0] + "/"
        first, line = self.first
        elsewhere = f" ({self.off_site:,} of them on other sites)" if self.off_site else ""
        return "loc-out-of-scope", (
            f"{counted(total, 'URL')}{elsewhere} not under {directory}, where this sitemap is "
            f"(first: {first}, line {line}): sitemaps.org lets a sitemap list only URLs under its own location "
            "unless the robots.txt of their site names it; add a 'Sitemap:' line naming this sitemap (or its "
            "index) to that robots.txt, or serve the sitemap from a directory above them"
        )


def check_changefreq(text: str) -> Problem | None:
    """One of the seven words, exactly: the XSD's type is an xsd:string enumeration, blanks included."""
    if text in CHANGEFREQS:
        return None
    value = text.strip()
    hint = ""
    if value.lower() in CHANGEFREQS:
        hint = f"; write {value.lower()!r}" + (" (lower-case)" if value != value.lower() else " (no blanks around it)")
    return "changefreq-invalid", f"changefreq {value!r} is not one of {', '.join(sorted(CHANGEFREQS))}{hint}"


def check_priority(text: str) -> Problem | None:
    """An xsd:decimal from 0.0 to 1.0 (:func:`feedmap._core.priority.parse_priority`, as reading takes it)."""
    exact, problem = parse_priority(text)
    return None if exact is not None else ("priority-invalid", problem)


#: The answers of :func:`check_lastmod` for texts seen (dates repeat a lot within a sitemap); cleared when full.
_LASTMODS: dict[tuple[str, dt.datetime], Problem | None] = {}
_LASTMODS_MAX = 4096


def check_lastmod(text: str, now: dt.datetime) -> Problem | None:
    """W3C Datetime (error when not), the XSD's differences (warnings), the future (a warning)."""
    key = (text, now)
    if key in _LASTMODS:
        return _LASTMODS[key]
    if len(_LASTMODS) >= _LASTMODS_MAX:
        _LASTMODS.clear()
    problem = _LASTMODS[key] = _check_lastmod(text, now)
    return problem


def _check_lastmod(text: str, now: dt.datetime) -> Problem | None:
    value = text.strip()
    try:
        date = W3CDate(value)
    except ValueError:
        repaired, _note = parse_lenient(value)
        hint = f"; write {repaired.text}" if repaired is not None else " (e.g. 2024-06-01 or 2024-06-01T10:00:00Z)"
        return "lastmod-invalid", f"lastmod {value!r} is not a W3C Datetime{hint}"
    if not is_xsd_lastmod(value):
        fix = "a time of seconds 00-59" if value[17:19] == "60" else "a full date (YYYY-MM-DD) or a time with seconds"
        return "lastmod-not-xsd", f"lastmod {value!r} is W3C Datetime but the sitemaps XSD rejects it; write {fix}"
    if not is_w3c_datetime(value):
        what = "a time without a zone" if "T" in value else "a date with a zone"
        return "lastmod-no-zone", f"lastmod {value!r} is {what}: the XSD accepts it, W3C Datetime does not"
    if date.to_datetime() > now + FUTURE_SLACK:
        return "lastmod-future", f"lastmod {value} is in the future"
    return None


def _path(url: str) -> str:
    """The path of an absolute URL ("/" when it has none), without urlsplit (its cache is small)."""
    rest = url.split("#", 1)[0].split("?", 1)[0].split("://", 1)[-1]
    slash = rest.find("/")
    return rest[slash:] if slash >= 0 else "/"


def looks_like_sitemap(url: str) -> bool:
    return _SITEMAP_END.search(_path(url)) is not None


def looks_like_page(url: str) -> bool:
    return _PAGE_END.search(_path(url)) is not None
