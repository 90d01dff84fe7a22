"""``--jobs N``: a stop is a stop.  A run that stops (its output cannot be opened or written, ``--strict`` stops it,
Ctrl-C) reads no child after it: its workers stop, no process is left running, the output is removed and the
message and exit code are those of ``--jobs 1``.

The index is served by a real HTTP server on loopback (``tests/localsite.py``) and its children are counted as
they are requested: these tests are by children read, not by seconds.  ``--concurrency 2`` keeps the downloads
ahead of the walk few, so that a run reading on after its stop is told apart from one that stopped.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import index_xml, run, urlset_xml
from localsite import LocalSite

#: The children of the index, the URLs of each (a child is more than the writer's batch of lines and its bytes).
CHILDREN, URLS = 20, 3000
#: The downloads planned ahead of the walk (``--concurrency``).
AHEAD = 2


def _child(i: int, warned: bool) -> bytes:
    locs = [f"https://example.com/child-{i}/page-{n}.html" for n in range(URLS)]
    if warned:
        locs.insert(10, "javascript:void(0)")  # loc-not-absolute: a warning, which --strict stops at
    return urlset_xml(*locs)


def _serve(site: LocalSite, warned: int | None = None, missing: bool = False) -> str:
    """The URL of an index of :data:`CHILDREN` children on ``site`` (child ``warned`` holding a warning; with
    ``missing``, none served: each answers 404)."""
    if not missing:
        for i in range(CHILDREN):
            site.add(f"/child-{i}.xml", _child(i, i == warned))
    return site.add("/index.xml", index_xml(*(site.url(f"/child-{i}.xml") for i in range(CHILDREN))))


def _children_read(site: LocalSite) -> int:
    return sum(site.hits(f"/child-{i}.xml") for i in range(CHILDREN))


def _convert(index: str, jobs: int, *more: str | Path) -> list[str | Path]:
    return ["convert", index, "-t", "text", "--jobs", str(jobs), "--concurrency", str(AHEAD), *more]


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_output_that_cannot_be_opened_reads_no_child(
    web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: int
) -> None:
    """The output's folder is missing: said at once, before any child is read (with workers too)."""
    index = _serve(web)
    code, out, err = run(capsys, *_convert(index, jobs, "-o", tmp_path / "missing" / "out.txt"))
    assert (code, out) == (2, "")
    missing = tmp_path / "missing"
    assert err == f"feedmap: error: {missing / 'out.txt'}: directory {missing} does not exist; create it first\n"
    assert _children_read(web) == 0


def test_an_output_that_cannot_be_opened_is_said_as_with_one_worker_when_no_child_can_be_read(
    web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every child missing and the output's folder too: the output is what is said (no child read to find out
    that none can be), as with ``--jobs 1``."""
    index = _serve(web, missing=True)
    said = [run(capsys, *_convert(index, jobs, "-o", tmp_path / "missing" / "out.txt")) for jobs in (1, 2)]
    assert said[1] == said[0]
    assert said[0][0] == 2 and "does not exist" in said[0][2]
    assert _children_read(web) == 0


def test_a_full_disk_stops_the_run_and_its_workers(
    web: LocalSite, mount_tmpfs: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The output fills its disk while the first children are written: the run stops there, the partial output
    removed, the message and exit code those of ``--jobs 1``."""
    index = _serve(web)
    disk = mount_tmpfs("size=64k")
    said = []
    for jobs in (1, 2):
        said.append(run(capsys, *_convert(index, jobs, "-o", disk / "out.txt")))
        assert os.listdir(disk) == []
        assert _children_read(web) <= 2 * (2 + AHEAD)  # both runs: what was read before the stop and the window
    assert said[1] == said[0]
    assert said[0][0] == 2 and "No space left on device" in said[0][2]


