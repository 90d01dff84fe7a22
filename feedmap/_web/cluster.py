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
Paths are sent absolute (a worker runs in a working folder of its own).  The run checks that each worker there
when it connects sees its temporary folder and imports the same feedmap (a worker joining later is not asked).

Faults: a worker lost while reading a child has the task run again by the scheduler; each attempt writes a file
of its own, renamed over the spill once whole, so the output is the same.  A child whose task keeps losing its
worker (``KilledWorker``) is :class:`~feedmap._web.partitions.WorkerDied`, naming the child, and the run stops
with nothing published, as a worker process that dies under ``--jobs``; so does a scheduler lost mid-run.  A
scheduler that cannot be reached (nothing listening: at once; no answer: in 5 s), a cluster without workers
(after Dask's connect timeout, ``distributed.comm.timeouts.connect``), a worker without feedmap, or Dask not
installed is a :class:`~feedmap._core.errors.SourceError` saying what to do.  ``local:N`` workers ignore Ctrl-C:
the run stops them.
"""

from __future__ import annotations

import contextlib
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
from feedmap._web.partitions import WorkerDied, Workers, worker_count

__all__ = ["DaskPool", "DaskWorkers"]

#: Seconds to wait for something to listen at a scheduler's address.
PROBE_SECONDS = 5
_INSTALL = "pip install 'feedmap[dask]'"


def _facts(directory: str) -> Callable[[], tuple[str, bool]]:
    """What each worker is asked when the run connects: the feedmap it imports and whether it sees ``directory``.
    A closure, so sent by value: a worker without feedmap (or with an old one) answers with the ImportError."""

    def facts() -> tuple[str, bool]:
        from feedmap._core.version import __version__

        return __version__, os.path.isdir(directory)

    return facts


def _connect_seconds(dask: Any) -> float:
    """Dask's own time to connect (``distributed.comm.timeouts.connect``, 30 s unless configured): how long the
    run waits for the scheduler to answer and for a first worker to join."""
    seconds = dask.utils.parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), default="seconds")
    return float(seconds)


def _probe(address: str) -> None:
    """SourceError at once when nothing listens at the scheduler's ``address`` (Dask's client would try again
    and again until its timeout before saying so)."""
    host, _, port = address.split("://", 1)[1].rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS):
            pass
    except OSError as exc:
        raise SourceError(
            f"Dask scheduler {address}: cannot be reached ({exc.strerror or exc}); start it "
            "(dask scheduler), or ask for local:N, a cluster of this machine"
        ) from None


class DaskPool:
    """What :class:`~feedmap._web.partitions.Workers` asks of a pool (``submit``, ``shutdown``), on a Dask
    ``Client``: a task's outcome as a :class:`concurrent.futures.Future`, a lost worker's as
    :class:`BrokenProcessPool` (which the run says as :class:`~feedmap._web.partitions.WorkerDied`), a lost
    scheduler's as a SourceError."""

    def __init__(self, scheduler: Scheduler, directory: str) -> None:
        try:  # typed as Any: Dask is an extra, and its API is untyped
            distributed: Any = importlib.import_module("distributed")
            dask: Any = importlib.import_module("dask")
        except ImportError:
            raise SourceError(f"reading on a Dask cluster needs Dask installed: {_INSTALL}") from None
        self._killed: type[BaseException] = distributed.KilledWorker
        self._cluster: Any = None
        self._client: Any = None
        self._closing = False
        self._lock = threading.Lock()
        self._pending: set[Any] = set()
        seconds = _connect_seconds(dask)
        address = scheduler.address
        self._where = address or f"local:{scheduler.local}"
        try:
            if address is None:
                scratch = os.path.join(directory, "dask")  # the cluster's own folder, removed with the run's
                with dask.config.set({"temporary-directory": scratch}):
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
                        preload=["feedmap._web.cluster_worker"],
                    )
                address = self._cluster.scheduler_address
            else:
                _probe(address)
            self._client = distributed.Client(address, timeout=seconds, set_as_default=False)
            self.count = self._check(directory, seconds)
        except SourceError:
            self.shutdown()
            raise
        except Exception as exc:  # Dask's own (a timeout, a comm or TLS error): said, the cluster stopped
            self.shutdown()
            raise SourceError(
                f"Dask scheduler {self._where}: cannot be used ({type(exc).__name__}: {exc}); start it "
                "(dask scheduler) with its workers, or ask for local:N, a cluster of this machine"
            ) from None

    def _check(self, directory: str, seconds: float) -> int:
        """The worker threads of the cluster; SourceError for a cluster this run cannot use (checked: the
        workers there when it connects)."""
        try:
            self._client.wait_for_workers(1, timeout=seconds)
        except TimeoutError:
            raise SourceError(
                f"Dask scheduler {self._where}: no worker joined in {seconds:g} s; start some (dask worker "
                f"{self._where})"
            ) from None
        threads = sum(self._client.nthreads().values())
        facts: dict[str, Any] = self._client.run(_facts(directory), on_error="return")
        for worker, answer in sorted(facts.items()):
            if isinstance(answer, BaseException):
                raise SourceError(
                    f"Dask scheduler {self._where}: worker {worker} cannot run feedmap's reading ({answer}): "
                    f"install feedmap {VERSION} there ({_INSTALL})"
                )
            version, sees = answer
            if version != VERSION:
                raise SourceError(
                    f"Dask scheduler {self._where}: worker {worker} runs feedmap {version}, this run {VERSION}: "
                    "install the same feedmap on the cluster's workers"
                )
            if not sees:
                raise SourceError(
                    f"Dask scheduler {self._where}: worker {worker} does not see this run's temporary folder "
                    f"{directory}: the workers read the inputs and write their results by path, so they need "
                    "this machine's files (a cluster of this machine, or a shared file system with TMPDIR set "
                    "to a shared folder)"
                )
        return max(1, int(threads))

    def submit(self, function: Callable[..., str], /, *arguments: Any) -> Future[str]:
        """``function(*arguments)`` run by a worker of the cluster."""
        outcome: Future[str] = Future()
        with self._lock:
            client = self._client
            if client is None or self._closing:
                outcome.cancel()  # the run is stopping: nothing more is read
                return outcome
            task = client.submit(function, *arguments, pure=False)
            self._pending.add(task)
        task.add_done_callback(lambda done: self._settle(done, outcome))
        return outcome

    def _settle(self, task: Any, outcome: Future[str]) -> None:
        with self._lock:
            self._pending.discard(task)
            closing = self._closing
        if task.cancelled() and closing:
            outcome.cancel()
            return
        if task.status not in ("finished", "error"):  # the run did not ask: the scheduler was lost (Dask
            # cancels every task then), which stops the run as a worker that dies does
            outcome.set_exception(
                WorkerDied(
                    f"Dask scheduler {self._where}: the connection to it was lost while children were read (it "
                    "stopped, or the network failed); nothing was written"
                )
            )
            return
        try:
            outcome.set_result(task.result())
        except self._killed as exc:  # the task lost its worker more often than the scheduler allows
            outcome.set_exception(BrokenProcessPool(str(exc)))
        except Exception as exc:  # raised by the task itself, as a process pool's
            outcome.set_exception(exc)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Cancel the tasks not finished, disconnect, stop a cluster started for the run."""
        with self._lock:
            self._closing = True
            pending, self._pending = list(self._pending), set()
            client, self._client = self._client, None
        try:
            if client is not None:
                with contextlib.suppress(Exception):  # a scheduler lost already: nothing to cancel there
                    if pending and cancel_futures:
                        client.cancel(pending, force=True)
                client.close()
        finally:
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
        """``local:N``: N, known before the cluster is started (it starts when a child is handed over); a
        running scheduler's: its worker threads, asked when it is connected to."""
        if self._scheduler.address is None and self._dask is None:
            return self._scheduler.local
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
