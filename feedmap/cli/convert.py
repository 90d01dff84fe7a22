"""``feedmap convert``: read one or more inputs and write them in another format."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from feedmap import api, registry
from feedmap.cli._common import DiagnosticPrinter, Progress, add_reading_options, reading_options
from feedmap.errors import FormatError, Reporter

__all__ = ["add_parser", "run"]

_DESCRIPTION = """\
Read INPUT (a path, an http(s) URL, or '-' for stdin; gzip is recognised by its content) and write it
in another format.
Several inputs are read one after the other into one output.  The input format is recognised from
the content (root element and namespaces, JSON lines, or lines of URLs) unless -f names it.

Reading is lenient: what real files get wrong (a bare '&', blanks before '<?xml', 'Daily', a priority
of 1.5, an odd date, a truncated file) is repaired and reported as file:line: warning[code]: message.
--strict stops with exit 1 at the first such warning instead.
"""

_EPILOG = """\
examples:
  feedmap convert samples/sitemap/basic.xml -t jsonl
  feedmap convert urls.txt -t sitemap -o sitemap.xml --encode-urls --schema-location
  feedmap convert sitemap_index.xml --map https://example.com/=public/ -t text -o urls.txt
  feedmap convert sitemap_index.xml --no-follow -t jsonl       the index's own entries
  feedmap convert https://example.com/sitemap_index.xml --since 2024-06-01 -t text
                                                   children changed since June 2024, 16 fetched at once
"""


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "convert",
        help="convert between formats",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_reading_options(
        parser,
        no_follow_help="for a sitemap index: yield its own entries (loc, lastmod) instead of reading its children",
    )
    parser.add_argument(
        "-t",
        "--to",
        dest="target_format",
        metavar="FMT",
        help="output format (see `feedmap formats`); default: from -o's extension",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="output file (default: standard output); written to a temporary file and renamed into place when complete",
    )
    parser.add_argument(
        "--schema-location",
        action="store_true",
        help="add xmlns:xsi and xsi:schemaLocation to XML sitemaps for schema validators",
    )
    parser.add_argument(
        "--encode-urls",
        action="store_true",
        help="write IRIs as URIs: IDNA host names, UTF-8 percent-escapes (each change reported)",
    )
    feed = parser.add_argument_group("feed output (-t rss, -t ror)")
    feed.add_argument(
        "--title", metavar="TEXT", help="channel title (default: the input's, else derived from the site)"
    )
    feed.add_argument("--link", metavar="URL", help="channel link (default: the input's, else the first URL's site)")
    feed.add_argument("--description", metavar="TEXT", help="channel description (default: the input's, else derived)")
    feed.add_argument("--self-url", metavar="URL", help='the feed\'s own URL, written as atom:link rel="self"')
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print warnings and errors only (no notes, no progress)"
    )
    parser.set_defaults(run=run)


def _target_format(args: argparse.Namespace) -> str:
    if args.target_format:
        return str(args.target_format)
    if args.output and args.output != "-":
        suffixes = [s.lower() for s in Path(args.output).suffixes if s.lower() not in (".gz",)]
        if suffixes:
            for spec in registry.all_formats():
                if spec.writer is not None and suffixes[-1] in spec.extensions:
                    return spec.name
    names = ", ".join(spec.name for spec in registry.all_formats() if spec.writer is not None)
    raise FormatError(f"say which format to write with -t FMT (one of: {names})")


def run(args: argparse.Namespace) -> int:
    target = _target_format(args)
    printer = DiagnosticPrinter(quiet=args.quiet)
    reporter = Reporter(strict=args.strict, handler=printer)
    options = reading_options(
        args,
        schema_location=args.schema_location,
        encode_urls=args.encode_urls,
        channel_title=args.title,
        channel_link=args.link,
        channel_description=args.description,
        self_url=args.self_url,
    )
    progress = Progress("feedmap convert", enabled=not args.quiet and args.output not in (None, "-"))
    inputs = list(args.inputs)
    if inputs.count("-") > 1:
        raise FormatError("standard input ('-') can be read only once")
    try:
        summary = api.convert(
            inputs,
            args.output,
            to=target,
            from_=args.source_format,
            options=options,
            reporter=reporter,
            wrap=progress.wrap,
        )
    finally:
        progress.close()
        printer.finish()
    if args.output not in (None, "-") and not args.quiet:
        print(f"feedmap: wrote {summary.entries:,} entries to {args.output} ({target})", file=sys.stderr)
    return 0
