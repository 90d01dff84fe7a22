"""Entries in order behind :func:`feedmap.transforms.sort_entries`, spilling sorted runs to disk when many.

One job: order a stream of entries by ``loc`` or ``lastmod`` (``options.sort``: ``"loc"``, ``"lastmod"`` or
``"-lastmod"``), stably (entries that compare equal keep their input order), in bounded memory: up to
:data:`ENTRIES_IN_MEMORY` entries are sorted in memory; past it each batch is sorted and pickled into a
temporary file (a sorted run), and the runs are merged with :func:`heapq.merge` (an external merge sort).
The temporary files are removed when the output ends or is closed.  When only the first N in order are
wanted (a conversion's ``limit`` right after the sort, N up to :data:`ENTRIES_IN_MEMORY`), only the N
smallest are kept (:func:`heapq.nsmallest`): memory for N entries, nothing on disk.

The keys: ``loc`` compares the loc as written (Python string order: by code point).  ``lastmod`` compares
W3C Datetime values (https://www.w3.org/TR/NOTE-datetime, the sitemaps.org 0.9 ``<lastmod>``) as instants:
a value is placed at the instant its period starts (``2024-01-01`` at ``2024-01-01T00:00:00Z``, ``2024`` at
its first second), a value without a zone is read as UTC, as :meth:`W3CDate.to_datetime` and the date
filters do; so ``2024-01-01`` and ``2024-01-01T00:00:00Z`` tie (input order kept) and
``2024-01-01T23:30:00-05:00`` comes after ``2024-01-02``.  Entries without a lastmod come last in both
directions (``lastmod`` oldest first, ``-lastmod`` newest first), in input order.
"""

from __future__ import annotations

import heapq
import pickle
import tempfile
from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from typing import IO, Any

from feedmap._context import Context
from feedmap._errors import SourceError
from feedmap._model import Entry
from feedmap._seen_keys import no_room
from feedmap._transform_duplicates import _freeze, _thaw

__all__ = ["ENTRIES_IN_MEMORY", "SORT_KEYS", "sorted_entries"]

#: The values ``options.sort`` takes.
SORT_KEYS = ("loc", "lastmod", "-lastmod")

#: Entries sorted in memory before a sorted run goes to a temporary file (a few hundred megabytes at most for
#: typical entries; ten runs for a million entries, each an open file while they are merged).
ENTRIES_IN_MEMORY = 100_000

_SortKey = tuple[Any, ...]
_order = itemgetter(0, 1)  # (key, input position): unique, so the entries themselves are never compared


def _by_loc(entry: Entry) -> _SortKey:
    return (entry.loc,)


def _by_lastmod(entry: Entry) -> _SortKey:
    return (0, entry.lastmod.sort_key()) if entry.lastmod is not None else (1, 0.0)


def _by_lastmod_newest_first(entry: Entry) -> _SortKey:
    return (0, -entry.lastmod.sort_key()) if entry.lastmod is not None else (1, 0.0)


_KEYS: dict[str, Callable[[Entry], _SortKey]] = {
    "loc": _by_loc,
    "lastmod": _by_lastmod,
    "-lastmod": _by_lastmod_newest_first,
}


def _write_run(batch: list[tuple[_SortKey, int, Entry]]) -> IO[bytes]:
    """``batch`` sorted and pickled into a new temporary file, rewound for reading (SourceError when the
    temporary folder cannot be written: missing, not a folder, full)."""
    batch.sort(key=_order)
    try:
        run = tempfile.NamedTemporaryFile(prefix="feedmap-sort-", suffix=".run")  # noqa: SIM115 (closed by the caller)
    except OSError as exc:
        raise _no_room(exc) from exc
    try:
        for key, position, entry in batch:
            pickle.dump((key, position, _freeze(entry)), run, protocol=pickle.HIGHEST_PROTOCOL)
        run.seek(0)
    except BaseException as exc:
        run.close()
        if isinstance(exc, OSError):
            raise _no_room(exc) from exc
        raise
    return run


def _no_room(exc: OSError) -> SourceError:
    return no_room("file for sorting", exc)


def _read_run(run: IO[bytes]) -> Iterator[tuple[_SortKey, int, Entry]]:
    """The records of a run written by :func:`_write_run`, in order."""
    while True:
        try:
            key, position, frozen = pickle.load(run)  # our own temporary file, written by _write_run
        except EOFError:
            return
        yield key, position, _thaw(frozen)


def sorted_entries(entries: Iterable[Entry], ctx: Context, *, first: int | None = None) -> Iterator[Entry]:
    """The entries ordered by ``ctx.options.sort`` (unchanged and streamed when None); see the module.

    ``first``: only the first N in that order are wanted (the others are not yielded).
    """
    order = ctx.options.sort
    if order is None:
        yield from entries
        return
    key = _KEYS[order]
    if first is not None and first <= ENTRIES_IN_MEMORY:
        keyed = ((key(entry), position, entry) for position, entry in enumerate(entries))
        yield from (entry for _, _, entry in heapq.nsmallest(first, keyed, key=_order))
        return
    runs: list[IO[bytes]] = []
    batch: list[tuple[_SortKey, int, Entry]] = []
    try:
        for position, entry in enumerate(entries):
            batch.append((key(entry), position, entry))
            if len(batch) >= ENTRIES_IN_MEMORY:
                runs.append(_write_run(batch))
                batch = []
        batch.sort(key=_order)
        if not runs:
            yield from (entry for _, _, entry in batch)
            return
        merged = heapq.merge(*(_read_run(run) for run in runs), iter(batch), key=_order)
        yield from (entry for _, _, entry in merged)
    finally:  # also when a step after it stops reading (--limit)
        for run in runs:
            run.close()
