"""``feedmap codes [CODE]``: every diagnostic code any command reports, its level, meaning and spec.

The table is :data:`feedmap._core.rules.RULES`, the one vocabulary reading, writing, splitting, ``diff`` and
``validate`` share.  ``--json`` prints it for scripts, ``--markdown`` as the reference page of the documentation
(``docs/reference/codes.md`` is this output); ``feedmap codes CODE`` (or ``feedmap validate --explain CODE``)
explains one code.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the table is imported when a command explains a code, not for every command's parser
    from feedmap._core.rules import Rule

__all__ = ["add_parser", "explain", "markdown", "run"]

EXIT_OK = 0
EXIT_USAGE = 2

_EPILOG = """\
examples:
  feedmap codes                                    every code: its level and what it means
  feedmap codes loc-duplicate                      one code: its level, meaning and spec
  feedmap codes --json                             the table as JSON, for scripts
  feedmap codes --markdown > docs/reference/codes.md    the reference page of the documentation

A code names its subject first, then what is wrong with it (lastmod-invalid, priority-invalid): the codes
of one field sort together.  Reading repairs what validate only reports, so it reports a few codes one
level lower (loc-duplicate: a warning in validate, an info when convert merges the duplicates).
"""


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "codes",
        help="list every diagnostic code, its level, meaning and spec",
        description="List every diagnostic code a feedmap command can report (the code in "
        "level[code] of each message): its level, one line saying what it means, and the spec it comes from.  "
        "With CODE: that code only.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("code", nargs="?", metavar="CODE", help="explain this code only")
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print the table as JSON (a list of objects)")
    shape.add_argument("--markdown", action="store_true", help="print the table as the documentation's page")
    parser.set_defaults(run=run)


def _levels(entry: Rule) -> str:
    said = str(entry.level)
    return said if entry.repaired is None else f"{said} (reading: {entry.repaired})"


def _spec(entry: Rule) -> str:
    from feedmap._core.rules import SPECS

    url = SPECS[entry.spec]
    return f"{entry.spec} <{url}>" if url else entry.spec


def explain(code: str) -> int:
    """Print what ``code`` means (without a code: the table of every code); exit 2 for an unknown code."""
    from feedmap._core.rules import RULES, renamed_hint, rule

    if not code:
        for name, each in sorted(RULES.items()):
            print(f"{name:29} {each.level!s:8} {each.summary}")
        return EXIT_OK
    entry = rule(code)
    if entry is None:
        print(f"feedmap: unknown code {code!r} (feedmap codes lists every code{renamed_hint(code)})", file=sys.stderr)
        return EXIT_USAGE
    print(f"{code} ({entry.level}): {entry.summary}")
    if entry.repaired is not None:
        print(f"  reported as {entry.repaired} when reading repairs it (convert, info, diff)")
    print(f"  spec: {_spec(entry)}")
    return EXIT_OK


def _as_json(entry: Rule) -> dict[str, Any]:
    from feedmap._core.rules import SPECS

    return {
        "code": entry.code,
        "level": str(entry.level),
        "repaired": None if entry.repaired is None else str(entry.repaired),
        "summary": entry.summary,
        "spec": entry.spec,
        "spec_url": SPECS[entry.spec] or None,
    }


def _cell(text: str) -> str:
    """Markdown table cell text: ``|`` escaped, ``<`` written as an entity so that ``<loc>`` shows."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("|", "\\|")


_PAGE_HEAD = """\
# Diagnostic codes

Every code a feedmap command can report, in the `level[code]` of its messages, the `code` of its JSON
output and the `Diagnostic.code` of the library.  `feedmap validate --ignore CODE` leaves a code out, and
`feedmap codes CODE` (or `feedmap validate --explain CODE`) explains one.  A code names its subject first,
then what is wrong with it, so that the codes of one field sort together.

The level is how `feedmap validate`, which repairs nothing, reports the code (or the command that reports
it); reading repairs or leaves out what is wrong and goes on, so it reports a few of validate's rules one
level lower, given in brackets.

This page is the output of `feedmap codes --markdown`; the tests check that it is up to date.

| Code | Level | Meaning | Spec |
| --- | --- | --- | --- |
"""


def markdown() -> str:
    """The reference page of every code (``docs/reference/codes.md``)."""
    from feedmap._core.rules import RULES, SPECS

    rows = []
    for name, entry in sorted(RULES.items()):
        url = SPECS[entry.spec]
        spec = f"[{entry.spec}]({url})" if url else entry.spec
        rows.append(f"| `{name}` | {_levels(entry)} | {_cell(entry.summary)} | {spec} |\n")
    return _PAGE_HEAD + "".join(rows)


def run(args: argparse.Namespace) -> int:
    import json

    from feedmap._core.rules import RULES, rule

    if args.markdown:
        if args.code is not None:
            print("feedmap codes: error: --markdown prints the whole page; leave CODE out", file=sys.stderr)
            return EXIT_USAGE
        sys.stdout.write(markdown())
        return EXIT_OK
    if not args.json:
        return explain(args.code or "")
    if args.code is None:
        print(json.dumps([_as_json(entry) for _, entry in sorted(RULES.items())], indent=2))
        return EXIT_OK
    entry = rule(args.code)
    if entry is None:
        return explain(args.code)
    print(json.dumps(_as_json(entry), indent=2))
    return EXIT_OK
