"""``sitemap``: the sitemaps.org 0.9 ``<urlset>`` with Google's image, news and video extensions and hreflang links.

Spec: https://www.sitemaps.org/protocol.html (XSD http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd),
Google image sitemaps (namespace ``http://www.google.com/schemas/sitemap-image/1.1``), news sitemaps
(``http://www.google.com/schemas/sitemap-news/0.9``), video sitemaps (``http://www.google.com/schemas/sitemap-video/1.1``)
and hreflang alternates (``<xhtml:link rel="alternate" hreflang=".." href=".."/>``), each read and written through
the extension hooks of :mod:`feedmap.formats.ext` (as third-party extensions are).

Reading streams with ``iterparse`` (:mod:`feedmap.formats.sitemap._read`): any prefix, children in any
order, elements of other namespaces kept verbatim in ``Entry.extras`` under their Clark name.  A sitemap
index given as a sitemap is read as the index it is (``read-as-index``).

Writing emits UTF-8 with nothing before ``<?xml``, children in XSD order (``loc, lastmod, changefreq,
priority``, then extensions; image children ``loc, caption, geo_location, title, license``), and declares only
the namespaces it uses (:mod:`feedmap.formats._namespaces`): on the root those of its first entries (of every
entry when the merge of repeated URLs renders them all before writing, the default), a namespace first used
later on the element that uses it (:mod:`feedmap.formats._xmlwrite`: what XML 1.0 cannot hold is dropped
and reported, ``character-dropped``; an extra is written only when it is well-formed elements named by its
key, ``invalid-extra``, and not an element of a feed's vocabulary, ``extra-dropped``, unless
``keep_feed_extras``; a priority is a short ``xsd:decimal``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO

from feedmap._core.context import Context
from feedmap._core.limits import MAX_NEWS
from feedmap._core.model import DocKind, DocMeta, Document, Entry
from feedmap._core.urls import is_uri
from feedmap._io.sources import Source
from feedmap._xml import escape_text, peek_root
from feedmap.formats import _registry as registry
from feedmap.formats._namespaces import Namespaces, extension_elements, rendered_ahead
from feedmap.formats._output import SizeWatch, output_url, write_blocks
from feedmap.formats._registry import FormatSpec, Rendered
from feedmap.formats._xmlwrite import (
    ROOT_NAMESPACES,
    format_priority,
    plain_uri,
    report_unwritable,
    root_open_tag,
    xml_extras,
    xsd_lastmod,
    xsd_shape,
)
from feedmap.formats.ext import Hooks, hooks, report_broken
from feedmap.formats.sitemap._read import check_root, iter_entries

__all__ = ["EMPTY", "FOOTER", "FORMAT", "Block", "blocks", "header", "read", "render", "write"]


def read(source: Source, *, ctx: Context) -> Document:
    report_broken(ctx)
    root = peek_root(source.stream)
    if root is not None and root.local == "sitemapindex":
        ctx.info("read-as-index", "this is a sitemap index; it is read as one")
        reader = registry.get("sitemapindex").reader
        assert reader is not None  # the index format reads
        doc = reader(source, ctx=ctx)
        doc.format = "sitemapindex"
        return doc
    namespace = check_root(root, "urlset", ctx)
    return Document(
        DocMeta(kind=DocKind.URLSET),
        iter_entries(source, ctx, namespace, "url"),
        diagnostics=ctx.reporter.diagnostics,
    )


def _url_block(
    entry: Entry, ctx: Context, dropped: set[str], table: Hooks, namespaces: Namespaces, encode: bool
) -> str:
    """One ``<url>``; ``encode``: locs are written as URIs (no ``--keep-urls``), so one that is a URI already
    is written as it is, without the call through :func:`output_url`."""
    loc_read = entry.loc
    if plain_uri(loc_read) is not None:  # loc_text, inlined: this runs once per URL written
        loc = loc_read
    else:
        url = loc_read if encode and is_uri(loc_read) else output_url(loc_read, ctx, entry)
        loc = escape_text(url)
        if loc is not url:
            report_unwritable(url, "loc", loc_read, ctx)
    lastmod, changefreq, priority = entry.lastmod, entry.changefreq, entry.priority
    if lastmod is not None:
        text = lastmod.text
        if xsd_shape(text) is None:
            text = xsd_lastmod(lastmod, ctx, loc_read)
        parts = ["<url><loc>", loc, "</loc><lastmod>", text, "</lastmod>"]
    else:
        parts = ["<url><loc>", loc, "</loc>"]
    if changefreq is not None:
        parts += ["<changefreq>", changefreq.value, "</changefreq>"]
    if priority is not None:
        priority_text = format_priority(priority, ctx, loc_read)
        if priority_text is not None:
            parts += ["<priority>", priority_text, "</priority>"]
    for step in table.tail:  # images, alternates, news, videos, then third-party extensions
        if getattr(entry, step.field):
            parts += extension_elements(entry, ctx, namespaces, (step,))
    if entry.extras:
        parts += xml_extras(entry, dropped, ctx, namespaces, claimed=table.keys)
    parts.append("</url>\n")
    return "".join(parts)


#: What closes a urlset, and the ``empty-document`` warning of one without a ``<url>``.
FOOTER = "</urlset>\n"
EMPTY = "no entries: wrote an empty <urlset> (valid for Google, not for the XSD)"

#: One ``<url>`` of an entry: ``block(entry, ctx, dropped)`` (``dropped``: the text extras said dropped already).
Block = Callable[[Entry, Context, set[str]], str]


class _NewsCount:
    """The ``news:news`` written: Google News reads at most 1,000 a sitemap, so passing them is said once
    (``news-too-many``), unless the files of a split hold at most 1,000 URLs each."""

    def __init__(self, ctx: Context) -> None:
        self.ctx, self.count = ctx, 0

    def add(self) -> None:
        self.count += 1
        max_urls = self.ctx.options.max_urls
        if self.count == MAX_NEWS + 1 and not (max_urls is not None and max_urls <= MAX_NEWS):
            self.ctx.warning(
                "news-too-many",
                f"more than {MAX_NEWS:,} URLs with a news:news written, and Google News reads at most {MAX_NEWS:,} a "
                f"sitemap: write them into files of at most {MAX_NEWS:,} URLs (max_urls, into a directory)",
            )


def blocks(ctx: Context) -> tuple[Namespaces, Block]:
    """The namespaces of a urlset (what its root declares: :func:`header`, once the first entries, or all, are
    rendered) and the function rendering one ``<url>``: what :func:`render` renders a document with, and what a
    merge that keeps rendered records renders each entry kept with (:mod:`feedmap.converters._records`).  The
    extensions that failed to load are said here."""
    report_broken(ctx)
    table = hooks("sitemap")
    namespaces = Namespaces(ROOT_NAMESPACES, hooks=table)
    options = ctx.options
    encode = not (options.keep_urls and not options.encode_urls)  # as output_url decides

    news = _NewsCount(ctx)

    def block(entry: Entry, ctx: Context, dropped: set[str]) -> str:
        if entry.news is not None:
            news.add()
        return _url_block(entry, ctx, dropped, table, namespaces, encode)

    return namespaces, block


def header(namespaces: Namespaces, ctx: Context) -> str:
    """The XML declaration and the root's start tag, declaring the namespaces used so far (later uses declare on
    the element)."""
    return root_open_tag("urlset", namespaces.close_root(), ctx)


def render(doc: Document, *, ctx: Context) -> Rendered:
    """The ``<urlset>`` in parts: the root's start tag (declaring what the first entries, rendered before it, use),
    one ``<url>`` per entry, the end tag."""
    namespaces, block = blocks(ctx)
    dropped: set[str] = set()
    if getattr(doc.entries, "one_at_a_time", False):  # each entry given as its block is asked for (the text lane's
        items = ((entry, block(entry, ctx, dropped)) for entry in doc.entries)  # split): none to render ahead
        return Rendered(header(namespaces, ctx), items, FOOTER, EMPTY)
    ahead = rendered_ahead(iter(doc.entries), lambda entry, context: block(entry, context, dropped), ctx)
    return Rendered(header(namespaces, ctx), ahead, FOOTER, EMPTY)


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    return write_blocks(sink, render(doc, ctx=ctx), SizeWatch(ctx, "URLs"))


FORMAT = FormatSpec(
    name="sitemap",
    title="XML sitemap (sitemaps.org 0.9 urlset, image extension, hreflang)",
    extensions=(".xml",),
    roots=(("*", "urlset"),),
    priority=10,
    reader=read,
    writer=write,
    renderer=render,
    fields=frozenset({"loc", "lastmod", "changefreq", "priority", "images", "alternates", "news", "videos", "extras"}),
    description="reads 0.9, https and no-namespace variants and Google 0.84; any prefix, any order",
)
