"""``rss``: syndication feeds (RSS 0.9x/1.0/2.0, Atom 0.3/1.0), streamed with lxml, written as RSS 2.0.

sitemaps.org ("Other formats") accepts RSS 2.0 and Atom as sitemaps; an item is read as:

* ``loc`` from the item's ``link``, else from a ``guid`` that is a permalink (``isPermaLink`` defaults to
  true), else Atom ``link[@rel=alternate or no rel]``;
* ``lastmod`` from ``updated`` (Atom, ``dc:date``), ``published`` (``pubDate``) or Atom 0.3 ``modified``,
  read from the text as written so its offset and precision are kept;
* ``title``, ``description`` (summary) and ``keywords`` (category terms).

Reading (:mod:`feedmap.formats.feeds._feedread`, which the ``atom`` format shares) streams
(:mod:`feedmap.formats.feeds._stream`, items by :mod:`~feedmap.formats.feeds._item`): a
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

from typing import BinaryIO

from feedmap._core.context import Context
from feedmap._core.model import ENTRY_FIELDS, Document
from feedmap._xml import SITEMAP_NS
from feedmap.formats._registry import FormatSpec, Rendered
from feedmap.formats.ext import hooks, report_broken
from feedmap.formats.feeds._feedread import read
from feedmap.formats.feeds._vocab import ATOM_NS, DC_NS, RDF_NS

__all__ = ["FORMAT", "RSS_NAMESPACES", "RSS_TITLE_PREFIX", "read", "render", "write"]

#: What a derived channel title and description start with ("Pages of https://host/").
RSS_TITLE_PREFIX = "Pages of"
#: Every namespace an RSS item may use, by prefix (declared only when used).
RSS_NAMESPACES = {"atom": ATOM_NS, "dc": DC_NS, "sitemap": SITEMAP_NS}


def render(doc: Document, *, ctx: Context) -> Rendered:
    from feedmap.formats._namespaces import Namespaces
    from feedmap.formats.feeds._rssitem import rss_item
    from feedmap.formats.feeds._rsswrite import render_channel

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
    extensions=(".rss",),
    media_types=("application/rss+xml",),
    roots=(("*", "rss"), (RDF_NS, "RDF"), ("*", "feed")),
    priority=5,
    reader=read,
    writer=write,
    renderer=render,
    fields=frozenset(ENTRY_FIELDS) - {"type"},
    description="loc from link / permalink guid / Atom alternate; lastmod keeps its offset; the channel's "
    "title, link, description and self URL from the options",
)
