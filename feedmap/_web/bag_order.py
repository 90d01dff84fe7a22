"""``sort`` of a Dask bag of entries: each partition sorted by its worker, the partitions merged by the client.

:func:`sort_part` is a worker's: :func:`feedmap.converters._sort.sort_entries` (the converters' own sort, stable,
entries without a lastmod last, sorted runs spilled to temporary files past ``ENTRIES_IN_MEMORY``) of one
partition.  :func:`merged` is the client's: a k-way merge (:func:`heapq.merge`) of the sorted partitions by the
same key (:func:`feedmap.converters._sort.sort_key`), ties to the partition first in the bag, which is the
order one stable sort of the partitions one after the other gives: an entry before another with an equal key
in the input stays before it.  The partitions stream to the merge in slices of :func:`slice_size` entries, the
next slice of each asked for while the current one is merged, so that the client holds about two slices a
partition (``2 * _HELD`` entries in all, whatever the number of partitions, down to ``_LEAST`` a slice); on
Dask's local scheduler the partitions are in the client already (:mod:`feedmap._web.bag_stream`).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any

from feedmap._core.context import Context, Options
from feedmap._core.errors import Reporter
from feedmap._core.model import Entry
from feedmap._web.bag_steps import Stepped
from feedmap._web.bag_stream import Dead, Submitted
from feedmap._web.partitions import Packed, packed, unpacked
from feedmap.converters._sort import sort_entries, sort_key

__all__ = ["merged", "slice_size", "sort_part"]

#: Entries the merge holds in all, about (a slice of each partition and the next one coming).
_HELD = 1 << 19
#: The fewest entries in a slice, and the most.
_LEAST, _MOST = 64, 4096


def sort_part(entries: list[Entry], options: Options) -> Stepped:
    """A worker: one partition sorted by ``options.sort``."""
    ctx = Context(reporter=Reporter(keep=0), options=options)
    return Stepped(list(sort_entries(entries, ctx)), (), None, options.strict, options.sort)


def slice_size(partitions: int) -> int:
    """The entries of a partition fetched at once when ``partitions`` are merged."""
    return max(_LEAST, min(_MOST, _HELD // max(1, 2 * partitions)))


def _slice(entries: list[Entry], start: int, stop: int) -> Packed | None:
    """A worker: the entries ``start:stop`` of a partition, packed (None past its end)."""
    part = entries[start:stop]
    return packed(part) if part else None


class _Stream(Iterator[Entry]):
    """The entries of one sorted partition held by the cluster, fetched a slice at a time, the next slice asked
    for as soon as one arrives."""

    def __init__(self, computed: Submitted, place: int, size: int, dead: Dead) -> None:
        self._client: Any = computed.client
        self._place, self._size, self._dead = place, size, dead
        self._future = computed.future(place)
        self._start = 0
        self._pending: Any = self._ask()
        self._entries: Iterator[Entry] = iter(())

    def _ask(self) -> Any:
        start, self._start = self._start, self._start + self._size
        return self._client.submit(_slice, self._future, start, start + self._size, pure=False)

    def __next__(self) -> Entry:
        entry = next(self._entries, None)
        while entry is None:
            if self._pending is None:
                self.close()
                raise StopIteration
            got = self._gathered(self._pending)
            self._pending = self._ask() if got is not None and len(got[1]) + len(got[6]) == self._size else None
            self._entries = iter(unpacked(got) if got is not None else ())
            entry = next(self._entries, None)
        return entry

    def _gathered(self, pending: Any) -> Packed | None:
        try:
            got: Packed | None = pending.result()
        except Exception as exc:
            raised = self._dead(exc, self._place)
            if raised is exc:
                raise
            raise raised from None
        return got

    def close(self) -> None:
        """Let the partition go (the cluster drops it)."""
        self._future = self._pending = None


def merged(computed: Submitted, order: str, dead: Dead) -> Iterator[Entry]:
    """The entries of the sorted partitions of ``computed``, merged by ``order`` (ties: the earlier partition)."""
    size = slice_size(len(computed))
    streams: list[Iterator[Entry]] = []
    for place in range(len(computed)):
        if computed.client is None:  # Dask's local scheduler: the partition is here
            streams.append(iter(computed.future(place)))
        else:
            streams.append(_Stream(computed, place, size, dead))
    try:
        yield from heapq.merge(*streams, key=sort_key(order))
    finally:
        for stream in streams:
            if isinstance(stream, _Stream):
                stream.close()
