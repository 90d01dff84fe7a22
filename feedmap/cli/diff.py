"""``feedmap diff OLD NEW``: the URLs added, removed and changed between two inputs, like diff(1).

The comparison is :func:`feedmap._diff.diff.diff` (by loc, on lastmod, changefreq, priority, images and
alternates, in a temporary SQLite database on disk).  Changes go to stdout, one line each (or JSON lines,
one object each, with ``--jsonl``), then the summary line (``--jsonl``: a last object of kind ``summary``);
reading diagnostics go to stderr as ``file:line: level[code]: message``.  ``--json`` is the deprecated
name of ``--jsonl`` (warned on stderr): everywhere else ``--json`` prints one object, and so will diff's.
OLD and NEW may be directories ``feedmap convert -o DIR/`` published (:mod:`feedmap._diff.sides`).
Exit codes are those of diff(1): 0 the inputs hold the same URLs with the same values, 1 they differ,
2 trouble (an input that cannot be read or was read incompletely, both read from the same files, a usage
error).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from feedmap._core.errors import FormatError, Reporter
from feedmap._core.model import Alternate, Image
from feedmap.cli._common import (
    DiagnosticPrinter,
    add_http_options,
    add_reading_options,
    json_text,
    parse_map,
    reading_options,
    shown_url,
)
from feedmap.cli._cron import add_cron_option, check_cron, problems, say
from feedmap.cli._split_options import _index_name as index_file_name

if TYPE_CHECKING:  # the comparison is imported when diff runs: the other commands do not load it
    from feedmap._diff.diff import Change

__all__ = ["add_parser", "change_line", "run"]

EXIT_SAME = 0
EXIT_DIFFERENT = 1
EXIT_TROUBLE = 2

_DESCRIPTION = """\
Compare OLD and NEW (files, directories, http(s) URLs or '-'; gzip recognised by content; sitemap indexes
followed) by URL: which URLs were added, removed, or changed in lastmod, changefreq, priority, images or alternates.
Both are streamed into a temporary database on disk (deleted afterwards), so a million URLs take little
memory.  Exit 0 when they are the same, 1 when they differ, 2 on trouble (also --strict at a warning).
An input read incompletely (an index's child that could not be read, a file or gzip stream cut short, a
line skipped) is trouble: the changes are printed, but the URLs it lost would look removed (or added), so
the exit is 2.
A directory (OLD_DIR/ NEW_DIR/) is what `feedmap convert -o DIR/ --base-url URL` published: its
sitemap_index.xml, with each child it names (URL + a file name) read from that directory by name.
When both sides are read from the same files (one --map serving both indexes), there is nothing to
compare: that is said, with exit 2.
"""

_EPILOG = """\
output (stdout), one line per URL, added and changed ones in NEW's order, then removed ones in OLD's:
  + https://example.com/new-page
  ~ https://example.com/about  lastmod: 2024-01-01 -> 2024-06-01; priority: 0.5 -> 0.8
  - https://example.com/gone
  1 added, 1 removed, 1 changed, 120 unchanged
images and alternates show their counts and what was added or removed (images: 1 -> 2, +1 -0).

examples:
  feedmap diff old/sitemap.xml sitemap.xml                   what a regeneration changed
  feedmap diff https://example.com/sitemap.xml public/sitemap.xml
                                                             the live sitemap against a new build
  feedmap diff day1/ day2/                                   two directories written by convert -o DIR/
  feedmap diff old/index.xml new/index.xml \
      --old-map https://example.com/=old/ --new-map https://example.com/=new/
                                                             two indexes, each side's children from its
                                                             own directory (--map serves both sides)
  feedmap diff --jsonl a.xml.gz b.xml.gz | jq -c 'select(.kind == "changed")'
  feedmap diff --no-follow old/index.xml index.xml          which child sitemaps were added or removed
  feedmap diff -q a.xml b.xml && echo same                   exit 0 same, 1 different, 2 trouble

