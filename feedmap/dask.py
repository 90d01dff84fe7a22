"""feedmap on Dask: a bag of entries read by a cluster's workers, written as one run writes it (``feedmap[dask]``).

:func:`read_bag` gives a ``dask.bag.Bag`` of :class:`feedmap.Entry`: one partition per child of each index given
(nested indexes followed by the worker that reads the child, under the usual site, loop and depth rules), one per
line-aligned byte range (``blocksize``) of a big local JSON lines or text sitemap file, with the entries,
``file:line`` and diagnostics of reading it whole (:mod:`feedmap._web.bag_ranges`: the workers count each block's
line ends first; gzip files, URLs and standard input are not cut), one per other input.  Transform it as any bag,
partition by partition (``bag.map``, ``bag.filter``, ``bag.map_partitions``), then write it with :func:`write_split`
(the files, names, cuts, index and no-churn publishing of :func:`feedmap.split`, byte for byte: the entries are
streamed to the client in partition order, where the steps spanning partitions, such as ``dedupe``, ``sort`` and
``limit``, run) or :func:`to_jsonl` (one file per partition, written by the workers).  :func:`entries` streams them
to the client for any other use.

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
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from dask.delayed import Delayed, delayed

from feedmap._api import split as split_document
from feedmap._api import write as write_entries
from feedmap._core.context import Options, reporter_for
from feedmap._core.errors import DiagnosticHandler, Reporter, SourceError
from feedmap._core.model import Document, Entry
from feedmap._core.options import refuse_unused
from feedmap._core.summary import SplitSummary
from feedmap._io.sources import SourceLike
from feedmap._web.bag_parts import Read, Tallies, packed_batches, plan, read_part, reraise
from feedmap._web.bag_ranges import DEFAULT_BLOCKSIZE, block_size
from feedmap._web.partitions import unpacked

if TYPE_CHECKING:
    from dask.bag import Bag

__all__ = ["entries", "read_bag", "to_dataframe", "to_jsonl", "write_split"]

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
    refuse_unused(options, "read_bag")
    listed = list(sources) if isinstance(sources, Sequence) and not isinstance(sources, str) else [sources]
    if not listed:
        raise ValueError("read_bag: give at least one input")
    block = block_size(blocksize)
    parts = list(plan(listed, format, options, reporter_for(options, reporter, on_diagnostic), block))
    name = f"{_READ}{uuid.uuid4().hex}"
    _WHATS[name] = tuple(part.what for part in parts)
    while len(_WHATS) > _WHATS_KEPT:
        _WHATS.popitem(last=False)
    reads = [delayed(read_part, pure=False)(part, dask_key_name=(name, i)) for i, part in enumerate(parts)]
    bag: Bag = _BAGS.from_delayed([delayed(_entries_of, pure=True)(one) for one in reads])
    return bag


def _entries_of(read: Read) -> list[Entry]:
    return read.entries()


def _summary_of(read: Read) -> Read:
    """A partition's reading without its entries (what the client needs of it besides the bag's entries)."""
    return replace(read, batches=())


def _reads_of(bag: Bag) -> tuple[str | None, list[Any]]:
    """The read task of each partition of ``bag`` (None for a bag not read by :func:`read_bag`)."""
    graph = bag.__dask_graph__()
    keys = sorted(
        (key for key in graph if isinstance(key, tuple) and isinstance(key[0], str) and key[0].startswith(_READ)),
        key=lambda key: (key[0], key[1]),
    )
    if not keys:
        return None, [None] * bag.npartitions
    names = {key[0] for key in keys}
    if len(names) > 1 or len(keys) != bag.npartitions:
        raise ValueError(
            "this bag's partitions are not those read_bag made (repartitioned, or bags joined): write each read "
            "bag on its own, transformed partition by partition (map, filter, map_partitions)"
        )
    return str(keys[0][0]), [delayed(_summary_of, pure=True)(_TASK(key, graph)) for key in keys]


def _computed(work: list[Any]) -> tuple[Any, ...]:
    return tuple(_DASK.compute(*work))


def _partitions(
    bag: Bag, reporter: Reporter, each: Callable[[Delayed, int], Delayed], meta: list[Read] | None = None
) -> Iterator[Any]:
    """``each(partition, i)`` of every partition of ``bag``, computed ``_AHEAD`` at a time (the next go while
    the client handles this one), given in partition order after the diagnostics of reading the partition are
    reported to ``reporter``; the first partition's reading appended to ``meta``."""
    name, reads = _reads_of(bag)
    parts: list[Any] = _BAGS.Bag.to_delayed(bag, optimize_graph=False)
    ahead = ThreadPoolExecutor(1, thread_name_prefix="feedmap-dask")

    def go(start: int) -> Future[tuple[Any, ...]]:
        stop = min(start + _AHEAD, len(parts))
        work = [each(parts[i], i) for i in range(start, stop)] + [one for one in reads[start:stop] if one is not None]
        return ahead.submit(_computed, work)

    tallies = Tallies(reporter)
    try:
        pending = go(0) if parts else None
        for start in range(0, len(parts), _AHEAD):
            assert pending is not None
            results = _result(pending, name, start)
            pending = go(start + _AHEAD) if start + _AHEAD < len(parts) else None
            count = min(_AHEAD, len(parts) - start)
            for place, outcome in enumerate(results[:count]):
                if name is not None:
                    read: Read = results[count + place]
                    if meta is not None and not meta:
                        meta.append(read)
                    tallies.add(read)
                    for diagnostic in read.diagnostics:
                        reporter.report(diagnostic)
                    reraise(read)
                yield outcome
        tallies.close()
    finally:
        ahead.shutdown(wait=False, cancel_futures=True)


