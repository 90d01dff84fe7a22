"""The client's side of a Dask bag of entries (:mod:`feedmap.dask`): each partition's diagnostics, in order.

What a bag brings besides its entries travels in tasks of its graph keyed ``(feedmap-read-NAME, i)`` (a partition's
reading, :mod:`feedmap._web.bag_parts`) and ``(feedmap-step-NAME, i)`` (a step of :mod:`feedmap._web.bag_steps`),
one per partition.  :func:`channel_of` finds them; :func:`partitions` computes a bag a few partitions at a time
(:data:`AHEAD`), each with those tasks' summaries (their results without the entries), and :class:`Said` reports
them in partition order when the partition reaches the client: its reading's diagnostics (with what spans an input's
partitions tallied, :class:`~feedmap._web.bag_parts.Tallies`), then each step's under that step's ``strict``, and at
the end what each step says once.  A bag with a step that needs every partition
(:data:`~feedmap._web.bag_steps.WHOLE`) is computed in one submission (:class:`~feedmap._web.bag_stream.Submitted`):
the diagnostics up to that step are said for every partition first, as one run has read everything before such a
step says anything; a sorted bag is then merged (:func:`feedmap._web.bag_order.merged`).  A partition whose worker
keeps dying (Dask's ``KilledWorker``) is a :class:`~feedmap._core.errors.SourceError` naming its child
(:func:`dead`, from :data:`WHATS`).
"""

from __future__ import annotations

import importlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from dask.delayed import Delayed, delayed

from feedmap._core.context import Context, Options, reporter_for
from feedmap._core.errors import Diagnostic, Reporter, SourceError
from feedmap._core.model import Entry
from feedmap._web.bag_order import merged
from feedmap._web.bag_parts import Read, Tallies, packed_batches, reraise
from feedmap._web.bag_steps import SORT, STEP, WHOLE, Closing, Stepped, step_kind, summary_of
from feedmap._web.bag_stream import Dead, Submitted
from feedmap._web.partitions import unpacked

if TYPE_CHECKING:
    from dask.bag import Bag

__all__ = [
    "AHEAD",
    "READ",
    "WHATS",
    "Channel",
    "Said",
    "channel_of",
    "dead",
    "partitions",
    "read_summary",
    "remember",
    "said_all",
    "streamed",
]

_DASK: Any = importlib.import_module("dask")
_BAGS: Any = importlib.import_module("dask.bag")
_TASK: Any = Delayed

#: The name of a read task's key, and the partitions each of the last bags read names (for a worker's death).
READ = "feedmap-read-"
WHATS: OrderedDict[str, tuple[str, ...]] = OrderedDict()
_WHATS_KEPT = 64
#: Partitions computed in one go, while the client handles the go before.
AHEAD = 16


def remember(name: str, whats: tuple[str, ...]) -> None:
    """What each partition of the bag read as ``name`` is (what an error names), kept for the last few bags."""
    WHATS[name] = whats
    while len(WHATS) > _WHATS_KEPT:
        WHATS.popitem(last=False)


def read_summary(read: Read) -> Read:
    """A partition's reading without its entries (what the client needs of it besides the bag's entries)."""
    return replace(read, batches=())


@dataclass(frozen=True, slots=True)
class Channel:
    """What the client reports of a bag's partitions besides their entries: per partition, the summary of its
    reading (None for a bag not read by :func:`read_bag`) and of each step applied to it (:mod:`bag_steps`),
    the steps in the order they were applied; ``name``: the reading's key name."""

    name: str | None
    reads: list[Any]
    steps: list[tuple[str, list[Any]]]

    def row(self, place: int) -> list[Any]:
        """The summaries of partition ``place``: its reading's (if any), then each step's."""
        read = self.reads[place]
        return ([] if read is None else [read]) + [summaries[place] for _, summaries in self.steps]

    @property
    def barrier(self) -> int:
        """The place of the last step that needs every partition (:data:`WHOLE`), -1 when none does."""
        kinds = [step_kind(name) for name, _ in self.steps]
        return max((place for place, kind in enumerate(kinds) if kind in WHOLE), default=-1)

    @property
    def sorted(self) -> bool:
        return any(step_kind(name) == SORT for name, _ in self.steps)


def channel_of(bag: Bag) -> Channel:
    """The side channel of ``bag``: the tasks keyed ``(feedmap-read-..., i)`` and ``(feedmap-step-..., i)`` of
    its graph, one per partition each (ValueError when a bag's partitions are no longer those)."""
    graph = bag.__dask_graph__()
    found: dict[str, list[Any]] = {}
    for key in graph:
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], str) and key[0].startswith((READ, STEP)):
            found.setdefault(key[0], []).append(key)
    reads = [name for name in found if name.startswith(READ)]
    if len(reads) > 1 or any(len(keys) != bag.npartitions for keys in found.values()):
        raise ValueError(
            "this bag's partitions are not those read_bag made (repartitioned, or bags joined): write each read "
            "bag on its own, transformed partition by partition (map, filter, map_partitions, and the steps of "
            "feedmap.dask)"
        )

    def summaries(name: str, summary: Callable[[Any], Any]) -> list[Any]:
        keys = sorted(found[name], key=lambda key: key[1])
        return [delayed(summary, pure=True)(_TASK(key, graph)) for key in keys]

    name = reads[0] if reads else None
    steps = [(step, summaries(step, summary_of)) for step in sorted(found) if step.startswith(STEP)]
    return Channel(name, summaries(name, read_summary) if name else [None] * bag.npartitions, steps)


