"""Command-line advice added to the library's messages, by their code.

The library's errors and diagnostics describe the problem without naming command-line flags (a Python
caller has none; it has the parameters of :func:`feedmap.read` and friends).  The CLI appends the flag that
changes the outcome, chosen by the error's or diagnostic's ``code``.
"""

from __future__ import annotations

from feedmap._errors import Diagnostic, FeedmapError, UnknownFormatError

__all__ = ["ADVICE", "advice_for", "with_advice"]

#: Code -> what to append (with its separator) on the command line.
ADVICE: dict[str, str] = {
    "unknown-format": "; name it with -f FORMAT",
    "too-large": "; raise the cap with --max-bytes if the input is trusted",
    "timeout": "; --deadline sets the time allowed",
    "line-too-long": "; --max-line-bytes raises the limit",
    "channel-link-missing": "; give one with --link",
    "file-missing": " (--map)",
}


def advice_for(exc: FeedmapError) -> str:
    """The flag advice for an error (empty when there is none)."""
    code = "unknown-format" if isinstance(exc, UnknownFormatError) else getattr(exc, "code", "")
    return ADVICE.get(code, "") if isinstance(code, str) else ""


def with_advice(diagnostic: Diagnostic) -> str:
    """A diagnostic as printed by the CLI: ``file:line: level[code]: message`` and the flag advice."""
    return f"{diagnostic}{ADVICE.get(diagnostic.code, '')}"
