"""The namespace declarations of a streamed XML output: on the root for what its first entries use, else on the
element that uses one.

Namespaces in XML 1.0 (https://www.w3.org/TR/xml-names/): a prefix is declared by an ``xmlns:prefix``
attribute on the element that uses it or on one around it, and only a declared prefix may be used.  A writer
that streams writes its root before its entries, so it cannot know every namespace its entries will use: it
renders a first batch of entries (:data:`FIRST_BATCH`, or fewer when they are big) before the root, declares on
the root the namespaces that batch uses, and declares a namespace first used by a later entry on that entry's
element (:class:`Namespaces`).  A namespace nothing uses is declared nowhere (an unused declaration is a W3C Feed
Validator warning in a feed; in a sitemap, a news namespace makes some readers take it for a news sitemap).  A
writer that renders every entry before it writes (the merges of rendered records) declares all it used on the root.
Shared by the feeds (:mod:`feedmap.formats.feeds._rsswrite`) and the urlset (:mod:`feedmap.formats.sitemap._urlset`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from feedmap._core.context import Context
from feedmap._core.errors import Diagnostic
from feedmap._core.model import Entry
from feedmap.formats._output import BATCH_CHARACTERS
from feedmap.formats.ext import Hooks, WriteStep

__all__ = ["FIRST_BATCH", "Namespaces", "extension_elements", "first_items", "rendered_ahead"]

#: Items rendered before the root element is written (their namespaces are declared on it): this many, or
#: fewer when they hold :data:`feedmap.formats._output.BATCH_CHARACTERS` (big items are not held by the 512).
FIRST_BATCH = 512
#: A namespace declaration of a prefix in a start tag as lxml writes one (double quotes).
_DECLARATION = re.compile(r' xmlns:([\w.-]+)="([^"]*)"')


class Namespaces:
    """The namespace declarations of a streamed output: on the root for what the first entries use, else on
    the element.  ``declare(prefix)`` is what an element of that prefix needs in its start tag."""

    def __init__(self, known: dict[str, str], always: tuple[str, ...] = (), hooks: Hooks | None = None) -> None:
        # the extensions' namespaces after the format's own (the root declares them in this order)
        extensions = hooks.namespaces if hooks is not None else {}
        self.known = {**known, **{prefix: uri for prefix, uri in extensions.items() if prefix not in known}}
        self.used: set[str] = set(always)
        self.always = frozenset(always)
        self.root: frozenset[str] | None = None  # None while the root's declarations are being gathered

    def declare(self, prefix: str) -> str:
        self.use(prefix)
        return self.xmlns(prefix)

    def xmlns(self, prefix: str) -> str:
        """The declaration an element of ``prefix`` needs in its start tag (without noting it as used)."""
        if self.root is None or prefix in self.root:
            return ""
        return f' xmlns:{prefix}="{self.known[prefix]}"'

    def use(self, prefix: str) -> None:
        """Note ``prefix`` as used (declared on the root while the first batch is rendered)."""
        if self.root is None:
            self.used.add(prefix)

    def adopt(self, fragment: str) -> str:
        """A verbatim XML extra (each element declaring the namespaces it uses) without the declarations of its
        start tag that the root makes or will make (a known prefix for its known namespace), noted as used."""
        end = fragment.find(">")
        if end < 0 or "xmlns:" not in fragment[:end]:
            return fragment
        head = fragment[:end]
        for prefix, uri in _DECLARATION.findall(head):
            if self.known.get(prefix) == uri and (self.root is None or prefix in self.root):
                self.use(prefix)
                head = head.replace(f' xmlns:{prefix}="{uri}"', "")
        return head + fragment[end:]

    def keep_only(self, prefixes: set[str]) -> None:
        """Forget the uses of other prefixes than ``prefixes`` (those the entries rendered and then replaced by a
        repeat used), before the root's declarations are made."""
        self.used &= prefixes | self.always

    def close_root(self) -> str:
        """The root's declarations (those used so far, in a fixed order); later uses declare on the element."""
        self.root = frozenset(self.used)
        return "".join(f' xmlns:{prefix}="{uri}"' for prefix, uri in self.known.items() if prefix in self.root)


def extension_elements(entry: Entry, ctx: Context, namespaces: Namespaces, steps: tuple[WriteStep, ...]) -> list[str]:
    """The elements the extensions' write hooks give for the entry, each namespace declared only when a hook
    wrote something (:class:`Namespaces`)."""
    parts: list[str] = []
    for step in steps:
        if getattr(entry, step.field):
            written = step.hook(entry, ctx, namespaces.xmlns(step.prefix))
            if written:
                namespaces.use(step.prefix)
                parts += written
    return parts


def rendered_ahead(
    entries: Iterator[Entry], render: Callable[[Entry, Context], str], ctx: Context
) -> Iterator[tuple[Entry, str]]:
    """Each entry with its block: the first :data:`FIRST_BATCH` (or fewer holding :data:`BATCH_CHARACTERS`
    characters) rendered now, before the root is written (so that it declares what they use); the rest as the
    writer takes them.  What is said meanwhile, taking an entry from the steps before the writer or rendering it,
    is held and said as the writer takes that entry (what is said once the entries end, after the last): the
    diagnostics come in the order of a writer that renders each entry as it takes it."""
    reporter = ctx.reporter
    pending: list[Diagnostic] = []
    first: list[tuple[Entry, str, tuple[Diagnostic, ...]]] = []
    characters = 0
    ended = True
    setattr(reporter, "report", pending.append)  # noqa: B010  (every level goes through report: held here)
    try:
        for entry in entries:
            block = render(entry, ctx)
            first.append((entry, block, tuple(pending)))
            pending.clear()
            characters += len(block)
            if len(first) >= FIRST_BATCH or characters >= BATCH_CHARACTERS:
                ended = False
                break
    except BaseException:
        delattr(reporter, "report")
        for said in [*(one for _, _, held in first for one in held), *pending]:
            reporter.report(said)
        raise
    delattr(reporter, "report")
    return _said_as_taken(first, tuple(pending), None if ended else entries, render, ctx)


def _said_as_taken(
    first: list[tuple[Entry, str, tuple[Diagnostic, ...]]],
    last: tuple[Diagnostic, ...],
    entries: Iterator[Entry] | None,
    render: Callable[[Entry, Context], str],
    ctx: Context,
) -> Iterator[tuple[Entry, str]]:
    reporter = ctx.reporter
    for entry, block, said in first:
        for one in said:
            reporter.report(one)
        yield entry, block
    for one in last:
        reporter.report(one)
    if entries is not None:
        for entry in entries:
            yield entry, render(entry, ctx)


def first_items(items: Iterator[tuple[Any, str]]) -> list[tuple[Any, str]]:
    """The first :data:`FIRST_BATCH` items, or fewer holding :data:`BATCH_CHARACTERS` characters."""
    first: list[tuple[Any, str]] = []
    characters = 0
    for item in items:
        first.append(item)
        characters += len(item[1])
        if len(first) >= FIRST_BATCH or characters >= BATCH_CHARACTERS:
            break
    return first
