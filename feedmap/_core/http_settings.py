"""How to fetch: the settings of :mod:`feedmap._io.http` (``HttpSettings``), kept apart from the fetcher itself.

One job: to be the value :class:`feedmap._core.context.Options` carries and :mod:`feedmap._io.http` obeys, so that
the context (the layer below HTTP) describes a run without importing the code that fetches.  The rules
the settings select are RFC 9110 (timeouts, retries and ``Retry-After`` §10.2.3, redirects §15.4,
conditional GET §13.1) and RFC 9309 (the user agent's product token matched against robots.txt); see
:mod:`feedmap._io.http` for how each is applied.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from feedmap._core.option_values import MAX_SECONDS, check_header_text, check_number

__all__ = ["DEADLINE_FACTOR", "DEFAULT_USER_AGENT", "MAX_CONNECTIONS", "MAX_REDIRECTS", "MAX_RETRIES", "HttpSettings"]

DEFAULT_USER_AGENT = "feedmap/0.1 (+https://pypi.org/project/feedmap/)"
#: The default deadline of a request is this many times the read timeout: 300 s with the default 30 s
#: (a 50 MiB sitemap needs about 1.4 Mbit/s to arrive in time; a server slower than that, or one
#: trickling headers, is given up), and it scales with ``--timeout``.
DEADLINE_FACTOR = 10
#: The most retries of one request, redirects of one fetch and connections at once that may be asked for.
MAX_RETRIES = 100
MAX_REDIRECTS = 100
MAX_CONNECTIONS = 1000


@dataclass(frozen=True, slots=True, kw_only=True)
class HttpSettings:
    """How to fetch (``--user-agent``, ``--timeout``, ``--deadline``, ``--retries``, ``--delay``, ``--cache``).

    Checked when made: a value that cannot be used raises ValueError naming the field.

    See feedmap._io.http.
    """

    user_agent: str = DEFAULT_USER_AGENT
    connect_timeout: float = 10.0
    #: Longest wait for any one read from the socket.
    read_timeout: float = 30.0
    #: Longest one request may take in all: connecting, redirects, headers, body and the waits between
    #: retries.  None: :data:`DEADLINE_FACTOR` times ``read_timeout`` (see :meth:`response_deadline`).
    deadline: float | None = None
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

    if TYPE_CHECKING:  # what the constructor takes: ``cache_dir`` as text or a path (the field holds a Path)

        def __init__(
            self,
            *,
            user_agent: str = ...,
            connect_timeout: float = ...,
            read_timeout: float = ...,
            deadline: float | None = ...,
            retries: int = ...,
            backoff: float = ...,
            max_retry_wait: float = ...,
            max_redirects: int = ...,
            host_delay: float = ...,
            cache_dir: str | os.PathLike[str] | None = ...,
            max_connections: int = ...,
        ) -> None: ...

    def __post_init__(self) -> None:
        """ValueError for a value that cannot be used: not finite, out of range, or a User-Agent that cannot be
        sent (see :mod:`feedmap._core.option_values`)."""
        check_header_text("user_agent", self.user_agent)
        for name in ("connect_timeout", "read_timeout"):
            check_number(name, getattr(self, name), minimum=0, above=True, maximum=MAX_SECONDS)
        if self.deadline is not None:
            check_number("deadline", self.deadline, minimum=0, above=True, maximum=MAX_SECONDS)
        for name in ("backoff", "max_retry_wait", "host_delay"):
            check_number(name, getattr(self, name), minimum=0, maximum=MAX_SECONDS)
        check_number("retries", self.retries, minimum=0, maximum=MAX_RETRIES, integer=True)
        check_number("max_redirects", self.max_redirects, minimum=0, maximum=MAX_REDIRECTS, integer=True)
        check_number("max_connections", self.max_connections, minimum=1, maximum=MAX_CONNECTIONS, integer=True)
        if self.cache_dir is not None:
            object.__setattr__(self, "cache_dir", _cache_path(self.cache_dir))

    def response_deadline(self) -> float:
        """The deadline of one request: ``deadline``, else ``DEADLINE_FACTOR * read_timeout``."""
        if self.deadline is not None:
            return self.deadline
        return DEADLINE_FACTOR * self.read_timeout


def _cache_path(directory: object) -> Path:
    """``cache_dir`` as a Path: ValueError for no path, an empty one (which would make the current directory
    the cache) or one holding NUL (which no path holds)."""
    if not isinstance(directory, (str, os.PathLike)) or isinstance(os.fspath(directory), bytes):
        raise ValueError(f"cache_dir: give a directory's path, not {directory!r}")
    text = os.fspath(directory)
    if not text or "\0" in text:
        raise ValueError(f"cache_dir: give a directory's path, not {text!r}")
    return Path(text)