@pytest.mark.parametrize("target", ["text", "jsonl"])
def test_a_strict_stop_reads_no_child_after_it(
    web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    """``--strict`` stops at the warning of the fourth child: nothing after its window is read, nothing written."""
    index = _serve(web, warned=3)
    said = []
    for jobs in (1, 2):
        argv = _convert(index, jobs, "--strict", "-o", tmp_path / "out.txt")
        argv[argv.index("text")] = target
        said.append(run(capsys, *argv))
        assert os.listdir(tmp_path) == []
    assert said[1] == said[0]
    assert said[0][0] == 1 and "error[loc-not-absolute]" in said[0][2]
    assert _children_read(web) <= 2 * (4 + AHEAD)


# ------------------------------------------------------------------- a process of its own: FIFOs and Ctrl-C


def _interruptible() -> None:
    """In the child: SIGINT as a run started from a shell in the foreground has it, whatever the test runner has
    (one started in the background by a shell without job control ignores it, and a child inherits that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _feedmap(*argv: str | Path | int) -> subprocess.Popen[str]:
    """A feedmap process in a session of its own (so that what it leaves running can be found)."""
    return subprocess.Popen(
        [sys.executable, "-m", "feedmap", *(str(arg) for arg in argv)],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_interruptible,
    )


def _in_session(session: int) -> list[int]:
    """The processes of ``session`` still running (zombies are gone for good)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session and fields[0] != "Z":
            found.append(int(name))
    return found


def _nothing_left_running(session: int) -> None:
    deadline = time.monotonic() + 30
    while (left := _in_session(session)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == [], "processes of the run are still running after it ended"


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A FIFO in a folder of its own and its read end (not blocking), which the test may close."""
    folder = tmp_path / "out"
    folder.mkdir()
    path = folder / "fifo"
    os.mkfifo(path)
    reading = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        yield path, reading
    finally:
        with contextlib.suppress(OSError):  # closed by the test
            os.close(reading)


def _first_line(reading: int, child: subprocess.Popen[str]) -> bytes:
    while not select.select([reading], [], [], 0.05)[0]:
        if child.poll() is not None:
            raise AssertionError(f"feedmap ended ({child.returncode}) before writing: {child.communicate()[1]}")
    return os.read(reading, 20)


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("target", ["text", "jsonl"])
def test_a_fifo_whose_reader_goes_away_stops_the_run_and_its_workers(
    web: LocalSite, fifo: tuple[Path, int], jobs: int, target: str
) -> None:
    """The reader of the output closes after one line: the run ends quietly (141) at once, no child read after."""
    path, reading = fifo
    index = _serve(web)
    child = _feedmap("convert", "-q", index, "-t", target, "--jobs", jobs, "--concurrency", AHEAD, "-o", path)
    first = _first_line(reading, child)
    os.close(reading)
    _, err = child.communicate(timeout=120)
    assert first == (b"https://example.com/" if target == "text" else b'{"loc":"https://exam')
    assert (child.returncode, err) == (141, "")
    assert os.listdir(path.parent) == ["fifo"]
    _nothing_left_running(child.pid)
    assert _children_read(web) <= 2 + AHEAD


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_while_writing_stops_the_run_and_its_workers(web: LocalSite, fifo: tuple[Path, int], jobs: int) -> None:
    """Ctrl-C while the run waits to write (its reader reads no more until then): 130, "interrupted", no child
    read after, no worker left running."""
    path, reading = fifo
    index = _serve(web)
    child = _feedmap("convert", "-q", index, "-t", "text", "--jobs", jobs, "--concurrency", AHEAD, "-o", path)
    _first_line(reading, child)
    read = -1
    while read != (read := _children_read(web)):  # the run is stuck on the full pipe: no more children asked for
        time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    while child.poll() is None:  # what the run flushes as it closes its output is read (a stalled reader hangs it)
        if select.select([reading], [], [], 0.05)[0]:
            os.read(reading, 1 << 16)
    _, err = child.communicate(timeout=120)
    assert (child.returncode, err) == (130, "feedmap: interrupted\n")
    _nothing_left_running(child.pid)
    assert _children_read(web) == read <= 2 + AHEAD


@pytest.mark.parametrize("attempt", range(4))
@pytest.mark.parametrize("target", ["text", "jsonl"])
def test_a_run_stopped_with_workers_busy_leaves_the_resource_tracker_nothing_to_say(
    web: LocalSite, fifo: tuple[Path, int], target: str, attempt: int
) -> None:
    """The run stops (its reader went away) while workers still read: their pool's queues are closed before it
    exits, so multiprocessing's resource tracker finds no semaphore left and writes nothing to stderr (it said
    "There appear to be 1 leaked semaphore objects" in about one run of six: repeated, as it was a race)."""
    path, reading = fifo
    index = _serve(web)
    child = _feedmap("convert", "-q", index, "-t", target, "--jobs", 2, "--concurrency", AHEAD, "-o", path)
    _first_line(reading, child)
    os.close(reading)
    _, err = child.communicate(timeout=120)
    assert (child.returncode, err) == (141, "")
