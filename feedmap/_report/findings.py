"""The findings a report shows: counted by code and by file, the first few of each code kept as examples.

One job: :class:`FindingsByCode`, a :data:`~feedmap._core.errors.DiagnosticHandler` that keeps, whatever the
number of findings (a million bad URLs are a million findings), one count per code and per (file, level), and
the first :data:`~feedmap._report.tally.EXAMPLES` findings of each code with their file and line.  The codes
are those of the one rule table (:data:`feedmap._core.rules.RULES`, ``feedmap codes``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from feedmap._core.errors import Diagnostic, Level
from feedmap._report.tally import EXAMPLES

__all__ = ["CodeFindings", "FindingsByCode"]


@dataclass
class CodeFindings:
    """One code's findings: its level, how many, the first few."""

    level: Level
    count: int = 0
    examples: list[Diagnostic] = field(default_factory=list)


class FindingsByCode:
    """Findings by code, in the order each code first came; counts by file and level (see the module)."""

    def __init__(self, examples: int = EXAMPLES) -> None:
        self.examples = examples
        self.codes: dict[str, CodeFindings] = {}
        self.levels: Counter[Level] = Counter()
        #: (file, level) -> findings; a file's count is kept only for the files the report lists by name,
        #: which the caller looks up (one entry per file, not per finding).
        self.by_file: Counter[tuple[str, Level]] = Counter()

    def __call__(self, finding: Diagnostic) -> None:
        self.levels[finding.level] += 1
        self.by_file[(finding.source, finding.level)] += 1
        found = self.codes.get(finding.code)
        if found is None:
            found = self.codes[finding.code] = CodeFindings(finding.level)
        found.count += 1
        if len(found.examples) < self.examples:
            found.examples.append(finding)

    def ranked(self) -> list[tuple[str, CodeFindings]]:
        """The codes, errors first, then warnings, then notes; within a level the most frequent first."""
        return sorted(self.codes.items(), key=lambda item: (-item[1].level, -item[1].count, item[0]))

    def count(self, level: Level) -> int:
        return self.levels[level]

    def of_file(self, name: str) -> tuple[int, int, int]:
        """A file's (errors, warnings, notes)."""
        return tuple(self.by_file[(name, level)] for level in (Level.ERROR, Level.WARNING, Level.INFO))  # type: ignore[return-value]
