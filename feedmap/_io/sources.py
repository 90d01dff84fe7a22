"""Opening inputs: paths, ``-``, file objects, URLs; gzip by magic bytes; size caps.

* sitemaps.org allows gzip-compressed sitemaps; the 52,428,800-byte limit applies to the uncompressed
  bytes.  Compression is recognised by the gzip magic bytes (RFC 1952: ``1f 8b``), never by the file name
  (real ``.xml.gz`` files are often not compressed, and compressed files are often not named ``.gz``).
* Decompressed input is capped (default 100 MiB) while it is read, so a decompression bomb stops with
  :class:`~feedmap._core.errors.LimitError` after at most the cap, not after filling memory or disk; NUL
  padding after gzip data and optional gzip header fields count against the cap too.  So are remote
  bodies, standard input, file objects and special files (FIFOs, devices), whose size nothing tells.  A
  local regular file that is not compressed is read whole: its size is known when it is opened, and
  reading streams, so the cap would protect nothing (only a file growing past that size and the cap
  while it is read is stopped).
* gzip damage (RFC 1952: a bad CRC32 or ISIZE, garbage after a member, a cut stream) is a warning
  (``corrupt-gzip``, ``truncated-gzip``) reported after everything inflated before it was used.
* Outputs are opened by :mod:`feedmap._io.sinks` (:func:`open_sink` is re-exported here).
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Union

from feedmap._core.errors import LimitError, Reporter, SourceError
from feedmap._core.limits import DEFAULT_MAX_BYTES
from feedmap._io.gzip import GZIP_MAGIC, GzipReader, Readable
from feedmap._io.http import Fetcher
from feedmap._io.locate import local_path
from feedmap._io.sinks import SinkLike, open_sink  # outputs: kept importable from here

__all__ = [
    "DEFAULT_MAX_BYTES",
    "Readable",
    "SinkLike",
    "Source",
    "SourceLike",
    "is_url",
    "open_sink",
    "open_source",
    "source_name",
]

_CHUNK = 64 * 1024

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
        #: What was learned from the head without consuming it (the XML root :func:`feedmap._xml.peek_root`
        #: found), so that sniffing the format and the reader's own look parse it once; emptied on a read.
        self.memo: dict[object, object] = {}

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
        if self.memo:
            self.memo.clear()
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
        #: The (decompressed) bytes given to the reader, without what was skipped around gzip members.
        self.given = 0
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
        self.given += len(data)
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
    #: What counts the bytes read (None: a Source made elsewhere, which counts nothing).
    capped: _CappedStream | None = field(default=None, repr=False, compare=False)

    @property
    def bytes_read(self) -> int | None:
        """The bytes read from it so far, decompressed (gzip: what the members inflated to); None when unknown."""
        return self.capped.given if self.capped is not None else None


def is_url(text: str) -> bool:
    """An ``http:``, ``https:`` or ``file:`` URL (as opposed to a path)."""
    return text[:8].lower().startswith(("http://", "https://", "file:"))


def _regular_size(stream: BinaryIO) -> int | None:
    """The size of the regular file ``stream`` reads, or None for anything else (a FIFO, a device, a socket)."""
    try:
        status = os.fstat(stream.fileno())
    except (OSError, ValueError):
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None


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
    is handed to :meth:`feedmap._io.http.Fetcher.open`.
    """
    with contextlib.ExitStack() as stack:
        url: str | None = None
        if isinstance(source, str) and is_url(source):
            url = source
            local = local_path(source, maps)
            if local is not None:
                source = local
                name = name if name and name != url else str(local)
            else:
                if fetcher is None:
                    fetcher = stack.enter_context(Fetcher())
                fetched = stack.enter_context(fetcher.open(source, max_bytes=max_bytes, redirect_rule=redirect_rule))
                opened = _opened(fetched, name or url, None, fetched.final_url, reporter, max_bytes)
                opened.content_type = fetched.content_type
                yield opened
                return
        display = name or source_name(source)
        raw, owned, path = _open_raw(source, display)
        whole = None
        if owned:
            stack.callback(raw.close)
            whole = _regular_size(raw)  # a file of ours by its path: read whole when regular
        yield _opened(raw, display, path, url, reporter, max_bytes, whole=whole)


def _opened(
    raw: Readable,
    display: str,
    path: Path | None,
    url: str | None,
    reporter: Reporter,
    max_bytes: int,
    *,
    whole: int | None = None,
) -> Source:
    """``raw`` as a Source: gzip decompressed, capped at ``max_bytes`` (at ``whole`` when larger: the size of
    an uncompressed regular file, which is read whole)."""
    head = PeekableStream(raw)
    try:
        magic = head.peek(2)
    except OSError as exc:
        raise SourceError(f"{display}: cannot read ({exc})") from None
    compressed = magic == GZIP_MAGIC
    limit = max(max_bytes, whole) if whole is not None and not compressed else max_bytes
    capped = _CappedStream(head, limit=limit, name=display, reporter=reporter, compressed=compressed)
    return Source(display, PeekableStream(capped), path, compressed, url, capped=capped)
