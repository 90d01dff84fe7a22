"""The text target of an index whose children worker processes read (``--jobs N``, ``-t text``): the plan's
stateless steps and each line's rendering in the workers, only the repeats and the writing in the run.

Spec: https://www.sitemaps.org/protocol.html (#otherformats: a text sitemap is one URL per line; #index: an index's
children are independent documents, read by workers as :mod:`feedmap._web.partitions` describes).  For a text
sitemap written from a followed index, the plan (:func:`feedmap.converters._pipeline.plan`) is the entry filters
asked for, the web URL check (:func:`feedmap._core.entry_checks.check_web_urls`, the loc only), the repeats dropped
(:func:`feedmap.converters.report_duplicates`), then the writer (:func:`feedmap.formats.lines._text.write`) after
the report of the fields a text sitemap cannot hold.  The filters and the web URL check look at one entry at a
time: a worker runs them on what it reads (:func:`worker_entries`), their diagnostics recorded in place, and sends
the entries left as :class:`Lines`: the locs of the plain ones (a loc written as it is: ASCII, printable, a URI as
written; no other field than lastmod, changefreq and priority), their lines (where a repeat is reported) and which
of those three fields each holds (for ``field-dropped``), every other entry whole at its place.  The run
(:func:`write_text`) keeps what spans the children: the set of the locs written (a repeat is dropped and reported,
as the plan's step does), the fields found, the filters' counts, and writes the lines in input order in the text
writer's batches, with the same diagnostics in the same order (an entry sent whole goes through the plan's own
per-entry code).

The lane runs only for a plan it knows step for step (:func:`lane_for`): one followed index, read by more than
one worker, written as one text sitemap (no split), nothing else asked (no ``--dedupe``, sort, limit, enrichment,
``--encode-urls``, nor ``--strict`` with a filter: a run stopped by a warning reports the filters' counts so
far); ``FEEDMAP_NO_LANE=1`` in the environment sends every run the plan's way, as it does the text lane.
"""

from __future__ import annotations

import itertools
import operator
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

from feedmap._core import entry_checks
from feedmap._core.context import Context
from feedmap._core.entry_checks import where
from feedmap._core.model import ENTRY_FIELDS, Document, Entry
from feedmap._core.urls import all_uris, is_uri
from feedmap._io.seen_keys import SeenKeys
from feedmap.converters import _duplicates, _filters
from feedmap.converters._duplicates import _freeze, _thaw
from feedmap.converters._unheld import report_unheld
from feedmap.formats._output import BlockBatches
from feedmap.formats.lines import _text

if TYPE_CHECKING:  # the plan is the run's: a worker does not load it
    from feedmap.converters._pipeline import Step

__all__ = ["Lane", "Left", "Lines", "lane_for", "lined", "worker_entries", "write_text"]

#: The environment variable that, set (not to ``0``), sends every conversion the plan's way (the text lane's).
LANE_OFF = "FEEDMAP_NO_LANE"

#: The fields a plain entry may hold besides its loc, and the bit of each in :attr:`Lines.masks`.
_FIELD_BITS = (("lastmod", 1), ("changefreq", 2), ("priority", 4))
_OTHER_FIELDS = ("title", "description", "keywords", "type", "images", "alternates", "news", "videos", "extras")


@dataclass(frozen=True, slots=True)
class Lane:
    """What a worker is told to do after reading (picklable): run the filters (``filters``), the web URL check,
    and send :class:`Lines`; ``name``: the run's own name, that of the steps' diagnostics; ``keep``: the locs
    are kept as read (``keep_urls``), so any loc is written as it is."""

    name: str
    filters: bool
    keep: bool


class Lines(NamedTuple):
    """A batch of entries as a worker sends it in a lane: the source of its plain entries, their locs and lines;
    ``fields``: the bits of the fields (:data:`_FIELD_BITS`) some plain entry holds, ``masks`` those of each (None
    when each holds ``fields``); ``others``: every other entry, frozen, with its place in the batch."""

    source: str | None
    locs: list[str]
    lines: list[int]
    fields: int
    masks: list[int] | None
    others: list[tuple[int, tuple[Any, ...]]]


#: What the filters left out of one child (and kept without a lastmod), sent when its reading ends.
Left = _filters.Left