how values compare: a lastmod with a time as the instant it names (no zone is UTC), so
2024-01-01T00:00:00Z and 2024-01-01T01:00:00+01:00 are the same; a date without a time as written, so
2024-01-01 and 2024-01-01T00:00:00Z differ; a priority as a number (0.5 and 0.50 are the same); images and
alternates as sets (reordering them is no change), hreflang without case (en-US and en-us are the same).
Only what both inputs' formats can hold is compared: a text sitemap (URLs alone) and an XML sitemap of the
same URLs are the same (a note says which fields were not compared).
A URL listed twice in one input counts once (the newest lastmod kept, as convert merges it).
"""


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "diff",
        help="the URLs added, removed and changed between two inputs",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    inputs = parser.add_argument_group("input")
    inputs.add_argument(
        "old",
        metavar="OLD",
        help="the earlier input: a file path, a directory (DIR/) convert -o DIR/ wrote, an http(s) URL, or -",
    )
    inputs.add_argument("new", metavar="NEW", help="the later input, as OLD")
    add_reading_options(
        parser,
        group=inputs,
        inputs=None,
        no_follow_help="for a sitemap index: compare the index's own entries (its child sitemaps), not their URLs",
        helps={
            "strict": "treat any warning as an error: exit 2 at the first problem",  # exit 1 means "different"
            "since": argparse.SUPPRESS,  # refused by run(): it would skip an index's child on one side only
        },
    )
    for side in ("old", "new"):
        inputs.add_argument(
            f"--{side}-map",
            dest=f"{side}_maps",
            action="append",
            type=parse_map,
            default=[],
            metavar="PREFIX=DIR",
            help=f"as --map, for {side.upper()} only (looked up before --map; repeatable)",
        )
    inputs.add_argument(
        "--index-name",
        type=index_file_name,
        metavar="NAME",
        help="for a directory (OLD_DIR/ NEW_DIR/): the file name of its index, as convert's --index-name "
        "(default: sitemap_index.xml)",
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--jsonl", action="store_true", help="print JSON lines: one object per change, then a summary object"
    )
    output.add_argument(
        "--json",
        action="store_true",
        help="deprecated name of --jsonl (JSON lines; warned): in a future release --json will print one JSON "
        "object, as it does in the other commands",
    )
    output.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print no changes, only the summary (and warnings); the exit code says same or different",
    )
    add_cron_option(output, refuses=("--jsonl", "--json"))
    add_http_options(parser)
    parser.set_defaults(run=run, trouble_exit=2)


def _text(value: object) -> str:
    return "none" if value is None else str(value)


def _listed(old: tuple[Any, ...], new: tuple[Any, ...]) -> str:
    from feedmap._diff.diff import item_key

    # by hashed keys, not ``item in tuple``: that was quadratic (50,000 images took minutes)
    old_keys, new_keys = {item_key(item) for item in old}, {item_key(item) for item in new}
    added = sum(1 for item in new if item_key(item) not in old_keys)
    removed = sum(1 for item in old if item_key(item) not in new_keys)
    return f"{len(old)} -> {len(new)}, +{added} -{removed}"


def change_line(change: Change) -> str:
    """The text of one change: ``+ URL``, ``- URL`` or ``~ URL  field: old -> new; ...``."""
    if change.kind == "added":
        return f"+ {shown_url(change.loc)}"
    if change.kind == "removed":
        return f"- {shown_url(change.loc)}"
    parts = []
    for name, (old, new) in change.values().items():
        if name in ("images", "alternates"):
            parts.append(f"{name}: {_listed(old, new)}")
        else:
            parts.append(f"{name}: {_text(old)} -> {_text(new)}")
    return f"~ {shown_url(change.loc)}  {'; '.join(parts)}"


def _json_value(value: object) -> Any:
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    if isinstance(value, Image):
        return {name: getattr(value, name) for name in Image.__slots__ if getattr(value, name) is not None}
    if isinstance(value, Alternate):
        return {"hreflang": value.hreflang, "href": value.href}
    return None if value is None else value if isinstance(value, float) else str(value)


def change_object(change: Change) -> dict[str, Any]:
    """One change as JSON: kind, loc, and for a changed URL the fields with their old and new values; an
    added (removed) URL carries its new (old) values that are present."""
    found: dict[str, Any] = {"kind": change.kind, "loc": change.loc}
    if change.kind == "changed":
        found["fields"] = list(change.fields)
        values = change.values()
        found["old"] = {name: _json_value(old) for name, (old, _new) in values.items()}
        found["new"] = {name: _json_value(new) for name, (_old, new) in values.items()}
        return found
    entry = change.new if change.kind == "added" else change.old
    side = "new" if change.kind == "added" else "old"
    assert entry is not None
    found[side] = {
        name: _json_value(getattr(entry, name))
        for name in ("lastmod", "changefreq", "priority", "images", "alternates")
        if getattr(entry, name) not in (None, ())
    }
    return found


def summary_line(counts: dict[str, int]) -> str:
    return ", ".join(f"{counts[kind]:,} {kind}" for kind in ("added", "removed", "changed", "unchanged"))


_JSON_DEPRECATED = (
    "feedmap diff: warning: --json is deprecated, write --jsonl: it prints JSON lines (one object per change); "
    "in a future release --json will print one JSON object, as in the other commands"
)


def run(args: argparse.Namespace) -> int:
    from feedmap._diff.diff import diff
    from feedmap._diff.sides import is_directory

    if args.old == "-" and args.new == "-":
        raise FormatError("standard input ('-') can be read only once")
    if args.since is not None:
        raise FormatError(
            "diff compares whole inputs: --since would skip an index's child in one input and read it in the "
            "other (when its lastmod moved past the date), listing all its URLs as added or removed"
        )
    for side in ("old", "new"):
        if getattr(args, f"{side}_maps") and is_directory(getattr(args, side)):
            raise FormatError(
                f"--{side}-map: {side.upper()} is a directory, whose children are read from it by name; "
                f"leave out --{side}-map"
            )
    check_cron(args, jsonl=args.jsonl, json=args.json)
    if args.json:
        print(_JSON_DEPRECATED, file=sys.stderr)
    jsonl = args.jsonl or args.json
    quiet = args.quiet or args.cron
    printer = DiagnosticPrinter(quiet=quiet)
    reporter = Reporter(strict=args.strict, handler=printer)
    options = reading_options(args, **({"index_name": args.index_name} if args.index_name else {}))
    sides = {"old_maps": args.old_maps, "new_maps": args.new_maps}
    with diff(args.old, args.new, options, source_format=args.source_format, reporter=reporter, **sides) as changes:
        try:
            for change in changes:
                if quiet:
                    continue
                if jsonl:
                    print(json_text(change_object(change)))
                else:
                    print(change_line(change))
        finally:
            printer.finish()
    if args.cron:
        say(args, f"{summary_line(changes.counts)}; {problems(printer.levels)}")
    elif jsonl:
        import json

        print(json.dumps({"kind": "summary", **changes.counts}))
    else:
        print(summary_line(changes.counts))
    sys.stdout.flush()
    if changes.incomplete:  # its lost URLs look removed (or added): not a difference to act on
        return EXIT_TROUBLE
    same = not (changes.counts["added"] or changes.counts["removed"] or changes.counts["changed"])
    return EXIT_SAME if same else EXIT_DIFFERENT
