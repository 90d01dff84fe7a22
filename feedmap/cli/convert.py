"""``feedmap convert``: read one or more inputs and write them in another format."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, get_args

from feedmap._core.context import Options
from feedmap._core.errors import Diagnostic, FormatError, Level, Reporter
from feedmap._core.model import DocKind
from feedmap._core.options import ExplodeList
from feedmap.cli._common import (
    DiagnosticPrinter,
    Progress,
    add_http_options,
    add_reading_options,
    add_since_option,
    non_negative_int,
    parse_date,
    printable,
    reading_options,
    web_url,
    xml_text,
)
from feedmap.cli._cron import add_cron_option, problems, say
from feedmap.cli._option_types import field_assignment
from feedmap.cli._split_options import add_split_options, check_split, last_line
from feedmap.converters._kinds import xml_for_kind
from feedmap.converters._sort import SORT_KEYS
from feedmap.formats import _registry as registry

#: The exit code of an input read with an error (as ``feedmap validate`` gives for an invalid one).
EXIT_INVALID = 1

__all__ = ["add_parser", "run"]

_DESCRIPTION = """\
Read INPUT (a path, an http(s) URL, or '-' for stdin; gzip is recognised by its content) and write it
in another format.
Several inputs are read one after the other into one output.  The input format is recognised from
the content (root element and namespaces, JSON lines, or lines of URLs) unless -f names it.

--enrich reads each entry's page and fills in its title, description and keywords from the page's
<title>, <meta name="description"> and <meta name="keywords"> (what -t ror writes as each item's title,
description and ror:keywords).  Values an entry already has are kept unless --overwrite is given.  Pages
under a --map prefix are read from disk; others are fetched, --concurrency at a time, in input order,
honouring robots.txt and --delay.  A page that cannot be read (404, timeout, not HTML, disallowed by
robots.txt) is reported with its URL and the entry is written as it was.

With -o DIR/ (a path ending with '/', or an existing directory) and --base-url URL (the URL the
directory is served at), the output is split into numbered files of at most 50,000 URLs and 52,428,800
bytes uncompressed each (--max-urls and --max-file-bytes lower the limits; --gzip compresses each file)
plus DIR/sitemap_index.xml listing each file with the newest lastmod of its URLs.  Only files whose
content changed are rewritten, the index last, and the files that the index being replaced named and
the run no longer writes are removed (never a file no index of that name named).  A text sitemap is
split too (urls-1.txt, ...), a feed (-t rss, -t ror, -t atom) when --max-urls says how many items a file holds.

--set FIELD=VALUE gives every entry a value (replacing the one read; an empty VALUE clears the field), checked
as a reader checks it: --set type=Product, --set changefreq=daily, --set lastmod=2024-06-01, --set
keywords=a,b.  --set-missing sets it only on entries without one.  Values per URL come from the input (JSON
lines: see docs/guide.md for a jq one-liner that adds a field to some URLs).