def lane_for(doc: Document, steps: list[Step], target: str, split: bool, ctx: Context) -> Lane | None:
    """The lane for the conversion of ``doc`` by the plan ``steps`` writing ``target`` (split into a directory:
    ``split``), when it can run it (see the module's docstring); None: the plan's steps run."""
    from feedmap._web.follow import following_of  # follow imports partitions, which imports this module
    from feedmap._web.partitions import worker_count
    from feedmap.converters._pipeline import on_entries

    options = ctx.options
    if os.environ.get(LANE_OFF, "0") not in ("", "0") or target != "text" or split or options.encode_urls:
        return None
    if following_of(doc) is None or (options.dask is None and worker_count(options.jobs) < 2):
        return None
    filters = bool(steps) and steps[0] == on_entries(_filters.filter_entries)
    if filters and options.strict:
        return None
    if steps[filters:] != _planned():
        return None
    if filters:  # what the filters' step refuses when it is called (re.error, ValueError), refused here
        _filters.compile_patterns((*options.include, *options.exclude))
        _filters.check_bounds(options.since, options.until)
    return Lane(ctx.name, filters, options.keep_urls)


def _planned() -> list[Step]:
    """The plan's steps for a text sitemap after the filters, when nothing else is asked."""
    from feedmap.converters._pipeline import on_entries

    return [
        on_entries(entry_checks.check_web_urls, xml=False, parts=False),
        on_entries(_duplicates.report_duplicates, drop=True),
    ]


def worker_entries(entries: Iterable[Entry], lane: Lane, ctx: Context, left: list[Left]) -> Iterator[Entry]:
    """The entries the stateless steps keep (a worker's; ``ctx``: the run's name, the worker's reporter); what the
    filters left out is appended to ``left`` when reading ends, or stops."""
    if lane.filters:
        entries = _filtered(entries, ctx, left)
    return entry_checks.check_web_urls(entries, ctx, xml=False, parts=False)


def _filtered(entries: Iterable[Entry], ctx: Context, left: list[Left]) -> Iterator[Entry]:
    """:func:`feedmap.converters.filter_entries` counting instead of reporting (the run reports the sums)."""
    counts = Left()
    try:
        yield from _filters.counted_filter(entries, ctx, counts)
    finally:
        left.append(counts)


def lined(batch: list[Entry], keep: bool) -> Lines:
    """A batch of entries (read, filtered, checked) as :class:`Lines`."""
    plain = _all_plain(batch, keep)
    if plain is not None:
        return plain
    first = batch[0].origin
    source = first.source if first is not None else None
    written = _ascii if keep else is_uri  # a URI holds printable ASCII only
    locs: list[str] = []
    lines: list[int] = []
    masks: list[int] = []
    others: list[tuple[int, tuple[Any, ...]]] = []
    for place, entry in enumerate(batch):
        origin, loc = entry.origin, entry.loc
        if origin is None or origin.source != source or _others(entry) != _NO_OTHERS or not written(loc):
            others.append((place, _freeze(entry)))
            continue
        locs.append(loc)
        lines.append(origin.line)
        lastmod, changefreq, priority = _plain_fields(entry)
        mask = 1 if lastmod else 0  # a value as the watch of the fields sees one: a priority of 0.0 is none
        if changefreq:
            mask |= 2
        if priority:
            mask |= 4
        masks.append(mask)
    fields = _ored(masks)
    uniform = masks.count(fields) == len(masks)
    return Lines(source, locs, lines, fields, None if uniform else masks, others)


def _all_plain(batch: list[Entry], keep: bool) -> Lines | None:
    """:func:`lined` of a batch whose every entry is plain (nearly every batch), column by column instead of one
    entry at a time; None when one is not (then each is looked at)."""
    origins = list(map(_origin, batch))
    first = origins[0]
    if first is None:
        return None
    try:
        if not all(map(operator.eq, map(_source, origins), itertools.repeat(first.source))):
            return None
    except AttributeError:  # an origin None
        return None
    if not all(map(operator.eq, map(_others, batch), itertools.repeat(_NO_OTHERS))):
        return None
    locs = list(map(_loc, batch))
    if keep:
        if not ("".join(locs).isascii() and all(map(str.isprintable, locs))):
            return None
    elif not all_uris(locs, "\n".join(locs)):  # what lined asks of each loc, in a few calls
        return None
    counts = [sum(map(bool, map(getter, batch))) for getter in _FIELD_GETTERS]
    fields = sum(bit for (_name, bit), count in zip(_FIELD_BITS, counts, strict=True) if count)
    if all(count in (0, len(batch)) for count in counts):  # the same fields in each entry
        masks = None
    else:
        masks = [
            (1 if lastmod else 0) | (2 if changefreq else 0) | (4 if priority else 0)
            for lastmod, changefreq, priority in map(_plain_fields, batch)
        ]
    return Lines(first.source, locs, list(map(_line, origins)), fields, masks, [])


_origin = operator.attrgetter("origin")
_source = operator.attrgetter("source")
_loc = operator.attrgetter("loc")
_line = operator.attrgetter("line")
_FIELD_GETTERS = tuple(operator.attrgetter(name) for name, _bit in _FIELD_BITS)
_others = operator.attrgetter(*_OTHER_FIELDS)
_NO_OTHERS: tuple[object, ...] = (None, None, (), None, (), (), None, (), {})
_plain_fields = operator.attrgetter(*(name for name, _bit in _FIELD_BITS))


