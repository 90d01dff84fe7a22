"""What every subcommand shares: printing diagnostics, parsing sizes and ``--map``, progress on stderr.

Diagnostics are printed as ``file:line: level[code]: message`` (the GNU error-message convention),
at most :data:`PER_CODE` of one code, then a count of what was not shown.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO, TypeVar

from feedmap.errors import Diagnostic, Level

__all__ = ["DiagnosticPrinter", "Progress", "add_reading_options", "parse_map", "parse_size"]

PER_CODE = 20
T = TypeVar("T")


class DiagnosticPrinter:
    """Prints diagnostics as they arrive; repeated codes are cut short and counted."""

    def __init__(self, stream: TextIO | None = None, *, quiet: bool = False, per_code: int = PER_CODE) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.per_code = per_code
        self.shown: Counter[str] = Counter()
        self.hidden: Counter[str] = Counter()
        self.levels: Counter[Level] = Counter()

    def __call__(self, diagnostic: Diagnostic) -> None:
        self.levels[diagnostic.level] += 1
        if self.quiet and diagnostic.level < Level.WARNING:
            return
        if self.shown[diagnostic.code] >= self.per_code:
            self.hidden[diagnostic.code] += 1
            return
        self.shown[diagnostic.code] += 1
        print(diagnostic, file=self.stream)

    def finish(self) -> None:
        if self.hidden:
            listed = ", ".join(f"{count} {code}" for code, count in self.hidden.most_common())
            print(f"feedmap: not shown: {listed} (the first {self.per_code} of each were)", file=self.stream)


_SIZE = re.compile(r"(?i)\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*")
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def parse_size(text: str) -> int:
    """``100M``, ``1.5GiB``, ``500000`` -> bytes (binary units)."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size; write bytes, or a number with K, M or G")
    value = int(float(match.group(1)) * _UNITS[match.group(2).lower()])
    if value <= 0:
        raise argparse.ArgumentTypeError("the size must be positive")
    return value


def parse_map(text: str) -> tuple[str, Path]:
    """``PREFIX=DIR`` -> (prefix, directory); the directory must exist."""
    prefix, sep, directory = text.partition("=")
    if not sep or not prefix or not directory:
        raise argparse.ArgumentTypeError(
            f"{text!r}: write --map URL_PREFIX=DIRECTORY, e.g. --map https://example.com/=public/"
        )
    path = Path(directory)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"--map {text}: {directory} is not a directory")
    return prefix, path


class Progress:
    """A line on stderr, refreshed at most twice a second, when stderr is a terminal."""

    def __init__(self, label: str, *, enabled: bool, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and self.stream.isatty()
        self.label = label
        self.count = 0
        self.started = time.monotonic()
        self._last = 0.0

    def wrap(self, items: Iterable[T]) -> Iterator[T]:
        if not self.enabled:
            yield from items
            return
        for item in items:
            self.count += 1
            if self.count & 1023 == 0:
                now = time.monotonic()
                if now - self._last >= 0.5:
                    self._last = now
                    rate = self.count / max(now - self.started, 1e-9)
                    self.stream.write(f"\r{self.label}: {self.count:,} entries ({rate:,.0f}/s)")
                    self.stream.flush()
            yield item
        self.close()

    def close(self) -> None:
        if self.enabled and self._last:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._last = 0.0


def add_reading_options(parser: argparse.ArgumentParser, *, no_follow_help: str) -> None:
    """INPUT..., -f, --strict, --max-bytes, --no-follow and --map: what every reading command takes."""
    from feedmap.sources import DEFAULT_MAX_BYTES

    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="a file path, or - for standard input")
    parser.add_argument(
        "-f", "--from", dest="source_format", metavar="FMT", help="input format (default: recognised from content)"
    )
    parser.add_argument(
        "--strict", action="store_true", help="treat any warning as an error: exit 1 at the first problem"
    )
    parser.add_argument(
        "--max-bytes",
        type=parse_size,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help="largest (decompressed) input to read, e.g. 200M or 2G (default: 100M)",
    )
    parser.add_argument("--no-follow", action="store_true", help=no_follow_help)
    parser.add_argument(
        "--map",
        dest="maps",
        action="append",
        type=parse_map,
        default=[],
        metavar="PREFIX=DIR",
        help="read URLs starting with PREFIX from the directory DIR (repeatable), "
        "e.g. index children from a build directory",
    )
