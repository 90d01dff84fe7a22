"""The memory of repeated URLs past its dict (issue 19, round 3): the compiled key table and its pure twin.

Past its dict, the memory of the URLs a run has seen moves into a compact table (the compiled twin, built by
``pip install``; its key texts past their memory budget in a scratch file) and past that into SQLite; the pure
twin (``FEEDMAP_PURE=1``) goes from the dict to SQLite.  Whatever the tiers crossed, each run's output and
diagnostics are those of a run whose keys all stay in the dict: through a dedupe that streams (text keys) and
one that merges (the locs' hashes as int keys, replaced, and the loc itself where two hashes are equal), through
validate (the line each URL was first seen at is in the message) and through the text lane, on both twins, with
every budget lowered so that a few URLs cross every tier, and with hashes narrowed to one bit so that every
key collides.  A scratch folder that is missing or full is said as the database's is; nothing is left on disk.
"""

from __future__ import annotations

import io
import multiprocessing.util
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import env_flag
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Diagnostic, Entry, Options
from feedmap.cli import main
from feedmap.converters import dedupe, report_duplicates

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
PURE = "FEEDMAP_PURE"
REQUIRE_ACCEL = "FEEDMAP_REQUIRE_ACCEL"
KEYS = "feedmap._io.seen_keys"
LANE = "feedmap._publish.text_lane"

NARROW = "https://e.example/ab"
LONG = "https://e.example/long/" + "x" * 3000


def _colliding(ascii_text: str) -> str | None:
    """The UCS-2 text whose storage holds the bytes of ``ascii_text``: CPython gives both one hash under any
    seed (None where it does not)."""
    wide = "".join(chr(ord(low) | ord(high) << 8) for low, high in zip(ascii_text[::2], ascii_text[1::2], strict=True))
    return wide if sys.byteorder == "little" and hash(wide) == hash(ascii_text) else None


WIDE = _colliding(NARROW)

#: Locs of every storage kind (ASCII, Latin-1, UCS-2, UCS-4), a lone surrogate, a surrogate pair written as two
#: code points (not the astral character it stands for), long ones, an IRI and its URI, two of one hash.
POOL = [
    *(f"https://e.example/{n}" for n in range(8)),
    "https://e.example/caf\u00e9",
    "https://e.example/caf%C3%A9",
    "https://e.example/\u20ac",
    "https://e.example/\U0001f600",
    "https://e.example/\ud83d\ude00",
    "https://e.example/\ud800",
    LONG,
    LONG + "y",
    NARROW,
    *([WIDE] if WIDE else []),
]
DATES = [None, "2024-01-01", "2024-01-02", "2024-01-03"]

#: Budgets that a few keys cross: the dict's keys and characters, the table's bytes (0: none; 448: 16 keys;
#: 600: slots for 12 keys, then full), the scratch file's writes, SQLite's batches, and the hash's bits.
TINY = {
    "IN_MEMORY": st.integers(min_value=1, max_value=4),
    "IN_MEMORY_BYTES": st.sampled_from([1, 25, 60, 200, 16 << 20]),
    "TABLE_BYTES": st.sampled_from([0, 200, 448, 600, 1000, 1 << 20]),
    "TEXT_WRITE_BYTES": st.sampled_from([1, 40, 1 << 20]),
    "BATCH": st.integers(min_value=1, max_value=3),
    "BATCH_BYTES": st.sampled_from([1, 100, 4 << 20]),
    "HASH_BITS": st.sampled_from([64, 64, 1]),
}
budgets = st.fixed_dictionaries(TINY)


def _twin(patch: pytest.MonkeyPatch, pure: bool) -> None:
    if pure:
        patch.setenv(PURE, "1")
    else:
        patch.delenv(PURE, raising=False)


@contextmanager
def tiers(folder: Path, pure: bool, budget: dict[str, int] | None = None) -> Iterator[None]:
    """One twin, temporary files in ``folder`` (empty afterwards), and ``budget`` (None: every key in the dict)."""
    folder.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(folder))
        _twin(patch, pure)
        for name, value in (budget or {"IN_MEMORY": 10**9, "IN_MEMORY_BYTES": 10**12}).items():
            patch.setattr(f"{KEYS}.{name}", value)
        if budget:  # the text lane holds its first URLs in a set of its own before SeenKeys
            patch.setattr(f"{LANE}.IN_MEMORY", budget["IN_MEMORY"])
            patch.setattr(f"{LANE}.IN_MEMORY_BYTES", budget["IN_MEMORY_BYTES"])
        yield
    assert list(folder.iterdir()) == [], "a spill left files behind"


