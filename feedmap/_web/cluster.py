"""Index children read by the workers of a Dask cluster (``Options.dask``, ``--dask SCHEDULER``).

Spec: Dask's distributed scheduler (https://distributed.dask.org/en/stable/): a ``Client`` connected to a
scheduler submits tasks that the cluster's workers run, and a task whose worker is lost is run again on another
(up to the scheduler's ``allowed-failures``, 3 by default), then fails with ``KilledWorker``.

The partitions are those of ``--jobs`` (:mod:`feedmap._web.partitions`): the same :class:`Partition` read by
:func:`read_partition` into the same spill file, replayed by the run in input order at the child's turn; only
the pool that runs them differs, so what is written and said is that of ``jobs=1``, byte for byte.  A task is
submitted impure (each child read once, never taken from an earlier result), and its result is the spill's
path, so nothing but paths travels through the scheduler.

Files: a worker reads the run's input files and writes its spill into the run's temporary folder by path, so the
cluster's workers must see this machine's files at the same paths: a ``LocalCluster`` (``local:N``, started on
127.0.0.1 for the run and stopped after it), or workers on a shared file system with ``TMPDIR`` a shared folder.
The run checks that each worker sees its temporary folder, and imports the same feedmap, when it connects.

Faults: a worker lost while reading a child has the task run again by the scheduler; the spill is written anew
from its start, so the output is the same.  A child whose task keeps losing its worker (``KilledWorker``) is
:class:`~feedmap._web.partitions.WorkerDied`, naming the child, and the run stops with nothing published, as a
worker process that dies under ``--jobs``.  A scheduler that cannot be reached, a cluster without workers, or
Dask not installed is a :class:`~feedmap._core.errors.SourceError` saying what to do.
"""

from __future__ import annotations

import importlib
import logging
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from feedmap._core.errors import SourceError
from feedmap._core.scheduler import Scheduler, parse_scheduler
from feedmap._core.version import __version__ as VERSION
from feedmap._web.partitions import Workers, worker_count

__all__ = ["DaskPool", "DaskWorkers", "worker_facts"]

#: Seconds to wait for a scheduler to answer, and for a started cluster's workers to come up.
CONNECT_SECONDS = 30
_INSTALL = "pip install 'feedmap[dask]'"


def worker_facts(directory: str) -> tuple[str, bool]:
    """Run on each worker when the run connects: the feedmap it imports, and whether it sees ``directory``."""
    return VERSION, os.path.isdir(directory)


def _probe(address: str) -> None:
    """SourceError at once when nothing listens at the scheduler's ``address`` (Dask's client would try again
    and again until its timeout, 30 s, before saying so)."""
    host, _, port = address.split("://", 1)[1].rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS):
            pass
    except OSError as exc:
        raise SourceError(
            f"Dask scheduler {address}: cannot be reached ({exc.strerror or exc}); start it "
            "(dask scheduler), or ask for local:N, a cluster of this machine"
        ) from None


