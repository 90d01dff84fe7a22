"""The store of a urlset's rendered records: pages of records, read back in order without a call per record.

sitemaps.org 0.9 (https://www.sitemaps.org/protocol.html) lists a URL once; the merge of repeated locs that a
urlset's writer runs (:mod:`feedmap.converters._records`) keeps each URL's record (its loc, lastmod and
origin, its ``<url>`` block, what was said rendering it, the fields it holds that a urlset cannot) until the
end.  :class:`RecordPages` keeps them in pages of up to 512 records, in the order they are added:
the first ten thousand or so (the entry spool's budgets) as they are, the others' pages, once full,
written to a scratch file as their columns (one pickle a page, never one a record) so memory stays flat.

An offset is its page's key and the record's place in the page; a held page's key is its number (even), a
written page's its byte offset in the scratch file (odd), so nothing is kept per written page and memory stays
flat however many URLs pass.  Whether a page is held is decided when it is started: the first pages, until
the budgets are reached (the page that reaches them is held too), then every page is written, each as its
length (8 bytes) and its pickled columns.  A repeat's replacement (:func:`merge_repeat`)
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
_WRITTEN = 1 << _SLOT_BITS  # the bit of a page's key, shifted, that says it goes to the scratch file
_LENGTH = 8  # bytes of a written page's length, before its pickled columns
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
        "_page_key",
        "_page_most",
        "_page_size",
        "_pages",
        "_pages_read",
        "_read",
        "_tail",
        "_written",
    )

    def __init__(self) -> None:
        self._pages: list[list[tuple[Any, ...]]] = []  # the pages held, in order; the written ones follow them
        self._page: list[tuple[Any, ...]] = []  # the page being filled
        self._page_key = 0  # its key, shifted: see the module's docstring
        self._page_bytes = 0
        self._held = 0  # bytes of the records held; -1: past the budget, every later full page written
        self._count = 0
        self._file: IO[bytes] | None = None
        self._written = 0  # bytes in the file
        self._tail = bytearray()  # the pages after those, not written yet
        self._read: dict[int, list[tuple[Any, ...]]] = {}  # a written page's byte offset -> its records, read back
        self._page_size = min(budgets._PAGE * _PAGES_OF_ENTRIES, _SLOTS + 1)
        self._page_most = self._at_once = budgets._CHUNK
        self._held_records, self._held_bytes = budgets._ENTRIES_IN_MEMORY, budgets._BYTES_IN_MEMORY
        self._pages_read = budgets._PAGES_DECODED

    def add(self, record: tuple[Any, ...], size: int) -> int:
        """Append ``record`` (``size``: about the bytes it takes); its offset."""
        page = self._page
        page.append(record)
        self._page_bytes += size
        offset = self._page_key | (len(page) - 1)
        if len(page) >= self._page_size or self._page_bytes >= self._page_most:
            self._close_page()
        return offset

    def _close_page(self) -> None:
        page, size = self._page, self._page_bytes
        self._count += len(page)
        self._page, self._page_bytes = [], 0
        if self._page_key & _WRITTEN == 0:  # a held page
            self._pages.append(page)
            self._held += size
            if self._held > self._held_bytes or self._count > self._held_records:
                self._held = -1
        else:
            import pickle  # only when a page goes to the scratch file

            data = pickle.dumps(_frozen_columns(page), protocol=pickle.HIGHEST_PROTOCOL)
            self._tail += len(data).to_bytes(_LENGTH, "little")
            self._tail += data
            if len(self._tail) >= self._at_once:
                self._write()
        self._page_key = self._next_key()

    def _next_key(self) -> int:
        """The key of the page started now, shifted: held while under the budgets, else written at the end."""
        if self._held >= 0:
            return (len(self._pages) << 1) << _SLOT_BITS
        return (((self._written + len(self._tail)) << 1) | 1) << _SLOT_BITS

    def get(self, offset: int) -> tuple[Any, ...]:
        """The record at ``offset``."""
        slot = offset & _SLOTS
        key = offset - slot
        if key == self._page_key:
            return self._page[slot]
        key >>= _SLOT_BITS
        if key & 1 == 0:
            return self._pages[key >> 1][slot]
        at = key >> 1
        page = self._read.get(at)
        if page is None:
            page = self._read_page(at)[0]
            if len(self._read) >= self._pages_read:
                del self._read[next(iter(self._read))]  # the oldest read
            self._read[at] = page
        return page[slot]

    def pages(self) -> Iterator[list[tuple[Any, ...]]]:
        """Every page, in order (the one being filled last): each record added once, none out of order."""
        yield from self._pages
        at = 0
        while at < self._written + len(self._tail):
            page, at = self._read_page(at)
            yield page
        if self._page:
            yield self._page

    def _read_page(self, at: int) -> tuple[list[tuple[Any, ...]], int]:
        """The written page at byte ``at`` of the scratch data, and the byte offset of the next one."""
        import pickle

        if at >= self._written:  # not written yet: a page is in the file or in the tail, never in both
            start = at - self._written
            length = int.from_bytes(self._tail[start : start + _LENGTH], "little")
            data: Any = self._tail[start + _LENGTH : start + _LENGTH + length]
        else:
            assert self._file is not None
            try:
                self._file.seek(at)
                length = int.from_bytes(self._file.read(_LENGTH), "little")
                data = self._file.read(length)
            except OSError as exc:
                raise scratch_error(_WHAT, exc) from exc
        # our own temporary file, written by _close_page
        return list(zip(*pickle.loads(data), strict=True)), at + _LENGTH + length

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
