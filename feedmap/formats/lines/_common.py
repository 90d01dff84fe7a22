"""Reading line-based formats (JSON Lines, text sitemaps) with a cap on the length of one line.

A JSON line ends at LF (https://jsonlines.org/: "the line terminator is '\\n'"; a CR before it is blank
space to JSON); a text sitemap's line at LF, CR LF or a lone CR.  Without a cap one huge line would be
held whole, and JSON parsing multiplies it several times over; here no more than ``limit`` bytes of a
line (plus one read chunk) are ever held: a longer line is skipped as it streams past and reported by
the caller (``line-too-long``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Protocol

__all__ = ["bounded_lines", "too_long"]

_CHUNK = 1 << 16


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


_ANY_NEWLINE = re.compile(rb"\r\n|\r|\n")


def bounded_lines(stream: _Readable, limit: int, *, any_newline: bool = False) -> Iterator[bytes | None]:
    """Yield each line of ``stream`` without its line end, or None for a line longer than ``limit`` bytes
    (whose bytes are read and dropped as they come).  One item per line, so counting them gives line
    numbers.  Lines end at LF; with ``any_newline`` also at CR LF and at a lone CR (old Mac files)."""
    split: Callable[[bytes], list[bytes]] = _ANY_NEWLINE.split if any_newline else _split_lf
    parts: list[bytes] = []  # the line read so far, in pieces joined once when it ends (linear in its length)
    size = 0
    skipping = False  # inside a line already reported as too long
    held = b""  # a CR at the end of a read: the next read may start with its LF
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            if not held:
                break
            chunk, held = held, b""
        else:
            if held:
                chunk, held = held + chunk, b""
            if any_newline and chunk.endswith(b"\r"):
                chunk, held = chunk[:-1], b"\r"
                if not chunk:
                    continue
        lines = split(chunk)
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
        for line in lines:
            yield line if len(line) <= limit else None
        if last:
            parts.append(last)
            size += len(last)
        if size > limit:
            yield None
            skipping = True
            parts, size = [], 0
    if parts:
        yield b"".join(parts)


def _split_lf(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def too_long(limit: int) -> str:
    """The ``line-too-long`` message for a line over ``limit`` bytes."""
    return f"line longer than {limit:,} bytes; skipped"
