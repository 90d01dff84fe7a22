"""``--dask SCHEDULER`` / ``Options(dask=...)``: an index's children read by the workers of a real Dask cluster
(``distributed.LocalCluster``: worker processes on 127.0.0.1), the output that of a run without one.

Every comparison runs the same command twice, in two folders (so the output's own name in the messages is the
same), once with ``--jobs 1`` and once on the cluster, and compares everything: the files written (every file
of a split directory), standard output, standard error and the exit code.  The site is the ``--jobs`` tests'
(:mod:`jobsite`: broken, missing, nested and gzip children, URLs repeated across children).  The faults are
real: worker processes killed with SIGKILL while they read.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import dask
import distributed
import pytest
from conftest import index_xml, run, run_in
from jobsite import SITE, jobs_site, urlset

import feedmap
from feedmap import Diagnostic, Options, SourceError

Outcome = tuple[int, str, str, dict[str, bytes]]


def _cluster(**config: object) -> distributed.LocalCluster:
    with dask.config.set(config):
        return distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            scheduler_port=0,
            dashboard_address=":0",  # its HTTP server on a free port (8787 may be taken)
            worker_dashboard_address=None,
            silence_logs=logging.ERROR,
        )


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a cluster of two worker processes, for the tests of this module that kill none."""
    with _cluster() as cluster:
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


def _killing(pids: list[int]) -> Callable[[Diagnostic], None]:
    """A diagnostic handler that kills these worker processes at the first diagnostic (children are being read)."""
    done: list[int] = []

    def handle(diagnostic: Diagnostic) -> None:
        if not done:
            for pid in pids:
                os.kill(pid, signal.SIGKILL)
                done.append(pid)

    return handle


def test_a_worker_lost_while_reading_has_its_child_read_again_with_the_same_output(tmp_path: Path) -> None:
    index = _big_site(tmp_path / "site")
    maps = ((SITE, index.parent),)
    expected = tmp_path / "expected.xml"
    feedmap.convert(str(index), expected, "sitemap", Options(maps=maps))
    with _cluster() as cluster:
        before = _worker_pids(cluster.scheduler_address)
        victim = sorted(before.values())[:1]
        out = tmp_path / "out.xml"
        options = Options(maps=maps, dask=cluster.scheduler_address)
        feedmap.convert(str(index), out, "sitemap", options, on_diagnostic=_killing(victim))
        after = _worker_pids(cluster.scheduler_address)
    assert victim[0] not in after.values()  # the worker was lost (and its nanny started another)
    assert out.read_bytes() == expected.read_bytes()


def test_a_child_whose_worker_keeps_dying_is_an_error_naming_it_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the run's spills go
    index = _big_site(tmp_path / "site")
    out = tmp_path / "out.xml"
    with _cluster(**{"distributed.scheduler.allowed-failures": 0}) as cluster:  # the first loss fails the task
        options = Options(maps=((SITE, index.parent),), dask=cluster.scheduler_address)
        pids = list(_worker_pids(cluster.scheduler_address).values())
        with pytest.raises(SourceError, match=r"https://example\.com/c\d\.xml: the worker process .* stopped"):
            feedmap.convert(str(index), out, "sitemap", options, on_diagnostic=_killing(pids))
    assert not out.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["site", "tmp"]  # no output, not even a temporary
    assert [path.name for path in scratch.iterdir()] == ["dask-scratch-space"]  # the test's cluster's; no spill


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
