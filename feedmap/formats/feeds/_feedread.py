"""Reading a syndication feed (RSS 0.9x/1.0/2.0, Atom 0.3/1.0): the reader the ``rss`` and ``atom`` formats share.

Specs: RSS 2.0 (https://www.rssboard.org/rss-specification), RSS 1.0 (https://web.resource.org/rss/1.0/spec) and
Atom (RFC 4287); what an item is read as is said in :mod:`feedmap.formats.feeds._rss`.  A well-formed feed is
streamed with lxml (:mod:`feedmap.formats.feeds._stream`, items by :mod:`feedmap.formats.feeds._item`), memory flat
whatever its size; one lxml cannot read (a root that is no RSS, RDF or Atom root, or XML that breaks) goes to
feedparser (:mod:`feedmap.formats.feeds._parsed`), from a copy of the input recorded as it streams (a spooled
temporary file).  A module of its own so that two formats read through it without importing each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.model import Document, Entry
from feedmap._io.scratch import ScratchSpool
from feedmap._io.sources import PeekableStream, Readable, Source
from feedmap._xml import line_of, peek_root
from feedmap.formats.ext import report_broken
from feedmap.formats.feeds._ext import item_claims
from feedmap.formats.feeds._item import item_entry
from feedmap.formats.feeds._parsed import feedparse, parsed_entries, raw_links, read_with_feedparser
from feedmap.formats.feeds._repair import ReferenceRepairs, replace_surrogate_refs
from feedmap.formats.feeds._stream import FeedItems
from feedmap.formats.feeds._vocab import ATOM03_NS, ATOM_NS, CORE_NAMESPACES, RDF_NS

__all__ = ["read"]

_SPOOL_IN_MEMORY = 1 << 20  # bytes of the recorded input kept in memory before it goes to a temporary file


class _Recorder:
    """Reads through to a stream and keeps a copy of what was read, to give it to feedparser if need be."""

    def __init__(self, inner: Readable) -> None:
        self._inner = inner
        self._spool = ScratchSpool(_SPOOL_IN_MEMORY, "copy of the feed")

    def read(self, size: int = -1, /) -> bytes:
        data = self._inner.read(size)
        if data:
            self._spool.write(data)
        return data

    def replay(self) -> bytes:
        """The whole input: what was read so far, then the rest of the stream."""
        self._spool.seek(0)
        return self._spool.read() + self._inner.read()

    def close(self) -> None:
        self._spool.close()


def _streamable(stream: PeekableStream) -> bool | None:
    """True for an Atom feed, False for RSS / RDF, None when the root is none of these (feedparser reads it)."""
    root = peek_root(stream)
    if root is None:
        return None
    if root.local == "feed" and root.namespace in (ATOM_NS, ATOM03_NS):
        return True
    if (root.local == "rss" and root.namespace in CORE_NAMESPACES) or (
        root.local == "RDF" and root.namespace == RDF_NS
    ):
        return False
    return None


@dataclass(frozen=True, slots=True)
class _Fallback:
    """What the feedparser path needs when the XML breaks off: the recorded input, the repairs reported."""

    recorder: _Recorder
    repairs: ReferenceRepairs


def _streamed(
    items: FeedItems,
    elements: Iterator[etree._Element],
    first: etree._Element | None,
    fallback: _Fallback,
    ctx: Context,
) -> Iterator[Entry]:
    claims = item_claims(items.atom)
    try:
        element = first
        while element is not None:
            entry = item_entry(
                element,
                items.items,
                items.atom,
                ctx,
                items.line(element) - line_of(element),
                items.meta.link,
                claims=claims,
            )
            if entry is not None:
                yield entry
            element = next(elements, None)
    except etree.LxmlError as broken:
        # the XML breaks off after some items: feedparser reads the whole input, the items not given yet count
        data = replace_surrogate_refs(
            fallback.recorder.replay(), ctx.reporter, ctx.name, skip=fallback.repairs.replaced
        )
        parsed = feedparse(data, ctx, broken)
        yield from parsed_entries(parsed, ctx, raw_links(parsed, data), skip=items.items)
    finally:
        fallback.recorder.close()


def read(source: Source, *, ctx: Context) -> Document:
    report_broken(ctx)
    recorder = _Recorder(source.stream)
    peeked = PeekableStream(recorder)
    atom = _streamable(source.stream)  # the root sniffing found, kept on the stream: not parsed again
    if atom is None:
        try:
            return read_with_feedparser(recorder.replay(), ctx)
        finally:
            recorder.close()
    repairs = ReferenceRepairs(peeked, reporter=ctx.reporter, name=ctx.name)
    items = FeedItems(PeekableStream(repairs), ctx, atom=atom)
    elements = items.elements()
    try:
        first = next(elements, None)
    except etree.LxmlError as broken:
        try:
            return read_with_feedparser(recorder.replay(), ctx, broken, reported=repairs.replaced)
        finally:
            recorder.close()
    entries = _streamed(items, elements, first, _Fallback(recorder, repairs), ctx)
    doc = Document(items.meta, entries, diagnostics=ctx.reporter.diagnostics)
    doc.closers.append(recorder.close)
    return doc
