"""The findings of ``feedmap validate``: a code and a message, at the level the one rule table gives the code.

One job: :class:`Findings`, which turns a code and a message into a :class:`~feedmap._core.errors.Diagnostic`
at the code's level in :data:`feedmap._core.rules.RULES` (the table reading shares), so that no rule can be
reported without an entry in the table.  The rules come from the sitemaps.org protocol 0.9
(https://www.sitemaps.org/protocol.html) and its XSDs, the W3C Datetime note
(https://www.w3.org/TR/NOTE-datetime) and RFC 3986 (URIs).  The RSS/ROR rules live with the feed checks.
"""

from __future__ import annotations

from collections.abc import Callable

from feedmap._core.errors import Diagnostic
from feedmap._core.rules import RULES

__all__ = ["Findings"]


class Findings:
    """Reports findings of one file by code; the level comes from :data:`feedmap._core.rules.RULES`."""

    def __init__(self, report: Callable[[Diagnostic], None], name: str) -> None:
        self.report = report
        self.name = name

    def __call__(self, code: str, message: str, line: int = 0, column: int = 0) -> None:
        level = RULES[code].level
        self.report(Diagnostic(level, code, message, self.name, line, column))
