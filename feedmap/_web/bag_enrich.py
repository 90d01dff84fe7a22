"""``enrich`` of a Dask bag of entries: each host's pages fetched by one worker, with one HTTP client per worker.

The pages are read by the converters' own enrichment (:func:`feedmap.converters._enrich.enrich`: robots.txt
per RFC 9309, ``--delay`` between two requests to one host, caps, redirects, ``--map``), run by
:func:`enrich_pages` on a worker with that worker process's one :class:`~feedmap._io.http.Shared` (its HTTP
client, robots.txt cache, host gate and download threads: :func:`worker_shared`, one per process and ``enrich``
call, reused by every partition, closed when the worker stops).  Politeness holds across the cluster because
one worker fetches all the pages of a host (the host as :class:`~feedmap._io.http.Fetcher`'s gate knows it):

* each partition's task (:func:`enrich_part`, run wherever Dask puts it) groups its entries by host and hands
  each group to the host's worker: a task it submits from its worker (Dask's tasks from tasks:
  ``worker_client``) restricted to that worker (``workers=[owner]``, ``allow_other_workers=False``: Dask's work
  stealing would move a task with a loose restriction to an idle worker, and a host's pages would then be
  fetched by two workers at once);
* the host's worker is the cluster's worker that ranks first for the host by rendezvous hashing (the highest
  BLAKE2 digest of host and worker address, :func:`owner`): every partition's task finds the same one without
  asking anyone, and a worker joining or leaving moves only the hosts it ranks first for;
* a strict restriction to a worker that leaves would wait for it forever: the partition's task watches, every
  :data:`_WATCH` seconds, whether the host's worker is still in the cluster; if it left, it hands the group
  to the host's new worker (its pages fetched again, from the start of the group).  A partition's task whose
  own worker dies is computed again by Dask, as any task.

What politeness then means: while the cluster keeps its workers, a host's requests all leave one process,
spaced by ``--delay`` and at most ``concurrency`` at once, and its robots.txt is fetched once per worker (its
cache lives as long as the worker); when the host's worker leaves (or a worker joins that ranks first for
the host), the next worker starts with its own gate, so its first request may come sooner than ``--delay``
after the last one of the worker before, and the pages of the lost worker's unfinished groups are fetched
again.  On Dask's local scheduler (no ``distributed``), the pages are fetched in this process with one
:class:`Shared` for all partitions.

Diagnostics: each page's (``enrich-failed``, ``not-html``, ``robots-disallowed``, ``robots-truncated``) at
its entry's place, in entry order, as one run says them.  ``robots-truncated`` is said once per site and worker.
The summary (INFO ``enrich-summary``) is counted by each host's worker, added up by each partition's task (the
step's :class:`~feedmap._web.bag_steps.Closing`) and said once, summed, by the call that writes the bag.
"""

from __future__ import annotations

import atexit
import hashlib
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterator
from concurrent.futures import CancelledError
from typing import Any

from feedmap._core.context import Context, Options
from feedmap._core.errors import Diagnostic, Reporter
from feedmap._core.http_settings import HttpSettings
from feedmap._core.model import Entry
from feedmap._core.urls import origin
from feedmap._io.http import Shared
from feedmap._web.bag_steps import Stepped
from feedmap.converters._enrich_summary import PageTally

__all__ = ["enrich_pages", "enrich_part", "host_of", "owner", "worker_shared"]

#: Seconds between two looks at whether a host's worker is still in the cluster.
_WATCH = 1.0
#: ``Shared`` kept per process: those of the last few ``enrich`` calls (an older one is closed).
_KEPT = 8

_SHARED: OrderedDict[tuple[str, HttpSettings, int], Shared] = OrderedDict()
_LOCK = threading.Lock()
_CLOSING: list[bool] = []  # whether this process closes them at its end yet


def worker_shared(step: str, options: Options) -> Shared:
    """This process's :class:`Shared` for the ``enrich`` call ``step`` (made on first use)."""
    key = (step, options.http, max(1, options.concurrency))
    with _LOCK:
        shared = _SHARED.get(key)
        if shared is None:
            shared = _SHARED[key] = Shared()
            while len(_SHARED) > _KEPT:
                _SHARED.popitem(last=False)[1].close()
            if not _CLOSING:
                _CLOSING.append(True)
                _close_at_end()
        _SHARED.move_to_end(key)
        return shared


def _close_all() -> None:
    with _LOCK:
        kept = list(_SHARED.values())
        _SHARED.clear()
    for shared in kept:
        shared.close()


def _close_at_end() -> None:
    """Close this process's clients when its worker stops (a worker plugin), else when it exits."""
    atexit.register(_close_all)
    try:
        from distributed import WorkerPlugin, get_worker

        worker = get_worker()
    except (ImportError, ValueError):  # not a worker of a cluster
        return

    class _Closer(WorkerPlugin):
        def teardown(self, worker: Any) -> None:
            _close_all()

    worker.loop.add_callback(worker.plugin_add, plugin=_Closer(), name="feedmap-enrich-clients")


