"""A lastmod as an Atom date: RFC 3339 ``date-time``, the form of ``atom:updated`` (RFC 4287 §3.3).

Spec: RFC 4287 §3.3 (a Date construct is an RFC 3339 ``date-time``: a full date, ``T``, a time of seconds with an
optional fraction, and a zone, ``Z`` or ``+hh:mm``) and W3C Datetime (https://www.w3.org/TR/NOTE-datetime), whose
coarser forms a lastmod may have.  A lastmod that is a ``date-time`` already is written as it is (its fraction and
offset kept); a coarser one is written as the instant it starts at: a year or a month on its first day, a date at
midnight, a time of minutes at ``:00`` seconds, in its own zone, else UTC (a date or a time without zone is read as
UTC everywhere in feedmap, :meth:`feedmap._core.dates.W3CDate.to_datetime`).
"""

from __future__ import annotations

import re

from feedmap._core.dates import W3CDate

__all__ = ["is_rfc3339", "rfc3339"]

_W3C = re.compile(
    r"(\d{4})(?:-(\d\d)(?:-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?)?)?)?(Z|[+-]\d\d:\d\d)?",
    re.ASCII,
)
#: A ``date-time`` of RFC 3339 §5.6, as the W3C Feed Validator checks ``atom:updated``.
_DATE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)", re.ASCII)


def is_rfc3339(text: str) -> bool:
    """Whether ``text`` is an RFC 3339 ``date-time`` (what Atom writes as it is)."""
    return _DATE_TIME.fullmatch(text) is not None


def rfc3339(lastmod: W3CDate) -> str:
    """``lastmod`` as an RFC 3339 ``date-time``: as written when it is one, else the instant it starts at."""
    text = lastmod.text
    if _DATE_TIME.fullmatch(text) is not None:
        return text
    match = _W3C.fullmatch(text)
    assert match is not None  # a W3CDate's text
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    return (
        f"{year}-{month or '01'}-{day or '01'}T{hour or '00'}:{minute or '00'}:{second or '00'}"
        f"{fraction or ''}{zone or 'Z'}"
    )
