"""Blocks held apart while a split streams: in memory up to a budget, then in one temporary file.

One job: to hold what :mod:`feedmap._publish.sticky` writes only once the whole input was read, with memory flat
in the number of entries.  :class:`BlockSpool` holds the rendered blocks of many files, each file's in the order
they came; past :data:`BUDGET` bytes every file's blocks are appended to one scratch file
(:func:`feedmap._io.scratch.scratch_file`) as one chunk a file, whose place is kept (a few chunks a file and a
spill), and :meth:`BlockSpool.chunks` gives them back as bytes, ready to copy.  :class:`RecordSpool` holds
records (tuples) in order, pickled (the standard library's :mod:`pickle`: our own temporary file) a batch at a time
past the budget, and gives them back in order as many times as asked.  Errors of the temporary file are said by
:func:`feedmap._io.scratch.scratch_error`.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import IO, Any

from feedmap._io.scratch import scratch_error, scratch_file

__all__ = ["BUDGET", "BlockSpool", "RecordSpool"]

#: Bytes of blocks held in memory by a spool before they go to its temporary file.
BUDGET = 1 << 20
#: Bytes read back from the temporary file at a time.
_READ = 1 << 20
_WHAT = "file for the blocks of a split"


class BlockSpool:
    """The blocks of many files (by number), each file's in order."""

    def __init__(self, budget: int | None = None) -> None:
        self._budget = BUDGET if budget is None else budget
        self._held: dict[int, list[str]] = {}
        self._held_bytes = 0
        self._chunks: dict[int, list[tuple[int, int]]] = {}  # per file: (offset, length) in the temporary file
        self._file: IO[bytes] | None = None

    def add(self, number: int, block: str, length: int) -> None:
        """A block of ``length`` bytes (UTF-8) for file ``number``, after those added before."""
        held = self._held.get(number)
        if held is None:
            held = self._held[number] = []
        held.append(block)
        self._held_bytes += length
        if self._held_bytes >= self._budget:
            self._spill()

    def _spill(self) -> None:
        if self._file is None:
            self._file = scratch_file("feedmap-split-", _WHAT)
        out = self._file
        try:
            out.seek(0, 2)
            for number, blocks in self._held.items():
                data = "".join(blocks).encode("utf-8")
                self._chunks.setdefault(number, []).append((out.tell(), len(data)))
                out.write(data)
        except OSError as exc:
            raise scratch_error(_WHAT, exc) from exc
        self._held = {}
        self._held_bytes = 0

    def chunks(self, number: int) -> Iterator[bytes]:
        """The blocks of file ``number``, as UTF-8 bytes in chunks, in order."""
        source = self._file
        for offset, length in self._chunks.get(number, ()):
            assert source is not None
            try:
                source.seek(offset)
                while length > 0:
                    data = source.read(min(length, _READ))
                    if not data:
                        raise OSError(f"the temporary file ended {length:,} bytes early")
                    length -= len(data)
                    yield data
            except OSError as exc:
                raise scratch_error(_WHAT, exc) from exc
        held = self._held.get(number)
        if held:
            yield "".join(held).encode("utf-8")

    def close(self) -> None:
        self._held = {}
        if self._file is not None:
            self._file.close()
            self._file = None


class RecordSpool:
    """Records in the order they came, read back as often as asked."""

    def __init__(self, budget: int | None = None) -> None:
        self._budget = BUDGET if budget is None else budget
        self._held: list[Any] = []
        self._held_bytes = 0
        self._file: IO[bytes] | None = None
        self.count = 0

    def add(self, record: Any, length: int) -> None:
        """A record counted as ``length`` bytes against the budget."""
        self._held.append(record)
        self.count += 1
        self._held_bytes += length
        if self._held_bytes >= self._budget:
            if self._file is None:
                self._file = scratch_file("feedmap-split-", _WHAT)
            try:
                self._file.seek(0, 2)
                pickle.dump(self._held, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            except OSError as exc:
                raise scratch_error(_WHAT, exc) from exc
            self._held = []
            self._held_bytes = 0

    def __iter__(self) -> Iterator[Any]:
        source = self._file
        if source is not None:
            try:
                end = source.seek(0, 2)
                source.seek(0)
                while source.tell() < end:
                    batch: list[Any] = pickle.load(source)  # our own temporary file
                    position = source.tell()
                    yield from batch
                    source.seek(position)
            except OSError as exc:
                raise scratch_error(_WHAT, exc) from exc
        yield from list(self._held)

    def close(self) -> None:
        self._held = []
        if self._file is not None:
            self._file.close()
            self._file = None
