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
from typing import Any

from feedmap._dates import W3CDate
from feedmap.context import Context
from feedmap.model import DocKind, Document, Entry, Position, new_entry

__all__ = ["dedupe_newest", "feed_to_sitemap"]


_SPOOL_IN_MEMORY = 4 << 20  # bytes of pickled entries held in memory before they go to a temporary file


def _newer(candidate: Entry, current: Entry) -> bool:
    if candidate.lastmod is None:
        return False
    if current.lastmod is None:
        return True
    return candidate.lastmod.sort_key() > current.lastmod.sort_key()


#: An entry as pickled: its fields, the lastmod as its text and the origin as (source, line) (plain values
#: pickle twice as fast as the dataclass).
_Frozen = tuple[Any, ...]


def _freeze(entry: Entry) -> _Frozen:
    lastmod = entry.lastmod.text if entry.lastmod is not None else None
    origin = tuple(entry.origin) if entry.origin is not None else None
    return (
        entry.loc,
        lastmod,
        entry.changefreq,
        entry.priority,
        entry.title,
        entry.description,
        entry.keywords,
        entry.type,
        entry.images,
        entry.alternates,
        entry.extras,
        origin,
    )


def _thaw(frozen: _Frozen) -> Entry:
    loc, lastmod, changefreq, priority, title, description, keywords, kind, images, alternates, extras, origin = frozen
    entry = new_entry(
        loc,
        W3CDate(lastmod) if lastmod is not None else None,
        changefreq,
        priority,
        images,
        alternates,
        extras,
        Position(*origin) if origin is not None else None,
    )
    entry.title, entry.description, entry.keywords, entry.type = title, description, keywords, kind
    return entry


class _Spool:
    """Entries pickled one after another into a spooled temporary file, read back by offset."""

    def __init__(self) -> None:
        self._file = tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY)  # noqa: SIM115 (closed by close)
        self._end = 0
        self._at_end = True  # no seek before appending unless a get moved away (a seek flushes the buffer)

    def add(self, entry: Entry) -> int:
        """Append ``entry``; its offset."""
        offset = self._end
        if not self._at_end:
            self._file.seek(offset)
            self._at_end = True
        pickle.dump(_freeze(entry), self._file, protocol=pickle.HIGHEST_PROTOCOL)
        self._end = self._file.tell()
        return offset

    def get(self, offset: int) -> Entry:
        self._at_end = False
        self._file.seek(offset)
        return _thaw(pickle.load(self._file))  # our own temporary file, written by add

    def close(self) -> None:
        self._file.close()


def dedupe_newest(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """Entries with distinct locs, in first-seen order, each the one with the newest lastmod.

    Only each loc's offset in the spool stays in memory; a repeated loc reads the kept entry back.
    """
    kept: dict[str, int] = {}
    duplicates = 0
    spool = _Spool()
    try:
        for entry in entries:
            offset = kept.get(entry.loc)
            if offset is not None:
                duplicates += 1
                if not _newer(entry, spool.get(offset)):
                    continue
            kept[entry.loc] = spool.add(entry)
        if duplicates:
            ctx.info("duplicates-merged", f"{duplicates} repeated URLs merged, the newest lastmod kept")
        for offset in kept.values():
            yield spool.get(offset)
    finally:
        spool.close()


def feed_to_sitemap(doc: Document, ctx: Context) -> Document:
    """The feed's entries as a urlset: deduplicated by loc, newest lastmod kept; channel metadata kept."""
    meta = doc.meta.as_kind(DocKind.URLSET)
    result = Document(meta, dedupe_newest(doc.entries, ctx), diagnostics=doc.diagnostics)
    result.format = doc.format
    return result
