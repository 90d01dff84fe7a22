"""Feed -> sitemap: one entry per URL, the newest ``lastmod`` kept (sitemaps.org: a URL appears once).

Feeds repeat a URL when an item is updated or cross-posted; a sitemap lists each URL once.  Entries are
merged by ``loc`` keeping the first occurrence's position and the entry with the newest ``lastmod``
(:func:`feedmap.converters.merge_duplicates`: INFO ``loc-duplicate`` per repeated URL, INFO
``duplicates-merged`` with the total; kept entries spill to a temporary file).  :func:`feedmap.convert`
and :func:`feedmap.write` no longer call this step: they merge repeated URLs for every target but JSON
lines, whatever the inputs (see :func:`feedmap.converters._pipeline.plan`); it stays for code that calls it.
"""

from __future__ import annotations

from feedmap._core.context import Context
from feedmap._core.model import DocKind, Document
from feedmap.converters._duplicates import merge_duplicates

__all__ = ["feed_to_sitemap"]


def feed_to_sitemap(doc: Document, ctx: Context) -> Document:
    """The feed's entries as a urlset: deduplicated by loc, newest lastmod kept; channel metadata kept."""
    meta = doc.meta.as_kind(DocKind.URLSET)
    result = Document(meta, merge_duplicates(doc.entries, ctx), diagnostics=doc.diagnostics)
    result.format = doc.format
    return result
