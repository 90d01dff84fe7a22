"""``feedmap.info`` (``feedmap info``): what an input holds, and for an index followed, what each child sitemap holds.

The input is read to its end as :func:`feedmap.read` reads it (streaming: memory holds the counts, one record per
child sitemap, and for the lastmod range a few texts), and described: its format and kind, its entries, images,
lastmod range and diagnostics by code.  An index (sitemaps.org 0.9, "Using Sitemap index files",
https://www.sitemaps.org/protocol.html#index) is followed into its children by the rules of
:mod:`feedmap._web.follow`, which tells this module of each child sitemap as the walk reaches it (in index order,
depth first, a nested index before its children: :class:`~feedmap._web.follow.ChildRecord`); the entries that
follow, until the next child, are that child's.  So each child gets its own entries, images and lastmod range,
the bytes read of it (decompressed: what the reader read, a gzip child's inflated size) and what became of it:
``read``, ``failed`` (why: the diagnostic's code and reason), ``skipped`` (the follow filter, a loop back to an
index being read) or ``index`` (a nested index: its children follow it).  With ``jobs`` or ``dask`` the children
are read by workers and replayed in order, so the records are the same.

The lastmod range compares W3C Datetime text (https://www.w3.org/TR/NOTE-datetime) where text order is time
order (:class:`_Span`): as fast as ``convert -t text``.  Nothing here prints or exits.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from feedmap._api import read
from feedmap._core.call_fields import refuse_unused
from feedmap._core.context import Options
from feedmap._core.dates import W3CDate
from feedmap._core.errors import DiagnosticHandler, Level, Reporter
from feedmap._core.model import DocKind, Entry
from feedmap._io.sources import SourceLike, source_name
from feedmap._web.follow import ChildRecord, following_of

__all__ = ["ChildInfo", "Info", "info"]

#: A child sitemap's ``status``: read to its end (or as far as it could be: a cut file is read up to the cut, with
#: a warning), failed, left out, or a nested index.
STATUSES = ("read", "failed", "skipped", "index")


class _Span:
    """The earliest and latest lastmod, comparing text where text order is time order.

    W3C dates (fixed-width, zero-padded fields) of one length and one zone are of one shape and order as
    their text does, so each (length, zone) keeps its first and last text by string comparison, and only
    those few are compared as :class:`W3CDate` values at the end (``info`` reads as fast as
    ``convert -t text``): by instant, a tie by precision (the coarser is earlier), then by text.
    """

    __slots__ = ("groups",)

    def __init__(self) -> None:
        #: (length, zone) -> [earliest text, latest text]
        self.groups: dict[tuple[int, str], list[str]] = {}

    def add(self, text: str) -> None:
        # a zone "+hh:mm" follows a time (22 characters at least); "Z" ends the text; a date has no zone
        size = len(text)
        zone = text[-6:] if size >= 22 and text[-6] in "+-" else "Z" if text[-1] == "Z" else ""
        group = self.groups.get((size, zone))
        if group is None:
            self.groups[(size, zone)] = [text, text]
        elif text < group[0]:
            group[0] = text
        elif text > group[1]:
            group[1] = text

    def merge(self, other: _Span) -> None:
        for key, (first, last) in other.groups.items():
            group = self.groups.get(key)
            if group is None:
                self.groups[key] = [first, last]
            else:
                group[0], group[1] = min(group[0], first), max(group[1], last)

    def ends(self) -> tuple[W3CDate | None, W3CDate | None]:
        if not self.groups:
            return None, None
        earliest = min(W3CDate(group[0]) for group in self.groups.values())
        latest = max(W3CDate(group[1]) for group in self.groups.values())
        return earliest, latest


class _Counts:
    """The entries, images and lastmods of one part of the input (one child sitemap, or the whole input)."""

    __slots__ = ("dated", "entries", "images", "span")

    def __init__(self) -> None:
        self.entries = self.images = self.dated = 0
        self.span = _Span()

    def merge(self, other: _Counts) -> None:
        self.entries += other.entries
        self.images += other.images
        self.dated += other.dated
        self.span.merge(other.span)


@dataclass(frozen=True, slots=True)
class ChildInfo:
    """One child sitemap of an index :func:`info` followed, in index order, depth first.

    ``loc`` is its URL (a relative one resolved against its index's), ``index`` the index naming it (the input,
    or a nested index's loc) on ``line``, ``depth`` 1 for a child of the input (2 below a nested index, ...).
    ``status`` is ``"read"``, ``"failed"``, ``"skipped"`` or ``"index"`` (a nested index, its children after
    it); ``code`` and ``reason`` say why one failed or was skipped (the diagnostic reported: ``child-unreadable``,
    ``child-off-site``, ``child-not-read``, ``map-escape``, ``index-too-deep``, ``child-skipped``,
    ``index-loop``).  ``entries``, ``images``, ``with_lastmod``, ``lastmod_min`` and ``lastmod_max`` count what
    was read of it (a child that failed part way: what came before); ``bytes`` is the size read, decompressed
    (a gzip child's inflated bytes), for a child read or a nested index, else None.
    """

    loc: str
    index: str
    line: int
    depth: int
    status: str
    code: str | None = None
    reason: str | None = None
    entries: int = 0
    images: int = 0
    with_lastmod: int = 0
    lastmod_min: W3CDate | None = None
    lastmod_max: W3CDate | None = None
    bytes: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Its fields as JSON values (the dates as written), as ``feedmap info --json`` gives each child."""
        return {
            "loc": self.loc,
            "index": self.index,
            "line": self.line,
            "depth": self.depth,
            "status": self.status,
            "code": self.code,
            "reason": self.reason,
            "entries": self.entries,
            "images": self.images,
            "with_lastmod": self.with_lastmod,
            "lastmod_min": _text(self.lastmod_min),
            "lastmod_max": _text(self.lastmod_max),
            "bytes": self.bytes,
        }


@dataclass(frozen=True, slots=True)
class Info:
    """What :func:`info` found in one input.

    ``input`` is the source as given (a path, a URL, ``-``; a file object's name), ``format`` the format read,
    ``kind`` the kind of its entries (an index followed gives the pages of its children: ``followed`` is True
    and ``kind`` is ``DocKind.URLSET``); ``entries``, ``images``, ``with_lastmod`` (the entries with a lastmod),
    ``lastmod_min`` and ``lastmod_max`` (by the instant each names, :class:`~feedmap._core.dates.W3CDate`'s
    order); ``errors``, ``warnings`` and ``notes`` count the diagnostics of reading it by level, ``diagnostics``
    by code (most frequent first); ``children`` describes each child sitemap of an index followed (empty
    otherwise).
    """

    input: str
    format: str | None
    kind: DocKind
    followed: bool
    entries: int
    images: int
    with_lastmod: int
    lastmod_min: W3CDate | None
    lastmod_max: W3CDate | None
    errors: int
    warnings: int
    notes: int
    diagnostics: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    children: tuple[ChildInfo, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The object ``feedmap info --json`` prints for the input (docs/guide.md gives its schema)."""
        return {
            "input": self.input,
            "format": self.format,
            "kind": self.kind.value,
            "followed": self.followed,
            "entries": self.entries,
            "images": self.images,
            "with_lastmod": self.with_lastmod,
            "lastmod_min": _text(self.lastmod_min),
            "lastmod_max": _text(self.lastmod_max),
            "errors": self.errors,
            "warnings": self.warnings,
            "notes": self.notes,
            "diagnostics": dict(self.diagnostics),
            "children": [child.to_dict() for child in self.children],
        }


def _text(date: W3CDate | None) -> str | None:
    return date.text if date is not None else None


def info(
    source: SourceLike,
    format: str | None = None,
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Info:
    """Read ``source`` to its end and describe it (see :class:`Info`); an index followed, each child sitemap too
    (:class:`ChildInfo`).

    ``source`` and ``format`` are what :func:`feedmap.read` takes; ``options`` holds the settings of reading:
    ``follow`` (False: an index's own entries, no children), ``follow_child``, ``max_depth``, ``maps``,
    ``concurrency``, ``http``, ``max_bytes``, ``max_line_bytes``, ``base_url``, ``jobs`` and ``dask`` (the
    children read by workers: the same result), ``strict`` (the first warning raises
    :class:`~feedmap._core.errors.StrictError`).  A field of selection or writing raises ``ValueError``: the input
    is described whole.  Diagnostics go to ``reporter``, else to ``on_diagnostic``, as they come, and are counted
    in the result.  An input that cannot be read raises as :func:`feedmap.read` does.
    """
    options = options or Options()
    if not isinstance(options, Options):
        raise TypeError(f"options: give a feedmap.Options, not {options!r}")
    refuse_unused(options, "info")
    target: DiagnosticHandler | None = reporter.report if reporter is not None else on_diagnostic
    counting = Reporter(keep=0, handler=target)
    whole = _Counts()
    children: list[tuple[ChildRecord, _Counts]] = []
    with read(source, format, options, reporter=counting) as doc:
        walk = following_of(doc)
        if walk is not None:

            def watcher(record: ChildRecord) -> None:
                children.append((record, _Counts()))

            walk.watch(watcher)
        _count(doc.entries, whole, children)
        kind, format_read = doc.meta.kind, doc.format
    for _, counts in children:
        whole.merge(counts)
    first, last = whole.span.ends()
    return Info(
        input=source if isinstance(source, str) else source_name(source),  # "-" as given
        format=format_read,
        kind=kind,
        # a followed index is described by the entries of its children: say so, not only "urlset"
        followed=format_read == "sitemapindex" and kind is not DocKind.INDEX,
        entries=whole.entries,
        images=whole.images,
        with_lastmod=whole.dated,
        lastmod_min=first,
        lastmod_max=last,
        errors=counting.level_counts[Level.ERROR],
        warnings=counting.level_counts[Level.WARNING],
        notes=counting.level_counts[Level.INFO],
        diagnostics=MappingProxyType(dict(counting.counts.most_common())),
        children=tuple(_child(record, counts) for record, counts in children),
    )


def _count(entries: Iterable[Entry], whole: _Counts, children: list[tuple[ChildRecord, _Counts]]) -> None:
    """Count ``entries``: each into the child told last (the whole input's when none was)."""
    counts = whole
    told = 0
    for entry in entries:
        if len(children) != told:  # the walk reached another child: what follows is its
            told = len(children)
            counts = children[-1][1]
        counts.entries += 1
        images = entry.images
        if images:
            counts.images += len(images)
        lastmod = entry.lastmod
        if lastmod is not None:
            counts.dated += 1
            counts.span.add(lastmod.text)


def _child(record: ChildRecord, counts: _Counts) -> ChildInfo:
    first, last = counts.span.ends()
    return ChildInfo(
        loc=record.loc,
        index=record.index,
        line=record.line,
        depth=record.depth,
        status=record.status,
        code=record.code,
        reason=record.reason,
        entries=counts.entries,
        images=counts.images,
        with_lastmod=counts.dated,
        lastmod_min=first,
        lastmod_max=last,
        bytes=record.bytes,
    )