class Said:
    """The client's side of the channel: each partition's diagnostics reported (its reading's, then each step's
    under that step's ``strict``), what spans an input's partitions tallied (``Tallies``), each step's
    :class:`~feedmap._web.bag_steps.Closing` summed and reported where one run says it."""

    def __init__(self, channel: Channel, reporter: Reporter, meta: list[Read] | None) -> None:
        self.reporter, self.meta = reporter, meta
        self.reads = channel.name is not None
        self.tallies = Tallies(reporter)
        self.closings: list[Closing | None] = [None] * len(channel.steps)
        self.strict = [False] * len(channel.steps)
        self.order: str | None = None  # a sort's (its partitions are each in that order)

    def read(self, read: Read) -> None:
        if self.meta is not None and not self.meta:
            self.meta.append(read)
        self.tallies.add(read)
        for diagnostic in read.diagnostics:
            self.reporter.report(diagnostic)
        reraise(read)

    def row(self, values: Sequence[Any], steps: range) -> None:
        """A partition's summaries, in the order of :meth:`indexes` (``steps``): its reading's said (when
        ``steps`` starts with the first step), then those of the steps ``steps``."""
        given = iter(values)
        if self.reads and steps.start == 0:
            self.read(next(given))
        for place in steps:
            self.step(place, next(given))

    def indexes(self, steps: range) -> list[int]:
        """The places in a partition's row (:meth:`Channel.row`) of what :meth:`row` says for ``steps``."""
        return ([0] if self.reads and steps.start == 0 else []) + [place + self.reads for place in steps]

    def step(self, place: int, stepped: Stepped) -> None:
        self.strict[place] = self.strict[place] or stepped.strict
        self.order = stepped.order or self.order
        reporter = self._reporter(stepped.strict)
        for diagnostic in stepped.diagnostics:
            reporter.report(diagnostic)
        if stepped.closing is not None:
            closing = self.closings[place]
            self.closings[place] = stepped.closing if closing is None else closing.add(stepped.closing)

    def close(self, steps: range) -> None:
        """What the steps ``steps`` say once, in order."""
        for place in steps:
            closing, self.closings[place] = self.closings[place], None
            if closing is not None:
                closing.report(Context(reporter=self._reporter(self.strict[place])))

    def _reporter(self, strict: bool) -> Reporter:
        return reporter_for(Options(strict=strict), self.reporter, None)


def _computed(work: list[Any]) -> tuple[Any, ...]:
    return tuple(_DASK.compute(*work))


def partitions(
    bag: Bag, reporter: Reporter, each: Callable[[Delayed, int], Delayed], meta: list[Read] | None = None
) -> Iterator[Any]:
    """``each(partition, i)`` of every partition of ``bag``, given in partition order after the diagnostics of
    the partition (its reading's and steps') are reported to ``reporter``; the first partition's reading
    appended to ``meta``.  A bag whose steps need every partition (:data:`WHOLE`) is computed in one
    submission (:func:`_whole`); another ``AHEAD`` partitions at a time (the next go while the client
    handles this one)."""
    channel = channel_of(bag)
    parts: list[Any] = _BAGS.Bag.to_delayed(bag, optimize_graph=False)
    said = Said(channel, reporter, meta)
    if channel.barrier >= 0:
        yield from _whole([each(part, i) for i, part in enumerate(parts)], channel, said)
        return
    ahead = ThreadPoolExecutor(1, thread_name_prefix="feedmap-dask")
    steps = range(len(channel.steps))

    def go(start: int) -> Future[tuple[Any, ...]]:
        stop = min(start + AHEAD, len(parts))
        work = [each(parts[i], i) for i in range(start, stop)]
        return ahead.submit(_computed, work + [one for i in range(start, stop) for one in channel.row(i)])

    try:
        pending = go(0) if parts else None
        width = len(channel.row(0)) if parts else 0
        for start in range(0, len(parts), AHEAD):
            assert pending is not None
            results = _result(pending, channel.name, start)
            pending = go(start + AHEAD) if start + AHEAD < len(parts) else None
            count = min(AHEAD, len(parts) - start)
            for place, outcome in enumerate(results[:count]):
                said.row(results[count + place * width : count + (place + 1) * width], steps)
                yield outcome
        said.tallies.close()
    finally:
        ahead.shutdown(wait=False, cancel_futures=True)
        said.close(steps)  # as the filters say what they left out also when a step after them stops reading


