"""``--dask SCHEDULER`` / ``Options(dask=...)``: an index's children read by the workers of a real Dask cluster
(``distributed.LocalCluster``: worker processes on 127.0.0.1), the output that of a run without one.

Every comparison runs the same command twice, in two folders (so the output's own name in the messages is the
same), once with ``--jobs 1`` and once on the cluster, and compares everything: the files written (every file
of a split directory), standard output, standard error and the exit code.  The site is the ``--jobs`` tests'
(:mod:`jobsite`: broken, missing, nested and gzip children, URLs repeated across children).  The faults are
real: worker processes killed with SIGKILL while they read.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import dask
import distributed
import pytest
from conftest import index_xml, run, run_in
from jobsite import SITE, descendants, jobs_site, urlset
from localcluster import local_cluster
from localsite import LocalSite

import feedmap
from feedmap import Diagnostic, Options, SourceError

Outcome = tuple[int, str, str, dict[str, bytes]]


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a cluster of two worker processes, for the tests of this module that kill none."""
    with local_cluster() as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    jobs_site(folder)
    return folder


def _mapped(site: Path) -> list[str]:
    return [str(site / "index.xml"), "--map", f"{SITE}={site}"]


def _same_on_the_cluster(capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], dask: str) -> Outcome:
    """The outcome of ``argv`` with ``--jobs 1``, asserted equal to that with ``--dask DASK``."""
    one = run_in(capsys, tmp_path / "one", [*argv, "--jobs", "1"])
    cluster = run_in(capsys, tmp_path / "dask", [*argv, "--dask", dask])
    assert cluster[0] == one[0]
    assert cluster[2] == one[2]
    assert cluster[1] == one[1]
    assert cluster[3] == one[3]
    return one


@pytest.mark.parametrize("target", ["sitemap", "text", "jsonl", "rss", "ror", "sitemapindex"])
def test_convert_to_each_format_is_the_same_on_a_cluster(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, scheduler: str, target: str
) -> None:
    code, _out, err, files = _same_on_the_cluster(
        capsys, tmp_path, ["convert", *_mapped(site), "-t", target, "-o", f"out.{target}"], scheduler
    )
    assert code == 0 and files[f"out.{target}"]
    for said in ("c3.xml", "missing.xml", "page.html"):  # the broken children, said as without a cluster
        assert said in err, said


@pytest.mark.parametrize(
    "flags",
    [
        ["-t", "atom", "--updated", "2024-01-01", "-o", "out.atom"],  # the feed's date given: the same bytes
        ["-t", "ror", "--set", "type=Product", "--set-missing", "lastmod=2024-01-01", "-o", "out.ror"],
    ],
)
def test_atom_and_fields_set_are_the_same_on_a_cluster(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, scheduler: str, flags: list[str]
) -> None:
    code, _out, _err, files = _same_on_the_cluster(capsys, tmp_path, ["convert", *_mapped(site), *flags], scheduler)
    assert code == 0 and files[flags[-1]]


def test_split_directories_and_strict_stops_are_the_same_on_a_cluster(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, scheduler: str
) -> None:
    split = ["convert", *_mapped(site), "-t", "sitemap", "-o", "out/", "--max-urls", "300", "--base-url", SITE]
    code, _out, _err, files = _same_on_the_cluster(capsys, tmp_path / "split", split, scheduler)
    assert code == 0 and len(files) > 3
    strict = ["convert", *_mapped(site), "-t", "jsonl", "-o", "out.jsonl", "--strict"]
    code, _out, err, files = _same_on_the_cluster(capsys, tmp_path / "strict", strict, scheduler)
    assert code == 1 and "out.jsonl" not in files and "strict" in err


@pytest.mark.parametrize("command", ["validate", "info"])
def test_validate_and_info_are_the_same_on_a_cluster(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, scheduler: str, command: str
) -> None:
    code, out, err, _files = _same_on_the_cluster(capsys, tmp_path, [command, *_mapped(site)], scheduler)
    assert out + err and code in (0, 1)


