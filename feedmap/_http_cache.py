"""The HTTP cache: conditional GET (RFC 9110 §13.1, https://www.rfc-editor.org/rfc/rfc9110#section-13.1).

One job: keep each response that has validators (``ETag``, ``Last-Modified``) with its body, one pair of
files per URL in the cache directory, written whole or not at all; hand back the validators to send as
``If-None-Match`` / ``If-Modified-Since``, and the kept body when the server answers ``304 Not Modified``.
A damaged record is a miss (fetched again and replaced); a cache that cannot be written is given up for
that response, never failing the fetch.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from feedmap._errors import FetchError, SourceError
from feedmap._gzip import Readable

__all__ = ["Cache"]


class Cache:
    """Bodies with their validators, one pair of files per URL, written whole or not at all."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._lock = threading.Lock()
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SourceError(f"{directory}: cannot be used as the HTTP cache ({exc.strerror or exc})") from None

    def _paths(self, url: str) -> tuple[Path, Path]:
        key = hashlib.sha256(url.encode("utf-8")).hexdigest()
        return self.directory / f"{key}.json", self.directory / f"{key}.body"

    def validators(self, url: str) -> tuple[dict[str, str], dict[str, str]] | None:
        """(request headers to send, cached response headers), or None when nothing usable is kept."""
        meta_path, body_path = self._paths(url)
        if not (meta_path.is_file() and body_path.is_file()):  # missing, or a FIFO that would block a read
            return None
        try:
            meta = json.loads(meta_path.read_text("utf-8"))
        except (OSError, ValueError):  # ValueError: not JSON, or not UTF-8
            return None
        if not _valid_meta(meta):
            return None  # a damaged entry is a miss: fetched again and replaced
        send = {}
        if meta.get("etag"):
            send["If-None-Match"] = meta["etag"]
        if meta.get("last-modified"):
            send["If-Modified-Since"] = meta["last-modified"]
        return (send, dict(meta.get("headers", {}))) if send else None

    @contextlib.contextmanager
    def cached_body(self, url: str, request_url: str) -> Iterator[BinaryIO]:
        """The kept body of ``request_url``, for a ``304 Not Modified`` answer to a fetch of ``url``."""
        try:
            body_file = self._paths(request_url)[1].open("rb")
        except OSError as exc:  # removed since its validators were read
            raise FetchError(
                f"{url}: the server answered 304 Not Modified, but the cached copy cannot be read "
                f"({exc.strerror or exc})",
                url=url,
                code="cache-failed",
            ) from None
        with body_file:
            yield body_file

    @contextlib.contextmanager
    def recording(self, url: str, headers: dict[str, str], body: Readable) -> Iterator[Readable]:
        """``body``, kept with its validators as it is read when it has any; the record is put in place only
        when the body was read to its end (and could be written), else dropped."""
        writer = self._recorder(url, headers)
        if writer is None:
            yield body
            return
        tee = _Teeing(body, writer)
        try:
            yield tee
        finally:
            if tee.complete and not tee.failed:
                writer.commit()
            else:
                writer.discard()

    def _recorder(self, url: str, headers: dict[str, str]) -> _CacheWriter | None:
        if not (headers.get("etag") or headers.get("last-modified")):
            return None
        try:
            return _CacheWriter(self, url, headers)
        except OSError:  # the cache cannot be written (full, read-only): the fetch goes on without it
            return None


def _valid_meta(meta: object) -> bool:
    """A cache metadata record as :meth:`_CacheWriter.commit` writes it (anything else is damaged)."""
    if not isinstance(meta, dict):
        return False
    validators = (meta.get("etag"), meta.get("last-modified"))
    if not all(value is None or isinstance(value, str) for value in validators):
        return False
    if any(value is not None and not (value.isascii() and value.isprintable()) for value in validators):
        return False  # sent back as a header: httpx refuses line breaks and non-ASCII there
    headers = meta.get("headers", {})
    return isinstance(headers, dict) and all(isinstance(v, str) for v in headers.values())


class _CacheWriter:
    def __init__(self, cache: Cache, url: str, headers: dict[str, str]) -> None:
        self._cache = cache
        self._meta_path, self._body_path = cache._paths(url)
        self._headers = headers
        fd, name = tempfile.mkstemp(dir=cache.directory, suffix=".part")
        self._tmp = Path(name)
        self._file = os.fdopen(fd, "wb")

    def write(self, data: bytes) -> None:
        self._file.write(data)

    def commit(self) -> None:
        """Put body and validators in place together (two threads fetching one URL must not mix them).

        A cache that cannot be written (disk full) is given up for this response; the fetch itself worked.
        """
        meta = {
            "etag": self._headers.get("etag"),
            "last-modified": self._headers.get("last-modified"),
            "headers": {k: v for k, v in self._headers.items() if k in ("content-type",)},
        }
        meta_tmp = self._tmp.with_suffix(".json.part")
        try:
            self._file.close()
            meta_tmp.write_text(json.dumps(meta), "utf-8")
            with self._cache._lock:
                os.replace(self._tmp, self._body_path)
                os.replace(meta_tmp, self._meta_path)
        except OSError:
            for leftover in (self._tmp, meta_tmp):
                with contextlib.suppress(OSError):
                    leftover.unlink()

    def discard(self) -> None:
        self._file.close()
        with contextlib.suppress(OSError):
            self._tmp.unlink()


class _Teeing:
    """Passes reads through and records them; commits the record only when the body was read to its end."""

    def __init__(self, inner: Readable, writer: _CacheWriter) -> None:
        self._inner = inner
        self.writer = writer
        self.complete = False
        self.failed = False

    def read(self, size: int = -1) -> bytes:
        data = self._inner.read(size)
        if not data:
            self.complete = True
        elif not self.failed:
            try:
                self.writer.write(data)
            except OSError:  # the cache cannot be written: the reader still gets the body
                self.failed = True
        return data
