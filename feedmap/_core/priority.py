"""The sitemap priority as the sitemaps.org 0.9 XSD types it: ``tPriority``, an ``xsd:decimal`` from 0.0 to 1.0.

One job: :func:`parse_priority`, the one reading of a priority's text that reading (which ignores a bad value
and goes on) and ``feedmap validate`` (which reports it) share, so that both take and refuse the same
values.  ``xsd:decimal`` (XML Schema 1.0 Part 2 §3.2.3, https://www.w3.org/TR/xmlschema-2/#decimal) is an
optional sign, ASCII digits and at most one point: no exponent (``1e-1``), no ``_``, no other digits; the
type collapses XML white space, so blanks (space, tab, CR, LF) around the value are allowed
(sitemaps.org: https://www.sitemaps.org/protocol.html#prioritydef).
"""

from __future__ import annotations

import re
from decimal import Decimal

__all__ = ["XML_BLANKS", "parse_priority"]

#: XML white space (XML 1.0 production S), what xsd:decimal's whiteSpace="collapse" removes around a value.
XML_BLANKS = " \t\r\n"
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_LOWEST, _HIGHEST = Decimal(0), Decimal(1)


def parse_priority(text: str) -> tuple[Decimal | None, str]:
    """``(value, "")`` for a priority the XSD takes (its exact value), else ``(None, what is wrong)``: the
    message of ``priority-invalid``, to which the caller adds what it does about it."""
    value = text.strip(XML_BLANKS)
    if _DECIMAL.fullmatch(value) is None:
        return None, f"priority {repr(value) if value else '(empty)'} is not a decimal number such as 0.8"
    exact = Decimal(value)
    if not _LOWEST <= exact <= _HIGHEST:
        return None, f"priority {value} is not between 0.0 and 1.0"
    return exact, ""
