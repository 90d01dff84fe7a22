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
  ``Content-Encoding: gzip`` (RFC 9110 §8.4.1.3) is decoded with :class:`feedmap._io.gzip.GzipReader`,
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
  ``Last-Modified`` are kept with its body under the URL that answered it, sent back as ``If-None-Match`` /
  ``If-Modified-Since`` to that URL only (each redirect hop its own), and a ``304 Not Modified`` is answered
  with that URL's kept body, capped as a fetched body is; ``Cache-Control: no-store`` responses are not
  kept (RFC 9111 §3, see :mod:`feedmap._io.http_cache`).
* **robots.txt** (RFC 9309) is read with Protego (Scrapy's parser: wildcards, longest match): a 4xx
  robots.txt allows everything, a 5xx or an unreachable one disallows everything (RFC 9309 §2.3.1.3-4).
  Only the first 500 KiB are parsed, as RFC 9309 §2.5 allows (a longer file is cut at its last whole
  line there, and :attr:`RobotsPolicy.note` says so).  ``Sitemap:`` lines are read in any case, from any
  group.
* **Politeness**: an optional delay between two requests to the same host.

The client is :mod:`httpx`, shared by the threads of a :class:`concurrent.futures.ThreadPoolExecutor`
(``httpx.Client`` is thread-safe and pools connections per host).  This module is the public face and
the robots.txt policy; the parts live in private modules: sending, retrying, redirecting and the body
stream in :mod:`feedmap._io.http_send` (loaded with httpx on the first request, so that starting feedmap
does not pay for it), the deadline in :mod:`feedmap._io.http_deadline`, the cache in :mod:`feedmap._io.http_cache`
(loaded when a cache directory is given).  The settings are :class:`feedmap._core.http_settings.HttpSettings`
(carried by :class:`feedmap._core.context.Options`).  What one run shares, its one fetcher and its download
threads, is a :class:`Shared` the run makes and passes to what fetches (index following, enrichment, validate,
discover): the reader and writer contract (:class:`feedmap._core.context.Context`) carries none of it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from feedmap._core.errors import FetchError
from feedmap._core.http_settings import DEFAULT_USER_AGENT, HttpSettings
from feedmap._core.urls import origin
from feedmap._io.gzip import Readable

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    from protego import Protego

    from feedmap._io.http_cache import Cache, Kept
    from feedmap._io.http_send import Wire

__all__ = [
    "DEFAULT_USER_AGENT",
    "Fetched",
    "Fetcher",
    "HttpSettings",
    "RedirectRule",
    "RobotsPolicy",
    "Shared",
]

#: Decides whether a redirect is followed: sees the target URL, returns why not (or None to follow it).
RedirectRule = Callable[[str], "str | None"]

#: The token matched against robots.txt ``User-agent`` lines (RFC 9309 §2.2.1: the product token).
ROBOTS_TOKEN = "feedmap"


def robots_token(user_agent: str) -> str:
    """The product token of a User-Agent (``MyBot/1.0 (+url)`` -> ``mybot``), which robots.txt groups name."""
    token = user_agent.strip().split("/", 1)[0].split(" ", 1)[0].strip().lower()
    return token or ROBOTS_TOKEN


_CHUNK = 64 * 1024
ROBOTS_MAX_BYTES = 500 * 1024  # RFC 9309 §2.5: crawlers must parse at least 500 KiB
#: The cap given to fetches that stop reading on their own (robots.txt): no Content-Length is too large.
UNCAPPED = 1 << 62


@dataclass(slots=True)
class Fetched:
    """A response being read: its final URL, status, type, and its (content-decoded) body as a stream."""

    url: str
    final_url: str
    status: int
    headers: dict[str, str]
    body: Readable
    from_cache: bool = False

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
        self._parser: Protego | None = None
        if text:
            from protego import Protego  # imported when a robots.txt is read, not when feedmap starts

            self._parser = Protego.parse(text)
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


def _without_fragment(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", parts.query, ""))


def _cache_in(directory: Path | None) -> Cache | None:
    """The HTTP cache kept in ``directory``, or None; its module (hashlib, which maps OpenSSL) is imported
    only when a cache is asked for, not when feedmap starts."""
    if directory is None:
        return None
    from feedmap._io.http_cache import Cache

    return Cache(directory)


def _request_url(url: str) -> str:
    """``url`` as requested: without its fragment; :class:`FetchError` ``invalid-url`` when it is no URL."""
    try:
        request_url = _without_fragment(url)
        origin(request_url)
    except ValueError as exc:
        raise FetchError(f"{url}: not a valid URL ({exc})", url=url, code="invalid-url") from None
    return request_url


class Fetcher:
    """Fetches URLs with one pooled client; safe to share between threads.  Close it (or use ``with``)."""

    def __init__(self, settings: HttpSettings | None = None) -> None:
        self.settings = settings or HttpSettings()
        self._wire: Wire | None = None
        self._closed = False
        self._lock = threading.Lock()
        self._gate = _HostGate(self.settings.host_delay)
        self._cache = _cache_in(self.settings.cache_dir)
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
        """Close the client; a request asked for later (a worker of a run already closed) is refused."""
        with self._lock:
            self._closed = True
            if self._wire is not None:
                self._wire.close()
                self._wire = None

    def _connection(self, url: str) -> Wire:
        """The pooled client, made on first use (only then is httpx imported: it is slow to import); never made
        again once closed, so nothing is sent and no client is left open after the run ended."""
        with self._lock:
            if self._closed:
                raise FetchError(f"{url}: not fetched: the run that asked for it has ended", url=url)
            if self._wire is None:
                from feedmap._io.http_send import Wire

                self._wire = Wire(self.settings, self._before_send)
            return self._wire

    def _before_send(self, url: str) -> None:
        self._gate.wait(url)
        self.requests += 1

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
        request_url = _request_url(url)
        headers = {"Accept": accept} if accept else {}
        with contextlib.ExitStack() as stack:
            kept = _KeptPerHop(self._cache)
            stack.callback(kept.close)
            conditions = kept.conditions if self._cache is not None else None
            exchange = self._connection(url).exchange(url, request_url, headers, redirect_rule, conditions)
            answer = stack.enter_context(exchange)
            record = kept.current
            if answer.status == 304 and record is not None:
                merged = {**record.headers, **answer.headers}
                body = record.capped_body(url, max_bytes)
                yield Fetched(url, answer.final_url, 200, merged, body, from_cache=True)
                return
            kept.close()
            answer.refuse_errors()
            body = answer.body(max_bytes)
            with self._recorded(answer.final_url, answer.headers, body) as recorded:
                yield Fetched(url, answer.final_url, answer.status, answer.headers, recorded)

    def _recorded(
        self, request_url: str, headers: dict[str, str], body: Readable
    ) -> contextlib.AbstractContextManager[Readable]:
        """``body``, kept in the cache as it is read when there is a cache."""
        if self._cache is None:
            return contextlib.nullcontext(body)
        return self._cache.recording(request_url, headers, body)

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
        if cut is not None:
            policy.note = robots_cut_note(robots_url)
        return policy


class _KeptPerHop:
    """The cache record of the URL being requested, one hop after the other: each hop is sent the validators
    kept for its own URL (none from the URL before it), and a 304 is answered with that URL's body."""

    def __init__(self, cache: Cache | None) -> None:
        self._cache = cache
        self.current: Kept | None = None

    def conditions(self, url: str) -> dict[str, str]:
        """The conditional headers for a request of ``url``; the record of the hop before is let go."""
        self.close()
        if self._cache is not None:
            self.current = self._cache.kept(url)
        return dict(self.current.send) if self.current is not None else {}

    def close(self) -> None:
        if self.current is not None:
            self.current.close()
            self.current = None


class Shared:
    """What the fetching parts of one run share, each made on first use: the download threads and the HTTP
    fetcher.  The run that makes it passes it to what fetches, and closes it when it ends.

    Thread-safe: the threads of a run ask for the same pool and the same fetcher at once.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._fetcher: Fetcher | None = None

    def pool(self, workers: int) -> ThreadPoolExecutor:
        """The run's download threads (``workers`` of them, as the first caller asks)."""
        with self._lock:
            if self._pool is None:
                from concurrent.futures import ThreadPoolExecutor  # threads: made by the first run that fetches

                self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="feedmap-fetch")
            return self._pool

    def fetcher(self, settings: HttpSettings) -> Fetcher:
        """The run's one fetcher: made with ``settings`` when first asked for (from any thread), then the same
        for every caller and thread of the run until :meth:`close`."""
        with self._lock:
            if self._fetcher is None:
                self._fetcher = Fetcher(settings)
            return self._fetcher

    def close(self) -> None:
        """Stop the threads (queued work dropped), then close the fetcher; the next ask makes new ones."""
        with self._lock:
            pool, self._pool = self._pool, None
            fetcher, self._fetcher = self._fetcher, None
        if pool is not None:
            # queued work is dropped; requests in flight end on their own (their results are discarded), so
            # closing a document early or an interrupt does not wait for slow servers
            pool.shutdown(wait=False, cancel_futures=True)
        if fetcher is not None:
            fetcher.close()


def read_head(stream: Readable, limit: int) -> tuple[bytes, bytes | None]:
    """At most the first ``limit`` bytes of ``stream``, cut after their last line break when there is more
    (a rule cut in the middle is not read), and the line cut there (None when there was no more)."""
    parts: list[bytes] = []
    size = 0
    while size <= limit and (chunk := stream.read(limit + 1 - size)):
        parts.append(chunk)
        size += len(chunk)
    data = b"".join(parts)
    if len(data) <= limit:
        return data, None
    data = data[:limit]
    end = max(data.rfind(b"\n"), data.rfind(b"\r"))
    return data[: end + 1], data[end + 1 :]


def robots_cut_note(robots_url: str) -> str:
    return (
        f"{robots_url} is larger than {ROBOTS_MAX_BYTES // 1024} KiB; only its first "
        f"{ROBOTS_MAX_BYTES // 1024} KiB were read (RFC 9309 §2.5)"
    )