def _result(pending: Future[tuple[Any, ...]], name: str | None, start: int) -> tuple[Any, ...]:
    """A go's results; a partition whose worker kept dying is a SourceError naming it."""
    try:
        return pending.result()
    except Exception as exc:
        killed = _killed_worker()
        if killed is None or not isinstance(exc, killed):
            raise
        key = getattr(exc, "task", None)
        place = key[1] if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], int) else start
        whats = _WHATS.get(name or "", ())
        what = whats[place] if place < len(whats) else f"partition {place + 1} of the bag"
        raise SourceError(
            f"{what}: the Dask worker reading it stopped each time it was tried (killed, or out of memory); "
            "Dask counts a worker's death against every task the worker held, so the cause may also be a "
            "partition held beside it; nothing was written"
        ) from None


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
    def each(partition: Delayed, place: int) -> Delayed:
        task: Delayed = delayed(packed_batches, pure=True)(partition)
        return task

    for batches in _partitions(bag, reporter, each, meta):
        for batch in batches:
            yield from unpacked(batch)


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


def to_dataframe(bag: Bag, options: Options | None = None, *, explode: str | None = None) -> Any:
    """``bag`` as a lazy ``dask.dataframe.DataFrame``, one partition per bag partition, with the columns and dtypes
    of :func:`feedmap.to_dataframe` (``explode`` as there), so ``to_parquet`` and the rest of Dask's frames.

    Lazy: nothing is read here, and each partition is made by the worker computing it (the bag's own ``map`` and
    ``filter`` applied).  No reporter can be reached from there, so the diagnostics of reading a partition are
    applied there: a partition whose reading failed raises its error, and with ``options.strict`` (the only
    option used) its first warning raises StrictError, when the frame is computed; other warnings and infos are not
    reported (:func:`entries`, :func:`write_split` and :func:`to_jsonl` report them; the index's own were reported
    by :func:`read_bag`).  Needs pandas and pyarrow (``pip install 'feedmap[dataframe]'``).
    """
    from feedmap._web.bag_frames import bag_frame  # pandas and Dask's frames: only for a frame

    options = options or Options()
    if not isinstance(options, Options):
        raise TypeError(f"options: give a feedmap.Options, not {options!r}")
    refuse_unused(options, "dask.to_dataframe")
    _, reads = _reads_of(bag)
    return bag_frame(bag, reads, explode, options.strict)
