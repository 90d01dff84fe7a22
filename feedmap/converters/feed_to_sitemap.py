"""Feed -> sitemap: one entry per URL, the newest ``lastmod`` kept (sitemaps.org: a URL appears once).

Feeds repeat a URL when an item is updated or cross-posted; a sitemap lists each URL once.  Entries are
merged by ``loc`` keeping the first occurrence's position and the entry with the newest ``lastmod``;
the number of merged duplicates is reported (INFO ``duplicates-merged``).  Feeds are small, so the
distinct entries are held in memory; the step runs only when the input is a feed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from feedmap.context import Context
from feedmap.model import DocKind, Document, Entry

__all__ = ["dedupe_newest", "feed_to_sitemap"]


def _newer(candidate: Entry, current: Entry) -> bool:
    if candidate.lastmod is None:
        return False
    if current.lastmod is None:
        return True
    return candidate.lastmod.sort_key() > current.lastmod.sort_key()


def dedupe_newest(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """Entries with distinct locs, in first-seen order, each the one with the newest lastmod."""
    kept: dict[str, Entry] = {}
    duplicates = 0
    for entry in entries:
        current = kept.get(entry.loc)
        if current is None:
            kept[entry.loc] = entry
            continue
        duplicates += 1
        if _newer(entry, current):
            kept[entry.loc] = entry
    if duplicates:
        ctx.info("duplicates-merged", f"{duplicates} repeated URLs merged, the newest lastmod kept")
    yield from kept.values()


def feed_to_sitemap(doc: Document, ctx: Context) -> Document:
    """The feed's entries as a urlset: deduplicated by loc, newest lastmod kept; channel metadata kept."""
    meta = doc.meta.as_kind(DocKind.URLSET)
    result = Document(meta, dedupe_newest(doc.entries, ctx), diagnostics=doc.diagnostics)
    result.format = doc.format
    return result
