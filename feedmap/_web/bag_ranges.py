"""A big JSON lines or text sitemap input of a Dask bag (:mod:`feedmap.dask`) read as line-aligned byte ranges.

Spec: JSON Lines (https://jsonlines.org/: a line ends at LF) and the sitemaps.org text sitemap
(https://www.sitemaps.org/protocol.html#otherformats; its reader also ends a line at CR LF and at a lone CR):
:mod:`feedmap.formats.lines._common` says where lines end.  The lines of such a file are read one after the other,
so a byte range read alone gives the file's own result when it is told what the lines before it would have told
it.  That is little, and the readers take it as arguments (:func:`~feedmap.formats.lines._text.window_items`,
:func:`~feedmap.formats.lines._jsonl.read_window`): the number of the line before the range (every origin and
diagnostic names its line; a BOM is the file's only on line 1), and whether the file's first URL (a CSV row
after it is a ``csv-line`` warning, before it the ``csv-input`` error) or first JSON object (the only one that
may be the header) came before it.  The one thing said after the lines, the text sitemap's ``too-many-entries``
count, is summed by the client over the ranges (each range's ``Read`` gives its URLs) and said after the last.

The plan (:func:`windows`, on the client, before the read tasks are made; :func:`head_of`, :func:`cut`):

* a local path to a regular, uncompressed file larger than the block size, whose format (named, else recognised
  by content here, with the diagnostics of recognising it) is ``jsonl`` or ``text``, is cut; anything else
  (gzip, URLs, smaller files, other formats) is one partition, as before;
* the client reads the file's head with the format's own reader, as far as its first JSON object (its header,
  whose metadata is the bag's; an invalid one is the ReadError a read gives, before any task) or its first URL
  (or a CSV row before it): one line, nearly always, but all of a file without one (whose every line is a
  warning);
* the file is cut in blocks of the block size, and one task per block, run by the workers at once, counts the
  line ends in its block and finds the first line that starts in it (:func:`scan_block`: ``bytes.count``, a
  pass at memory speed, far cheaper than reading the lines);
* the client sums the counts into the number of the line before each range; a range is the lines that *start*
  in its block (from the first line start in the block to the first in the next), read through the line that
  crosses its end.  A block in which no line starts (inside one long line) adds no range.

The counts are made by the workers, not by the client, because counting reads every byte of the file: on the
client that would be the whole file through one machine before any range is read, where the ranges are there
to spread the reading.  The numbers cannot be found after reading instead: the entries of a range carry their
lines into the bag (its ``map`` sees them), and the ``csv-input`` rule decides what a range yields.

A worker reads its range (:class:`WindowReading`) through a view of exactly those bytes (:class:`_View`) with the
format's reader, so lines, entries, diagnostics and their order are the file's, the compiled and pure twins of
the JSON lines reader alike.  The file is the one planned: its size and modification time, taken when it was
planned, are checked by each task before and after it reads; a file changed (or a range cut short) is a
SourceError naming it, never entries of another file.
"""

from __future__ import annotations

import importlib
import itertools
import os
import stat
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, Generic, TypeVar

from feedmap._core.context import Context, Options
from feedmap._core.errors import Diagnostic, Reporter, SourceError
from feedmap._core.model import DocKind, DocMeta, Entry
from feedmap._core.option_values import MAX_SIZE, number_problem, parse_size
from feedmap._io.sources import open_source
from feedmap._web.follow import _readable  # the run's own choice of a reader: the one named, else recognised
from feedmap.formats.lines import _jsonl, _text
from feedmap.formats.lines._common import line_ends

__all__ = [
    "DEFAULT_BLOCKSIZE",
    "SPLIT_FORMATS",
    "Head",
    "Window",
    "WindowReading",
    "block_size",
    "cut",
    "head_of",
    "scan_block",
    "windows",
]

