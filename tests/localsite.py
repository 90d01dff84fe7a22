"""A real HTTP server on 127.0.0.1 with programmable routes, for the web tests and the web benchmark.

Not a mock: it is the standard library's threaded ``http.server`` speaking HTTP/1.1 with keep-alive on a
free local port, so requests go through feedmap's real client, sockets, timeouts and retries.

    with LocalSite() as site:
        site.add("/sitemap.xml", b"<urlset .../>", content_type="application/xml")
        site.add("/slow", b"...", delay=5)                 # answers after 5 s
        site.add("/flaky", b"ok", statuses=[503, 200])     # 503 first, then 200
        site.add("/feed.xml", body, encoding="gzip")       # Content-Encoding: gzip
        site.url("/sitemap.xml")  ->  "http://127.0.0.1:PORT/sitemap.xml"
        site.hits("/flaky")        ->  2
        site.add("/part-1.xml", b"...", wait_for_peak=8)   # answers once 8 such requests wait at once
        site.add("/stuck", b"...", held=True)              # answers only after site.release()
        site.peak("/part-")  ->  8   # most paths under /part- being answered at once
        site.answered("/stuck")  ->  0   # whole responses sent
        site.on_request = lambda path, port: ...   # called as each request comes, with the client's port
        site.requests  ->  [Request(path, at, port, said)]   # each request as it came (at: time.monotonic())

The counters let a test prove concurrency (peak requests in flight), a bound on it (a peak never above
the limit) and that a client gave up before an answer came (``answered`` still 0) without measuring time.
Requests in flight are counted per path: a client that gives up on a held request and asks again leaves
the first one waiting here, and two requests for one path must not pass for two concurrent fetches.  A
client that gives up and moves on to another path is not seen; so ``hold_timeout`` is longer than the
tests' read timeouts, and a test of concurrency also asserts that no fetch failed.
Paths not added answer 404.  Each route may also be a function ``(request_headers) -> Route``.
``LocalSite(host="127.0.0.2")`` listens on another loopback address: a second host for off-site tests.
"""

from __future__ import annotations

import gzip
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    content_type: str = "application/xml"
    headers: dict[str, str] = field(default_factory=dict)
    #: Seconds to wait before answering.
    delay: float = 0.0
    #: Statuses for successive requests; the last one repeats.  Overrides ``status``.
    statuses: list[int] = field(default_factory=list)
    #: "gzip" to send the body with ``Content-Encoding: gzip``.
    encoding: str | None = None
    #: Send the body in pieces with this pause between them (a slow trickle).
    trickle: float = 0.0
    #: Send this many filler header lines first, one per ``header_pause`` seconds (headers that trickle).
    slow_headers: int = 0
    header_pause: float = 0.0
    #: Hold the answer until requests for this many paths with such routes wait at once (a client that does
    #: not send them concurrently waits ``hold_timeout`` each time, and the peak it reaches shows it).
    wait_for_peak: int = 0
    #: Hold the answer until :meth:`LocalSite.release` (called on exit), or ``hold_timeout``.
    held: bool = False
    #: The longest hold, so that a client that does not do what a test expects fails it rather than hangs.
    hold_timeout: float = 10.0


Responder = Callable[[dict[str, str]], Route]


@dataclass(frozen=True)
class Request:
    """A request as it came: its path, when (``time.monotonic()`` of this process), the client's port, and what
    :attr:`LocalSite.on_request` said of it (None without one)."""

    path: str
    at: float
    port: int
    said: object = None


@contextmanager
def refusing_port(host: str = "127.0.0.1") -> Iterator[int]:
    """A local port that refuses connections while the block runs: bound by the test, never listening.

    Holding the socket keeps any other program from taking the port meanwhile (unlike a port closed
    again, or a well-known one such as 9 that may have a listener).
    """
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        yield port


