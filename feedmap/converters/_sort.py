"""Entries in order behind :func:`feedmap.converters.sort_entries`, spilling sorted runs to disk when many.

One job: order a stream of entries by ``loc`` or ``lastmod`` (``options.sort``: ``"loc"``, ``"lastmod"`` or
``"-lastmod"``), stably (entries that compare equal keep their input order), in bounded memory: up to
:data:`ENTRIES_IN_MEMORY` entries, and :data:`RUN_BYTES` of them (:func:`entry_size`: big descriptions
fill a run sooner), are sorted in memory; past it each batch is sorted and pickled into a temporary file (a
sorted run, in :func:`feedmap._io.scratch.temporary_folder`), and the runs are merged with :func:`heapq.merge`
(an external merge sort).  Every :data:`MAX_RUNS` runs are merged into one, so that the runs open at once
stay few (an input of any size never meets the open-file limit).  The temporary files are removed when the
output ends, fails or is closed; a temporary folder that is missing or full is a
:class:`~feedmap._core.errors.SourceError`, said as such.  When only the first N in order are wanted (a
conversion's ``limit`` right after the sort, N up to :data:`ENTRIES_IN_MEMORY`), each full batch is cut
down to its N smallest: memory for about 2N entries, nothing on disk unless those N are too big to hold.

The keys: ``loc`` compares the loc as written (Python string order: by code point).  ``lastmod`` compares
W3C Datetime values (https://www.w3.org/TR/NOTE-datetime, the sitemaps.org 0.9 ``<lastmod>``) in the order
of :class:`~feedmap._core.dates.W3CDate`: a value is placed at the instant its period starts (``2024-01-01``
at ``2024-01-01T00:00:00Z``, ``2024`` at its first second), a value without a zone is read as UTC, as
:meth:`W3CDate.to_datetime` and the date filters do, and values of one instant order coarser first, then by
text; so ``2024-01-01`` comes just before ``2024-01-01T00:00:00Z`` and ``2024-01-01T23:30:00-05:00`` after
``2024-01-02``.  ``-lastmod`` is that order reversed.  The keys are :meth:`W3CDate.order_key` (ints and
strings, compared in C).  Entries without a lastmod come last in both directions (``lastmod`` oldest first,
``-lastmod`` newest first), in input order; entries of one lastmod keep their input order.
"""

from __future__ import annotations

import contextlib
import heapq
from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from typing import IO, Any

from feedmap._core.context import Context
from feedmap._core.errors import SourceError
from feedmap._core.model import Entry
from feedmap._io.scratch import scratch_error, scratch_file
from feedmap.converters._duplicates import _freeze, _thaw, entry_size

__all__ = ["ENTRIES_IN_MEMORY", "MAX_RUNS", "RUN_BYTES", "SORT_KEYS", "sort_entries", "sort_key"]

#: The values ``options.sort`` takes.
SORT_KEYS = ("loc", "lastmod", "-lastmod")

#: Entries sorted in memory before a sorted run goes to a temporary file (ten runs for a million entries)...
ENTRIES_IN_MEMORY = 100_000
#: ... and at most this many bytes of them (:func:`entry_size`): entries of 900 KB make runs of 37.
RUN_BYTES = 32 << 20
#: Sorted runs on disk merged into one when there are this many (each is an open file while merged).
MAX_RUNS = 64

_SortKey = tuple[Any, ...]
_Record = tuple[_SortKey, int, Entry]
_order = itemgetter(0, 1)  # (key, input position): unique, so the entries themselves are never compared
_WHAT = "file for sorting"


def _by_loc(entry: Entry) -> _SortKey:
    return (entry.loc,)


def _by_lastmod(entry: Entry) -> _SortKey:
    return (0, entry.lastmod.order_key()) if entry.lastmod is not None else (1,)


def _descending(text: str) -> tuple[int, ...]:
    """A key ordering texts the other way round (a text before the texts it begins: ``"ab"`` after ``"abc"``)."""
    return (*(-ord(char) for char in text), 1)