#: ``read_bag``'s ``blocksize`` unless given: the bytes of a range of a big file, about.
DEFAULT_BLOCKSIZE = 64 * 1024 * 1024
#: The formats read in ranges, and whether a lone CR or a CR LF ends a line in each (else LF only).
SPLIT_FORMATS = {"jsonl": False, "text": True}
#: The bytes a block's scan reads at a time.
_SCAN = 1 << 20

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Window:
    """The lines of a file that start in one block: bytes ``start`` to ``stop`` (excluded), read by one task."""

    start: int
    stop: int
    #: The number of the line before the first (0 for the file's first range).
    line: int
    #: Whether the file's first URL (text) or first JSON object (jsonl) is on a line before the range.
    after_first: bool
    #: The file as planned: its size and its modification time in nanoseconds.
    size: int
    mtime_ns: int
    #: The first range's: the diagnostics of recognising the file's format, said before its lines'.
    head: tuple[Diagnostic, ...] = ()

    def describe(self, name: str) -> str:
        return f"{name} (bytes {self.start:,} to {self.stop:,}, from line {self.line + 1:,})"


def block_size(value: object) -> int:
    """``blocksize`` as bytes (0: no file is cut): a whole number, or text parsed as ``--max-bytes`` is."""
    if value is None:
        return 0
    if isinstance(value, str):
        try:
            value = parse_size(value)
        except ValueError as exc:
            raise ValueError(f"blocksize: {exc}") from None
    problem = number_problem(value, minimum=0, maximum=MAX_SIZE, integer=True)
    if problem is not None:
        raise ValueError(f"blocksize: {problem}")
    assert isinstance(value, int)
    return value


def _stamp(status: os.stat_result) -> tuple[int, int]:
    return status.st_size, status.st_mtime_ns


def _changed(path: str) -> SourceError:
    return SourceError(
        f"{path}: the file changed after read_bag planned its ranges (its size or modification time is not the "
        "same); nothing read from it is used: read it again once it is complete"
    )


def _same(path: str, status: os.stat_result, size: int, mtime_ns: int) -> None:
    if _stamp(status) != (size, mtime_ns):
        raise _changed(path)


@dataclass(frozen=True, slots=True)
class Head:
    """What the client reads of a file to cut, before its ranges are planned (see the module's docstring)."""

    format: str
    meta: DocMeta
    #: The line of the file's first URL (text) or first JSON object (jsonl); 0: none.
    first: int
    #: The diagnostics of recognising the file's format.
    diagnostics: tuple[Diagnostic, ...]
    size: int
    mtime_ns: int


def windows(
    path: str, name: str, format: str | None, options: Options, reporter: Reporter, blocksize: int
) -> tuple[str, DocMeta, list[Window]] | None:
    """The ranges of the input at ``path`` (see the module's docstring) with its format and metadata, or None
    when it is read whole: its head read here (:func:`head_of`), its blocks scanned by Dask (:func:`scan_block`),
    the ranges made of them (:func:`cut`)."""
    head = head_of(path, name, format, options, reporter, blocksize)
    if head is None:
        return None
    dask: Any = importlib.import_module("dask")
    cuts = [*range(0, head.size, blocksize), head.size]
    any_newline = SPLIT_FORMATS[head.format]
    scans = [
        dask.delayed(scan_block, pure=True)(path, start, stop, head.size, head.mtime_ns, any_newline)
        for start, stop in itertools.pairwise(cuts)
    ]
    ranges = cut(head, dask.compute(*scans))
    return (head.format, head.meta, ranges) if len(ranges) > 1 else None


def head_of(
    path: str, name: str, format: str | None, options: Options, reporter: Reporter, blocksize: int
) -> Head | None:
    """The head of the input at ``path``, or None when it is read whole (not a regular file larger than
    ``blocksize``, compressed, another format).  Diagnostics of reading it are the ranges' to say, but those
    before a ReadError (an invalid JSON lines header) are said here to ``reporter``, then it is raised, as a
    read says them."""
    try:
        status = os.stat(path)
    except OSError:
        return None  # opened as one partition: its reading says what is wrong
    if not stat.S_ISREG(status.st_mode) or status.st_size <= blocksize:
        return None
    kept = Reporter(keep=1 << 62)
    ctx = Context(reporter=kept, options=options, name=name)
    try:
        with open_source(path, reporter=kept, max_bytes=options.max_bytes, name=name) as source:
            spec = _readable(format, source, ctx)
            if source.compressed or spec.name not in SPLIT_FORMATS:
                return None
            recognised = tuple(kept.diagnostics)
            if spec.name == "jsonl":
                meta, first = _jsonl.first_object(source.stream, ctx)
            else:
                meta, first = DocMeta(kind=DocKind.URLSET), _text.first_url(source.stream, ctx)
    except BaseException:
        for diagnostic in kept.diagnostics:
            reporter.report(diagnostic)
        raise
    size, mtime_ns = _stamp(status)
    _same(path, os.stat(path), size, mtime_ns)
    return Head(spec.name, meta, first, recognised, size, mtime_ns)


