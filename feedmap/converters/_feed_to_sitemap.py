"""Feed -> sitemap: one entry per URL, the newest ``lastmod`` kept (sitemaps.org: a URL appears once).

Feeds repeat a URL when an item is updated or cross-posted; a sitemap lists each URL once.  Entries are
merged by ``loc`` keeping the first occurrence's position and the entry with the newest ``lastmod``
(:func:`feedmap.converters._steps.merge_duplicates`: INFO ``loc-duplicate`` per repeated URL, INFO
``duplicates-merged`` with the total; kept entries spill to a temporary file).  :func:`feedmap.convert`
and :func:`feedmap.write` no longer call this step: they merge repeated URLs for every target but JSON
lines, whatever the inputs (see :func:`feedmap.converters._pipeline.plan`); it stays for code that calls it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from feedmap._core.context import Context
from feedmap._core.model import DocKind, Document, Entry
from feedmap.converters._duplicates import merged_entries

__all__ = ["dedupe_newest", "feed_to_sitemap"]


def dedupe_newest(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """Entries with distinct locs, in first-seen order, each the one with the newest lastmod."""
    return merged_entries(entries, ctx)


def feed_to_sitemap(doc: Document, ctx: Context) -> Document:
    """The feed's entries as a urlset: deduplicated by loc, newest lastmod kept; channel metadata kept."""
    meta = doc.meta.as_kind(DocKind.URLSET)
    result = Document(meta, dedupe_newest(doc.entries, ctx), diagnostics=doc.diagnostics)
    result.format = doc.format
    return result
