"""The summary of page enrichment (:mod:`feedmap.converters._enrich`), said once at the end of its input.

One INFO ``enrich-summary`` diagnostic counts what enrichment did to the entries it was given: the pages whose
title, description or keywords filled the entry (``enriched``), those read with nothing new for it
(``unchanged``), the entries not fetched because they had all three values (without ``overwrite``), and the
pages that failed, by reason (``HTTP 404``, ``timeout``, ``disallowed by robots.txt``, ``not HTML``, ``too
big``, ...).  A Dask bag's partitions each count their part (:mod:`feedmap._web.bag_enrich`), added up by the
client and said once: the counts, and so the message, are those of one run.  Light: loaded with a bag's steps.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from feedmap._core.context import Context

__all__ = ["DISALLOWED", "NOT_HTML", "TOO_BIG", "PageTally", "fetch_reason"]

#: The reasons of the summary (:class:`PageTally`) for the failures that are no fetch error's code.
DISALLOWED, NOT_HTML, TOO_BIG = "disallowed by robots.txt", "not HTML", "too big"


def fetch_reason(exc: BaseException) -> str:
    """What the summary calls a failed fetch: ``HTTP 404``, ``timeout``, ``too many redirects``, ..."""
    code = getattr(exc, "code", None)
    if not isinstance(code, str) or not code:
        return "fetch failed"
    if code.startswith("http-"):
        return f"HTTP {code[5:]}"
    return TOO_BIG if code == "too-large" else code.replace("-", " ")


@dataclass(slots=True)
class PageTally:
    """What enrichment did, said once at the end (INFO ``enrich-summary``): the pages whose values filled the
    entry (``enriched``), read but with nothing new (``unchanged``), not fetched because the entry had every
    value (``complete``, without ``overwrite``), and the failures by reason.  Parts of one input (a Dask bag's
    partitions, a host's pages) add up: :meth:`add`, then :meth:`report` once."""

    enriched: int = 0
    unchanged: int = 0
    complete: int = 0
    failed: Counter[str] = field(default_factory=Counter)

    def add(self, other: PageTally, /) -> PageTally:
        """These and ``other``'s, in a new tally."""
        return PageTally(
            self.enriched + other.enriched,
            self.unchanged + other.unchanged,
            self.complete + other.complete,
            self.failed + other.failed,
        )

    def message(self) -> str:
        """``195 enriched, 5 failed: 3 HTTP 404, 2 disallowed by robots.txt`` (the reasons most frequent
        first, ties in the order of their names: the same wherever the pages were read)."""
        parts = [f"{self.enriched:,} enriched"]
        if self.unchanged:
            parts.append(f"{self.unchanged:,} unchanged (their page had nothing to add)")
        if self.complete:
            parts.append(f"{self.complete:,} not fetched (title, description and keywords there already)")
        failed = sum(self.failed.values())
        if failed:
            reasons = sorted(self.failed.items(), key=lambda item: (-item[1], item[0]))
            parts.append(f"{failed:,} failed: " + ", ".join(f"{count:,} {reason}" for reason, count in reasons))
        else:
            parts.append("none failed")
        return ", ".join(parts)

    def report(self, ctx: Context) -> None:
        """Say the summary (INFO ``enrich-summary``), once for the whole input."""
        ctx.reporter.info("enrich-summary", self.message(), ctx.name)
