"""The HTTP cache: conditional GET (RFC 9110 §13.1) and what may be stored (RFC 9111 §3).

One job: keep each response that has validators (``ETag``, ``Last-Modified``) with its body, one pair of
files per URL in the cache directory, written whole or not at all; hand back the validators to send as
``If-None-Match`` / ``If-Modified-Since``, and the kept body when the server answers ``304 Not Modified``.
A damaged record is a miss (fetched again and replaced); a cache that cannot be written is given up for
that response, never failing the fetch.

* **Keyed by the URL requested** (https://www.rfc-editor.org/rfc/rfc9111#section-2): a record belongs to
  the URL whose response it holds, each redirect hop its own (:class:`feedmap._io.http.Fetcher` asks for the
  validators of every hop's target), so one origin's validators are never sent to another, nor its 304
  answered with another URL's body.
* **Not stored** (RFC 9111 §3, https://www.rfc-editor.org/rfc/rfc9111#section-3): a response with
  ``Cache-Control: no-store``; a record kept from before is removed.  ``private`` responses are stored:
  this cache is a private one (one user's directory, RFC 9111 §5.2.2.7 binds shared caches only).
* **Files opened as they are**: the record's files are opened without following a symbolic link
  (``O_NOFOLLOW``) and used only when they are regular files of one link, as the cache writes them (a hard
  link to a file elsewhere is refused too; ``O_NONBLOCK``: a FIFO put there does not block the open), both
  before the validators are sent; the body served on a 304 is the file opened then,
  capped at the run's ``max_bytes`` as a fetched body is (it may have been kept under a larger cap).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from feedmap._core.errors import LimitError, SourceError
from feedmap._io.files import open_regular
from feedmap._io.gzip import Readable

__all__ = ["Cache", "Kept", "too_large"]

#: The largest metadata record read: a record holds two validators and a Content-Type (a few hundred bytes).
_MAX_META_BYTES = 64 * 1024


@dataclass(slots=True)
class Kept:
    """A usable record: the validators to send, the response headers kept, and the body, opened."""

    send: dict[str, str]
    headers: dict[str, str]
    body: BinaryIO

    def close(self) -> None:
        self.body.close()

    def capped_body(self, url: str, max_bytes: int) -> Readable:
        """The kept body read as a fetched one is: :class:`LimitError` ``too-large`` past ``max_bytes`` (at once
        when the file is larger, as for a ``Content-Length``), whatever cap the run that kept it had."""
        if os.fstat(self.body.fileno()).st_size > max_bytes:
            raise too_large(url, max_bytes)
        return _CappedFile(self.body, url, max_bytes)


def too_large(url: str, limit: int) -> LimitError:
    """The error of a response (fetched, or kept and served on a 304) larger than the cap."""
    return LimitError(f"the response is larger than {limit:,} bytes", source=url, code="too-large")


class _CappedFile:
    """A kept body counted as it is read (it may grow after it was opened): ``too-large`` past the cap."""

    def __init__(self, file: BinaryIO, url: str, limit: int) -> None:
        self._file = file
        self._url = url
        self._limit = limit
        self._total = 0

    def read(self, size: int = -1) -> bytes:
        data = self._file.read(size if size >= 0 else self._limit + 1 - self._total)
        self._total += len(data)
        if self._total > self._limit:
            raise too_large(self._url, self._limit)
        return data


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
        key = hashlib.sha256(url.partition("#")[0].encode("utf-8", "surrogatepass")).hexdigest()
        return self.directory / f"{key}.json", self.directory / f"{key}.body"

    def kept(self, url: str) -> Kept | None:
        """The record of ``url`` (the URL requested, fragment aside) with its body opened, or None when nothing
        usable is kept (missing, damaged, not regular files): the validators go with that body, whatever
        replaces the files afterwards."""
        meta_path, body_path = self._paths(url)
        with self._lock:  # a record is put in place under this lock: the two files read here belong together
            meta_file = _open_regular(meta_path)
            if meta_file is None:
                return None
            with meta_file:
                body_file = _open_regular(body_path)
                raw = meta_file.read(_MAX_META_BYTES + 1)
        if body_file is None:
            return None
        send, headers = _validators(raw)
        if not send:
            body_file.close()
            return None  # a damaged entry is a miss: fetched again and replaced
        return Kept(send, headers, body_file)

    @contextlib.contextmanager
    def recording(self, url: str, headers: dict[str, str], body: Readable) -> Iterator[Readable]:
        """``body``, kept with its validators as it is read when it has any and may be stored; the record is put
        in place only when the body was read to its end (and could be written), else dropped."""
        if not storable(headers):
            self.forget(url)  # what was kept is no longer to be revalidated
            yield body
            return
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

    def forget(self, url: str) -> None:
        """Remove the record of ``url``, if any (its metadata first: a body alone is no record)."""
        with self._lock:
            for path in self._paths(url):
                with contextlib.suppress(OSError):
                    path.unlink()

    def _recorder(self, url: str, headers: dict[str, str]) -> _CacheWriter | None:
        if not (headers.get("etag") or headers.get("last-modified")):
            return None
        try:
            return _CacheWriter(self, url, headers)
        except OSError:  # the cache cannot be written (full, read-only): the fetch goes on without it
            return None


def storable(headers: dict[str, str]) -> bool:
    """Whether a response may be stored (RFC 9111 §3): not when ``Cache-Control`` holds ``no-store``."""
    directives = headers.get("cache-control", "").split(",")
    return not any(directive.partition("=")[0].strip().lower() == "no-store" for directive in directives)


def _open_regular(path: Path) -> BinaryIO | None:
    """``path`` opened for reading when it is a regular file, no symbolic link and no hard link (a file the
    cache wrote has one link: it was put in place by a rename), else None."""
    return open_regular(path, single_link=True)


def _validators(raw: bytes) -> tuple[dict[str, str], dict[str, str]]:
    """(request headers to send, kept response headers) of a metadata record; nothing to send when damaged."""
    if len(raw) > _MAX_META_BYTES:
        return {}, {}
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested deeper than the parser goes
        return {}, {}
    if not _valid_meta(meta):
        return {}, {}
    send = {}
    if meta.get("etag"):
        send["If-None-Match"] = meta["etag"]
    if meta.get("last-modified"):
        send["If-Modified-Since"] = meta["last-modified"]
    return send, dict(meta.get("headers", {}))


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
