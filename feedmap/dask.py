"""feedmap on Dask: a bag of entries read by a cluster's workers, written as one run writes it (``feedmap[dask]``).

:func:`read_bag` gives a ``dask.bag.Bag`` of :class:`feedmap.Entry`: one partition per child of each index given
(nested indexes followed by the worker that reads the child, under the usual site, loop and depth rules), one
per other input.  Transform it as any bag, partition by partition (``bag.map``, ``bag.filter``,
``bag.map_partitions``), then write it with :func:`write_split` (the files, names, cuts, index and no-churn
publishing of :func:`feedmap.split`, byte for byte: the entries are streamed to the client in partition order,
where the steps spanning partitions, such as ``dedupe``, ``sort`` and ``limit``, run) or :func:`to_jsonl` (one
file per partition, written by the workers).  :func:`entries` streams them to the client for any other use.

Diagnostics come back to the client: each partition's, with their ``file:line``, reported to the call's reporter
(or ``on_diagnostic``) in partition order when the partition reaches the client, ``strict`` applied there.  The
index's own diagnostics are reported by :func:`read_bag`, which reads the index.  A bag made by other means
(``dask.bag.from_sequence`` of entries) is written as well; it brings no diagnostics.  A bag whose partitions no
longer match those of its reading (``repartition``, ``concat``) is refused: its diagnostics would have no place.
A partition is held whole in a worker's memory, as Dask's are: a child that is itself an index is one partition
with every entry below it.

The computation runs on Dask's scheduler of the moment: a ``distributed.Client`` made before (a
``LocalCluster``, or a remote scheduler), else the local one.  A worker lost mid-run has its partitions computed
again (Dask's retries); a partition whose worker keeps dying is :class:`feedmap.WorkerDied`-like
:class:`~feedmap._core.errors.SourceError` naming the child, and nothing is written.  Workers read the inputs
and files named by ``maps`` by their paths, and write :func:`to_jsonl`'s files: give a cluster folders they
share with the client.  Dask's protocol carries pickles: use a scheduler and workers you trust.
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from dask.delayed import Delayed, delayed

from feedmap._api import split as split_document
from feedmap._api import write as write_entries
from feedmap._core.context import Context, Options, reporter_for
from feedmap._core.errors import DiagnosticHandler, Reporter, SourceError
from feedmap._core.model import Document, Entry
from feedmap._core.options import refuse_unused
from feedmap._core.summary import SplitSummary
from feedmap._io.sources import SourceLike
from feedmap._web import bag_dedupe, bag_enrich, bag_order, bag_stream
from feedmap._web.bag_parts import Read, packed_batches, plan, read_part, reraise
from feedmap._web.bag_steps import (
    DEDUPE,
    ENRICH,
    FILTER,
    SORT,
    STEP,
    WHOLE,
    Closing,
    Stepped,
    check_filters,
    filter_part,
    step_kind,
    stepped_bag,
    summary_of,
)
from feedmap._web.follow import Tally, check_something_read
from feedmap._web.partitions import unpacked

if TYPE_CHECKING:
    from dask.bag import Bag

__all__ = [
    "dedupe",
    "enrich",
    "entries",
    "filter_entries",
    "read_bag",
    "sort_entries",
    "to_jsonl",
    "write_split",
]

#: Dask's calls this module makes, untyped in Dask (mypy --strict sees them as Any).
_DASK: Any = importlib.import_module("dask")
_BAGS: Any = importlib.import_module("dask.bag")
_TASK: Any = Delayed

#: The name of a read task's key, and the partitions each of the last bags read names (for a worker's death).
_READ = "feedmap-read-"
_WHATS: OrderedDict[str, tuple[str, ...]] = OrderedDict()
_WHATS_KEPT = 64
#: Partitions computed in one go, while the client handles the go before.
_AHEAD = 16


def read_bag(
    sources: SourceLike | Sequence[SourceLike],
    format: str | None = None,
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Bag:
    """A bag of the entries of ``sources`` (paths or URLs), one partition per index child or other input.

    Each input is opened here: an index (unless ``options.follow`` is off) has its entries read here, their
    diagnostics reported at once, and each child becomes a partition its worker reads; another input, one
    partition.  ``format`` names the inputs' format (else recognised by content).  ``options`` holds those of
    reading (``follow``, ``follow_child``, ``max_depth``, ``max_bytes``, ``max_line_bytes``, ``http``,
    ``maps``, ``base_url``, ``strict``); the selection of entries (``since``, ``dedupe``, ...) is given to the
    call that writes the bag (:func:`write_split`), as it is to :func:`feedmap.split`.
    """
    options = options or Options()
    if not isinstance(options, Options):
        raise TypeError(f"options: give a feedmap.Options, not {options!r}")
    _refuse_selection(options)
    refuse_unused(options, "read_bag")
    listed = list(sources) if isinstance(sources, Sequence) and not isinstance(sources, str) else [sources]
    if not listed:
        raise ValueError("read_bag: give at least one input")
    parts = list(plan(listed, format, options, reporter_for(options, reporter, on_diagnostic)))
    name = f"{_READ}{uuid.uuid4().hex}"
    _WHATS[name] = tuple(part.what for part in parts)
    while len(_WHATS) > _WHATS_KEPT:
        _WHATS.popitem(last=False)
    reads = [delayed(read_part, pure=False)(part, dask_key_name=(name, i)) for i, part in enumerate(parts)]
    bag: Bag = _BAGS.from_delayed([delayed(_entries_of, pure=True)(one) for one in reads])
    return bag


#: The fields of the selection (and enrichment) that :func:`read_bag` refuses, and the call that takes each.
_SELECTED_BY = {
    **dict.fromkeys(
        ("since", "until", "require_lastmod", "include", "exclude"), "feedmap.dask.filter_entries(bag, options)"
    ),
    "dedupe": "feedmap.dask.dedupe(bag, options)",
    "sort": "feedmap.dask.sort_entries(bag, options)",
    **dict.fromkeys(("enrich", "overwrite", "page_max_bytes"), "feedmap.dask.enrich(bag, options)"),
    "limit": "feedmap.dask.write_split(bag, directory, base_url, options=options)",
}


def _refuse_selection(options: Options) -> None:
    """ValueError naming the fields of the selection given to :func:`read_bag`, and the calls that take them."""
    default = Options()
    given = [name for name in _SELECTED_BY if getattr(options, name) != getattr(default, name)]
    if not given:
        return
    calls = "; ".join(f"{name}: {_SELECTED_BY[name]}" for name in given)
    listed = ", ".join(given)
    raise ValueError(
        f"read_bag() cannot use {listed} (given in its options): read_bag reads; the bag's steps select, on the "
        f"workers ({calls}), or give them to write_split, which selects on the client (limit only there: it "
        "keeps the first entries in order)"
    )


def _options(options: Options | None) -> Options:
    options = options or Options()
    if not isinstance(options, Options):
        raise TypeError(f"options: give a feedmap.Options, not {options!r}")
    return options


def filter_entries(bag: Bag, options: Options | None = None) -> Bag:
    """The entries of ``bag`` that ``options.since``, ``until``, ``require_lastmod``, ``include`` and
    ``exclude`` keep: :func:`feedmap.converters.filter_entries` run by the workers, partition by partition.

    What the filters left out is counted by the workers and said once, summed over the partitions, by the call
    that writes the bag (INFO ``no-lastmod-kept``, ``entries-filtered``), as :func:`feedmap.converters.filter_entries`
    says it at the end of its input; under ``options.strict`` its warnings stop that call.  A ``since`` after
    ``until`` raises :class:`ValueError` here.
    """
    options = _options(options)
    check_filters(options)
    chosen = Options(
        strict=options.strict,
        since=options.since,
        until=options.until,
        require_lastmod=options.require_lastmod,
        include=options.include,
        exclude=options.exclude,
    )

    def step(part: Delayed, place: int, key: tuple[str, int]) -> Delayed:
        task: Delayed = delayed(filter_part, pure=True)(part, chosen, dask_key_name=key)
        return task

    return stepped_bag(bag, FILTER, step)


def dedupe(bag: Bag, options: Options | None = None, *, buckets: int | None = None) -> Bag:
    """Each URL of ``bag`` once, at the place of its first occurrence, the entry ``options.dedupe`` keeps
    (``"first"``, ``"last"``, ``"newest"``: the newest lastmod, ties to the earlier; None: ``newest``), as
    :func:`feedmap.converters.dedupe` keeps it: decided by the workers across partitions, in ``buckets``
    buckets of URLs (default: as many as partitions, at most 16; each bucket holds its share of the entries,
    see :mod:`feedmap._web.bag_dedupe`).  URLs are keyed as :func:`feedmap.converters.dedupe` keys them
    (``keep_urls``, ``encode_urls``).

    The repeats are said by the call that writes the bag as one run says them (INFO ``loc-duplicate``,
    ``more-duplicates``, ``duplicates-merged``), after every partition's reading.  The bag is computed in one
    submission (each partition needs every other); the partitions are held by the workers until written.
    """
    options = _options(options)
    if buckets is not None and (not isinstance(buckets, int) or isinstance(buckets, bool) or buckets < 1):
        raise ValueError(f"buckets: give a whole number of at least 1, not {buckets!r}")
    if bag.npartitions == 0:
        return bag
    # bucket i's repeats ride partition i: no more buckets than partitions
    count = min(bag.npartitions, bag_dedupe.BUCKETS if buckets is None else buckets)
    chosen = Options(
        strict=options.strict, dedupe=options.dedupe, keep_urls=options.keep_urls, encode_urls=options.encode_urls
    )
    step = bag_dedupe.dedupe_graph(_BAGS.Bag.to_delayed(bag, optimize_graph=False), chosen, count)
    return stepped_bag(bag, DEDUPE, step)


def sort_entries(bag: Bag, options: Options | None = None) -> Bag:
    """The entries of ``bag`` in the order ``options.sort`` says (``"loc"``, ``"lastmod"`` oldest first,
    ``"-lastmod"`` newest first; stable, entries without a lastmod last; ``bag`` itself when None), as
    :func:`feedmap.converters.sort_entries` orders them: each partition sorted by its worker (that very
    function), the partitions merged by the call that brings the bag to the client (:func:`write_split`,
    :func:`entries`), ties to the earlier partition, so that the order is one stable sort's.

    The merge holds a slice of each partition at a time; the partitions are held by the workers until merged
    (the bag is computed in one submission).  Sort last: a bag sorted is in order only once merged, so
    :func:`dedupe` and a second sort refuse it, and :func:`to_jsonl` (a file per partition) too; steps that
    keep each entry's key (:func:`enrich`, ``filter``, a ``map`` of other fields) may follow.
    """
    options = _options(options)
    if options.sort is None:
        return bag
    chosen = Options(strict=options.strict, sort=options.sort)

    def step(part: Delayed, place: int, key: tuple[str, int]) -> Delayed:
        task: Delayed = delayed(bag_order.sort_part, pure=True)(part, chosen, dask_key_name=key)
        return task

    return stepped_bag(bag, SORT, step)


def enrich(bag: Bag, options: Options | None = None) -> Bag:
    """The entries of ``bag`` with the title, description and keywords of their pages, as
    :func:`feedmap.converters.enrich` fills them (the settings of ``--enrich`` in ``options``: ``concurrency``,
    ``overwrite``, ``maps``, ``http`` with its ``host_delay``, ``page_max_bytes``, ``max_bytes``), order kept.

    The workers fetch the pages: all the pages of one host by one worker (chosen by rendezvous hashing of the
    host over the cluster's workers), with one HTTP client, robots.txt cache and host gate per worker process
    for the whole bag, so that ``host_delay`` and robots.txt hold across the cluster as in one run; a host whose
    worker leaves the cluster goes to another, its unfinished pages fetched again (see
    :mod:`feedmap._web.bag_enrich` for what politeness then means).  Each page's diagnostics (``enrich-failed``,
    ``not-html``, ``robots-disallowed``) are said at the entry's place by the call that writes the bag; under
    ``options.strict`` the first warning stops it.  A field this call cannot use raises ``ValueError``.
    """
    options = replace(_options(options), enrich=True)
    refuse_unused(options, "dask.enrich")
    chosen = Options(
        strict=options.strict,
        enrich=True,
        overwrite=options.overwrite,
        page_max_bytes=options.page_max_bytes,
        max_bytes=options.max_bytes,
        concurrency=options.concurrency,
        http=options.http,
        maps=options.maps,
    )
    name = f"feedmap-enrich-{uuid.uuid4().hex}"

    def step(part: Delayed, place: int, key: tuple[str, int]) -> Delayed:
        task: Delayed = delayed(bag_enrich.enrich_part, pure=True)(part, chosen, name, place, dask_key_name=key)
        return task

    return stepped_bag(bag, ENRICH, step)


def _entries_of(read: Read) -> list[Entry]:
    return read.entries()


def _summary_of(read: Read) -> Read:
    """A partition's reading without its entries (what the client needs of it besides the bag's entries)."""
    return replace(read, batches=())


@dataclass(frozen=True, slots=True)
class _Channel:
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


def _channel_of(bag: Bag) -> _Channel:
    """The side channel of ``bag``: the tasks keyed ``(feedmap-read-..., i)`` and ``(feedmap-step-..., i)`` of
    its graph, one per partition each (ValueError when a bag's partitions are no longer those)."""
    graph = bag.__dask_graph__()
    found: dict[str, list[Any]] = {}
    for key in graph:
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], str) and key[0].startswith((_READ, STEP)):
            found.setdefault(key[0], []).append(key)
    reads = [name for name in found if name.startswith(_READ)]
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
    return _Channel(name, summaries(name, _summary_of) if name else [None] * bag.npartitions, steps)


