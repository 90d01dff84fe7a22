"""Streaming reader of well-formed feeds: RSS 0.9x/2.0, RSS 1.0 (RDF), Atom 0.3 and Atom 1.0, with lxml.

Specs: RSS 2.0 (https://www.rssboard.org/rss-specification: the ``<channel>``), RSS 1.0
(https://web.resource.org/rss/1.0/spec: the ``<channel>`` beside the items) and Atom (RFC 4287 §4.1.1:
the ``<feed>``).  Items are found with the hardened ``iterparse`` of :mod:`feedmap._xml` over
:class:`~feedmap._xml.CleaningStream` (its lenient repairs reported), each cleared once read, so memory
stays flat however long the feed; each is read by :func:`~feedmap.formats.feeds._item.item_entry`.  The
channel's title, link, description and last update are read around the first item and at the end.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.model import DocKind, DocMeta
from feedmap._io.sources import PeekableStream
from feedmap._xml import CleaningStream, line_of, make_iterparse
from feedmap.formats.feeds._vocab import (
    CORE_NAMESPACES,
    DC_NS,
    DCTERMS_NS,
    channel_date,
    link_relation,
    qname,
    resolved,
    title_text,
)

__all__ = ["FeedItems"]

_ITEM_TAGS = ["{*}item", "{*}entry"]

#: A channel's (feed's) last update: RSS 2.0 ``lastBuildDate``, Atom ``updated``, Atom 0.3 ``modified``, and
#: ``dc:date`` / ``dcterms:modified`` (feedparser's ``updated``).
_CHANNEL_UPDATED = frozenset({"lastBuildDate", "updated", "modified"})
_CHANNEL_DATES = frozenset({(DC_NS, "date"), (DCTERMS_NS, "modified")})


def _channel_meta(container: etree._Element, meta: DocMeta) -> None:
    """Fill what ``meta`` lacks from a channel (RSS) or feed (Atom) element's own children."""
    for child in container:
        if not isinstance(child.tag, str):
            continue
        namespace, local = qname(child.tag)
        if (namespace, local) in _CHANNEL_DATES or (namespace in CORE_NAMESPACES and local in _CHANNEL_UPDATED):
            updated = channel_date(child.text or "") if len(child) == 0 else None
            if updated is not None:
                meta.updated = updated  # the last one written counts, as in feedparser
            continue
        if namespace not in CORE_NAMESPACES and not (namespace == DC_NS and local in ("title", "description")):
            continue
        if local == "title" and meta.title is None:
            meta.title = title_text(child) or None
        elif local == "link" and meta.link is None:
            href = child.get("href")
            rel = link_relation(child.get("rel"))
            value = href if href is not None else child.text
            if rel == "alternate" and value and value.strip():
                meta.link = resolved(child, value.strip())
        elif local in ("description", "subtitle", "tagline") and meta.description is None:
            meta.description = title_text(child) or None  # RSS 2.0's channel description is plain text


def _meta_from(item: etree._Element, meta: DocMeta) -> None:
    """The channel metadata around an item: its parent (RSS 2.0 channel, Atom feed) or, in RSS 1.0, the
    ``<channel>`` beside it."""
    parent = item.getparent()
    if parent is None:
        return
    if qname(parent.tag)[1] in ("channel", "feed"):
        _channel_meta(parent, meta)
    for sibling in parent:
        if isinstance(sibling.tag, str) and qname(sibling.tag)[1] == "channel" and sibling is not item:
            _channel_meta(sibling, meta)


class FeedItems:
    """The items of a well-formed feed, one by one; raises lxml's XMLSyntaxError where the XML breaks.

    :attr:`meta` holds the channel's title, link and description once the first item was read (or the
    document ended); :attr:`items` counts the items read so far (with or without a usable URL).
    """

    def __init__(self, stream: PeekableStream, ctx: Context, *, atom: bool) -> None:
        self.ctx = ctx
        self.atom = atom
        self.meta = DocMeta(kind=DocKind.FEED)
        self.items = 0
        self._cleaner = CleaningStream(stream, reporter=ctx.reporter, name=ctx.name)
        self._context = make_iterparse(self._cleaner, _ITEM_TAGS)
        self._elements = iter(self._context)

    def elements(self) -> Iterator[etree._Element]:
        """Each item element of a feed namespace, cleared (with what came before it) after use."""
        for _event, element in self._elements:
            if qname(element.tag)[0] not in CORE_NAMESPACES:
                continue
            if self.items == 0:
                _meta_from(element, self.meta)
            self.items += 1
            yield element
            element.clear(keep_tail=False)
            parent = element.getparent()
            if parent is not None:
                while element.getprevious() is not None:
                    del parent[0]
        root = self._context.root
        if root is not None:
            _channel_meta(root, self.meta)
            for child in root:
                if isinstance(child.tag, str) and qname(child.tag)[1] == "channel":
                    _channel_meta(child, self.meta)

    def line(self, element: etree._Element) -> int:
        return line_of(element) + self._cleaner.line_offset
