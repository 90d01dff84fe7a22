"""``feedmap convert -o DIR/``: the options of writing into a directory, their usage errors, the last line."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from feedmap._core.context import name_pattern_problem
from feedmap._core.errors import FormatError
from feedmap._core.limits import PROTOCOL_MAX_BYTES, PROTOCOL_MAX_URLS
from feedmap._core.model import DocKind
from feedmap._core.summary import SplitSummary, Summary
from feedmap._core.wording import counted
from feedmap.cli._common import non_negative_int, parse_size

__all__ = ["add_split_options", "check_split", "last_line"]


def _max_urls(text: str) -> int:
    """``--max-urls``: 1 to 50,000."""
    value: int = non_negative_int(text)
    if not 1 <= value <= PROTOCOL_MAX_URLS:
        raise argparse.ArgumentTypeError(f"{text}: give 1 to {PROTOCOL_MAX_URLS:,} (the protocol's limit)")
    return value


def _max_file_bytes(text: str) -> int:
    """``--max-file-bytes``: a size up to 52,428,800 bytes (50M)."""
    value = parse_size(text)
    if value > PROTOCOL_MAX_BYTES:
        raise argparse.ArgumentTypeError(f"{text}: give at most {PROTOCOL_MAX_BYTES:,} bytes (the protocol's limit)")
    return value


def _name_pattern(text: str) -> str:
    """``--name``: a file name holding ``{n}`` or ``{n:0Wd}``."""
    problem = name_pattern_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{problem} (e.g. products-{{n}}.xml)")
    return text


def _index_name(text: str) -> str:
    """``--index-name``: a file name."""
    if not text or "/" in text or os.sep in text or text in (".", ".."):
        raise argparse.ArgumentTypeError(f"{text!r}: give a file name, without '/'")
    return text


def add_split_options(parser: argparse.ArgumentParser) -> None:
    """``--max-urls``, ``--max-file-bytes``, ``--name``, ``--gzip``, ``--rebalance``, ``--index-name``: writing
    into a directory."""
    split = parser.add_argument_group("splitting (writing into a directory: -o DIR/ --base-url URL)")
    split.add_argument(
        "--max-urls",
        type=_max_urls,
        metavar="N",
        help=f"at most N entries a file (default and highest: {PROTOCOL_MAX_URLS:,}); required for -t rss and -t ror",
    )
    split.add_argument(
        "--max-file-bytes",
        type=_max_file_bytes,
        metavar="N",
        help=f"at most N bytes a file, uncompressed, e.g. 10M (default and highest: {PROTOCOL_MAX_BYTES:,})",
    )
    split.add_argument(
        "--name",
        type=_name_pattern,
        metavar="PATTERN",
        help="the files' names, {n} being the number from 1, {n:05d} the same zero-padded to 5 digits; a name "
        "ending in .gz (or .GZ) writes gzip as --gzip does; '#', '?', '%%', blanks and non-ASCII are "
        "percent-encoded in the index's URLs (default: sitemap-{n}.xml, urls-{n}.txt for text, "
        "feed-{n}.xml for rss, ror-{n}.xml for ror)",
    )
    split.add_argument(
        "--gzip", action="store_true", help="write each file gzip-compressed, NAME.gz (the index stays uncompressed)"
    )
    split.add_argument(
        "--rebalance",
        action="store_true",
        help="cut the files afresh, in input order from the first, instead of keeping each URL in the file that "
        "held it in the directory's previous run (which rewrites only the files that change; --sort always cuts "
        "afresh)",
    )
    split.add_argument(
        "--index-name",
        type=_index_name,
        metavar="NAME",
        help="the sitemap index's file name (default: sitemap_index.xml; a name ending in .gz writes it gzip); "
        "sets of files of other --name patterns can share a directory, each with its own index: a run removes "
        "only files its index named before",
    )


#: The options of writing into a directory, by flag.
_SPLIT_FLAGS = {
    "--max-urls": "max_urls",
    "--max-file-bytes": "max_file_bytes",
    "--name": "name",
    "--gzip": "gzip",
    "--index-name": "index_name",
    "--rebalance": "rebalance",
}


def check_split(args: argparse.Namespace, target: str | Callable[[DocKind], str]) -> None:
    """Usage errors of writing into a directory (or of its options without one)."""
    from feedmap import _api as api  # the library's machinery: loaded when a command runs, not for --help

    directory = api.directory_of(args.output)
    if directory is None:
        given = [flag for flag, dest in _SPLIT_FLAGS.items() if getattr(args, dest) not in (None, False)]
        if given:
            raise FormatError(f"{', '.join(given)}: only for an output directory (-o DIR/ --base-url URL)")
        return
    from feedmap._publish.split import check_directory  # splitting's machinery: only a run into a directory

    check_directory(directory)
    if not args.base_url:
        what = "is a directory" if os.path.isdir(directory) else "no such directory yet"
        raise FormatError(
            f"{directory}: {what}; writing numbered files and a sitemap index into it needs --base-url URL, "
            "the URL the directory is served at"
        )
    if target in ("rss", "ror", "atom") and args.max_urls is None:
        raise FormatError(f"-t {target} into a directory: give --max-urls N, the most items one feed file holds")


def last_line(args: argparse.Namespace, summary: Summary, target: str | Callable[[DocKind], str]) -> str:
    """The last line: what was written where."""
    written = counted(summary.entries, "entry")
    if not isinstance(summary, SplitSummary):
        where = args.output if args.output not in (None, "-") else "standard output"
        return f"feedmap: wrote {written} to {where} ({summary.format or target})"
    index = os.path.join(args.output, summary.index)
    changes = (
        f"{counted(len(summary.written), 'file')} written, {len(summary.unchanged):,} unchanged, "
        f"{len(summary.removed):,} removed"
    )
    return f"feedmap: wrote {written} to {counted(len(summary.files), 'file')} and {index}: {changes}"
