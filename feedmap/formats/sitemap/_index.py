"""``sitemapindex``: the sitemaps.org 0.9 sitemap index (``<sitemapindex>`` of ``<sitemap>`` entries).

Spec: https://www.sitemaps.org/protocol.html#index (XSD siteindex.xsd): each ``<sitemap>`` has a ``loc``
and an optional ``lastmod``; an index lists at most 50,000 sitemaps.

Reading yields the index's own entries (loc, lastmod), as a document of kind ``index``.  Following the
children (mapped URL prefixes, ``file:`` URLs, nested indexes up to a depth cap, loops, scope) is not this
module's: it is a step of its own (:mod:`feedmap._web.follow`) that the API runs on an index unless
``Options.follow`` is False.

Writing emits an index with one ``<sitemap>`` per entry (loc and lastmod; other fields are dropped with
an INFO diagnostic).  Writers never nest indexes.
"""

from __future__ import annotations

from typing import BinaryIO

from feedmap._core.context import Context
from feedmap._core.model import DocKind, DocMeta, Document, Entry
from feedmap._io.sources import Source
from feedmap._xml import peek_root
from feedmap.formats._output import SizeWatch, write_blocks
from feedmap.formats._registry import FormatSpec, Rendered
from feedmap.formats._xmlwrite import loc_text, root_open_tag, xml_extras, xsd_lastmod
from feedmap.formats.sitemap._read import check_root, iter_entries

__all__ = ["FORMAT", "read", "write"]


def read(source: Source, *, ctx: Context) -> Document:
    """The index's own entries (a child's loc and lastmod each), as a document of kind ``index``."""
    root = peek_root(source.stream)
    namespace = check_root(root, "sitemapindex", ctx)
    entries = iter_entries(source, ctx, namespace, "sitemap")
    return Document(DocMeta(kind=DocKind.INDEX), entries, diagnostics=ctx.reporter.diagnostics)


def _sitemap_block(entry: Entry, ctx: Context, dropped: set[str]) -> str:
    parts = ["<sitemap><loc>", loc_text(entry, ctx), "</loc>"]
    if entry.lastmod is not None:
        parts += ["<lastmod>", xsd_lastmod(entry.lastmod, ctx, entry.loc), "</lastmod>"]
    if entry.extras:
        parts += xml_extras(entry, dropped, ctx)
    parts.append("</sitemap>\n")
    return "".join(parts)


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    dropped: set[str] = set()
    items = ((entry, _sitemap_block(entry, ctx, dropped)) for entry in doc.entries)
    header = root_open_tag("sitemapindex", "", ctx)
    rendered = Rendered(header, items, "</sitemapindex>\n", "no entries: wrote an empty <sitemapindex>")
    return write_blocks(sink, rendered, SizeWatch(ctx, "sitemaps"))


FORMAT = FormatSpec(
    name="sitemapindex",
    title="XML sitemap index (sitemaps.org 0.9 sitemapindex)",
    extensions=(),
    roots=(("*", "sitemapindex"),),
    priority=10,
    reader=read,
    writer=write,
    fields=frozenset({"loc", "lastmod", "extras"}),
    description="reading follows children (mapped URL prefixes, file: URLs) unless following is off",
)
