"""The partitions of a Dask bag of entries (:mod:`feedmap.dask`): planned by the client, read by a cluster's workers.

Spec: the sitemaps.org 0.9 sitemap index (https://www.sitemaps.org/protocol.html#index): an index's children are
independent documents, so each is one partition.  The client opens each input (:func:`plan`): an input that is an
index to follow gives one partition per child it names (the index's own entries are read by the client, with their
diagnostics); any other input is one partition.  A worker reads its partition (:func:`read_part`) as one run
would: a child with the walk of :func:`feedmap._web.follow.read_children` (the index's context, so scope, loops,
depth, redirects, the follow filter and nested indexes follow the same rules, with the same diagnostics), an input
with :func:`feedmap._web.follow.start_document` and, when it is an index, its walk.  What a partition gives back
is a :class:`Read`: its entries, its diagnostics in the order reading made them, the tally of the children it read
(the client says ``no-child-read`` when not one child of an index was read), and the exception that stopped it
(as its parts: exceptions with keyword arguments do not survive pickling as themselves).  A worker reads
leniently; the client's reporter, which may be strict, sees each diagnostic when the partition is replayed.

A partition is held whole (Dask's bag partitions are lists): a child that is itself an index is read, with all its
children, by the one worker holding that child, its entries in that worker's memory (packed as columns).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from feedmap._core.collector import spaced_collections
from feedmap._core.context import Context, Options
from feedmap._core.errors import Diagnostic, Reporter
from feedmap._core.model import DocKind, DocMeta, Entry
from feedmap._io.http import Shared
from feedmap._io.sources import SourceLike, is_url, source_name
from feedmap._web.bag_ranges import Window, WindowReading, windows
from feedmap._web.follow import Tally, check_something_read, follow_index, is_followed, read_children, start_document
from feedmap._web.partitions import Packed, _portable, _rebuilt, packed, unpacked, worker_options
from feedmap.formats.lines._text import say_urls

__all__ = ["Part", "Read", "Tallies", "packed_batches", "plan", "read_part", "reraise", "worker_view"]

#: The entries of one partition pickled together (as columns, :func:`feedmap._web.partitions.packed`).
_BATCH = 4096


@dataclass(frozen=True, slots=True)
class Part:
    """One partition: some children of an index (``children``), or a whole input (``children`` None)."""

    #: The input (a path made absolute, or a URL), or the index whose children these are.
    source: str
    format: str | None
    #: What a diagnostic of the partition names: the input, or the index (a child's own, the child).
    name: str
    path: Path | None
    url: str | None
    chain: tuple[str, ...]
    options: Options
    #: The input's number among the sources (the children of one index share it).
    group: int
    children: tuple[Entry, ...] | None = None
    #: For children: the format and metadata of the index, followed; for a range, the file's, read by the client
    #: (a whole input's are its own, read by the worker).
    doc_format: str | None = None
    meta: DocMeta | None = None
    #: The lines of a big JSON lines or text file read by this partition (:mod:`feedmap._web.bag_ranges`).
    window: Window | None = None

    @property
    def what(self) -> str:
        """The partition as an error names it: the child sitemap, the range of the input, else the input."""
        if self.children:
            return f"child sitemap {self.children[0].loc} of {self.name}"
        if self.window is not None:
            return self.window.describe(self.name)
        return self.name


@dataclass(frozen=True, slots=True)
class Read:
    """What reading one partition gave (see the module's docstring)."""

    batches: tuple[Packed, ...]
    diagnostics: tuple[Diagnostic, ...]
    tally: Tally | None
    format: str | None
    meta: DocMeta | None
    failure: tuple[type[BaseException], tuple[object, ...], dict[str, object]] | None = None
    #: The input's number, and for a child the index's name (the tallies of one index's children are summed).
    group: int = 0
    index: str | None = None
    #: A text sitemap's range: the input's name and the URLs the range read (the file's are counted over them).
    urls: tuple[str, int] | None = None

    def entries(self) -> list[Entry]:
        return [entry for batch in self.batches for entry in unpacked(batch)]


def worker_view(options: Options) -> Options:
    """The options a worker reads with: those of a ``--jobs`` worker (:func:`feedmap._web.partitions.worker_options`),
    the follow filter kept: here the worker plans the children it reads."""
    return replace(worker_options(options), follow_child=options.follow_child)


def packed_batches(entries: list[Entry]) -> list[Packed]:
    """``entries`` as batches of columns (:func:`feedmap._web.partitions.packed`), as a partition is sent."""
    return [packed(entries[start : start + _BATCH]) for start in range(0, len(entries), _BATCH)]


def plan(
    sources: Sequence[SourceLike], format: str | None, options: Options, reporter: Reporter, blocksize: int = 0
) -> Iterator[Part]:
    """The partitions of ``sources``, in order: each index to follow opened here, its entries read here (its own
    diagnostics reported to ``reporter``), one partition per child; a local JSON lines or text file larger than
    ``blocksize`` (0: none is cut) one per range of its lines (:func:`feedmap._web.bag_ranges.windows`); each
    other input one partition, whose diagnostics are its worker's to say (those of opening it here are not)."""
    view = worker_view(options)
    for group, source in enumerate(sources):
        if not isinstance(source, (str, os.PathLike)) or os.fspath(source) == "-":
            raise TypeError(f"read_bag: give paths or URLs a worker can open, not {source!r}")
        name = os.fspath(source)
        where = name if is_url(name) else os.path.abspath(name)
        local = blocksize and not is_url(name)
        cut = windows(where, source_name(source), format, options, reporter, blocksize) if local else None
        if cut is not None:
            doc_format, meta, ranges = cut
            named = source_name(source)
            for window in ranges:
                yield Part(where, format, named, Path(where), None, (), view, group, None, doc_format, meta, window)
            continue
        held = _Held()
        ctx = Context(reporter=held, options=options, name=source_name(source))
        shared = Shared()
        try:
            doc, stack = start_document(where if not is_url(name) else name, format, ctx, shared)
            with stack:
                if options.follow and is_followed(doc):
                    held.release(reporter)  # the index's own diagnostics, said here as they come
                    meta = doc.meta.as_kind(DocKind.URLSET)
                    for entry in doc.entries:
                        yield Part(
                            where,
                            format,
                            ctx.name,
                            ctx.path,
                            ctx.url,
                            ctx.chain,
                            view,
                            group,
                            (entry,),
                            doc.format,
                            meta,
                        )
                    continue
        except BaseException:
            held.release(reporter)
            raise
        finally:
            shared.close()
        yield Part(where, format, ctx.name, None, None, (), view, group)


class _Held(Reporter):
    """The diagnostics of opening an input, held until it is known whose they are: an index's, released to the
    client's reporter (and every later one passed straight on); another input's, dropped (its worker says them)."""

    def __init__(self) -> None:
        super().__init__(keep=1 << 62)
        self._target: Reporter | None = None

    def report(self, diagnostic: Diagnostic) -> None:
        if self._target is not None:
            self._target.report(diagnostic)
        else:
            super().report(diagnostic)

    def release(self, target: Reporter) -> None:
        if self._target is None:
            self._target = target
            held, self.diagnostics = self.diagnostics, []
            for diagnostic in held:
                target.report(diagnostic)


class _Keeping(Reporter):
    """A worker's reporter: every diagnostic kept, in order (as many as the partition makes)."""

    def __init__(self) -> None:
        super().__init__(keep=1 << 62)


def read_part(part: Part) -> Read:
    """The worker: read one partition (see the module's docstring)."""
    reporter = _Keeping()
    shared = Shared()
    batches: list[Packed] = []
    batch: list[Entry] = []
    tally: Tally | None = Tally() if part.children is not None else None
    format, meta = part.doc_format, part.meta
    reading: WindowReading | None = None
    failure = None
    try:
        with spaced_collections(), contextlib.ExitStack() as stack:
            ctx = Context(
                reporter=reporter, options=part.options, name=part.name, path=part.path, url=part.url, chain=part.chain
            )
            if tally is not None and part.children is not None:
                entries: Iterator[Entry] = read_children(part.children, ctx, shared, tally)
            elif part.window is not None and format is not None:
                reading = WindowReading(part.source, format, part.window, ctx)
                entries = iter(reading)
            else:
                doc, inner = start_document(part.source, part.format, ctx, shared)
                stack.push(inner)
                follow_index(doc, ctx, shared)
                format, meta = doc.format, doc.meta
                entries = iter(doc.entries)
            for entry in entries:
                batch.append(entry)
                if len(batch) >= _BATCH:
                    batches.append(packed(batch))
                    batch = []
    except Exception as exc:  # the client raises it where reading stopped, after what was read before it
        failure = _portable(exc)
    finally:
        shared.close()
    if batch:
        batches.append(packed(batch))
    index = part.name if part.children is not None else None
    urls = (part.name, reading.urls) if reading is not None and reading.urls is not None else None
    return Read(tuple(batches), tuple(reporter.diagnostics), tally, format, meta, failure, part.group, index, urls)


class Tallies:
    """What spans the partitions of one input, said by the client after its last partition was replayed (as a
    read says it at the end): ``no-child-read`` raised when an index named children and not one could be read
    (its children's tallies summed); ``too-many-entries`` for a text sitemap read in ranges whose URLs, summed
    over its ranges, pass the protocol's cap."""

    def __init__(self, reporter: Reporter) -> None:
        self._reporter = reporter
        self._key: tuple[str, int, str] | None = None
        self._tally = Tally()
        self._urls = 0

    def add(self, read: Read) -> None:
        key = None
        if read.tally is not None and read.index is not None:
            key = ("index", read.group, read.index)
        elif read.urls is not None:
            key = ("urls", read.group, read.urls[0])
        if key != self._key:
            self.close()
            self._key, self._tally, self._urls = key, Tally(), 0
        if read.tally is not None:
            self._tally.read += read.tally.read
            self._tally.failed += read.tally.failed
            self._tally.skipped += read.tally.skipped
        if read.urls is not None:
            self._urls += read.urls[1]

    def close(self) -> None:
        key, self._key = self._key, None
        if key is None:
            return
        if key[0] == "index":
            check_something_read(self._tally, key[2])
        else:
            say_urls(self._urls, Context(reporter=self._reporter, name=key[2]))


def reraise(read: Read) -> None:
    """The exception that stopped reading a partition, raised (if one did)."""
    if read.failure is not None:
        raise _rebuilt(read.failure)
