"""The merge of repeated locs into rendered records for the feeds: ``ror`` and ``rss`` written without an entry spool.

RSS 2.0 (https://www.rssboard.org/rss-specification): an item's ``guid`` identifies it, so a feed lists a URL
once; the writers (:mod:`feedmap.formats.feeds._rsswrite`) declare on the root the namespaces their first batch
of items uses and declare a namespace first used by a later item on that item's element.  When the last step
before a feed writer is the merge of repeated locs (:class:`feedmap.converters._duplicates.Merge`, not started;
for ROR behind the count of untitled entries, :class:`feedmap.converters._sitemap_to_ror.CountUntitled`), the
writer runs the merge's loop itself (:func:`~feedmap.converters._duplicates.merge_into`) and renders each URL's
``<item>`` as its entry arrives, its namespace declarations left as marks; a repeat that replaces the kept entry
is rendered in turn and takes its slot.  Then the channel is made from the first record's loc, and the records
are written in first-seen order: the first batch's marks say nothing (their namespaces go to the root), a later
record's say what :meth:`~feedmap.formats._namespaces.Namespaces.xmlns` says then.  No entry is pickled or
made again; memory stays that of the spool (its budget, then a scratch file).

What is written and said is what the merge of entries then the feed writer write and say, in the same order:
the readers' checks and the merge's lines, the channel's and the ROR header's lines, then, at each record
written, what the writer said rendering it (held until then: under ``strict`` the run stops at the same item),
``field-dropped`` of an extra once, at the first item written that holds it, ``title-missing`` and the fields
the format cannot hold after the last item, the size caps as the batches are written.  An error rendering an
entry is raised where its item is written.  A run with a write hook of a third party keeps the merge of entries
(its hook may keep state between entries, or do more with the declaration it is given than write it).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from feedmap._core.context import Context
from feedmap._core.dates import known_date
from feedmap._core.held_reporter import HeldReporter as _Held
from feedmap._core.held_reporter import Said as _Said
from feedmap._core.model import ENTRY_FIELDS, Document, Entry, new_position
from feedmap._io.seen_keys import SeenKeys
from feedmap.converters._duplicates import _PART_OVERHEAD, Merge, _Spool
from feedmap.converters._feed_pass import feed_merge_into, replayer
from feedmap.converters._records import _Kept, _say, _size
from feedmap.converters._sitemap_to_ror import CountUntitled, say_untitled
from feedmap.converters._unheld import report_unheld
from feedmap.formats._namespaces import Namespaces
from feedmap.formats.feeds._rsswrite import parts_only

__all__ = ["feed_records_writer"]

#: A writer of a document to a binary sink (the :class:`~feedmap.formats._registry.FormatSpec` writer).
Writer = Callable[..., int]
#: What stands in a record for the declaration of a prefix: U+0000 is no character of XML 1.0, so no text a
#: writer writes holds one (they are dropped and reported: :func:`feedmap.formats._xmlwrite.text_of`).
_MARK = "\x00"


class _Deferred(Namespaces):
    """Namespaces whose declarations are marks and whose uses are noted per item (:meth:`taken`): the record
    says later, once its place is known, what each mark is (:meth:`Namespaces.xmlns` then)."""

    def __init__(self, known: dict[str, str]) -> None:
        self.known = known
        self.used: set[str] = set()
        self.root = None
        self.uses: list[str] = []

    def declare(self, prefix: str) -> str:
        self.uses.append(prefix)
        return f"{_MARK}{prefix}{_MARK}"

    def xmlns(self, prefix: str) -> str:
        return f"{_MARK}{prefix}{_MARK}"

    def use(self, prefix: str) -> None:
        self.uses.append(prefix)

    def taken(self) -> tuple[str, ...]:
        """The prefixes used since the last call, each once, in the order of their first use."""
        uses = tuple(dict.fromkeys(self.uses))
        self.uses.clear()
        return uses


#: A record: loc, lastmod, origin (what a repeat is merged by; read back from the scratch file, the lastmod's
#: text and the origin's tuple), the block (or the error rendering it raised), what was said rendering it, the
#: prefixes it uses (None: none), the unheld fields it has (None: none), whether it has no title nor description.
_Record = tuple[str, Any, Any, Any, tuple[_Said, ...] | None, tuple[str, ...] | None, tuple[str, ...] | None, bool]


def _freeze(record: _Record) -> tuple[Any, ...]:
    loc, lastmod, origin, *rest = record
    return (loc, lastmod.text if lastmod is not None else None, tuple(origin) if origin is not None else None, *rest)


def feed_records_writer(doc: Document, name: str, ctx: Context) -> Writer | None:
    """The writer of feed ``name`` (``ror``, ``rss``) that merges ``doc``'s entries as rendered records, or None:
    ``doc``'s entries are no merge waiting to run, or a write hook of a third party takes part."""
    entries = doc.entries
    count = entries if isinstance(entries, CountUntitled) else None
    merge = count.entries if count is not None else entries
    if (count is not None and count.started) or not isinstance(merge, Merge) or merge.started:
        return None
    from feedmap.formats.ext import builtin_hook, hooks

    table = hooks(name)
    if not all(builtin_hook(step.hook) for step in table.lead + table.tail):
        return None

    def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
        if count is not None:
            count.take()
        return _write_feed(doc, merge, name, count is not None, sink, ctx)

    return write