class _Said:
    """The client's side of the channel: each partition's diagnostics reported (its reading's, then each step's
    under that step's ``strict``), the children read tallied (:class:`_Tallies`), each step's
    :class:`~feedmap._web.bag_steps.Closing` summed and reported where one run says it."""

    def __init__(self, channel: _Channel, reporter: Reporter, meta: list[Read] | None) -> None:
        self.reporter, self.meta = reporter, meta
        self.reads = channel.name is not None
        self.tallies = _Tallies()
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
        """The places in a partition's row (:meth:`_Channel.row`) of what :meth:`row` says for ``steps``."""
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


def _partitions(
    bag: Bag, reporter: Reporter, each: Callable[[Delayed, int], Delayed], meta: list[Read] | None = None
) -> Iterator[Any]:
    """``each(partition, i)`` of every partition of ``bag``, given in partition order after the diagnostics of
    the partition (its reading's and steps') are reported to ``reporter``; the first partition's reading
    appended to ``meta``.  A bag whose steps need every partition (:data:`WHOLE`) is computed in one
    submission (:func:`_whole`); another ``_AHEAD`` partitions at a time (the next go while the client
    handles this one)."""
    channel = _channel_of(bag)
    parts: list[Any] = _BAGS.Bag.to_delayed(bag, optimize_graph=False)
    said = _Said(channel, reporter, meta)
    if channel.barrier >= 0:
        yield from _whole([each(part, i) for i, part in enumerate(parts)], channel, said)
        return
    ahead = ThreadPoolExecutor(1, thread_name_prefix="feedmap-dask")
    steps = range(len(channel.steps))

    def go(start: int) -> Future[tuple[Any, ...]]:
        stop = min(start + _AHEAD, len(parts))
        work = [each(parts[i], i) for i in range(start, stop)]
        return ahead.submit(_computed, work + [one for i in range(start, stop) for one in channel.row(i)])

    try:
        pending = go(0) if parts else None
        width = len(channel.row(0)) if parts else 0
        for start in range(0, len(parts), _AHEAD):
            assert pending is not None
            results = _result(pending, channel.name, start)
            pending = go(start + _AHEAD) if start + _AHEAD < len(parts) else None
            count = min(_AHEAD, len(parts) - start)
            for place, outcome in enumerate(results[:count]):
                said.row(results[count + place * width : count + (place + 1) * width], steps)
                yield outcome
        said.tallies.close()
    finally:
        ahead.shutdown(wait=False, cancel_futures=True)
        said.close(steps)  # as the filters say what they left out also when a step after them stops reading