def test_diff_and_several_inputs_are_the_same_on_a_cluster(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, scheduler: str
) -> None:
    new = tmp_path / "new"
    jobs_site(new)
    (new / "c0.xml").write_text(urlset(0, 350))  # fewer URLs in one child
    diff = ["diff", str(site / "index.xml"), str(new / "index.xml"), "--map", f"{SITE}={site}"]
    _same_on_the_cluster(capsys, tmp_path / "diff", diff, scheduler)
    inputs = ["convert", str(site / "c0.xml"), str(site / "c1.xml"), str(site / "c3.xml"), str(site / "c2.xml")]
    code, _out, err, files = _same_on_the_cluster(capsys, tmp_path / "inputs", [*inputs, "-o", "all.xml"], scheduler)
    assert code == 0 and "c3.xml" in err and files["all.xml"]


def test_the_library_reads_the_same_on_a_cluster(site: Path, scheduler: str) -> None:
    def read(options: Options) -> tuple[list[feedmap.Entry], list[str]]:
        said: list[Diagnostic] = []
        entries = list(feedmap.read(str(site / "index.xml"), options=options, on_diagnostic=said.append))
        return entries, [str(diagnostic) for diagnostic in said]

    maps = ((SITE, site),)
    here, there = read(Options(maps=maps)), read(Options(maps=maps, dask=scheduler))
    assert there == here and len(here[0]) > 1000
    assert [entry.origin for entry in there[0]] == [entry.origin for entry in here[0]]


def test_a_local_cluster_is_started_for_the_run_and_writes_the_same(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the run's folder (spills, the workers') goes
    argv = ["convert", *_mapped(site), "-t", "text", "-o", "out.txt"]
    code, _out, _err, files = _same_on_the_cluster(capsys, tmp_path, argv, "local:2")
    assert code == 0 and files["out.txt"].count(b"\n") > 1000
    assert not list(scratch.iterdir())  # the cluster stopped, its workers' folder removed with the run's


def _big_site(folder: Path) -> Path:
    """An index of 8 children, the first small (read at once, its diagnostics said while the others are read)."""
    children = []
    for child in range(8):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"c{child}.xml").write_text(urlset(child, 20_000 if child else 50))
        children.append(f"{SITE}c{child}.xml")
    (folder / "index.xml").write_bytes(index_xml(*children))
    return folder / "index.xml"


def _worker_pids(address: str) -> dict[str, int]:
    with distributed.Client(address, set_as_default=False) as client:
        pids: dict[str, int] = client.run(os.getpid)
        return pids


def _killing_busy(address: str, every: bool) -> tuple[Callable[[Diagnostic], None], list[int], Callable[[], None]]:
    """A diagnostic handler that kills the worker processes running a task (one, or ``every`` one) at the first
    diagnostic that finds one busy; the pids killed; a function that closes its client."""
    client = distributed.Client(address, set_as_default=False)
    pids = client.run(os.getpid)
    killed: list[int] = []

    def handle(diagnostic: Diagnostic) -> None:
        if killed:
            return
        busy = [worker for worker, tasks in client.processing().items() if tasks]
        for worker in busy if every else busy[:1]:
            os.kill(pids[worker], signal.SIGKILL)
            killed.append(pids[worker])

    return handle, killed, client.close


def test_a_worker_lost_while_reading_has_its_child_read_again_with_the_same_output(tmp_path: Path) -> None:
    index = _big_site(tmp_path / "site")
    maps = ((SITE, index.parent),)
    expected = tmp_path / "expected.xml"
    feedmap.convert(str(index), expected, "sitemap", Options(maps=maps))
    with local_cluster() as cluster:
        handle, killed, close = _killing_busy(cluster.scheduler_address, every=False)
        out = tmp_path / "out.xml"
        try:
            feedmap.convert(
                str(index), out, "sitemap", Options(maps=maps, dask=cluster.scheduler_address), on_diagnostic=handle
            )
        finally:
            close()
        after = _worker_pids(cluster.scheduler_address)
    assert killed and killed[0] not in after.values()  # a worker reading a child was lost (its nanny made another)
    assert out.read_bytes() == expected.read_bytes()


