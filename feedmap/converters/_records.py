"""The merge of repeated locs into rendered records: a urlset written without an entry spool.

sitemaps.org 0.9 (https://www.sitemaps.org/protocol.html) lists a URL once.  When the last step before a
sitemap writer is the merge of repeated locs (:class:`feedmap.converters._duplicates.Merge`, not started),
the writer runs the merge's loop itself (:func:`~feedmap.converters._duplicates.merge_into`) and renders each
URL's ``<url>`` as its entry arrives: the record (the block, what the writer said of it, the fields it holds
that a urlset cannot) is kept in the spool in the entry's place, a repeat that replaces the kept entry is
rendered in turn and takes its slot, and at the end the records are written in first-seen order.  No entry
is pickled or made again; memory stays that of the spool (its budget, then a scratch file).

What is written and said is what the merge of entries then the writer write and say, in the same order: the
readers' checks and the merge's lines first, then, at each record written, what the writer said while
rendering it (kept, not said, until then: under ``strict`` the run stops at the same record), ``field-dropped``
of a text extra once, at the first record written that holds it, the fields the format cannot hold at the end
(as ``feedmap._api`` says them), the size caps as the batches are written.  An error rendering an entry is
raised where its record is written.  A run with an extension of a third party keeps the merge of entries.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from feedmap._core.context import Context
from feedmap._core.dates import known_date
from feedmap._core.errors import Reporter
from feedmap._core.held_reporter import HeldReporter as _Held
from feedmap._core.held_reporter import Said as _Said
from feedmap._core.model import ENTRY_FIELDS, Document, Entry, new_position
from feedmap._io.seen_keys import SeenKeys
from feedmap.converters._duplicates import _PART_OVERHEAD, Merge, merge_into
from feedmap.converters._lines_pass import lines_writer
from feedmap.converters._record_pages import RecordPages
from feedmap.converters._unheld import report_unheld

__all__ = ["records_writer"]

#: A writer of a document to a binary sink (the :class:`~feedmap.formats._registry.FormatSpec` writer).
Writer = Callable[..., int]

#: One thing said while rendering: the reporter's method ("info", "warning", "error"), code, message,
#: source, line.
#: A record: the entry's loc, lastmod and origin (what a repeat is merged by; read back from the scratch
#: file, the lastmod's text and the origin's tuple), its block (or the error rendering it raised), what was
#: said rendering it (None: nothing), the unheld fields it has (None: none).
_Record = tuple[str, Any, Any, Any, tuple[_Said, ...] | None, tuple[str, ...] | None]


class _Kept:
    """The entry kept for a loc, as much of it as the merge of a repeat reads."""

    __slots__ = ("lastmod", "loc", "origin")

    def __init__(self, loc: str, lastmod: Any, origin: Any) -> None:
        self.loc, self.lastmod, self.origin = loc, lastmod, origin


def _size(record: _Record) -> int:
    block = record[3]
    return _PART_OVERHEAD + len(record[0]) + (len(block) if isinstance(block, str) else 0)


def records_writer(doc: Document, name: str, ctx: Context) -> Writer | None:
    """The writer of format ``name`` that merges ``doc``'s entries as rendered records, or None: the format
    renders no records this way, or ``doc``'s entries are no merge waiting to run."""
    if name == "text":  # the checks and the drop of repeats of a text sitemap, run by its writer
        return lines_writer(doc, ctx)
    if name in ("ror", "rss"):  # the feeds: their own records (channel, namespaces of the first batch)
        from feedmap.converters._feed_records import feed_records_writer

        return feed_records_writer(doc, name, ctx)
    merge = doc.entries
    if name != "sitemap" or not isinstance(merge, Merge) or merge.started:
        return None
    from feedmap.formats.ext import builtin_hook, hooks
    from feedmap.formats.ext._image import image_elements

    if not all(builtin_hook(hook) for _, hook in hooks("sitemap").write):
        return None  # a third party's write hook may keep state between entries: rendered in output order

    images = ("images", image_elements) in hooks("sitemap").write  # the images a plain entry's record holds

    def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
        return _write_urlset(merge, sink, ctx, images)

    return write


def _write_urlset(merge: Merge, sink: BinaryIO, ctx: Context, images: bool) -> int:
    from feedmap.formats.sitemap._urlset import EMPTY, FOOTER, FORMAT, blocks, header

    namespaces, block = blocks(ctx)
    unheld = [name for name in ENTRY_FIELDS if name not in FORMAT.fields]
    merge.take(iter(()))  # run here, by the writer

    def root(imaged: bool, kept: Callable[[], Iterator[list[Any]]] | None) -> str:
        """The root, once every record is rendered: it declares every namespace they use (those of the images
        a plain record holds too, written without a look at the namespaces).  ``kept``: the records kept, when
        repeats replaced some (a namespace only they used is not declared)."""
        if imaged:
            namespaces.use("image")
        if kept is not None:
            namespaces.keep_only(_prefixes_written(kept(), namespaces.used))
        return header(namespaces, ctx)

    return _write_records(merge, sink, ctx, block, unheld, FORMAT.name, images, (root, FOOTER, EMPTY))


