"""A MkDocs hook: the command-line reference page is rendered from the parsers at build time, so it cannot go stale.

The page ``reference/cli.md`` holds the marker ``<!-- cli-reference -->``; this hook replaces it with the
output of ``feedmap --help`` and of ``feedmap COMMAND --help`` for each command, as the command line prints
them (through :func:`feedmap.cli.main`).  The commands are the public modules of :mod:`feedmap.cli` that
define ``add_parser``, each asked for its subparsers through argparse's public API; they come in the order
``feedmap --help`` lists them.  (MkDocs hooks: https://www.mkdocs.org/user-guide/configuration/#hooks)
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import pkgutil
from typing import Any

import feedmap.cli

MARKER = "<!-- cli-reference -->"
#: The width argparse wraps help at (it reads $COLUMNS): the same page on every machine.
COLUMNS = "100"


def help_text(argv: list[str]) -> str:
    """What ``feedmap ARGV...`` prints (``--help``: on stdout, exit 0)."""
    printed = io.StringIO()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = COLUMNS
    try:
        with contextlib.redirect_stdout(printed):
            code = feedmap.cli.main(argv)
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    if code != 0:
        raise RuntimeError(f"feedmap {' '.join(argv)} exited {code}")
    return printed.getvalue()


def command_names() -> list[str]:
    """Every command: the names the public ``feedmap.cli`` modules give their subparsers."""
    names: list[str] = []
    for module_info in pkgutil.iter_modules(feedmap.cli.__path__):
        if module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"feedmap.cli.{module_info.name}")
        add_parser = getattr(module, "add_parser", None)
        if add_parser is not None:
            subparsers = argparse.ArgumentParser(prog="feedmap").add_subparsers()
            add_parser(subparsers)
            names.extend(subparsers.choices or ())
    overview = help_text(["--help"])
    return sorted(names, key=lambda name: (overview.find(f" {name} "), name))


def reference() -> str:
    """The page's generated part: the overview, then one section per command."""
    parts = ["## feedmap", "", "```text", help_text(["--help"]).rstrip(), "```"]
    for name in command_names():
        parts += ["", f"## feedmap {name}", "", "```text", help_text([name, "--help"]).rstrip(), "```"]
    return "\n".join(parts) + "\n"


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """MkDocs event: put the generated reference where the page has the marker."""
    return markdown.replace(MARKER, reference()) if MARKER in markdown else markdown