def cut(head: Head, scans: Sequence[tuple[int, int]]) -> list[Window]:
    """The ranges of the file of ``head`` from the scans of its blocks, in order (the first block's at 0): a
    range starts at the first line that starts in a block, its line numbered from the counts of the blocks
    before; a block in which no line starts makes none."""
    starts: list[tuple[int, int]] = []  # the first line start in a block, and the line before it
    before = 0  # the line starts (past 0) before the block
    for i, (count, first) in enumerate(scans):
        if i == 0:
            starts.append((0, 0))
        elif first >= 0:
            starts.append((first, before + 1))
        before += count
    ends = [*(start for start, _ in starts[1:]), head.size]
    return [
        Window(start, stop, line, 0 < head.first <= line, head.size, head.mtime_ns, () if i else head.diagnostics)
        for i, ((start, line), stop) in enumerate(zip(starts, ends, strict=True))
    ]


def scan_block(path: str, start: int, stop: int, size: int, mtime_ns: int, any_newline: bool) -> tuple[int, int]:
    """A worker: the lines that start in bytes ``start`` to ``stop`` of the file (its first line, at 0, left
    out): how many, and where the first does (-1: none).  A line starts after each line end; a CR at the
    block's last byte ends a line only if the byte after it is no LF, so that byte is read too."""
    count, first = 0, -1
    with _opened(path) as file:
        _same(path, os.fstat(file.fileno()), size, mtime_ns)
        at = max(start - 1, 0)  # the line ends whose last byte is before the block's last, from the one before it
        while at < stop - 1:
            wanted = min(_SCAN, stop - 1 - at)
            file.seek(at)
            data = file.read(wanted + 1)
            if len(data) < wanted:
                raise _changed(path)
            ends, end = line_ends(data, wanted, any_newline=any_newline)
            if first < 0 and end >= 0:
                first = at + end + 1
            count += ends
            at += wanted
    return count, first


def _opened(path: str) -> BinaryIO:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise SourceError(
            f"{path}: a Dask worker cannot open it ({exc.strerror or exc}): give the cluster a folder it shares "
            "with the client"
        ) from None


class _View:
    """The bytes ``start`` to ``stop`` of an open file, read as a stream; a file that ends before ``stop`` has
    changed since it was planned."""

    def __init__(self, file: Any, path: str, start: int, stop: int) -> None:
        file.seek(start)
        self._file = file
        self._path = path
        self._left = stop - start

    def read(self, size: int = -1, /) -> bytes:
        wanted = self._left if size < 0 else min(size, self._left)
        if wanted <= 0:
            return b""
        data: bytes = self._file.read(wanted)
        if not data:
            raise _changed(self._path)
        self._left -= len(data)
        return data


class _Returned(Generic[_T]):
    """The items of a generator, and what it returned once they were all iterated (``value``)."""

    def __init__(self, items: Generator[_T, None, int]) -> None:
        self._items = items
        self.value = 0

    def __iter__(self) -> Iterator[_T]:
        self.value = yield from self._items


class WindowReading:
    """A worker: the entries of one range of the file at ``path`` in format ``format`` read as the file's own
    lines (``ctx``: the reading's, named as the file); ``urls``: the URLs a text sitemap's range read."""

    def __init__(self, path: str, format: str, window: Window, ctx: Context) -> None:
        self._path = path
        self._format = format
        self._window = window
        self._ctx = ctx
        self.urls: int | None = 0 if format == "text" else None

    def __iter__(self) -> Iterator[Entry]:
        window, ctx, path = self._window, self._ctx, self._path
        for diagnostic in window.head:
            ctx.reporter.report(diagnostic)
        with _opened(path) as file:
            _same(path, os.fstat(file.fileno()), window.size, window.mtime_ns)
            view = _View(file, path, window.start, window.stop)
            if self._format == "text":
                items = _Returned(_text.window_items(view, ctx, window.line, window.after_first))
                yield from _text.lane_entries(iter(items), ctx.name)
                self.urls = items.value
            else:
                header = not window.after_first
                yield from _jsonl.read_window(view, ctx, window.line, header).entries
            _same(path, os.fstat(file.fileno()), window.size, window.mtime_ns)