def _spill_files(folder: Path) -> list[str]:
    """The files in the scratch folder of a stream of four locs past every in-memory budget, mid-stream."""
    budget = {"IN_MEMORY": 1, "IN_MEMORY_BYTES": 1, "TABLE_BYTES": 1 << 20}
    with tiers(folder, pure=False, budget=budget):
        out = report_duplicates([Entry(loc=f"https://e.example/{n}") for n in range(4)], Options())
        for _ in range(4):
            next(out)
        names = sorted(path.name for made in folder.iterdir() for path in made.iterdir())
        assert list(out) == []
    return names


@pytest.fixture(params=["pure", "compiled"])
def pure(request: pytest.FixtureRequest, tmp_path: Path) -> bool:
    """Each twin; the compiled one skips where it was not built (and fails then under CI)."""
    if request.param == "compiled" and _spill_files(tmp_path / "probe") != ["keys.bin"]:
        message = "the compiled key table is not built here (pip install with a C compiler builds it)"
        if env_flag(REQUIRE_ACCEL):
            pytest.fail(f"{message}; {REQUIRE_ACCEL} is set")
        pytest.skip(message)
    return bool(request.param == "pure")


# ------------------------------------------------------------------------------------------ which twin runs


def test_the_compiled_table_is_in_use_where_required(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """CI sets FEEDMAP_REQUIRE_ACCEL=1: the install built the key table, and past the dict the keys go to it
    (its scratch file of texts), not to SQLite."""
    if not env_flag(REQUIRE_ACCEL):
        pytest.skip(f"{REQUIRE_ACCEL} is not set (CI sets it)")
    monkeypatch.delenv(PURE, raising=False)
    assert _spill_files(tmp_path) == ["keys.bin"], "the compiled key table was not built or does not load"


def test_feedmap_pure_sends_the_keys_past_the_dict_to_sqlite(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(PURE, "1")
    budget = {"IN_MEMORY": 1, "IN_MEMORY_BYTES": 1, "TABLE_BYTES": 1 << 20}
    with tiers(tmp_path / "scratch", pure=True, budget=budget):
        out = report_duplicates([Entry(loc=f"https://e.example/{n}") for n in range(4)], Options())
        assert next(out).loc == "https://e.example/0"
        assert [p.name for made in (tmp_path / "scratch").iterdir() for p in made.iterdir()] == ["seen.sqlite3"]
        assert len(list(out)) == 3


# ------------------------------------------------------------------------- every tier, against the dict


def _entries(drawn: list[tuple[int, int]]) -> list[Entry]:
    return [Entry(loc=POOL[loc], lastmod=DATES[date], title=f"e{n}") for n, (loc, date) in enumerate(drawn)]


def _deduped(drawn: list[tuple[int, int]], policy: str) -> tuple[list[tuple[str, str]], list[str]]:
    found: list[Diagnostic] = []
    entries = _entries(drawn)
    if policy == "report":
        out = report_duplicates(entries, Options(), on_diagnostic=found.append)
    else:
        out = dedupe(entries, Options(dedupe=policy), on_diagnostic=found.append)
    kept = [(entry.loc, entry.title or "") for entry in out]
    return kept, [f"{d.code} {d.message} {d.line}" for d in found]


drawn_entries = st.lists(
    st.tuples(st.integers(min_value=0, max_value=len(POOL) - 1), st.integers(min_value=0, max_value=3)),
    max_size=50,
)
#: Entries that repeat none of a run of distinct locs first (so the table fills), then anything.
filling = st.builds(
    lambda rest: [(n % len(POOL), 1) for n in range(len(POOL))] + rest,
    drawn_entries,
)


@pytest.mark.parametrize("policy", ["first", "last", "newest", "report"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=st.one_of(drawn_entries, filling), budget=budgets)
def test_dedupe_past_every_tier_is_dedupe_in_a_dict(
    pure: bool, tmp_path: Path, policy: str, drawn: list[tuple[int, int]], budget: dict[str, int]
) -> None:
    """Text keys (first, report: ``add_new``), the locs' hashes as int keys with their replacements, and the
    loc itself where two locs' hashes are equal (last, newest: ``get``, ``add``, ``replace``, ``values``)."""
    with tiers(tmp_path / "dict", pure):
        expected = _deduped(drawn, policy)
    with tiers(tmp_path / "tiers", pure, budget):
        assert _deduped(drawn, policy) == expected


def _validated(lines: list[int]) -> list[str]:
    found: list[Diagnostic] = []
    text = "".join(POOL[n] + "\n" for n in lines).encode("utf-8", "surrogatepass")
    feedmap.validate(io.BytesIO(text), format="text", on_diagnostic=found.append)
    return [f"{d.code} {d.line} {d.message}" for d in found]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.integers(min_value=0, max_value=len(POOL) - 1), max_size=40), budget=budgets)
def test_validate_past_every_tier_names_the_first_line_as_in_a_dict(
    pure: bool, tmp_path: Path, lines: list[int], budget: dict[str, int]
) -> None:
    """Validate keeps each URL's first line as the value: a repeat's message names it, from every tier."""
    with tiers(tmp_path / "dict", pure):
        expected = _validated(lines)
    assert any("also" in message for message in expected) or len(set(lines)) == len(lines)
    with tiers(tmp_path / "tiers", pure, budget):
        assert _validated(lines) == expected


def _split(folder: Path, lines: list[int]) -> tuple[dict[str, bytes], list[str]]:
    source = folder / "urls.txt"
    source.write_text("".join(f"https://e.example/{n}\n" for n in lines), encoding="utf-8")
    found: list[Diagnostic] = []
    out = folder / "out"
    options = Options(base_url="https://e.example/maps/")
    feedmap.convert(source, f"{out}/", "sitemap", options, split=True, on_diagnostic=found.append)
    written = {path.name: path.read_bytes() for path in sorted(out.iterdir())}
    for path in out.iterdir():
        path.unlink()
    out.rmdir()
    source.unlink()
    return written, [f"{d.code} {d.line} {d.message}" for d in found]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.integers(min_value=0, max_value=30), min_size=1, max_size=60), budget=budgets)
