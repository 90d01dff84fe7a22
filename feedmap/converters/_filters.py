"""Entry filters behind :func:`feedmap.converters.filter_entries` and
:func:`feedmap.converters.limit_entries`.

One job: select entries by their ``lastmod`` (W3C Datetime, https://www.w3.org/TR/NOTE-datetime, the
sitemaps.org 0.9 ``<lastmod>``), by their ``loc`` (Python regular expressions, :func:`re.search`), and keep
the first N, streaming (one entry in memory at a time).

The date rule: a W3C date names a period as long as its precision (``2024`` a year, ``2024-01-01`` a day,
``...T10:00:00Z`` a second); a value without a zone is read as UTC, as :meth:`W3CDate.to_datetime` does.
An entry is within ``since`` when its period ends after ``since`` begins, and within ``until`` when its
period begins before ``until`` ends: both bounds are inclusive over their whole period, so a lastmod of
``2024-01-01`` is within ``--since 2024-01-01T15:00:00Z`` and ``--until 2024-01-01``, and
``2024-01-01T23:30:00-05:00`` (04:30 UTC the next day) is not within ``--until 2024-01-01``.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from feedmap._core.context import Context
from feedmap._core.dates import Precision, W3CDate
from feedmap._core.model import Entry
from feedmap._core.wording import counted

__all__ = [
    "Left",
    "check_bounds",
    "compile_patterns",
    "counted_filter",
    "filter_entries",
    "limit_entries",
    "period",
    "report_left",
    "within",
]

_INFINITY = float("inf")


def _next_start(start: _dt.datetime, precision: Precision) -> float:
    """POSIX seconds where the period of ``precision`` beginning at ``start`` ends."""
    try:
        if precision is Precision.YEAR:
            return start.replace(year=start.year + 1).timestamp()
        if precision is Precision.MONTH:
            if start.month == 12:
                return start.replace(year=start.year + 1, month=1).timestamp()
            return start.replace(month=start.month + 1).timestamp()
    except ValueError:  # past year 9999
        return _INFINITY
    step = {Precision.DAY: 86400.0, Precision.MINUTE: 60.0, Precision.SECOND: 1.0}.get(precision, 1e-6)
    return start.timestamp() + step


def period(date: W3CDate) -> tuple[float, float]:
    """The period ``date`` names, as POSIX seconds ``[start, end)`` (see the module's date rule)."""
    start = date.to_datetime()
    return start.timestamp(), _next_start(start, date.precision)


def within(date: W3CDate, since: W3CDate | None, until: W3CDate | None) -> bool:
    """Whether ``date`` is at or after ``since`` and at or before ``until`` (each None: no bound)."""
    start, end = period(date)
    if since is not None and end <= period(since)[0]:
        return False
    return until is None or start < period(until)[1]


def compile_patterns(patterns: Sequence[str]) -> tuple[re.Pattern[str], ...]:
    """The regular expressions, compiled (:class:`re.error` for an invalid one)."""
    return tuple(re.compile(pattern) for pattern in patterns)


@dataclass
class Left:
    """What the filters left out (and kept without a lastmod), for the closing report; ``dated``: a date bound
    was given (only then are the entries kept without a lastmod told)."""

    dated: bool = False
    reasons: dict[str, int] = field(default_factory=dict)
    no_lastmod: int = 0

    def count(self, reason: str) -> None:
        self.reasons[reason] = self.reasons.get(reason, 0) + 1

    def add(self, other: Left) -> Left:
        """These counts and then ``other``'s (of the entries after these): the reasons keep the order in which
        they first left an entry out, as one pass over both would count them."""
        reasons = dict(self.reasons)
        for reason, count in other.reasons.items():
            reasons[reason] = reasons.get(reason, 0) + count
        return Left(self.dated or other.dated, reasons, self.no_lastmod + other.no_lastmod)


def _reason(entry: Entry, ctx: Context, include: Sequence[re.Pattern[str]], exclude: Sequence[re.Pattern[str]]) -> str:
    """Why ``entry`` is left out ("" when it is kept)."""
    options = ctx.options
    if include and not any(pattern.search(entry.loc) for pattern in include):
        return "not matching include"
    if any(pattern.search(entry.loc) for pattern in exclude):
        return "matching exclude"
    if entry.lastmod is None:
        return "without a lastmod" if options.require_lastmod else ""
    if options.since is not None and not within(entry.lastmod, options.since, None):
        return "before the since date"
    if options.until is not None and not within(entry.lastmod, None, options.until):
        return "after the until date"
    return ""


def check_bounds(since: W3CDate | None, until: W3CDate | None) -> None:
    """ValueError when ``since`` begins at or after the end of ``until``: the bounds were given the wrong way
    round (only a lastmod coarser than both, a year, could be within them)."""
    if since is not None and until is not None and period(since)[0] >= period(until)[1]:
        raise ValueError(f"since {since} is after until {until}: the earlier date is the since bound")


def filter_entries(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """The entries the options' ``since``, ``until``, ``require_lastmod``, ``include`` and ``exclude`` keep.

    The patterns are compiled and the bounds compared at the call (:class:`re.error`, :class:`ValueError`), not
    mid-stream.  At the end (or when closed before it): INFO ``no-lastmod-kept`` (entries without a lastmod kept
    by a date filter) and INFO ``entries-filtered`` (how many each filter left out), each once.
    """
    options = ctx.options
    check_bounds(options.since, options.until)
    left = Left()
    return _reported(counted_filter(entries, ctx, left), ctx, left)


def _reported(kept: Iterator[Entry], ctx: Context, left: Left) -> Iterator[Entry]:
    try:
        yield from kept
    finally:  # also when a step after it stops reading (--limit): what was left out until then
        report_left(left, ctx)


def counted_filter(entries: Iterable[Entry], ctx: Context, left: Left | None = None) -> Iterator[Entry]:
    """The loop of :func:`filter_entries` without its closing report: what it leaves out is counted into
    ``left`` (by default a new :class:`Left`; its ``dated`` set from the options), for :func:`report_left`
    (children read by workers, or the partitions of a Dask bag, are counted apart and reported as one).  The
    patterns are compiled at the call."""
    options = ctx.options
    include, exclude = compile_patterns(options.include), compile_patterns(options.exclude)
    left = Left() if left is None else left
    left.dated = options.since is not None or options.until is not None
    return _kept(entries, ctx, include, exclude, left)


def _kept(
    entries: Iterable[Entry],
    ctx: Context,
    include: Sequence[re.Pattern[str]],
    exclude: Sequence[re.Pattern[str]],
    left: Left,
) -> Iterator[Entry]:
    dated = left.dated
    for entry in entries:
        reason = _reason(entry, ctx, include, exclude)
        if reason:
            left.count(reason)
            continue
        if dated and entry.lastmod is None:
            left.no_lastmod += 1
        yield entry


def report_left(left: Left, ctx: Context) -> None:
    """The closing report of :func:`filter_entries`: INFO ``no-lastmod-kept`` and ``entries-filtered``."""
    if left.dated and left.no_lastmod:
        kept = counted(left.no_lastmod, "entry", "entries")
        message = f"{kept} without a lastmod kept"
        ctx.reporter.info("no-lastmod-kept", message, ctx.name)
    if left.reasons:
        total = sum(left.reasons.values())
        parts = ", ".join(f"{count} {reason}" for reason, count in left.reasons.items())
        ctx.reporter.info("entries-filtered", f"{counted(total, 'entry', 'entries')} left out: {parts}", ctx.name)


def limit_entries(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """The first ``options.limit`` entries (all when None); reading stops there (INFO ``limit-reached``)."""
    limit = ctx.options.limit
    if limit is None:
        yield from entries
        return
    if limit <= 0:
        ctx.reporter.info("limit-reached", "no entry written (a limit of 0)", ctx.name)
        return
    source = iter(entries)
    for written, entry in enumerate(source, 1):
        yield entry
        if written >= limit:
            message = f"stopped after {counted(limit, 'entry', 'entries')}: the limit"
            ctx.reporter.info("limit-reached", message, ctx.name)
            close = getattr(source, "close", None)
            if close is not None:  # the steps before it end now (and report what they counted)
                close()
            return
