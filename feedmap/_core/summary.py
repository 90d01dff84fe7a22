"""What a call that writes returns: the entries written and the diagnostics reported (and, for a split
output, the files written and what changed in the directory)."""

from __future__ import annotations

from dataclasses import dataclass, field

from feedmap._core.errors import Diagnostic, Reporter

__all__ = ["SplitSummary", "Summary"]


@dataclass
class Summary:
    """What a :func:`write` or :func:`convert` did: entries written and the diagnostics reported."""

    entries: int
    reporter: Reporter = field(repr=False)
    #: The format written (for :func:`convert` given a function choosing it by the kind read).
    format: str = ""

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.reporter.diagnostics


@dataclass
class SplitSummary(Summary):
    """What :func:`split` (or :func:`convert` into a directory) did: besides the entries and diagnostics,
    the files written in order, the index's name, and which files of the directory were written, left
    unchanged or removed as stale (base names)."""

    files: tuple[str, ...] = ()
    index: str = ""
    written: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