def _shape(name: str, doc: Document, ctx: Context) -> tuple[Any, ...]:
    """Feed ``name``'s namespaces, those always declared, the derived title's start, its item renderer, what
    comes after the channel's elements and the fields it holds."""
    if name == "ror":
        from feedmap.formats.feeds._ror import FORMAT
        from feedmap.formats.feeds._rorwrite import NAMESPACES, TITLE_PREFIX, header_item, ror_item

        after = lambda c: header_item(doc, c.link, c.title, ctx)  # noqa: E731
        return NAMESPACES, ("ror",), TITLE_PREFIX, ror_item, after, FORMAT.fields
    from feedmap.formats.feeds._rss import FORMAT, RSS_NAMESPACES, RSS_TITLE_PREFIX
    from feedmap.formats.feeds._rssitem import rss_item

    return RSS_NAMESPACES, (), RSS_TITLE_PREFIX, rss_item, lambda c: "", FORMAT.fields


def _write_feed(doc: Document, merge: Merge, name: str, untitled: bool, sink: BinaryIO, ctx: Context) -> int:
    from feedmap.formats._namespaces import first_items
    from feedmap.formats._output import SizeWatch, write_blocks
    from feedmap.formats._registry import Rendered
    from feedmap.formats.ext import hooks, report_broken
    from feedmap.formats.feeds._rsswrite import EMPTY, FOOTER, channel_head, feed_header

    report_broken(ctx)
    table = hooks(name)
    known, always, title_prefix, item, after_channel, held_fields = _shape(name, doc, ctx)
    namespaces = Namespaces(known, always=always, hooks=table)
    deferred = _Deferred(namespaces.known)
    held = _Held()
    rendering = dataclasses.replace(ctx, reporter=held)
    spool = _Spool(_freeze, None, _size)  # read back as frozen: the lastmod's text, the origin's tuple
    kept = SeenKeys()
    unheld = [field for field in ENTRY_FIELDS if field not in held_fields]
    dropped: set[str] = set()  # emptied after each entry: each record says its own extras dropped

    def store(entry: Entry) -> int:
        try:
            text: Any = item(entry, rendering, dropped, deferred, table)
            size = _PART_OVERHEAD + len(text) + len(entry.loc)
        except Exception as exc:  # raised where the item is written, as the writer raises it today
            text, size = exc, _PART_OVERHEAD
        if dropped:
            dropped.clear()
        fields = tuple([field for field in unheld if getattr(entry, field)]) or None if unheld else None
        record = (
            entry.loc,
            entry.lastmod,
            entry.origin,
            text,
            held.take() if held.said else None,
            deferred.taken() if deferred.uses else None,
            fields,
            entry.title is None and entry.description is None,
        )
        return spool.add(record, size)

    def fetch(offset: int) -> _Kept:
        loc, lastmod, origin = spool.get(offset)[:3]
        if lastmod.__class__ is str:  # a record read back from the scratch file
            lastmod = known_date(lastmod)  # the text of a W3CDate: valid
        if origin.__class__ is tuple:
            origin = new_position(*origin)
        return _Kept(loc, lastmod, origin)

    try:
        plain = parts_only(table) and not {"loc", "lastmod", "title"} & set(unheld)
        repeats = feed_merge_into(merge, ctx, kept, store, spool.add, fetch, ror=name == "ror", plain=plain)
        repeats.report(ctx, merged=merge.kept_what)
        offsets = kept.values()
        first = next(offsets, None)
        first_loc = spool.get(first)[0] if first is not None else None
        head = channel_head(doc, first_loc, ctx, namespaces, title_prefix, after_channel)
        offsets = itertools.chain(() if first is None else (first,), offsets)
        items = replayer(_replay)(offsets, spool, namespaces, ctx, name, untitled)
        merge.take(items)
        first_batch = first_items(items)
        rendered = Rendered(feed_header(namespaces, head), itertools.chain(first_batch, items), FOOTER, EMPTY)
        return write_blocks(sink, rendered, SizeWatch(ctx, "items"))
    finally:
        kept.close()
        spool.close()


def _replay(
    offsets: Iterator[int], spool: _Spool, namespaces: Namespaces, ctx: Context, name: str, untitled: bool
) -> Iterator[tuple[Any, str]]:
    """The records at ``offsets``, in order: what was said rendering each said, its marks made declarations
    (``namespaces``: none while the root's are gathered), its block; then ``title-missing`` (``untitled``: the
    count is the writer's) and the fields the format cannot hold."""
    reporter = ctx.reporter
    told: set[str] = set()  # the extras said dropped: once, at the first item written
    found: set[str] = set()
    count = 0
    for offset in offsets:
        _, _, _, text, said, uses, fields, bare = spool.get(offset)
        if said is not None:
            _say(said, reporter, told)
        if fields is not None:
            found.update(fields)
        count += bare
        if not isinstance(text, str):
            raise text
        if uses is not None:
            for prefix in uses:
                namespaces.use(prefix)
                text = text.replace(f"{_MARK}{prefix}{_MARK}", namespaces.xmlns(prefix))
        yield None, text
    if untitled:
        say_untitled(count, ctx)
    if found:
        report_unheld(found, name, ctx)
