"""Publishing a set of files into a directory without churn (feedmap._publish.publish.Publisher).

Real files in tmp_path: unchanged files keep their bytes, inode and modification time; changed ones are
replaced by rename(2); the index goes in place after its children and stale files (only those the index
replaced named) are removed after it.  Special files are made in tmp_path (os.mkfifo); a full disk is a small
tmpfs mounted in tmp_path, a rename that fails is a file made immutable with chattr (skipped where either is not
allowed).
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

from feedmap import SourceError
from feedmap._publish.publish import Publisher, PublishReport

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="rename(2), FIFOs and tmpfs as on Linux")

LISTED = re.compile(rb"sitemap-\d+\.xml")
INDEX = "sitemap_index.xml"
OLD = 1_000_000_000  # 2001-09-09: a modification time no run of the tests can give


def listed(index: BinaryIO) -> list[str]:
    """The names an index of these tests lists: each sitemap-N.xml in its bytes."""
    return [name.decode() for name in LISTED.findall(index.read())]


def publish(folder: Path, files: dict[str, bytes], index: str | None = INDEX) -> PublishReport:
    """Stage ``files`` (in order) and commit them with ``index``."""
    with Publisher(folder, listed) as publisher:
        for name, data in files.items():
            with publisher.file(name) as out:
                out.write(data)
        return publisher.commit(index)


def snapshot(folder: Path) -> dict[str, tuple[bytes | str, int, int, int]]:
    """Every entry of ``folder``: its bytes (or link target, or kind), inode, mtime in ns and mode."""
    found: dict[str, tuple[bytes | str, int, int, int]] = {}
    for entry in sorted(os.listdir(folder)):
        path = folder / entry
        status = os.lstat(path)
        if stat.S_ISREG(status.st_mode):
            content: bytes | str = path.read_bytes()
        elif stat.S_ISLNK(status.st_mode):
            content = "-> " + os.readlink(path)
        else:
            content = stat.filemode(status.st_mode)
        found[entry] = (content, status.st_ino, status.st_mtime_ns, status.st_mode)
    return found


def make_old(folder: Path) -> None:
    for entry in os.listdir(folder):
        os.utime(folder / entry, (OLD, OLD), follow_symlinks=False)


def parts(folder: Path) -> list[str]:
    return [name for name in os.listdir(folder) if name.endswith(".part")]


FIRST = {
    "sitemap-1.xml": b"<urlset>one</urlset>\n",
    "sitemap-2.xml": b"<urlset>two</urlset>\n",
    "sitemap-3.xml": b"<urlset>three</urlset>\n",
    INDEX: b"<sitemapindex>sitemap-1.xml sitemap-2.xml sitemap-3.xml</sitemapindex>\n",
}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A directory holding a first run's files, all with an old modification time."""
    folder = tmp_path / "site"
    publish(folder, FIRST)
    make_old(folder)
    return folder


# ------------------------------------------------------------------------------------------- regeneration


def test_a_first_run_writes_every_file_children_then_index(tmp_path: Path) -> None:
    folder = tmp_path / "new" / "site"  # created with its parents
    report = publish(folder, {INDEX: FIRST[INDEX], **{k: v for k, v in FIRST.items() if k != INDEX}})
    assert report == PublishReport(("sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml", INDEX), (), ())
    assert {name: path.read_bytes() for name in FIRST if (path := folder / name)} == FIRST
    assert sorted(os.listdir(folder)) == sorted(FIRST)


def test_a_second_run_with_the_same_bytes_leaves_every_file_untouched(site: Path) -> None:
    before = snapshot(site)
    report = publish(site, dict(FIRST))
    assert report == PublishReport((), ("sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml", INDEX), ())
    assert snapshot(site) == before  # bytes, inode and the old mtime
    assert all(os.stat(site / name).st_mtime == OLD for name in FIRST)


def test_only_a_changed_child_and_the_index_are_rewritten(site: Path) -> None:
    before = snapshot(site)
    files = {**FIRST, "sitemap-2.xml": b"<urlset>two, changed</urlset>\n", INDEX: b"<sitemapindex>new</sitemapindex>"}
    report = publish(site, files)
    assert report == PublishReport(("sitemap-2.xml", INDEX), ("sitemap-1.xml", "sitemap-3.xml"), ())
    after = snapshot(site)
    assert after["sitemap-1.xml"] == before["sitemap-1.xml"] and after["sitemap-3.xml"] == before["sitemap-3.xml"]
    assert (site / "sitemap-2.xml").read_bytes() == files["sitemap-2.xml"]
    assert os.stat(site / "sitemap-2.xml").st_mtime != OLD and os.stat(site / INDEX).st_mtime != OLD


