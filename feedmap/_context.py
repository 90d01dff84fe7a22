"""What a reader or writer is told besides its input: options, where diagnostics go, and the source.

Readers and writers take ``ctx: Context`` (DESIGN.md, "Format contract"); the fields they do not need
they ignore, so a new option never changes the format contract.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from feedmap._dates import W3CDate
from feedmap._errors import Reporter
from feedmap._sources import DEFAULT_MAX_BYTES

if TYPE_CHECKING:  # httpx is imported only when something is fetched
    from feedmap._http import Fetcher

__all__ = [
    "DEADLINE_FACTOR",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_PAGE_MAX_BYTES",
    "DEFAULT_USER_AGENT",
    "Context",
    "FollowPredicate",
    "HttpSettings",
    "Options",
    "Shared",
]

DEFAULT_MAX_DEPTH = 5
DEFAULT_CONCURRENCY = 16
#: Largest page read by enrichment (a page's head is at its start; 5 MiB is far beyond real pages).
DEFAULT_PAGE_MAX_BYTES = 5 * 1024 * 1024
#: Longest line of a line-based input (JSON lines, text sitemap) read: far beyond any real entry or URL.
DEFAULT_MAX_LINE_BYTES = 1024 * 1024
DEFAULT_USER_AGENT = "feedmap/0.1 (+https://pypi.org/project/feedmap/)"
#: The default deadline of a request is this many times the read timeout: 300 s with the default 30 s
#: (a 50 MiB sitemap needs about 1.4 Mbit/s to arrive in time; a server slower than that, or one
#: trickling headers, is given up), and it scales with ``--timeout``.
DEADLINE_FACTOR = 10

#: Decides whether an index child is read: sees the child's loc and lastmod.
FollowPredicate = Callable[[str, "W3CDate | None"], bool]


@dataclass(frozen=True, slots=True, kw_only=True)
class HttpSettings:
    """How to fetch (``--user-agent``, ``--timeout``, ``--deadline``, ``--retries``, ``--delay``, ``--cache``).

    See feedmap._http.
    """

    user_agent: str = DEFAULT_USER_AGENT
    connect_timeout: float = 10.0
    #: Longest wait for any one read from the socket.
    read_timeout: float = 30.0
    #: Longest one request may take in all: connecting, redirects, headers, body and the waits between
    #: retries.  None: :data:`DEADLINE_FACTOR` times ``read_timeout`` (see :meth:`response_deadline`).
    deadline: float | None = None
    #: The former name of ``deadline`` (which wins when both are given); kept so existing code still runs.
    total_timeout: float | None = None
    retries: int = 3
    #: First wait before a retry without ``Retry-After``; doubled on each further retry.
    backoff: float = 0.5
    #: A ``Retry-After`` longer than this is not waited for: the fetch fails instead.
    max_retry_wait: float = 60.0
    max_redirects: int = 5
    #: Seconds between two requests to the same host (0: no delay).
    host_delay: float = 0.0
    #: Keep validators and bodies here and revalidate them (conditional GET); None: no cache.
    cache_dir: Path | None = None
    #: Most connections open at once (the pool is shared by all threads).
    max_connections: int = 64

    def response_deadline(self) -> float:
        """The deadline of one request: ``deadline``, else ``DEADLINE_FACTOR * read_timeout``."""
        if self.deadline is not None:
            return self.deadline
        if self.total_timeout is not None:
            return self.total_timeout
        return DEADLINE_FACTOR * self.read_timeout


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """Settings shared by reading and writing (the CLI flags of ``feedmap convert``)."""

    strict: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    #: Longest line of JSON lines or a text sitemap: a longer one is skipped (``line-too-long``).
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    follow: bool = True
    #: With ``follow``: which index children to read (``--since`` builds one); None reads them all.
    follow_child: FollowPredicate | None = None
    max_depth: int = DEFAULT_MAX_DEPTH
    #: Index children fetched at once (and pages at once with ``--enrich``).
    concurrency: int = DEFAULT_CONCURRENCY
    http: HttpSettings = field(default_factory=HttpSettings)
    #: ``(url_prefix, directory)`` pairs: URLs under the prefix are read from the directory.
    maps: tuple[tuple[str, Path], ...] = ()
    #: The URL a relative loc is resolved against when the document's own URL is not known (a local file);
    #: a fetched (or ``--map``-ped) document's URL comes first.
    base_url: str | None = None
    schema_location: bool = False
    #: Write IRIs as URIs in every output, text included (``--encode-urls``).  XML outputs do it anyway
    #: unless ``keep_urls``; JSON lines never do (they keep what was read).
    encode_urls: bool = False
    #: ``--keep-urls``: XML outputs write URLs as read, not encoded (characters a URI cannot hold are
    #: reported, never passed on silently).
    keep_urls: bool = False
    #: Feed channel metadata for the rss and ror writers (default: the input's, else derived from the URLs).
    channel_title: str | None = None
    channel_link: str | None = None
    channel_description: str | None = None
    #: The written feed's own URL, for ``atom:link rel="self"``.
    self_url: str | None = None
    #: ``--enrich``: fill each entry's title, description and keywords from its page.
    enrich: bool = False
    #: ``--overwrite``: with ``enrich``, replace the values an entry already has.
    overwrite: bool = False
    #: With ``enrich``: the largest page read (the smaller of this and ``max_bytes``).
    page_max_bytes: int = DEFAULT_PAGE_MAX_BYTES


class Shared:
    """What every context of one run shares: the HTTP fetcher and the download threads, made on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fetcher: Fetcher | None = None
        self._pool: ThreadPoolExecutor | None = None

    def fetcher(self, settings: HttpSettings) -> Fetcher:
        with self._lock:
            if self._fetcher is None:
                from feedmap._http import Fetcher

                self._fetcher = Fetcher(settings)
            return self._fetcher

    def pool(self, workers: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="feedmap-fetch")
            return self._pool

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            fetcher, self._fetcher = self._fetcher, None
        if pool is not None:
            # queued work is dropped; requests in flight end on their own (their results are discarded), so
            # closing a document early or an interrupt does not wait for slow servers
            pool.shutdown(wait=False, cancel_futures=True)
        if fetcher is not None:
            fetcher.close()


@dataclass(slots=True, kw_only=True)
class Context:
    """Per-run state handed to readers and writers."""

    reporter: Reporter
    options: Options = field(default_factory=Options)
    #: Name of the input being read (for diagnostics) and its path when it is a local file.
    name: str = ""
    path: Path | None = None
    #: The URL the input was read from (fetched, or mapped to a local file), for scope checks.
    url: str | None = None
    #: Locations of the index documents being followed, outermost first (loop and depth detection).
    chain: tuple[str, ...] = ()
    shared: Shared = field(default_factory=Shared)

    def key(self) -> str:
        """What identifies the current document for loop detection: its resolved path, else its URL."""
        if self.path is not None:
            return str(self.path.resolve())
        if self.url is not None:
            from feedmap.formats.sitemapindex import loop_key

            return loop_key(self.url)
        return self.name

    def child(self, name: str, path: Path | None, url: str | None = None) -> Context:
        """The context for reading a child document of the current one (an index's sitemap)."""
        return replace(self, name=name, path=path, url=url, chain=(*self.chain, self.key()))

    def fetcher(self) -> Fetcher:
        return self.shared.fetcher(self.options.http)

    def warning(self, code: str, message: str, line: int = 0) -> None:
        self.reporter.warning(code, message, self.name, line)

    def info(self, code: str, message: str, line: int = 0) -> None:
        self.reporter.info(code, message, self.name, line)
