"""The steps of :mod:`feedmap.converters` as partition operations of a Dask bag of entries (:mod:`feedmap.dask`).

A step of a bag runs, on the workers, the implementation :func:`feedmap.convert` runs (one implementation of
each step: :mod:`feedmap.converters._filters`, ``_duplicates``, ``_sort``, ``_enrich``) on each partition.  What
one run reports at once, the step gives back beside the partition's entries: a :class:`Stepped`, computed by a
task whose key is ``(step name, partition number)``, the step name ``feedmap-step-NNNNNNNNN-KIND-UUID`` (the
number orders the steps of one process as they were applied).  The calls that bring a bag to the client
(:func:`feedmap.dask.write_split`, :func:`~feedmap.dask.entries`, :func:`~feedmap.dask.to_jsonl`) find those keys
in the graph as they find the reads' (``feedmap-read-``), compute each partition's :class:`Stepped` without its
entries (:func:`summary_of`) with the partition, and report its diagnostics in partition order after the
partition's reading's, under the step's ``strict``.  What a step says once for the whole input (the filters'
counts, the repeated URLs) is a :class:`Closing` each partition carries part of: the client adds them up in
partition order and reports the sum where one run says it.

The kinds: ``filter`` (here: :func:`filter_part`, counting with
:func:`feedmap.converters._filters.counted_filter`), ``dedupe`` (:mod:`feedmap._web.bag_dedupe`: buckets of
URLs across partitions), ``sort`` (:mod:`feedmap._web.bag_order`: each partition sorted by its worker, merged by
the client) and ``enrich`` (:mod:`feedmap._web.bag_enrich`: each host's pages fetched by one worker).  ``dedupe``
and ``sort`` need every partition before the first can be written (:data:`WHOLE`): a bag holding them is
computed in one submission, its partitions held by the workers until the client takes them.
"""

from __future__ import annotations

import importlib
import itertools
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from feedmap._core.context import Context, Options
from feedmap._core.errors import Diagnostic
from feedmap._core.model import Entry
from feedmap.converters._filters import Left, check_bounds, counted_filter, report_left

if TYPE_CHECKING:
    from dask.bag import Bag

__all__ = [
    "DEDUPE",
    "ENRICH",
    "FILTER",
    "SORT",
    "STEP",
    "WHOLE",
    "Closing",
    "Filtered",
    "Stepped",
    "check_filters",
    "entries_of",
    "filter_part",
    "step_kind",
    "stepped_bag",
    "steps_in",
    "summary_of",
]

#: The start of a step task's key name (see the module's docstring).
STEP = "feedmap-step-"
FILTER, DEDUPE, SORT, ENRICH = "filter", "dedupe", "sort", "enrich"
#: The steps that need every partition before the first is written: the bag is computed in one submission.
WHOLE = frozenset({DEDUPE, SORT})

_SEQUENCE = itertools.count()
_BAGS: Any = importlib.import_module("dask.bag")
_DELAYED: Any = importlib.import_module("dask.delayed")


class Closing(Protocol):
    """What a step says once for the whole input, a part of it carried by each partition (see the module)."""

    def add(self, other: Any, /) -> Closing:
        """These and then ``other``'s (those of the partitions after these)."""

    def report(self, ctx: Context) -> None:
        """Say it, as one run does at the end of the step's input."""


@dataclass(frozen=True, slots=True)
class Stepped:
    """What a step gave for one partition: its entries, what it said of them in order, its part of the
    step's :class:`Closing`, and whether the step was strict (its warnings then stop the run at the client)."""

    entries: list[Entry]
    diagnostics: tuple[Diagnostic, ...] = ()
    closing: Closing | None = None
    strict: bool = False
    #: A sort's ``options.sort``: the partitions are each in that order, and merged by the client.
    order: str | None = None


def entries_of(stepped: Stepped) -> list[Entry]:
    """The partition a step made (what the bag holds)."""
    return stepped.entries


def summary_of(stepped: Stepped) -> Stepped:
    """What the client needs of a step's partition besides its entries."""
    return replace(stepped, entries=[])


def step_kind(name: str) -> str:
    """The kind of the step whose key name is ``name``."""
    return name[len(STEP) :].split("-")[1]


def steps_in(bag: Bag) -> list[str]:
    """The names of the steps applied to ``bag``, in the order they were applied."""
    graph = bag.__dask_graph__()
    names = {key[0] for key in graph if isinstance(key, tuple) and isinstance(key[0], str) and key[0].startswith(STEP)}
    return sorted(names)


def stepped_bag(bag: Bag, kind: str, step: Callable[[Any, int, tuple[str, int]], Any]) -> Bag:
    """A new bag: ``step(partition, i, key)`` (a Dask delayed :class:`Stepped`, keyed ``key``) of each partition
    ``i`` of ``bag``, the partitions its entries.  A step after a sort that needs the partitions' order is
    refused (the partitions of a sorted bag are in order only once merged)."""
    if kind in (DEDUPE, SORT) and any(step_kind(name) == SORT for name in steps_in(bag)):
        raise ValueError(
            f"{kind} after sort_entries: a sorted bag is in order only once its partitions are merged by the "
            f"call that writes it; {kind} the bag before sorting it, as one run does (filters, dedupe, then sort)"
        )
    name = f"{STEP}{next(_SEQUENCE):09d}-{kind}-{uuid.uuid4().hex}"
    parts = _BAGS.Bag.to_delayed(bag, optimize_graph=False)
    steps = [step(part, i, (name, i)) for i, part in enumerate(parts)]
    stepped: Bag = _BAGS.from_delayed([_DELAYED.delayed(entries_of, pure=True)(one) for one in steps])
    return stepped


# --- filters ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Filtered:
    """The filters' counts (:class:`~feedmap.converters._filters.Left`), a :class:`Closing`."""

    left: Left

    def add(self, other: Filtered, /) -> Filtered:
        return Filtered(self.left.add(other.left))

    def report(self, ctx: Context) -> None:
        report_left(self.left, ctx)


def check_filters(options: Options) -> None:
    """What :func:`feedmap.converters.filter_entries` refuses at the call, refused at the bag's call: bounds
    the wrong way round (the patterns were compiled when the options were made)."""
    check_bounds(options.since, options.until)


def filter_part(entries: list[Entry], options: Options) -> Stepped:
    """A worker: the entries of one partition the filters keep, and what they left out (counted, not said)."""
    from feedmap._core.errors import Reporter

    left = Left()
    ctx = Context(reporter=Reporter(keep=0), options=options)
    kept = list(counted_filter(entries, ctx, left))
    return Stepped(kept, (), Filtered(left), options.strict)
