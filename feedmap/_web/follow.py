"""Index following: reading the children of a sitemap index, as one step between a reader and the API.

Spec: the sitemaps.org 0.9 sitemap index (https://www.sitemaps.org/protocol.html#index).  A reader gives
an index as a document of kind ``index`` whose entries are its children (loc, lastmod);
:func:`follow_index` turns it into a document of the children's entries, one child after another
(streaming), in index order.  The rules (scope, loops, relative children, depth) are those of
:mod:`feedmap._core.follow_rules`; this module applies them, downloads the children and walks the tree,
opening each with :func:`start_document` (one source opened, its format named or recognised by content, its
reader started), which :func:`feedmap.read` uses for the document it reads too.  The run's download threads
and fetcher are the :class:`feedmap._io.http.Shared` the API passes in.

* **Local children**: a child is read from disk when its URL starts with a ``--map PREFIX=DIR`` prefix (a
  static-site build directory) or is a ``file:`` URL (:func:`feedmap._io.locate.local_path`: inside the
  directory, a regular file, no NUL); a child that cannot be read is reported with its URL and the rest
  goes on.
* **The follow filter** (``--since``, :attr:`~feedmap._core.context.Options.follow_child`,
  :attr:`~feedmap._core.context.Options.since`): a child it leaves
  out is reported (``child-skipped``) and is no failure.
* **Scope**: a child of a fetched index must have the index's scheme, host and port (``child-off-site``),
  and so must every redirect it answers with: each hop is checked before it is requested
  (:meth:`feedmap._io.http.Fetcher.open`, ``redirect_rule``).
* **Relative children**: resolved against the index's own URL (``relative-url-resolved``); when the index
  has no URL (a local file), reported (``child-not-read``) and not read.
* **Downloads**: up to ``concurrency`` children download ahead of the one being read, on the run's one
  pool of threads (:meth:`feedmap._io.http.Shared.pool`), each into a spooled temporary file capped at
  ``--max-bytes``.
* **Nothing read**: when the index names children and not one of them could be read (every one failed
  or was refused; a loop back to an index being read is no failure), reading ends with a
  :class:`~feedmap._core.errors.ReadError` (``no-child-read``), so the CLI exits 1 instead of writing an empty
  output.  Children left out by the follow filter are not failures.
* **Watching**: a walk can tell a watcher (:meth:`_Following.watch`, ``feedmap info``) of each child as it reaches
  it, in index order, depth first, a child refused or left out in its place too (:class:`ChildRecord`: what
  became of it, the bytes read of it, decompressed; with workers, the worker's count).  The planning of one child
  (follow filter, scope, where it is read from) is :mod:`feedmap._web.follow_children`'s.
* **Depth**: the walk keeps one explicit stack of the indexes being read (:class:`_Following`), not one
  generator per level, so a deep chain under a large ``max_depth`` costs no Python stack; nesting deeper
  than ``max_depth`` is not followed (``index-too-deep``), an index already being read is a loop
  (``index-loop``).
"""

from __future__ import annotations

import contextlib
import weakref
from collections import deque
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from feedmap._core.context import Context
from feedmap._core.errors import (
    FeedmapError,
    FetchError,
    FormatError,
    ReadError,
    StrictError,
    UnknownFormatError,
    reason_of,
)
from feedmap._core.follow_rules import (
    child_refusal,
    child_url,
    loop_key,
    resolved_message,
    same_site_rule,
)
from feedmap._core.model import DocKind, Document, Entry
from feedmap._core.options import asks_for_workers
from feedmap._core.wording import counted
from feedmap._io.http import Shared
from feedmap._io.sources import Source, SourceLike, is_url, open_source
from feedmap._web.follow_children import (
    FAILED,
    INDEX,
    READ,
    SKIPPED,
    UNRESOLVED,
    Child,
    ChildRecord,
    Tally,
    Watcher,
    absolute,
    discard,
    fetch_child,
    left_out,
    where,
)
from feedmap.formats import _registry as registry
from feedmap.formats._registry import FormatSpec

if TYPE_CHECKING:  # worker processes are imported by a walk with jobs (one that has none does not load them)
    from feedmap._web.partitions import Workers
    from feedmap._web.text_jobs import Lane

