"""A bag of entries whose steps need every partition (:data:`feedmap._web.bag_steps.WHOLE`) computed in one submission.

A step such as ``dedupe`` or ``sort`` makes each partition of its bag depend on every partition before it
(:mod:`feedmap._web.bag_dedupe`, :mod:`feedmap._web.bag_order`).  Computed a few partitions at a time, in
separate submissions as :mod:`feedmap.dask` computes other bags, each go would read every partition again:
Dask keeps a result only while a submission holds it.  So such a bag is submitted once (:class:`Submitted`):
on a ``distributed`` cluster (the client of the moment, :func:`current_client`) as futures, each partition's
result held by the workers (which spill it to disk under memory pressure, Dask's own rule) until the client
takes it, then released; on Dask's local scheduler, computed at once in this process (the client holds every
partition: use a cluster for a bag larger than memory).  The summaries (the side channel of
:mod:`feedmap.dask`: each partition's reading and steps without their entries) are fetched in chunks of
:data:`_CHUNK` partitions, one round trip each.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

__all__ = ["Dead", "Submitted", "current_client"]

_DASK: Any = importlib.import_module("dask")
#: Partitions whose summaries are fetched from the cluster in one round trip.
_CHUNK = 256

#: What an exception of a computation is raised as (``feedmap.dask`` names the partition whose worker died),
#: given the exception and the partition it was computing (or the first of the chunk).
Dead = Callable[[Exception, int], Exception]


def current_client() -> Any | None:
    """The ``distributed.Client`` Dask computes with now, or None (Dask's local scheduler)."""
    scheduler = _DASK.base.get_scheduler()
    client = getattr(scheduler, "__self__", scheduler)  # a client's get (older Dask), or the client itself
    return client if callable(getattr(client, "compute", None)) and callable(getattr(client, "gather", None)) else None


class Submitted:
    """``work`` (one task per partition) and ``rows`` (per partition, its summaries) submitted at once."""

    def __init__(self, work: list[Any], rows: list[list[Any]]) -> None:
        self.client = current_client()
        self.width = len(rows[0]) if rows else 0
        flat = [one for row in rows for one in row]
        values = list(_DASK.compute(*work, *flat)) if self.client is None else self.client.compute(work + flat)
        self._work: list[Any] = values[: len(work)]
        self._rows: list[list[Any] | None] = [
            values[len(work) + place * self.width : len(work) + (place + 1) * self.width] for place in range(len(work))
        ]

    def __len__(self) -> int:
        return len(self._work)

    def summaries(self, indexes: Sequence[int], dead: Dead) -> Iterator[list[Any]]:
        """Per partition, in order, its summaries at ``indexes`` of its row (those let go once given)."""
        for start in range(0, len(self._rows), _CHUNK):
            rows = self._rows[start : start + _CHUNK]
            wanted = [row[index] for row in rows if row is not None for index in indexes]
            values = self._gathered(wanted, dead, start)
            for place, row in enumerate(rows):
                assert row is not None
                for index in indexes:
                    row[index] = None  # given: not held again
                yield values[place * len(indexes) : (place + 1) * len(indexes)]

    def result(self, place: int, dead: Dead) -> Any:
        """The result of partition ``place``'s work (let go once given)."""
        value, self._work[place] = self._work[place], None
        return self._gathered([value], dead, place)[0]

    def future(self, place: int) -> Any:
        """Partition ``place``'s work as computed: its future on a cluster, else its value (let go once given)."""
        value, self._work[place] = self._work[place], None
        return value

    def _gathered(self, values: list[Any], dead: Dead, place: int) -> list[Any]:
        if self.client is None:
            return values
        try:
            gathered: list[Any] = self.client.gather(values)
        except Exception as exc:
            raised = dead(exc, place)
            if raised is exc:
                raise
            raise raised from None
        return gathered

    def release(self) -> None:
        """Let every result not taken go (the cluster drops it)."""
        self._work = [None] * len(self._work)
        self._rows = [None] * len(self._rows)
