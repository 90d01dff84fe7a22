"""feedmap on Dask: a bag of entries read by a cluster's workers, written as one run writes it (``feedmap[dask]``).

:func:`read_bag` gives a ``dask.bag.Bag`` of :class:`feedmap.Entry`: one partition per child of each index given
(nested indexes followed by the worker that reads the child, under the usual site, loop and depth rules), one per
line-aligned byte range (``blocksize``) of a big local JSON lines or text sitemap file, with the entries,
``file:line`` and diagnostics of reading it whole (:mod:`feedmap._web.bag_ranges`: the workers count each block's
line ends first; gzip files, URLs and standard input are not cut), one per other input.  Transform it as any bag,
partition by partition (``bag.map``, ``bag.filter``, ``bag.map_partitions``), and with the steps of
:mod:`feedmap.converters` run by the workers, each giving a new bag: :func:`filter_entries`, :func:`dedupe` (across
partitions, in buckets of URLs), :func:`sort_entries` (each partition sorted by its worker, the partitions merged by
the client) and :func:`enrich` (each host's pages fetched by one worker).  Then write it with :func:`write_split`
(the files, names, cuts, index and no-churn publishing of :func:`feedmap.split`, byte for byte: the entries are
streamed to the client in partition order; options given to it, ``limit`` and any selection, run there as
:func:`feedmap.split` runs them) or :func:`to_jsonl` (one file per partition, written by the workers).
:func:`entries` streams them to the client for any other use.  The bodies of the steps are in private modules
(:mod:`feedmap._web.bag_steps` and the ``bag_*`` beside it); what is here is the calls and the client's side of
their diagnostics.

Diagnostics come back to the client: each partition's, with their ``file:line``, reported to the call's reporter
(or ``on_diagnostic``) in partition order when the partition reaches the client (its reading's, then each
step's, under the step's ``strict``), ``strict`` applied there; what a step says once for the whole input (the
filters' counts, the repeated URLs) summed over the partitions and said where one run says it.  The tasks
that carry them are keyed ``(feedmap-read-..., i)`` and ``(feedmap-step-..., i)``: the writing calls find them
in the bag's graph (:mod:`feedmap._web.bag_channel`).  The index's own diagnostics are reported by
:func:`read_bag`, which reads the index.  A bag made by other means (``dask.bag.from_sequence`` of entries) is
written as well; it brings no reading's diagnostics.
A bag whose partitions no longer match those of its reading or steps (``repartition``, ``concat``) is refused:
its diagnostics would have no place.  A partition is held whole in a worker's memory, as Dask's are: a child
that is itself an index is one partition with every entry below it.

The computation runs on Dask's scheduler of the moment: a ``distributed.Client`` made before (a
``LocalCluster``, or a remote scheduler), else the local one.  A bag is computed a few partitions at a time,
the next while the client handles the last; one with :func:`dedupe` or :func:`sort_entries`, whose partitions
each need every other, in one submission (:mod:`feedmap._web.bag_stream`), its diagnostics up to that step said
for every partition first, as one run has read everything before such a step speaks.  A
worker lost mid-run has its partitions computed again (Dask's retries); a partition whose worker keeps dying
is :class:`feedmap.WorkerDied`-like :class:`~feedmap._core.errors.SourceError` naming the child, and nothing
is written.  Workers read the inputs and files named by ``maps`` by their paths, and write :func:`to_jsonl`'s
files: give a cluster folders they share with the client.  Dask's protocol carries pickles: use a scheduler
and workers you trust.
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from dask.delayed import Delayed, delayed

from feedmap._api import split as split_document
from feedmap._api import write as write_entries
from feedmap._core.call_fields import refuse_unused
from feedmap._core.context import Options, reporter_for
from feedmap._core.errors import DiagnosticHandler, Reporter
from feedmap._core.model import Document, Entry
from feedmap._core.summary import SplitSummary
from feedmap._io.sources import SourceLike
from feedmap._web import bag_channel, bag_dedupe, bag_enrich, bag_order
from feedmap._web.bag_parts import Read, plan, read_part
from feedmap._web.bag_ranges import DEFAULT_BLOCKSIZE, block_size
from feedmap._web.bag_steps import (
    DEDUPE,
    ENRICH,
    FILTER,
    SORT,
    check_filters,
    filter_part,
    stepped_bag,
)

if TYPE_CHECKING:
    from dask.bag import Bag

__all__ = [
    "dedupe",
    "diagnostics",
    "enrich",
    "entries",
    "filter_entries",
    "read_bag",
    "sort_entries",
    "to_dataframe",
    "to_jsonl",
    "write_split",
]

#: Dask's calls this module makes, untyped in Dask (mypy --strict sees them as Any).
_DASK: Any = importlib.import_module("dask")
_BAGS: Any = importlib.import_module("dask.bag")
_TASK: Any = Delayed


def read_bag(
    sources: SourceLike | Sequence[SourceLike],
    format: str | None = None,
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
    blocksize: int | str | None = DEFAULT_BLOCKSIZE,
) -> Bag:
    """A bag of the entries of ``sources`` (paths or URLs), one partition per index child, per range of a big
    JSON lines or text file, or per other input.

    Each input is opened here: an index (unless ``options.follow`` is off) has its entries read here, their
    diagnostics reported at once, and each child becomes a partition its worker reads; a local, uncompressed
    JSON lines or text sitemap file larger than ``blocksize`` bytes (an ``int``, or text such as ``"64M"``;
    ``0`` or None: no file is cut) is cut into ranges of about that size, each the lines that start in it, one
    partition each, with the entries, lines and diagnostics of reading the file whole (the line ends of each
    range are counted by the workers first); another input (gzip files, URLs, smaller files, other formats),
    one partition.  ``format`` names the inputs' format (else recognised by content).  ``options`` holds those
    of reading (``follow``, ``follow_child``, ``max_depth``, ``max_bytes``, ``max_line_bytes``, ``http``,
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
    block = block_size(blocksize)
    parts = list(plan(listed, format, options, reporter_for(options, reporter, on_diagnostic), block))
    name = f"{bag_channel.READ}{uuid.uuid4().hex}"
    bag_channel.remember(name, tuple(part.what for part in parts))
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
    **dict.fromkeys(("set", "set_missing"), "feedmap.dask.write_split(bag, directory, base_url, options=options)"),
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
    ``options.strict`` the first warning stops it.  The summary (INFO ``enrich-summary``) is counted by the
    workers and said once, summed over the partitions, as one run says it.  A field this call cannot use raises
    ``ValueError``.
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
    return bag_channel.streamed(bag, _output_reporter("dask.entries", options, reporter, on_diagnostic), None)


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
    (50,000 URLs, 52,428,800 bytes), index at ``base_url`` and no-churn publishing (each URL kept in its file
    of the directory's previous run unless ``options.rebalance``), byte for byte, ``options`` honoured as there
    (the selection, ``dedupe``, ``sort`` and ``limit`` included; a bag sorted by :func:`sort_entries` is cut
    afresh, as ``sort`` cuts).  The workers read; the client writes, the entries streamed to it in partition
    order.  An error leaves the directory as it was."""
    options = replace(options or Options(), base_url=base_url)
    if bag_channel.channel_of(bag).sorted:  # sorted on the workers: cut afresh, as split() does with sort
        options = replace(options, rebalance=True)
    chosen = reporter_for(options, reporter, on_diagnostic)  # split() refuses the options it cannot use
    first: list[Read] = []
    stream = bag_channel.streamed(bag, chosen, first)
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
    if bag_channel.channel_of(bag).sorted:
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
        for diagnostics in bag_channel.partitions(bag, chosen, each):
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


def to_dataframe(bag: Bag, options: Options | None = None, *, explode: str | None = None) -> Any:
    """``bag`` as a lazy ``dask.dataframe.DataFrame``, one partition per bag partition, with the columns and dtypes
    of :func:`feedmap.to_dataframe` (``explode`` as there), so ``to_parquet`` and the rest of Dask's frames.

    Lazy: nothing is read here, and each partition is made by the worker computing it (the bag's own ``map`` and
    ``filter`` and the steps of this module applied).  No reporter can be reached from there: a partition whose
    reading failed raises its error, and with ``options.strict`` (the only option used) its reading's first warning
    raises StrictError, when the frame is computed.  The diagnostics themselves are :func:`diagnostics`'s: compute
    them with the frame (``dask.compute(frame, feedmap.dask.diagnostics(bag, as_frame=True))``, or with
    ``to_parquet(..., compute=False)``) and the partitions are read once for both.  A bag sorted by
    :func:`sort_entries` is refused: its order is made by the client's merge (write it with :func:`write_split`).
    Needs pandas and pyarrow (``pip install 'feedmap[dataframe]'``).
    """
    from feedmap._web.bag_frames import bag_frame  # pandas and Dask's frames: only for a frame

    options = options or Options()
    if not isinstance(options, Options):
        raise TypeError(f"options: give a feedmap.Options, not {options!r}")
    refuse_unused(options, "dask.to_dataframe")
    channel = bag_channel.channel_of(bag)
    if channel.sorted:
        raise ValueError(
            "dask.to_dataframe(): this bag was sorted by feedmap.dask.sort_entries, whose order the client makes "
            "when it merges the partitions; sort the frame (set_index, sort_values), or write the bag with "
            "write_split"
        )
    return bag_frame(bag, channel.reads, explode, options.strict)


def diagnostics(bag: Bag, *, as_frame: bool = False) -> Any:
    """The diagnostics of ``bag``, lazily: a ``dask.delayed`` object that computes to the list of
    :class:`feedmap.Diagnostic` that :func:`entries` would report, in the same order (each partition's reading's,
    then each step's; what a step says once, after the partitions; the index's own were reported by
    :func:`read_bag`), or raises what reading raised.  For a lazy output, compute it in the same ``dask.compute``
    call, and the partitions are read once for both: with a bag's (``to_textfiles(..., compute=False)``) as it is;
    with a frame's (:func:`to_dataframe`, ``to_parquet(..., compute=False)``) with ``as_frame=True``: a Dask
    DataFrame of one partition, columns ``level``, ``code``, ``message``, ``source``, ``line``, ``column``
    (Dask warns when delayed objects and frames are computed together)."""
    channel = bag_channel.channel_of(bag)
    rows = [channel.row(place) for place in range(bag.npartitions)]
    said: Delayed = delayed(bag_channel.said_all, pure=True)(channel.name, [name for name, _ in channel.steps], rows)
    if not as_frame:
        return said
    from feedmap._web.bag_frames import diagnostics_frame  # pandas and Dask's frames: only for a frame

    return diagnostics_frame(said)