Reading is lenient: what real files get wrong (a bare '&', blanks before '<?xml', 'Daily', a priority
of 1.5, an odd date, a truncated file) is repaired and reported as file:line: warning[code]: message.
--strict stops with exit 1 at the first such warning instead.  An error read past (error[xml-limit]:
a run of blank space past the XML parser's limit, cut) is written as read and exits 1.
"""

_EPILOG = """\
examples:
  feedmap convert samples/sitemap/basic.xml -t jsonl
  feedmap convert urls.txt -t sitemap -o sitemap.xml --encode-urls --schema-location
  feedmap convert sitemap_index.xml --map https://example.com/=public/ -t text -o urls.txt
  feedmap convert sitemap_index.xml --no-follow -t jsonl       the index's own entries
  feedmap convert https://example.com/sitemap_index.xml --since 2024-06-01 -t text
                                                   children changed since June 2024, 16 fetched at once
  feedmap convert sitemap.xml --since 2024-06-01 --until 2024-06-30 --include '/blog/' -t text
                                                   the blog pages changed in June 2024
  feedmap convert sitemap.xml --exclude '\\?' --limit 100 -t jsonl   the first 100 URLs without a query
  feedmap convert sitemap.xml --sort -lastmod --limit 20 -t rss   the latest 20 pages as an RSS feed
  feedmap convert sitemap.xml -o feed.atom --self-url https://example.com/feed.atom
                                                   an Atom 1.0 feed
  feedmap convert products.xml --set type=Product -t ror   every item a ror:type Product
  feedmap convert big.jsonl -t sitemap -o public/sitemaps/ --base-url https://example.com/sitemaps/
                                                   sitemap-1.xml, ... and sitemap_index.xml
  feedmap convert urls.txt -t sitemap -o out/ --base-url https://example.com/ --max-urls 10000 --gzip
                                                   sitemap-1.xml.gz, ... of 10,000 URLs each, and the index
  feedmap convert products.jsonl -o out/ --base-url https://example.com/ --name 'products-{n}.xml' \\
      --index-name products_index.xml          a second set in out/ with its own index: neither run
                                                   removes a file of the other's
  feedmap convert https://example.com/sitemap.xml --enrich -t ror -o ror.xml
                                                   a ROR feed with each page's title, description, keywords
  feedmap convert sitemap.xml --enrich --map https://example.com/=public/ -t jsonl
                                                   the same from a static-site build directory, no network

exit codes: 0 written (repairs and warnings are printed; an index child that could not be read is a
  warning[child-unreadable]), 1 an input that cannot be used (not a sitemap or feed, no child of an index read),
  an error read past (error[xml-limit]: what could be read is written) or a warning under --strict,
  2 usage or I/O error (a missing input, a full disk, an output that cannot be written),
  130/143/129 stopped by Ctrl-C, SIGTERM or SIGHUP (no partial output left), 141 stdout closed (| head)
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
        since=False,  # among the selection options
        # --base-url also says where a directory output is served
        helps={
            "base_url": "resolve relative URLs of a local input against URL (a fetched input's own URL comes first, "
            "a feed's channel link after); with -o DIR/, also the URL the directory is served at: the index's "
            "locs are URL + each file's name"
        },
    )
    _add_field_options(parser)
    _add_selection_options(parser)
    output = parser.add_argument_group("output")
    output.add_argument(
        "-t",
        "--to",
        dest="target_format",
        metavar="FMT",
        help="output format (see `feedmap formats`); default: from -o's extension (.xml: a sitemap index for an "
        "index's own entries read with --no-follow, else a sitemap; .rss RSS 2.0, .atom Atom 1.0, .ror ROR); "
        "a sitemap into a directory (-o DIR/)",
    )
    output.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="output file (default: standard output); a file is written to a temporary file renamed over it "
        "when complete (a symbolic link's target is replaced); devices, FIFOs and /dev/fd/N are written directly; "
        "a directory (DIR/ or an existing one) is written as numbered files and a sitemap index (needs --base-url)",
    )
    output.add_argument(
        "--schema-location",
        action="store_true",
        help="add xmlns:xsi and xsi:schemaLocation to XML sitemaps for schema validators",
    )
    urls = output.add_mutually_exclusive_group()
    urls.add_argument(
        "--encode-urls",
        action="store_true",
        help="write IRIs as URIs (host names by UTS 46 as browsers do, UTF-8 percent-escapes; each change "
        "reported) in every output, text included; XML outputs (sitemap, sitemapindex, rss, ror) do it by default",
    )
    urls.add_argument(
        "--keep-urls",
        action="store_true",
        help="XML outputs write URLs as read, not encoded as URIs (a URL that is no URI is reported)",
    )
    output.add_argument(
        "--keep-feed-extras",
        action="store_true",
        help="sitemaps keep the elements of feeds' vocabularies an entry holds as extras (slash:comments, "
        "dc:creator, content:encoded, ...), which they leave out by default (info[extra-dropped])",
    )
    add_cron_option(output)
    add_split_options(parser)
    pages = parser.add_argument_group("page enrichment")
    pages.add_argument(
        "--enrich",
        action="store_true",
        help="read each entry's page and fill its title, description and keywords from <title>, "
        '<meta name="description"> and <meta name="keywords"> (--concurrency pages at a time; '
        "pages under --map are read from disk; robots.txt is honoured)",
    )
    pages.add_argument(
        "--overwrite",
        action="store_true",
        help="with --enrich: replace the title, description and keywords an entry already has "
        "(by default only empty ones are filled)",
    )
    feed = parser.add_argument_group("feed channel (-t rss, -t ror, -t atom)")
    feed.add_argument(
        "--title",
        type=xml_text,
        metavar="TEXT",
        help="channel title (default: the input's, else derived from the site)",
    )
    feed.add_argument(
        "--link",
        type=web_url,
        metavar="URL",
        help="channel link, an http(s) URL (default: the input's, else the first URL's site)",
    )
    feed.add_argument(
        "--description",
        type=xml_text,
        metavar="TEXT",
        help="channel description (default: the input's, else derived)",
    )
    feed.add_argument(
        "--self-url",
        type=web_url,
        metavar="URL",
        help="the feed's own URL, written as atom:link rel=\"self\" (Atom: also the feed's id; into a directory, "
        "-o DIR/: each file's own URL, --base-url + its name)",
    )
    feed.add_argument(
        "--author",
        type=xml_text,
        metavar="NAME",
        help="the feed's author, a name (Atom's author, which Atom requires; default: the channel link's host); "
        "RSS and ROR have no place for a name (noted)",
    )
    feed.add_argument(
        "--updated",
        type=parse_date,
        metavar="DATE",
        help="the feed's last update (RSS lastBuildDate, Atom updated; default: the input's, for Atom the newest "
        "lastmod, else the time of the run: give it for the same output on every run)",
    )
    _add_csv_options(parser)
    add_http_options(parser)
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print warnings and errors only (no notes, no progress)"
    )
    parser.set_defaults(run=run)


