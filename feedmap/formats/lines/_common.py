"""Reading line-based formats (JSON Lines, text sitemaps) with a cap on the length of one line.

A JSON line ends at LF (https://jsonlines.org/: "the line terminator is '\\n'"; a CR before it is blank
space to JSON); a text sitemap's line at LF, CR LF or a lone CR.  Without a cap one huge line would be
held whole, and JSON parsing multiplies it several times over; here no more than ``limit`` bytes of a
line (plus one read chunk) are ever held: a longer line is skipped as it streams past and reported by
the caller (``line-too-long``).

:func:`line_ends` says where those lines end in a piece of a file, without reading it as lines: what a reader
of a byte range (:mod:`feedmap._web.bag_ranges`) needs to find the lines that start in its range and number them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

__all__ = ["Block", "bounded_line_blocks", "bounded_lines", "line_ends", "too_long"]

_CHUNK = 1 << 16


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


def bounded_lines(stream: _Readable, limit: int, *, any_newline: bool = False) -> Iterator[bytes | None]:
    """Yield each line of ``stream`` without its line end, or None for a line longer than ``limit`` bytes
    (whose bytes are read and dropped as they come).  One item per line, so counting them gives line
    numbers.  Lines end at LF; with ``any_newline`` also at CR LF and at a lone CR (old Mac files)."""
    for block in bounded_line_blocks(stream, limit, any_newline=any_newline):
        yield from block


#: The items of :func:`bounded_line_blocks`: a read's lines, None for each one too long.
Block = Sequence[bytes | None]


def bounded_line_blocks(stream: _Readable, limit: int, *, any_newline: bool = False) -> Iterator[Block]:
    """The items of :func:`bounded_lines` in sequences, one (never empty) per read of ``stream``: a reader
    that looks at many lines at once (:mod:`feedmap.formats.lines._text`) pays per read, not per line."""
    parts: list[bytes] = []  # the line read so far, in pieces joined once when it ends (linear in its length)
    size = 0
    skipping = False  # inside a line already reported as too long
    for chunk in _chunks(stream, any_newline):
        lines = chunk.split(b"\n")
        if skipping:
            if len(lines) == 1:
                continue
            skipping = False
            del lines[0]
        last = lines.pop()
        if lines and parts:
            parts.append(lines[0])
            lines[0] = b"".join(parts)
            parts, size = [], 0
        block: Block = lines
        if lines and max(map(len, lines)) > limit:
            block = [line if len(line) <= limit else None for line in lines]
        if last:
            parts.append(last)
            size += len(last)
        if size > limit:
            block = [*block, None]
            skipping = True
            parts, size = [], 0
        if block:
            yield block
    if parts:
        yield [b"".join(parts)]


def _chunks(stream: _Readable, any_newline: bool) -> Iterator[bytes]:
    """The bytes of ``stream`` read after read, each line ending as LF: with ``any_newline`` a CR LF or a
    lone CR made one LF (the split of ``\\r\\n|\\r|\\n``), a CR ending a read held until the next tells which."""
    held = b""  # a CR at the end of a read: the next read may start with its LF
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            if not held:
                return
            chunk, held = held, b""
        else:
            if held:
                chunk, held = held + chunk, b""
            if any_newline and chunk.endswith(b"\r"):
                chunk, held = chunk[:-1], b"\r"
                if not chunk:
                    continue
        if any_newline and b"\r" in chunk:
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        yield chunk


def line_ends(data: bytes, stop: int, *, any_newline: bool = False) -> tuple[int, int]:
    """The line ends of :func:`bounded_lines` whose last byte is in ``data[:stop]``: how many, and where the
    first is (the index of its last byte; -1 for none).  Lines end at LF; with ``any_newline`` also at CR LF
    (whose last byte is the LF) and at a lone CR: ``data`` holds the byte after ``stop`` when the file has
    one, as a CR at ``stop - 1`` ends a line only when no LF follows it (then the LF ends it)."""
    first = data.find(b"\n", 0, stop)
    count = data.count(b"\n", 0, stop)
    if not any_newline:
        return count, first
    count += data.count(b"\r", 0, stop) - data.count(b"\r\n", 0, stop + 1)  # a CR LF counted once, at its LF
    cr = data.find(b"\r", 0, stop)
    if cr >= 0 and (first < 0 or cr < first) and data[cr + 1 : cr + 2] != b"\n":
        first = cr  # a lone CR before the first LF
    return count, first


def too_long(limit: int) -> str:
    """The ``line-too-long`` message for a line over ``limit`` bytes."""
    return f"line longer than {limit:,} bytes; skipped"
