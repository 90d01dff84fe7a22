"""Feed -> sitemap: one entry per URL, the newest ``lastmod`` kept (sitemaps.org: a URL appears once).

Feeds repeat a URL when an item is updated or cross-posted; a sitemap lists each URL once.  Entries are
merged by ``loc`` keeping the first occurrence's position and the entry with the newest ``lastmod``;
the number of merged duplicates is reported (INFO ``duplicates-merged``).  The step runs only when the
input is a feed.  Feeds can be large (hundreds of megabytes): the kept entries are pickled into a spooled
temporary file (in memory up to a few megabytes), only their offsets and dates stay in memory.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterable, Iterator

from feedmap.context import Context
from feedmap.model import DocKind, Document, Entry

__all__ = ["dedupe_newest", "feed_to_sitemap"]


_SPOOL_IN_MEMORY = 4 << 20  # bytes of pickled entries held in memory before they go to a temporary file


def _newer(candidate: Entry, current: float | None) -> bool:
    """True when ``candidate`` is newer than the kept entry, whose lastmod's sort key is ``current``."""
    if candidate.lastmod is None:
        return False
    if current is None:
        return True
    return candidate.lastmod.sort_key() > current


def dedupe_newest(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """Entries with distinct locs, in first-seen order, each the one with the newest lastmod."""
    kept: dict[str, tuple[int, float | None]] = {}  # loc -> (offset of the kept entry, its lastmod's sort key)
    duplicates = 0
    with tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY) as spool:
        end = 0
        for entry in entries:
            current = kept.get(entry.loc)
            if current is not None:
                duplicates += 1
                if not _newer(entry, current[1]):
                    continue
            kept[entry.loc] = (end, entry.lastmod.sort_key() if entry.lastmod is not None else None)
            pickle.dump(entry, spool, protocol=pickle.HIGHEST_PROTOCOL)
            end = spool.tell()
        if duplicates:
            ctx.info("duplicates-merged", f"{duplicates} repeated URLs merged, the newest lastmod kept")
        for offset, _ in kept.values():
            spool.seek(offset)
            yield pickle.load(spool)  # our own temporary file, written just above


def feed_to_sitemap(doc: Document, ctx: Context) -> Document:
    """The feed's entries as a urlset: deduplicated by loc, newest lastmod kept; channel metadata kept."""
    meta = doc.meta.as_kind(DocKind.URLSET)
    result = Document(meta, dedupe_newest(doc.entries, ctx), diagnostics=doc.diagnostics)
    result.format = doc.format
    return result
