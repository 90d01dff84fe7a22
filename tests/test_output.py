"""Outputs (feedmap._io.sinks.open_sink, ``-o``): what is at the path decides how it is written.

POSIX rename(2) replaces a name atomically, which suits regular files only: a device, a FIFO or a
process's own descriptor (``/dev/fd/N``) is written straight through, as ``cat > PATH`` would; a
symbolic link's target is replaced and the link kept.  Write errors (a full disk) are I/O errors (exit 2)
that leave any earlier file intact.  Signals and broken pipes follow the shell's 128 + signal convention.

Special files are made in tmp_path (os.mknod, os.mkfifo); the machine's own /dev entries are never used.
A full or read-only disk is a small tmpfs mounted in tmp_path (the test is skipped where mounting is not
permitted), a file-size limit is RLIMIT_FSIZE set in a child process.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import resource
import select
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import run

import feedmap
from feedmap import SourceError
from feedmap._io.sinks import open_sink
from feedmap.cli import main

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="device nodes, FIFOs and /proc/self/fd as on Linux")

LOCS = [f"https://e.com/page/{i}" for i in range(3)]
TEXT = "".join(f"{loc}\n" for loc in LOCS).encode()


def feedmap_process(*argv: str | Path) -> list[str]:
    return [sys.executable, "-m", "feedmap", *(str(arg) for arg in argv)]


def leftovers(folder: Path, *keep: str) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name not in keep)


@pytest.fixture
def urls(tmp_path: Path) -> Path:
    """A text sitemap of three URLs, outside the folders the outputs go to."""
    path = tmp_path / "in" / "urls.txt"
    path.parent.mkdir()
    path.write_bytes(TEXT)
    return path


@pytest.fixture
def many_urls(tmp_path: Path) -> Path:
    """A text sitemap of 20,000 URLs (about 0.5 MB of output: more than a pipe or a small disk holds)."""
    path = tmp_path / "in" / "many.txt"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(b"".join(b"https://e.com/some/longer/path/%d\n" % i for i in range(20_000)))
    return path


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def null_device(folder: Path) -> Path:
    """A character device that discards what is written (major 1, minor 3, like the system's null device)."""
    path = folder / "null"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")
    return path


def full_device(folder: Path) -> Path:
    """A character device whose writes fail with ENOSPC (major 1, minor 7)."""
    path = folder / "full"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")
    return path


# ---------------------------------------------------------------------------- devices, FIFOs, descriptors


def test_a_device_is_written_straight_through_not_replaced(
    capsys: pytest.CaptureFixture[str], urls: Path, out_dir: Path
) -> None:
    node = null_device(out_dir)
    code, _, err = run(capsys, "convert", urls, "-t", "text", "-o", node)
    assert code == 0, err
    found = os.lstat(node)
    assert stat.S_ISCHR(found.st_mode) and found.st_rdev == os.makedev(1, 3)  # still the device
    assert leftovers(out_dir, "null") == []


def test_library_write_to_a_device_keeps_it(out_dir: Path) -> None:
    node = null_device(out_dir)
    summary = feedmap.write([feedmap.Entry(loc=loc) for loc in LOCS], str(node), "text")
    assert summary.entries == 3
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_a_full_device_is_an_io_error(capsys: pytest.CaptureFixture[str], urls: Path, out_dir: Path) -> None:
    node = full_device(out_dir)
    code, _, err = run(capsys, "convert", urls, "-t", "text", "-o", node)
    assert code == 2
    assert "Traceback" not in err
    assert f"{node}: cannot write (No space left on device)" in err
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    assert leftovers(out_dir, "full") == []


def test_library_write_to_a_full_device_raises_source_error(out_dir: Path) -> None:
    node = full_device(out_dir)
    with pytest.raises(SourceError, match="No space left on device"):
        feedmap.write([feedmap.Entry(loc=loc) for loc in LOCS], node, "text")


def test_a_fifo_is_written_straight_through(out_dir: Path) -> None:
    fifo = out_dir / "fifo"
    os.mkfifo(fifo)
    reading = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader is there: opening to write does not wait
    try:
        with open_sink(fifo) as out:
            out.write(TEXT)  # less than a pipe holds
        received = os.read(reading, 1 << 16)
    finally:
        os.close(reading)
    assert received == TEXT
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert leftovers(out_dir, "fifo") == []


def test_own_descriptor_path_is_written_to_that_descriptor(out_dir: Path) -> None:
    """``-o /dev/fd/N`` (a shell's ``>(...)``): the pipe gets the output, no temporary file is made."""
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as reading, os.fdopen(write_end, "wb") as writing:
        with open_sink(f"/dev/fd/{write_end}") as out:
            out.write(TEXT)
        writing.close()  # the caller's descriptor was still open (a copy was written to and closed)
        assert reading.read() == TEXT


def test_process_substitution_output(urls: Path) -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as stream:
        child = subprocess.Popen(
            feedmap_process("convert", "-q", urls, "-t", "text", "-o", f"/dev/fd/{write_end}"),
            pass_fds=(write_end,),
            stderr=subprocess.PIPE,
        )
        os.close(write_end)
        data = stream.read()
        _, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert data == TEXT


def test_own_descriptor_opened_for_appending_is_appended_to(out_dir: Path) -> None:
    log = out_dir / "log.txt"
    log.write_bytes(b"earlier\n")
    with open(log, "ab") as appending, open_sink(f"/dev/fd/{appending.fileno()}") as out:
        out.write(TEXT)
    assert log.read_bytes() == b"earlier\n" + TEXT
    assert leftovers(out_dir, "log.txt") == []


def _failing_after(count: int) -> Iterator[feedmap.Entry]:
    for i in range(count):
        yield feedmap.Entry(loc=f"http://a/{i}")
    raise RuntimeError("the source failed")


# the text writer hands its output on every 4,096 entries: what it wrote before a failure at entry 5,000
# (short URLs: less than the 64 KiB the sink buffers, which must not be held back)
WRITTEN = b"".join(b"http://a/%d\n" % i for i in range(4096))


def test_a_stream_gets_what_was_written_before_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream cannot be undone: what the writer wrote before the failure reaches it (not held back)."""
    buffer = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(buffer))
    with pytest.raises(RuntimeError):
        feedmap.write(_failing_after(5000), None, "text")
    assert buffer.getvalue() == WRITTEN
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as reading, os.fdopen(write_end, "wb") as writing:
        received: list[bytes] = []
        drain = threading.Thread(target=lambda: received.append(reading.read()))
        drain.start()
        with pytest.raises(RuntimeError):
            feedmap.write(_failing_after(5000), f"/dev/fd/{write_end}", "text")
        writing.close()
        drain.join()
    assert received == [WRITTEN]


def test_stdout_keeps_what_was_converted_before_strict_stops(capsys: pytest.CaptureFixture[str], out_dir: Path) -> None:
    source = out_dir / "urls.txt"
    source.write_bytes(b"".join(b"http://a/%d\n" % i for i in range(5000)) + b"not a url\n")
    code, out, err = run(capsys, "convert", source, "--strict", "-t", "text")
    assert code == 1 and "[loc-not-absolute]" in err
    assert out.encode() == WRITTEN


SM = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
#: Inputs whose first entry stops a --strict run (a warning), by the format written from them.
FIRST_ENTRY_STOPS = {
    "sitemap": ("urls.txt", b"not a url\nhttp://a/1\n", ()),
    "rss": ("urls.txt", b"not a url\nhttp://a/1\n", ("--link", "http://a/")),
    "ror": ("urls.txt", b"not a url\nhttp://a/1\n", ("--link", "http://a/")),
    "text": ("urls.txt", b"not a url\nhttp://a/1\n", ()),
    "jsonl": ("feed.jsonl", b'{"kind":"feed","title":"t"}\n{"loc":"http://a/1","changefreq":"Daily"}\n', ()),
    "sitemapindex": (
        "index.xml",
        f"<sitemapindex {SM}><sitemap><loc>http://a/1.xml</loc><lastmod>Daily</lastmod></sitemap>"
        "</sitemapindex>".encode(),
        ("--no-follow",),
    ),
}


@pytest.mark.parametrize("target", sorted(FIRST_ENTRY_STOPS))
def test_a_run_stopping_at_its_first_entry_leaves_no_half_header_on_stdout(
    capsys: pytest.CaptureFixture[str], out_dir: Path, target: str
) -> None:
    """The header (<?xml ...><urlset ...>, a feed's channel, JSON lines' first line) goes out with the first
    entry: stopped before it, standard output is left empty, not holding the start of a document."""
    name, data, more = FIRST_ENTRY_STOPS[target]
    source = out_dir / name
    source.write_bytes(data)
    code, out, err = run(capsys, "convert", source, "--strict", "-t", target, *more)
    assert code == 1 and "error[" in err
    assert out == ""
    code, out, err = run(capsys, "convert", source, "-t", target, *more)  # lenient: the whole document
    assert code == 0 and out.endswith(("</urlset>\n", "</sitemapindex>\n", "</rss>\n", "http://a/1\n", "}\n")), out


def test_an_empty_document_under_strict_writes_nothing(capsys: pytest.CaptureFixture[str], out_dir: Path) -> None:
    source = out_dir / "empty.jsonl"
    source.write_bytes(b'{"kind":"feed","title":"t"}\n')
    code, out, err = run(capsys, "convert", source, "--strict", "-t", "sitemap")
    assert (code, out) == (1, "") and "error[empty-document]" in err


# ----------------------------------------------------------------------------------- symbolic links


def test_a_symlink_is_followed_and_its_target_replaced(out_dir: Path) -> None:
    target = out_dir / "target.txt"
    target.write_bytes(b"old\n")
    link = out_dir / "link.txt"
    link.symlink_to("target.txt")
    with open_sink(link) as out:
        out.write(TEXT)
    assert link.is_symlink() and os.readlink(link) == "target.txt"
    assert target.read_bytes() == TEXT
    assert leftovers(out_dir, "target.txt", "link.txt") == []


def test_a_symlink_into_another_directory_replaces_the_target_there(tmp_path: Path, out_dir: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "target.txt").write_bytes(b"old\n")
    (out_dir / "link.txt").symlink_to(elsewhere / "target.txt")
    with open_sink(out_dir / "link.txt") as out:
        out.write(b"first ")
        assert leftovers(out_dir, "link.txt") == []  # the temporary file is next to the target
        out.write(b"second")
    assert (elsewhere / "target.txt").read_bytes() == b"first second"
    assert leftovers(elsewhere, "target.txt") == []


def test_a_dangling_symlink_gets_its_target_created(out_dir: Path) -> None:
    (out_dir / "link.txt").symlink_to("new.txt")
    with open_sink(out_dir / "link.txt") as out:
        out.write(TEXT)
    assert (out_dir / "link.txt").is_symlink()
    assert (out_dir / "new.txt").read_bytes() == TEXT


def test_a_directory_reached_through_a_symlink(tmp_path: Path, out_dir: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (out_dir / "via").symlink_to(real, target_is_directory=True)
    with open_sink(out_dir / "via" / "out.txt") as out:
        out.write(TEXT)
    assert (real / "out.txt").read_bytes() == TEXT
    assert leftovers(real, "out.txt") == []


def test_a_symlink_loop_is_an_io_error(capsys: pytest.CaptureFixture[str], urls: Path, out_dir: Path) -> None:
    (out_dir / "a").symlink_to("b")
    (out_dir / "b").symlink_to("a")
    code, _, err = run(capsys, "convert", urls, "-t", "text", "-o", out_dir / "a")
    assert code == 2
    assert "Traceback" not in err and "symbolic link" in err
    assert leftovers(out_dir, "a", "b") == []


# ------------------------------------------------------------------------------ paths that cannot be written


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda folder: str(folder), "is a directory"),
        (lambda folder: "", "output path is empty"),
        (lambda folder: str(folder / "file.txt" / "out.txt"), "file.txt is not a directory"),
        (lambda folder: str(folder / "missing" / "out.txt"), "does not exist"),
        (lambda folder: f"{folder / 'new'}/", "no such directory"),
        (lambda folder: f"{folder / 'file.txt'}/", "file.txt is not a directory"),
    ],
    ids=["directory", "empty", "through-a-file", "missing-directory", "new-with-slash", "file-with-slash"],
)
def test_paths_that_cannot_be_written_are_io_errors(
    capsys: pytest.CaptureFixture[str], urls: Path, out_dir: Path, make: Callable[[Path], str], expected: str
) -> None:
    (out_dir / "file.txt").write_bytes(b"kept\n")
    code, _, err = run(capsys, "convert", urls, "-t", "text", "-o", make(out_dir))
    assert code == 2
    assert "Traceback" not in err
    assert expected in err
    assert (out_dir / "file.txt").read_bytes() == b"kept\n"
    assert leftovers(out_dir, "file.txt") == []


def test_a_socket_is_named_not_replaced(capsys: pytest.CaptureFixture[str], urls: Path, out_dir: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(out_dir / "sock"))
        code, _, err = run(capsys, "convert", urls, "-t", "text", "-o", out_dir / "sock")
        assert code == 2
        assert "Traceback" not in err and "is a socket" in err
        assert stat.S_ISSOCK(os.lstat(out_dir / "sock").st_mode)
    assert leftovers(out_dir, "sock") == []


def test_empty_output_path_in_the_library_is_a_source_error() -> None:
    with pytest.raises(SourceError, match="empty"), open_sink(""):
        pass


def test_a_long_file_name_leaves_room_for_the_temporary_name(out_dir: Path) -> None:
    target = out_dir / ("n" * 250 + ".txt")  # 254 bytes: the limit is 255
    with open_sink(target) as out:
        out.write(TEXT)
    assert target.read_bytes() == TEXT
    assert leftovers(out_dir, target.name) == []


# ------------------------------------------------------------------------------- full disk, limits, modes


def test_a_full_disk_keeps_the_previous_file_and_leaves_no_temporary(
    capsys: pytest.CaptureFixture[str], many_urls: Path, mount_tmpfs: Callable[[str], Path]
) -> None:
    disk = mount_tmpfs("size=64k")
    previous = disk / "out.txt"
    previous.write_bytes(b"previous output\n")
    code, _, err = run(capsys, "convert", "-q", many_urls, "-t", "text", "-o", previous)
    assert code == 2
    assert "Traceback" not in err
    assert "No space left on device" in err and "the disk is full" in err
    assert previous.read_bytes() == b"previous output\n"
    assert leftovers(disk, "out.txt") == []


def test_a_read_only_file_system_is_an_io_error(
    capsys: pytest.CaptureFixture[str], urls: Path, mount_tmpfs: Callable[[str], Path]
) -> None:
    disk = mount_tmpfs("ro,size=64k")
    code, _, err = run(capsys, "convert", urls, "-t", "text", "-o", disk / "out.txt")
    assert code == 2
    assert "Traceback" not in err and "Read-only file system" in err
    assert leftovers(disk) == []


def _as_nobody(folder: Path, action: Callable[[], str]) -> str:
    """Run ``action`` in a forked child that entered ``folder`` and then became the user nobody; its result.

    Permission bits do not stop root, so a read-only directory is tried as another user; relative paths
    from ``folder`` avoid the parents that user may not enter.
    """
    if os.geteuid() != 0:
        pytest.skip("becoming another user needs root")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        status = 1
        try:
            os.close(read_end)
            os.chdir(folder)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            os.write(write_end, action().encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reading:
        result = reading.read().decode()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, result
    return result


def test_a_read_only_directory_is_an_io_error(out_dir: Path) -> None:
    folder = out_dir / "read-only"
    folder.mkdir()
    folder.chmod(0o555)

    def attempt() -> str:
        try:
            with open_sink("out.txt") as out:
                out.write(TEXT)
        except SourceError as exc:
            return str(exc)
        return "written"

    message = _as_nobody(folder, attempt)
    assert "cannot create a temporary file" in message and "Permission denied" in message
    assert "check the permissions" in message
    assert leftovers(folder) == []


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (32 * 1024, resource.RLIM_INFINITY))


def test_the_file_size_limit_is_an_io_error_and_keeps_the_previous_file(many_urls: Path, out_dir: Path) -> None:
    previous = out_dir / "out.txt"
    previous.write_bytes(b"previous output\n")
    done = subprocess.run(
        feedmap_process("convert", "-q", many_urls, "-t", "text", "-o", previous),
        preexec_fn=_limit_file_size,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "File too large" in done.stderr
    assert previous.read_bytes() == b"previous output\n"
    assert leftovers(out_dir, "out.txt") == []


@pytest.mark.parametrize(
    "argv",
    [["convert", "-q", "{urls}", "-t", "text"], ["info", "{urls}"], ["info", "--json", "{urls}"], ["formats"]],
    ids=["convert", "info", "info-json", "formats"],
)
def test_a_full_standard_output_is_an_io_error(urls: Path, out_dir: Path, argv: list[str]) -> None:
    """``feedmap ... > file`` on a full disk: a message naming <stdout>, exit 2, no traceback."""
    node = full_device(out_dir)
    with open(node, "wb") as stdout:
        done = subprocess.run(
            feedmap_process(*(arg.format(urls=urls) for arg in argv)),
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert "<stdout>: cannot write (No space left on device)" in done.stderr


def test_the_process_umask_is_left_alone(monkeypatch: pytest.MonkeyPatch, out_dir: Path) -> None:
    """Changing the umask, even for a moment, would change the files other threads create meanwhile."""

    def umask(mask: int) -> int:
        raise AssertionError("os.umask was called")

    monkeypatch.setattr(os, "umask", umask)
    with open_sink(out_dir / "new.txt") as out:
        out.write(TEXT)
    assert (out_dir / "new.txt").read_bytes() == TEXT


def test_a_new_file_gets_0666_less_the_umask(out_dir: Path) -> None:
    previous = os.umask(0o027)
    try:
        with open_sink(out_dir / "new.txt") as out:
            out.write(TEXT)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(out_dir / "new.txt").st_mode) == 0o640


def test_a_replaced_file_keeps_its_owner(out_dir: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    target = out_dir / "out.txt"
    target.write_bytes(b"old\n")
    os.chown(target, 12345, 23456)
    target.chmod(0o604)
    with open_sink(target) as out:
        out.write(TEXT)
    found = os.stat(target)
    assert (found.st_uid, found.st_gid, stat.S_IMODE(found.st_mode)) == (12345, 23456, 0o604)


# ----------------------------------------------------------------------------- signals and broken pipes


def _wait_for(condition: Callable[[], bool], child: subprocess.Popen[str], what: str) -> None:
    """Poll until ``condition()`` holds; fail (rather than hang) when the child ends first."""
    while not condition():
        if child.poll() is not None:
            raise AssertionError(f"feedmap ended ({child.returncode}) before {what}: {child.communicate()[1]}")
        time.sleep(0.02)


def _open_fifo_for_writing(fifo: Path, child: subprocess.Popen[str]) -> int:
    """Open ``fifo`` for writing once the child opened it for reading (ENXIO until then)."""
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
            if child.poll() is not None:
                raise AssertionError(f"feedmap ended ({child.returncode}) before reading its input") from None
            time.sleep(0.02)
            continue
        os.set_blocking(fd, True)
        return fd


def _signals_at_default() -> None:
    """In the child: SIGTERM and SIGHUP as a run started from a shell has them, whatever the test runner has
    (a runner started by ``nohup`` ignores SIGHUP, and a child inherits that: feedmap then keeps ignoring it)."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def _ignoring_sighup() -> None:
    """In the child: SIGHUP ignored, as ``nohup`` starts a command."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


@contextlib.contextmanager
def _writing_from_fifo(fifo: Path, target: Path, signals: Callable[[], None]) -> Iterator[subprocess.Popen[str]]:
    """A feedmap process (its signals set by ``signals``) writing ``target`` (which holds "previous output")
    from the FIFO, its temporary file made; the FIFO held open, so the run waits for more input."""
    os.mkfifo(fifo)
    target.write_bytes(b"previous output\n")
    child = subprocess.Popen(
        feedmap_process("convert", "-q", fifo, "-t", "text", "-o", target),
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=signals,
    )
    with os.fdopen(_open_fifo_for_writing(fifo, child), "wb") as feeding:
        # more than one read of input (64 KiB), so that writing starts; the input stays open, so it waits
        feeding.write(b"".join(b"https://e.com/page/%d\n" % i for i in range(10_000)))
        feeding.flush()
        folder = target.parent
        _wait_for(lambda: any(name.endswith(".part") for name in os.listdir(folder)), child, "the temporary file")
        yield child


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_termination_removes_the_temporary_file(out_dir: Path, tmp_path: Path, signum: int, code: int) -> None:
    """SIGTERM (and SIGHUP) stop the run as Ctrl-C does: no ``.out.txt.*.part`` left, the old file kept."""
    target = out_dir / "out.txt"
    with _writing_from_fifo(tmp_path / "input.txt", target, _signals_at_default) as child:
        child.send_signal(signum)
        _, err = child.communicate(timeout=60)
    assert child.returncode == code
    assert f"terminated by {signal.Signals(signum).name}" in err and "Traceback" not in err
    assert leftovers(out_dir, "out.txt") == []
    assert target.read_bytes() == b"previous output\n"


def test_a_run_started_by_nohup_goes_on_after_sighup(out_dir: Path, tmp_path: Path) -> None:
    """A run that started with SIGHUP ignored (``nohup``) keeps ignoring it and writes on; SIGTERM still stops
    it as Ctrl-C does."""
    target = out_dir / "out.txt"
    with _writing_from_fifo(tmp_path / "input.txt", target, _ignoring_sighup) as child:
        child.send_signal(signal.SIGHUP)
        with pytest.raises(subprocess.TimeoutExpired):
            child.wait(timeout=1)  # still running: SIGHUP changed nothing
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=60)
    assert child.returncode == 143
    assert "terminated by SIGTERM" in err and "Traceback" not in err
    assert leftovers(out_dir, "out.txt") == []
    assert target.read_bytes() == b"previous output\n"


def _stalled_write(fifo: Path, target: Path) -> tuple[subprocess.Popen[str], int]:
    """A real feedmap process writing ``target`` from the FIFO, its temporary file made, waiting for input."""
    os.mkfifo(fifo)
    child = subprocess.Popen(
        feedmap_process("convert", "-q", fifo, "-t", "text", "-o", target), stderr=subprocess.PIPE, text=True
    )
    before = set(os.listdir(target.parent))
    feeding = _open_fifo_for_writing(fifo, child)
    os.write(feeding, b"".join(b"https://e.com/page/%d\n" % i for i in range(10_000)))  # past one read
    _wait_for(lambda: bool(set(os.listdir(target.parent)) - before), child, "the temporary file")
    return child, feeding


def test_the_temporary_file_of_a_killed_run_is_removed_by_the_next_not_that_of_a_live_one(
    out_dir: Path, tmp_path: Path, urls: Path
) -> None:
    """Issue 17 (the sibling of a split's leftovers): SIGKILL leaves ``.out.txt.*.part``; the next run writing
    out.txt removes it (nobody holds its lock), not the one of a run still writing, nor anything else."""
    target = out_dir / "out.txt"
    (out_dir / ".out.txt.notours.part").write_text("another naming")
    (out_dir / ".other.txt.0123abcd.part").write_text("another output's")
    others = set(os.listdir(out_dir))
    killed, killed_input = _stalled_write(tmp_path / "killed.txt", target)
    of_killed = set(os.listdir(out_dir)) - others
    alive, alive_input = _stalled_write(tmp_path / "alive.txt", target)
    of_alive = set(os.listdir(out_dir)) - others - of_killed
    try:
        assert len(of_killed) == 1 and len(of_alive) == 1
        killed.kill()
        killed.communicate(timeout=60)
        os.close(killed_input)
        assert set(os.listdir(out_dir)) - others == of_killed | of_alive  # nothing removes it by itself
        assert main(["convert", "-q", str(urls), "-t", "text", "-o", str(target)]) == 0
        assert set(os.listdir(out_dir)) == others | of_alive | {"out.txt"}
    finally:
        alive.kill()
        alive.communicate(timeout=60)
        os.close(alive_input)
    assert main(["convert", "-q", str(urls), "-t", "text", "-o", str(target)]) == 0
    assert set(os.listdir(out_dir)) == others | {"out.txt"}


def test_the_signal_handlers_are_restored_after_a_run(capsys: pytest.CaptureFixture[str]) -> None:
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)
    assert main(["formats"]) == 0
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)) == before


def _closed_pipe() -> int:
    """The write end of a pipe whose reader is gone: every write fails with EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    return write_end


@pytest.mark.parametrize(
    "argv",
    [["convert", "-q", "{many}", "-t", "jsonl"], ["info", "{many}"], ["formats"]],
    ids=["convert", "info", "formats"],
)
def test_a_closed_pipe_ends_quietly(many_urls: Path, argv: list[str]) -> None:
    stdout = _closed_pipe()
    try:
        done = subprocess.run(
            feedmap_process(*(arg.format(many=many_urls) for arg in argv)),
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(stdout)
    assert (done.returncode, done.stderr) == (141, "")


def test_a_fifo_whose_reader_stops_early_ends_quietly(many_urls: Path, out_dir: Path) -> None:
    fifo = out_dir / "fifo"
    os.mkfifo(fifo)
    reading = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        child = subprocess.Popen(
            feedmap_process("convert", "-q", many_urls, "-t", "text", "-o", fifo), stderr=subprocess.PIPE, text=True
        )
        _wait_for(lambda: bool(select.select([reading], [], [], 0.05)[0]), child, "writing to the FIFO")
        first = os.read(reading, len(b"https://e.com/some/longer/path/0\n"))
    finally:
        os.close(reading)  # the reader goes away after one line
    _, err = child.communicate(timeout=60)
    assert first == b"https://e.com/some/longer/path/0\n"
    assert (child.returncode, err) == (141, "")
    assert leftovers(out_dir, "fifo") == []
