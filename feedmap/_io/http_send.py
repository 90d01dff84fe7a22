"""Sending one GET over httpx: retries, redirects hop by hop, and the body as a capped, timed stream.

One job: the wire side of :meth:`feedmap._io.http.Fetcher.open` (the rules are listed in :mod:`feedmap._io.http`):

* **send**: one request on the pooled client, within the request's deadline (:mod:`feedmap._io.http_deadline`);
  a host IDNA refuses (httpx decoding an ``xn--`` label, RFC 5891 §5.4; Python encoding a name for
  ``getaddrinfo``, RFC 3490: an empty label, one over 63 characters) is a fetch failure, never retried;
* **retry** (RFC 9110 §15.6, RFC 6585 §4): 429, 500, 502, 503 and 504, and connection failures, with
  exponential backoff or the server's ``Retry-After`` (RFC 9110 §10.2.3), up to ``max_retry_wait``;
* **redirect** (RFC 9110 §15.4): followed one hop at a time, each target checked before it is requested,
  with the conditional headers (RFC 9110 §13.1) of that target only, never those of the URL before it;
* **body**: the undecoded bytes counted against the cap and the deadline as they arrive, then
  ``Content-Encoding: gzip`` (RFC 9110 §8.4.1.3) inflated by :class:`feedmap._io.gzip.GzipReader` and
  counted again.

httpx is imported here only: :mod:`feedmap._io.http` loads this module when it first sends a request.
"""

from __future__ import annotations

import contextlib
import email.utils
import re
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx

from feedmap._core.errors import FetchError
from feedmap._core.http_settings import HttpSettings
from feedmap._core.urls import is_http_url
from feedmap._core.wording import counted
from feedmap._io.gzip import GzipReader, Readable
from feedmap._io.http_cache import too_large
from feedmap._io.http_deadline import Clock, DeadlineTransport

__all__ = ["CONDITIONAL_HEADERS", "RETRY_STATUSES", "Answer", "Conditions", "Wire", "too_large"]

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: The request headers that make a GET conditional (RFC 9110 §13.1), which belong to one URL.
CONDITIONAL_HEADERS = ("If-None-Match", "If-Modified-Since")
#: Gives the conditional headers to send with a request for a URL (the validators kept for it), or none.
Conditions = Callable[[str], dict[str, str]]
_CHUNK = 64 * 1024


@dataclass(slots=True)
class _Exchange:
    """One fetch as it goes: where the next request goes, how many tries and hops so far, the deadline."""

    url: str
    target: str
    headers: dict[str, str]
    rule: Callable[[str], str | None] | None
    clock: Clock
    conditions: Conditions | None = None
    request: httpx.Request | None = None
    attempt: int = 0
    hops: int = 0


class Answer:
    """The final response of a fetch, its headers read: status, final URL, headers (lower-case names), body."""

    def __init__(self, url: str, response: httpx.Response, clock: Clock) -> None:
        self.url = url
        self.status = response.status_code
        self.final_url = str(response.url)
        self.headers = {k.lower(): v for k, v in response.headers.items()}
        self._response = response
        self._clock = clock

    def refuse_errors(self) -> None:
        """:class:`FetchError` ``http-STATUS`` unless the status is 2xx."""
        status = self.status
        if not 200 <= status < 300:
            reason = self._response.reason_phrase or ""
            url = self.url
            raise FetchError(f"{url}: HTTP {status} {reason}".rstrip(), url=url, code=f"http-{status}", status=status)

    def body(self, max_bytes: int) -> Readable:
        """The content-decoded body as a stream, capped at ``max_bytes`` before and after decoding."""
        url = self.url
        length = _whole_number(self.headers.get("content-length", ""))
        if length is not None and length > max_bytes:
            raise too_large(url, max_bytes)
        # no chunk size: each piece as it comes off the socket (httpx's chunker would wait for a whole
        # chunk, so a trickling body would pass the deadline and the cap would be checked late)
        raw = _RawBody(self._response.iter_raw(), url=url, limit=max_bytes, clock=self._clock)
        encoding = self.headers.get("content-encoding", "identity").strip().lower()
        if encoding in ("gzip", "x-gzip"):
            return _Decoded(GzipReader(raw), url=url, limit=max_bytes)
        if encoding not in ("", "identity"):
            raise FetchError(f"{url}: unsupported Content-Encoding {encoding!r}", url=url, code="bad-encoding")
        return raw