#: What the host's worker gives back: the entries enriched, each entry's diagnostics, and the summary's counts.
Pages = tuple[list[Entry], list[tuple[Diagnostic, ...]], PageTally]


def enrich_pages(entries: list[Entry], options: Options, step: str) -> Pages:
    """A worker: ``entries`` filled from their pages with this process's client; each entry's diagnostics, and what
    was done (counted, for the summary the client says once: :class:`~feedmap.converters._enrich.PageTally`)."""
    from feedmap.converters._enrich import enrich  # page reading: loaded when it runs

    said = Reporter(keep=1 << 62)
    ctx = Context(reporter=said, options=options)
    enriched: list[Entry] = []
    per_entry: list[tuple[Diagnostic, ...]] = []
    tally = PageTally()
    told = 0
    for entry in enrich(entries, ctx, worker_shared(step, options), tally):  # each entry's said just before it
        enriched.append(entry)
        per_entry.append(tuple(said.diagnostics[told:]))
        told = len(said.diagnostics)
    return enriched, per_entry, tally


def host_of(loc: str) -> str:
    """What a host's pages are grouped by: the host :class:`~feedmap._io.http.Fetcher`'s gate spaces requests to
    ("" for a loc with none: read where it is)."""
    try:
        return origin(loc)[1]
    except ValueError:
        return ""


def owner(host: str, workers: list[str]) -> str:
    """The worker that fetches ``host``'s pages: the first of ``workers`` by rendezvous hashing."""
    return max(workers, key=lambda worker: hashlib.blake2b(f"{host} {worker}".encode(), digest_size=8).digest())


def enrich_part(entries: list[Entry], options: Options, step: str, place: int) -> Stepped:
    """A worker: partition ``place``'s entries enriched, each host's by its worker (see the module's
    docstring); ``step``: the ``enrich`` call's name."""
    groups: dict[str, list[int]] = {}
    for place, entry in enumerate(entries):
        groups.setdefault(host_of(entry.loc), []).append(place)
    enriched: list[Entry] = list(entries)
    said: list[tuple[Diagnostic, ...]] = [()] * len(entries)
    tally = PageTally()
    for host, places in groups.items():
        done, per_entry, counted = _on_owner(host, [entries[one] for one in places], options, (step, place))
        tally = tally.add(counted)
        for one, entry, diagnostics in zip(places, done, per_entry, strict=True):
            enriched[one], said[one] = entry, diagnostics
    return Stepped(enriched, tuple(one for diagnostics in said for one in diagnostics), tally, options.strict)


def _on_owner(host: str, entries: list[Entry], options: Options, part: tuple[str, int]) -> Pages:
    """``entries`` (of ``host``) enriched by the host's worker; here when this is no worker of a cluster.
    ``part``: the ``enrich`` call and the partition (what names the task: a worker that keeps dying on it
    names the partition)."""
    step, place = part
    try:
        from distributed import get_worker, worker_client

        get_worker()
    except (ImportError, ValueError):  # Dask's local scheduler: this process fetches every page
        return enrich_pages(entries, options, step)
    with worker_client() as client:  # secedes: this thread does not hold a slot of the worker while it waits
        for attempt in _attempts(client, host):
            data = client.scatter([entries], workers=[attempt], hash=False)[0]
            key = (f"feedmap-pages-{uuid.uuid4().hex}", place)
            pages = client.submit(
                enrich_pages, data, options, step, workers=[attempt], allow_other_workers=False, key=key
            )
            result = _watched(client, pages, attempt)
            if result is not None:
                return result
    raise AssertionError("unreachable: the attempts end only with a result")  # pragma: no cover


def _attempts(client: Any, host: str) -> Iterator[str]:
    """The host's worker, then, each time it left the cluster, the host's worker among those left."""
    while True:
        workers = sorted(client.scheduler_info()["workers"])
        if workers:
            yield owner(host, workers)
        else:
            threading.Event().wait(_WATCH)  # no worker yet (all restarting): look again


def _watched(client: Any, pages: Any, worker: str) -> Pages | None:
    """The result of ``pages``, or None once ``worker`` (the only one allowed to run it) left the cluster: the
    task then waits for it forever, or is cancelled by Dask with the entries scattered to it."""
    while True:
        try:
            result: Pages = pages.result(timeout=_WATCH)
        except (TimeoutError, CancelledError):
            if worker in client.scheduler_info()["workers"]:
                if pages.cancelled():  # not for the worker's leaving: the computation was cancelled
                    raise
                continue
            pages.cancel()
            return None
        return result
