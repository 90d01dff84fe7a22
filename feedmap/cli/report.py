"""``feedmap report INPUT... -o report.html``: one self-contained HTML page about the inputs.

The page is :func:`feedmap._report.run.report`'s (counts, dates, hosts, files, validation findings, charts when
matplotlib is installed).  Nothing is printed per diagnostic (the page lists them by code); one line on stderr says
what was written.  Exit 0 when the page was written and validation found no error (no warning either with
``--strict``), 1 when it was written and found one (or an input was no sitemap), 2 for a usage error, an input
that cannot be opened or an output that cannot be written (nothing written then).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from feedmap._core.errors import Level
from feedmap._core.wording import counted
from feedmap.cli._common import (
    DiagnosticPrinter,
    add_http_options,
    add_reading_options,
    parse_date,
    printable,
    reading_options,
)
from feedmap.cli._cron import add_cron_option, check_cron, say

__all__ = ["add_parser", "run"]

EXIT_OK = 0
EXIT_FOUND = 1

_DESCRIPTION = """\
Read each INPUT (a sitemap, an index followed into its child sitemaps, a text sitemap, a feed, JSON lines; a path,
an http(s) URL or '-') and write one self-contained HTML page about them: totals; a table of the files read (URLs,
images, size, lastmod range, problems); lastmod by month and the URLs changed in the last 7, 30 and 365 days;
URLs per host and per top path section; changefreq and priority; repeated URLs; the validation findings by code,
each with its first examples and their lines; hreflang coverage; images per URL.

The page has its style sheet and charts inside it and fetches nothing (no script, no font, no image from
anywhere): it opens offline and can be mailed.  Charts are drawn with matplotlib when it is installed
(pip install 'feedmap[report]'); without it the page has the same tables, and says so.  Reading streams and every
table is capped, so memory stays flat on millions of URLs.  Each input is read twice, one pass to count its URLs
(as convert reads it) and one to validate it (as feedmap validate does); --no-validate makes one pass.
"""

_EPILOG = """\
examples:
  feedmap report sitemap.xml -o report.html                  a sitemap's page
  feedmap report index.xml --map https://example.com/=public/ -o report.html
                                                   an index and its children, read from a build directory
  feedmap report https://example.com/sitemap_index.xml --cache ~/.cache/feedmap -o report.html
                                                   from the web (validation's second read is a conditional GET)
  feedmap report index.xml --jobs 0 --now 2024-06-01 -o report.html
                                                   children read on every core; ages counted from June 1st
  feedmap report sitemap.xml -o - | gzip > report.html.gz     to standard output (not to a terminal)
  feedmap report index.xml -o /var/www/report.html --cron      nightly: one line, and reading's warnings

The page says when it was counted (--now; default: today, midnight UTC): the same inputs and --now give the same
bytes.

exit codes: 0 written, and validation found no error (with --strict: no warning either), 1 written, and it found
  one (or an input is no sitemap or feed), 2 usage error, an input that cannot be opened, or an output that cannot
  be written (nothing written then; a terminal is refused)
"""


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "report",
        help="write one self-contained HTML page about the inputs: counts, dates, hosts, problems",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_reading_options(
        parser,
        no_follow_help="for an index: report on the index's own entries (its children), not read them",
        helps={
            "strict": "a validation warning counts as an error: exit 1 (the page is written all the same)",
            "max_line_bytes": argparse.SUPPRESS,
        },
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        required=True,
        help="the page to write, e.g. report.html (written to a temporary file renamed over it), or - for "
        "standard output (refused when it is a terminal)",
    )
    output.add_argument("--title", metavar="TEXT", help="the page's title (default: names the first input)")
    output.add_argument(
        "--now",
        type=parse_date,
        metavar="DATE",
        help="the instant the ages are counted against (changed in the last 7 days, lastmods in the future), "
        "e.g. 2024-06-01 or 2024-06-01T12:00:00Z (default: today, midnight UTC)",
    )
    output.add_argument(
        "--no-validate",
        action="store_true",
        help="leave validation out: one pass, no findings and no file sizes in the page",
    )
    output.add_argument("-q", "--quiet", action="store_true", help="print nothing when the page was written")
    add_cron_option(output, refuses=("--quiet",))
    add_http_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from feedmap._report.run import report  # the report's machinery: loaded when it runs, not for --help

    check_cron(args, quiet=args.quiet)
    printer = DiagnosticPrinter(quiet=True) if args.cron else None  # --cron: reading's warnings and errors
    summary = report(
        list(args.inputs),
        args.output,
        reading_options(args),
        source_format=args.source_format,
        title=args.title,
        now=args.now,
        validate=not args.no_validate,
        on_diagnostic=printer,
    )
    unread = summary.reporter.level_counts[Level.ERROR]  # an input that is no sitemap, an index with no child read
    if printer is not None:
        printer.finish()
    if not args.quiet:
        where = "<stdout>" if args.output == "-" else args.output
        if args.no_validate:
            found = "not validated"
        else:
            found = f"{counted(summary.files, 'file')} validated: {counted(summary.errors, 'error')}, "
            found += counted(summary.warnings, "warning")
        trouble = f"; {counted(unread, 'reading error')}" if unread else ""
        if args.cron:  # the one line, on stdout; the findings are the page's
            say(args, f"wrote {where}: {counted(summary.urls, 'URL')}; {found}{trouble}")
        else:
            print(printable(f"{where}: {counted(summary.urls, 'URL')}; {found}{trouble}"), file=sys.stderr)
    return EXIT_OK if summary.ok and not unread else EXIT_FOUND