def test_a_child_of_another_size_with_the_same_start_is_rewritten(site: Path) -> None:
    longer = FIRST["sitemap-1.xml"] + b"more\n"
    report = publish(site, {**FIRST, "sitemap-1.xml": longer})
    assert report.written == ("sitemap-1.xml",)
    assert (site / "sitemap-1.xml").read_bytes() == longer


def test_only_a_file_the_replaced_index_named_is_removed_as_stale(site: Path) -> None:
    (site / "notes.txt").write_bytes(b"mine\n")
    (site / "sitemap-9.xml.bak").write_bytes(b"mine too\n")
    (site / "sitemap-4.xml").write_bytes(b"of the same naming, but no index named it\n")
    (site / "sitemap-7.xml").mkdir()  # named, but a directory: never removed
    (site / INDEX).write_bytes(FIRST[INDEX] + b"sitemap-7.xml")
    files = {name: data for name, data in FIRST.items() if name != "sitemap-3.xml"}
    report = publish(site, files)
    assert report.removed == ("sitemap-3.xml",)
    kept = ["notes.txt", "sitemap-9.xml.bak", "sitemap-7.xml", "sitemap-4.xml"]
    assert sorted(os.listdir(site)) == sorted([*files, *kept])
    assert (site / "notes.txt").read_bytes() == b"mine\n"


