"""One deadline for a whole HTTP request, enforced inside the socket reads and writes.

One job: httpx's timeouts (https://www.python-httpx.org/advanced/timeouts/) apply to each socket
operation, so a server trickling one byte at a time never trips them.  :class:`Clock` holds what is left
of one request's budget (connecting, every redirect hop, the headers, the body and the waits between
retries); while a call waits on the server (:meth:`Clock.running`), every socket operation of this thread
waits no longer than what is left.  That is done by an httpcore network backend
(https://www.encode.io/httpcore/network-backends/) whose streams shorten each timeout.

httpx 0.28 takes no network backend: :class:`DeadlineTransport` is httpx's own transport with its
connection pool (the private ``HTTPTransport._pool``) replaced by one over :class:`_DeadlineBackend`.
A transport written on the public ``httpx.BaseTransport`` would have to copy httpx's private mapping of
httpcore's requests, responses and exceptions instead, a larger private surface than that one attribute
(httpx pull request #3749, open, would add the parameter).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

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


class DeadlineTransport(httpx.HTTPTransport):
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