def _whole(work: list[Any], channel: _Channel, said: _Said) -> Iterator[Any]:
    """``work`` (one task per partition) of a bag with steps that need every partition, computed in one
    submission (:class:`~feedmap._web.bag_stream.Submitted`): the diagnostics up to the last such step said for
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


def _submitted(work: list[Any], channel: _Channel, said: _Said) -> bag_stream.Submitted:
    """``work`` and the channel submitted at once, the diagnostics up to the last step that needs every
    partition said (with what those steps say once)."""
    computed = bag_stream.Submitted(work, [channel.row(i) for i in range(len(work))])
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


def _dead_in(channel: _Channel) -> bag_stream.Dead:
    def dead(exc: Exception, place: int) -> Exception:
        return _dead(exc, channel.name, place)

    return dead


class _Tallies:
    """The children read of each index summed over its partitions: ``no-child-read`` raised (as one run raises
    it, once the index's children were all read) when the index named children and not one could be read."""

    def __init__(self) -> None:
        self._index: tuple[int, str] | None = None
        self._tally = Tally()

    def add(self, read: Read) -> None:
        index = (read.group, read.index) if read.tally is not None and read.index is not None else None
        if index != self._index:
            self.close()
            self._index, self._tally = index, Tally()
        if read.tally is not None:
            self._tally.read += read.tally.read
            self._tally.failed += read.tally.failed
            self._tally.skipped += read.tally.skipped

    def close(self) -> None:
        index, self._index = self._index, None
        if index is not None:
            check_something_read(self._tally, index[1])


def _result(pending: Future[tuple[Any, ...]], name: str | None, start: int) -> tuple[Any, ...]:
    """A go's results; a partition whose worker kept dying is a SourceError naming it."""
    try:
        return pending.result()
    except Exception as exc:
        dead = _dead(exc, name, start)
        if dead is exc:
            raise
        raise dead from None


def _dead(exc: Exception, name: str | None, start: int) -> Exception:
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
    whats = _WHATS.get(name or "", ())
    what = whats[place] if place < len(whats) else f"partition {place + 1} of the bag"
    return SourceError(
        f"{what}: the Dask worker reading it stopped each time it was tried (killed, or out of memory); "
        "nothing was written"
    )


def _killed_worker() -> type[BaseException] | None:
    try:
        from distributed import KilledWorker
    except ImportError:  # the local scheduler: no worker dies but the client's own process
        return None
    return KilledWorker


def _output_reporter(
    call: str, options: Options | None, reporter: Reporter | None, on_diagnostic: DiagnosticHandler | None
) -> Reporter:
    """Where the diagnostics of :func:`entries` or :func:`to_jsonl` go; ValueError for an option they cannot use
    (only ``strict``: the selection is :func:`write_split`'s, or the bag's own ``filter``)."""
    options = options or Options()
    if not isinstance(options, Options):
        raise TypeError(f"options: give a feedmap.Options, not {options!r}")
    refuse_unused(options, call)
    return reporter_for(options, reporter, on_diagnostic)


def entries(
    bag: Bag,
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Iterator[Entry]:
    """The entries of ``bag``, in partition order, streamed to the client (a few partitions at a time), each
    partition's diagnostics reported before its entries (``options``: only ``strict`` is used)."""
    return _streamed(bag, _output_reporter("dask.entries", options, reporter, on_diagnostic), None)


def _streamed(bag: Bag, reporter: Reporter, meta: list[Read] | None) -> Iterator[Entry]:
    channel = _channel_of(bag)
    if channel.sorted:
        yield from _merged(bag, channel, reporter, meta)
        return

    def each(partition: Delayed, place: int) -> Delayed:
        task: Delayed = delayed(packed_batches, pure=True)(partition)
        return task

    for batches in _partitions(bag, reporter, each, meta):
        for batch in batches:
            yield from unpacked(batch)


def _merged(bag: Bag, channel: _Channel, reporter: Reporter, meta: list[Read] | None) -> Iterator[Entry]:
    """The entries of a sorted bag (:func:`sort_entries`): its partitions, each sorted by its worker, merged
    here (:func:`feedmap._web.bag_order.merged`), after every partition's diagnostics."""
    said = _Said(channel, reporter, meta)
    computed = _submitted(_BAGS.Bag.to_delayed(bag, optimize_graph=False), channel, said)
    later = range(channel.barrier + 1, len(channel.steps))
    try:
        for row in computed.summaries(said.indexes(later), _dead_in(channel)):
            said.row(row, later)
        yield from bag_order.merged(computed, said.order or "loc", _dead_in(channel))
    finally:
        computed.release()
        said.close(later)


def write_split(
    bag: Bag,
    directory: str | os.PathLike[str],
    base_url: str,
    format: str = "sitemap",
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> SplitSummary:
    """Write ``bag`` into ``directory`` as :func:`feedmap.split` writes a document: the same files, names, cuts
    (50,000 URLs, 52,428,800 bytes), index at ``base_url`` and no-churn publishing, byte for byte, ``options``
    honoured as there (the selection, ``dedupe``, ``sort`` and ``limit`` included).  The workers read; the
    client writes, the entries streamed to it in partition order.  An error leaves the directory as it was."""
    options = replace(options or Options(), base_url=base_url)
    chosen = reporter_for(options, reporter, on_diagnostic)  # split() refuses the options it cannot use
    first: list[Read] = []
    stream = _streamed(bag, chosen, first)
    head = next(stream, None)  # the first partition's format and metadata make the document's, as one run's
    read = first[0] if first else None
    document = Document(read.meta if read is not None and read.meta is not None else None, _after(head, stream))
    document.format = read.format if read is not None else None
    return split_document(document, directory, format, options, reporter=chosen)


def _after(head: Entry | None, rest: Iterator[Entry]) -> Iterator[Entry]:
    if head is not None:
        yield head
        yield from rest


def to_jsonl(
    bag: Bag,
    directory: str | os.PathLike[str],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> list[str]:
    """Write each partition of ``bag`` as JSON lines, ``part-00001.jsonl`` and on, into ``directory`` (made if
    missing; a folder the workers and the client share), each file by the worker holding the partition; the paths
    written, in order.  The files appear once every partition was written (until then they are in a temporary
    folder inside ``directory``): an error leaves ``directory`` as it was.  ``options``: only ``strict``."""
    chosen = _output_reporter("to_jsonl", options, reporter, on_diagnostic)
    if _channel_of(bag).sorted:
        raise ValueError(
            "to_jsonl writes a file per partition, and a bag sorted by sort_entries is in order only once its "
            "partitions are merged: write it with write_split, or read it in order with entries()"
        )
    folder = os.path.abspath(os.fspath(directory))
    os.makedirs(folder, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".feedmap-parts-", dir=folder)
    width = max(5, len(str(bag.npartitions)))
    names = [f"part-{i + 1:0{width}d}.jsonl" for i in range(bag.npartitions)]

    def each(partition: Delayed, place: int) -> Delayed:
        task: Delayed = delayed(_written_part, pure=False)(partition, os.path.join(staging, names[place]))
        return task

    try:
        for diagnostics in _partitions(bag, chosen, each):
            for diagnostic in diagnostics:
                chosen.report(diagnostic)
        written = []
        for name in names:
            os.replace(os.path.join(staging, name), os.path.join(folder, name))
            written.append(os.path.join(folder, name))
        return written
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _written_part(partition: list[Entry], path: str) -> tuple[Any, ...]:
    """A worker: one partition written as JSON lines to ``path``; the diagnostics of writing."""
    kept = Reporter(keep=1 << 62)
    write_entries(partition, path, "jsonl", reporter=kept)
    return tuple(kept.diagnostics)
