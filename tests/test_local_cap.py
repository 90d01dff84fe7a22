"""``--max-bytes`` caps what has no size up front, not a local file (issue 17, point 10).

The cap (``Options.max_bytes``, default 100 MiB) protects against inputs that could be endless or expand
without bound: decompressed gzip, fetched bodies, standard input, FIFOs and other special files.  A local
regular file that is not compressed has its size known when it is opened, and reading streams, so it is read
whole (feedmap's own 160 MB output was stopped at 100 MB).  Shown with a lowered cap: the same 5,000-odd
bytes are read whole from a file and stopped at 1,000 bytes on every other way in.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from localsite import LocalSite

import feedmap
from feedmap.cli import main

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
CAP = 1000
LOCS = [f"https://www.example.com/page/{number:04d}" for number in range(110)]
DATA = (
    f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
    + "".join(f"<url><loc>{loc}</loc></url>\n" for loc in LOCS)
    + "</urlset>\n"
).encode()


def test_the_data_is_over_the_cap() -> None:
    assert len(DATA) >= 5000 > CAP


def read_locs(source: object, **options: object) -> list[str]:
    with feedmap.read(source, options=feedmap.Options(max_bytes=CAP, **options)) as doc:  # type: ignore[arg-type]
        return [entry.loc for entry in doc]


@pytest.fixture
def local_file(tmp_path: Path) -> Path:
    path = tmp_path / "sitemap.xml"
    path.write_bytes(DATA)
    return path


# ------------------------------------------------------------------------------------------- read whole


def test_a_local_file_over_the_cap_is_read_whole(local_file: Path) -> None:
    assert read_locs(local_file) == LOCS
    assert read_locs(str(local_file)) == LOCS
    assert read_locs(local_file.as_uri()) == LOCS  # a file: URL is a local file too


def test_a_mapped_url_is_a_local_file_read_whole(local_file: Path) -> None:
    maps = (("https://www.example.com/", local_file.parent),)
    assert read_locs("https://www.example.com/sitemap.xml", maps=maps) == LOCS


@pytest.mark.parametrize(
    "argv",
    [
        ["convert", "{path}", "-t", "text"],
        ["info", "{path}", "--json"],
        ["validate", "{path}"],
        ["diff", "{path}", "{copy}"],  # a copy: one file on both sides is same-files
    ],
    ids=lambda argv: argv[0],
)
def test_every_command_reads_a_local_file_whole(
    local_file: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    copy = local_file.with_name("copy.xml")
    copy.write_bytes(local_file.read_bytes())
    names = {"{path}": str(local_file), "{copy}": str(copy)}
    code = main([names.get(arg, arg) for arg in argv] + ["--max-bytes", str(CAP)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "too-large" not in captured.err
    if argv[0] == "convert":
        assert captured.out.split() == LOCS
    if argv[0] == "info":
        assert '"entries": 110' in captured.out


# ------------------------------------------------------------------------------------------- still capped


def test_the_same_bytes_gzip_compressed_are_capped(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml.gz"
    path.write_bytes(gzip.compress(DATA))
    assert path.stat().st_size < CAP  # small on disk: the decompressed bytes are what is capped
    with pytest.raises(feedmap.LimitError) as caught:
        read_locs(path)
    assert caught.value.code == "too-large"


def test_the_same_bytes_on_standard_input_are_capped(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(DATA)))
    assert main(["convert", "-", "-t", "text", "--max-bytes", str(CAP)]) == 1
    assert "too-large" in capsys.readouterr().err


def test_the_same_bytes_from_a_file_object_are_capped(local_file: Path) -> None:
    with local_file.open("rb") as stream, pytest.raises(feedmap.LimitError):
        read_locs(stream)  # the caller's stream: nothing says it ends where the file does


def test_the_same_bytes_over_http_are_capped(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    url = web.add("/sitemap.xml", DATA)
    with pytest.raises(feedmap.LimitError) as caught:
        read_locs(url, http=feedmap.HttpSettings(retries=0))
    assert caught.value.code == "too-large"
    assert main(["convert", url, "-t", "text", "--max-bytes", str(CAP)]) == 1
    assert "too-large" in capsys.readouterr().err


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    """A FIFO in the test's folder fed ``DATA`` by a thread (which stops when the reader goes away)."""
    path = tmp_path / "pipe.xml"
    os.mkfifo(path)

    def feed() -> None:
        try:
            with path.open("wb") as pipe:
                pipe.write(DATA)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    yield path
    _until_the_writer_ends(path, writer)
    assert not writer.is_alive(), "the FIFO's writer is still blocked"


def _release_writer(path: Path) -> None:
    """Let a writer blocked opening ``path`` go on, without ever waiting.

    The writer may be alive but already past its pipe (it met the closed read end and is returning): a
    blocking open for reading would then wait for a writer that never comes (found by CI: the teardown hung
    120 s). A non-blocking open returns at once either way, and a writer still waiting in its open is woken by
    it; closing it again makes that writer's write fail with a broken pipe, which ends its thread.
    """
    os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))


def _until_the_writer_ends(path: Path, writer: threading.Thread) -> None:
    """Release ``path`` until ``writer`` ends (at most 10 s): a writer that had not yet reached its open when
    the last release came would otherwise wait in it."""
    deadline = time.monotonic() + 10
    while writer.is_alive() and time.monotonic() < deadline:
        _release_writer(path)
        writer.join(0.05)


def test_releasing_a_fifo_nobody_writes_to_returns_at_once(tmp_path: Path) -> None:
    path = tmp_path / "pipe.xml"
    os.mkfifo(path)
    releasing = threading.Thread(target=_release_writer, args=(path,), daemon=True)
    releasing.start()
    releasing.join(10)  # only a hang takes this long
    if releasing.is_alive():
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # let the blocked open return
        pytest.fail("releasing a FIFO without a writer waited for one")


def test_releasing_a_fifo_wakes_a_writer_blocked_opening_it(tmp_path: Path) -> None:
    path = tmp_path / "pipe.xml"
    os.mkfifo(path)
    outcome: list[str] = []

    def write() -> None:
        try:
            with path.open("wb") as pipe:
                pipe.write(DATA)
        except BrokenPipeError:
            outcome.append("broken pipe")
        else:  # DATA fits the pipe's buffer: a write before the release's close lands there
            outcome.append("written")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    _until_the_writer_ends(path, writer)
    assert not writer.is_alive(), "the writer blocked in its open was not woken"
    assert outcome in (["broken pipe"], ["written"])  # its open returned, and its thread ended


def test_a_fifo_is_no_regular_file_and_stays_capped(fifo: Path) -> None:
    with pytest.raises(feedmap.LimitError) as caught:
        read_locs(fifo)
    assert caught.value.code == "too-large"


def test_a_fifo_on_the_command_line_stays_capped(fifo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", str(fifo), "-t", "text", "--max-bytes", str(CAP)]) == 1
    assert "too-large" in capsys.readouterr().err
