"""``dedupe`` of a Dask bag of entries: each URL once across partitions, decided by the workers in buckets of URLs.

One run's rule (:func:`feedmap.converters._duplicates.dedupe`, sitemaps.org 0.9 lists a URL once): each URL
once, at the place of its first occurrence, the entry ``options.dedupe`` keeps there (``first``; ``last``;
``newest``, the default: the newest lastmod, ties to the earlier), the URL keyed as an XML output writes it
(:func:`~feedmap.converters._duplicates.url_key`).  Across partitions it takes three rounds of tasks, a bounded
number of them (``buckets``: ``P * buckets`` small slices each way for ``P`` partitions, so the graph stays
small), none on the client:

1. each partition spreads its entries over the buckets by a stable hash of their URL key (:func:`spread`:
   CRC-32, the same in every process, unlike Python's ``hash``), with their places in the partition;
2. each bucket takes its share of every partition in partition order, which is the order of the input, and
   keeps, per URL, its first place and the entry the policy keeps (:func:`decide`: the policy's own
   ``replaces``, :func:`~feedmap.converters._duplicates.dedupe_policy`); what it says of each partition is a
   :class:`Verdict`: the places dropped (the repeats), and the places whose entry is replaced by a later
   occurrence's (``last``, ``newest``) with that entry;
3. each partition applies the verdicts of every bucket (:func:`kept_part`): its entries in order, the repeats
   left out, the entries kept moved to their URL's first place.  The output is one run's, partition by
   partition in order.

The repeats are said as one run says them (``loc-duplicate`` for the first
:data:`~feedmap.converters._duplicates.LISTED_REPEATS` repeated URLs in the order of their first repeat, with
their count and the line of their first occurrence, or of their first repeat for ``first``; then
``more-duplicates`` and ``duplicates-merged``): each bucket lists its first repeated URLs with the place of
their first repeat (:class:`Repeated`, a :class:`~feedmap._web.bag_steps.Closing`), and the client keeps the
first of all the buckets' lists (a URL among the first overall is among the first of its bucket, all its
occurrences being there).

Memory: a bucket holds its share of every partition at once (Dask gives a task all its inputs), as entries:
about ``N / buckets`` entries for ``N`` in the bag, each with a table slot (its URL key, places and the entry
kept, some 200 bytes beyond the entry); raise ``buckets`` for a larger bag.  The partitions themselves are
held by the workers from the first round to the third.
"""

from __future__ import annotations

import importlib
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from feedmap._core.context import Context, Options
from feedmap._core.entry_checks import where
from feedmap._core.errors import Reporter
from feedmap._core.model import Entry
from feedmap._web.bag_steps import Stepped
from feedmap._web.partitions import Packed, packed, unpacked
from feedmap.converters._duplicates import LISTED_REPEATS, _Repeats, dedupe_policy, url_key

__all__ = ["BUCKETS", "Repeated", "Verdict", "decide", "dedupe_graph", "kept_part", "spread"]

#: Buckets of URLs at most, when not given: the graph has ``2 * P * BUCKETS`` small slicing tasks.
BUCKETS = 16

_DELAYED: Any = importlib.import_module("dask.delayed")

#: A place in the input: (partition, place in the partition).
Place = tuple[int, int]


def _bucket(key: str, buckets: int) -> int:
    return zlib.crc32(key.encode("utf-8", "surrogatepass")) % buckets


def spread(entries: list[Entry], options: Options, buckets: int) -> list[tuple[list[int], Packed | None]]:
    """A worker: the entries of one partition by bucket, each bucket's with their places in the partition."""
    key = url_key(options)
    places: list[list[int]] = [[] for _ in range(buckets)]
    chosen: list[list[Entry]] = [[] for _ in range(buckets)]
    for place, entry in enumerate(entries):
        bucket = _bucket(key(entry.loc), buckets)
        places[bucket].append(place)
        chosen[bucket].append(entry)
    return [(places[one], packed(chosen[one]) if chosen[one] else None) for one in range(buckets)]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a bucket says of one partition's entries in it."""

    #: The places left out: repeats of a URL first seen before.
    dropped: list[int] = field(default_factory=list)
    #: The places (a URL's first) whose entry is replaced by a later occurrence's, and those entries.
    replaced: list[int] = field(default_factory=list)
    entries: Packed | None = None


