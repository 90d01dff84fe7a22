"""Streaming the members of a gzip file (RFC 1952, https://www.rfc-editor.org/rfc/rfc1952) in bounded steps.

One job: inflate gzip data as it is read, a bounded amount per call, with every problem (a cut stream, a
bad CRC32 or ISIZE, garbage after a member) raised only after the data inflated before it was handed out.
Used for gzip inputs (:mod:`feedmap._io.sources`) and for ``Content-Encoding: gzip`` responses
(:mod:`feedmap._io.http`, RFC 9110 §8.4.1.3).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from typing import Protocol

__all__ = ["GZIP_MAGIC", "GzipReader", "Readable"]

#: The first two bytes of every gzip member (RFC 1952 §2.3.1: ID1, ID2).
GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 64 * 1024


class Readable(Protocol):
    """Anything with a binary ``read(size)``: a file, a response body, another reader."""

    def read(self, size: int = -1, /) -> bytes: ...


class GzipReader:
    """Streams the members of a gzip file (RFC 1952) with zlib, returning data as soon as it is inflated.

    The member headers and trailers are read here (§2.3) and the deflate data (RFC 1951) inflated raw, so
    every byte inflated is handed out before a problem is raised: EOFError for a stream cut short,
    zlib.error for damage (a bad CRC32 or ISIZE, garbage after a member).  Members may follow each other,
    NUL bytes may pad the end (or separate members, as :mod:`gzip` allows); the padding and the optional
    header fields (FEXTRA, FNAME, FCOMMENT) are skipped in constant memory and counted through
    ``on_skipped`` (the size cap), so a file padded with gigabytes of NULs neither recurses nor reads on
    past the cap; so are member headers and trailers and deflate data that inflates to nothing (empty
    members, empty stored blocks), which would otherwise be read without end.  Each call inflates at most
    ``size`` bytes, so a decompression bomb never sits in memory at once.
    """

    def __init__(self, inner: Readable, on_skipped: Callable[[int], None] | None = None) -> None:
        self._inner = inner
        self._on_skipped = on_skipped or (lambda count: None)
        self._buffer = b""  # compressed bytes read but not used yet
        self._inflater: zlib._Decompress | None = None  # set inside a member's deflate data
        self._crc = 0
        self._size = 0
        self._members = 0
        self._error: Exception | None = None  # found after the data just handed out; raised next
        self._finished = False

    def read(self, size: int = -1) -> bytes:
        want = size if size > 0 else _CHUNK
        while not self._finished:
            if self._error is not None:
                self._finished = True
                raise self._error
            if self._inflater is None and not self._start_member():
                self._finished = True
                break
            out = self._inflate(want)
            if out:
                return out
        return b""

    def _more(self) -> bool:
        """Read one more chunk into the buffer; False at the end of the input."""
        chunk = self._inner.read(_CHUNK)
        self._buffer += chunk
        return bool(chunk)

    def _take(self, count: int) -> bytes:
        while len(self._buffer) < count:
            if not self._more():
                raise EOFError("compressed stream ends inside a member header")
        taken, self._buffer = self._buffer[:count], self._buffer[count:]
        return taken

    def _skip_field(self) -> None:
        """Skip a zero-terminated header field (FNAME, FCOMMENT) however long, holding one chunk at a time."""
        while (end := self._buffer.find(b"\0")) < 0:
            self._on_skipped(len(self._buffer))
            self._buffer = b""
            if not self._more():
                raise EOFError("compressed stream ends inside a member header")
        self._on_skipped(end + 1)
        self._take(end + 1)

    def _skip_padding(self) -> bool:
        """Skip NUL bytes after a member; False when they run to the end of the input."""
        while True:
            rest = self._buffer.lstrip(b"\0")
            self._on_skipped(len(self._buffer) - len(rest))
            self._buffer = rest
            if rest:
                return True
            if not self._more():
                return False

    def _start_member(self) -> bool:
        """Read a member header (RFC 1952 §2.3.1); False at the end of the input after a member."""
        if self._members and not self._skip_padding():
            return False
        while len(self._buffer) < 2 and self._more():
            pass
        if self._members and not self._buffer.startswith(GZIP_MAGIC):
            raise zlib.error("trailing garbage after the compressed data")
        header = self._take(10)
        self._on_skipped(10)  # headers and trailers count too: endless empty members must reach the cap
        if header[2] != 8:
            raise zlib.error(f"unknown compression method {header[2]}")
        flags = header[3]
        if flags & 4:  # FEXTRA
            length = int.from_bytes(self._take(2), "little")
            self._on_skipped(length)
            self._take(length)
        for field in (8, 16):  # FNAME, FCOMMENT
            if flags & field:
                self._skip_field()
        if flags & 2:  # FHCRC
            self._on_skipped(2)
            self._take(2)
        self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
        self._crc = self._size = 0
        return True

    def _inflate(self, want: int) -> bytes:
        """Up to ``want`` bytes of the current member; at its end, its trailer is checked."""
        assert self._inflater is not None
        data = self._inflater.unconsumed_tail
        if not data:
            data, self._buffer = self._buffer or self._inner.read(_CHUNK), b""
            if not data:
                raise EOFError("compressed stream ends before its end-of-stream marker")
        out = self._inflater.decompress(data, want)
        self._crc = zlib.crc32(out, self._crc)
        self._size += len(out)
        if not out:  # deflate data that inflates to nothing (empty stored blocks) is counted as skipped
            rest = len(self._inflater.unconsumed_tail) + len(self._inflater.unused_data)
            self._on_skipped(len(data) - rest)
        if self._inflater.eof:
            self._buffer = self._inflater.unused_data
            self._inflater = None
            try:
                self._end_member()
            except (EOFError, zlib.error) as exc:
                self._error = exc  # raised by the next read: what this member gave is handed out first
        return out

    def _end_member(self) -> None:
        """Check the member trailer (RFC 1952 §2.3.1: CRC32 and ISIZE of the uncompressed data)."""
        while len(self._buffer) < 8:
            if not self._more():
                raise EOFError("compressed stream ends inside a member trailer")
        crc, isize = struct.unpack("<II", self._take(8))
        self._on_skipped(8)
        if crc != self._crc:
            raise zlib.error("CRC check failed")
        if isize != self._size & 0xFFFFFFFF:
            raise zlib.error("length check failed (ISIZE)")
        self._members += 1
