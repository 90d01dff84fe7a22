"""Reading single field values leniently, shared by every reader.

Each function takes the raw text and where it was found, returns the IR value (or None when nothing
usable remains) and reports every repair as a diagnostic — sitemaps.org 0.9 field rules:

* ``loc``: absolute URL, fewer than 2,048 characters (kept as written; problems are reported, never fixed
  silently);
* ``lastmod``: W3C Datetime (see :mod:`feedmap._core.dates`);
* ``changefreq``: exactly one of the seven lower-case words (other case is repaired with a warning);
* ``priority``: an ``xsd:decimal`` from 0.0 to 1.0 (out of range is ignored with a warning, never clamped: 5.0
  is no claim to the top priority; other number forms are ignored with a warning; a value not written back
  as read is noted).
"""

from __future__ import annotations

import decimal
import re

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate, parse_lenient, read_rfc822
from feedmap._core.entry_checks import relative_reference, resolve
from feedmap._core.model import ChangeFreq
from feedmap._core.priority import XML_BLANKS, parse_priority
from feedmap._core.urls import check_loc

__all__ = ["PLAIN_PRIORITIES", "read_changefreq", "read_lastmod", "read_loc", "read_priority", "strip_value"]

_CHANGEFREQS = {member.value: member for member in ChangeFreq}


def strip_value(text: str | None, what: str, ctx: Context, line: int) -> str:
    """The value without surrounding blanks (allowed by the XSD's whitespace collapse: reported as INFO)."""
    if not text:
        return ""
    stripped = text.strip()
    if len(stripped) != len(text) and stripped:
        ctx.info("whitespace-trimmed", f"blank space around the {what} value was removed", line)
    return stripped


def read_loc(
    text: str | None, ctx: Context, line: int, what: str = "loc", fallback_base: str | None = None
) -> str | None:
    """The loc as read; a relative reference resolved (RFC 3986 §5) against the document's base.

    The base is the document's own URL (fetched, or mapped with ``--map``), else ``Options.base_url``, else
    ``fallback_base`` (a feed's channel link); an ``xml:base`` was applied by the reader before.  Resolved:
    INFO ``relative-url-resolved``; no base: WARNING ``relative-url``, kept as written (writers of XML
    formats leave it out).
    """
    loc = strip_value(text, what, ctx, line)
    if not loc:
        ctx.warning("loc-missing", f"empty or missing <{what}>; the entry is skipped", line)
        return None
    problem = check_loc(loc)
    if problem is not None:
        if relative_reference(loc):
            return _relative(loc, ctx, line, fallback_base)
        ctx.warning(problem[0], f"{problem[1]}; kept as written", line)
    return loc


def _relative(loc: str, ctx: Context, line: int, fallback_base: str | None) -> str:
    for base in (ctx.url, ctx.options.base_url, fallback_base):
        resolved = resolve(loc, base)
        if resolved is not None:
            ctx.info("relative-url-resolved", f"relative URL {loc} read as {resolved} (base {base})", line)
            problem = check_loc(resolved)
            if problem is not None:
                ctx.warning(problem[0], f"{problem[1]}; kept as written", line)
            return resolved
    ctx.warning(
        "relative-url",
        f"relative URL {loc} has no base URL to resolve it against; kept as written (left out of XML output)",
        line,
    )
    return loc


def read_lastmod(text: str | None, ctx: Context, line: int, what: str = "lastmod") -> W3CDate | None:
    if text is None:
        ctx.warning("lastmod-invalid", f"empty <{what}> ignored", line)
        return None
    try:
        value = W3CDate(text)
    except ValueError:
        pass
    else:
        return value
    value_or_none, note = parse_lenient(text)
    if value_or_none is None:
        ctx.warning("lastmod-invalid", f"<{what}>: {note}; the value is ignored", line)
    elif note is not None:
        ctx.warning("lastmod-repaired", f"<{what}>: {note}", line)
    elif text != text.strip():
        ctx.info("whitespace-trimmed", f"blank space around the {what} value was removed", line)
    return value_or_none


def read_rfc822_date(text: str, ctx: Context, line: int, what: str) -> W3CDate | None:
    """An RFC 822 date (RSS ``pubDate``) as W3C Datetime, or None when it is not one; a date that gives no time
    zone is read as UTC, with the warning ``date-no-zone`` (the zone is invented, never silently)."""
    value, no_zone = read_rfc822(text)
    if value is not None and no_zone:
        ctx.warning(
            "date-no-zone",
            f"<{what}> {text.strip()!r} gives no time zone (none, -0000 or an unknown one); read as UTC: {value}",
            line,
        )
    return value


def read_changefreq(text: str | None, ctx: Context, line: int) -> ChangeFreq | None:
    value = (text or "").strip()
    member = _CHANGEFREQS.get(value)
    if member is not None:
        if value != text:
            ctx.info("whitespace-trimmed", "blank space around the changefreq value was removed", line)
        return member
    member = _CHANGEFREQS.get(value.lower())
    if member is not None:
        ctx.warning(
            "changefreq-case", f"changefreq {value!r} read as {member.value!r} (the values are lower case)", line
        )
        return member
    allowed = ", ".join(_CHANGEFREQS)
    ctx.warning("changefreq-invalid", f"changefreq {value!r} is not one of {allowed}; ignored", line)
    return None


#: The usual ways of writing a priority, read without a closer look (the reader's fast path).
PLAIN_PRIORITIES: dict[str, float] = {f"{hundredths / 100:.2f}": hundredths / 100 for hundredths in range(101)}
PLAIN_PRIORITIES.update({f"{tenths / 10:.1f}": tenths / 10 for tenths in range(11)} | {"0": 0.0, "1": 1.0})


def read_priority(text: str | None, ctx: Context, line: int) -> float | None:
    """A priority as a float in 0.0-1.0 (the IR), or None.

    Only ``xsd:decimal`` is read (:func:`feedmap._core.priority.parse_priority`, which validate uses too);
    other number forms (``1e-1``, ``0_5``, non-ASCII digits, ``inf``) are ``priority-invalid`` and ignored.
    A value that will not be written back as it was read is noted (``priority-normalised``): a sign, a
    missing leading digit or leading zeros (``+.5`` -> ``0.5``), or more digits than a float keeps.
    """
    value = (text or "").strip(XML_BLANKS)
    plain = PLAIN_PRIORITIES.get(value)
    if plain is not None:  # the usual forms: read without a Decimal, and nothing to say about them
        return plain
    exact, problem = parse_priority(value)
    if exact is None:
        ctx.warning("priority-invalid", f"{problem}; ignored", line)
        return None
    number = float(exact)
    number = abs(number)  # -0.0 is 0.0
    if decimal.Decimal(repr(number)) != exact:
        ctx.info("priority-normalised", f"priority {value} has more digits than are kept; read as {number!r}", line)
    elif _UNUSUAL_DECIMAL.match(value) is not None:
        ctx.info("priority-normalised", f"priority {value} read as {number!r}", line)
    return number


_UNUSUAL_DECIMAL = re.compile(r"[-+.]|0[0-9]|.*\.$")
