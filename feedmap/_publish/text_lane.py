"""The text lane: a text sitemap converted to a text sitemap, or split into XML sitemaps, without an entry per URL.

Spec: https://www.sitemaps.org/protocol.html (#otherformats: one URL per line; "Using Sitemap index files": the
limits of each file; "Sitemap file location": the scope).  The text reader (:mod:`feedmap.formats.lines._text`)
looks at a read's lines at once: a block of lines that are each a plain URL (an absolute URI of unreserved and
reserved characters, nothing any check reports) comes here as a list of its URLs, every other line as the entry
it is.  The steps of the conversion's plan (:func:`feedmap.converters._pipeline.plan`) then run on a block at
once: the web URL check (:func:`feedmap._core.entry_checks.check_web_urls`), the absolute check of the XML target
(``keep_absolute``), the repeats (a text sitemap holds no lastmod, so the sitemap target's merge, "newest lastmod
kept, ties to the first", keeps the first of each URL: it streams here as the text target's drop does), the
scope and the cuts of the split, and the writer.  A block that one step would change or report (a URL not
http(s), not a URI as written, seen before) is taken apart into its entries, which go through each step one by
one as the plan's own steps take them, with the same diagnostics in the same order; so does every entry.

The lane runs only for a plan it knows step for step (:func:`lane_for`): one text sitemap read, written as one
text sitemap or split into ``sitemap`` files, with nothing else asked (no filter, ``--dedupe``, sort, limit,
enrichment); any other plan takes the plan's steps.  ``FEEDMAP_NO_LANE=1`` in the environment (read per run)
sends every run the plan's way, for comparing the two.  Bytes written and diagnostics are the plan's: for the
sitemap target, where the plan's merge reads every entry before writing, the writer's diagnostics (and an error of
writing) are held (:class:`Deferred`) and said after the merge's, where the plan says them (the split:
:mod:`feedmap._publish.text_split`).
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import IO, BinaryIO

from feedmap._core import entry_checks
from feedmap._core.context import Context
from feedmap._core.entry_checks import non_web_url, where
from feedmap._core.errors import Diagnostic, Reporter
from feedmap._core.model import Document, Entry, new_entry, new_position
from feedmap._core.urls import has_scheme, is_absolute_url, is_http_url
from feedmap._io.scratch import scratch_file
from feedmap._io.seen_keys import IN_MEMORY, IN_MEMORY_BYTES, SeenKeys
from feedmap.converters import _duplicates
from feedmap.converters._pipeline import Step, on_entries
from feedmap.formats.lines import _text
from feedmap.formats.lines._text import PlainBlock, TextEntries, lane_reading, line_of

__all__ = ["LANE_OFF", "Deferred", "Lane", "deferring", "lane_for", "write_text"]

#: The environment variable that, set (not to ``0``), sends every conversion the plan's way.
LANE_OFF = "FEEDMAP_NO_LANE"


def _planned(target: str) -> list[Step]:
    """The plan :func:`feedmap.converters._pipeline.plan` makes for a text sitemap written as ``target`` (text,
    or sitemap) when nothing else is asked: what the lane does."""
    if target == "text":
        return [
            on_entries(entry_checks.check_web_urls, xml=False, parts=False),
            on_entries(_duplicates.report_duplicates, drop=True),
        ]
    return [
        on_entries(entry_checks.check_web_urls, xml=True, parts=True),
        on_entries(entry_checks.keep_absolute, target="sitemap"),
        on_entries(_duplicates.merge_duplicates),
    ]


def lane_for(doc: Document, steps: list[Step], target: str, split: bool) -> TextEntries | None:
    """The text sitemap read for ``doc`` when the lane can run the plan ``steps`` writing ``target`` (a text
    sitemap to one output, or sitemap files split into a directory); None: the plan's steps run."""
    if os.environ.get(LANE_OFF, "0") not in ("", "0"):
        return None
    if (target, split) not in (("text", False), ("sitemap", True)) or steps != _planned(target):
        return None
    return lane_reading(doc)


