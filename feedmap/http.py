"""Fetching over HTTP(S): one pooled client, timeouts, retries, redirects, size caps, robots.txt.

What it implements, and where the rules come from:

* **Retries** (RFC 9110 §15.6, RFC 6585 §4): 429 and the 5xx statuses that say "try later" (500, 502, 503,
  504) are retried with exponential backoff; a ``Retry-After`` header (seconds or an HTTP-date, RFC 9110
  §10.2.3) is honoured up to :attr:`HttpSettings.max_retry_wait`.  Connection failures are retried too;
  a timeout is not (it has already waited long).
* **Redirects** are followed up to :attr:`HttpSettings.max_redirects`.
* **Size caps while streaming**: a ``Content-Length`` above the cap fails before the body is read; the
  body is counted as it arrives, before and after content decoding, and reading stops at the cap.
  ``Content-Encoding: gzip`` (RFC 9110 §8.4.1.3) is decoded here with :class:`feedmap.sources.GzipReader`,
  which inflates a bounded amount per call, so a compression bomb never sits in memory.  Only gzip is
  asked for (``Accept-Encoding: gzip``).
* **Timeouts**: connect and read timeouts per socket operation, and a whole-response deadline, so a
  server that trickles one byte a second is cut off too.
* **Conditional GET** (RFC 9110 §13.1): with a cache directory, a response's ``ETag`` and
  ``Last-Modified`` are kept with its body, sent back as ``If-None-Match`` / ``If-Modified-Since``, and a
  ``304 Not Modified`` is answered from the cache.
* **robots.txt** (RFC 9309) is read with Protego (Scrapy's parser: wildcards, longest match): a 4xx
  robots.txt allows everything, a 5xx or an unreachable one disallows everything (RFC 9309 §2.3.1.3-4).
  ``Sitemap:`` lines are read in any case, from any group.
* **Politeness**: an optional delay between two requests to the same host.

The client is :mod:`httpx`, shared by the threads of a :class:`concurrent.futures.ThreadPoolExecutor`
(``httpx.Client`` is thread-safe and pools connections per host).
"""

from __future__ import annotations

import contextlib
import email.utils
import hashlib
import json
import os
import tempfile
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Protocol
from urllib.parse import urlsplit, urlunsplit

import httpx
from protego import Protego

from feedmap._urls import origin
from feedmap.context import DEFAULT_USER_AGENT, HttpSettings
from feedmap.errors import FetchError, LimitError, SourceError
from feedmap.sources import GzipReader

__all__ = [
    "DEFAULT_USER_AGENT",
    "Fetched",
    "Fetcher",
    "HttpSettings",
    "RobotsPolicy",
]

#: The token matched against robots.txt ``User-agent`` lines (RFC 9309 §2.2.1: the product token).
ROBOTS_TOKEN = "feedmap"


def robots_token(user_agent: str) -> str:
    """The product token of a User-Agent (``MyBot/1.0 (+url)`` -> ``mybot``), which robots.txt groups name."""
    token = user_agent.strip().split("/", 1)[0].split(" ", 1)[0].strip().lower()
    return token or ROBOTS_TOKEN
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_CHUNK = 64 * 1024
ROBOTS_MAX_BYTES = 500 * 1024  # RFC 9309 §2.5: crawlers must parse at least 500 KiB


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class _RawBody:
    """The undecoded body as a stream: counts bytes, enforces the cap and the deadline, maps errors."""

    def __init__(self, chunks: Iterator[bytes], *, url: str, limit: int, deadline: float) -> None:
        self._chunks = chunks
        self._url = url
        self._limit = limit
        self._deadline = deadline
        self._buffer = b""
        self._total = 0
        self.finished = False

    def read(self, size: int = -1) -> bytes:
        want = size if size > 0 else _CHUNK
        while not self._buffer and not self.finished:
            if time.monotonic() > self._deadline:
                raise FetchError(f"{self._url}: the response took too long; gave up", url=self._url, code="timeout")
            try:
                chunk = next(self._chunks)
            except StopIteration:
                self.finished = True
                break
            except httpx.TimeoutException:
                raise FetchError(
                    f"{self._url}: timed out while reading the response", url=self._url, code="timeout"
                ) from None
            except httpx.HTTPError as exc:
                raise FetchError(f"{self._url}: the connection failed ({exc})", url=self._url) from None
            self._total += len(chunk)
            if self._total > self._limit:
                raise _too_large(self._url, self._limit)
            self._buffer = chunk
        data, self._buffer = self._buffer[:want], self._buffer[want:]
        return data


