"""A reporter that holds what it is told, to be said later where the writer writes the entry it was said of.

One job: rendering ahead of writing (a merge rendering every record before the first is written) must not move a
diagnostic before those of the entries written earlier: what rendering said is held here and said when its entry
is written, so the diagnostics come in the order of a run that renders each entry as it writes it.
"""

from __future__ import annotations

from typing import Any

from feedmap._core.errors import Reporter

__all__ = ["HeldReporter", "Said"]

#: One diagnostic held: the reporter's method (``info``, ``warning``, ``error``), code, message, source, line.
Said = tuple[str, str, str, str, int]


class HeldReporter(Reporter):
    """A reporter that keeps what it is told, in order, to be said later (:meth:`take`)."""

    def __init__(self) -> None:
        super().__init__()
        self.said: list[Said] = []

    def info(self, code: str, message: str, source: str = "", line: int = 0) -> None:
        self.said.append(("info", code, message, source, line))

    def warning(self, code: str, message: str, source: str = "", line: int = 0) -> None:
        self.said.append(("warning", code, message, source, line))

    def error(self, code: str, message: str, source: str = "", line: int = 0) -> None:
        self.said.append(("error", code, message, source, line))

    def report(self, diagnostic: Any) -> None:  # a Diagnostic made by hand
        method = diagnostic.level.name.lower()
        self.said.append((method, diagnostic.code, diagnostic.message, diagnostic.source, diagnostic.line))

    def take(self) -> tuple[Said, ...] | None:
        """What was told since the last take (None: nothing)."""
        if not self.said:
            return None
        said = tuple(self.said)
        self.said.clear()
        return said