class Deferred(Reporter):
    """A reporter that passes each diagnostic on to ``target``, or, while :attr:`holding`, keeps it (past
    :data:`_HELD` of them in a temporary file, pickled by the thousand) for :meth:`replay`."""

    def __init__(self, target: Reporter) -> None:
        super().__init__(strict=False, handler=None, keep=0)
        self._target = target
        self.holding = False
        self._held: list[Diagnostic] = []
        self._file: IO[bytes] | None = None

    def report(self, diagnostic: Diagnostic) -> None:
        if not self.holding:
            self._target.report(diagnostic)
            return
        self._held.append(diagnostic)
        if len(self._held) >= _HELD:
            import pickle  # here, not at start: only a run that holds this many diagnostics needs it

            if self._file is None:
                self._file = scratch_file("feedmap-diagnostics-", "file for diagnostics")
            pickle.dump(self._held, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self._held = []

    def replay(self) -> None:
        """Pass every diagnostic kept on, in order; hold no more."""
        self.holding = False
        if self._file is not None:
            import pickle

            self._file.seek(0)
            while True:
                try:
                    batch: list[Diagnostic] = pickle.load(self._file)  # our own temporary file
                except EOFError:
                    break
                for diagnostic in batch:
                    self._target.report(diagnostic)
            self.close()
        held, self._held = self._held, []
        for diagnostic in held:
            self._target.report(diagnostic)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


_HELD = 1000


class _Seen:
    """The URLs kept (as written), and the line each was first read at: a set and the blocks they came in,
    past the budget of :class:`~feedmap._io.seen_keys.SeenKeys` (:data:`~feedmap._io.seen_keys.IN_MEMORY` keys,
    :data:`~feedmap._io.seen_keys.IN_MEMORY_BYTES` characters) in one (each URL with its line)."""

    def __init__(self) -> None:
        self._memory: set[str] = set()
        self._blocks: list[tuple[int, list[str]]] = []  # the line before each block, and its URLs
        self._characters = 0
        self._keys: SeenKeys | None = None

    def add_new(self, locs: list[str], line: int, characters: int) -> bool:
        """Add ``locs`` (read at the lines after ``line``) when none was seen and none is there twice, and
        say so; else add none."""
        keys = self._keys
        if keys is not None:
            return keys.add_block_new(locs, line + 1)
        memory = self._memory
        if not memory.isdisjoint(locs):
            return False
        size = len(memory)
        memory.update(locs)
        if len(memory) != size + len(locs):  # a URL twice in the block: none of them was there
            memory.difference_update(locs)
            return False
        self._blocks.append((line, locs))
        self._characters += characters
        if len(memory) >= IN_MEMORY or self._characters >= IN_MEMORY_BYTES:
            self._spill()
        return True

    def __contains__(self, key: str) -> bool:
        return key in self._memory if self._keys is None else self._keys.get(key) is not None

    def line(self, key: str) -> int:
        """The line ``key`` (one of them) was first read at."""
        if self._keys is not None:
            return self._keys.get(key) or 0
        for before, locs in self._blocks:
            if key in locs:
                return before + locs.index(key) + 1
        return 0

    def add(self, key: str, line: int) -> None:
        if self._keys is not None:
            self._keys.add(key, line)
            return
        self._memory.add(key)
        self._blocks.append((line - 1, [key]))
        self._characters += len(key)
        if len(self._memory) >= IN_MEMORY or self._characters >= IN_MEMORY_BYTES:
            self._spill()

    def _spill(self) -> None:
        keys = self._keys = SeenKeys()
        for before, locs in self._blocks:
            for number, loc in enumerate(locs, before + 1):
                keys.add(loc, number)
        self._memory, self._blocks = set(), []

    def close(self) -> None:
        self._memory, self._blocks = set(), []
        if self._keys is not None:
            self._keys.close()
            self._keys = None


#: What makes a plain URL no URI as written (:func:`~feedmap._core.urls.is_uri`): a ``%`` that starts no escape,
#: a second ``#`` on a line.
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_TWO_FRAGMENTS = re.compile(r"#[^\n#]*#")


def _web(text: str, lines: int) -> bool:
    """Whether each of the ``lines`` lines of ``text`` starts with ``https://`` or ``http://`` (lower case: a
    block with another case is looked at line by line, as :func:`~feedmap._core.urls.is_http_url` does)."""
    https = text.startswith("https://") + text.count("\nhttps://")
    return https == lines or https + text.startswith("http://") + text.count("\nhttp://") == lines


def _uris(text: str) -> bool:
    """Whether every line of ``text`` (plain URLs) is a URI as written: :func:`~feedmap._core.urls.is_uri`."""
    if "%" in text and _LONE_PERCENT.search(text) is not None:
        return False
    return "#" not in text or _TWO_FRAGMENTS.search(text) is None


class Lane:
    """The plan's steps before the writer, over the lane's items: the web URL check, the absolute check (XML
    target), the repeats (dropped: the first kept); :meth:`finish` says what the steps say at the end."""

    def __init__(self, ctx: Context, reading: TextEntries, *, xml: bool) -> None:
        options = ctx.options
        self.ctx = ctx
        self.name = reading.name
        self.xml = xml
        self._keep = options.keep_urls and not options.encode_urls  # locs kept as read: no URI needed
        self._written = _duplicates.url_key(options)
        self._seen = _Seen()
        self._repeats = _duplicates._Repeats("first here" if xml else "first repeated here")
        self._left_out = 0
        self._first_left: Entry | None = None

    def passes(self, block: PlainBlock) -> bool:
        """Whether every URL of ``block`` passes every step as it is and unreported: http(s), a URI as written
        (unless locs are kept as read), none seen before; then they are kept."""
        text = block.text
        if not _web(text, len(block.locs)) or not (self._keep or _uris(text)):
            return False
        return self._seen.add_new(block.locs, block.line, len(text))

    def entries(self, block: PlainBlock) -> Iterator[Entry]:
        """The entries of ``block``, as the reader makes them."""
        name, line = self.name, block.line
        for loc in block.locs:
            line += 1
            yield new_entry(loc, None, None, None, (), (), {}, new_position(name, line))

    def keeps(self, entry: Entry) -> bool:
        """Whether ``entry`` is written, each step's diagnostic made as the step makes it."""
        loc, ctx = entry.loc, self.ctx
        if not is_http_url(loc) and has_scheme(loc):
            non_web_url(loc, "loc", ctx, kept=not self.xml, at=entry)
            if self.xml:
                return False
        if self.xml and not is_absolute_url(loc):  # not from the text reader, which reads absolute URLs only
            self._left_out += 1
            self._first_left = self._first_left or entry
            return False
        key = self._written(loc)
        seen = self._seen
        if key not in seen:
            seen.add(key, entry.origin.line if entry.origin is not None else 0)
            return True
        if self.xml:  # the merge names the first of the URL's entries
            self._repeats.add(key, lambda: (self.name, seen.line(key)))
        else:  # the drop names the repeat
            self._repeats.add(key, lambda: where(entry, ctx))
        return False

    def finish(self) -> None:
        """What the steps say when the entries end, in the plan's order: the entries left out without an
        absolute URL, then the repeats."""
        if self._first_left is not None:
            left = itertools.repeat(self._first_left, self._left_out)
            for _ in entry_checks.keep_absolute(left, self.ctx, target="sitemap"):
                pass
        self._seen.close()
        merged = "the newest lastmod kept" if self.xml else "the URL written once"
        self._repeats.report(self.ctx, merged=merged)

    def close(self) -> None:
        self._seen.close()


def write_text(reading: TextEntries, sink: BinaryIO, ctx: Context) -> int:
    """The text sitemap read by ``reading`` written to ``sink`` as the text writer writes it after the plan's
    steps (:func:`feedmap.formats.lines._text.write`); the number of URLs written."""
    lane = Lane(ctx, reading, xml=False)
    out = _text.line_batches(sink, ctx)
    encode = ctx.options.encode_urls
    try:
        for item in reading.lane_items():
            if type(item) is PlainBlock:
                if lane.passes(item):
                    out.add_lines(item.locs, item.text)
                    continue
                entries: Iterator[Entry] = lane.entries(item)
            else:
                entries = iter((item,))  # type: ignore[arg-type]
            for entry in entries:
                if lane.keeps(entry):
                    line = line_of(entry, ctx, encode)
                    if line is not None:
                        out.add(line)
        lane.finish()
    finally:
        lane.close()
    return _text.finish_lines(out, ctx)


def deferring(ctx: Context) -> tuple[Context, Deferred]:
    """A context like ``ctx`` whose diagnostics :class:`Deferred` can hold, and it."""
    held = Deferred(ctx.reporter)
    return replace(ctx, reporter=held), held
