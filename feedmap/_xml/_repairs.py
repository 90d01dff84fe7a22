"""Reporting the repairs made to an input: one by one up to a cap per kind, then counted.

A file with millions of repairs (a bare ``&`` in every URL) stays linear in time and memory: the first
:data:`REPORT_CAP` repairs of each kind are reported with their line, the rest only counted and reported
once at the end (``more-repairs``).  Line numbers are counted incrementally (:class:`Lines`).
"""

from __future__ import annotations

from collections import Counter

from feedmap._core.errors import Reporter
from feedmap._core.wording import counted

__all__ = ["REPORT_CAP", "Lines", "Repairs"]

#: How many repairs of one kind are reported one by one (each with its line); the rest are counted.
REPORT_CAP = 100


class Lines:
    """Line numbers of increasing positions in one buffer, counted incrementally (linear, never from 0 again)."""

    __slots__ = ("_data", "_pos", "line")

    def __init__(self, data: bytes, line: int, pos: int = 0) -> None:
        self._data = data
        self._pos = pos
        self.line = line

    def at(self, pos: int) -> int:
        if pos >= self._pos:
            self.line += self._data.count(b"\n", self._pos, pos)
        else:
            self.line -= self._data.count(b"\n", pos, self._pos)
        self._pos = pos
        return self.line


class Repairs:
    """The repairs of one input, reported to ``reporter`` under ``name`` (the input's name)."""

    def __init__(self, reporter: Reporter, name: str) -> None:
        self.reporter = reporter
        self.name = name
        self.reported: Counter[str] = Counter()
        self.unreported: Counter[str] = Counter()
        self._finished = False

    def report(self, code: str, message: str, line: int) -> None:
        self.reported[code] += 1
        self.reporter.warning(code, message, self.name, line)

    def warning(self, code: str, message: str, line: int) -> None:
        """A warning about the input that is no counted repair (an encoding, blanks before the declaration)."""
        self.reporter.warning(code, message, self.name, line)

    def wants(self, code: str) -> bool:
        """Whether the next repair of ``code`` is reported one by one (else it is only counted)."""
        if self.reported[code] < REPORT_CAP:
            return True
        self.unreported[code] += 1
        return False

    def finish(self) -> None:
        """Report how many repairs of each kind went unreported one by one (once, at the end: ``more-repairs``)."""
        if self._finished:
            return
        self._finished = True
        for code, count in self.unreported.items():  # its own code: a printer that caps each code shows it
            self.reporter.warning(
                "more-repairs",
                f"{counted(count, 'more ' + code + ' repair')} {'was' if count == 1 else 'were'} made "
                f"(the first {REPORT_CAP} were reported one by one)",
                self.name,
            )
