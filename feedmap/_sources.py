"""Opening inputs: paths, ``-``, file objects, URLs; gzip by magic bytes; size caps.

* sitemaps.org allows gzip-compressed sitemaps; the 52,428,800-byte limit applies to the uncompressed
  bytes.  Compression is recognised by the gzip magic bytes (RFC 1952: ``1f 8b``), never by the file name
  (real ``.xml.gz`` files are often not compressed, and compressed files are often not named ``.gz``).
* Decompressed input is capped (default 100 MiB) while it is read, so a decompression bomb stops with
  :class:`~feedmap._errors.LimitError` after at most the cap, not after filling memory or disk; NUL
  padding after gzip data and optional gzip header fields count against the cap too.
* gzip damage (RFC 1952: a bad CRC32 or ISIZE, garbage after a member, a cut stream) is a warning
  (``corrupt-gzip``, ``truncated-gzip``) reported after everything inflated before it was used.
* Outputs are opened by :mod:`feedmap._sinks` (:func:`open_sink` is re-exported here).
"""

from __future__ import annotations

import contextlib
import io
import os
import struct
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol, Union

from feedmap._errors import LimitError, Reporter, SourceError
from feedmap._sinks import SinkLike, open_sink  # outputs: kept importable from here

if TYPE_CHECKING:  # httpx is imported only when something is fetched
    from feedmap._http import Fetcher

__all__ = [
    "DEFAULT_MAX_BYTES",
    "SinkLike",
    "Source",
    "SourceLike",
    "is_url",
    "open_sink",
    "open_source",
    "source_name",
]

DEFAULT_MAX_BYTES = 100 * 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 64 * 1024


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


SourceLike = Union[str, "os.PathLike[str]", BinaryIO]