class Wire:
    """The pooled httpx client (thread-safe, connections pooled per host) and the request loop.

    ``before_send`` is called with each request's URL before it goes out, retries and hops included.
    """

    def __init__(self, settings: HttpSettings, before_send: Callable[[str], None]) -> None:
        self._settings = settings
        self._before_send = before_send
        limits = httpx.Limits(
            max_connections=settings.max_connections, max_keepalive_connections=settings.max_connections
        )
        self._client = httpx.Client(
            headers={"User-Agent": settings.user_agent, "Accept-Encoding": "gzip"},
            timeout=httpx.Timeout(settings.read_timeout, connect=settings.connect_timeout),
            follow_redirects=False,  # followed hop by hop in _respond, each target checked first
            transport=DeadlineTransport(limits),
            trust_env=False,
        )

    def close(self) -> None:
        self._client.close()

    @contextlib.contextmanager
    def exchange(
        self,
        url: str,
        request_url: str,
        headers: dict[str, str],
        rule: Callable[[str], str | None] | None,
        conditions: Conditions | None = None,
    ) -> Iterator[Answer]:
        """GET ``request_url`` (``url`` as given, for messages), retrying and following redirects; the final
        response, closed when the ``with`` ends.  ``conditions`` gives the conditional headers of each hop's
        target, asked once per hop before it is requested."""
        clock = Clock(self._settings.response_deadline())
        if conditions is not None:  # the record of the URL as httpx requests it: what the answer is kept under
            headers = {**_unconditional(headers), **conditions(_as_requested(request_url))}
        response = self._respond(_Exchange(url, request_url, headers, rule, clock, conditions))
        try:
            yield Answer(url, response, clock)
        finally:
            response.close()

    def _respond(self, exchange: _Exchange) -> httpx.Response:
        while True:
            response = self._send(exchange)
            if response is None or self._retried(exchange, response):
                continue
            if response.next_request is None:
                return response
            response.close()
            self._redirect(exchange, response.next_request)

    def _send(self, exchange: _Exchange) -> httpx.Response | None:
        """Send the request once; None when a connection failure is to be retried (after the wait)."""
        self._before_send(exchange.target)
        clock = exchange.clock
        try:
            if clock.left <= 0:
                raise clock.timed_out(exchange.url)
            with clock.running():
                exchange.request = exchange.request or self._client.build_request(
                    "GET", exchange.target, headers=exchange.headers
                )
                return self._client.send(exchange.request, stream=True)
        except httpx.TimeoutException as exc:
            raise self._timed_out(exchange, connecting=isinstance(exc, httpx.ConnectTimeout)) from None
        except httpx.InvalidURL as exc:
            if exchange.request is None:  # the URL asked for (checked before: not expected)
                raise FetchError(
                    f"{exchange.url}: not a valid URL ({exc})", url=exchange.url, code="invalid-url"
                ) from None
            raise _refused_location(exchange.url, exc) from None  # httpx could not make a URL of the Location
        except httpx.HTTPError as exc:
            self._connection_failed(exchange, exc)
            return None
        except UnicodeError as exc:  # no OSError, so no httpx error: a host IDNA refuses, never retried
            url = exchange.url
            raise FetchError(f"{url}: cannot fetch (a host name that cannot be encoded: {exc})", url=url) from None

    def _connection_failed(self, exchange: _Exchange, exc: Exception) -> None:
        """Wait before a retry of a failed connection, or raise :class:`FetchError`."""
        url = exchange.url
        if _bad_location(exc):  # the server answered: a redirect to no URL, which a retry repeats
            raise _refused_location(url, exc) from None
        if exchange.attempt < self._settings.retries and isinstance(
            exc, (httpx.ConnectError, httpx.RemoteProtocolError)
        ):
            exchange.attempt += 1
            self._sleep(self._settings.backoff * 2 ** (exchange.attempt - 1), exchange)
            return
        raise FetchError(f"{url}: cannot fetch ({exc or type(exc).__name__})", url=url) from None

    def _retried(self, exchange: _Exchange, response: httpx.Response) -> bool:
        """True when ``response`` says "try later" and a retry is due (the response closed, the wait done)."""
        settings = self._settings
        status = response.status_code
        if status not in RETRY_STATUSES or exchange.attempt >= settings.retries:
            return False
        wait = _retry_after(response.headers.get("retry-after"))
        response.close()
        if wait is not None and wait > settings.max_retry_wait:
            url = exchange.url
            raise FetchError(
                f"{url}: HTTP {status}, and the server asks to retry after {wait:.0f} s "
                f"(more than {settings.max_retry_wait:g} s); gave up",
                url=url,
                code=f"http-{status}",
                status=status,
            )
        exchange.attempt += 1
        self._sleep(wait if wait is not None else settings.backoff * 2 ** (exchange.attempt - 1), exchange)
        return True

    def _redirect(self, exchange: _Exchange, request: httpx.Request) -> None:
        """Make ``request`` (a redirect's) the next one, once its target passed the checks."""
        exchange.request = request
        exchange.target = str(request.url)
        exchange.hops += 1
        self._check_redirect(exchange)
        exchange.attempt = 0
        for name in CONDITIONAL_HEADERS:  # httpx carries them over: they belong to the URL before
            request.headers.pop(name, None)
        if exchange.conditions is not None:
            request.headers.update(exchange.conditions(exchange.target))

    def _check_redirect(self, exchange: _Exchange) -> None:
        """Refuse a redirect before it is followed: too many hops, not http(s), or against the rule."""
        url, target, rule = exchange.url, exchange.target, exchange.rule
        if exchange.hops > self._settings.max_redirects:
            raise FetchError(
                f"{url}: more than {counted(self._settings.max_redirects, 'redirect')}",
                url=url,
                code="too-many-redirects",
            )
        why = "is not an http(s) URL" if not is_http_url(target) else rule(target) if rule is not None else None
        if why is not None:
            raise FetchError(
                f"{url}: redirects to {target}, which {why}; the redirect is not followed",
                url=url,
                code="redirect-refused",
            )

    def _timed_out(self, exchange: _Exchange, *, connecting: bool = False) -> FetchError:
        url, clock, settings = exchange.url, exchange.clock, self._settings
        if clock.left <= 0:
            return clock.timed_out(url)
        if connecting:
            what = f"no connection within {settings.connect_timeout:g} s"
        else:
            what = f"no answer within {settings.read_timeout:g} s (the read timeout)"
        return FetchError(f"{url}: {what}", url=url, code="timeout")

    def _sleep(self, seconds: float, exchange: _Exchange) -> None:
        url, clock = exchange.url, exchange.clock
        if seconds > clock.left:
            raise FetchError(f"{url}: retries would pass the response deadline; gave up", url=url, code="timeout")
        time.sleep(seconds)
        clock.spent += seconds


