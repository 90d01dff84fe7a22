"""One pass for a text sitemap's common plan: the web-URL check, the drop of repeats and the lines, in runs.

sitemaps.org 0.9 (https://www.sitemaps.org/protocol.html, "Text file"): one URL per line, each once.  The plan of
a conversion to ``text`` (:func:`feedmap.converters._pipeline.plan`) ends with
:func:`~feedmap._core.entry_checks.check_web_urls` (a loc of another scheme kept, said) and the drop of repeated
locs as they stream by (:func:`~feedmap.converters._duplicates.report_duplicates`); the writer then says the
fields a text sitemap cannot hold (as ``feedmap._api`` watches them) and writes a line per entry
(:mod:`feedmap.formats.lines._text`).  :func:`checked_lines` is those steps as one (:class:`CheckedLines`):
iterated, the steps one after the other, as before; taken by :func:`lines_writer`, one loop over the entries as
given that does what each of those layers does to an entry, in their order, and says the same at the same
moments (the repeats and the fields not held at the end, in that order; the size caps as the lines are written).
In that loop an entry whose loc none of the steps would change or say a word of waits in a run of such entries
(:data:`RUN`), whose locs are then keyed, added to the seen ones, watched and written in a few calls each
(issue 19: the pass had cost more than reading the entries); any other entry ends the run and takes each step's
own code, so that every diagnostic keeps its place, and so does what a stream holds when a run stops.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO

from feedmap._core.context import Context
from feedmap._core.entry_checks import check_web_urls, web_checked, where
from feedmap._core.model import ENTRY_FIELDS, Document, Entry
from feedmap._core.urls import all_uris, plain_web_uri
from feedmap._io.seen_keys import SeenKeys
from feedmap.converters._duplicates import _as_written, _Repeats, _unchanged, dedupe, report_duplicates
from feedmap.converters._unheld import report_unheld, values_of
from feedmap.formats._output import BlockBatches

__all__ = ["CheckedLines", "checked_lines", "lines_writer"]

#: The usual spellings of a web URL's start (``check_web_urls``' own first look).
_WEB = ("https://", "http://")


class CheckedLines(Iterator[Entry]):
    """The web-URL check then the drop of repeats of a text sitemap, not started: iterated, the two steps; or
    taken by :func:`lines_writer`, which runs them in its own loop over :attr:`given`."""

    def __init__(self, given: Iterable[Entry], ctx: Context, kept_what: str) -> None:
        self.given, self.ctx, self.kept_what = given, ctx, kept_what
        self._run: Iterator[Entry] | None = None

    @property
    def started(self) -> bool:
        return self._run is not None

    def take(self) -> None:
        """Mark the steps as run by the writer."""
        assert self._run is None
        self._run = iter(())

    def __iter__(self) -> Iterator[Entry]:
        if self._run is None:
            return self  # not started: still steps a writer can take (``iter`` of it, a pass-through wrap)
        return self._run

    def __next__(self) -> Entry:
        if self._run is None:
            checked = check_web_urls(self.given, self.ctx, xml=False, parts=False)
            self._run = report_duplicates(checked, self.ctx, drop=True, kept_what=self.kept_what)
        return next(self._run)

    def close(self) -> None:
        close = getattr(self._run, "close", None)
        if close is not None:
            close()


def checked_lines(entries: Iterable[Entry], ctx: Context, dedupe_step: bool) -> Iterator[Entry]:
    """The step of the web-URL check of a ``text`` target then the drop of repeats (``dedupe_step``:
    :func:`~feedmap.converters.dedupe`'s, by ``ctx.options.dedupe``): a :class:`CheckedLines`, or the steps
    (``dedupe=last|newest`` merges)."""
    if not dedupe_step:
        return CheckedLines(entries, ctx, "the URL written once")
    if (ctx.options.dedupe or "newest") == "first":
        return CheckedLines(entries, ctx, "the first kept")
    return dedupe(check_web_urls(entries, ctx, xml=False, parts=False), ctx)


#: A writer of a document to a binary sink (the :class:`~feedmap.formats._registry.FormatSpec` writer).
Writer = Callable[..., int]


def lines_writer(doc: Document, ctx: Context) -> Writer | None:
    """The text sitemap writer that runs ``doc``'s steps itself (:class:`CheckedLines` not started), or None."""
    steps = doc.entries
    if not isinstance(steps, CheckedLines) or steps.started:
        return None

    def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
        steps.take()
        return _write_lines(steps, sink, ctx)

    return write


#: Plain entries gathered before their locs are added to the seen ones and written, in one call each.
RUN = 4096


def _write_lines(steps: CheckedLines, sink: BinaryIO, ctx: Context) -> int:
    """The lines of the entries, written: what ``check_web_urls``, ``report_duplicates(drop=True)``, ``_api``'s
    watch of the fields a text sitemap cannot hold and the text writer do to each, in that order, with the same
    writes (:func:`~feedmap.formats.lines._text.line_batches`); the number of lines written.

    An entry whose loc is a web URL none of those steps reports or changes (ASCII and no line break; with
    ``--encode-urls``, a URI as written: :func:`~feedmap._core.urls.plain_web_uri`), so that its line is the loc,
    waits in a run of up to :data:`RUN` such entries, which is then
    added, watched and written in a few calls; any other entry first ends the run, then takes each step's own
    code, so every diagnostic is said where it was.  A stop (an error, ``--strict``) first ends the run, so what
    is written by then is what the steps one by one would have written."""
    from feedmap.formats.lines._text import finish_lines, line_batches

    out = line_batches(sink, ctx)
    lines = _Lines(steps, ctx, out)
    run: list[Entry] = []
    append = run.append
    try:
        try:
            encode = lines.encode  # a loc that is not a URI as written is encoded, and that is said: no run takes it
            for entry in steps.given:
                loc = entry.loc
                if (
                    plain_web_uri(loc) is not None
                    if encode
                    else loc.startswith(_WEB) and loc.isascii() and "\n" not in loc and "\r" not in loc
                ):
                    append(entry)
                    if len(run) >= RUN:
                        lines.plain(run)
                    continue
                if run:
                    lines.plain(run)
                lines.one(entry)
        except BaseException:
            if run:
                lines.plain(run)  # the entries read before the stop, written as the steps one by one write them
            raise
        if run:
            lines.plain(run)
    finally:
        lines.seen.close()
    lines.finish()
    return finish_lines(out, ctx)


_loc = operator.attrgetter("loc")


class _Lines:
    """The state of :func:`_write_lines`: the locs written, the repeats, the fields not held found so far."""

    def __init__(self, steps: CheckedLines, ctx: Context, out: BlockBatches) -> None:
        from feedmap.formats.lines._text import FORMAT, line_of

        self.line_of, self.format_name = line_of, FORMAT.name
        self.ctx, self.out, self.kept_what = ctx, out, steps.kept_what
        self.seen = SeenKeys()  # loc as written -> 0
        self.repeats = _Repeats("first repeated here")
        self.written = _as_written(ctx)
        self.keep = self.written is _unchanged  # each loc its key
        self.encode = ctx.options.encode_urls
        self.unheld = [name for name in ENTRY_FIELDS if name not in FORMAT.fields]
        self.values = values_of(self.unheld)
        self.found: list[str] = []

    def plain(self, run: list[Entry]) -> None:
        """A run of entries whose locs are web URLs that need no word: ASCII, no line break (without
        ``--encode-urls``), or URIs as written (with it); each loc is its line, and its key when every loc of the
        run is a URI (:func:`~feedmap._core.urls.all_uris`; else each key is the URI its loc is written as:
        :func:`~feedmap.converters._duplicates.url_key`, which says nothing).  The run is emptied."""
        entries = run[:]
        run.clear()  # first: a failure below (a write) does not hand the same run over again
        locs = list(map(_loc, entries))
        joined = "\n".join(locs)  # the run's lines, joined once for the key check and the write
        keys = locs if self.keep or all_uris(locs, joined) else list(map(self.written, locs))
        text: str | None = joined
        kept = self.seen.add_block(keys, 0)
        if kept is not None:  # a repeat: only the entries new are written
            run_entries, text = entries, None
            entries, locs = [], []
            for entry, key, new in zip(run_entries, keys, kept, strict=True):
                if new:
                    entries.append(entry)
                    locs.append(entry.loc)
                else:
                    self.repeats.add(key, lambda: where(entry, self.ctx))  # noqa: B023 (called at once)
        if self.unheld and any(map(any, map(self.values, entries))):
            for entry in entries:
                self.watch(entry)
        self.out.add_lines(locs, text)

    def one(self, entry: Entry) -> None:
        """Any other entry: each step's own code."""
        ctx = self.ctx
        if not entry.loc.startswith(_WEB):  # check_web_urls' look: another scheme said, kept (not XML)
            entry = web_checked(entry, ctx, xml=False, parts=False) or entry
        loc = entry.loc
        key = self.written(loc)
        if not self.seen.add_new(key, 0):
            self.repeats.add(key, lambda: where(entry, ctx))
            return
        self.watch(entry)
        if not self.encode and loc.isascii() and "\n" not in loc and "\r" not in loc:  # line_of's plain case
            self.out.add(loc + "\n")
            return
        line = self.line_of(entry, ctx, self.encode)
        if line is not None:
            self.out.add(line)

    def watch(self, entry: Entry) -> None:
        """``_api``'s watch of the fields not held, for an entry written."""
        if self.unheld and any(self.values(entry)):  # one C call while nothing is new
            for name in [name for name in self.unheld if getattr(entry, name)]:
                self.unheld.remove(name)
                self.found.append(name)
            self.values = values_of(self.unheld)

    def finish(self) -> None:
        """What the repeats step and the watch say at the end, in that order."""
        self.repeats.report(self.ctx, merged=self.kept_what)
        if self.found:
            report_unheld(self.found, self.format_name, self.ctx)