def source_name(source: SourceLike) -> str:
    """How a source is named in messages: its path, ``<stdin>``, or the file object's name."""
    if isinstance(source, str):
        return "<stdin>" if source == "-" else source
    if isinstance(source, os.PathLike):
        return os.fspath(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else "<stream>"


class PeekableStream(io.RawIOBase):
    """A read-only stream that can look ahead without consuming (for sniffing the format)."""

    def __init__(self, inner: Readable) -> None:
        super().__init__()
        self._inner = inner
        self._head = b""

    def readable(self) -> bool:
        return True

    def peek(self, size: int) -> bytes:
        while len(self._head) < size:
            chunk = self._inner.read(size - len(self._head))  # no further: --max-bytes counts what is read
            if not chunk:
                break
            self._head += chunk
        return self._head[:size]

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            # read() means "to the end"; the inner streams return one chunk per call, so loop
            parts = [self._head]
            self._head = b""
            while chunk := self._inner.read(_CHUNK):
                parts.append(chunk)
            return b"".join(parts)
        if self._head:
            data, self._head = self._head[:size], self._head[size:]
            return data
        return self._inner.read(size)

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


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


class _CappedStream:
    """Counts bytes read and raises LimitError past the cap; turns gzip damage into diagnostics.

    For gzip input the cap counts the decompressed bytes and also what is skipped around them (NUL
    padding, member headers and trailers, deflate data inflating to nothing), so none of it can make
    reading go on past the cap.
    """

    def __init__(self, inner: Readable, *, limit: int, name: str, reporter: Reporter, compressed: bool) -> None:
        self._inner: Readable = GzipReader(inner, self._count_skipped) if compressed else inner
        self._limit = limit
        self._name = name
        self._reporter = reporter
        self._compressed = compressed
        self._total = 0
        self._done = False

    def _count_skipped(self, count: int) -> None:
        self._total += count
        if self._total > self._limit:
            self._over("gzip input with its padding")

    def _over(self, what: str) -> None:
        raise LimitError(
            f"{what} is larger than {self._limit:,} bytes",
            source=self._name,
            code="too-large",
        )

    def read(self, size: int = -1) -> bytes:
        if self._done:
            return b""
        try:
            data = self._inner.read(size if size >= 0 else _CHUNK)
        except EOFError:
            self._done = True
            self._reporter.warning(
                "truncated-gzip",
                "the compressed stream ends early; what was decompressed before is used",
                self._name,
            )
            return b""
        except zlib.error as exc:
            self._done = True
            self._reporter.warning(
                "corrupt-gzip",
                f"the compressed stream is damaged ({exc}); what was decompressed before is used",
                self._name,
            )
            return b""
        self._total += len(data)
        if self._total > self._limit:
            self._over("decompressed input" if self._compressed else "input")
        return data


@dataclass
class Source:
    """An opened input: a display name and a peekable stream of decompressed bytes."""

    name: str
    stream: PeekableStream
    path: Path | None = None
    compressed: bool = False
    #: The URL it was read from: fetched (after redirects), or mapped to ``path`` by ``--map``.
    url: str | None = None
    #: The media type a server gave it (``Content-Type`` without parameters); empty for files.
    content_type: str = ""


def is_url(text: str) -> bool:
    """An ``http:``, ``https:`` or ``file:`` URL (as opposed to a path)."""
    return text[:8].lower().startswith(("http://", "https://", "file:"))


def _open_raw(source: SourceLike, name: str) -> tuple[BinaryIO, bool, Path | None]:
    """Returns (stream, we_own_it, path)."""
    if isinstance(source, str) and source == "-":
        return sys.stdin.buffer, False, None
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            return open(path, "rb"), True, path
        except IsADirectoryError:
            raise SourceError(f"{name}: is a directory, not a file") from None
        except FileNotFoundError:
            raise SourceError(f"{name}: no such file") from None
        except OSError as exc:
            raise SourceError(f"{name}: cannot open ({exc.strerror or exc})") from None
    if hasattr(source, "read"):
        return source, False, None
    raise SourceError(f"cannot read from {source!r}: give a path, '-' or a binary file object")


@contextlib.contextmanager
def open_source(
    source: SourceLike,
    *,
    reporter: Reporter,
    max_bytes: int = DEFAULT_MAX_BYTES,
    name: str | None = None,
    fetcher: Fetcher | None = None,
    maps: Sequence[tuple[str, Path]] = (),
    redirect_rule: Callable[[str], str | None] | None = None,
) -> Iterator[Source]:
    """Open ``source`` for reading, decompressing gzip (by magic bytes) and capping the size.

    An http(s) URL is fetched with ``fetcher`` (a temporary one when None), unless ``maps`` (``--map``
    prefixes) say it is read from a local directory; a ``file:`` URL is read as a path.  ``redirect_rule``
    is handed to :meth:`feedmap._http.Fetcher.open`.
    """
    with contextlib.ExitStack() as stack:
        url: str | None = None
        if isinstance(source, str) and is_url(source):
            from feedmap._locate import local_path

            url = source
            local = local_path(source, maps)
            if local is not None:
                source = local
                name = name if name and name != url else str(local)
            else:
                if fetcher is None:
                    from feedmap._http import Fetcher

                    fetcher = stack.enter_context(Fetcher())
                fetched = stack.enter_context(fetcher.open(source, max_bytes=max_bytes, redirect_rule=redirect_rule))
                opened = _opened(fetched, name or url, None, fetched.final_url, reporter, max_bytes)
                opened.content_type = fetched.content_type
                yield opened
                return
        display = name or source_name(source)
        raw, owned, path = _open_raw(source, display)
        if owned:
            stack.callback(raw.close)
        yield _opened(raw, display, path, url, reporter, max_bytes)


def _opened(
    raw: Readable, display: str, path: Path | None, url: str | None, reporter: Reporter, max_bytes: int
) -> Source:
    head = PeekableStream(raw)
    try:
        magic = head.peek(2)
    except OSError as exc:
        raise SourceError(f"{display}: cannot read ({exc})") from None
    compressed = magic == GZIP_MAGIC
    capped = _CappedStream(head, limit=max_bytes, name=display, reporter=reporter, compressed=compressed)
    return Source(display, PeekableStream(capped), path, compressed, url)