__all__ = [
    "FAILED",
    "FOLLOWED_FORMATS",
    "INDEX",
    "READ",
    "SKIPPED",
    "ChildRecord",
    "Tally",
    "Watcher",
    "check_something_read",
    "child_refusal",
    "child_url",
    "follow_index",
    "following_of",
    "is_followed",
    "loop_key",
    "open_document",
    "read_children",
    "resolved_message",
    "same_site_rule",
    "start_document",
]

#: The formats whose indexes are followed: a JSON lines file of kind ``index`` is read as it is.
FOLLOWED_FORMATS = frozenset({"sitemapindex"})

#: The walks :func:`follow_index` made, by the identity of their document's metadata (:func:`following_of`).
_FOLLOWED: weakref.WeakValueDictionary[int, _Following] = weakref.WeakValueDictionary()


def is_followed(doc: Document) -> bool:
    """Whether ``doc`` is an index whose children following reads (a ``<sitemapindex>``)."""
    return doc.meta.kind is DocKind.INDEX and doc.format in FOLLOWED_FORMATS


def _readable(format: str | None, source: Source, ctx: Context) -> FormatSpec:
    if format is not None:
        spec = registry.get(format)
        if spec.reader is None:
            raise FormatError(f"format {spec.name!r} cannot be read")
        return spec
    return registry.detect(source, ctx.reporter)


def start_document(
    source: SourceLike, format: str | None, ctx: Context, shared: Shared
) -> tuple[Document, contextlib.ExitStack]:
    """Open and start reading one source (the format named, else recognised by content): the document, not
    followed, and the stack that closes its input.  An http(s) URL is fetched with the run's fetcher.

    The entries are the reader's own (not closing anything when exhausted): :func:`follow_index` uses this
    to take over the entries of a nested index instead of iterating them one generator deeper, and
    :func:`feedmap.read` to open its source.
    """
    doc, stack, _opened = open_document(source, format, ctx, shared)
    return doc, stack


def open_document(
    source: SourceLike, format: str | None, ctx: Context, shared: Shared
) -> tuple[Document, contextlib.ExitStack, Source]:
    """:func:`start_document`, and the opened input (whose :attr:`~feedmap._io.sources.Source.bytes_read` says
    how much of it was read)."""
    stack = contextlib.ExitStack()
    try:
        remote = isinstance(source, str) and is_url(source) and not source.startswith("file:")
        opened = stack.enter_context(
            open_source(
                source,
                reporter=ctx.reporter,
                max_bytes=ctx.options.max_bytes,
                name=ctx.name or None,
                fetcher=shared.fetcher(ctx.options.http) if remote else None,
                maps=ctx.options.maps,
            )
        )
        ctx.name = opened.name
        ctx.path = opened.path
        ctx.url = opened.url or ctx.url
        spec = _readable(format, opened, ctx)
        assert spec.reader is not None
        doc = spec.reader(opened, ctx=ctx)
        doc.format = doc.format or spec.name
    except BaseException:
        stack.close()
        raise
    return doc, stack, opened


def follow_index(doc: Document, ctx: Context, shared: Shared) -> Document:
    """An index read with ``ctx`` (see :func:`is_followed`), made the document of its children's entries.

    Unless ``ctx.options.follow`` is off (``--no-follow``): then, as any other document, ``doc`` is
    returned as it is.  The document is changed in place (its kind becomes ``urlset``, its entries those
    of the children, downloaded on ``shared``'s threads with its fetcher, each opened with
    :func:`start_document`) and returned.
    """
    if not ctx.options.follow or not is_followed(doc):
        return doc
    doc.meta = doc.meta.as_kind(DocKind.URLSET)
    following = _Following(iter(doc.entries), ctx, shared)
    doc.entries = following
    following.meta = doc.meta
    _FOLLOWED[id(doc.meta)] = following
    return doc


def following_of(doc: Document) -> _Following | None:
    """The walk of the children of ``doc``, an index :func:`follow_index` followed (or a document made of its
    entries with its metadata: a conversion of one input), when it has not started; else None."""
    found = _FOLLOWED.get(id(doc.meta))
    return found if found is not None and found.meta is doc.meta and not found.started else None


