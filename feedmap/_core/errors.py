"""Errors (fatal) and diagnostics (non-fatal), kept apart as pandoc and docutils do.

Exception hierarchy; every class also subclasses the builtin a caller would naturally catch::

    FeedmapError
     ├── FormatError (LookupError)          unknown format name, or no reader/writer for it
     │    └── UnknownFormatError           the input's format could not be recognised
     ├── ReadError (ValueError)            input that cannot be used
     │    ├── StrictError                 a warning under strict=True (carries the Diagnostic)
     │    └── LimitError                  a size cap was hit (decompressed bytes, depth, ...)
     ├── WriteError (ValueError)           a document that cannot be written in the target format
     └── SourceError (OSError)             a file, directory or stream that cannot be opened or written
          └── FetchError                   an http(s) URL that could not be fetched (status, timeout, ...)

Non-fatal problems are :class:`Diagnostic` values with a stable ``code`` slug (tests assert on codes,
never on message text), a level, and the source position.  A :class:`Reporter` receives them: in lenient
mode it records and forwards them; in strict mode the first WARNING or ERROR raises :class:`StrictError`.
The library never prints and never exits; only ``feedmap.cli`` turns these into messages and exit codes.
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = [
    "Diagnostic",
    "FeedmapError",
    "FetchError",
    "FormatError",
    "Level",
    "LimitError",
    "ReadError",
    "Reporter",
    "SourceError",
    "StrictError",
    "UnknownFormatError",
    "WriteError",
    "reason_of",
]


class Level(enum.IntEnum):
    INFO = 10
    WARNING = 20
    ERROR = 30

    def __str__(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One non-fatal problem, or one repair made while reading or writing."""

    level: Level
    code: str
    message: str
    source: str = ""
    line: int = 0
    column: int = 0

    @property
    def location(self) -> str:
        if not self.source:
            return "feedmap"
        if self.line:
            return f"{self.source}:{self.line}"
        return self.source

    def __str__(self) -> str:
        return f"{self.location}: {self.level}[{self.code}]: {self.message}"


class FeedmapError(Exception):
    """Base of every error feedmap raises on purpose."""


class FormatError(FeedmapError, LookupError):
    """An unknown format name, or a format that cannot read or write."""


class UnknownFormatError(FormatError):
    """The format of an input could not be recognised from its content.

    ``what`` says what the content is instead (``has root element <svg> ...``); ``code`` is
    ``unknown-format`` or ``html-page``; ``formats`` are the formats that could read it if named.  The
    message is built from them, so that a caller (the CLI, an index naming a child) can say it its own way.
    """

    def __init__(
        self, what: str, *, source: str = "", line: int = 0, code: str = "", formats: Sequence[str] = ()
    ) -> None:
        self.what = what
        #: The input, the line of its root element (0: unknown) and a diagnostic code (``unknown-format``,
        #: ``html-page``), so that the CLI can say it as ``file:line: error[code]: ...``.
        self.source = source
        self.line = line
        self.code = code or "unknown-format"
        self.formats = tuple(formats)
        where = f"{source}: " if source else ""
        names = f" (one of: {', '.join(self.formats)})" if self.formats else ""
        super().__init__(f"{where}{what}; name the format{names}")


class ReadError(FeedmapError, ValueError):
    """Input that cannot be used."""

    def __init__(self, message: str, *, source: str = "", line: int = 0, code: str = "invalid-input") -> None:
        self.source = source
        self.line = line
        self.code = code
        self.bare_message = message
        where = f"{source}:{line}: " if source and line else f"{source}: " if source else ""
        super().__init__(f"{where}{message}")


#: How a warning's message ends when it says what lenient reading does about the problem ("; kept as
#: written", "; line skipped"): under strict mode that did not happen.
_LENIENT_ENDING = re.compile(
    r"; ((?:kept|skipped|line skipped|ignored|the value is ignored|read |not read|used|replaced|removed|dropped|"
    r"repaired|written|left out)[^;]*)$"
)


def strict_message(message: str) -> str:
    """A warning's message as strict mode stops on it: what lenient reading would have done is said so."""
    match = _LENIENT_ENDING.search(message)
    if match is None:
        return f"{message} (strict mode stops at the first warning)"
    return f"{message[: match.start()]} (strict mode stops at the first warning; lenient reading: {match.group(1)})"


class StrictError(ReadError):
    """A warning that strict mode turned into an error."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic
        super().__init__(
            strict_message(diagnostic.message),
            source=diagnostic.source,
            line=diagnostic.line,
            code=diagnostic.code,
        )


class LimitError(ReadError):
    """A safety cap was reached (decompressed size, index depth, entry count)."""


class WriteError(FeedmapError, ValueError):
    """A document that cannot be written in the requested format."""


class SourceError(FeedmapError, OSError):
    """A file, directory, URL or stream that cannot be opened, read or written."""


class FetchError(SourceError):
    """An http(s) URL that could not be fetched; ``code`` says why (``http-404``, ``timeout``, ...)."""

    def __init__(self, message: str, *, url: str, code: str = "fetch-failed", status: int | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.code = code
        self.status = status


def reason_of(exc: BaseException, source: str) -> str:
    """An error's message without the leading ``source: `` it starts with, for a message that names
    the source already (``child sitemap URL could not be read: <reason>``)."""
    return str(exc).removeprefix(f"{source}: ")


DiagnosticHandler = Callable[[Diagnostic], None]


class Reporter:
    """Receives diagnostics; a halt threshold makes strict mode (docutils' Reporter idea).

    Keeps counts of every code and at most ``keep`` diagnostics in memory, so reading a file with a
    million warnings does not grow memory without bound; ``handler`` sees every one of them.
    """

    def __init__(
        self,
        *,
        strict: bool = False,
        handler: DiagnosticHandler | None = None,
        keep: int = 10_000,
    ) -> None:
        self.strict = strict
        self.handler = handler
        self.keep = keep
        self.diagnostics: list[Diagnostic] = []
        self.counts: Counter[str] = Counter()
        self.level_counts: Counter[Level] = Counter()

    def report(self, diagnostic: Diagnostic) -> None:
        if self.strict and diagnostic.level >= Level.WARNING:
            raise StrictError(diagnostic)
        self.counts[diagnostic.code] += 1
        self.level_counts[diagnostic.level] += 1
        if len(self.diagnostics) < self.keep:
            self.diagnostics.append(diagnostic)
        if self.handler is not None:
            self.handler(diagnostic)

    def info(self, code: str, message: str, source: str = "", line: int = 0) -> None:
        self.report(Diagnostic(Level.INFO, code, message, source, line))

    def warning(self, code: str, message: str, source: str = "", line: int = 0) -> None:
        self.report(Diagnostic(Level.WARNING, code, message, source, line))

    def error(self, code: str, message: str, source: str = "", line: int = 0) -> None:
        self.report(Diagnostic(Level.ERROR, code, message, source, line))

    @property
    def warnings(self) -> int:
        return self.level_counts[Level.WARNING] + self.level_counts[Level.ERROR]