def test_the_index_goes_in_place_after_its_children_and_stale_files_after_it(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Observed only: os.replace is wrapped to record the order and what exists at each rename."""
    seen: list[tuple[str, bool]] = []
    real_replace = os.replace

    def replace(source: str, target: str) -> None:
        seen.append((os.path.basename(target), (site / "sitemap-3.xml").exists()))
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace)
    files = {INDEX: b"<sitemapindex>new</sitemapindex>", "sitemap-1.xml": b"new one", "sitemap-2.xml": b"new two"}
    report = publish(site, files)
    assert [name for name, _ in seen] == ["sitemap-1.xml", "sitemap-2.xml", INDEX]
    assert all(stale_still_there for _, stale_still_there in seen)  # the old index may name it until replaced
    assert report == PublishReport(("sitemap-1.xml", "sitemap-2.xml", INDEX), (), ("sitemap-3.xml",))
    assert not (site / "sitemap-3.xml").exists()


def test_staged_files_are_invisible_until_the_commit(site: Path) -> None:
    before = snapshot(site)
    with Publisher(site, listed) as publisher:
        with publisher.file("sitemap-1.xml") as out:
            out.write(b"changed")
        with publisher.file("sitemap-4.xml") as out:
            out.write(b"new")
        staged = parts(site)
        assert len(staged) == 2 and all(name.startswith((".sitemap-1.xml.", ".sitemap-4.xml.")) for name in staged)
        hidden = (".part", ".lock")  # the temporaries and the run's lock file (feedmap._publish.lock)
        assert {k: v for k, v in snapshot(site).items() if not k.endswith(hidden)} == before
        publisher.commit()
    assert parts(site) == [] and (site / "sitemap-4.xml").read_bytes() == b"new"
    assert sorted(os.listdir(site)) == sorted([*FIRST, "sitemap-4.xml"])  # the lock file gone too


def test_without_an_index_the_children_are_committed_and_nothing_removed(site: Path) -> None:
    report = publish(site, {"sitemap-1.xml": b"changed"}, index=None)
    assert report == PublishReport(("sitemap-1.xml",), (), ())
    assert sorted(os.listdir(site)) == sorted(FIRST)


# ------------------------------------------------------------------------------------ big files, streaming


def test_big_files_are_compared_in_chunks_not_held_in_memory(tmp_path: Path) -> None:
    """A 16 MiB child, the same bytes but the last: found different, and never as much as half of it held."""
    folder = tmp_path / "big"
    block = bytes(range(256)) * 4096  # 1 MiB
    body = block * 16
    publish(folder, {"sitemap-1.xml": body}, index=None)

    def run(data_end: bytes) -> tuple[PublishReport, int]:
        tracemalloc.start()
        try:
            with Publisher(folder, listed) as publisher:
                with publisher.file("sitemap-1.xml") as out:
                    for _ in range(15):
                        out.write(block)
                    out.write(block[:-1] + data_end)
                tracemalloc.reset_peak()
                report = publisher.commit()
            return report, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    same, peak_same = run(block[-1:])
    assert same.unchanged == ("sitemap-1.xml",)
    changed, peak_changed = run(b"\x00")
    assert changed.written == ("sitemap-1.xml",)
    assert (folder / "sitemap-1.xml").read_bytes()[-1:] == b"\x00"
    assert max(peak_same, peak_changed) < len(body) // 2


# --------------------------------------------------------------------------------- failures and clean-up


def test_an_exception_inside_the_with_leaves_the_directory_as_it_was(site: Path) -> None:
    before = snapshot(site)
    with pytest.raises(RuntimeError, match="generator failed"), Publisher(site, listed) as publisher:
        with publisher.file("sitemap-1.xml") as out:
            out.write(b"changed")
        with publisher.file("sitemap-5.xml") as out:
            out.write(b"half")
            raise RuntimeError("generator failed")
    assert snapshot(site) == before
    assert parts(site) == []


def test_leaving_without_a_commit_drops_what_was_staged(site: Path) -> None:
    before = snapshot(site)
    with Publisher(site, listed) as publisher, publisher.file("sitemap-1.xml") as out:
        out.write(b"changed")
    assert snapshot(site) == before


def test_a_directory_created_for_a_failed_run_is_removed_again(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), Publisher(tmp_path / "a" / "b", listed) as publisher:
        with publisher.file("sitemap-1.xml") as out:
            out.write(b"x")
        raise RuntimeError("stop")
    assert os.listdir(tmp_path) == []


def test_the_same_name_twice_is_a_value_error(tmp_path: Path) -> None:
    with Publisher(tmp_path, listed) as publisher:
        with publisher.file("sitemap-1.xml") as out:
            out.write(b"one")
        with pytest.raises(ValueError, match="twice"), publisher.file("sitemap-1.xml"):
            pass
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name", ["", ".", "..", "sub/sitemap-1.xml", "/abs.xml", "nul\0.xml"])
def test_a_name_that_is_not_a_basename_is_a_value_error(tmp_path: Path, name: str) -> None:
    with (
        Publisher(tmp_path, listed) as publisher,
        pytest.raises(ValueError, match="not a file name"),
        publisher.file(name),
    ):
        pass


def test_an_index_that_was_not_staged_is_a_value_error(tmp_path: Path) -> None:
    with Publisher(tmp_path, listed) as publisher:
        with publisher.file("sitemap-1.xml") as out:
            out.write(b"one")
        with pytest.raises(ValueError, match="not staged"):
            publisher.commit(INDEX)
    assert os.listdir(tmp_path) == []


def test_a_directory_under_a_regular_file_is_a_source_error(tmp_path: Path) -> None:
    (tmp_path / "plain").write_bytes(b"a file\n")
    with pytest.raises(SourceError, match=r"plain/site/deeper: .*/plain is a file, not a directory; move it away"):
        Publisher(tmp_path / "plain" / "site" / "deeper", listed)
    with pytest.raises(SourceError, match=r"plain: is not a directory"):
        Publisher(tmp_path / "plain", listed)


def test_a_produced_name_that_is_a_directory_is_a_source_error(site: Path) -> None:
    (site / "sitemap-4.xml").mkdir()
    before = snapshot(site)
    with pytest.raises(SourceError, match=r"sitemap-4\.xml: is a directory"), Publisher(site, listed) as publisher:
        with publisher.file("sitemap-1.xml") as out:
            out.write(b"changed")
        with publisher.file("sitemap-4.xml") as out:
            out.write(b"new")
    assert snapshot(site) == before and parts(site) == []


def test_a_name_that_became_a_directory_after_staging_stops_the_commit_before_any_change(site: Path) -> None:
    before = snapshot(site)
    with pytest.raises(SourceError, match=r"sitemap-4\.xml: is a directory"), Publisher(site, listed) as publisher:
        with publisher.file("sitemap-1.xml") as out:
            out.write(b"changed")
        with publisher.file("sitemap-4.xml") as out:
            out.write(b"new")
        (site / "sitemap-4.xml").mkdir()
        publisher.commit(None)
    after = snapshot(site)
    del after["sitemap-4.xml"]
    assert after == before and parts(site) == []


#: Fail (instead of hanging) should anything open a FIFO that has no writer: opening it blocks until the bound.
no_hang = pytest.mark.timeout(10)


@no_hang
def test_a_produced_name_that_is_a_fifo_is_refused_not_opened(site: Path) -> None:
    os.mkfifo(site / "sitemap-1.xml.tmp")
    os.replace(site / "sitemap-1.xml.tmp", site / "sitemap-1.xml")
    before = snapshot(site)
    with (
        pytest.raises(SourceError, match=r"sitemap-1\.xml: is a FIFO"),
        Publisher(site, listed) as publisher,
        publisher.file("sitemap-1.xml") as out,
    ):
        out.write(b"changed")
    assert snapshot(site) == before and parts(site) == []


@no_hang
def test_a_stale_fifo_is_left_alone(site: Path) -> None:
    os.mkfifo(site / "sitemap-8.xml")
    (site / INDEX).write_bytes(FIRST[INDEX] + b"sitemap-8.xml")
    report = publish(site, dict(FIRST))
    assert report.removed == ()
    assert stat.S_ISFIFO(os.lstat(site / "sitemap-8.xml").st_mode)


def test_a_symlink_at_a_produced_name_is_replaced_by_a_file_and_its_target_kept(site: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.xml"
    elsewhere.write_bytes(FIRST["sitemap-1.xml"])  # the same bytes: a link is still replaced
    (site / "sitemap-1.xml").unlink()
    (site / "sitemap-1.xml").symlink_to(elsewhere)
    report = publish(site, dict(FIRST))
    assert report.written == ("sitemap-1.xml",)
    assert stat.S_ISREG(os.lstat(site / "sitemap-1.xml").st_mode)
    assert (site / "sitemap-1.xml").read_bytes() == FIRST["sitemap-1.xml"]
    assert elsewhere.read_bytes() == FIRST["sitemap-1.xml"]


def test_a_stale_symlink_is_removed_not_its_target(site: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.xml"
    elsewhere.write_bytes(b"keep me\n")
    (site / "sitemap-5.xml").symlink_to(elsewhere)
    (site / "sitemap-6.xml").symlink_to(tmp_path)  # a link to a directory: the link goes, the directory stays
    (site / INDEX).write_bytes(FIRST[INDEX] + b"sitemap-5.xml sitemap-6.xml")
    report = publish(site, dict(FIRST))
    assert report.removed == ("sitemap-5.xml", "sitemap-6.xml")
    assert elsewhere.read_bytes() == b"keep me\n" and tmp_path.is_dir()


# ---------------------------------------------------------------------------------------------- modes


def test_a_new_file_gets_0666_less_the_umask_and_the_umask_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    previous = os.umask(0o027)
    try:

        def umask(mask: int) -> int:
            raise AssertionError("os.umask was called")

        with monkeypatch.context() as patched:
            patched.setattr(os, "umask", umask)
            publish(tmp_path / "site", {"sitemap-1.xml": b"one"}, index=None)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(tmp_path / "site" / "sitemap-1.xml").st_mode) == 0o640


def test_a_replaced_file_keeps_its_mode(site: Path) -> None:
    (site / "sitemap-1.xml").chmod(0o604)
    report = publish(site, {**FIRST, "sitemap-1.xml": b"changed"})
    assert report.written == ("sitemap-1.xml",)
    assert stat.S_IMODE(os.stat(site / "sitemap-1.xml").st_mode) == 0o604


# ------------------------------------------------------------------------------ full disk, failed renames


def test_a_full_disk_is_a_source_error_and_leaves_the_directory_as_it_was(
    mount_tmpfs: Callable[[str], Path],
) -> None:
    small_disk = mount_tmpfs("size=64k")
    publish(small_disk, {"sitemap-1.xml": b"small\n"}, index=None)
    before = snapshot(small_disk)
    with (
        pytest.raises(SourceError, match=r"No space left on device.*the disk is full"),
        Publisher(small_disk, listed) as publisher,
        publisher.file("sitemap-2.xml") as out,
    ):
        for _ in range(40):
            out.write(b"x" * 4096)
    assert snapshot(small_disk) == before and parts(small_disk) == []


def test_a_read_only_file_system_is_a_source_error(mount_tmpfs: Callable[[str], Path]) -> None:
    disk = mount_tmpfs("ro,size=64k")
    with pytest.raises(SourceError, match=r"disk0/site: cannot create the directory .*read-only: write elsewhere"):
        Publisher(disk / "site", listed)
    with (
        pytest.raises(SourceError, match=r"cannot create a temporary file in .*the file system is read-only"),
        Publisher(disk, listed) as publisher,
        publisher.file("sitemap-1.xml"),
    ):
        pass
    assert os.listdir(disk) == []


@pytest.fixture
def immutable(tmp_path: Path) -> Iterator[Callable[[Path], None]]:
    """immutable(path): chattr +i (rename(2) over it and unlink(2) then fail, even for root); undone afterwards."""
    made: list[Path] = []

    def make(path: Path) -> None:
        try:
            done = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
        except FileNotFoundError:
            pytest.skip("no chattr to make a file immutable")
        if done.returncode != 0:
            pytest.skip("chattr +i is not permitted here")
        made.append(path)

    try:
        yield make
    finally:
        for path in made:
            subprocess.run(["chattr", "-i", str(path)], check=False, capture_output=True)


def test_a_rename_failing_midway_says_what_is_in_place_and_keeps_the_old_index(
    site: Path, immutable: Callable[[Path], None]
) -> None:
    immutable(site / "sitemap-2.xml")
    files = {"sitemap-1.xml": b"new one", "sitemap-2.xml": b"new two", INDEX: b"<sitemapindex>new</sitemapindex>"}
    with pytest.raises(SourceError) as caught, Publisher(site, listed) as publisher:
        for name, data in files.items():
            with publisher.file(name) as out:
                out.write(data)
        publisher.commit(INDEX)
    message = str(caught.value)
    assert "sitemap-2.xml: cannot replace (Operation not permitted)" in message
    assert "already in place: sitemap-1.xml" in message and f"the index {INDEX} was not replaced" in message
    assert (site / "sitemap-1.xml").read_bytes() == b"new one"
    assert (site / "sitemap-2.xml").read_bytes() == FIRST["sitemap-2.xml"]
    assert (site / INDEX).read_bytes() == FIRST[INDEX]
    assert (site / "sitemap-3.xml").exists()  # nothing removed while the old index is in place
    assert parts(site) == []


def test_a_stale_file_that_cannot_be_removed_is_a_source_error_after_the_index(
    site: Path, immutable: Callable[[Path], None]
) -> None:
    immutable(site / "sitemap-3.xml")
    files = {"sitemap-1.xml": FIRST["sitemap-1.xml"], INDEX: b"<sitemapindex>1</sitemapindex>"}
    with pytest.raises(SourceError, match=r"sitemap-3\.xml: cannot remove the stale file.*index are in place"):
        publish(site, files)
    assert (site / INDEX).read_bytes() == files[INDEX]
    assert parts(site) == []


def test_an_index_that_cannot_be_replaced_keeps_the_old_one_and_the_stale_files(
    site: Path, immutable: Callable[[Path], None]
) -> None:
    immutable(site / INDEX)
    files = {"sitemap-1.xml": b"new one", INDEX: b"<sitemapindex>1</sitemapindex>"}
    with pytest.raises(SourceError) as caught:
        publish(site, files)
    message = str(caught.value)
    assert f"{INDEX}: cannot replace (Operation not permitted)" in message
    assert "already in place: sitemap-1.xml; the previous index is kept; no stale file was removed" in message
    assert (site / "sitemap-1.xml").read_bytes() == b"new one" and (site / INDEX).read_bytes() == FIRST[INDEX]
    assert (site / "sitemap-2.xml").exists() and parts(site) == []


def _staged(folder: Path, files: dict[str, bytes]) -> Publisher:
    publisher = Publisher(folder, listed)
    for name, data in files.items():
        with publisher.file(name) as out:
            out.write(data)
    return publisher


def test_commits_of_concurrent_runs_do_not_interleave(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two runs publishing into one directory at once: the set left is one run's whole, never children of
    one beside the index and children of the other (each commit holds a lock on the directory)."""
    first = _staged(
        site,
        {f"sitemap-{n}.xml": b"first %d" % n for n in (1, 2, 3)}
        | {INDEX: b"first sitemap-1.xml sitemap-2.xml sitemap-3.xml"},
    )
    second = _staged(
        site, {f"sitemap-{n}.xml": b"second %d" % n for n in (1, 2)} | {INDEX: b"second sitemap-1.xml sitemap-2.xml"}
    )
    done = threading.Event()
    real_replace = os.replace
    calls = []

    def replace(source: str, target: str) -> None:
        calls.append(target)
        real_replace(source, target)
        if len(calls) == 1:  # the first run has one child in place: the second commits meanwhile, if it can
            thread.start()
            done.wait(0.5)

    def commit_second() -> None:
        second.commit(INDEX)
        done.set()

    thread = threading.Thread(target=commit_second)
    monkeypatch.setattr(os, "replace", replace)
    first.commit(INDEX)
    thread.join()
    first.__exit__(None, None, None)
    second.__exit__(None, None, None)
    contents = {path.name: path.read_bytes() for path in site.iterdir() if not path.name.startswith(".")}
    assert contents == {
        "sitemap-1.xml": b"second 1",
        "sitemap-2.xml": b"second 2",
        INDEX: b"second sitemap-1.xml sitemap-2.xml",
    }
