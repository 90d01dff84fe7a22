"""``--cron``: what a command run by cron(8) prints — one summary line, and the warnings and errors.

cron mails what a job prints (to ``MAILTO``), so a job that prints nothing when all is well mails nothing.  In
cron mode a command prints exactly one summary line on stdout (``feedmap convert: wrote 1,234 entries to
sitemap.xml (sitemap); 0 warnings, 0 errors``; for ``convert`` writing its output to stdout, on stderr), and on
stderr the warnings and errors as they come (no notes, no progress line): a crontab line ending in
``>> feedmap.log`` keeps one line per run in the log and has cron mail only the warnings and errors.  The exit
codes are those of the command without ``--cron``; a run stopped by an error prints the error and, as its summary
line, that it failed and its exit code.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import TextIO

from feedmap._core.errors import FormatError, Level
from feedmap._core.wording import counted
from feedmap.cli._common import OptionGroup, printable

__all__ = ["add_cron_option", "check_cron", "cron_stream", "failed_line", "problems", "say"]


def add_cron_option(group: OptionGroup, *, refuses: tuple[str, ...] = ()) -> None:
    """``--cron`` (into ``args.cron``); ``refuses``: the command's flags of other outputs, refused with it."""
    group.add_argument(
        "--cron",
        action="store_true",
        help="for crontab: print one summary line (stdout) and the warnings and errors (stderr), nothing else: "
        "no notes, no progress; the exit code is unchanged"
        + (f" (not with {' or '.join(refuses)})" if refuses else ""),
    )


def check_cron(args: argparse.Namespace, **other_outputs: bool) -> None:
    """A usage error for ``--cron`` given with a flag of another output (``json=args.json``)."""
    given = [name for name, value in other_outputs.items() if value]
    if args.cron and given:
        flag = "--" + given[0].replace("_", "-")
        raise FormatError(f"--cron prints one summary line: leave out {flag} (or --cron)")


def cron_stream(args: argparse.Namespace) -> TextIO:
    """Where the summary line goes: stdout, unless the command writes its output there (``convert`` without
    ``-o``): then stderr."""
    to_stdout = getattr(args, "command", None) == "convert" and getattr(args, "output", None) in (None, "-")
    return sys.stderr if to_stdout else sys.stdout


def problems(levels: Mapping[Level, int]) -> str:
    """``3 warnings, 0 errors``: the warnings and errors counted."""
    return f"{counted(levels.get(Level.WARNING, 0), 'warning')}, {counted(levels.get(Level.ERROR, 0), 'error')}"


def say(args: argparse.Namespace, text: str) -> None:
    """Print the summary line of the command ``args`` ran: ``feedmap COMMAND: text``."""
    print(printable(f"feedmap {args.command}: {text}"), file=cron_stream(args))


def failed_line(args: argparse.Namespace, code: int) -> None:
    """The summary line of a run in cron mode that an error stopped (the error itself printed already)."""
    say(args, f"failed with exit code {code}; the error is on stderr")
