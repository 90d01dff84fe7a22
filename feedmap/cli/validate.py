"""``feedmap validate INPUT...``: every protocol rule each input breaks, one line per finding, then a summary.

The checks are :func:`feedmap._validate.report.validate` (sitemaps.org 0.9 and its XSDs for sitemaps, indexes and
text sitemaps; Google's localized versions for hreflang alternates; RSS 2.0 and ROR for feeds), the inputs
validated as one run (:class:`~feedmap._validate.report.Validation`: the hreflang return links span them).
Findings go to stdout as ``file:line[:col]: level[code]: message`` (or, with ``--json``, one JSON object for CI
systems), then ``2 errors, 5 warnings in 3 files, 120,000 entries``.  Exit 0 with no error (warnings allowed
unless ``--strict``), 1 with an error, 2 when an input cannot be read at all (or a usage error).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any, TextIO

from feedmap._core.errors import Diagnostic, Level, SourceError
from feedmap._core.wording import counted
from feedmap.cli._common import add_http_options, add_reading_options, json_text, printable, reading_options
from feedmap.cli._cron import add_cron_option, check_cron, say
from feedmap.cli.codes import explain

if TYPE_CHECKING:  # the checks are imported when validate runs: the other commands do not load them
    from feedmap._validate.report import Report

__all__ = ["add_parser", "finding_line", "run"]

EXIT_VALID = 0
EXIT_INVALID = 1
EXIT_UNREADABLE = 2

_EPILOG = """\
examples:
  feedmap validate sitemap.xml                     every problem, with its line; exit 1 on an error
  feedmap validate sitemap.xml.gz --strict         exit 1 on a warning too
  feedmap validate index.xml --map https://example.com/=public/
                                                   an index and each of its children, read from a build dir
  feedmap validate public/sitemap.xml --base-url https://example.com/sitemap.xml
                                                   also check that every URL is under the sitemap's directory
  feedmap validate https://example.com/sitemap.xml --json    one JSON object, for CI
  feedmap validate sitemap.xml --ignore lastmod-future --ignore loc-duplicate
                                                   every finding but those of these codes
  feedmap validate --explain loc-not-escaped       what a code means
  feedmap validate --explain                       every code, its level and meaning

