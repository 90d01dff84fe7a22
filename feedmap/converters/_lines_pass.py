"""One pass per entry for a text sitemap's common plan: the web-URL check, the drop of repeats and the line.

sitemaps.org 0.9 (https://www.sitemaps.org/protocol.html, "Text file"): one URL per line, each once.  The plan of
a conversion to ``text`` (:func:`feedmap.converters._pipeline.plan`) ends with
:func:`~feedmap._core.entry_checks.check_web_urls` (a loc of another scheme kept, said) and the drop of repeated
locs as they stream by (:func:`~feedmap.converters._duplicates.report_duplicates`); the writer then says the
fields a text sitemap cannot hold (as ``feedmap._api`` watches them) and writes a line per entry
(:mod:`feedmap.formats.lines._text`).  :func:`checked_lines` is those steps as one (:class:`CheckedLines`):
iterated, the steps one after the other, as before; taken by :func:`lines_writer`, one loop over the entries as
given that does what each of those layers does to an entry, in their order, and says the same at the same
moments (the repeats and the fields not held at the end, in that order; the size caps as the lines are written).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO

from feedmap._core.context import Context
from feedmap._core.entry_checks import check_web_urls, web_checked, where
from feedmap._core.model import ENTRY_FIELDS, Document, Entry
from feedmap._io.seen_keys import SeenKeys
from feedmap.converters._duplicates import _as_written, _Repeats, dedupe, report_duplicates
from feedmap.converters._unheld import report_unheld, values_of

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
        from feedmap.formats.lines._text import write_lines

        steps.take()
        return write_lines(_lines(steps, ctx), sink, ctx)

    return write


def _lines(steps: CheckedLines, ctx: Context) -> Iterator[tuple[None, str]]:
    """The lines of the entries: what ``check_web_urls``, ``report_duplicates(drop=True)``, ``_api``'s watch of
    the fields a text sitemap cannot hold and the text writer's ``_blocks`` do to each, in that order."""
    from feedmap.formats.lines._text import FORMAT, line_of

    seen = SeenKeys()  # loc as written -> 0
    repeats = _Repeats("first repeated here")
    written = _as_written(ctx)
    first_time = seen.add_new
    encode = ctx.options.encode_urls
    unheld = [name for name in ENTRY_FIELDS if name not in FORMAT.fields]
    values = values_of(unheld)
    found: list[str] = []
    try:
        for entry in steps.given:
            loc = entry.loc
            if not loc.startswith(_WEB):  # check_web_urls' look: another scheme said, kept (not XML)
                entry = web_checked(entry, ctx, xml=False, parts=False) or entry
                loc = entry.loc
            key = written(loc)
            if not first_time(key, 0):
                repeats.add(key, lambda: where(entry, ctx))  # noqa: B023 (called at once)
                continue
            if unheld and any(values(entry)):  # the watch of fields not held: one C call while nothing is new
                for name in [name for name in unheld if getattr(entry, name)]:
                    unheld.remove(name)
                    found.append(name)
                values = values_of(unheld)
            if not encode and loc.isascii() and "\n" not in loc and "\r" not in loc:  # line_of's plain case
                yield None, loc + "\n"
                continue
            line = line_of(entry, ctx, encode)
            if line is not None:
                yield None, line
    finally:
        seen.close()
    repeats.report(ctx, merged=steps.kept_what)
    if found:
        report_unheld(found, FORMAT.name, ctx)
