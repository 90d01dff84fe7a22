"""``feedmap info``: what an input is — format, entry count, lastmod range, problems found."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from feedmap import api
from feedmap.cli._common import DiagnosticPrinter, add_reading_options, follow_since, http_settings
from feedmap.errors import Level, Reporter

__all__ = ["add_parser", "describe", "run"]

_EPILOG = """\
examples:
  feedmap info sitemap.xml.gz                      format, entry count, lastmod range, problems
  feedmap info --json sitemap.xml urls.txt         one JSON object per input
  feedmap info index.xml --map https://example.com/=public/
                                                   an index with its children read from a build dir
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
    parser.add_argument("--json", action="store_true", help="print one JSON object per input instead of text")
    parser.add_argument("-q", "--quiet", action="store_true", help="do not print each diagnostic, only the summary")
    parser.set_defaults(run=run)


def describe(source: str, args: argparse.Namespace) -> dict[str, Any]:
    """Read one input to the end and return its summary."""
    printer = DiagnosticPrinter(quiet=True) if args.quiet else DiagnosticPrinter()
    reporter = Reporter(strict=args.strict, handler=None if args.quiet else printer)
    entries = images = dated = 0
    first = last = None
    with api.read(
        source,
        format=args.source_format,
        strict=args.strict,
        max_bytes=args.max_bytes,
        follow=False if args.no_follow else follow_since(args.since) if args.since is not None else True,
        max_depth=args.max_depth,
        maps=args.maps,
        concurrency=args.concurrency,
        http=http_settings(args),
        base_url=args.base_url,
        reporter=reporter,
    ) as doc:
        for entry in doc.entries:
            entries += 1
            images += len(entry.images)
            if entry.lastmod is not None:
                dated += 1
                key = entry.lastmod.sort_key()
                if first is None or key < first[0]:
                    first = (key, entry.lastmod.text)
                if last is None or key > last[0]:
                    last = (key, entry.lastmod.text)
        kind = doc.meta.kind.value
        fmt = doc.format
    printer.finish()
    return {
        "input": source,
        "format": fmt,
        "kind": kind,
        "entries": entries,
        "images": images,
        "with_lastmod": dated,
        "lastmod_min": first[1] if first else None,
        "lastmod_max": last[1] if last else None,
        "warnings": reporter.level_counts[Level.WARNING] + reporter.level_counts[Level.ERROR],
        "notes": reporter.level_counts[Level.INFO],
        "diagnostics": dict(reporter.counts.most_common()),
    }


def _print_text(summary: dict[str, Any]) -> None:
    print(summary["input"])
    print(f"  format:      {summary['format']}")
    print(f"  kind:        {summary['kind']}")
    print(f"  entries:     {summary['entries']:,}")
    print(f"  images:      {summary['images']:,}")
    if summary["with_lastmod"]:
        print(
            f"  lastmod:     {summary['lastmod_min']} .. {summary['lastmod_max']}"
            f" ({summary['with_lastmod']:,} of {summary['entries']:,} entries have one)"
        )
    else:
        print("  lastmod:     none")
    if summary["diagnostics"]:
        codes = ", ".join(f"{code} {count:,}" for code, count in summary["diagnostics"].items())
        print(f"  diagnostics: {summary['warnings']:,} warnings, {summary['notes']:,} notes ({codes})")
    else:
        print("  diagnostics: none")


def run(args: argparse.Namespace) -> int:
    for source in args.inputs:
        summary = describe(source, args)
        if args.json:
            print(json.dumps(summary, ensure_ascii=False))
        else:
            _print_text(summary)
        sys.stdout.flush()
    return 0
