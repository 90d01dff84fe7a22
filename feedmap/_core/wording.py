"""Counted nouns in messages: ``1 entry``, ``2 entries``, ``1,000 warnings`` (never ``1 entries``)."""

from __future__ import annotations

__all__ = ["counted"]

_PLURALS = {"entry": "entries", "is": "are", "has": "have", "was": "were"}


def counted(number: int, singular: str, plural: str | None = None) -> str:
    """``number`` and the noun that agrees with it, thousands separated: ``counted(1, "entry")`` is ``1 entry``."""
    if number == 1:
        return f"1 {singular}"
    return f"{number:,} {plural or _PLURALS.get(singular) or singular + 's'}"
