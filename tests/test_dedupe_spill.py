"""Dedupe past the in-memory cap (issue 11, item 2): the seen URLs spill to a temporary SQLite database.

The output, its order and the diagnostics are those of the in-memory path, for every policy, for
:func:`feedmap.converters.merge_duplicates` and :func:`feedmap.converters.report_duplicates`, with repeats
on both sides of the cap and locs whose hashes collide; the database's directory is removed at the end, on
error and when the output is closed early.
"""

from __future__ import annotations

import builtins
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

import feedmap._io.seen_keys as seen_keys
import feedmap.converters._duplicates as duplicates
import feedmap.converters._sort as sort
from feedmap import Diagnostic, Entry, Options, Position
from feedmap._io.seen_keys import SeenKeys
from feedmap.cli import main
from feedmap.converters import dedupe, merge_duplicates, report_duplicates

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
COLLIDING = {"https://e.example/p/3", "https://e.example/p/17", "https://e.example/p/40"}


def _entries() -> list[Entry]:
    """60 URLs, then repeats of early and late ones (some newer, some older, some without a lastmod)."""
    entries = []
    for n in range(60):
        entries.append(Entry(loc=f"https://e.example/p/{n}", lastmod=f"2024-01-{1 + n % 28:02d}", title=f"t{n}"))
    for round_ in range(3):
        for n in (3, 17, 40, 59, 0, 33, 17):
            lastmod = None if n == 0 else f"2024-0{2 + round_}-01"
            entries.append(Entry(loc=f"https://e.example/p/{n}", lastmod=lastmod, title=f"r{round_}-{n}"))
    for number, entry in enumerate(entries):
        entry.origin = Position("in.xml", number + 1)
    return entries


def _colliding_hash(text: object) -> int:
    return 7 if text in COLLIDING else builtins.hash(text)


RUNS: dict[str, Callable[..., Any]] = {
    "first": lambda entries, **kw: dedupe(entries, Options(dedupe="first"), **kw),
    "last": lambda entries, **kw: dedupe(entries, Options(dedupe="last"), **kw),
    "newest": lambda entries, **kw: dedupe(entries, Options(dedupe="newest"), **kw),
    "merge_duplicates": lambda entries, **kw: merge_duplicates(entries, **kw),
    "report_duplicates": lambda entries, **kw: report_duplicates(entries, **kw),
}


