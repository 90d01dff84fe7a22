"""The temporary folder of every spill (issue 17, points 7 and 17): dedupe's keys and entries, ``--sort``'s
runs, ``diff``'s database and validate's repeated URLs.

A ``TMPDIR`` naming a folder that does not exist is an error naming it (Python falls back to ``/tmp``
silently); a full disk under ``--sort`` is a "no room" message with exit 2, no traceback, no output left;
too many open files is said as such, not as "no room"; ``--sort`` merges its runs before they are many.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from localsite import LocalSite

from feedmap import Entry, Options, SourceError
from feedmap.cli import main
from feedmap.converters import sort_entries

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _sitemap(path: Path, count: int, *, repeat: int = 0, body: str = "") -> Path:
    urls = "".join(f"<url><loc>https://e.example/{n % (count - repeat)}{body}</loc></url>" for n in range(count))
    path.write_text(f'<urlset xmlns="{SM}">{urls}</urlset>', encoding="utf-8")
    return path


#: Each spill site, forced: the thresholds it spills past lowered, and a command that reaches it.
SITES: dict[str, tuple[dict[str, int], Callable[[Path], list[str]]]] = {
    "dedupe-keys": (  # past a dict of 2 keys, the database (no compiled table between)
        {"feedmap._io.seen_keys.IN_MEMORY": 2, "feedmap._io.seen_keys.TABLE_BYTES": 0},
        lambda d: ["convert", str(_sitemap(d / "in.xml", 20, repeat=5)), "-t", "text", "-o", str(d / "out.txt")],
    ),
    "dedupe-entries": (
        {"feedmap.converters._duplicates._ENTRIES_IN_MEMORY": 0, "feedmap.converters._duplicates._CHUNK": 10},
        lambda d: ["convert", str(_sitemap(d / "in.xml", 20, repeat=5)), "-t", "sitemap", "-o", str(d / "out.xml")],
    ),
    "sort-runs": (
        {"feedmap.converters._sort.ENTRIES_IN_MEMORY": 2},
        lambda d: ["convert", str(_sitemap(d / "in.xml", 20)), "--sort", "loc", "-t", "text", "-o", str(d / "out.txt")],
    ),
    "diff": (
        {},
        lambda d: ["diff", str(_sitemap(d / "old.xml", 5)), str(_sitemap(d / "new.xml", 6))],
    ),
    "validate-repeats": (
        {"feedmap._io.seen_keys.IN_MEMORY": 2, "feedmap._io.seen_keys.TABLE_BYTES": 0},
        lambda d: ["validate", str(_sitemap(d / "in.xml", 20, repeat=5))],
    ),
    "atom-entries": (  # the Atom writer holds its entries until the feed's updated (the newest lastmod) is known
        {"feedmap.formats.feeds._atomwrite._IN_MEMORY": 100},
        lambda d: ["convert", str(_sitemap(d / "in.xml", 20)), "-t", "atom", "-o", str(d / "out.atom")],
    ),
    "feed-copy": (  # the RSS reader keeps a copy of what it read, for feedparser if the XML breaks off
        {"feedmap.formats.feeds._feedread._SPOOL_IN_MEMORY": 100},
        lambda d: ["convert", str(_feed(d / "in.rss", 30)), "-t", "text", "-o", str(d / "out.txt")],
    ),
}


def _feed(path: Path, count: int) -> Path:
    items = "".join(f"<item><link>https://e.example/{n}</link></item>" for n in range(count))
    path.write_text(f'<rss version="2.0"><channel><title>t</title>{items}</channel></rss>', encoding="utf-8")
    return path


def _force(monkeypatch: pytest.MonkeyPatch, settings: dict[str, int]) -> None:
    for target, value in settings.items():
        monkeypatch.setattr(target, value)


@pytest.mark.parametrize("site", SITES)
def test_a_tmpdir_naming_no_folder_is_an_error_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], site: str
) -> None:
    settings, command = SITES[site]
    _force(monkeypatch, settings)
    missing = tmp_path / "no-such-folder"
    monkeypatch.setenv("TMPDIR", str(missing))
    monkeypatch.setattr(tempfile, "tempdir", None)  # as in a new process: Python reads TMPDIR again
    code = main(command(tmp_path))
    captured = capsys.readouterr()
    err = captured.err + captured.out  # validate reports on stdout
    assert code == 2, err
    assert "TMPDIR" in err and str(missing) in err and "Traceback" not in err
    assert not missing.exists()
    assert not (tmp_path / "out.txt").exists() and not (tmp_path / "out.xml").exists()


def test_a_tmpdir_naming_a_folder_is_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setattr("feedmap.converters._sort.ENTRIES_IN_MEMORY", 2)
    sorted_out = sort_entries([Entry(loc=f"https://e.example/{n}") for n in (3, 1, 2, 0, 4)], Options(sort="loc"))
    assert next(sorted_out).loc == "https://e.example/0"
    assert [path.name[:13] for path in scratch.iterdir()] == ["feedmap-sort-", "feedmap-sort-"]
    assert [e.loc for e in sorted_out] == [f"https://e.example/{n}" for n in (1, 2, 3, 4)]
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize("site", ["diff", "validate-repeats"])
def test_too_many_open_files_while_python_looks_for_the_folder_is_said_as_such(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], site: str
) -> None:
    """Python's search for a temporary folder turns EMFILE into "No usable temporary directory" (ENOENT):
    that was said as a folder to create, not as the open-file limit it is."""
    settings, command = SITES[site]
    _force(monkeypatch, settings)
    arguments = command(tmp_path)
    monkeypatch.delenv("TMPDIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", None)  # as in a new process: Python looks for the folder again

    def no_more_files(path: Any, *args: Any, **kwargs: Any) -> int:
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE), str(path))

    monkeypatch.setattr(os, "open", no_more_files)
    code = main(arguments)
    captured = capsys.readouterr()
    err = captured.err + captured.out  # validate reports on stdout
    assert code == 2, err
    assert "ulimit" in err and "Traceback" not in err


@pytest.mark.parametrize("site", ["dedupe-entries", "sort-runs"])
def test_too_many_open_files_is_said_as_such(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], site: str
) -> None:
    """EMFILE is no full disk: the message says what to raise (the open-file limit), not to move TMPDIR."""
    settings, command = SITES[site]
    _force(monkeypatch, settings)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    real_open = os.open

    def open_refused(path: Any, *args: Any, **kwargs: Any) -> int:
        if str(path).startswith(str(scratch)):
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE), str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_refused)
    code = main(command(tmp_path))
    err = capsys.readouterr().err
    assert code == 2, err
    assert "ulimit" in err and "TMPDIR" not in err and "Traceback" not in err
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize("site", ["dedupe-entries", "sort-runs"])
def test_a_full_temporary_disk_is_no_room_and_leaves_nothing(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    mount_tmpfs: Callable[[str], Path],
    site: str,
) -> None:
    """``--sort`` on a full temporary disk ended in a traceback (closing the run flushed it again)."""
    disk = mount_tmpfs("size=64k")
    settings, _ = SITES[site]
    _force(monkeypatch, {name: value * 50 for name, value in settings.items()})  # runs of 100 entries
    monkeypatch.setattr(tempfile, "tempdir", str(disk))
    source = _sitemap(tmp_path / "in.xml", 600, repeat=100, body="/" + "p" * 300)  # about 200 KB pickled
    out = tmp_path / "out.xml"
    argv = ["convert", str(source), "-t", "sitemap", "-o", str(out)]
    code = main([*argv, "--sort", "loc"] if site == "sort-runs" else argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "no room" in err and str(disk) in err and "Traceback" not in err
    assert not out.exists() and list(tmp_path.glob("out*")) == []
    assert list(disk.iterdir()) == []


def test_the_library_raises_a_source_error_for_a_missing_tmpdir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path / "gone"))
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setattr("feedmap.converters._sort.ENTRIES_IN_MEMORY", 2)
    with pytest.raises(SourceError, match="TMPDIR"):
        list(sort_entries([Entry(loc=f"https://e.example/{n}") for n in range(5)], Options(sort="loc")))


def test_sorted_runs_are_merged_before_they_are_many(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Each run is an open file while runs are merged: past MAX_RUNS they are merged into one first."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr("feedmap.converters._sort.ENTRIES_IN_MEMORY", 2)
    monkeypatch.setattr("feedmap.converters._sort.MAX_RUNS", 3)
    locs = [f"https://e.example/{(n * 37) % 101:03d}" for n in range(101)]
    out = sort_entries([Entry(loc=loc, title=str(n)) for n, loc in enumerate(locs)], Options(sort="loc"))
    first = next(out)
    assert len(list(tmp_path.iterdir())) <= 3
    assert [first.loc, *(e.loc for e in out)] == sorted(locs)
    assert list(tmp_path.iterdir()) == []


def test_a_child_fetched_past_its_memory_copy_checks_tmpdir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], web: LocalSite
) -> None:
    """A child of a remote index is copied to a spooled file: past 10 bytes it moves to disk, in TMPDIR."""
    monkeypatch.setattr("feedmap._web.follow_children._SPOOL_IN_MEMORY", 10)
    child = _sitemap(tmp_path / "child.xml", 3).read_bytes()
    web.add("/child.xml", child, content_type="application/xml")
    index = f'<sitemapindex xmlns="{SM}"><sitemap><loc>{web.url("/child.xml")}</loc></sitemap></sitemapindex>'
    web.add("/index.xml", index, content_type="application/xml")
    missing = tmp_path / "no-such-folder"
    monkeypatch.setenv("TMPDIR", str(missing))
    monkeypatch.setattr(tempfile, "tempdir", None)
    code = main(["convert", web.url("/index.xml"), "-t", "text"])
    captured = capsys.readouterr()
    assert code != 0 and "TMPDIR" in captured.err and str(missing) in captured.err, captured.err
    assert "Traceback" not in captured.err
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", None)
    assert main(["convert", web.url("/index.xml"), "-t", "text"]) == 0
    assert capsys.readouterr().out.split() == [f"https://e.example/{n}" for n in range(3)]
