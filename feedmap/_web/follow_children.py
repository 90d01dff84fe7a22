"""One child of a sitemap index before it is read: whether it is read, from where, and what became of it.

Spec: the sitemaps.org 0.9 sitemap index (https://www.sitemaps.org/protocol.html#index).  The rules are those of
:mod:`feedmap._core.follow_rules` (scope, loops, depth, relative children); :mod:`feedmap._web.follow` applies them
with these helpers while it walks an index: the follow filter (:func:`left_out`), a relative child resolved against
its index's URL (:func:`absolute`), where a child in scope is read from or why it is refused (:func:`where`), its
download into a spooled file capped at ``--max-bytes`` (:func:`fetch_child`), the walk's counts (:class:`Tally`), and,
for a walk someone watches (``feedmap info``), each child's :class:`ChildRecord`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from feedmap._core.context import Context, Options
from feedmap._core.errors import SourceError, reason_of
from feedmap._core.follow_rules import (
    child_url,
    loop_key,
    nesting_refusal,
    resolved_message,
    same_site_rule,
    scope_refusal,
)
from feedmap._core.model import Entry
from feedmap._io.http import Shared
from feedmap._io.locate import MapEscapeError, local_path
from feedmap._io.scratch import ScratchSpool
from feedmap.converters._filters import within

if TYPE_CHECKING:
    from concurrent.futures import Future

__all__ = [
    "FAILED",
    "INDEX",
    "READ",
    "SKIPPED",
    "UNRESOLVED",
    "Child",
    "ChildRecord",
    "Tally",
    "Watcher",
    "absolute",
    "discard",
    "fetch_child",
    "left_out",
    "where",
]

_SPOOL_IN_MEMORY = 1 << 20


@dataclass(slots=True)
class Tally:
    """Children of the whole tree of indexes read to the end, and those that failed or were refused (picklable:
    a cluster's worker sends the tally of the children it read, :func:`feedmap._web.follow.read_children`)."""

    read: int = 0
    failed: int = 0
    #: Left out by the follow filter (no failure, but the message of nothing read names them).
    skipped: int = 0


#: What became of a child sitemap (:attr:`ChildRecord.status`): read to its end (or as far as it could be: a
#: cut file), failed (not fetched, refused, not a sitemap, stopped by an error), left out (the follow filter, a
#: loop back to an index being read), or itself an index (its children follow it).
READ, FAILED, SKIPPED, INDEX = "read", "failed", "skipped", "index"


@dataclass(slots=True)
class ChildRecord:
    """One child sitemap a watched walk met (:meth:`_Following.watch`).  The watcher is given it when the walk
    reaches it, in index order, depth first (a nested index before its children), before its entries; its
    ``status``, ``code``, ``reason`` and ``bytes`` are set as its reading ends."""

    loc: str
    #: The index naming it (the input's name, or the loc of a nested index) and the line it is named on.
    index: str
    line: int
    #: 1 for a child of the input, 2 for a child of a nested index, ...
    depth: int
    status: str = READ
    #: Why it failed or was left out: the diagnostic's code, and its reason.
    code: str | None = None
    reason: str | None = None
    #: The bytes read, decompressed (a read child or nested index; None otherwise).
    bytes: int | None = None


#: Told of each child a watched walk reaches (see :class:`ChildRecord`).
Watcher = Callable[[ChildRecord], None]


@dataclass(slots=True)
class Child:
    """A child sitemap about to be read: from disk (``path``) or being downloaded (``download``)."""

    loc: str
    line: int
    path: Path | None = None
    download: Future[tuple[BinaryIO, str]] | None = None
    #: With ``jobs``: the spill of the child read by a worker (:mod:`feedmap._web.partitions`).
    parsed: Future[str] | None = None
    #: Its record, when the walk is watched; a child not read (refused, left out) is in the window only then.
    record: ChildRecord | None = None
    refused: bool = False


def fetch_child(url: str, ctx: Context, shared: Shared) -> tuple[BinaryIO, str]:
    """Fetch a child into a spooled temporary file (in memory up to 1 MiB), capped at ``--max-bytes``.

    Returns the file and the URL it was found at after redirects (the site a nested index is scoped to).
    A redirect off the index's site is refused before it is followed (FetchError ``redirect-refused``).
    """
    spool = ScratchSpool(_SPOOL_IN_MEMORY, "copy of a child sitemap")
    try:
        fetcher = shared.fetcher(ctx.options.http)
        with fetcher.open(url, max_bytes=ctx.options.max_bytes, redirect_rule=same_site_rule(ctx.url)) as fetched:
            while chunk := fetched.read(1 << 16):
                spool.write(chunk)
            final_url = fetched.final_url
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool, final_url  # type: ignore[return-value]


def absolute(loc: str, line: int, ctx: Context) -> str | None:
    """The child's URL, a relative one resolved against the index's own URL (reported); None when it
    is relative and the index has no URL (reported)."""
    resolved = child_url(loc, ctx.url)
    if resolved is not None:
        if resolved != loc:
            ctx.info("relative-url-resolved", resolved_message(loc, resolved), line)
        return resolved
    ctx.warning("child-not-read", f"child sitemap {loc} {UNRESOLVED}", line)
    return None


def left_out(index_entry: Entry, options: Options) -> bool:
    """Whether the follow filter leaves a child out: ``follow_child`` says no, or its lastmod is before
    ``since`` (the entries it holds would all be left out by the entry filter)."""
    if options.follow_child is not None and not options.follow_child(index_entry.loc, index_entry.lastmod):
        return True
    lastmod = index_entry.lastmod
    return options.since is not None and lastmod is not None and not within(lastmod, options.since, None)


#: Why a relative child of an index read from no URL is not read.
UNRESOLVED = "is a relative URL, and the index was not read from a URL to resolve it against; not read"


def where(loc: str, ctx: Context) -> tuple[Path | None, tuple[str, str, str] | None]:
    """Where a child in scope is read from (its local path, else None: fetched), or why it is not read at all, as
    (code, reason, message): off the index's site, no http(s) URL, outside its ``--map`` folder, no regular
    file, a loop or nesting too deep."""
    refused = scope_refusal(loc, ctx.url)  # before any local path is looked at: none from a remote index
    if refused is not None:
        return None, (refused[0], refused[1], f"child sitemap {loc} {refused[1]}")
    try:
        path = local_path(loc, ctx.options.maps)
    except MapEscapeError as exc:
        return None, ("map-escape", str(exc).removeprefix(f"{loc} "), str(exc))
    except SourceError as exc:  # a NUL in the path, not a regular file (a FIFO would block)
        reason = reason_of(exc, loc)
        return None, ("child-unreadable", reason, f"child sitemap {loc} could not be read: {reason}")
    key = str(path.resolve()) if path is not None else loop_key(loc)
    refused = nesting_refusal(key, (*ctx.chain, ctx.key()), ctx.options.max_depth)
    if refused is not None:
        return None, (refused[0], refused[1], f"child sitemap {loc} {refused[1]}")
    return path, None


def discard(download: Future[tuple[BinaryIO, str]]) -> None:
    """Close a child downloaded after nobody wanted it any more (without waiting for it)."""
    if not download.cancelled() and download.exception() is None:
        download.result()[0].close()