class _Decoded:
    """Content-decoded bytes (``Content-Encoding: gzip``), capped after decoding too."""

    def __init__(self, inner: Readable, *, url: str, limit: int) -> None:
        self._inner = inner
        self._url = url
        self._limit = limit
        self._total = 0

    def read(self, size: int = -1) -> bytes:
        try:
            data = self._inner.read(size)
        except (EOFError, zlib.error) as exc:
            raise FetchError(
                f"{self._url}: the gzip content-encoding is damaged ({exc})", url=self._url, code="bad-encoding"
            ) from None
        self._total += len(data)
        if self._total > self._limit:
            raise _too_large(self._url, self._limit)
        return data


def _too_large(url: str, limit: int) -> LimitError:
    return LimitError(
        f"the response is larger than {limit:,} bytes; raise the cap with --max-bytes if the site is trusted",
        source=url,
        code="too-large",
    )


@dataclass(slots=True)
class Fetched:
    """A response being read: its final URL, status, type, and its (content-decoded) body as a stream."""

    url: str
    final_url: str
    status: int
    headers: dict[str, str]
    body: Readable
    from_cache: bool = False
    _on_complete: list[object] = field(default_factory=list, repr=False)

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";", 1)[0].strip().lower()

    @property
    def charset(self) -> str | None:
        for param in self.headers.get("content-type", "").split(";")[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "charset" and value.strip():
                return value.strip().strip("\"'")
        return None

    def read(self, size: int = -1) -> bytes:
        return self.body.read(size)

    def read_all(self) -> bytes:
        parts = []
        while chunk := self.body.read(_CHUNK):
            parts.append(chunk)
        return b"".join(parts)


class RobotsPolicy:
    """What a site's robots.txt allows our user agent, and the sitemaps it names."""

    def __init__(
        self, text: str | None, *, allow_all: bool, token: str = ROBOTS_TOKEN, unavailable: str | None = None
    ) -> None:
        self._parser = Protego.parse(text) if text else None
        self._allow_all = allow_all
        self._token = token
        #: Why robots.txt could not be read, when that is what disallows everything.
        self.unavailable = unavailable
        self.sitemaps: list[str] = list(self._parser.sitemaps) if self._parser is not None else []

    def allows(self, url: str) -> bool:
        if self._parser is None:
            return self._allow_all
        return bool(self._parser.can_fetch(url, self._token))


class _HostGate:
    """Spaces requests to one host by at least ``delay`` seconds, across threads."""

    def __init__(self, delay: float) -> None:
        self._delay = delay
        self._lock = threading.Lock()
        self._next: dict[str, float] = {}

    def wait(self, url: str) -> None:
        if self._delay <= 0:
            return
        host = origin(url)[1]
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next.get(host, 0.0))
            self._next[host] = start + self._delay
        if start > now:
            time.sleep(start - now)