def _by_lastmod_newest_first(entry: Entry) -> _SortKey:
    if entry.lastmod is None:
        return (1,)
    seconds, fraction, precision, text = entry.lastmod.order_key()
    return (0, -seconds, _descending(fraction), -precision, _descending(text))


_KEYS: dict[str, Callable[[Entry], _SortKey]] = {
    "loc": _by_loc,
    "lastmod": _by_lastmod,
    "-lastmod": _by_lastmod_newest_first,
}


def sort_key(order: str) -> Callable[[Entry], tuple[Any, ...]]:
    """The key ``options.sort`` (``order``) orders entries by (equal keys: input order kept); a Dask bag's
    sorted partitions are merged by it (:mod:`feedmap._web.bag_order`)."""
    return _KEYS[order]


def _no_room(exc: BaseException) -> SourceError:
    return scratch_error(_WHAT, exc)


def _close(run: IO[bytes]) -> None:
    """Close and remove a run; a full disk refusing its last bytes again is not raised twice."""
    with contextlib.suppress(OSError):
        run.close()


def _write_run(records: Iterable[_Record]) -> IO[bytes]:
    """``records`` (in order) pickled into a new temporary file, rewound for reading (SourceError when the
    temporary folder cannot take it: missing, not a folder, full)."""
    import pickle  # here, not at start: only a sort that spills needs it

    run = scratch_file("feedmap-sort-", _WHAT)
    try:
        for key, position, entry in records:
            pickle.dump((key, position, _freeze(entry)), run, protocol=pickle.HIGHEST_PROTOCOL)
        run.seek(0)  # flushes: a full disk shows here
    except BaseException as exc:
        _close(run)
        if isinstance(exc, OSError):
            raise _no_room(exc) from exc
        raise
    return run


def _read_run(run: IO[bytes]) -> Iterator[_Record]:
    """The records of a run written by :func:`_write_run`, in order."""
    import pickle

    while True:
        try:
            key, position, frozen = pickle.load(run)  # our own temporary file, written by _write_run
        except EOFError:
            return
        except OSError as exc:
            raise _no_room(exc) from exc
        yield key, position, _thaw(frozen)


def _merged(runs: list[IO[bytes]], batch: list[_Record]) -> Iterator[_Record]:
    return heapq.merge(*(_read_run(run) for run in runs), iter(batch), key=_order)


def sort_entries(entries: Iterable[Entry], ctx: Context, *, first: int | None = None) -> Iterator[Entry]:
    """The entries ordered by ``ctx.options.sort`` (unchanged and streamed when None); see the module.

    ``first``: only the first N in that order are wanted (the others may not be yielded).
    """
    order = ctx.options.sort
    if order is None:
        yield from entries
        return
    key = _KEYS[order]
    # a batch is cut down to the first N (when only they are wanted) or written as a run when it holds
    # `most` entries or RUN_BYTES; a cut batch stays in memory while it is small
    pruned = first is not None and first <= ENTRIES_IN_MEMORY
    most = max(ENTRIES_IN_MEMORY, 2 * first) if first is not None and pruned else ENTRIES_IN_MEMORY
    runs: list[IO[bytes]] = []
    batch: list[_Record] = []
    size = 0
    try:
        for position, entry in enumerate(entries):
            batch.append((key(entry), position, entry))
            size += entry_size(entry)
            if len(batch) < most and size < RUN_BYTES:
                continue
            batch.sort(key=_order)
            if first is not None:
                del batch[first:]  # none of the others is among the first N
                size = sum(entry_size(record[2]) for record in batch)
                if pruned and size <= RUN_BYTES // 2:
                    continue
            runs.append(_write_run(batch))
            batch, size = [], 0
            if len(runs) >= MAX_RUNS:
                merged = _write_run(_merged(runs, []))
                for run in runs:
                    _close(run)
                runs = [merged]
        batch.sort(key=_order)
        yield from (entry for _, _, entry in (_merged(runs, batch) if runs else batch))
    finally:  # also when a step after it stops reading (--limit)
        for run in runs:
            _close(run)