class _RawBody:
    """The undecoded body as a stream: counts bytes, enforces the cap and the deadline, maps errors."""

    def __init__(self, chunks: Iterator[bytes], *, url: str, limit: int, clock: Clock) -> None:
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
            chunk = self._next_chunk()
            if chunk is None:
                self.finished = True
                break
            self._total += len(chunk)
            if self._total > self._limit:
                raise too_large(self._url, self._limit)
            self._buffer = chunk
        data, self._buffer = self._buffer[:want], self._buffer[want:]
        return data

    def _next_chunk(self) -> bytes | None:
        """The next piece off the socket, None at the end; a timeout or a broken connection is a FetchError."""
        url, clock = self._url, self._clock
        if clock.left <= 0:
            raise clock.timed_out(url)
        try:
            with clock.running():
                return next(self._chunks)
        except StopIteration:
            return None
        except httpx.TimeoutException:
            if clock.left <= 0:
                raise clock.timed_out(url) from None
            raise FetchError(f"{url}: timed out while reading the response", url=url, code="timeout") from None
        except httpx.HTTPError as exc:
            raise FetchError(f"{url}: the connection failed ({exc})", url=url) from None


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
            raise too_large(self._url, self._limit)
        return data


def _as_requested(url: str) -> str:
    """``url`` as httpx sends it (``é`` and blanks percent-encoded, the host normalised), which is the final URL
    of an answer without redirects: the key its cache record is kept under."""
    try:
        return str(httpx.URL(url))
    except httpx.InvalidURL:  # refused when sent, with its message
        return url


def _unconditional(headers: dict[str, str]) -> dict[str, str]:
    """``headers`` without the conditional ones (whatever their case)."""
    names = {name.lower() for name in CONDITIONAL_HEADERS}
    return {name: value for name, value in headers.items() if name.lower() not in names}


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delay-seconds or an HTTP-date), or None."""
    if not value:
        return None
    value = value.strip()
    seconds = _whole_number(value)
    if seconds is not None:
        return float(seconds)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


#: A header's whole number (RFC 9110 §5.6.1 ``1*DIGIT``): ASCII digits only, where ``str.isdigit`` also takes
#: ``²`` and ``٣``, which ``int`` refuses or reads as another number.
_DIGITS = re.compile(r"[0-9]+", re.ASCII)
#: More digits than this are read as this many nines: above any cap or wait, and no int too long to print.
_MOST_DIGITS = 18


def _whole_number(value: str) -> int | None:
    """``value`` as a header's whole number (``Content-Length``, ``Retry-After`` seconds), else None."""
    value = value.strip()
    if _DIGITS.fullmatch(value) is None:
        return None
    return int(value) if len(value) <= _MOST_DIGITS else int("9" * _MOST_DIGITS)


def _refused_location(url: str, exc: Exception) -> FetchError:
    """``redirect-refused`` for a ``Location`` that is no URL (``http://[::1``) or that httpx cannot request
    (``javascript:alert(1)``, ``data:...``: a scheme without a host, which httpx gives the request's host)."""
    return FetchError(
        f"{url}: redirects to a malformed URL ({exc}); the redirect is not followed", url=url, code="redirect-refused"
    )


def _bad_location(exc: Exception) -> bool:
    """True for httpx's error on a redirect whose ``Location`` is no URL (raised once the response is in)."""
    return isinstance(exc, httpx.RemoteProtocolError) and str(exc).startswith("Invalid URL in location header")
