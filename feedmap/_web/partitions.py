"""Index children read by worker processes (``Options.jobs``, ``--jobs N``), their output replayed in order.

Spec: the sitemaps.org 0.9 sitemap index (https://www.sitemaps.org/protocol.html#index): an index's children are
independent documents, so each is one *partition* a worker process can read while the run reads another. What
stays in the run's own process is everything whose order or state spans children: planning each child (scope,
loops, depth, the follow filter: :mod:`feedmap._web.follow`), the downloads (on the run's threads, with the
fetcher's robots, redirect and size rules unchanged), and every step after reading (filters, merges, sorting, the
writers, the splitting writer's cuts). A worker opens one child as the run would
(:func:`feedmap._web.follow.start_document`, the same name, URL and options), reads it whole with its checks, and
writes what reading produced to a spill file in the run's temporary directory, in the order it happened: batches
of entries (as columns, :func:`packed`) and, between them, each diagnostic. The run replays a spill when the walk
reaches its child: entries are yielded and diagnostics reported at the point of the stream where the reader made
them, so what is written, reported and counted is the same as with ``jobs=1``, byte for byte, ``strict`` included
(the worker reads leniently; the run's reporter raises at the replayed warning, as it would have). A child that is
itself an index is left to the run (the worker says so and nothing else), which follows it in its own process.
Memory stays flat: a worker holds one batch, the run reads one batch at a time.

Workers are started with ``forkserver`` (where the platform has it; else ``spawn``): a run forks nothing
from its own process, whose HTTP client and download threads hold locks a forked child could inherit held.
Formats registered in code (not by an entry point) are not known to a worker; a worker that dies (killed, out of
memory) is :class:`WorkerDied`, naming the child it was reading, and the run stops: no child is passed over
silently and no partial output is kept.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import operator
import os
import pickle
import shutil
import tempfile
import threading
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from feedmap._core.collector import spaced_collections
from feedmap._core.context import Context, Options
from feedmap._core.dates import known_date
from feedmap._core.errors import Diagnostic, Reporter, SourceError
from feedmap._core.model import ChangeFreq, Entry, new_entry, new_position
from feedmap._io.http import Shared
from feedmap.converters._duplicates import _freeze, _thaw

if TYPE_CHECKING:  # a lane's worker imports it (feedmap._web.text_jobs)
    from feedmap._web.text_jobs import Lane

__all__ = [
    "WORKER_MODULES",
    "Partition",
    "Pool",
    "Spill",
    "Values",
    "WorkerDied",
    "Workers",
    "outcome",
    "packed",
    "read_partition",
    "read_size",
    "replay",
    "spill_file",
    "unpacked",
    "worker_count",
    "worker_options",
    "workers_for",
]

#: Entries pickled together, as one record: big enough that pickling is cheap per entry, small enough to keep
#: memory flat.  A batch is pickled as columns (:func:`packed`): the locs, the lastmods' texts, the changefreqs,
#: the priorities and the lines of its plain entries (those with no other field, read from the batch's one
#: source), and each other entry as its plain fields (``_freeze``); the run rebuilds them (:func:`unpacked`) with
#: ``known_date``, which does not validate a lastmod again: the worker's reader validated it.
_BATCH = 2048
_ENTRIES, _DIAGNOSTIC, _VALUE = "entries", "diagnostic", "value"
_FAILED, _NESTED, _END = "failed", "nested", "end"
#: A record a lane's worker makes (:mod:`feedmap._web.text_jobs`), replayed as it is.
_ITEM = "item"
#: The value a worker sends once it read its child whole: ``(_SIZE, bytes read)`` (:func:`read_size`).
_SIZE = "bytes read"


#: What a worker imports to read a child (and a lane's worker to send its lines): imported once by the fork server,
#: so that each worker forked from it starts reading at once instead of importing them itself.
WORKER_MODULES = (
    "feedmap._web.partitions",
    "feedmap._web.follow",
    "feedmap._web.text_jobs",
    "feedmap.formats.sitemap",
    "feedmap.formats.sitemap._read",
    "feedmap.formats.sitemap._walk",
    "lxml.etree",
)


def workers_for(options: Options) -> Workers | None:
    """The workers that read the children of a run with ``options``: a Dask cluster's (``dask``), else ``jobs``
    worker processes; None: the run reads them itself (``jobs`` 1, or 0 on one core)."""
    if options.dask is not None:
        from feedmap._web.cluster import DaskWorkers

        return DaskWorkers(options.dask)
    workers = Workers(options.jobs) if options.jobs != 1 else None
    return None if workers is None or workers.count == 1 else workers


def worker_options(options: Options) -> Options:
    """The options a worker reads with: not strict (the run applies it where it replays), no follow filter, no
    workers of its own, the maps' folders absolute (a cluster's worker may run in another working folder)."""
    maps = tuple((prefix, folder.absolute()) for prefix, folder in options.maps)
    return replace(options, strict=False, follow_child=None, jobs=1, dask=None, maps=maps)


def worker_count(jobs: int) -> int:
    """The worker processes ``jobs`` asks for: itself, or for 0 the cores this process may run on."""
    if jobs:
        return jobs
    with contextlib.suppress(AttributeError, OSError):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


#: The fields of an entry that make it no plain one when they hold anything, and their empty values.
_OTHER = ("title", "description", "keywords", "type", "images", "alternates", "news", "videos", "extras")
_OTHER_FIELDS = operator.attrgetter(*_OTHER)
_NO_OTHER_FIELDS: tuple[object, ...] = (None, None, (), None, (), (), None, (), {})

#: A batch as pickled: the source of its plain entries; their locs, lastmod texts (None: no plain entry of the
#: batch has one), changefreqs and priorities (likewise), lines; then each other entry, frozen, with its place.
Packed = tuple[
    str | None,
    list[str],
    list[str | None] | None,
    list[ChangeFreq | None] | None,
    list[float | None] | None,
    list[int],
    list[tuple[int, tuple[Any, ...]]],
]


def packed(batch: list[Entry]) -> Packed:
    """A batch of entries as columns (see :data:`Packed`), which pickle and unpickle several times faster than
    one tuple per entry; :func:`unpacked` gives the entries back, equal and in order, origins included."""
    first = batch[0].origin
    source = first.source if first is not None else None
    locs: list[str] = []
    lastmods: list[str | None] = []
    changefreqs: list[ChangeFreq | None] = []
    priorities: list[float | None] = []
    lines: list[int] = []
    others: list[tuple[int, tuple[Any, ...]]] = []
    for place, entry in enumerate(batch):
        origin = entry.origin
        if origin is None or origin.source != source or _OTHER_FIELDS(entry) != _NO_OTHER_FIELDS:
            others.append((place, _freeze(entry)))
            continue
        locs.append(entry.loc)
        lastmod = entry.lastmod
        lastmods.append(lastmod.text if lastmod is not None else None)
        changefreqs.append(entry.changefreq)
        priorities.append(entry.priority)
        lines.append(origin.line)
    return (
        source,
        locs,
        lastmods if _some(lastmods) else None,
        changefreqs if _some(changefreqs) else None,
        priorities if _some(priorities) else None,
        lines,
        others,
    )


def _some(values: list[Any]) -> bool:
    return values.count(None) != len(values)


def unpacked(batch: Packed) -> list[Entry]:
    """The entries of a :func:`packed` batch, in order."""
    source, locs, lastmods, changefreqs, priorities, lines, others = batch
    entries: list[Entry]
    if source is None:
        entries = []
    elif changefreqs is None and priorities is None:  # most sitemaps: one loop of few calls an entry
        if lastmods is None:
            entries = [
                new_entry(loc, None, None, None, (), (), {}, new_position(source, line))
                for loc, line in zip(locs, lines, strict=True)
            ]
        else:
            entries = [
                new_entry(
                    loc,
                    known_date(lastmod) if lastmod is not None else None,
                    None,
                    None,
                    (),
                    (),
                    {},
                    new_position(source, line),
                )
                for loc, lastmod, line in zip(locs, lastmods, lines, strict=True)
            ]
    else:
        none = itertools.repeat(None)
        entries = [
            new_entry(
                loc,
                known_date(lastmod) if lastmod is not None else None,
                changefreq,
                priority,
                (),
                (),
                {},
                new_position(source, line),
            )
            for loc, lastmod, changefreq, priority, line in zip(
                locs, lastmods or none, changefreqs or none, priorities or none, lines, strict=False
            )
        ]
    for place, frozen in others:  # in the order of their places: each lands where it was
        entries.insert(place, _thaw(frozen))
    return entries


class WorkerDied(SourceError):
    """A worker process stopped before it finished its child (killed, out of memory): the run stops."""


@dataclass(frozen=True, slots=True)
class Partition:
    """What a worker is told: the child to read and the context it is read with (as the run would)."""

    #: The file to read: the child itself, or the copy of a downloaded child (read as a file object).
    file: str
    downloaded: bool
    #: The format named for it (``-f``, for an input of a run), else None: recognised by content.
    format: str | None
    name: str
    path: Path | None
    url: str | None
    chain: tuple[str, ...]
    options: Options
    spill: str
    #: The steps after reading the worker runs, and what it sends (:mod:`feedmap._web.text_jobs`); None: entries.
    lane: Lane | None = None


class _Recording(Reporter):
    """The worker's reporter: each diagnostic written to the spill after the entries read before it."""

    def __init__(self, spill: Spill) -> None:
        super().__init__(keep=0)
        self._spill = spill

    def report(self, diagnostic: Diagnostic) -> None:
        self._spill.diagnostic(diagnostic)