def _add_csv_options(parser: argparse.ArgumentParser) -> None:
    """``--explode LIST`` and ``--excel-safe``: how a CSV file is laid out."""
    table = parser.add_argument_group("CSV (-t csv, or an input read as CSV)")
    table.add_argument(
        "--explode",
        choices=get_args(ExplodeList),
        metavar="LIST",
        help="write one row per item of LIST: images (image_loc, image_caption, ... in place of the images "
        "column), alternates (alternate_hreflang, alternate_href) or keywords (keyword), the other cells repeated; "
        "an entry without any keeps one row (default: each list as JSON in one cell); a CSV input says its layout "
        "in its header",
    )
    table.add_argument(
        "--excel-safe",
        action="store_true",
        help="for spreadsheets: write a cell starting with =, +, -, @, a tab, CR or NUL (which a spreadsheet runs "
        "as a formula) after a ', and a UTF-8 byte order mark first; a CSV input so written is read back without "
        "the ' (a CSV file neither read nor written: refused)",
    )


def _regex(text: str) -> str:
    """``--include`` / ``--exclude``: a valid Python regular expression (else a usage error)."""
    try:
        re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a valid regular expression: {exc}") from None
    return text


def join_sort_value(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--sort -lastmod`` given as ``--sort=-lastmod`` (argparse reads a value that begins with
    a dash as an option), also for an abbreviation argparse accepts (``--sor``) and a wrong value (``-loc``:
    then argparse names the choices); arguments after ``--`` are left as they are."""
    joined: list[str] = []
    tokens = iter(argv)
    for token in tokens:
        if token == "--":
            joined.append(token)
            joined.extend(tokens)
            break
        if len(token) > 3 and "--sort".startswith(token):
            value = next(tokens, None)
            if value is not None and value.startswith("-") and not value.startswith("--"):
                joined.append(f"{token}={value}")
                continue
            joined.append(token)
            if value is None:
                break
            token = value
        joined.append(token)
    return joined


def _add_field_options(parser: argparse.ArgumentParser) -> None:
    """``--set FIELD=VALUE`` and ``--set-missing FIELD=VALUE`` (repeatable)."""
    fields = parser.add_argument_group(
        "fields of every entry",
        "a value checked as a reader checks it (a lastmod in W3C Datetime, a priority from 0.0 to 1.0, a\n"
        "changefreq word, keywords comma-separated); set before the selection, so it sees the values set",
    )
    fields.add_argument(
        "--set",
        action="append",
        type=field_assignment,
        default=[],
        metavar="FIELD=VALUE",
        help="give every entry this value of FIELD (lastmod, changefreq, priority, title, description, keywords, "
        "type), replacing the one read; an empty VALUE clears the field; repeatable, one FIELD each, "
        "e.g. --set type=Product -t ror",
    )
    fields.add_argument(
        "--set-missing",
        action="append",
        type=field_assignment,
        default=[],
        metavar="FIELD=VALUE",
        help="the same, only on entries without a value for FIELD (e.g. --set-missing changefreq=weekly)",
    )


def _add_selection_options(parser: argparse.ArgumentParser) -> None:
    """``--since``, ``--until``, ``--require-lastmod``, ``--include``, ``--exclude``, ``--dedupe``, ``--sort``,
    ``--limit`` (``--since`` is also a reading option: it skips index children)."""
    pick = parser.add_argument_group(
        "selection",
        "--since and --until compare each lastmod as the period it names (2024-01-01 is a whole day,\n"
        "no zone is UTC): both bounds are inclusive, so a lastmod of 2024-01-01 is within\n"
        "--since 2024-01-01T12:00:00Z and --until 2024-01-01",
    )
    add_since_option(pick)
    pick.add_argument("--until", type=parse_date, metavar="DATE", help="keep entries changed at or before DATE")
    pick.add_argument(
        "--require-lastmod",
        action="store_true",
        help="leave out entries without a lastmod (by default --since/--until keep them, counted in one note), "
        "e.g. --since 2024-06-01 --require-lastmod -t rss",
    )
    pick.add_argument(
        "--include",
        action="append",
        type=_regex,
        default=[],
        metavar="REGEX",
        help="keep only entries whose URL matches REGEX (Python re.search on the URL as read, before XML outputs "
        "or --encode-urls percent-encode it: match é, not %%C3%%A9; repeatable: any of them)",
    )
    pick.add_argument(
        "--exclude",
        action="append",
        type=_regex,
        default=[],
        metavar="REGEX",
        help="leave out entries whose URL matches REGEX (the URL as read, as --include; repeatable)",
    )
    pick.add_argument(
        "--dedupe",
        choices=("first", "last", "newest"),
        help="each URL once, keeping its first entry, its last, or the one with the newest lastmod (ties to the "
        "first), in every output format (default: JSON lines keeps repeats, the others keep the newest); URLs "
        "compared as XML writes them (an IRI and its URI are one), "
        "e.g. feedmap convert crawl-1.jsonl crawl-2.jsonl --dedupe newest -t sitemap",
    )
    pick.add_argument(
        "--sort",
        choices=SORT_KEYS,
        help="order the entries by URL (loc), oldest lastmod first (lastmod) or newest first (-lastmod; write "
        "--sort=-lastmod or --sort -lastmod), after deduplication and before --limit; stable; entries without "
        "a lastmod last; large inputs are sorted in runs in TMPDIR",
    )
    pick.add_argument(
        "--limit",
        type=non_negative_int,
        metavar="N",
        help="write the first N entries (after the filters, deduplication and --sort); reading stops there when it can",
    )


def _target_format(args: argparse.Namespace) -> str | Callable[[DocKind], str]:
    """The format to write: -t, else the output's extension (``.xml``: the XML sitemap of the kind read)."""
    from feedmap import _api as api  # the library's machinery: loaded when a command runs, not for --help

    if api.directory_of(args.output) is not None:
        return str(args.target_format or "sitemap")
    suffixes = []
    if args.output and args.output != "-":
        suffixes = [s.lower() for s in Path(args.output).suffixes if s.lower() not in (".gz",)]
    if args.target_format:
        return str(args.target_format)
    if suffixes and suffixes[-1] == ".xml":
        return xml_for_kind
    if suffixes:
        for spec in registry.all_formats():
            if spec.writer is not None and suffixes[-1] in spec.extensions:
                return spec.name
    names = ", ".join(spec.name for spec in registry.all_formats() if spec.writer is not None)
    raise FormatError(f"say which format to write with -t FMT (one of: {names})")


def _progress(args: argparse.Namespace) -> Progress:
    """The progress line: on stderr when it is a terminal, unless --quiet or the output goes to the terminal."""
    to_terminal = args.output in (None, "-") and sys.stdout.isatty()
    enabled = not args.quiet and not args.cron and not to_terminal
    if args.enrich:
        return Progress("feedmap convert --enrich", enabled=enabled, unit="pages", every=1)
    return Progress("feedmap convert", enabled=enabled)


def _check_fields(args: argparse.Namespace) -> None:
    """A FIELD given twice to --set, or to --set and --set-missing, is a usage error (each value was checked as it
    was parsed)."""
    given = [("--set", name) for name, _ in args.set] + [("--set-missing", name) for name, _ in args.set_missing]
    for index, (flag, name) in enumerate(given):
        for other, again in given[:index]:
            if again == name:
                also = "twice" if other == flag else f"to {other} too"
                raise FormatError(f"{flag} {name}=...: {name} is given {also}; give each field once")


def _options(args: argparse.Namespace) -> Options:
    _check_fields(args)
    return reading_options(
        args,
        schema_location=args.schema_location,
        encode_urls=args.encode_urls,
        keep_urls=args.keep_urls,
        keep_feed_extras=args.keep_feed_extras,
        channel_title=args.title,
        channel_link=args.link,
        channel_description=args.description,
        self_url=args.self_url,
        channel_author=args.author,
        channel_updated=args.updated,
        set=tuple(args.set),
        set_missing=tuple(args.set_missing),
        enrich=args.enrich,
        overwrite=args.overwrite,
        since=args.since,
        until=args.until,
        require_lastmod=args.require_lastmod,
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        limit=args.limit,
        dedupe=args.dedupe,
        sort=args.sort,
        max_urls=args.max_urls,
        max_file_bytes=args.max_file_bytes,
        name=args.name,
        gzip=args.gzip,
        explode=args.explode,
        excel_safe=args.excel_safe,
        rebalance=args.rebalance,
        **({"index_name": args.index_name} if args.index_name else {}),
    )


def run(args: argparse.Namespace) -> int:
    from feedmap import _api as api  # the library's machinery: loaded when a command runs, not for --help

    target = _target_format(args)
    check_split(args, target)
    if args.overwrite and not args.enrich:
        raise FormatError("--overwrite replaces what --enrich reads from the pages: give --enrich too")
    printer = DiagnosticPrinter(quiet=args.quiet or args.cron)
    progress = _progress(args)
    failures: frozenset[str] = frozenset()  # only enrichment reports a failed page: loaded when it runs
    if args.enrich:
        from feedmap.converters._enrich import FAILURE_CODES as failures
    enriched: list[str] = []  # the enrichment's summary, for --cron's line

    def handle(diagnostic: Diagnostic) -> None:
        progress.clear()
        printer(diagnostic)
        if diagnostic.code in failures:
            progress.failure()
        elif diagnostic.code == "enrich-summary":
            enriched.append(diagnostic.message)

    reporter = Reporter(strict=args.strict, handler=handle)
    options = _options(args)
    inputs = list(args.inputs)
    if inputs.count("-") > 1:
        raise FormatError("standard input ('-') can be read only once")
    try:
        summary = api.convert(
            inputs,
            args.output,
            target,
            options,
            source_format=args.source_format,
            reporter=reporter,
            wrap=progress.wrap,
        )
    finally:
        progress.close()
        printer.finish()
    if args.cron:
        done = last_line(args, summary, target).removeprefix("feedmap: ")
        say(args, "; ".join([done, *(f"pages: {said}" for said in enriched), problems(printer.levels)]))
    elif args.output not in (None, "-") and not args.quiet:
        print(printable(last_line(args, summary, target)), file=sys.stderr)
    # an error read on through (xml-limit: a run of blanks past the parser's limit) still makes the input invalid
    return EXIT_INVALID if reporter.level_counts[Level.ERROR] else 0