class _Cache:
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
        try:
            meta = json.loads(meta_path.read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not body_path.exists() or not isinstance(meta, dict):
            return None
        send = {}
        if meta.get("etag"):
            send["If-None-Match"] = str(meta["etag"])
        if meta.get("last-modified"):
            send["If-Modified-Since"] = str(meta["last-modified"])
        headers = {str(k): str(v) for k, v in dict(meta.get("headers", {})).items()}
        return (send, headers) if send else None

    def open_body(self, url: str) -> BinaryIO:
        return self._paths(url)[1].open("rb")

    def recorder(self, url: str, headers: dict[str, str]) -> _CacheWriter | None:
        if not (headers.get("etag") or headers.get("last-modified")):
            return None
        return _CacheWriter(self, url, headers)


class _CacheWriter:
    def __init__(self, cache: _Cache, url: str, headers: dict[str, str]) -> None:
        self._cache = cache
        self._meta_path, self._body_path = cache._paths(url)
        self._headers = headers
        fd, name = tempfile.mkstemp(dir=cache.directory, suffix=".part")
        self._tmp = Path(name)
        self._file = os.fdopen(fd, "wb")

    def write(self, data: bytes) -> None:
        self._file.write(data)

    def commit(self) -> None:
        """Put body and validators in place together (two threads fetching one URL must not mix them)."""
        self._file.close()
        meta = {
            "etag": self._headers.get("etag"),
            "last-modified": self._headers.get("last-modified"),
            "headers": {k: v for k, v in self._headers.items() if k in ("content-type",)},
        }
        meta_tmp = self._tmp.with_suffix(".json.part")
        meta_tmp.write_text(json.dumps(meta), "utf-8")
        with self._cache._lock:
            os.replace(self._tmp, self._body_path)
            os.replace(meta_tmp, self._meta_path)

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

    def read(self, size: int = -1) -> bytes:
        data = self._inner.read(size)
        if data:
            self.writer.write(data)
        else:
            self.complete = True
        return data


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delay-seconds or an HTTP-date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _without_fragment(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", parts.query, ""))


class Fetcher:
    """Fetches URLs with one pooled client; safe to share between threads.  Close it (or use ``with``)."""

    def __init__(self, settings: HttpSettings | None = None) -> None:
        self.settings = settings or HttpSettings()
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()
        self._gate = _HostGate(self.settings.host_delay)
        self._cache = _Cache(self.settings.cache_dir) if self.settings.cache_dir is not None else None
        self._robots: dict[tuple[str, str, int], RobotsPolicy] = {}
        self._robots_locks: dict[tuple[str, str, int], threading.Lock] = {}
        #: Requests sent, including retries and revalidations (for progress and tests).
        self.requests = 0

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                s = self.settings
                self._client = httpx.Client(
                    headers={"User-Agent": s.user_agent, "Accept-Encoding": "gzip"},
                    timeout=httpx.Timeout(s.read_timeout, connect=s.connect_timeout),
                    follow_redirects=True,
                    max_redirects=s.max_redirects,
                    limits=httpx.Limits(
                        max_connections=s.max_connections, max_keepalive_connections=s.max_connections
                    ),
                    trust_env=False,
                )
            return self._client

    @contextlib.contextmanager
    def open(self, url: str, *, max_bytes: int, accept: str | None = None) -> Iterator[Fetched]:
        """GET ``url`` and yield the response once its status is 2xx (or 304 answered from the cache).

        Raises :class:`FetchError` (``http-404``, ``timeout``, ``too-many-redirects``, ``fetch-failed``)
        or :class:`LimitError` (``too-large``).  The body streams: read it inside the ``with``.
        """
        try:
            request_url = _without_fragment(url)
            origin(request_url)
        except ValueError as exc:
            raise FetchError(f"{url}: not a valid URL ({exc})", url=url, code="invalid-url") from None
        client = self._http()
        settings = self.settings
        cached = self._cache.validators(request_url) if self._cache is not None else None
        headers = {"Accept": accept} if accept else {}
        if cached is not None:
            headers.update(cached[0])
        deadline = time.monotonic() + settings.total_timeout
        attempt = 0
        while True:
            self._gate.wait(request_url)
            self.requests += 1
            stack = contextlib.ExitStack()
            try:
                response = stack.enter_context(client.stream("GET", request_url, headers=headers))
            except httpx.TooManyRedirects:
                stack.close()
                raise FetchError(
                    f"{url}: more than {settings.max_redirects} redirects", url=url, code="too-many-redirects"
                ) from None
            except httpx.TimeoutException:
                stack.close()
                raise FetchError(
                    f"{url}: no answer within {settings.connect_timeout:g}/{settings.read_timeout:g} s "
                    "(connect/read timeout)",
                    url=url,
                    code="timeout",
                ) from None
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                stack.close()
                if attempt < settings.retries and isinstance(exc, (httpx.ConnectError, httpx.RemoteProtocolError)):
                    attempt += 1
                    self._sleep(settings.backoff * 2 ** (attempt - 1), url, deadline)
                    continue
                raise FetchError(f"{url}: cannot fetch ({exc or type(exc).__name__})", url=url) from None
            status = response.status_code
            if status in RETRY_STATUSES and attempt < settings.retries:
                wait = _retry_after(response.headers.get("retry-after"))
                stack.close()
                if wait is not None and wait > settings.max_retry_wait:
                    raise FetchError(
                        f"{url}: HTTP {status}, and the server asks to retry after {wait:.0f} s "
                        f"(more than {settings.max_retry_wait:g} s); gave up",
                        url=url,
                        code=f"http-{status}",
                        status=status,
                    )
                attempt += 1
                self._sleep(wait if wait is not None else settings.backoff * 2 ** (attempt - 1), url, deadline)
                continue
            break
        with stack:
            final = str(response.url)
            plain_headers = {k.lower(): v for k, v in response.headers.items()}
            if status == 304 and cached is not None and self._cache is not None:
                with self._cache.open_body(request_url) as body_file:
                    yield Fetched(url, final, 200, {**cached[1], **plain_headers}, body_file, from_cache=True)
                return
            if not 200 <= status < 300:
                reason = response.reason_phrase or ""
                raise FetchError(
                    f"{url}: HTTP {status} {reason}".rstrip(), url=url, code=f"http-{status}", status=status
                )
            length = plain_headers.get("content-length", "")
            if length.isdigit() and int(length) > max_bytes:
                raise _too_large(url, max_bytes)
            # no chunk size: each piece as it comes off the socket (httpx's chunker would wait for a whole
            # chunk, so a trickling body would pass the deadline and the cap would be checked late)
            raw = _RawBody(response.iter_raw(), url=url, limit=max_bytes, deadline=deadline)
            body: Readable = raw
            encoding = plain_headers.get("content-encoding", "identity").strip().lower()
            if encoding in ("gzip", "x-gzip"):
                body = _Decoded(GzipReader(raw), url=url, limit=max_bytes)
            elif encoding not in ("", "identity"):
                raise FetchError(
                    f"{url}: unsupported Content-Encoding {encoding!r}", url=url, code="bad-encoding"
                )
            recorder = self._cache.recorder(request_url, plain_headers) if self._cache is not None else None
            tee = _Teeing(body, recorder) if recorder is not None else None
            try:
                yield Fetched(url, final, status, plain_headers, tee if tee is not None else body)
            finally:
                if tee is not None:
                    if tee.complete:
                        tee.writer.commit()
                    else:
                        tee.writer.discard()

    def _sleep(self, seconds: float, url: str, deadline: float) -> None:
        if time.monotonic() + seconds > deadline:
            raise FetchError(f"{url}: retries would pass the response deadline; gave up", url=url, code="timeout")
        time.sleep(seconds)

    def get(self, url: str, *, max_bytes: int, accept: str | None = None) -> tuple[Fetched, bytes]:
        """The whole (capped) body at once, with the response it came from."""
        with self.open(url, max_bytes=max_bytes, accept=accept) as fetched:
            return fetched, fetched.read_all()

    def robots(self, url: str) -> RobotsPolicy:
        """The robots.txt policy of ``url``'s site, fetched once per site and shared between threads."""
        try:
            site = origin(url)
        except ValueError as exc:
            raise FetchError(f"{url}: not a valid URL ({exc})", url=url, code="invalid-url") from None
        with self._lock:
            lock = self._robots_locks.setdefault(site, threading.Lock())
        with lock:
            policy = self._robots.get(site)
            if policy is None:
                policy = self._robots[site] = self._fetch_robots(url)
            return policy

    def _fetch_robots(self, url: str) -> RobotsPolicy:
        parts = urlsplit(url)
        robots_url = urlunsplit((parts.scheme, parts.netloc, "/robots.txt", "", ""))
        try:
            _, data = self.get(robots_url, max_bytes=ROBOTS_MAX_BYTES * 4, accept="text/plain")
        except FetchError as exc:
            if exc.status is not None and 400 <= exc.status < 500:
                return RobotsPolicy(None, allow_all=True)  # RFC 9309 2.3.1.3: unavailable, crawl freely
            # 2.3.1.4: unreachable, assume complete disallow
            why = f"{robots_url} could not be read ({exc.code}), and RFC 9309 then disallows the whole site"
            return RobotsPolicy(None, allow_all=False, unavailable=why)
        except LimitError:
            why = f"{robots_url} is too large to read, and RFC 9309 then disallows the whole site"
            return RobotsPolicy(None, allow_all=False, unavailable=why)
        text = data[:ROBOTS_MAX_BYTES].decode("utf-8", "replace")
        return RobotsPolicy(text, allow_all=True, token=robots_token(self.settings.user_agent))
