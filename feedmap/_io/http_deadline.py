"""One deadline for a whole HTTP request, enforced inside the socket reads and writes.

One job: httpx's timeouts (https://www.python-httpx.org/advanced/timeouts/) apply to each socket
operation, so a server trickling one byte at a time never trips them.  :class:`Clock` holds what is left
of one request's budget (connecting, every redirect hop, the headers, the body and the waits between
retries); while a call waits on the server (:meth:`Clock.running`), every socket operation of this thread
waits no longer than what is left.  That is done by an httpcore network backend
(https://www.encode.io/httpcore/network-backends/) whose streams shorten each timeout.

httpx takes no network backend, httpcore does: :class:`DeadlineTransport` is a transport on httpx's
public transport API (``httpx.BaseTransport``, https://www.python-httpx.org/advanced/transports/) over an
``httpcore.ConnectionPool`` (https://www.encode.io/httpcore/connection-pools/) built with
:class:`_DeadlineBackend`.  It maps httpx's request to httpcore's, httpcore's response to httpx's (the body a
``httpx.SyncByteStream``) and httpcore's exceptions to httpx's of the same name, with public names only.
"""

from __future__ import annotations

import contextlib
import ssl
import threading
import time
from collections.abc import Iterator
from typing import Any

import certifi
import httpcore
import httpx

from feedmap._core.errors import FetchError

__all__ = ["Clock", "DeadlineTransport"]

_deadline = threading.local()


def _bounded(timeout: float | None, timeout_error: type[Exception]) -> float | None:
    """``timeout`` shortened to what is left of the running request's deadline (set by :class:`Clock`)."""
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


#: httpcore's exceptions and httpx's of the same meaning (httpx's documented hierarchy,
#: https://www.python-httpx.org/exceptions/); the more specific first.
_HTTPX_ERRORS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.ProxyError, httpx.ProxyError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.ProtocolError, httpx.ProtocolError),
)

_HTTPCORE_ERRORS = tuple(theirs for theirs, _ in _HTTPX_ERRORS)


@contextlib.contextmanager
def _as_httpx_errors(request: httpx.Request) -> Iterator[None]:
    """httpcore's exceptions raised inside turned into httpx's, which the client and its callers catch."""
    try:
        yield
    except _HTTPCORE_ERRORS as exc:
        ours = next(ours for theirs, ours in _HTTPX_ERRORS if isinstance(exc, theirs))
        raise ours(str(exc), request=request) from exc


class _Body(httpx.SyncByteStream):
    """httpcore's response body as httpx's stream, its errors httpx's; closing it frees the connection."""

    def __init__(self, response: httpcore.Response, request: httpx.Request) -> None:
        self._response = response
        self._request = request

    def __iter__(self) -> Iterator[bytes]:
        with _as_httpx_errors(self._request):
            yield from self._response.iter_stream()

    def close(self) -> None:
        self._response.close()


def _waiting_bounded(extensions: dict[str, Any]) -> dict[str, Any]:
    """The request's extensions with the wait for a free connection of the pool (httpx's ``pool`` timeout)
    shortened to the deadline too: a connection another thread holds must not outlast it."""
    timeouts = dict(extensions.get("timeout", {}))
    timeouts["pool"] = _bounded(timeouts.get("pool"), httpcore.PoolTimeout)
    return {**extensions, "timeout": timeouts}


class DeadlineTransport(httpx.BaseTransport):
    """A transport over httpcore's connection pool with :class:`_DeadlineBackend` connections."""

    def __init__(self, limits: httpx.Limits) -> None:
        # one TLS context for every connection (certificates verified against certifi's, as httpx does; no
        # environment read): httpcore would otherwise build one, loading the CA bundle, per connection
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl.create_default_context(cafile=certifi.where()),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_DeadlineBackend(),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        wire_request = httpcore.Request(
            request.method,
            httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
            headers=request.headers.raw,
            content=request.stream,
            extensions=_waiting_bounded(request.extensions),  # the timeouts httpx set for this request
        )
        with _as_httpx_errors(request):
            response = self._pool.handle_request(wire_request)
        return httpx.Response(
            response.status,
            headers=response.headers,
            stream=_Body(response, request),
            extensions=response.extensions,  # reason_phrase, http_version
        )

    def close(self) -> None:
        self._pool.close()


class Clock:
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