class Spill:
    """The records of one partition, written in the order reading made them (held back until ``start``)."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._batch: list[Entry] = []
        self._pack: Callable[[list[Entry]], object] = packed
        self._kind = _ENTRIES
        self._held: list[tuple[str, object]] | None = []  # until the child is known not to be an index

    def _record(self, kind: str, value: object) -> None:
        if self._held is not None:
            self._held.append((kind, value))
        else:
            pickle.dump((kind, value), self._out, pickle.HIGHEST_PROTOCOL)

    def start(self) -> None:
        held, self._held = self._held or [], None
        for kind, value in held:
            self._record(kind, value)

    def entries(self, entries: Iterable[Entry]) -> None:
        """Record ``entries`` (read as they come: a diagnostic reported while reading one is recorded before it)."""
        batch = self._batch  # emptied in place by flush, also when a diagnostic comes between two entries
        append = batch.append
        for entry in entries:
            append(entry)
            if len(batch) >= _BATCH:
                self.flush()

    def lines(self, entries: Iterable[Entry], lane: Lane, ctx: Context) -> None:
        """Record what ``lane``'s steps keep of ``entries`` (read with ``ctx``) as the lane's items: their
        diagnostics (the run's, under its name) in place, what the filters left out when reading ends."""
        from feedmap._web import text_jobs

        self._pack, self._kind = lambda batch: text_jobs.lined(batch, lane.keep), _ITEM
        steps = Context(reporter=ctx.reporter, options=ctx.options, name=lane.name)
        left: list[text_jobs.Left] = []
        try:
            self.entries(text_jobs.worker_entries(entries, lane, steps, left))
        finally:
            for counts in left:
                self.flush()
                self._record(_ITEM, counts)

    def flush(self) -> None:
        if self._batch:
            self._record(self._kind, self._pack(self._batch))
            self._batch.clear()

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        self.flush()
        self._record(_DIAGNOSTIC, diagnostic)

    def value(self, value: object) -> None:
        """A picklable value for the run (counts), given to ``values`` of :func:`replay` when replayed."""
        self.flush()
        self._record(_VALUE, value)

    def failed(self, exc: BaseException) -> None:
        """Reading stopped with ``exc`` (raised where it stopped when the spill is replayed)."""
        self.end(_FAILED, _portable(exc))

    def nested(self) -> None:
        """The child is an index: what was recorded is dropped, the run reads it itself."""
        self.end(_NESTED)

    def done(self) -> None:
        """Reading ended."""
        self.end(_END)

    def end(self, kind: str, value: object = None) -> None:
        self.flush()
        if kind == _NESTED:  # what opening the index reported, the run reports when it reads it
            self._held = None
            self._out.seek(0)
            self._out.truncate()
        self.start()
        self._record(kind, value)


@contextlib.contextmanager
def spill_file(path: str) -> Generator[BinaryIO, None, None]:
    """The file a worker writes a spill into: a name of its own beside ``path``, renamed to ``path`` once whole.
    Two attempts at one task (a Dask worker thought lost that still runs) never write into one file, and a run
    reading the spill sees one attempt's, whole.  The run gone (its folder removed): FileNotFoundError."""
    part = f"{path}.{os.getpid()}.{threading.get_ident()}.part"
    try:
        with open(part, "wb") as out:
            yield out
        os.replace(part, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(part)
        raise


def read_partition(partition: Partition) -> str:
    """The worker: read one child into its spill file (see the module's docstring); returns the spill's path."""
    from feedmap._web.follow import is_followed, open_document  # follow imports this module

    with spill_file(partition.spill) as out, spaced_collections():
        spill = Spill(out)
        ctx = Context(
            reporter=_Recording(spill),
            options=partition.options,
            name=partition.name,
            path=partition.path,
            url=partition.url,
            chain=partition.chain,
        )
        shared = Shared()
        try:
            with contextlib.ExitStack() as stack:
                source: str | BinaryIO = partition.file
                if partition.downloaded:
                    source = stack.enter_context(open(partition.file, "rb"))
                doc, inner, opened = open_document(source, partition.format, ctx, shared)
                stack.push(inner)
                if partition.options.follow and is_followed(doc):
                    spill.nested()
                    return partition.spill
                spill.start()
                if partition.lane is None:
                    spill.entries(doc.entries)
                else:
                    spill.lines(doc.entries, partition.lane, ctx)
                spill.value((_SIZE, opened.bytes_read))  # for the run's record of the child (feedmap info)
            spill.done()
        except Exception as exc:  # the run raises or reports it where reading stopped
            spill.failed(exc)
        finally:
            shared.close()
    return partition.spill


def _portable(exc: BaseException) -> tuple[type[BaseException], tuple[object, ...], dict[str, object]]:
    """An exception as its class, arguments and attributes: exceptions whose ``__init__`` takes keywords
    (``ReadError(message, source=...)``) do not survive pickling as themselves."""
    return type(exc), exc.args, dict(vars(exc))


def _rebuilt(value: tuple[type[BaseException], tuple[object, ...], dict[str, object]]) -> BaseException:
    kind, args, attributes = value
    exc = kind.__new__(kind)
    exc.args = args
    vars(exc).update(attributes)
    return exc


class Values(Protocol):
    """Where :func:`replay` puts a spill's values: a list, or what takes them as they come."""

    def append(self, value: Any, /) -> None: ...


def replay(
    spill: str, report: Callable[[Diagnostic], None], values: Values | None = None
) -> Generator[Entry, None, bool]:
    """The entries of a partition's spill, each diagnostic given to ``report`` where reading made it, each
    :meth:`Spill.value` appended to ``values``; the exception that stopped reading raised at its place.  A lane's
    spill (:attr:`Partition.lane`) gives its items instead of entries.
    Returns whether the child is an index (for the run to follow: nothing else was replayed)."""
    try:
        with open(spill, "rb") as records:
            while True:
                kind, value = pickle.load(records)
                if kind == _ENTRIES:
                    yield from unpacked(value)
                elif kind == _ITEM:
                    yield value
                elif kind == _DIAGNOSTIC:
                    report(value)
                elif kind == _VALUE:
                    if values is not None:
                        values.append(value)
                elif kind == _FAILED:
                    raise _rebuilt(value)
                else:
                    return bool(kind == _NESTED)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(spill)


def read_size(values: list[Any]) -> int | None:
    """The bytes a worker read of its child (decompressed), from the values :func:`replay` gave; None if not said."""
    for value in values:
        if isinstance(value, tuple) and len(value) == 2 and value[0] == _SIZE:
            return value[1] if isinstance(value[1], int) else None
    return None


class Pool(Protocol):
    """What runs a worker's task: a process pool, or a Dask cluster's client (:mod:`feedmap._web.cluster`)."""

    def submit(self, fn: Callable[..., str], /, *args: Any) -> Future[str]: ...

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None: ...


class Workers:
    """The worker processes of one run (started when the first child is given, stopped by :meth:`close`) and
    the temporary directory of their spills."""

    def __init__(self, jobs: int) -> None:
        self._count = worker_count(jobs)
        self._pool: Pool | None = None
        self._directory: str | None = None
        self._made = 0
        self._futures: list[Future[str]] = []
        #: What the workers do after reading (:mod:`feedmap._web.text_jobs`); None: they send the entries read.
        self.lane: Lane | None = None

    @property
    def count(self) -> int:
        """The tasks run at once (the run hands that many children, and one more, ahead of its turn)."""
        return self._count

    def _start(self) -> tuple[Pool, str]:
        if self._pool is None or self._directory is None:
            methods = multiprocessing.get_all_start_methods()
            method = "forkserver" if "forkserver" in methods else "spawn"
            self._directory = tempfile.mkdtemp(prefix="feedmap-jobs-")
            context = multiprocessing.get_context(method)
            if method == "forkserver":  # the server imports what a worker runs once; each worker forks from it
                context.set_forkserver_preload(list(WORKER_MODULES))
            self._pool = ProcessPoolExecutor(self.count, mp_context=context)
        return self._pool, self._directory

    def _file(self, directory: str, what: str) -> str:
        self._made += 1
        return os.path.join(directory, f"{self._made}.{what}")

    def read(self, file: Path | str, ctx: Context, format: str | None = None) -> Future[str]:
        """A local child or input (``ctx``: the context the run would read it with) read by a worker."""
        pool, directory = self._start()
        spill = self._file(directory, "spill")
        path = os.path.abspath(file)  # a worker's working folder may be another (a cluster's)
        return self._kept(_submitted(pool, read_partition, self._partition(path, False, ctx, spill, format)))

    def _kept(self, future: Future[str]) -> Future[str]:
        self._futures = [one for one in self._futures if not one.done()]
        self._futures.append(future)
        return future

    def submit(self, function: Callable[[Any, str], str], task: object) -> Future[str]:
        """``function(task, spill)`` run by a worker (a module-level function writing a :class:`Spill` to the
        path ``spill`` and returning it): a partition of another walk than an index's (validation's)."""
        pool, directory = self._start()
        return self._kept(_submitted(pool, function, task, self._file(directory, "spill")))

    def read_downloaded(self, download: Future[tuple[BinaryIO, str]], ctx: Context) -> Future[str]:
        """A child being downloaded read by a worker once it is: its copy is written for the worker (the download
        itself kept, rewound, for the run to follow should the child be an index)."""
        pool, directory = self._start()
        copy, spill = self._file(directory, "child"), self._file(directory, "spill")
        parsed: Future[str] = Future()

        def downloaded(done: Future[tuple[BinaryIO, str]]) -> None:
            try:
                body, final_url = done.result()
                with open(copy, "wb") as out:
                    shutil.copyfileobj(body, out)
                body.seek(0)
                child_ctx = replace(ctx, url=final_url)
                submitted = pool.submit(read_partition, self._partition(copy, True, child_ctx, spill, None))
            except BaseException as exc:  # the download's failure is the child's, as without workers
                parsed.set_exception(exc)
                return
            submitted.add_done_callback(lambda result: _pass_on(result, parsed))

        download.add_done_callback(downloaded)
        return self._kept(parsed)

    def _partition(self, file: str, downloaded: bool, ctx: Context, spill: str, format: str | None) -> Partition:
        options = worker_options(ctx.options)
        return Partition(file, downloaded, format, ctx.name, ctx.path, ctx.url, ctx.chain, options, spill, self.lane)

    def close(self) -> None:
        """Stop the workers and remove the spills.  Partitions still being read (the run stopped early: an error,
        Ctrl-C, SIGTERM) are not waited for: their workers are stopped at once."""
        pool, self._pool = self._pool, None
        if pool is not None:
            unfinished = any(not future.done() for future in self._futures)
            processes = list((getattr(pool, "_processes", None) or {}).values()) if unfinished else []
            manager = getattr(pool, "_executor_manager_thread", None) if unfinished else None
            pool.shutdown(wait=not unfinished, cancel_futures=True)
            for process in processes:
                process.terminate()
                process.join()
            if manager is not None:
                # the pool's thread sees its workers stopped and closes the queues; waited for, so their
                # semaphores are released before the run exits (os._exit after a broken pipe or a signal), not
                # reported as leaked by multiprocessing's resource tracker on stderr
                manager.join(timeout=10)
                del manager
        self._futures.clear()
        directory, self._directory = self._directory, None
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)


def _submitted(pool: Pool, function: Callable[..., str], *arguments: object) -> Future[str]:
    """``function(*arguments)`` given to a worker; a pool already broken (a worker of an earlier child died while
    the run read ahead) is that future's failure, not the caller's: the run says which child's worker died when it
    reaches that child, in order, as :func:`outcome` does."""
    try:
        return pool.submit(function, *arguments)
    except BrokenProcessPool as exc:
        failed: Future[str] = Future()
        failed.set_exception(exc)
        return failed


def _pass_on(result: Future[str], parsed: Future[str]) -> None:
    if result.cancelled():
        parsed.cancel()
        return
    exc = result.exception()
    if exc is not None:
        parsed.set_exception(exc)
    else:
        parsed.set_result(result.result())


def outcome(parsed: Future[str], loc: str) -> str:
    """The spill of a child read by a worker; :class:`WorkerDied` naming the child if its worker died."""
    try:
        return parsed.result()
    except BrokenProcessPool:
        raise WorkerDied(
            f"{loc}: the worker process reading this child sitemap stopped before it was read "
            "(killed, or out of memory); nothing was written"
        ) from None
