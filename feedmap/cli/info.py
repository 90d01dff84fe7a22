"""``feedmap info``: what an input is — format, entry count, lastmod range, problems found."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from feedmap._core.dates import W3CDate
from feedmap._core.errors import Level, Reporter
from feedmap._core.model import DocKind
from feedmap._core.wording import counted
from feedmap.cli._common import (
    DiagnosticPrinter,
    add_http_options,
    add_reading_options,
    json_text,
    printable,
    reading_options,
)

#: The exit code of an input read past an error (``xml-limit``), as ``feedmap convert`` gives it.
EXIT_INVALID = 1

__all__ = ["add_parser", "describe", "run"]

_EPILOG = """\
examples:
  feedmap info sitemap.xml.gz                      format, entry count, lastmod range, problems
  feedmap info --json sitemap.xml urls.txt         one JSON object per input
  feedmap info index.xml --map https://example.com/=public/
                                                   an index with its children read from a build dir

exit codes: 0 read (repairs and warnings are counted), 1 an error read past (error[xml-limit]: the rest was
  read and counted) or a warning under --strict, 2 an input that cannot be read (missing file, HTTP error)
"""


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "info",
        help="describe an input: format, entries, lastmod range, diagnostics",
        description="Read each INPUT and summarise it: format, kind, entry count, images, lastmod range "
        "and a count of diagnostics by code.  The input is read to the end (streaming).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_reading_options(parser, no_follow_help="for an index: describe the index itself, not its children")
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object per input instead of text")
    output.add_argument(
        "-q", "--quiet", action="store_true", help="print warnings and errors only (no notes), then the summary"
    )
    add_http_options(parser)
    parser.set_defaults(run=run)


class _Span:
    """The earliest and latest lastmod, comparing text where text order is time order.

    W3C dates (fixed-width, zero-padded fields) of one length and one zone are of one shape and order as
    their text does, so each (length, zone) keeps its first and last text by string comparison, and only
    those few are compared as :class:`W3CDate` values at the end (``info`` reads as fast as
    ``convert -t text``): by instant, a tie by precision (the coarser is earlier), then by text.
    """

    def __init__(self) -> None:
        #: (length, zone) -> [earliest text, its position, latest text, its position]
        self.groups: dict[tuple[int, str], list[Any]] = {}

    def add(self, text: str, position: int) -> None:
        # a zone "+hh:mm" follows a time (22 characters at least); "Z" ends the text; a date has no zone
        size = len(text)
        zone = text[-6:] if size >= 22 and text[-6] in "+-" else "Z" if text[-1] == "Z" else ""
        group = self.groups.get((size, zone))
        if group is None:
            self.groups[(size, zone)] = [text, position, text, position]
        elif text < group[0]:
            group[0], group[1] = text, position
        elif text > group[2]:
            group[2], group[3] = text, position

    def ends(self) -> tuple[str | None, str | None]:
        if not self.groups:
            return None, None
        earliest = min(W3CDate(group[0]) for group in self.groups.values())
        latest = max(W3CDate(group[2]) for group in self.groups.values())
        return earliest.text, latest.text


def describe(source: str, args: argparse.Namespace) -> dict[str, Any]:
    """Read one input to the end and return its summary."""
    from feedmap import _api as api  # the library's machinery: loaded when a command runs, not for --help

    printer = DiagnosticPrinter(quiet=args.quiet)  # -q: warnings and errors only, as for convert
    reporter = Reporter(strict=args.strict, handler=printer)
    entries = images = dated = 0
    span = _Span()
    with api.read(
        source,
        format=args.source_format,
        options=reading_options(args),
        reporter=reporter,
    ) as doc:
        for entry in doc.entries:
            entries += 1
            images += len(entry.images)
            if entry.lastmod is not None:
                dated += 1
                span.add(entry.lastmod.text, entries)
        kind = doc.meta.kind.value
        fmt = doc.format
    printer.finish()
    first, last = span.ends()
    return {
        "input": source,
        "format": fmt,
        "kind": kind,
        # a followed index is described by the entries of its children: say so, not only "urlset"
        "followed": fmt == "sitemapindex" and kind != DocKind.INDEX.value,
        "entries": entries,
        "images": images,
        "with_lastmod": dated,
        "lastmod_min": first,
        "lastmod_max": last,
        "errors": reporter.level_counts[Level.ERROR],
        "warnings": reporter.level_counts[Level.WARNING],
        "notes": reporter.level_counts[Level.INFO],
        "diagnostics": dict(reporter.counts.most_common()),
    }


def _print_text(summary: dict[str, Any]) -> None:
    print(printable(summary["input"]))
    print(f"  format:      {summary['format']}")
    if summary["followed"]:
        print(f"  kind:        {summary['kind']} (the entries of the index's children, followed)")
    else:
        print(f"  kind:        {summary['kind']}")
    print(f"  entries:     {summary['entries']:,}")
    print(f"  images:      {summary['images']:,}")
    if summary["with_lastmod"]:
        have = "has" if summary["with_lastmod"] == 1 else "have"
        print(
            f"  lastmod:     {summary['lastmod_min']} .. {summary['lastmod_max']}"
            f" ({summary['with_lastmod']:,} of {counted(summary['entries'], 'entry')} {have} one)"
        )
    else:
        print("  lastmod:     none")
    if summary["diagnostics"]:
        codes = ", ".join(f"{code} {count:,}" for code, count in summary["diagnostics"].items())
        found = f"{counted(summary['warnings'], 'warning')}, {counted(summary['notes'], 'note')}"
        if summary["errors"]:
            found = f"{counted(summary['errors'], 'error')}, {found}"
        print(f"  diagnostics: {found} ({codes})")
    else:
        print("  diagnostics: none")


def run(args: argparse.Namespace) -> int:
    invalid = False
    for source in args.inputs:
        summary = describe(source, args)
        invalid = invalid or summary["errors"] > 0  # an error read past (xml-limit): exit 1, as convert
        if args.json:
            print(json_text(summary))
        else:
            _print_text(summary)
        sys.stdout.flush()
    return EXIT_INVALID if invalid else 0