In text output, each file shows the first {shown} findings of any one code, then "and N more"
(--json lists every one).  Findings come in line order; what is about a whole file (a count of URLs
outside the sitemap's directory, its size) comes after its lines.

exit codes: 0 no error (warnings allowed unless --strict), 1 an error, 2 an input that cannot be read at all
"""


#: In text output, the findings of one code shown per file before "and N more".
SHOWN_PER_CODE = 10
_EPILOG = _EPILOG.replace("{shown}", str(SHOWN_PER_CODE))


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "validate",
        help="list every protocol rule a sitemap, index, text sitemap or feed breaks, with its line",
        description="Check each INPUT against the protocol (sitemaps.org 0.9 and its XSDs, RSS 2.0, ROR) without "
        "repairing anything: one line per finding (file:line[:col]: level[code]: message), then a summary.  "
        "An index's children are validated too, each under its own name (--no-follow: the index only), by the "
        "rules convert follows them with: a child off the index's site (another host, a redirect off it, a file: "
        "child of a remote index) is reported and never read.  "
        "The scope of URLs is checked when the sitemap's URL is known (a fetched input, --map, --base-url): the "
        "URLs outside its directory are one note per file, none when the site's robots.txt names the sitemap.  "
        "hreflang alternates are checked by Google's rules (values, absolute hrefs, each page naming itself), and "
        "their return links across every file read: an index's children and all the INPUTs given together.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_reading_options(
        parser,
        no_follow_help="for an index: validate the index only, not its children",
        inputs="*",  # none with --explain
        helps={
            "strict": "warnings count as errors: exit 1 on a warning too (every finding is still listed)",
            "base_url": "the URL of a local input, for the scope checks (URLs under its directory, children on its "
            "site: those off it are not read)",
            "since": argparse.SUPPRESS,  # every child of an index is validated
            "max_line_bytes": argparse.SUPPRESS,  # a text sitemap is checked line by line, whatever the length
        },
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (findings, counts, ok), streamed: every finding, none capped",
    )
    output.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="CODE",
        help="leave out the findings of CODE: not listed, not counted (repeatable; see --explain)",
    )
    output.add_argument("-q", "--quiet", action="store_true", help="print errors and warnings only, then the summary")
    add_cron_option(output, refuses=("--json",))
    output.add_argument(
        "--explain",
        nargs="?",
        const="",
        metavar="CODE",
        help="print what CODE means and exit (without CODE: the table of every code)",
    )
    add_http_options(parser)
    parser.set_defaults(run=run)


def finding_line(finding: Diagnostic) -> str:
    """``file:line[:col]: level[code]: message``."""
    where = finding.source or "feedmap"
    if finding.line:
        where += f":{finding.line}" + (f":{finding.column}" if finding.column else "")
    return printable(f"{where}: {finding.level}[{finding.code}]: {finding.message}")


def _summary(total: Report) -> str:
    parts = [counted(total.errors, "error"), counted(total.warnings, "warning")]
    if total.infos:
        parts.append(counted(total.infos, "note"))
    return f"{', '.join(parts)} in {counted(total.files, 'file')}, {counted(total.entries, 'entry')}"


def run(args: argparse.Namespace) -> int:
    from feedmap._validate.report import Report, Validation

    if args.explain is not None:
        return explain(args.explain)
    if not args.inputs:
        print("feedmap validate: error: give at least one INPUT (or --explain CODE)", file=sys.stderr)
        return EXIT_UNREADABLE
    if args.since is not None:  # hidden from --help; taken by the shared reading options, meaningless here
        print(
            "feedmap validate: error: --since: validate checks every child of an index, whatever its lastmod; "
            "leave --since out (convert --since reads the children changed since a date)",
            file=sys.stderr,
        )
        return EXIT_UNREADABLE
    from feedmap._core.rules import renamed_hint, rule  # the table of codes: loaded when this command runs

    unknown = [code for code in args.ignore if rule(code) is None]
    if unknown:
        print(
            f"feedmap validate: error: --ignore {unknown[0]}: no such code (feedmap codes lists them"
            f"{renamed_hint(unknown[0])})",
            file=sys.stderr,
        )
        return EXIT_UNREADABLE
    check_cron(args, json=args.json)
    options = reading_options(args)
    total = Report(strict=options.strict)
    unreadable = False
    out: _JsonFindings | _TextFindings
    if args.json:
        out = _JsonFindings()
    else:  # --cron: the findings on stderr, the one summary line on stdout
        out = _TextFindings(quiet=args.quiet or args.cron, stream=sys.stderr if args.cron else None)
    validation = Validation(options, out.add, args.ignore)  # the hreflang return links span the inputs
    try:
        for source in args.inputs:
            try:
                report = validation.input(source, args.source_format)
            except SourceError as exc:
                unreadable = True
                found = Diagnostic(Level.ERROR, "unreadable", str(exc), source)
                out.add(found)
                total.add(found, keep=False)
                continue
            finally:
                out.end_of_input()
            _add(total, report)
        try:
            _add(total, validation.finish())
        except SourceError as exc:  # the return links' scratch database could not be written
            unreadable = True
            found = Diagnostic(Level.ERROR, "unreadable", str(exc))
            out.add(found)
            total.add(found, keep=False)
        finally:
            out.end_of_input()
    finally:
        validation.close()
    if args.cron:
        say(args, _summary(total))
    else:
        out.finish(total)
    if unreadable:
        return EXIT_UNREADABLE
    return EXIT_VALID if total.ok else EXIT_INVALID


def _add(total: Report, report: Report) -> None:
    total.counts.update(report.counts)
    total.files += report.files
    total.entries += report.entries


class _TextFindings:
    """The findings as lines, at most :data:`SHOWN_PER_CODE` of one code per file, then "and N more".

    Streaming: what is held is a count per (file, code) of the current input, and the "and N more" lines
    are said when the findings move on to another file (a file's findings come together, but for those its
    index says about its children after them) and at the end of each input.
    """

    def __init__(self, *, quiet: bool, stream: TextIO | None = None) -> None:
        self.quiet = quiet
        self.stream = stream  # None: stdout (looked up when printing)
        self.seen: Counter[tuple[str, str]] = Counter()
        self.levels: dict[tuple[str, str], Level] = {}
        self.said: Counter[tuple[str, str]] = Counter()  # the hidden ones already said
        self.source: str | None = None

    def add(self, finding: Diagnostic) -> None:
        if self.quiet and finding.level < Level.WARNING:
            return
        if finding.source != self.source:
            self._say_hidden()
            self.source = finding.source
        key = (finding.source, finding.code)
        self.seen[key] += 1
        if self.seen[key] <= SHOWN_PER_CODE:
            print(finding_line(finding), file=self.stream)
        else:
            self.levels[key] = finding.level

    def _say_hidden(self) -> None:
        for key, level in self.levels.items():
            hidden = self.seen[key] - SHOWN_PER_CODE - self.said[key]
            if hidden > 0:
                source, code = key
                self.said[key] += hidden
                shown = "" if self.said[key] > hidden else f" (the first {SHOWN_PER_CODE} are shown above)"
                more = Diagnostic(level, code, f"and {hidden:,} more{shown}; --json lists every one", source)
                print(finding_line(more), file=self.stream)
        self.levels.clear()

    def end_of_input(self) -> None:
        self._say_hidden()
        self.seen.clear()
        self.said.clear()
        self.source = None

    def finish(self, total: Report) -> None:
        print(_summary(total))


class _JsonFindings:
    """The ``--json`` object, printed as the findings come (``{"findings": [...], "counts": ..., "ok": ...}``):
    one JSON object in the end, without holding the findings in memory."""

    def __init__(self) -> None:
        self.first = True
        sys.stdout.write('{"findings": [')

    def add(self, finding: Diagnostic) -> None:
        item = {
            "file": finding.source,
            "line": finding.line,
            "column": finding.column,
            "level": str(finding.level),
            "code": finding.code,
            "message": finding.message,
        }
        sys.stdout.write(("" if self.first else ", ") + json_text(item))
        self.first = False

    def end_of_input(self) -> None:
        pass

    def finish(self, total: Report) -> None:
        import json  # only --json prints JSON

        counts = {
            "errors": total.errors,
            "warnings": total.warnings,
            "infos": total.infos,
            "files": total.files,
            "entries": total.entries,
        }
        sys.stdout.write(f'], "counts": {json.dumps(counts)}, "ok": {json.dumps(total.ok)}}}\n')
