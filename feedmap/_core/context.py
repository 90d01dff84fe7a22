"""What a reader or writer is told besides its input: options, where diagnostics go, and the source.

Readers and writers take ``ctx: Context`` (the format contract, :class:`feedmap.formats._registry.Reader`); the
fields they do not need they ignore, so a new option never changes the format contract.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, TypeVar, cast

from feedmap._core.errors import Diagnostic, DiagnosticHandler, Level, Reporter, StrictError
from feedmap._core.follow_rules import loop_key
from feedmap._core.http_settings import DEADLINE_FACTOR, DEFAULT_USER_AGENT, HttpSettings
from feedmap._core.options import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_PAGE_MAX_BYTES,
    MAX_CONCURRENCY,
    NUMBER_FIELD,
    FollowPredicate,
    Options,
    name_pattern_problem,
)

__all__ = [
    "DEADLINE_FACTOR",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_PAGE_MAX_BYTES",
    "DEFAULT_USER_AGENT",
    "MAX_CONCURRENCY",
    "NUMBER_FIELD",
    "Closable",
    "Context",
    "FollowPredicate",
    "HttpSettings",
    "Options",
    "Shared",
    "StrictReporting",
    "name_pattern_problem",
    "reporter_for",
]


def reporter_for(options: Options, reporter: Reporter | None, on_diagnostic: DiagnosticHandler | None) -> Reporter:
    """Where the diagnostics of one library call go: ``reporter``, else a new one calling ``on_diagnostic``
    with each; under ``options.strict`` either stops at the first warning (:class:`StrictReporting`)."""
    if reporter is None:
        return Reporter(strict=options.strict, handler=on_diagnostic)
    if options.strict and not reporter.strict:
        return StrictReporting(reporter)
    return reporter


class StrictReporting(Reporter):
    """The caller's reporter under ``Options(strict=True)``: the first warning raises
    :class:`~feedmap._core.errors.StrictError`, as a strict reporter does; every other diagnostic goes on to
    the caller's, whose records these are (the caller's reporter itself is left as it was)."""

    def __init__(self, target: Reporter) -> None:
        super().__init__(strict=True, handler=target.handler, keep=target.keep)
        self.diagnostics, self.counts, self.level_counts = target.diagnostics, target.counts, target.level_counts
        self._target = target

    def report(self, diagnostic: Diagnostic) -> None:
        if diagnostic.level >= Level.WARNING:
            raise StrictError(diagnostic)
        self._target.report(diagnostic)


class Closable(Protocol):
    """What a run keeps in :class:`Shared`: anything closed when the run ends."""

    def close(self) -> None: ...


_Kept = TypeVar("_Kept", bound=Closable)


class Shared:
    """What every context of one run shares, made on first use: the download threads, and the resources
    of the layers above, one of each kind per run (the HTTP fetcher: :func:`feedmap._io.http.shared_fetcher`).

    Thread-safe: the threads of a run ask for the same pool and the same resources at once.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._kept: dict[type, Closable] = {}

    def keep(self, kind: type[_Kept], make: Callable[[], _Kept]) -> _Kept:
        """The run's one ``kind``: made with ``make`` the first time it is asked for, closed by :meth:`close`."""
        with self._lock:
            found = self._kept.get(kind)
            if found is None:
                found = self._kept[kind] = make()
            return cast("_Kept", found)

    def pool(self, workers: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="feedmap-fetch")
            return self._pool

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            kept, self._kept = self._kept, {}
        if pool is not None:
            # queued work is dropped; requests in flight end on their own (their results are discarded), so
            # closing a document early or an interrupt does not wait for slow servers
            pool.shutdown(wait=False, cancel_futures=True)
        for resource in reversed(kept.values()):  # the last made first: it may use those made before
            resource.close()


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
            return loop_key(self.url)
        return self.name

    def child(self, name: str, path: Path | None, url: str | None = None) -> Context:
        """The context for reading a child document of the current one (an index's sitemap)."""
        return replace(self, name=name, path=path, url=url, chain=(*self.chain, self.key()))

    def warning(self, code: str, message: str, line: int = 0) -> None:
        self.reporter.warning(code, message, self.name, line)

    def info(self, code: str, message: str, line: int = 0) -> None:
        self.reporter.info(code, message, self.name, line)