@dataclass(frozen=True, slots=True)
class Repeated:
    """The repeated URLs of some buckets, to report as one run does (see the module's docstring)."""

    where: str
    kept_what: str
    #: The first repeated URLs: (place of the first repeat, URL as written, count, source, line), in order.
    listed: list[tuple[Place, str, int, str, int]]
    #: Every repeat (a URL's occurrences after its first).
    total: int

    def add(self, other: Repeated, /) -> Repeated:
        listed = sorted(self.listed + other.listed, key=lambda one: one[0])[:LISTED_REPEATS]
        return Repeated(self.where, self.kept_what, listed, self.total + other.total)

    def report(self, ctx: Context) -> None:
        repeats = _Repeats(self.where)
        for _, loc, count, source, line in self.listed:
            repeats.seen[loc] = [count, source, line]
        repeats.total = self.total
        repeats.unlisted = self.total - sum(count - 1 for _, _, count, _, _ in self.listed)
        repeats.report(ctx, merged=self.kept_what)


def decide(shares: list[tuple[list[int], Packed | None]], options: Options) -> list[Any]:
    """A worker: one bucket's share of every partition (``shares``, in partition order) deduplicated by
    ``options.dedupe``; the :class:`Verdict` of each partition, then the bucket's :class:`Repeated`."""
    policy = dedupe_policy(options.dedupe)
    key = url_key(options)
    ctx = Context(reporter=Reporter(keep=0), options=options)
    table: dict[str, list[Any]] = {}  # URL as written -> [first place, entry kept, place kept]
    repeats = _Repeats(policy.where)
    first_repeats: dict[str, Place] = {}
    dropped: list[list[int]] = [[] for _ in shares]
    for part, (places, batch) in enumerate(shares):
        for place, entry in zip(places, unpacked(batch) if batch is not None else (), strict=True):
            loc = key(entry.loc)
            record = table.get(loc)
            if record is None:
                table[loc] = [(part, place), entry, (part, place)]
                continue
            dropped[part].append(place)
            before = len(repeats.seen)
            told = record[1] if policy.replaces is not None else entry  # the first occurrence, or this repeat
            repeats.add(loc, partial(where, told, ctx))
            if len(repeats.seen) > before:
                first_repeats[loc] = (part, place)
            if policy.replaces is not None and policy.replaces(entry, record[1]):
                record[1], record[2] = entry, (part, place)
    verdicts = _verdicts(table, dropped)
    listed = [(first_repeats[loc], loc, count, source, line) for loc, (count, source, line) in repeats.seen.items()]
    return [*verdicts, Repeated(policy.where, policy.kept_what, listed, repeats.total)]


def _verdicts(table: dict[str, list[Any]], dropped: list[list[int]]) -> list[Verdict]:
    replaced: list[list[int]] = [[] for _ in dropped]
    entries: list[list[Entry]] = [[] for _ in dropped]
    for first, entry, kept in table.values():
        if kept != first:
            replaced[first[0]].append(first[1])
            entries[first[0]].append(entry)
    return [
        Verdict(dropped[part], replaced[part], packed(entries[part]) if entries[part] else None)
        for part in range(len(dropped))
    ]


def kept_part(entries: list[Entry], verdicts: list[Verdict], repeated: Repeated | None, strict: bool) -> Stepped:
    """A worker: one partition's entries as the buckets' verdicts leave them (see the module's docstring)."""
    dropped: set[int] = set()
    replaced: dict[int, Entry] = {}
    for verdict in verdicts:
        dropped.update(verdict.dropped)
        if verdict.entries is not None:
            replaced.update(zip(verdict.replaced, unpacked(verdict.entries), strict=True))
    if not dropped and not replaced:
        return Stepped(entries, (), repeated, strict)
    kept = [replaced.get(place, entry) for place, entry in enumerate(entries) if place not in dropped]
    return Stepped(kept, (), repeated, strict)


def dedupe_graph(parts: list[Any], options: Options, buckets: int) -> Callable[[Any, int, tuple[str, int]], Any]:
    """The tasks of the first two rounds over ``parts`` (the bag's partitions, delayed), and the step of the
    third for :func:`feedmap._web.bag_steps.stepped_bag` (``step(partition, i, key)``)."""
    name = f"feedmap-dedupe-{uuid.uuid4().hex}"
    delayed = _DELAYED.delayed
    spreads = [
        delayed(spread, pure=True)(part, options, buckets, dask_key_name=(f"{name}-spread", i))
        for i, part in enumerate(parts)
    ]
    decided = [
        delayed(decide, pure=True)([one[bucket] for one in spreads], options, dask_key_name=f"{name}-bucket-{bucket}")
        for bucket in range(buckets)
    ]

    def step(part: Any, place: int, key: tuple[str, int]) -> Any:
        verdicts = [one[place] for one in decided]
        repeated = decided[place][len(parts)] if place < buckets else None  # bucket i's repeats in partition i
        return delayed(kept_part, pure=True)(part, verdicts, repeated, options.strict, dask_key_name=key)

    return step