def test_the_text_lane_past_every_tier_writes_what_it_writes_in_a_dict(
    pure: bool, tmp_path: Path, lines: list[int], budget: dict[str, int]
) -> None:
    """The lane's repeats (``get`` then ``add``, the line as the value) past its set, SeenKeys' dict, the
    table and SQLite: the same split files and the same diagnostics."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    with tiers(tmp_path / "dict", pure):
        expected = _split(work, lines)
    with tiers(tmp_path / "tiers", pure, budget):
        assert _split(work, lines) == expected


def _jobs_text(folder: Path, children: list[list[int]], jobs: int = 2) -> tuple[bytes, list[str]]:
    """An index of ``children`` (each the numbers of its URLs) read by ``jobs`` workers and written as one text
    sitemap: two workers send their batches of locs, the run adds each batch to its keys in one call."""
    site = folder / "site"
    site.mkdir()
    for n, numbers in enumerate(children):
        rows = "".join(f"<url><loc>https://e.example/{k}</loc></url>\n" for k in numbers)
        (site / f"c{n}.xml").write_text(f'<urlset xmlns="{SM}">\n{rows}</urlset>\n', encoding="utf-8")
    rows = "".join(f"<sitemap><loc>https://e.example/maps/c{n}.xml</loc></sitemap>" for n in range(len(children)))
    (site / "index.xml").write_text(f'<sitemapindex xmlns="{SM}">{rows}</sitemapindex>\n', encoding="utf-8")
    found: list[Diagnostic] = []
    out = folder / "out.txt"
    options = Options(jobs=jobs, maps=(("https://e.example/maps/", str(site)),))
    feedmap.convert(site / "index.xml", out, "text", options, on_diagnostic=found.append)
    written = out.read_bytes()
    for path in [*site.iterdir(), out]:
        path.unlink()
    site.rmdir()
    return written, [f"{d.code} {d.source} {d.line} {d.message}" for d in found]


#: Children of thousands of URLs (more than a worker's batch), with repeats in a batch, across batches and
#: across children, and a child of repeats only.
BLOCKS = [
    [*range(3000), *range(2990, 3010), 5],
    [*range(2500, 7000)],
    [*range(0, 7000, 97)],
    [*range(7000, 9100), 7000, 9099],
]


@pytest.mark.parametrize(
    "budget",
    [
        {"IN_MEMORY": 3, "IN_MEMORY_BYTES": 16 << 20, "TABLE_BYTES": 1 << 20, "TEXT_WRITE_BYTES": 40},
        {"IN_MEMORY": 100, "IN_MEMORY_BYTES": 200, "TABLE_BYTES": 1 << 20, "TEXT_WRITE_BYTES": 1 << 20},
        {"IN_MEMORY": 3, "IN_MEMORY_BYTES": 16 << 20, "TABLE_BYTES": 4000, "TEXT_WRITE_BYTES": 40},
        {"IN_MEMORY": 3, "IN_MEMORY_BYTES": 16 << 20, "TABLE_BYTES": 0, "TEXT_WRITE_BYTES": 40},
    ],
    ids=["table", "table-by-characters", "table-then-sqlite", "sqlite"],
)
def test_the_jobs_lane_past_every_tier_writes_what_it_writes_in_a_dict(
    pure: bool, tmp_path: Path, budget: dict[str, int]
) -> None:
    """``--jobs 2`` to a text sitemap adds each batch of locs at once (``add_block``): past the dict, in the
    table and in SQLite, the lines and the repeats said of ``--jobs 1``, on both twins."""
    multiprocessing.util.get_temp_dir()  # the process's folder of its workers' sockets: made outside the tiers'
    work = tmp_path / "work"
    work.mkdir()
    with tiers(tmp_path / "dict", pure):
        expected = _jobs_text(work, BLOCKS, jobs=1)
        assert _jobs_text(work, BLOCKS) == expected
    assert any(line.startswith("loc-duplicate") for line in expected[1])
    with tiers(tmp_path / "tiers", pure, budget):
        assert _jobs_text(work, BLOCKS) == expected


# ------------------------------------------------------------------------------------ keys stay exact


@pytest.mark.parametrize("bits", [0, 1, 64])
def test_keys_of_one_hash_stay_apart_in_the_table_and_in_the_file(pure: bool, tmp_path: Path, bits: int) -> None:
    """With the hashes narrowed to ``bits`` bits, every key's tag matches every other's: the table tells them
    apart by their texts, read back from its scratch file past the budget, and the ints by their values."""
    locs = [*POOL, *(f"https://e.example/p/{n}" for n in range(40))]
    entries = [Entry(loc=loc, title=f"e{n}") for n, loc in enumerate([*locs, *locs[::-1], *locs])]
    budget = {"IN_MEMORY": 3, "IN_MEMORY_BYTES": 120, "TABLE_BYTES": 1 << 20, "TEXT_WRITE_BYTES": 50}
    results = []
    for setting in (None, {**budget, "HASH_BITS": bits}):
        with tiers(tmp_path / "scratch", pure, setting):
            first = [e.loc for e in dedupe(entries, Options(dedupe="first", keep_urls=True))]
            last = [(e.loc, e.title) for e in dedupe(entries, Options(dedupe="last", keep_urls=True))]
        results.append((first, last))
    assert results[0] == results[1]
    assert len(results[0][0]) == len(set(locs)) == len(locs)


def test_an_ascii_loc_and_the_wide_loc_of_its_bytes_are_two_urls(pure: bool, tmp_path: Path) -> None:
    """CPython hashes a text's storage: an ASCII text and the UCS-2 text of its bytes have one hash and the
    same stored bytes but for their kind, which the table compares too."""
    if WIDE is None:
        pytest.skip("this interpreter does not hash strings by their storage bytes")
    entries = [Entry(loc=f"https://e.example/{n}") for n in range(5)]
    entries += [Entry(loc=NARROW), Entry(loc=WIDE), Entry(loc=WIDE), Entry(loc=NARROW)]
    budget = {"IN_MEMORY": 2, "IN_MEMORY_BYTES": 40, "TABLE_BYTES": 1 << 20, "TEXT_WRITE_BYTES": 1}
    with tiers(tmp_path / "scratch", pure, budget):
        out = [e.loc for e in report_duplicates(entries, Options(keep_urls=True))]
    assert out[5:] == [NARROW, WIDE, WIDE, NARROW]
    with tiers(tmp_path / "scratch", pure, budget):
        kept = [e.loc for e in dedupe(entries, Options(dedupe="first", keep_urls=True))]
    assert kept[5:] == [NARROW, WIDE]


# -------------------------------------------------------------------------------------- the scratch file


def _urlset(path: Path, count: int, *, repeat: int = 0, size: int = 0) -> Path:
    body = "/" + "p" * size if size else ""
    urls = "".join(f"<url><loc>https://e.example/{n % (count - repeat)}{body}</loc></url>" for n in range(count))
    path.write_text(f'<urlset xmlns="{SM}">{urls}</urlset>', encoding="utf-8")
    return path


#: Texts past a dict of 2 keys and 40 characters: to the table's scratch file (compiled), to SQLite (pure), or,
#: with no table, to SQLite on both twins (batches of 10 keys: written before the input ends).
TO_THE_FILE = {"IN_MEMORY": 2, "IN_MEMORY_BYTES": 40, "TABLE_BYTES": 1 << 20, "TEXT_WRITE_BYTES": 1, "BATCH": 10}
TO_SQLITE = {**TO_THE_FILE, "TABLE_BYTES": 0}


def _said(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.err + captured.out


@pytest.mark.parametrize("command", ["convert", "validate"])
def test_a_missing_scratch_folder_is_said_as_for_the_database(
    pure: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    source = _urlset(tmp_path / "in.xml", 20, repeat=5)
    out = tmp_path / "out.txt"
    argv = ["convert", str(source), "-t", "text", "-o", str(out)] if command == "convert" else ["validate", str(source)]
    missing = tmp_path / "missing"
    said = []
    for budget in (TO_THE_FILE, TO_SQLITE):
        with pytest.MonkeyPatch.context() as patch:
            _twin(patch, pure)
            patch.setattr(tempfile, "tempdir", str(missing))
            for name, value in budget.items():
                patch.setattr(f"{KEYS}.{name}", value)
            code, err = _said(capsys, argv)
        assert code == 2, err
        assert "Traceback" not in err and not out.exists() and not missing.exists()
        said.append(re.sub(r"feedmap-dedupe-\w+", "feedmap-dedupe-X", err))
    assert said[0] == said[1]
    assert f"temporary database for repeated URLs in {missing}: " in said[0]


def test_a_full_scratch_disk_is_no_room_and_leaves_nothing(
    pure: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str], mount_tmpfs: Any
) -> None:
    disk = mount_tmpfs("size=64k")
    source = _urlset(tmp_path / "in.xml", 600, repeat=100, size=300)  # about 180 KB of locs
    out = tmp_path / "out.txt"
    for budget in (TO_THE_FILE, TO_SQLITE):
        with pytest.MonkeyPatch.context() as patch:
            _twin(patch, pure)
            patch.setattr(tempfile, "tempdir", str(disk))
            for name, value in budget.items():
                patch.setattr(f"{KEYS}.{name}", value)
            code, err = _said(capsys, ["convert", str(source), "-t", "text", "-o", str(out)])
        assert code == 2, err
        assert f"temporary database for repeated URLs in {disk}: " in err
        assert "no room left; set TMPDIR to a folder with room" in err and "Traceback" not in err
        assert not out.exists() and list(disk.iterdir()) == []


def test_the_scratch_file_is_removed_when_the_output_is_closed_early(pure: bool, tmp_path: Path) -> None:
    entries = [Entry(loc=f"https://e.example/{n}") for n in range(30)]
    with tiers(tmp_path / "scratch", pure, TO_THE_FILE):
        out = dedupe(entries * 2, Options(dedupe="first"))
        assert isinstance(out, Iterator)
        for _ in range(10):
            next(out)
        assert list((tmp_path / "scratch").iterdir())
        out.close()


def test_an_error_in_the_input_removes_the_scratch_file(pure: bool, tmp_path: Path) -> None:
    def failing() -> Iterator[Entry]:
        yield from (Entry(loc=f"https://e.example/{n}") for n in range(30))
        raise RuntimeError("input broke")

    with tiers(tmp_path / "scratch", pure, TO_THE_FILE), pytest.raises(RuntimeError, match="input broke"):
        list(dedupe(failing(), Options(dedupe="last")))
