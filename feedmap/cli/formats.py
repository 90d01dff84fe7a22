"""``feedmap formats``: the formats that can be read and written, with the fields each holds."""

from __future__ import annotations

import argparse
from typing import Any

from feedmap._core.model import ENTRY_FIELDS
from feedmap.cli._common import printable
from feedmap.formats import _registry as registry

__all__ = ["add_parser", "run"]

_EPILOG = """\
examples:
  feedmap formats                                  a table: name, read/write/split, fields
  feedmap formats --json                           the same as JSON, for scripts
"""


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "formats",
        help="list the formats that can be read and written",
        description="List every registered format (built-in and from the 'feedmap.formats' entry-point "
        "group): whether it can be read and written, and which entry fields it holds.  Converting into a "
        "format that cannot hold a field reports it (info[field-dropped]).  Plugins that are not used are "
        "listed too: a format or extension that cannot be loaded (BROKEN), and an entry point of the "
        "'feedmap.formats' or 'feedmap.extensions' group named like a format or extension registered "
        "before it, a built-in one included (REFUSED, format-name-taken / extension-name-taken).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(run=run)


_FIELD_ORDER = ENTRY_FIELDS

#: A built-in format's description (the library's words) as the command line says it: with its flags.
_NOTES = {
    "reading follows children (mapped URL prefixes, file: URLs) unless following is off": (
        "reading follows children (--map PREFIX=DIR, file: URLs) unless --no-follow"
    ),
    "loc from link / permalink guid / Atom alternate; lastmod keeps its offset; the channel's title, link, "
    "description and self URL from the options": (
        "loc from link / permalink guid / Atom alternate; lastmod keeps its offset; --title --link "
        "--description --self-url for the channel"
    ),
}


def run(args: argparse.Namespace) -> int:
    specs = registry.all_formats()
    rows: list[dict[str, Any]] = []
    for spec in specs:
        fields = [name for name in _FIELD_ORDER if name in spec.fields]
        rows.append(
            {
                "name": spec.name,
                "title": spec.title,
                "read": spec.reader is not None,
                "write": spec.writer is not None,
                "split": spec.renderer is not None,
                "extensions": list(spec.extensions),
                "fields": fields,
                "notes": _NOTES.get(spec.description, spec.description),
            }
        )
    broken = registry.broken_formats()
    unused = _unused_plugins()
    if args.json:
        rows += [{"name": name, "broken": reason} for name, reason in sorted(broken.items())]
        rows += [{key: name, state: reason, "code": code} for key, name, state, reason, code in unused]
        import json

        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        modes = "/".join(mode for mode in ("read", "write", "split") if row[mode])
        print(f"{row['name']:<13} {modes:<16} {row['title']}")
        print(f"{'':<13} fields: {', '.join(row['fields'])}")
        if row["notes"]:
            print(f"{'':<13} {row['notes']}")
    for name, reason in sorted(broken.items()):
        print(printable(f"{name:<13} BROKEN           {reason}"))  # a plugin's own words
    for key, name, state, reason, code in unused:
        label = name if key == "name" else f"{name} (extension)"
        print(printable(f"{label:<13} {state.upper():<16} {reason} [{code}]"))
    print("\nsplit: written into numbered files and an index by `feedmap convert -o DIR/ --base-url URL`")
    return 0


def _unused_plugins() -> list[tuple[str, str, str, str, str]]:
    """The plugins not used, beside the broken formats: (key, name, "refused" or "broken", why, code)."""
    from feedmap.formats import ext as extensions  # the extensions (lxml, entry points): loaded by this command

    found = [("name", name, "refused", reason, "format-name-taken") for name, reason in registry.refused_entry_points()]
    broken = sorted(extensions.broken_extensions().items())
    found += [("extension", name, "broken", reason, "extension-broken") for name, reason in broken]
    refused = extensions.refused_extensions()
    return found + [("extension", name, "refused", reason, "extension-name-taken") for name, reason in refused]