def _plan(index_entry: Entry, level: _Level) -> Child | None:
    """Decide how a child is read, or report why it is not (and give None; for a watched walk, the child refused)."""
    line = index_entry.origin.line if index_entry.origin else 0
    ctx, tally, options = level.ctx, level.tally, level.ctx.options
    if left_out(index_entry, options):
        lastmod = f" (lastmod {index_entry.lastmod})" if index_entry.lastmod is not None else ""
        reason = "is not read: the follow filter left it out"
        ctx.info("child-skipped", f"child sitemap {index_entry.loc}{lastmod} {reason}", line)
        tally.skipped += 1
        return level.refused(index_entry.loc, line, SKIPPED, ("child-skipped", reason))
    tally.failed += 1  # until it is planned
    loc = absolute(index_entry.loc, line, ctx)
    if loc is None:
        return level.refused(index_entry.loc, line, FAILED, ("child-not-read", UNRESOLVED))
    path, refused = where(loc, ctx)
    if refused is not None:
        code, reason, message = refused
        ctx.warning(code, message, line)
        if code == "index-loop":  # an index being read already: what it lists is read, so this is no failure
            tally.failed -= 1
            return level.refused(loc, line, SKIPPED, (code, reason))
        return level.refused(loc, line, FAILED, (code, reason))
    tally.failed -= 1
    record = level.record(loc, line)
    if path is not None:
        child = Child(loc, line, path=path, record=record)
        if level.workers is not None:
            child.parsed = level.workers.read(path, _local_context(child, ctx))
        return child
    fetching = level.shared.pool(options.concurrency).submit(fetch_child, loc, ctx, level.shared)
    child = Child(loc, line, download=fetching, record=record)
    if level.workers is not None:
        child.parsed = level.workers.read_downloaded(fetching, ctx.child(loc, None))
    return child


class _Following:
    """The entries of an index's children, in index order (the ``entries`` of a followed index).

    Iterating it walks the tree of indexes depth first with an explicit stack (one :class:`_Level` per
    index being read), never one generator deeper per level: a nested index found while following is
    taken over by the walk of the outermost index, so the nesting depth costs no Python stack.
    """

    def __init__(self, entries: Iterator[Entry], ctx: Context, shared: Shared) -> None:
        self.entries = entries
        self.ctx = ctx
        self.shared = shared
        self._walk: Iterator[Entry] | None = None
        self.meta: object = None  # the document's (:func:`following_of`)
        self._watcher: Watcher | None = None

    def watch(self, watcher: Watcher) -> None:
        """Tell ``watcher`` of each child sitemap the walk reaches (see :class:`ChildRecord`): the entries the walk
        gives after it, until the next child, are that child's.  Only before the walk starts."""
        assert self._walk is None, "the walk has started"
        self._watcher = watcher

    @property
    def started(self) -> bool:
        return self._walk is not None

    def __iter__(self) -> Iterator[Entry]:
        if self._walk is None:
            self._walk = self._start(None)
        return self._walk

    def lane_items(self, lane: Lane) -> Generator[Any, None, None]:
        """The walk with its children read by workers in ``lane`` (:mod:`feedmap._web.text_jobs`): the lane's
        items, and the entries of a child read here; iterated instead of the entries."""
        assert self._walk is None
        walk = self._start(lane)
        self._walk = walk
        return walk

    def _start(self, lane: Lane | None) -> Generator[Entry, None, None]:
        options = self.ctx.options
        workers = None
        if asks_for_workers(options):
            from feedmap._web.partitions import workers_for

            workers = workers_for(options)
            if workers is not None:
                workers.lane = lane
        return _walk(_Level(self.entries, self.ctx, self.shared, workers=workers, watcher=self._watcher))

    def close(self) -> None:
        walk, self._walk = self._walk, iter(())
        if isinstance(walk, Generator):
            walk.close()


