"""Sitemap -> ROR RSS: entries carried with their title, description and keywords when present.

ROR (Resources of a Resource, rorweb.com: RSS 2.0 items with ``ror:*`` elements): the channel and its
header item name the site ("ROR Sitemap for https://host/"); each page becomes an item whose
``title``/``description``/``ror:keywords`` come from the entry (filled from the pages themselves by the
enrichment step of a later version).  The channel link defaults to the site of the first URL; a title and
description are derived from it unless the input or the options give them.
Entries without a title are reported once (INFO ``title-missing``): the ROR writer uses the URL as the
item title, since RSS 2.0 wants a title or a description in every item; the feed readers read a title that
is the item's own URL as no title, so a round trip does not gain one and ``--enrich`` can still fill it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from feedmap._core.context import Context
from feedmap._core.model import DocKind, Document, Entry
from feedmap._core.wording import counted

__all__ = ["CountUntitled", "say_untitled", "sitemap_to_ror"]


class CountUntitled(Iterator[Entry]):
    """The entries passed on, those without a title or description counted and said at the end
    (:func:`say_untitled`).  Not started yet, a writer that merges rendered records may take the count over
    (:attr:`entries` is what it counts, :meth:`take` marks it taken)."""

    def __init__(self, entries: Iterable[Entry], ctx: Context) -> None:
        self.entries, self.ctx = entries, ctx
        self._run: Iterator[Entry] | None = None

    @property
    def started(self) -> bool:
        return self._run is not None

    def take(self) -> None:
        """Mark the count as made by the writer instead of by iterating this."""
        assert self._run is None
        self._run = iter(())

    def __iter__(self) -> Iterator[Entry]:
        return self if self._run is None else self._run

    def __next__(self) -> Entry:
        if self._run is None:
            self._run = _count_untitled(self.entries, self.ctx)
        return next(self._run)


def _count_untitled(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    untitled = 0
    for entry in entries:
        if entry.title is None and entry.description is None:
            untitled += 1
        yield entry
    say_untitled(untitled, ctx)


def say_untitled(untitled: int, ctx: Context) -> None:
    """INFO ``title-missing`` for ``untitled`` entries without a title or description (none: nothing said)."""
    if untitled:
        ctx.info(
            "title-missing",
            f"{counted(untitled, 'entry', 'entries')} without a title or description: the item title is the URL "
            "(RSS needs a title or a description; read back, it is no title)",
        )


def sitemap_to_ror(doc: Document, ctx: Context) -> Document:
    meta = doc.meta.as_kind(DocKind.FEED)
    result = Document(meta, CountUntitled(doc.entries, ctx), diagnostics=doc.diagnostics)
    result.format = doc.format
    return result