def _whole(work: list[Any], channel: Channel, said: Said) -> Iterator[Any]:
    """``work`` (one task per partition) of a bag with steps that need every partition, computed in one
    submission (:class:`~feedmap._web.Submitted`): the diagnostics up to the last such step said for
    every partition first (one run has read everything before such a step says anything), then each
    partition's later steps' before its result."""
    computed = _submitted(work, channel, said)
    later = range(channel.barrier + 1, len(channel.steps))
    try:
        for place, row in enumerate(computed.summaries(said.indexes(later), _dead_in(channel))):
            said.row(row, later)
            yield computed.result(place, _dead_in(channel))
    finally:
        computed.release()
        said.close(later)


def _submitted(work: list[Any], channel: Channel, said: Said) -> Submitted:
    """``work`` and the channel submitted at once, the diagnostics up to the last step that needs every
    partition said (with what those steps say once)."""
    computed = Submitted(work, [channel.row(i) for i in range(len(work))])
    upto = range(channel.barrier + 1)
    try:
        for row in computed.summaries(said.indexes(upto), _dead_in(channel)):
            said.row(row, upto)
        said.tallies.close()
        said.close(upto)
    except BaseException:
        computed.release()
        raise
    return computed


def _dead_in(channel: Channel) -> Dead:
    def raised(exc: Exception, place: int) -> Exception:
        return dead(exc, channel.name, place)

    return raised


def _result(pending: Future[tuple[Any, ...]], name: str | None, start: int) -> tuple[Any, ...]:
    """A go's results; a partition whose worker kept dying is a SourceError naming it."""
    try:
        return pending.result()
    except Exception as exc:
        raised = dead(exc, name, start)
        if raised is exc:
            raise
        raise raised from None


def dead(exc: Exception, name: str | None, start: int) -> Exception:
    """``exc`` as raised: a partition whose worker kept dying (Dask's ``KilledWorker``) a SourceError naming it
    (the partition of the task that died, else ``start``), any other exception as it is."""
    killed = _killed_worker()
    if killed is None or not isinstance(exc, killed):
        return exc
    key = getattr(exc, "task", None)
    if isinstance(key, str):  # a task of no one partition (a bucket of dedupe)
        return SourceError(
            f"the bag's task {key}: the Dask worker computing it stopped each time it was tried (killed, or out "
            "of memory); nothing was written"
        )
    place = key[1] if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], int) else start
    whats = WHATS.get(name or "", ())
    what = whats[place] if place < len(whats) else f"partition {place + 1} of the bag"
    return SourceError(
        f"{what}: the Dask worker reading it stopped each time it was tried (killed, or out of memory); "
        "Dask counts a worker's death against every task the worker held, so the cause may also be a "
        "partition held beside it; nothing was written"
    )


def _killed_worker() -> type[BaseException] | None:
    try:
        from distributed import KilledWorker
    except ImportError:  # the local scheduler: no worker dies but the client's own process
        return None
    return KilledWorker


def streamed(bag: Bag, reporter: Reporter, meta: list[Read] | None) -> Iterator[Entry]:
    channel = channel_of(bag)
    if channel.sorted:
        yield from _merged(bag, channel, reporter, meta)
        return

    def each(partition: Delayed, place: int) -> Delayed:
        task: Delayed = delayed(packed_batches, pure=True)(partition)
        return task

    for batches in partitions(bag, reporter, each, meta):
        for batch in batches:
            yield from unpacked(batch)


def _merged(bag: Bag, channel: Channel, reporter: Reporter, meta: list[Read] | None) -> Iterator[Entry]:
    """The entries of a sorted bag (:func:`sort_entries`): its partitions, each sorted by its worker, merged
    here (:func:`feedmap._web.bag_order.merged`), after every partition's diagnostics."""
    said = Said(channel, reporter, meta)
    computed = _submitted(_BAGS.Bag.to_delayed(bag, optimize_graph=False), channel, said)
    later = range(channel.barrier + 1, len(channel.steps))
    try:
        for row in computed.summaries(said.indexes(later), _dead_in(channel)):
            said.row(row, later)
        yield from merged(computed, said.order or "loc", _dead_in(channel))
    finally:
        computed.release()
        said.close(later)


def said_all(name: str | None, steps: list[str], rows: list[list[Any]]) -> list[Diagnostic]:
    """Every diagnostic of a bag whose channel is ``name`` and ``steps``, from the summaries of each partition
    (``rows``, as :meth:`Channel.row` lists them), in the order :func:`partitions` reports them."""
    kept = Reporter(keep=1 << 62)
    said = Said(Channel(name, [], [(step, []) for step in steps]), kept, None)
    every = range(len(steps))
    for row in rows:
        said.row(row, every)
    said.tallies.close()
    said.close(every)
    return list(kept.diagnostics)