@dataclass(slots=True)
class _Level:
    """One index being followed: its entries still to plan, the children planned ahead, how to close it."""

    entries: Iterator[Entry]
    ctx: Context
    #: The run's download threads and fetcher, the same for every level of one walk.
    shared: Shared
    #: The child this index is, and the context of its parent (None for the outermost index).
    parent: tuple[Child, Context] | None = None
    #: Closes the index's input (None for the outermost index: its document closes it).
    stack: contextlib.ExitStack | None = None
    window: deque[Child] = field(default_factory=deque)
    planned: bool = False
    #: Shared by every level of one walk.
    tally: Tally = field(default_factory=Tally)
    #: With ``jobs``: the worker processes reading the children (the same for every level of one walk).
    workers: Workers | None = None
    #: Told of each child (the same for every level of one walk), and how deep this index is (0: the input).
    watcher: Watcher | None = None
    depth: int = 0
    #: This index's own input, when it is a child (what it read is its record's bytes).
    opened: Source | None = None
    #: The children in the window being read (not those refused, there for the watcher only).
    ahead: int = 0

    def next_child(self) -> Child | None:
        """The next child to read while up to ``concurrency`` children download ahead; None at the end."""
        ahead = max(1, self.ctx.options.concurrency)
        while not self.planned and self.ahead < ahead:
            entry = next(self.entries, None)
            if entry is None:
                self.planned = True
            else:
                child = _plan(entry, self)
                if child is not None:
                    self.window.append(child)
                    self.ahead += not child.refused
        if not self.window:
            return None
        child = self.window.popleft()
        self.ahead -= not child.refused
        return child

    def record(self, loc: str, line: int) -> ChildRecord | None:
        """The record of a child of this index, when the walk is watched."""
        if self.watcher is None:
            return None
        return ChildRecord(loc, self.parent[0].loc if self.parent is not None else self.ctx.name, line, self.depth + 1)

    def refused(self, loc: str, line: int, status: str, why: tuple[str, str]) -> Child | None:
        """A child not read, for a watched walk (else None): in the window for the watcher to be told in order."""
        record = self.record(loc, line)
        if record is None:
            return None
        record.status, (record.code, record.reason) = status, why
        return Child(loc, line, record=record, refused=True)

    def close(self) -> None:
        window, self.window = self.window, deque()
        for child in window:  # stopped early (an error, or the caller closed us): drop what is in flight
            if child.download is not None and not child.download.cancel():
                child.download.add_done_callback(discard)
        if self.stack is not None:
            self.stack.close()
        record = self.parent[0].record if self.parent is not None else None
        if record is not None and record.status == INDEX and self.opened is not None:
            record.bytes = self.opened.bytes_read


def read_children(index_entries: Iterable[Entry], ctx: Context, shared: Shared, tally: Tally) -> Iterator[Entry]:
    """The entries of some children of an index read with ``ctx`` (its name, path, URL and chain: the context the
    index was read with), in order, with the rules, diagnostics and nested indexes of the walk of the whole index;
    the children read, failed and left out counted in ``tally``.  Whether anything was read at all is the
    caller's to say (:func:`check_something_read`, once every part of the index was read): a cluster's worker
    reads one part (:mod:`feedmap._web.bag_parts`)."""
    return _walk(_Level(iter(index_entries), ctx, shared, tally=tally), check=False)


def _walk(root: _Level, check: bool = True) -> Generator[Entry, None, None]:
    """The leaf entries below ``root``, depth first, in index order (see :class:`_Following`).

    A child sitemap's entries are yielded from here, straight from its document (no layer per entry of its own:
    :func:`_read_child` opens the child, this loop drains it)."""
    levels = [root]
    try:
        while levels:
            level = levels[-1]
            try:
                child = level.next_child()
            except FeedmapError as exc:
                if level.parent is None or isinstance(exc, StrictError):
                    raise  # the outermost index's own failure is the caller's
                _report(level.parent[0], level.parent[1], exc, level.tally)
                child = None
            if child is None:
                levels.pop().close()
                continue
            if child.record is not None and level.watcher is not None:
                level.watcher(child.record)  # before its entries
                if child.refused:
                    continue
            opened = yield from _read_child(child, level)
            if isinstance(opened, _Level):
                levels.append(opened)
            elif opened is not None:
                entries, stack, source = opened
                try:
                    with stack:
                        yield from entries
                    level.tally.read += 1
                    if child.record is not None:
                        child.record.bytes = source.bytes_read
                except StrictError:
                    raise
                except FeedmapError as exc:
                    _failed(child, level, exc)
        if check:
            check_something_read(root.tally, root.ctx.name)
    finally:
        for level in reversed(levels):
            level.close()
        if root.workers is not None:
            root.workers.close()


