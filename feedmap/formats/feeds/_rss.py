"""``rss``: syndication feeds (RSS 0.9x/1.0/2.0, Atom 0.3/1.0), streamed with lxml, written as RSS 2.0.

sitemaps.org ("Other formats") accepts RSS 2.0 and Atom as sitemaps; an item is read as:

* ``loc`` from the item's ``link``, else from a ``guid`` that is a permalink (``isPermaLink`` defaults to
  true), else Atom ``link[@rel=alternate or no rel]``;
* ``lastmod`` from ``updated`` (Atom, ``dc:date``), ``published`` (``pubDate``) or Atom 0.3 ``modified``,
  read from the text as written so its offset and precision are kept;
* ``title``, ``description`` (summary) and ``keywords`` (category terms).

Reading streams (:mod:`feedmap.formats.feeds._stream`, items by :mod:`~feedmap.formats.feeds._item`): a
well-formed feed is read item by item with lxml, memory flat whatever its size.  feedparser reads what lxml
cannot (:mod:`feedmap.formats.feeds._parsed`): a document whose root is no RSS, RDF or Atom root, or one that
is not well-formed (beyond the repairs :class:`~feedmap._xml.CleaningStream`
reports).  The input is recorded as it streams (in a spooled temporary file), so that when the XML breaks
off after some items, feedparser reads the whole (capped) input and the items after those already given
come from it.  Such a feed gives one ``malformed-feed`` warning (``--strict`` stops on it), and every URL
feedparser's recovery gives that the feed does not hold as written is reported (``feed-recovered-url``):
feedparser rewrites entity-like text in links (``?a=1&amp;b=2`` keeps ``&amp;``, ``&host;`` loses its
``;``); where the text as written is found, it is used instead.

Items without a usable URL are skipped with a warning naming the item.  Extension elements feedmap writes
into RSS (``sitemap:changefreq``, ``sitemap:priority``; through the extensions' hooks,
:mod:`feedmap.formats.ext`: ``image:image``, hreflang alternates as ``atom:link rel="alternate" hreflang``
(``xhtml:link`` is read too), third-party ones) are read back by namespace URI, so ``sitemap -> rss ->
sitemap`` keeps them; XML extras an RSS 2.0 item cannot hold (RDF, Atom, XHTML markup) are left out
(``extra-dropped``).  The channel's ``lastBuildDate`` (Atom: the feed's ``updated``) is kept
(``DocMeta.updated``) and written back.  Titles are written as plain text, descriptions as sanitized HTML
(:mod:`feedmap.formats.feeds._html`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.model import ENTRY_FIELDS, Document, Entry
from feedmap._io.scratch import ScratchSpool
from feedmap._io.sources import PeekableStream, Readable, Source
from feedmap._xml import IMAGE_NS, SITEMAP_NS, line_of, peek_root
from feedmap.formats._registry import FormatSpec, Rendered
from feedmap.formats.ext import hooks, report_broken
from feedmap.formats.feeds._ext import item_claims
from feedmap.formats.feeds._item import item_entry
from feedmap.formats.feeds._parsed import feedparse, parsed_entries, raw_links, read_with_feedparser
from feedmap.formats.feeds._repair import ReferenceRepairs, replace_surrogate_refs
from feedmap.formats.feeds._stream import FeedItems
from feedmap.formats.feeds._vocab import ATOM03_NS, ATOM_NS, CORE_NAMESPACES, DC_NS, RDF_NS

__all__ = ["FORMAT", "RSS_NAMESPACES", "RSS_TITLE_PREFIX", "read", "render", "write"]

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


#: What a derived channel title and description start with ("Pages of https://host/").
RSS_TITLE_PREFIX = "Pages of"
#: Every namespace an RSS item may use, by prefix (declared only when used).
RSS_NAMESPACES = {"atom": ATOM_NS, "dc": DC_NS, "sitemap": SITEMAP_NS, "image": IMAGE_NS}


def render(doc: Document, *, ctx: Context) -> Rendered:
    from feedmap.formats.feeds._rssitem import rss_item
    from feedmap.formats.feeds._rsswrite import Namespaces, render_channel

    report_broken(ctx)
    table = hooks("rss")
    namespaces = Namespaces(RSS_NAMESPACES, hooks=table)
    return render_channel(
        doc,
        ctx,
        namespaces=namespaces,
        title_prefix=RSS_TITLE_PREFIX,
        item=lambda entry, dropped: rss_item(entry, ctx, dropped, namespaces, table),
    )


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    from feedmap.formats.feeds._rsswrite import write_channel

    return write_channel(sink, ctx, render(doc, ctx=ctx))


FORMAT = FormatSpec(
    name="rss",
    title="RSS / Atom feed (read: RSS 0.9x/1.0/2.0, Atom 0.3/1.0, streamed; write: RSS 2.0)",
    extensions=(".rss", ".atom"),
    media_types=("application/rss+xml", "application/atom+xml"),
    roots=(("*", "rss"), (RDF_NS, "RDF"), ("*", "feed")),
    priority=5,
    reader=read,
    writer=write,
    renderer=render,
    fields=frozenset(ENTRY_FIELDS) - {"type"},
    description="loc from link / permalink guid / Atom alternate; lastmod keeps its offset; the channel's "
    "title, link, description and self URL from the options",
)