class LocalSite:
    """A threaded HTTP/1.1 server on 127.0.0.1 (or another loopback address, a second host); a context manager."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.routes: dict[str, Route | Responder] = {}
        self.counts: Counter[str] = Counter()
        #: Filler header lines of ``slow_headers`` routes actually sent, per path.
        self.header_lines_sent: Counter[str] = Counter()
        self.request_headers: list[tuple[str, dict[str, str]]] = []
        #: Each request as it came, in order.
        self.requests: list[Request] = []
        #: Called with each request's path and client port as it comes, before it is answered (a test names the
        #: process that sent it); what it returns is kept in :attr:`requests`.
        self.on_request: Callable[[str, int], object] | None = None
        self._lock = threading.Condition()
        #: Each request's start (+1) and end (-1), in order, with its path: what in_flight and peak count.
        self._flight_log: list[tuple[int, str]] = []
        self._answered: Counter[str] = Counter()
        self._waiting: Counter[str] = Counter()
        self._peak_reached = False
        self._gate = threading.Event()
        self._server = _QuietServer((host, 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="localsite", daemon=True
        )

    @property
    def base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def url(self, path: str = "/") -> str:
        return self.base + path

    def add(self, path: str, body: bytes | str = b"", **options: Any) -> str:
        """Serve ``body`` at ``path`` (see :class:`Route` for the options); returns the full URL."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.routes[path] = Route(data, **options)
        return self.url(path)

    def add_responder(self, path: str, responder: Responder) -> str:
        self.routes[path] = responder
        return self.url(path)

    def hits(self, path: str) -> int:
        with self._lock:
            return self.counts[path]

    def answered(self, path: str) -> int:
        """How many whole responses were sent for ``path`` (headers and every byte of the body)."""
        with self._lock:
            return self._answered[path]

    def in_flight(self, prefix: str = "/") -> int:
        """How many paths starting with ``prefix`` are being answered now."""
        with self._lock:
            return self._in_flight(prefix)

    def peak(self, prefix: str = "/") -> int:
        """The most paths starting with ``prefix`` that were being answered at once."""
        open_requests: Counter[str] = Counter()
        highest = 0
        with self._lock:
            for delta, path in self._flight_log:
                if path.startswith(prefix):
                    open_requests[path] += delta
                    highest = max(highest, sum(1 for count in open_requests.values() if count > 0))
        return highest

    def wait_in_flight(self, count: int, prefix: str = "/", timeout: float = 5.0) -> bool:
        """Wait until ``count`` paths under ``prefix`` are being answered at once; False after ``timeout``."""
        with self._lock:
            return self._lock.wait_for(lambda: self._in_flight(prefix) >= count, timeout)

    def _in_flight(self, prefix: str) -> int:
        open_requests: Counter[str] = Counter()
        for delta, path in self._flight_log:
            if path.startswith(prefix):
                open_requests[path] += delta
        return sum(1 for count in open_requests.values() if count > 0)

    def release(self) -> None:
        """Let every ``held`` request answer."""
        self._gate.set()

    def __enter__(self) -> LocalSite:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()

    # -- called by the handler
    def _begin(self, path: str) -> None:
        with self._lock:
            self._flight_log.append((1, path))
            self._lock.notify_all()

    def _end(self, path: str, answered: bool) -> None:
        with self._lock:
            self._flight_log.append((-1, path))
            if answered:
                self._answered[path] += 1
            self._lock.notify_all()

    def _hold(self, path: str, route: Route) -> None:
        if route.wait_for_peak:
            with self._lock:
                self._waiting[path] += 1
                if sum(1 for count in self._waiting.values() if count > 0) >= route.wait_for_peak:
                    self._peak_reached = True
                    self._lock.notify_all()
                self._lock.wait_for(lambda: self._peak_reached, route.hold_timeout)
                self._waiting[path] -= 1
        if route.held:
            self._gate.wait(route.hold_timeout)

    def _route(self, path: str, headers: dict[str, str], port: int = 0) -> tuple[Route, int]:
        at = time.monotonic()
        said = self.on_request(path, port) if self.on_request is not None else None
        with self._lock:
            self.counts[path] += 1
            hit = self.counts[path]
            self.request_headers.append((path, headers))
            self.requests.append(Request(path, at, port, said))
        found = self.routes.get(path)
        if found is None:
            return Route(b"not found", status=404, content_type="text/plain"), hit
        if callable(found):
            return found(headers), hit
        return found, hit


class _QuietServer(ThreadingHTTPServer):
    """Does not print a traceback when a client drops a kept-alive connection (tests do it on purpose).

    A deep accept queue: with the default of 5, a burst of new connections (concurrency tests) had some
    dropped and retried by the client a second later.
    """

    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler_for(site: LocalSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # headers and body go out in two writes: without TCP_NODELAY, Nagle's algorithm and delayed ACKs
        # hold each kept-alive response back by about 40 ms
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            path = self.path
            site._begin(path)
            answered = False
            try:
                answered = self._answer()
            finally:
                site._end(path, answered)

        def _answer(self) -> bool:
            """Send the route's response; True when all of it was sent."""
            headers = {key.lower(): value for key, value in self.headers.items()}
            route, hit = site._route(self.path, headers, self.client_address[1])
            site._hold(self.path, route)
            if route.delay:
                time.sleep(route.delay)
            status = route.statuses[min(hit, len(route.statuses)) - 1] if route.statuses else route.status
            body = route.body
            if route.encoding == "gzip":
                body = gzip.compress(body)
            try:
                self.send_response(status)
                if route.slow_headers:
                    self.flush_headers()
                    for number in range(route.slow_headers):
                        time.sleep(route.header_pause)
                        self.wfile.write(f"X-Filler-{number}: {number}\r\n".encode())
                        self.wfile.flush()
                        with site._lock:
                            site.header_lines_sent[self.path] += 1
                self.send_header("Content-Type", route.content_type)
                if route.encoding:
                    self.send_header("Content-Encoding", route.encoding)
                for name, value in route.headers.items():
                    self.send_header(name, value)
                if status == 304:
                    self.end_headers()
                    return True
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if route.trickle:
                    for start in range(0, len(body), 16):
                        self.wfile.write(body[start : start + 16])
                        self.wfile.flush()
                        time.sleep(route.trickle)
                else:
                    self.wfile.write(body)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return False  # the client gave up (a timeout or a size cap being tested)
            return True

    return Handler