def _ascii(loc: str) -> bool:
    return loc.isascii() and loc.isprintable()


class _Run:
    """The run's side of the lane: the steps that span the children, then the writer (see :func:`write_text`)."""

    def __init__(self, lane: Lane, ctx: Context, out: BlockBatches) -> None:
        self.ctx, self.out = ctx, out
        self.lane = lane
        self.seen = SeenKeys()  # loc as written -> 0, as report_duplicates keeps it
        self.repeats = _duplicates._Repeats("first repeated here")
        self.written = _duplicates.url_key(ctx.options)
        self.bits = 0  # the fields of _FIELD_BITS found in what was written
        self.found: set[str] = set()  # the fields found in entries written whole
        self.filtered = Left(dated=ctx.options.since is not None or ctx.options.until is not None)

    def lines(self, item: Lines) -> None:
        """A batch of plain entries (and entries sent whole, each at its place)."""
        if item.others:
            self.mixed(item)
            return
        kept = self.seen.add_block(item.locs, 0)
        if kept is None:  # nearly every batch: no repeat
            self.out.add_lines(item.locs)
            self.bits |= item.fields
            return
        source, masks = item.source or "", item.masks or itertools.repeat(item.fields)
        written: list[str] = []
        for loc, line, new, mask in zip(item.locs, item.lines, kept, masks, strict=False):
            if new:
                written.append(loc)
                self.bits |= mask
            else:
                self.repeats.add(loc, lambda: (source, line))  # noqa: B023 (called at once)
        self.out.add_lines(written)

    def mixed(self, item: Lines) -> None:
        """A batch with entries sent whole: each entry at its place, one by one."""
        others = iter(item.others)
        other = next(others, None)
        plain = zip(item.locs, item.lines, item.masks or itertools.repeat(item.fields), strict=False)
        source = item.source or ""
        for place in range(len(item.locs) + len(item.others)):
            if other is not None and other[0] == place:
                self.entry(_thaw(other[1]))
                other = next(others, None)
                continue
            loc, line, mask = next(plain)
            if self.seen.add_new(loc, 0):
                self.bits |= mask
                self.out.add(loc + "\n")
            else:
                self.repeats.add(loc, lambda: (source, line))  # noqa: B023 (called at once)

    def entry(self, entry: Entry) -> None:
        """One entry after the stateless steps: the plan's repeats step, the fields watched, the writer's line."""
        key = self.written(entry.loc)
        if not self.seen.add_new(key, 0):
            self.repeats.add(key, lambda: where(entry, self.ctx))
            return
        for name in ENTRY_FIELDS[1:]:
            if getattr(entry, name):
                self.found.add(name)
        line = _text.line_of(entry, self.ctx, False)
        if line is not None:
            self.out.add(line)

    def read_here(self, entry: Entry) -> None:
        """An entry the run read itself: the stateless steps first, as a worker runs them."""
        left: list[Left] = []
        for kept in worker_entries((entry,), self.lane, self.ctx, left):
            self.entry(kept)
        for counts in left:
            self.left(counts)

    def left(self, left: Left) -> None:
        self.filtered = self.filtered.add(left)

    def filters_said(self) -> None:
        """What the filters say at the end, or when the run stops (:func:`feedmap.converters.filter_entries`)."""
        if self.lane.filters:
            _filters.report_left(self.filtered, self.ctx)

    def finish(self) -> None:
        """What the repeats step and the watch of the fields say at the end, in the plan's order."""
        self.seen.close()
        self.repeats.report(self.ctx, merged="the URL written once")
        found = self.found | {name for name, bit in _FIELD_BITS if self.bits & bit}
        if found:
            report_unheld(found, _text.FORMAT.name, self.ctx)


def _ored(masks: list[int]) -> int:
    bits = 0
    for mask in set(masks):
        bits |= mask
    return bits


def write_text(doc: Document, lane: Lane, sink: BinaryIO, ctx: Context) -> int:
    """The followed index ``doc`` written to ``sink`` as the plan's steps and the text writer write it, its
    children read by workers in ``lane``; the number of URLs written."""
    from feedmap._web.follow import following_of

    following = following_of(doc)
    assert following is not None
    out = _text.line_batches(sink, ctx)
    run = _Run(lane, ctx, out)
    try:
        items = following.lane_items(lane)
        try:  # a stop (an error here or in the walk, Ctrl-C) closes the walk: its workers stop, nothing more read
            for item in items:
                kind = type(item)
                if kind is Lines:
                    run.lines(item)
                elif kind is Left:
                    run.left(item)
                else:
                    run.read_here(item)
        finally:
            items.close()
            run.filters_said()
        run.finish()
    finally:
        run.seen.close()
    return _text.finish_lines(out, ctx)