def test_a_child_whose_worker_keeps_dying_is_an_error_naming_it_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the run's spills go
    index = _big_site(tmp_path / "site")
    out = tmp_path / "out.xml"
    with local_cluster(**{"distributed.scheduler.allowed-failures": 0}) as cluster:  # the first loss fails the task
        options = Options(maps=((SITE, index.parent),), dask=cluster.scheduler_address)
        handle, killed, close = _killing_busy(cluster.scheduler_address, every=True)
        try:
            with pytest.raises(SourceError, match=r"https://example\.com/c\d\.xml: the worker process .* stopped"):
                feedmap.convert(str(index), out, "sitemap", options, on_diagnostic=handle)
        finally:
            close()
    assert killed
    assert not out.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["site", "tmp"]  # no output, not even a temporary
    assert [path.name for path in scratch.iterdir()] == ["dask-scratch-space"]  # the test's cluster's; no spill


@contextlib.contextmanager
def _dask_processes(
    folder: Path, workers: int = 1, cwd: Path | None = None, preload: Path | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A scheduler and ``workers`` workers, each a ``dask`` command of its own on 127.0.0.1 (as on a cluster: not
    this process's, the workers in the folder ``cwd``); the scheduler's address and process."""
    folder.mkdir(parents=True, exist_ok=True)
    command = str(Path(sys.executable).with_name("dask"))
    file = folder / "scheduler.json"
    with open(folder / "dask.log", "wb") as log:
        started = [
            subprocess.Popen(
                [
                    command,
                    "scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--scheduler-file",
                    str(file),
                ],
                stdout=log,
                stderr=log,
            )
        ]
        try:
            deadline = time.monotonic() + 60
            while not file.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            address = json.loads(file.read_text())["address"]
            more = ["--preload", str(preload)] if preload is not None else []
            for _ in range(workers):
                worker = [command, "worker", address, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1", *more]
                started.append(subprocess.Popen(worker, stdout=log, stderr=log, cwd=cwd))
            if workers:
                with distributed.Client(address, set_as_default=False) as client:
                    client.wait_for_workers(workers, timeout=60)
            yield address, started[0]
        finally:
            for process in started:
                process.terminate()
            for process in started:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def test_relative_inputs_and_maps_are_read_by_workers_in_another_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(site)  # the run's inputs and --map relative to it; the workers run in another folder
    out = tmp_path / "out.xml"
    commands = [
        ["convert", "c0.xml", "c1.xml", "c3.xml", "c2.xml", "-o", str(out)],
        ["validate", "index.xml", "--map", f"{SITE}=."],
        ["convert", "index.xml", "--map", f"{SITE}=.", "-t", "jsonl", "-o", str(out)],
    ]
    with _dask_processes(tmp_path / "cluster", workers=2, cwd=elsewhere) as (address, _scheduler):
        for argv in commands:
            one = run(capsys, *argv, "--jobs", "1")
            written = out.read_bytes() if out.exists() else None
            there = run(capsys, *argv, "--dask", address)
            assert there == one, argv
            assert (out.read_bytes() if out.exists() else None) == written


def test_a_worker_that_cannot_import_feedmap_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path
) -> None:
    block = tmp_path / "block.py"
    block.write_text('import sys\nsys.modules["feedmap"] = None  # a worker without feedmap\n')
    with _dask_processes(tmp_path / "cluster", preload=block) as (address, _scheduler):
        code, _out, err = run(capsys, "convert", *_mapped(site), "-o", str(tmp_path / "out.xml"), "--dask", address)
    assert code == 2 and "Traceback" not in err
    assert f"Dask scheduler {address}: worker tcp://127.0.0.1:" in err and "cannot run feedmap's reading" in err
    assert not (tmp_path / "out.xml").exists()


def test_a_scheduler_without_workers_is_said_after_dasks_connect_time(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path
) -> None:
    with (
        _dask_processes(tmp_path / "cluster", workers=0) as (address, _scheduler),
        dask.config.set({"distributed.comm.timeouts.connect": "2s"}),
    ):
        code, _out, err = run(capsys, "convert", *_mapped(site), "-o", str(tmp_path / "out.xml"), "--dask", address)
    assert code == 2 and "Traceback" not in err
    assert f"Dask scheduler {address}: no worker joined in 2 s" in err


def test_a_scheduler_lost_mid_run_is_said_and_nothing_is_written(tmp_path: Path) -> None:
    index = _big_site(tmp_path / "site")
    out = tmp_path / "out.xml"
    with _dask_processes(tmp_path / "cluster", workers=2) as (address, scheduler):
        lost: list[int] = []

        def lose_it(diagnostic: Diagnostic) -> None:
            if not lost:
                scheduler.kill()
                lost.append(scheduler.pid)

        options = Options(maps=((SITE, index.parent),), dask=address)
        lost_message = r"Dask scheduler .*: the connection to it was lost .* nothing was written"
        with (
            dask.config.set({"distributed.comm.timeouts.connect": "3s"}),
            pytest.raises(SourceError, match=lost_message),
        ):
            feedmap.convert(str(index), out, "sitemap", options, on_diagnostic=lose_it)
    assert lost and not out.exists()


def test_a_local_cluster_starts_only_when_a_child_is_handed_to_it(tmp_path: Path) -> None:
    """validate fetches an index's children on the web itself: no cluster is started for them."""
    pid = os.getpid()
    before = set(descendants(pid))  # earlier tests' (a fork server of --jobs) are no cluster of this run
    processes: list[int] = []
    with LocalSite() as web:
        web.add("/c0.xml", urlset(0, 20), content_type="application/xml")
        web.add("/c1.xml", urlset(1, 20), content_type="application/xml")
        web.add("/index.xml", index_xml(web.url("/c0.xml"), web.url("/c1.xml")), content_type="application/xml")
        report = feedmap.validate(
            web.url("/index.xml"),
            options=Options(dask="local:2"),
            on_diagnostic=lambda diagnostic: processes.append(len(set(descendants(pid)) - before)),
        )
    assert report.files == 3 and processes and max(processes) == 0  # the index and its two children, read here


def _closed_port() -> int:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return int(listener.getsockname()[1])


def test_a_scheduler_that_cannot_be_reached_is_said_at_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path
) -> None:
    address = f"tcp://127.0.0.1:{_closed_port()}"
    code, _out, err = run(capsys, "convert", *_mapped(site), "-o", str(tmp_path / "out.xml"), "--dask", address)
    assert code == 2
    assert f"Dask scheduler {address}: cannot be reached (Connection refused)" in err and "Traceback" not in err
    assert not (tmp_path / "out.xml").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--dask", "local:0"], "local:N takes 1 to 256 worker processes"),
        (["--dask", "cluster"], "'cluster' is no scheduler: give local:N"),
        (["--dask", "tcp://host"], "is no scheduler"),
        (["--dask", "tls://127.0.0.1:8786"], "is no scheduler"),  # TLS needs certificates: not offered
        (["--dask", "local:2", "--jobs", "2"], "--jobs 2 and --dask local:2: give one of them"),
    ],
)
def test_bad_dask_values_are_usage_errors(
    capsys: pytest.CaptureFixture[str], site: Path, argv: list[str], message: str
) -> None:
    code, _out, err = run(capsys, "convert", *_mapped(site), "-t", "sitemap", *argv)
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize(("value", "message"), [("local:300", "1 to 256"), (2, "as text"), ("tcp://h:0", "port")])
def test_options_refuse_bad_dask_values_by_name(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=f"dask: .*{message}"):
        Options(dask=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="jobs and dask"):
        Options(dask="local:2", jobs=2)


def test_calls_that_read_no_index_refuse_dask(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="dask"):
        feedmap.write([feedmap.Entry(loc=f"{SITE}a")], tmp_path / "out.xml", "sitemap", Options(dask="local:2"))
