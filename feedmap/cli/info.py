"""``feedmap info``: what an input is — format, entry count, lastmod range, problems found; for an index followed,
the same for each child sitemap with its bytes and status (:func:`feedmap._info.info`)."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any

from feedmap._core.errors import Level, Reporter
from feedmap._core.wording import counted
from feedmap.cli._common import (
    DiagnosticPrinter,
    add_http_options,
    add_reading_options,
    json_text,
    printable,
    reading_options,
)
from feedmap.cli._cron import add_cron_option, check_cron, problems, say

if TYPE_CHECKING:  # the library's machinery is loaded when the command runs, not for --help
    from feedmap._info import ChildInfo, Info

#: The exit code of an input read past an error (``xml-limit``), as ``feedmap convert`` gives it.
EXIT_INVALID = 1

__all__ = ["add_parser", "describe", "run"]

_EPILOG = """\
examples:
  feedmap info sitemap.xml.gz                      format, entry count, lastmod range, problems
  feedmap info --json sitemap.xml urls.txt         one JSON object per input
  feedmap info index.xml --map https://example.com/=public/
                                                   an index: a table of its children (entries, images,
                                                   lastmod range, bytes read, read/failed/skipped), then
                                                   the totals, the children read from a build dir
  feedmap info https://example.com/sitemap_index.xml --cron
                                                   one summary line, and the warnings and errors (crontab)

exit codes: 0 read (repairs and warnings are counted), 1 an error read past (error[xml-limit]: the rest was
  read and counted) or a warning under --strict, 2 an input that cannot be read (missing file, HTTP error)
"""


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "info",
        help="describe an input: format, entries, lastmod range, diagnostics; each child of an index",
        description="Read each INPUT and summarise it: format, kind, entry count, images, lastmod range "
        "and a count of diagnostics by code.  For a sitemap index followed, a table of its child sitemaps "
        "comes first: each one's entries, images, lastmod range, the bytes read of it (decompressed) and what "
        "became of it (read, failed and why, skipped and why, a nested index).  The input is read to the end "
        "(streaming).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_reading_options(parser, no_follow_help="for an index: describe the index itself, not its children")
    output = parser.add_argument_group("output")
    output.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per input instead of text (with its children: docs/guide.md gives the schema)",
    )
    output.add_argument(
        "-q", "--quiet", action="store_true", help="print warnings and errors only (no notes), then the summary"
    )
    add_cron_option(output, refuses=("--json",))
    add_http_options(parser)
    parser.set_defaults(run=run)


def describe(source: str, args: argparse.Namespace) -> Info:
    """Read one input to the end and describe it, its diagnostics printed on stderr as they come (``-q``,
    ``--cron``: the warnings and errors only)."""
    from feedmap._info import info  # the library's machinery: loaded when a command runs, not for --help

    printer = DiagnosticPrinter(quiet=args.quiet or args.cron)
    reporter = Reporter(strict=args.strict, handler=printer, keep=0)
    try:
        return info(source, args.source_format, reading_options(args), reporter=reporter)
    finally:
        printer.finish()


def _range(first: Any, last: Any) -> str:
    if first is None:
        return "-"
    return str(first.text) if first == last else f"{first.text} .. {last.text}"


def _status(child: ChildInfo) -> str:
    return child.status if child.code is None else f"{child.status} ({child.code})"


def _children_lines(children: tuple[ChildInfo, ...]) -> list[str]:
    """The table of the children: status, entries, images, bytes read, lastmod range, then the sitemap (indented
    by its depth) and why it failed or was left out."""
    rows = [("status", "entries", "images", "bytes", "lastmod", "sitemap")]
    for child in children:
        counted_here = child.status in ("read", "failed")
        rows.append(
            (
                _status(child),
                f"{child.entries:,}" if counted_here else "-",
                f"{child.images:,}" if counted_here else "-",
                f"{child.bytes:,}" if child.bytes is not None else "-",
                _range(child.lastmod_min, child.lastmod_max),
                "  " * (child.depth - 1) + child.loc + (f": {child.reason}" if child.reason else ""),
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(5)]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0]), *(row[i].rjust(widths[i]) for i in (1, 2, 3)), row[4].ljust(widths[4])]
        lines.append(printable(f"    {'  '.join(cells)}  {row[5]}".rstrip()))
    lines.append("    (bytes: read from each sitemap, decompressed)")
    return lines


def _statuses(children: tuple[ChildInfo, ...], noun: str = "sitemap") -> str:
    """``9 sitemaps: 6 read, 2 failed, 1 nested index``."""
    found = Counter(child.status for child in children)
    words = {"read": "read", "failed": "failed", "skipped": "skipped", "index": "nested index"}
    parts = [f"{found[status]:,} {word}" for status, word in words.items() if found[status]]
    if found["index"] > 1:
        parts[-1] += "es"
    return f"{counted(len(children), noun)}: {', '.join(parts)}" if parts else counted(0, noun)


def _print_text(summary: Info) -> None:
    print(printable(summary.input))
    print(f"  format:      {summary.format}")
    if summary.followed:
        print(f"  kind:        {summary.kind.value} (the entries of the index's children, followed)")
        print(f"  children:    {_statuses(summary.children)}")
        print("\n".join(_children_lines(summary.children)))
    else:
        print(f"  kind:        {summary.kind.value}")
    print(f"  entries:     {summary.entries:,}")
    print(f"  images:      {summary.images:,}")
    if summary.with_lastmod:
        have = "has" if summary.with_lastmod == 1 else "have"
        print(
            f"  lastmod:     {_range(summary.lastmod_min, summary.lastmod_max)}"
            f" ({summary.with_lastmod:,} of {counted(summary.entries, 'entry')} {have} one)"
        )
    else:
        print("  lastmod:     none")
    if summary.diagnostics:
        codes = ", ".join(f"{code} {count:,}" for code, count in summary.diagnostics.items())
        found = f"{counted(summary.warnings, 'warning')}, {counted(summary.notes, 'note')}"
        if summary.errors:
            found = f"{counted(summary.errors, 'error')}, {found}"
        print(f"  diagnostics: {found} ({codes})")
    else:
        print("  diagnostics: none")


def _cron_line(args: argparse.Namespace, described: list[Info]) -> None:
    """``--cron``'s one line for every input: inputs, entries, children by status, warnings and errors."""
    text = f"{counted(len(described), 'input')}, {counted(sum(one.entries for one in described), 'entry')}"
    if any(one.followed for one in described):
        children = tuple(child for one in described for child in one.children)
        text += f"; {_statuses(children, 'child sitemap')}"
    levels = {
        Level.WARNING: sum(one.warnings for one in described),
        Level.ERROR: sum(one.errors for one in described),
    }
    say(args, f"{text}; {problems(levels)}")


def run(args: argparse.Namespace) -> int:
    check_cron(args, json=args.json)
    invalid = False
    described = []
    for source in args.inputs:
        summary = describe(source, args)
        invalid = invalid or summary.errors > 0  # an error read past (xml-limit): exit 1, as convert
        if args.cron:
            described.append(summary)
        elif args.json:
            print(json_text(summary.to_dict()))
        else:
            _print_text(summary)
        sys.stdout.flush()
    if args.cron:
        _cron_line(args, described)
    return EXIT_INVALID if invalid else 0
