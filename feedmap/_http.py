"""Fetching over HTTP(S): one pooled client, timeouts, retries, redirects, size caps, robots.txt.

What it implements, and where the rules come from:

* **Retries** (RFC 9110 §15.6, RFC 6585 §4): 429 and the 5xx statuses that say "try later" (500, 502, 503,
  504) are retried with exponential backoff; a ``Retry-After`` header (seconds or an HTTP-date, RFC 9110
  §10.2.3) is honoured up to :attr:`HttpSettings.max_retry_wait`.  Connection failures are retried too;
  a timeout is not (it has already waited long).
* **Redirects** (RFC 9110 §15.4) are followed up to :attr:`HttpSettings.max_redirects`, one hop at a time:
  each hop's target must be an http(s) URL and pass the caller's rule (an index child must stay on its
  index's site) *before* it is requested, else the fetch fails with ``redirect-refused``.
* **Size caps while streaming**: a ``Content-Length`` above the cap fails before the body is read; the
  body is counted as it arrives, before and after content decoding, and reading stops at the cap.
  ``Content-Encoding: gzip`` (RFC 9110 §8.4.1.3) is decoded here with :class:`feedmap._sources.GzipReader`,
  which inflates a bounded amount per call, so a compression bomb never sits in memory.  Only gzip is
  asked for (``Accept-Encoding: gzip``).
* **Timeouts**: connect and read timeouts per socket operation, and one deadline for the whole request
  (:meth:`HttpSettings.response_deadline`, ``--deadline``): connecting, every redirect hop, the headers,
  the body and the waits between retries together, so a server that trickles one header line or one
  byte a second is cut off too.  The deadline counts the time spent waiting on the server, not the time
  the caller takes between two reads of the body.  It is enforced inside the socket reads themselves
  (an httpcore network backend shortens each read's timeout to what is left), as httpx's own timeouts
  are per read.
* **Conditional GET** (RFC 9110 §13.1): with a cache directory, a response's ``ETag`` and
  ``Last-Modified`` are kept with its body, sent back as ``If-None-Match`` / ``If-Modified-Since``, and a
  ``304 Not Modified`` is answered from the cache.
* **robots.txt** (RFC 9309) is read with Protego (Scrapy's parser: wildcards, longest match): a 4xx
  robots.txt allows everything, a 5xx or an unreachable one disallows everything (RFC 9309 §2.3.1.3-4).
  Only the first 500 KiB are parsed, as RFC 9309 §2.5 allows (a longer file is cut at its last whole
  line there, and :attr:`RobotsPolicy.note` says so).  ``Sitemap:`` lines are read in any case, from any
  group.
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, Protocol
from urllib.parse import urlsplit, urlunsplit

import httpcore
import httpx
from protego import Protego

from feedmap._urls import is_http_url, origin
from feedmap._context import DEFAULT_USER_AGENT, HttpSettings
from feedmap._errors import FetchError, LimitError, SourceError
from feedmap._sources import GzipReader

__all__ = [
    "DEFAULT_USER_AGENT",
    "Fetched",
    "Fetcher",
    "HttpSettings",
    "RedirectRule",
    "RobotsPolicy",
]

#: Decides whether a redirect is followed: sees the target URL, returns why not (or None to follow it).
RedirectRule = Callable[[str], "str | None"]

#: The token matched against robots.txt ``User-agent`` lines (RFC 9309 §2.2.1: the product token).
ROBOTS_TOKEN = "feedmap"


def robots_token(user_agent: str) -> str:
    """The product token of a User-Agent (``MyBot/1.0 (+url)`` -> ``mybot``), which robots.txt groups name."""
    token = user_agent.strip().split("/", 1)[0].split(" ", 1)[0].strip().lower()
    return token or ROBOTS_TOKEN


RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_CHUNK = 64 * 1024
ROBOTS_MAX_BYTES = 500 * 1024  # RFC 9309 §2.5: crawlers must parse at least 500 KiB
#: The cap given to fetches that stop reading on their own (robots.txt): no Content-Length is too large.
UNCAPPED = 1 << 62


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


_deadline = threading.local()


def _bounded(timeout: float | None, timeout_error: type[Exception]) -> float | None:
    """``timeout`` shortened to what is left of the running request's deadline (set by :class:`_Clock`)."""
    cutoff: float | None = getattr(_deadline, "at", None)
    if cutoff is None:
        return timeout
    left = cutoff - time.monotonic()
    if left <= 0:
        raise timeout_error("the request's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read and write waits no longer than the request's deadline allows."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's socket backend with :class:`_DeadlineStream` connections."""

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.connect_tcp(host, port, bounded, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.connect_unix_socket(path, bounded, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _Transport(httpx.HTTPTransport):
    """httpx's transport over :class:`_DeadlineBackend` (httpx takes no network backend, httpcore does)."""

    def __init__(self, limits: httpx.Limits) -> None:
        super().__init__(limits=limits, trust_env=False)
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_DeadlineBackend(),
        )


class _Clock:
    """What is left of one request's deadline: the time spent waiting on the server is counted against it."""

    def __init__(self, budget: float) -> None:
        self.budget = budget
        self.spent = 0.0

    @property
    def left(self) -> float:
        return self.budget - self.spent

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Around a call that waits on the server (on this thread): its socket waits end at the deadline."""
        previous = getattr(_deadline, "at", None)
        started = time.monotonic()
        _deadline.at = started + self.left
        try:
            yield
        finally:
            self.spent += time.monotonic() - started
            _deadline.at = previous

    def timed_out(self, url: str) -> FetchError:
        return FetchError(
            f"{url}: no complete response within the {self.budget:g} s deadline "
            "(connection, redirects, headers and body)",
            url=url,
            code="timeout",
        )


class _RawBody:
    """The undecoded body as a stream: counts bytes, enforces the cap and the deadline, maps errors."""

    def __init__(self, chunks: Iterator[bytes], *, url: str, limit: int, clock: _Clock) -> None:
        self._chunks = chunks
        self._url = url
        self._limit = limit
        self._clock = clock
        self._buffer = b""
        self._total = 0
        self.finished = False

    def read(self, size: int = -1) -> bytes:
        want = size if size > 0 else _CHUNK
        while not self._buffer and not self.finished:
            if self._clock.left <= 0:
                raise self._clock.timed_out(self._url)
            try:
                with self._clock.running():
                    chunk = next(self._chunks)
            except StopIteration:
                self.finished = True
                break
            except httpx.TimeoutException:
                if self._clock.left <= 0:
                    raise self._clock.timed_out(self._url) from None
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
        f"the response is larger than {limit:,} bytes",
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
        #: Something to tell about how robots.txt was read (only its first 500 KiB), else None.
        self.note: str | None = None
        self._noted = threading.Lock()
        self.sitemaps: list[str] = list(self._parser.sitemaps) if self._parser is not None else []

    def take_note(self) -> str | None:
        """:attr:`note` the first time it is asked for (from any thread), then None: say it once per site."""
        if self.note is None or not self._noted.acquire(blocking=False):
            return None
        return self.note

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

    def open_body(self, url: str) -> BinaryIO:
        return self._paths(url)[1].open("rb")

    def recorder(self, url: str, headers: dict[str, str]) -> _CacheWriter | None:
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
                limits = httpx.Limits(max_connections=s.max_connections, max_keepalive_connections=s.max_connections)
                self._client = httpx.Client(
                    headers={"User-Agent": s.user_agent, "Accept-Encoding": "gzip"},
                    timeout=httpx.Timeout(s.read_timeout, connect=s.connect_timeout),
                    follow_redirects=False,  # followed hop by hop in _respond, each target checked first
                    transport=_Transport(limits),
                    trust_env=False,
                )
            return self._client

    @contextlib.contextmanager
    def open(
        self, url: str, *, max_bytes: int, accept: str | None = None, redirect_rule: RedirectRule | None = None
    ) -> Iterator[Fetched]:
        """GET ``url`` and yield the response once its status is 2xx (or 304 answered from the cache).

        ``redirect_rule`` sees each redirect's target before it is requested and returns why it is not
        followed (or None).  Raises :class:`FetchError` (``http-404``, ``timeout``, ``too-many-redirects``,
        ``redirect-refused``, ``fetch-failed``) or :class:`LimitError` (``too-large``).  The body streams:
        read it inside the ``with``.
        """
        try:
            request_url = _without_fragment(url)
            origin(request_url)
        except ValueError as exc:
            raise FetchError(f"{url}: not a valid URL ({exc})", url=url, code="invalid-url") from None
        cached = self._cache.validators(request_url) if self._cache is not None else None
        headers = {"Accept": accept} if accept else {}
        if cached is not None:
            headers.update(cached[0])
        clock = _Clock(self.settings.response_deadline())
        stack, response = self._respond(url, request_url, headers, clock, redirect_rule)
        with stack:
            status = response.status_code
            final = str(response.url)
            plain_headers = {k.lower(): v for k, v in response.headers.items()}
            if status == 304 and cached is not None and self._cache is not None:
                with self._cached_body(url, request_url) as body_file:
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
            raw = _RawBody(response.iter_raw(), url=url, limit=max_bytes, clock=clock)
            body: Readable = raw
            encoding = plain_headers.get("content-encoding", "identity").strip().lower()
            if encoding in ("gzip", "x-gzip"):
                body = _Decoded(GzipReader(raw), url=url, limit=max_bytes)
            elif encoding not in ("", "identity"):
                raise FetchError(f"{url}: unsupported Content-Encoding {encoding!r}", url=url, code="bad-encoding")
            recorder = self._cache.recorder(request_url, plain_headers) if self._cache is not None else None
            tee = _Teeing(body, recorder) if recorder is not None else None
            try:
                yield Fetched(url, final, status, plain_headers, tee if tee is not None else body)
            finally:
                if tee is not None:
                    if tee.complete and not tee.failed:
                        tee.writer.commit()
                    else:
                        tee.writer.discard()

    def _respond(
        self, url: str, request_url: str, headers: dict[str, str], clock: _Clock, rule: RedirectRule | None
    ) -> tuple[contextlib.ExitStack, httpx.Response]:
        """Send the request, retrying and following redirects; the response (headers read) and what closes it."""
        client = self._http()
        settings = self.settings
        target = request_url
        request: httpx.Request | None = None
        attempt = hops = 0
        while True:
            self._gate.wait(target)
            self.requests += 1
            stack = contextlib.ExitStack()
            try:
                if clock.left <= 0:
                    raise clock.timed_out(url)
                with clock.running():
                    request = request or client.build_request("GET", target, headers=headers)
                    response = client.send(request, stream=True)
                stack.callback(response.close)
            except httpx.TimeoutException as exc:
                stack.close()
                raise self._timed_out(url, clock, connecting=isinstance(exc, httpx.ConnectTimeout)) from None
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                stack.close()
                if _bad_location(exc):  # the server answered: a redirect to no URL, which a retry repeats
                    raise FetchError(
                        f"{url}: redirects to a malformed URL ({exc}); the redirect is not followed",
                        url=url,
                        code="redirect-refused",
                    ) from None
                if attempt < settings.retries and isinstance(exc, (httpx.ConnectError, httpx.RemoteProtocolError)):
                    attempt += 1
                    self._sleep(settings.backoff * 2 ** (attempt - 1), url, clock)
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
                self._sleep(wait if wait is not None else settings.backoff * 2 ** (attempt - 1), url, clock)
                continue
            if response.next_request is None:
                return stack, response
            stack.close()
            request = response.next_request
            target = str(request.url)
            hops += 1
            self._check_redirect(url, target, hops, rule)
            attempt = 0

    def _check_redirect(self, url: str, target: str, hops: int, rule: RedirectRule | None) -> None:
        """Refuse a redirect before it is followed: too many hops, not http(s), or against ``rule``."""
        if hops > self.settings.max_redirects:
            raise FetchError(
                f"{url}: more than {self.settings.max_redirects} redirects", url=url, code="too-many-redirects"
            )
        why = "is not an http(s) URL" if not is_http_url(target) else rule(target) if rule is not None else None
        if why is not None:
            raise FetchError(
                f"{url}: redirects to {target}, which {why}; the redirect is not followed",
                url=url,
                code="redirect-refused",
            )

    def _timed_out(self, url: str, clock: _Clock, *, connecting: bool = False) -> FetchError:
        if clock.left <= 0:
            return clock.timed_out(url)
        settings = self.settings
        if connecting:
            what = f"no connection within {settings.connect_timeout:g} s"
        else:
            what = f"no answer within {settings.read_timeout:g} s (the read timeout)"
        return FetchError(f"{url}: {what}", url=url, code="timeout")

    @contextlib.contextmanager
    def _cached_body(self, url: str, request_url: str) -> Iterator[BinaryIO]:
        assert self._cache is not None
        try:
            body_file = self._cache.open_body(request_url)
        except OSError as exc:  # removed since its validators were read
            raise FetchError(
                f"{url}: the server answered 304 Not Modified, but the cached copy cannot be read "
                f"({exc.strerror or exc})",
                url=url,
                code="cache-failed",
            ) from None
        with body_file:
            yield body_file

    def _sleep(self, seconds: float, url: str, clock: _Clock) -> None:
        if seconds > clock.left:
            raise FetchError(f"{url}: retries would pass the response deadline; gave up", url=url, code="timeout")
        time.sleep(seconds)
        clock.spent += seconds

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
            with self.open(robots_url, max_bytes=UNCAPPED, accept="text/plain") as fetched:
                data, cut = read_head(fetched, ROBOTS_MAX_BYTES)
        except FetchError as exc:
            if exc.status is not None and 400 <= exc.status < 500:
                return RobotsPolicy(None, allow_all=True)  # RFC 9309 2.3.1.3: unavailable, crawl freely
            # 2.3.1.4: unreachable, assume complete disallow
            why = f"{robots_url} could not be read ({exc.code}), and RFC 9309 then disallows the whole site"
            return RobotsPolicy(None, allow_all=False, unavailable=why)
        text = data.decode("utf-8", "replace")
        policy = RobotsPolicy(text, allow_all=True, token=robots_token(self.settings.user_agent))
        if cut:
            policy.note = robots_cut_note(robots_url)
        return policy


def _bad_location(exc: Exception) -> bool:
    """True for httpx's error on a redirect whose ``Location`` is no URL (raised once the response is in)."""
    return isinstance(exc, httpx.RemoteProtocolError) and str(exc).startswith("Invalid URL in location header")


def read_head(stream: Readable, limit: int) -> tuple[bytes, bool]:
    """At most the first ``limit`` bytes of ``stream``, cut after their last line break when there is more
    (a rule cut in the middle is not read), and whether there was more."""
    parts: list[bytes] = []
    size = 0
    while size <= limit and (chunk := stream.read(limit + 1 - size)):
        parts.append(chunk)
        size += len(chunk)
    data = b"".join(parts)
    if len(data) <= limit:
        return data, False
    data = data[:limit]
    end = max(data.rfind(b"\n"), data.rfind(b"\r"))
    return (data[: end + 1] if end >= 0 else data), True


def robots_cut_note(robots_url: str) -> str:
    return (
        f"{robots_url} is larger than {ROBOTS_MAX_BYTES // 1024} KiB; only its first "
        f"{ROBOTS_MAX_BYTES // 1024} KiB were read (RFC 9309 §2.5)"
    )
