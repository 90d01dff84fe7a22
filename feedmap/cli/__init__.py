"""The ``feedmap`` command line: one module per subcommand, errors turned into messages and exit codes.

Exit codes: 0 success (also when lenient reading recovered and printed warnings), 1 input that could not
be used or any warning under ``--strict``, 2 a usage or I/O error.  An expected error never shows a
traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from feedmap import __version__
from feedmap.cli import convert, discover, formats, info
from feedmap.errors import FeedmapError, FormatError, ReadError, SourceError, UnknownFormatError, WriteError

__all__ = ["build_parser", "console", "main"]

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2

_EPILOG = """\
examples:
  feedmap convert samples/sitemap/basic.xml -t jsonl           sitemap -> JSON lines on stdout
  feedmap convert sitemap.xml.gz -t text -o urls.txt             gzip is recognised by content
  feedmap convert index.xml --map https://example.com/=public/ -t text
                                                                 follow an index into a build dir
  feedmap convert feed.xml -t sitemap                            a feed as a sitemap (one entry per URL)
  feedmap convert sitemap.xml -t ror --link https://example.com/  a sitemap as ROR RSS
  feedmap info sitemap.xml                                       count, lastmod range, problems
  feedmap discover example.com --tree                            a site's sitemaps (robots.txt) as a tree
  feedmap formats                                                what can be read and written

exit codes: 0 ok (warnings printed), 1 unusable input or a warning under --strict, 2 usage or I/O error
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="feedmap",
        description="Convert between XML sitemaps, sitemap indexes, text sitemaps, RSS/Atom feeds, ROR RSS "
        "and JSON lines.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"feedmap {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (convert, info, discover, formats):
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        result: int = args.run(args)
        return result
    except UnknownFormatError as exc:
        print(f"feedmap: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except ReadError as exc:
        where = f"{exc.source}:{exc.line}" if exc.source and exc.line else exc.source or "feedmap"
        print(f"{where}: error[{exc.code}]: {exc.bare_message}", file=sys.stderr)
        return EXIT_INVALID
    except WriteError as exc:
        print(f"feedmap: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except FormatError as exc:
        print(f"feedmap: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SourceError as exc:
        print(f"feedmap: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except FeedmapError as exc:  # pragma: no cover - every subclass is handled above
        print(f"feedmap: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except BrokenPipeError:
        # the reader of our stdout went away (e.g. `| head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("feedmap: interrupted", file=sys.stderr)
        return 130


def console() -> NoReturn:
    """The ``feedmap`` command: :func:`main`, then exit with its code.

    After an interrupt, exit at once: the requests still in flight on worker threads would otherwise be
    waited for (up to their timeouts) by the interpreter's shutdown.  Output files are already cleaned up.
    """
    code = main()
    if code == 130:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
