"""The store of a urlset's rendered records: pages of records, read back in order without a call per record.

sitemaps.org 0.9 (https://www.sitemaps.org/protocol.html) lists a URL once; the merge of repeated locs that a
urlset's writer runs (:mod:`feedmap.converters._records`) keeps each URL's record (its loc, lastmod and
origin, its ``<url>`` block, what was said rendering it, the fields it holds that a urlset cannot) until the
end.  :class:`RecordPages` keeps them in pages of up to 512 records, in the order they are added:
the first ten thousand or so (the entry spool's budgets) as they are, the others' pages, once full,
written to a scratch file as their columns (one pickle a page, never one a record) so memory stays flat.

An offset is a page's number and the record's place in it: a repeat's replacement (:func:`merge_repeat`)
is added like any record and takes the kept one's slot in the table of keys.  Read back in order
(:meth:`RecordPages.pages`), when no URL repeated, each page comes whole; :meth:`RecordPages.get` reads any
record (a page read back keeps the lastmod's text and the origin's tuple, as
:func:`feedmap.converters._records`' ``fetch`` takes them).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import IO, Any

from feedmap._io.scratch import scratch_error, scratch_file
from feedmap.converters import _duplicates as budgets

__all__ = ["RecordPages"]

#: The budgets are the entry spool's (:class:`feedmap.converters._duplicates._Spool`), read when a store is
#: made: records held as they are (``_ENTRIES_IN_MEMORY``, up to ``_BYTES_IN_MEMORY`` of their sizes), bytes
#: of a page and of the pages gathered before a write (``_CHUNK``), pages read back kept (``_PAGES_DECODED``);
#: a page holds at most this many of the spool's pages of entries (records are smaller than entries).
_PAGES_OF_ENTRIES = 4
_SLOT_BITS = 12  # an offset: the page's number, shifted, and the record's place in the page
_SLOTS = (1 << _SLOT_BITS) - 1
_WHAT = "file for repeated URLs"


def _frozen_columns(page: list[tuple[Any, ...]]) -> tuple[list[Any], ...]:
    """A page's records as columns to pickle: the lastmod as its text (a plain entry's record holds its text
    already), the origin as a plain tuple."""
    locs, lastmods, origins, texts, said, unheld = (list(column) for column in zip(*page, strict=True))
    lastmods = [lastmod if lastmod is None or lastmod.__class__ is str else lastmod.text for lastmod in lastmods]
    if origins.count(None) != len(origins):
        origins = [None if origin is None else (origin[0], origin[1]) for origin in origins]
    return locs, lastmods, origins, texts, said, unheld


class RecordPages:
    """Records (6-tuples) by offset, in pages; see the module's docstring."""

    __slots__ = (
        "_at_once",
        "_count",
        "_file",
        "_held",
        "_held_bytes",
        "_held_records",
        "_page",
        "_page_bytes",
        "_page_most",
        "_page_size",
        "_pages",
        "_pages_read",
        "_read",
        "_spilled",
        "_tail",
        "_written",
    )

    def __init__(self) -> None:
        self._pages: list[list[tuple[Any, ...]] | None] = []  # None: written to the scratch file
        self._spilled: dict[int, tuple[int, int]] = {}  # page number -> (byte offset, length) in the scratch data
        self._page: list[tuple[Any, ...]] = []  # the page being filled, number len(self._pages)
        self._page_bytes = 0
        self._held = 0  # bytes of the records held; -1: past the budget, every later full page written
        self._count = 0
        self._file: IO[bytes] | None = None
        self._written = 0  # bytes in the file
        self._tail = bytearray()  # the pages after those, not written yet
        self._read: dict[int, list[tuple[Any, ...]]] = {}  # page number -> its records, read back
        self._page_size = min(budgets._PAGE * _PAGES_OF_ENTRIES, _SLOTS + 1)
        self._page_most = self._at_once = budgets._CHUNK
        self._held_records, self._held_bytes = budgets._ENTRIES_IN_MEMORY, budgets._BYTES_IN_MEMORY
        self._pages_read = budgets._PAGES_DECODED

    def add(self, record: tuple[Any, ...], size: int) -> int:
        """Append ``record`` (``size``: about the bytes it takes); its offset."""
        page = self._page
        page.append(record)
        self._page_bytes += size
        offset = (len(self._pages) << _SLOT_BITS) | (len(page) - 1)
        if len(page) >= self._page_size or self._page_bytes >= self._page_most:
            self._close_page()
        return offset

    def _close_page(self) -> None:
        page, number = self._page, len(self._pages)
        self._count += len(page)
        if self._held >= 0:
            self._held += self._page_bytes
            if self._held <= self._held_bytes and self._count <= self._held_records:
                self._pages.append(page)
                self._page, self._page_bytes = [], 0
                return
            self._held = -1
        import pickle  # only when a page goes to the scratch file

        data = pickle.dumps(_frozen_columns(page), protocol=pickle.HIGHEST_PROTOCOL)
        self._spilled[number] = (self._written + len(self._tail), len(data))
        self._tail += data
        self._pages.append(None)
        self._page, self._page_bytes = [], 0
        if len(self._tail) >= self._at_once:
            self._write()

    def get(self, offset: int) -> tuple[Any, ...]:
        """The record at ``offset``."""
        number, slot = offset >> _SLOT_BITS, offset & _SLOTS
        if number == len(self._pages):
            return self._page[slot]
        page = self._pages[number]
        if page is None:
            page = self._read.get(number)
            if page is None:
                page = self._read_page(number)
                if len(self._read) >= self._pages_read:
                    del self._read[next(iter(self._read))]  # the oldest read
                self._read[number] = page
        return page[slot]

    def pages(self) -> Iterator[list[tuple[Any, ...]]]:
        """Every page, in order (the one being filled last): each record added once, none out of order."""
        for number, page in enumerate(self._pages):
            yield page if page is not None else self._read_page(number)
        if self._page:
            yield self._page

    def _read_page(self, number: int) -> list[tuple[Any, ...]]:
        import pickle

        at, length = self._spilled[number]
        if at >= self._written:  # not written yet
            start = at - self._written
            data: Any = self._tail[start : start + length]
        else:
            assert self._file is not None
            try:
                self._file.seek(at)
                data = self._file.read(length)
            except OSError as exc:
                raise scratch_error(_WHAT, exc) from exc
        # our own temporary file, written by _close_page
        return list(zip(*pickle.loads(data), strict=True))

    def _write(self) -> None:
        try:  # a temporary folder that is missing or full: said as such, not as a traceback
            if self._file is None:
                self._file = scratch_file("feedmap-dedupe-", _WHAT)
            self._file.seek(self._written)
            self._file.write(self._tail)
            self._file.flush()  # a full disk shows here, not at a later read
        except OSError as exc:
            raise scratch_error(_WHAT, exc) from exc
        self._written += len(self._tail)
        self._tail = bytearray()

    def close(self) -> None:
        self._pages, self._page, self._read, self._tail = [], [], {}, bytearray()
        if self._file is not None:
            with contextlib.suppress(OSError):  # a full disk: the data not flushed is dropped, not raised again
                self._file.close()
            self._file = None