def check_something_read(tally: Tally, name: str) -> None:
    """ReadError when the index ``name`` named children and not one could be read."""
    if tally.read == 0 and tally.failed > 0:
        if tally.skipped:
            kept = "the only child sitemap" if tally.failed == 1 else f"each of the {tally.failed} child sitemaps"
            left = counted(tally.skipped, "other")
            some = f"{kept} the follow filter kept ({left} left out by it)"
        else:
            some = "its only child sitemap" if tally.failed == 1 else f"each of its {tally.failed} child sitemaps"
        raise ReadError(
            f"nothing was read from the index: {some} could not be read (see the warnings above)",
            source=name,
            code="no-child-read",
        )


def _open_child(child: Child, ctx: Context, shared: Shared) -> tuple[Document, Context, contextlib.ExitStack, Source]:
    """Open a child: its document, the context it is read with, the stack that closes its input, and that input."""
    stack = contextlib.ExitStack()
    try:
        if child.download is not None:
            body, final_url = child.download.result()
            stack.enter_context(body)
            child_ctx = ctx.child(child.loc, None, url=final_url)
            doc, inner, opened = open_document(body, None, child_ctx, shared)
        else:
            assert child.path is not None
            child_ctx = _local_context(child, ctx)
            doc, inner, opened = open_document(child.path, None, child_ctx, shared)
        stack.push(inner)
    except BaseException:
        stack.close()
        raise
    return doc, child_ctx, stack, opened


def _local_context(child: Child, ctx: Context) -> Context:
    """The context a child read from disk is read with (named by its path, its URL when mapped)."""
    assert child.path is not None
    mapped = child.loc if not child.loc.startswith("file:") else None
    return ctx.child(str(child.path), child.path, url=mapped)


def _read_child(
    child: Child, level: _Level
) -> Generator[Entry, None, _Level | tuple[Iterator[Entry], contextlib.ExitStack, Source] | None]:
    """Open a child sitemap of ``level``'s index: a child that is an index is returned as a new level, a sitemap as
    its entries, the stack closing its input and that input (drained by :func:`_walk`); None when a worker read it
    (its entries and diagnostics are replayed here) or it failed (reported)."""
    ctx, tally = level.ctx, level.tally
    try:
        if child.parsed is not None:  # read by a worker: its entries and diagnostics replayed here
            from feedmap._web.partitions import outcome, read_size, replay

            values: list[Any] = []
            nested = yield from replay(outcome(child.parsed, child.loc), ctx.reporter.report, values)
            if not nested:
                if child.download is not None:
                    child.download.result()[0].close()
                tally.read += 1
                if child.record is not None:
                    child.record.bytes = read_size(values)
                return None
        doc, child_ctx, stack, opened = _open_child(child, ctx, level.shared)
        if is_followed(doc):
            if child.record is not None:
                child.record.status = INDEX
            return _Level(
                iter(doc.entries),
                child_ctx,
                level.shared,
                parent=(child, ctx),
                stack=stack,
                tally=tally,
                workers=level.workers,
                watcher=level.watcher,
                depth=level.depth + 1,
                opened=opened,
            )
        return iter(doc.entries), stack, opened
    except StrictError:
        raise
    except FeedmapError as exc:
        _failed(child, level, exc)
    return None


def _failed(child: Child, level: _Level, exc: FeedmapError) -> None:
    """A child that could not be read (or stopped being read): reported, unless a worker died (that stops the run)."""
    if level.workers is not None:  # a worker that died stops the run (workers imported partitions)
        from feedmap._web.partitions import WorkerDied

        if isinstance(exc, WorkerDied):
            raise exc
    _report(child, level.ctx, exc, level.tally)


def _report(child: Child, ctx: Context, exc: FeedmapError, tally: Tally) -> None:
    """Report why a child could not be read (or stopped being read), on the line of its index naming it."""
    tally.failed += 1
    if isinstance(exc, FetchError) and exc.code == "redirect-refused":
        code, reason = "child-off-site", f"{reason_of(exc, child.loc)}; not read"
        message = f"child sitemap {child.loc} {reason}"
    else:
        code = "child-unreadable"
        if isinstance(exc, UnknownFormatError):
            reason = f"it is not a sitemap: it {exc.what}" if exc.what else str(exc)
        else:
            reason = reason_of(exc, child.loc)  # the URL is named once, first
        message = f"child sitemap {child.loc} could not be read: {reason}"
    if child.record is not None:
        child.record.status, child.record.code, child.record.reason, child.record.bytes = FAILED, code, reason, None
    ctx.warning(code, message, child.line)