def _run(name: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    found: list[Diagnostic] = []
    out = RUNS[name](_entries(), on_diagnostic=found.append)
    written = [(e.loc, e.lastmod.text if e.lastmod else None, e.title, tuple(e.origin or ())) for e in out]
    return written, [(d.code, d.level, d.message, d.source, d.line) for d in found]


class _Counted(seen_keys._Database):
    made: ClassVar[list[Path]] = []

    def __init__(self) -> None:
        super().__init__()
        _Counted.made.append(self.folder)


@pytest.fixture
def spill(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[Path]:
    """A cap of 5 keys (then SQLite, with no compiled table between) and batches of 3; temporary files in
    ``tmp_path/scratch``; the databases made."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setattr(seen_keys, "IN_MEMORY", 5)
    monkeypatch.setattr(seen_keys, "TABLE_BYTES", 0)
    monkeypatch.setattr(seen_keys, "BATCH", 3)
    monkeypatch.setattr(_Counted, "made", [])
    monkeypatch.setattr(seen_keys, "_Database", _Counted)
    return _Counted.made


@pytest.mark.parametrize("colliding", [False, True], ids=["plain", "colliding-hashes"])
@pytest.mark.parametrize("name", list(RUNS))
def test_past_the_cap_the_output_and_diagnostics_are_those_in_memory(
    monkeypatch: pytest.MonkeyPatch, spill: list[Path], name: str, colliding: bool
) -> None:
    if colliding:
        monkeypatch.setattr(duplicates, "hash", _colliding_hash, raising=False)
    with monkeypatch.context() as in_memory:
        in_memory.setattr(seen_keys, "IN_MEMORY", 10**9)
        expected = _run(name)
    assert not spill
    assert _run(name) == expected
    assert len(spill) == 1  # the second run spilled
    assert expected[1], "the input repeats URLs"
    if name == "report_duplicates":
        assert len(expected[0]) == len(_entries())
    else:  # colliding hashes never make two URLs one, in memory or past the cap
        assert len(expected[0]) == 60


def test_the_database_holds_the_keys_until_the_output_ends(spill: list[Path]) -> None:
    merged = merge_duplicates(_entries())
    assert next(merged).loc == "https://e.example/p/0"
    assert [path.name for path in spill[0].iterdir()] == ["seen.sqlite3"]
    assert sum(1 for _ in merged) == 59
    assert not spill[0].exists()


@pytest.mark.parametrize("policy", ["first", "newest"])
def test_closing_the_output_early_removes_the_database(spill: list[Path], tmp_path: Path, policy: str) -> None:
    out = dedupe(_entries(), Options(dedupe=policy))
    assert isinstance(out, Iterator)
    for _ in range(20):
        next(out)
    assert spill and spill[0].exists()
    out.close()
    assert list((tmp_path / "scratch").iterdir()) == []


@pytest.mark.parametrize("policy", ["first", "last"])
def test_an_error_in_the_input_removes_the_database(spill: list[Path], tmp_path: Path, policy: str) -> None:
    def failing() -> Iterable[Entry]:
        yield from _entries()[:30]
        raise RuntimeError("input broke")

    with pytest.raises(RuntimeError, match="input broke"):
        list(dedupe(failing(), Options(dedupe=policy)))
    assert spill
    assert list((tmp_path / "scratch").iterdir()) == []


def test_the_cli_merges_past_the_cap_and_leaves_no_file(
    spill: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    urls = "".join(f"<url><loc>https://e.example/{n % 8}</loc></url>" for n in range(20))
    (tmp_path / "in.xml").write_text(f'<urlset xmlns="{SM}">{urls}</urlset>', encoding="utf-8")
    code = main(["convert", str(tmp_path / "in.xml"), "-t", "text", "-o", str(tmp_path / "out.txt")])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "out.txt").read_text(encoding="utf-8").split() == [f"https://e.example/{n}" for n in range(8)]
    assert "12 repeated URLs merged" in capsys.readouterr().err
    assert spill and list((tmp_path / "scratch").iterdir()) == []


def test_no_room_for_the_database_is_a_message_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, spill: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    urls = "".join(f"<url><loc>https://e.example/{n}</loc></url>" for n in range(20))
    (tmp_path / "in.xml").write_text(f'<urlset xmlns="{SM}">{urls}</urlset>', encoding="utf-8")
    code = main(["convert", str(tmp_path / "in.xml"), "-t", "sitemap", "-o", str(tmp_path / "out.xml")])
    err = capsys.readouterr().err
    assert code == 2
    assert "temporary database for repeated URLs" in err and "Traceback" not in err
    assert not (tmp_path / "out.xml").exists()


def test_seen_keys_keep_first_seen_order_across_batches_and_the_spill(spill: list[Path]) -> None:
    keys = SeenKeys()
    try:
        for n in range(12):
            keys.add(n if n % 3 else f"k{n}", n)
        keys.replace(1, 100)  # in the database
        keys.replace(11, 111)  # still waiting in the batch
        keys.replace("k0", 1000)
        assert keys.get(1) == 100 and keys.get("k0") == 1000 and keys.get(11) == 111
        assert keys.get(0) is None and keys.get("k1") is None and keys.get(12) is None
        assert list(keys.values()) == [1000, 100, 2, 3, 4, 5, 6, 7, 8, 9, 10, 111]
    finally:
        keys.close()
    assert not spill[0].exists()


def test_the_output_may_be_read_on_from_another_thread(spill: list[Path]) -> None:
    """A consumer that hands the merged stream to a worker thread: the database follows it."""
    merged = merge_duplicates(_entries())
    first = next(merged)
    rest: list[Entry] = []
    worker = threading.Thread(target=lambda: rest.extend(merged))
    worker.start()
    worker.join()
    assert [first.loc, *(e.loc for e in rest)] == [f"https://e.example/p/{n}" for n in range(60)]
    assert spill and not spill[0].exists()


def test_no_room_for_the_entries_spool_is_a_message_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The kept entries past the in-memory few go to a temporary file: a temporary folder that cannot take it
    (missing, full) is a message naming it, not an OSError traceback, and no output is left."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    monkeypatch.setattr(duplicates, "_ENTRIES_IN_MEMORY", 2)
    monkeypatch.setattr(duplicates, "_CHUNK", 100)
    urls = "".join(f"<url><loc>https://e.example/{n % 15}</loc></url>" for n in range(30))
    (tmp_path / "in.xml").write_text(f'<urlset xmlns="{SM}">{urls}</urlset>', encoding="utf-8")
    code = main(["convert", str(tmp_path / "in.xml"), "-t", "sitemap", "-o", str(tmp_path / "out.xml")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "temporary file for repeated URLs" in err and str(tmp_path / "missing") in err
    assert "Traceback" not in err
    assert not (tmp_path / "out.xml").exists()


def test_no_room_for_a_sort_run_is_a_message_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The sibling of the dedupe spill: ``--sort`` writes runs past its in-memory batch to temporary files."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    monkeypatch.setattr(sort, "ENTRIES_IN_MEMORY", 4)
    urls = "".join(f"<url><loc>https://e.example/{n}</loc></url>" for n in range(10))
    (tmp_path / "in.xml").write_text(f'<urlset xmlns="{SM}">{urls}</urlset>', encoding="utf-8")
    code = main(["convert", str(tmp_path / "in.xml"), "--sort", "loc", "-t", "text", "-o", str(tmp_path / "out.txt")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "temporary file for sorting" in err and str(tmp_path / "missing") in err
    assert "Traceback" not in err
    assert not (tmp_path / "out.txt").exists()


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ((seen_keys, "IN_MEMORY", 5), "temporary database for repeated URLs"),
        ((duplicates, "_ENTRIES_IN_MEMORY", 2), "temporary file for repeated URLs"),
        ((sort, "ENTRIES_IN_MEMORY", 4), "temporary file for sorting"),
    ],
)
def test_no_usable_temporary_folder_at_all_is_a_message_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    setting: tuple[Any, str, int],
    message: str,
) -> None:
    """When Python finds no temporary folder (tempfile.gettempdir raises), the message is still one line."""
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setattr(tempfile, "_candidate_tempdir_list", lambda: [str(tmp_path / "missing")])
    monkeypatch.setattr(duplicates, "_CHUNK", 100)
    monkeypatch.setattr(seen_keys, "TABLE_BYTES", 0)  # past the dict, the database (no compiled table between)
    monkeypatch.setattr(*setting)
    urls = "".join(f"<url><loc>https://e.example/{n % 15}</loc></url>" for n in range(30))
    (tmp_path / "in.xml").write_text(f'<urlset xmlns="{SM}">{urls}</urlset>', encoding="utf-8")
    code = main(["convert", str(tmp_path / "in.xml"), "--sort", "loc", "-t", "jsonl", "--dedupe", "last"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err and "Traceback" not in err


def test_a_python_without_sqlite3_is_told_so_when_the_keys_spill() -> None:
    """sqlite3 is imported only when the keys spill (a light import): a Python built without it gets feedmap's
    SourceError there, not a ModuleNotFoundError traceback after 250,000 URLs."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['sqlite3'] = None\n"
        "import feedmap\n"
        "import feedmap._io.seen_keys\n"
        "feedmap._io.seen_keys.TABLE_BYTES = 0\n"  # past the dict, the database (no compiled table between)
        "from feedmap._io.seen_keys import SeenKeys\n"
        "keys = SeenKeys(in_memory=2)\n"
        "try:\n"
        "    for n in range(5): keys.add(f'k{n}', n)\n"
        "except feedmap.SourceError as exc: print('SourceError')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60)
    assert done.stdout.strip() == "SourceError", done.stderr