class DaskPool:
    """What :class:`~feedmap._web.partitions.Workers` asks of a pool (``submit``, ``shutdown``), on a Dask
    ``Client``: a task's outcome as a :class:`concurrent.futures.Future`, a lost worker's as
    :class:`BrokenProcessPool` (which the run says as :class:`~feedmap._web.partitions.WorkerDied`)."""

    def __init__(self, scheduler: Scheduler, directory: str) -> None:
        try:  # typed as Any: Dask is an extra, and its API is untyped
            distributed: Any = importlib.import_module("distributed")
        except ImportError:
            raise SourceError(f"reading on a Dask cluster needs Dask installed: {_INSTALL}") from None
        self._killed: type[BaseException] = distributed.KilledWorker
        self._cluster: Any = None
        self._lock = threading.Lock()
        self._pending: set[Any] = set()
        address = scheduler.address
        if address is not None:
            _probe(address)
        try:
            if address is None:
                scratch = os.path.join(directory, "dask")  # the cluster's own folder, removed with the run's
                with importlib.import_module("dask").config.set({"temporary-directory": scratch}):
                    self._cluster = distributed.LocalCluster(
                        n_workers=scheduler.local,
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        scheduler_port=0,
                        dashboard_address=":0",  # the HTTP server on a free port: 8787 may be taken
                        worker_dashboard_address=None,
                        silence_logs=logging.ERROR,
                        local_directory=scratch,
                    )
                address = self._cluster.scheduler_address
            self._client: Any = distributed.Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            self._close_cluster()
            where = address or f"local:{scheduler.local}"
            raise SourceError(
                f"Dask scheduler {where}: cannot be reached ({exc or type(exc).__name__}); start it "
                "(dask scheduler), or ask for local:N, a cluster of this machine"
            ) from None
        try:
            self.count = self._check(address, directory)
        except BaseException:
            self.shutdown()
            raise

    def _check(self, address: str, directory: str) -> int:
        """The worker threads of the cluster; SourceError for a cluster this run cannot use."""
        self._client.wait_for_workers(1, timeout=CONNECT_SECONDS)
        threads = sum(self._client.nthreads().values())
        try:
            facts: dict[str, tuple[str, bool]] = self._client.run(worker_facts, directory)
        except ImportError as exc:
            raise SourceError(
                f"Dask scheduler {address}: a worker cannot import feedmap ({exc}): {_INSTALL} on it"
            ) from None
        for worker, (version, sees) in sorted(facts.items()):
            if version != VERSION:
                raise SourceError(
                    f"Dask scheduler {address}: worker {worker} runs feedmap {version}, this run {VERSION}: "
                    "install the same feedmap on the cluster's workers"
                )
            if not sees:
                raise SourceError(
                    f"Dask scheduler {address}: worker {worker} does not see this run's temporary folder {directory}: "
                    "the workers read the inputs and write their results by path, so they need this machine's "
                    "files (a cluster of this machine, or a shared file system with TMPDIR set to a shared folder)"
                )
        return max(1, int(threads))

    def submit(self, function: Callable[..., str], /, *arguments: Any) -> Future[str]:
        """``function(*arguments)`` run by a worker of the cluster."""
        outcome: Future[str] = Future()
        task = self._client.submit(function, *arguments, pure=False)
        with self._lock:
            self._pending.add(task)
        task.add_done_callback(lambda done: self._settle(done, outcome))
        return outcome

    def _settle(self, task: Any, outcome: Future[str]) -> None:
        with self._lock:
            self._pending.discard(task)
        if task.cancelled():
            outcome.cancel()
            return
        try:
            outcome.set_result(task.result())
        except self._killed as exc:  # the task lost its worker more often than the scheduler allows
            outcome.set_exception(BrokenProcessPool(str(exc)))
        except BaseException as exc:
            outcome.set_exception(exc)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Cancel the tasks not finished, disconnect, stop a cluster started for the run."""
        with self._lock:
            pending, self._pending = list(self._pending), set()
        client, self._client = self._client, None
        if client is not None:
            if pending and cancel_futures:
                client.cancel(pending, force=True)
            client.close()
        self._close_cluster()

    def _close_cluster(self) -> None:
        cluster, self._cluster = self._cluster, None
        if cluster is not None:
            cluster.close()


class DaskWorkers(Workers):
    """:class:`~feedmap._web.partitions.Workers` whose pool is a Dask cluster (``scheduler``: as ``--dask``
    takes it), connected when first needed (the count of its worker threads, or a child to read)."""

    def __init__(self, scheduler: str) -> None:
        super().__init__(1)
        self._scheduler = parse_scheduler(scheduler, worker_count(0))
        self._dask: DaskPool | None = None

    @property
    def count(self) -> int:
        return self._connected()[0].count

    def close(self) -> None:
        super().close()
        self._dask = None

    def _connected(self) -> tuple[DaskPool, str]:
        if self._dask is None or self._directory is None:
            directory = tempfile.mkdtemp(prefix="feedmap-jobs-")
            try:
                self._dask = DaskPool(self._scheduler, directory)
            except BaseException:
                shutil.rmtree(directory, ignore_errors=True)
                raise
            self._pool, self._directory = self._dask, directory
        return self._dask, self._directory

    def _start(self) -> tuple[Any, str]:
        return self._connected()
