"""What a reader or writer is told besides its input: options, where diagnostics go, and the source.

Readers and writers take ``ctx: Context`` (DESIGN.md, "Format contract"); the fields they do not need
they ignore, so a new option never changes the format contract.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from feedmap.errors import Reporter
from feedmap.sources import DEFAULT_MAX_BYTES

__all__ = ["DEFAULT_MAX_DEPTH", "Context", "Options"]

DEFAULT_MAX_DEPTH = 5


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """Settings shared by reading and writing (the CLI flags of ``feedmap convert``)."""

    strict: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    follow: bool = True
    max_depth: int = DEFAULT_MAX_DEPTH
    #: ``(url_prefix, directory)`` pairs: URLs under the prefix are read from the directory.
    maps: tuple[tuple[str, Path], ...] = ()
    schema_location: bool = False
    encode_urls: bool = False
    #: Feed channel metadata for the rss and ror writers (default: the input's, else derived from the URLs).
    channel_title: str | None = None
    channel_link: str | None = None
    channel_description: str | None = None
    #: The written feed's own URL, for ``atom:link rel="self"``.
    self_url: str | None = None


@dataclass(slots=True, kw_only=True)
class Context:
    """Per-run state handed to readers and writers."""

    reporter: Reporter
    options: Options = field(default_factory=Options)
    #: Name of the input being read (for diagnostics) and its path when it is a local file.
    name: str = ""
    path: Path | None = None
    #: Locations of the index documents being followed, outermost first (loop and depth detection).
    chain: tuple[str, ...] = ()

    def key(self) -> str:
        """What identifies the current document for loop detection: its resolved path, else its name."""
        return str(self.path.resolve()) if self.path is not None else self.name

    def child(self, name: str, path: Path | None) -> Context:
        """The context for reading a child document of the current one (an index's sitemap)."""
        return replace(self, name=name, path=path, chain=(*self.chain, self.key()))

    def warning(self, code: str, message: str, line: int = 0) -> None:
        self.reporter.warning(code, message, self.name, line)

    def info(self, code: str, message: str, line: int = 0) -> None:
        self.reporter.info(code, message, self.name, line)