def _write_records(
    merge: Merge,
    sink: BinaryIO,
    ctx: Context,
    block: Callable[[Entry, Context, set[str]], str],
    unheld: list[str],
    format_name: str,
    images: bool,
    frame: tuple[Callable[[bool, Callable[[], Iterator[list[Any]]] | None], str], str, str],
) -> int:
    """The merge run into records, then each record written (what was said rendering it said first), in
    the batches of :func:`~feedmap.formats._output.write_blocks`; the number of records written.  ``frame``: the
    root's start tag, made once every record is rendered (told whether a plain record holds images), what ends
    the document, the ``empty-document`` warning."""
    held = _Held()
    rendering = dataclasses.replace(ctx, reporter=held)
    values = operator.attrgetter(*unheld) if len(unheld) > 1 else None
    dropped: set[str] = set()  # emptied after each entry: each record says its own text extras dropped
    records = RecordPages()  # read back from the scratch file: the lastmod's text, the origin's tuple
    kept = SeenKeys()

    def store(entry: Entry) -> int:
        try:
            text: Any = block(entry, rendering, dropped)
            size = _PART_OVERHEAD + len(text) + len(entry.loc)  # _size, inlined: once per URL kept
        except Exception as exc:  # raised where the record is written, as the writer raises it today
            text, size = exc, _PART_OVERHEAD
        if dropped:
            dropped.clear()
        unwritten = None
        if values is not None and any(values(entry)):
            unwritten = tuple([name for name in unheld if getattr(entry, name)])
        elif values is None and unheld and getattr(entry, unheld[0]):
            unwritten = (unheld[0],)
        said = held.take() if held.said else None
        return records.add((entry.loc, entry.lastmod, entry.origin, text, said, unwritten), size)

    def fetch(offset: int) -> _Kept:
        loc, lastmod, origin = records.get(offset)[:3]
        if lastmod.__class__ is str:  # a plain entry's record, or one read back from the scratch file
            lastmod = known_date(lastmod)  # the text of a W3CDate: valid
        if origin.__class__ is tuple:
            origin = new_position(*origin)
        return _Kept(loc, lastmod, origin)

    try:
        from feedmap.converters._pass import CheckedMerge, fused_into  # a urlset's writing: formats loaded

        imaged = False  # whether a plain record holds images
        if isinstance(merge, CheckedMerge):  # the checks too, in one pass (a plain entry's record made there)
            repeats, imaged = fused_into(merge, kept, store, records.add, fetch, images)
        else:
            repeats = merge_into(merge.entries, ctx, merge.replaces, kept, store, fetch)
        repeats.report(ctx, merged=merge.kept_what)
        # no URL repeated: every record is kept, in the order added; else read by the table of keys
        pages = records.pages() if repeats.total == 0 else _by_offsets(kept.values(), records.get)
        root, footer, empty = frame
        again = None if repeats.total == 0 else lambda: _by_offsets(kept.values(), records.get)
        return _write_pages(sink, pages, ctx, format_name, (root(imaged, again), footer, empty))
    finally:
        kept.close()
        records.close()


def _prefixes_written(pages: Iterator[list[Any]], prefixes: set[str]) -> set[str]:
    """Those of ``prefixes`` that an element of the records' blocks is named with (``<prefix:``), read until each
    is found (a block escapes a ``<`` of its text: only elements start so)."""
    missing, found = set(prefixes), set()
    for page in pages:
        for record in page:
            text = record[3]
            if isinstance(text, str):
                for prefix in [one for one in missing if f"<{one}:" in text]:
                    missing.discard(prefix)
                    found.add(prefix)
        if not missing:
            break
    return found


def _by_offsets(offsets: Iterator[int], get: Callable[[int], Any]) -> Iterator[list[Any]]:
    """The records at ``offsets``, in that order, by pages of some hundreds."""
    page: list[Any] = []
    for offset in offsets:
        page.append(get(offset))
        if len(page) >= 512:
            yield page
            page = []
    if page:
        yield page


def _write_pages(
    sink: BinaryIO, pages: Iterator[list[Any]], ctx: Context, format_name: str, frame: tuple[str, str, str]
) -> int:
    """:func:`~feedmap.formats._output.write_blocks` of the records' blocks (the same batches, the same size
    caps and ``empty-document``), each record's lines said as it comes, the unheld fields after the last."""
    from feedmap.formats._output import BATCH_CHARACTERS, SizeWatch, write_batch

    header, footer, empty = frame
    watch = SizeWatch(ctx, "URLs")
    head = header.encode("utf-8")
    reporter = ctx.reporter
    told: set[str] = set()  # the text extras said dropped: once, at the first record written
    found: set[str] = set()
    pending: list[str] = []
    count = characters = 0
    for page in pages:
        for _, _, _, text, said, unwritten in page:
            if said is not None:
                _say(said, reporter, told)
            if unwritten is not None:
                found.update(unwritten)
            if not isinstance(text, str):
                raise text
            pending.append(text)
            characters += len(text)
            if len(pending) >= 512 or characters >= BATCH_CHARACTERS:
                write_batch(sink, watch, head, pending)
                head = b""
                count += len(pending)
                pending.clear()
                characters = 0
    if found:
        report_unheld(found, format_name, ctx)
    if pending:
        write_batch(sink, watch, head, pending)
        head = b""
        count += len(pending)
    if count == 0:
        ctx.warning("empty-document", empty)
    data = head + footer.encode("utf-8")
    sink.write(data)
    watch.add(0, len(data))
    return count


def _say(said: tuple[_Said, ...], reporter: Reporter, told: set[str]) -> None:
    """Say to ``reporter`` what was said rendering a record, but an extra's ``field-dropped`` or ``extra-dropped``
    already in ``told`` (the writer says it once, at the first entry written that holds it)."""
    for method, code, message, source, line in said:
        if code in ("field-dropped", "extra-dropped"):
            if message in told:
                continue
            told.add(message)
        getattr(reporter, method)(code, message, source, line)
