"""The settings of a call and the context a reader or writer is given: :class:`Options` and :class:`Context`.

:class:`Options` (``feedmap.Options``) holds every setting of :func:`feedmap.read`, ``write``, ``convert`` and
``split``, checked when made.  :class:`Context` (``feedmap.formats.Context``, the format contract: a
``Reader`` or ``Writer`` of :mod:`feedmap.formats` takes ``ctx``) is what a reader, writer or converter step
is told besides its input: the options, where diagnostics go (:func:`reporter_for`), the input's name, path
and URL, and the indexes being followed around it.  The fields a format does not need it ignores, so a new
option never changes the format contract.  A run's download threads and HTTP client are not here: the run
passes them (``feedmap._io.http.Shared``) to what fetches, and a format never fetches.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

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
    "Context",
    "FollowPredicate",
    "HttpSettings",
    "Options",
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


@dataclass(slots=True, kw_only=True)
class Context:
    """What a reader, writer or converter step is told besides its input (see the module's docstring)."""

    reporter: Reporter
    options: Options = field(default_factory=Options)
    #: Name of the input being read (for diagnostics) and its path when it is a local file.
    name: str = ""
    path: Path | None = None
    #: The URL the input was read from (fetched, or mapped to a local file), for scope checks.
    url: str | None = None
    #: Locations of the index documents being followed, outermost first (loop and depth detection).
    chain: tuple[str, ...] = ()

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
