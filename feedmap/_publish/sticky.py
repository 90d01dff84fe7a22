"""Publishing that rewrites only what changed: each URL kept in the file that held it.

Spec: https://www.sitemaps.org/protocol.html ("Using Sitemap index files": a file holds at most 50,000 URLs and
52,428,800 bytes; the index gives each file the ``lastmod`` of its newest change, so that a crawler fetches again
only the files that changed).  A fresh cut (:mod:`feedmap._publish.split`) writes the entries in order into file
1, 2, ...: one URL removed near the start moves every later URL one place back, and every later file changes.
When the directory holds a previous run of the same set (:mod:`feedmap._publish.previous`: its index and files,
read back), :class:`Placement` keeps each URL in the file that held it instead:

* an entry whose URL was in file ``n`` goes into file ``n``, unless the entries before it in the input filled
  ``n`` already (the block would pass either limit of the file: ``max_urls``, or its bytes with its own start
  and end; a block larger than a file on its own is written alone, ``entry-too-large``, as in a fresh cut): it
  then moves, as a new URL;
* new URLs (and moved ones), in input order, go into the last file (the highest number the previous index
  named) after its own entries, while they fit; the first that does not fit, and all after it, into new files
  numbered on from the last, cut as a fresh cut cuts;
* each file holds its entries in input order (the last file's own and the new ones it took, interleaved in input
  order); a file left without an entry is not written, so the index no longer names it and it is removed (its
  number is taken again only by the last file, which takes new URLs even when it lost its own).  When no URL of
  the previous run is in the input, the files are cut afresh, from 1.

The files are written, compared and put in place by the :class:`~feedmap._publish.publish.Publisher` as a
fresh cut's are: a file whose bytes did not change is left as it is (its modification time kept), the index is
written last, the files it no longer names are removed.  So the output is a function of the input (its
entries, in order, after the run's steps), the options, and which URLs each file of the previous run holds (not
their order, bytes or other fields): the same input into the same directory gives the same bytes, and a run
given the input of the run before writes nothing.  One URL removed and ten added rewrite the file that held it,
the last file (and a new one when it fills), and the index.

Finding the file of each URL: the input mostly follows the order of the previous run's files, so each URL is
first compared with the one after the last found (:meth:`Placement._number`); only the others are looked up in
the previous run's table (a dict, a compact table, then SQLite: :mod:`feedmap._io.seen_keys`).
Memory stays flat: the blocks of the files that are not the last are held per file in a
:class:`~feedmap._publish.spools.BlockSpool` (memory, then one temporary file) and copied into their files at the
end, the last file's entries and the new ones in a :class:`~feedmap._publish.spools.RecordSpool`, read twice at
the end (the last file, then the new files).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from feedmap._core.dates import W3CDate
from feedmap._core.model import Entry
from feedmap._publish.previous import Previous
from feedmap._publish.scope import ScopeCheck
from feedmap._publish.split import _newer, _Writer
from feedmap._publish.spools import BlockSpool, RecordSpool

__all__ = ["Placement"]

#: How many places ahead a key found out of order may be for the key expected next to move past it.
_RESYNC = 64

#: A record of the last file and the new entries: whether it is the last file's own, its loc, lastmod (text)
#: and block.
_Record = tuple[bool, str, "str | None", str]


@dataclass(slots=True)
class _Kept:
    """What a file of the previous run holds so far this run."""

    room: int
    count: int = 0
    size: int = 0
    newest: W3CDate | None = None


class Placement:
    """Each block routed to the file its URL was in (see the module documentation); :meth:`finish` writes the
    files with ``writer``."""

    def __init__(self, writer: _Writer, previous: Previous, key: Callable[[str], str]) -> None:
        self._writer = writer
        self._previous = previous
        self._places = previous.places
        self._order = iter(previous.keys)
        self._expected: str | None = next(self._order, None)  # the key after the last one found, in the files' order
        self._at = 0  # its place
        self._key = key
        self._last = previous.numbers[-1]
        self._kept = {number: _Kept(writer.room_of(number)) for number in previous.numbers}
        self._max_urls = writer.where.max_urls
        self._blocks = BlockSpool()
        self._tail = RecordSpool()  # the last file's own entries and the new ones, in input order
        self._total = 0

    def add_all(self, items: Iterator[tuple[Entry, str]], inside: ScopeCheck) -> tuple[int, str]:
        """Each block routed in turn; how many entries' URLs are not ``inside`` the files' scope, and the
        first of them."""
        outside = 0
        first = ""
        add = self.add_block
        for entry, block in items:
            loc = entry.loc
            if not inside(loc):
                outside += 1
                first = first or loc
            add(loc, block, entry.lastmod)
        return outside, first

    def add_block(self, loc: str, block: str, lastmod: W3CDate | None = None) -> None:
        """One block, into the file its URL was in when it fits there, else with the new ones."""
        length = len(block) if block.isascii() else len(block.encode("utf-8"))
        self._total += 1
        number = self._number(self._key(loc))
        kept = self._kept.get(number) if number is not None else None
        when = lastmod.text if lastmod is not None else None
        if kept is not None and (not kept.count or (kept.count < self._max_urls and kept.size + length <= kept.room)):
            kept.count += 1
            kept.size += length
            if number == self._last:  # written at the end, with the new entries it takes
                self._tail.add((True, loc, when, block), length)
                return
            assert number is not None
            if length > kept.room:
                self._writer.too_large(loc, length, self._writer.where.name(number))
            if lastmod is not None and (kept.newest is None or _newer(lastmod, kept.newest)):
                kept.newest = lastmod
            self._blocks.add(number, block, length)
            return
        self._tail.add((False, loc, when, block), length)

    def _number(self, key: str) -> int | None:
        """The number of the file holding ``key`` in the previous run, or None.  The input mostly follows the
        files' order: the key expected next is compared first; any other is looked up, and the one expected moves
        past it when it is a few places ahead (the keys between were removed, or come later in the input)."""
        if key == self._expected:
            place = self._at
            self._expected = next(self._order, None)
            self._at += 1
            return self._previous.number_at(place)
        found = self._places.get(key)
        if found is None:
            return None
        if 0 < found - self._at < _RESYNC:
            for _ in range(found + 1 - self._at):
                self._expected = next(self._order, None)
            self._at = found + 1
        return self._previous.number_at(found)

    def fits(self, count: int, length: int) -> bool:
        """Blocks are placed one by one: never written at once."""
        return False

    def add_many(self, blocks: str, count: int, length: int) -> None:
        raise AssertionError("blocks are placed one by one (fits() is False)")

    def finish(self) -> None:
        """Write every file: those of the previous run that keep entries, by number, then the last, then the
        new ones; none left open."""
        writer = self._writer
        if not any(kept.count for kept in self._kept.values()):  # nothing kept: a fresh cut
            self._cut(record for record in self._tail)
            if writer.out is None:
                writer.start()  # no entry at all: one empty file, as a fresh cut writes
            writer.finish()
            return
        for number, kept in sorted(self._kept.items()):
            if number == self._last or not kept.count:
                continue
            writer.start(number)
            writer.copy(self._blocks.chunks(number))
            writer.parts[-1].newest = kept.newest
            writer.finish()
        writer.total += self._total - self._tail.count  # the tail's are counted as they are written
        taken = self._fill_last()
        writer.next_number = self._last + 1
        self._cut(self._moved(taken))
        if writer.out is not None:
            writer.finish()

    def _fill_last(self) -> int:
        """Write the last file: its own entries and the new ones that fit after them, in input order; how
        many new ones it took."""
        writer = self._writer
        last = self._kept[self._last]
        count, size, room = last.count, last.size, last.room
        taking = True
        taken = 0
        for own, loc, when, block in self._tail:
            length = len(block) if block.isascii() else len(block.encode("utf-8"))
            if not own:
                if not taking or (count and (count >= self._max_urls or size + length > room)):
                    taking = False
                    continue
                count += 1
                size += length
                taken += 1
            if writer.out is None:
                writer.start(self._last)
            writer.put(loc, block, length, W3CDate(when) if when is not None else None)
        if writer.out is not None:
            writer.finish()
        return taken

    def _moved(self, taken: int) -> Iterator[_Record]:
        """The new entries the last file did not take, in input order."""
        skipped = 0
        for record in self._tail:
            if record[0]:
                continue
            if skipped < taken:
                skipped += 1
                continue
            yield record

    def _cut(self, records: Iterator[_Record]) -> None:
        """Write ``records`` as a fresh cut writes entries, into files numbered on from ``next_number``."""
        add = self._writer.add_block
        for _, loc, when, block in records:
            add(loc, block, W3CDate(when) if when is not None else None)

    def close(self) -> None:
        self._blocks.close()
        self._tail.close()
