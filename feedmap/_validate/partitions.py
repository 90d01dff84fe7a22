"""``validate --jobs N``: an index's children on disk validated by worker processes, their findings replayed in order.

The walk of :func:`feedmap.validate` (:class:`feedmap._validate.report._Run`, the sitemaps.org 0.9 rules of
index following) stays in the run's process: which child is validated, once, in which order, with the
findings of the index that names it.  A child read from disk (a ``--map`` prefix or a ``file:`` URL) is handed
ahead of its turn to a worker (:class:`feedmap._web.partitions.Workers`), which validates it as the run would
(the same URL, scope, key, lineage and clock) into a spill of its findings; at its turn the run replays them
through its own handler (so ``ignore``, cut messages, counts and a strict reporter apply as without workers)
and adds its file and entry counts, and gives the pages the worker found (each with its hreflang alternates,
sent in batches: :class:`~feedmap._validate.return_links.PageBatches`) to the run's return links, in the order
they were read, as the run would have found them itself.  A child the walk then refuses (visited already, too
deep) is dropped unreplayed; a child that is an index is validated again by the run, which follows it.  Children
fetched over HTTP are validated by the run itself, as without workers.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from dataclasses import dataclass

from feedmap._core.context import Options
from feedmap._core.errors import Reporter
from feedmap._core.follow_rules import same_site_rule
from feedmap._web.discover import open_url
from feedmap._web.partitions import Spill, spill_file

__all__ = ["PAGES", "ChildCheck", "check_child"]

#: The tag of a worker's value that is a batch of pages (:class:`~feedmap._validate.return_links.PageBatches`).
PAGES = "hreflang pages"


@dataclass(frozen=True, slots=True)
class ChildCheck:
    """One child to validate, as the run would: its URL, its index's URL (the scope), its key and lineage."""

    url: str
    index_url: str | None
    key: str
    lineage: tuple[str, ...]
    options: Options
    now: dt.datetime


def check_child(check: ChildCheck, spill_path: str) -> str:
    """The worker: validate one child into the spill at ``spill_path`` (its findings, then its file and entry
    counts and the :class:`~feedmap._validate.report.FileFacts` of what it validated, or the error that stopped
    it, or that it is an index); returns the path."""
    from feedmap._validate.report import FileFacts, Report, _Run  # report imports this module
    from feedmap._validate.return_links import PageBatches

    with spill_file(spill_path) as out:
        spill = Spill(out)
        spill.start()
        report = Report()
        run = _Run(report, check.options, spill.diagnostic)
        run.now = check.now
        facts: list[FileFacts] = []
        run.on_file = facts.append
        pages = run.pages = PageBatches(lambda batch: spill.value((PAGES, batch)))
        try:
            with contextlib.closing(run.shared):
                opened_with = Reporter(handler=spill.diagnostic)
                rule = same_site_rule(check.index_url)
                with open_url(
                    check.url, check.options, run.shared, opened_with, check.options.max_bytes, rule
                ) as opened:
                    nested = run.file(opened, None, check.key, check.lineage)
        except Exception as exc:  # raised, or reported as the child's, where the run replays it
            pages.flush()
            spill.value((report.files, report.entries, tuple(facts)))
            spill.failed(exc)
        else:
            if nested is not None:
                spill.nested()
            else:
                pages.flush()
                spill.value((report.files, report.entries, tuple(facts)))
                spill.done()
    return spill_path
