"""One diagnostic code's entry in the rules table: its level, its explanation and the spec it cites.

One job: the type both :mod:`feedmap._core.rules` (the table) and :mod:`feedmap._core.extension_rules` (the rules of
Google's sitemap extensions) build their entries of.
"""

from __future__ import annotations

from dataclasses import dataclass

from feedmap._core.errors import Level

__all__ = ["E", "N", "Rule", "W"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One code: its level, one line of explanation, the spec it cites, and the level reading reports it at
    when that differs (reading repairs what ``validate`` only reports)."""

    code: str
    level: Level
    summary: str
    spec: str
    repaired: Level | None = None

    @property
    def levels(self) -> frozenset[Level]:
        """Every level the code is reported at."""
        return frozenset({self.level} | ({self.repaired} if self.repaired is not None else set()))


E, W, N = Level.ERROR, Level.WARNING, Level.INFO
