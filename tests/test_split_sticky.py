"""Publishing that rewrites only what changed (issue 21): each URL kept in the file that held it.

A run into a directory holding a previous run of the set reads back which URL is in which file (the index and
the files it names) and keeps each URL there; removed URLs leave their file shorter, new ones fill the last file
and then new files; a file passing a limit keeps the entries that fit and the others move like new ones;
``rebalance`` (``--rebalance``) and ``sort`` cut afresh.  What was rewritten is told by each file's inode: the
Publisher puts a rewritten file in place by a rename, and leaves an unchanged one as it is.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest
from conftest import run
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Diagnostic, Entry, Image, W3CDate

BASE = "https://example.com/maps/"
INDEX = "sitemap_index.xml"


def page(number: int, *, images: int = 0, day: int = 0) -> Entry:
    pictures = tuple(Image(loc=f"{BASE}img/{number}/{i}.jpg") for i in range(images))
    return Entry(loc=f"{BASE}p/{number}", images=pictures, lastmod=W3CDate(f"2024-01-{day:02d}") if day else None)


def pages(numbers: Iterable[int]) -> list[Entry]:
    return [page(number) for number in numbers]


def publish(
    entries: Iterable[Entry], folder: Path, format: str = "sitemap", **settings: object
) -> tuple[feedmap.SplitSummary, list[Diagnostic]]:
    said: list[Diagnostic] = []
    options = feedmap.Options(base_url=BASE, **settings)  # type: ignore[arg-type]
    return feedmap.split(list(entries), folder, format, options, on_diagnostic=said.append), said


def state(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Each file of the folder: its inode and bytes."""
    return {path.name: (path.stat().st_ino, path.read_bytes()) for path in sorted(folder.iterdir()) if path.is_file()}


def rewritten(before: dict[str, tuple[int, bytes]], after: dict[str, tuple[int, bytes]]) -> set[str]:
    """The files put in place anew (a new inode), or new."""
    return {name for name, (inode, _) in after.items() if name not in before or before[name][0] != inode}


def held(folder: Path, format: str = "sitemap") -> dict[str, list[str]]:
    """Each file the index names, and its URLs in order, read back by feedmap."""
    with feedmap.read(folder / INDEX, options=feedmap.Options(follow=False)) as index:
        names = [entry.loc.removeprefix(BASE) for entry in index.entries]
    found: dict[str, list[str]] = {}
    for name in names:
        with feedmap.read(folder / name, format) as doc:
            found[name] = [entry.loc for entry in doc.entries]
    return found


def same_bytes(one: Path, other: Path) -> bool:
    """Whether two folders hold the same files with the same bytes."""
    return {k: v[1] for k, v in state(one).items()} == {k: v[1] for k, v in state(other).items()}


def numbers(locs: Sequence[str]) -> list[int]:
    return [int(loc.rsplit("/", 1)[1]) for loc in locs]


def codes(said: list[Diagnostic]) -> list[str]:
    return [one.code for one in said]


# ----------------------------------------------------------------------------------------------- the nightly case


def test_one_url_removed_from_the_middle_and_ten_added_rewrite_two_files_and_the_index(tmp_path: Path) -> None:
    first, _ = publish([page(n, day=1) for n in range(90)], tmp_path, max_urls=20)
    assert first.files == tuple(f"sitemap-{n}.xml" for n in range(1, 6))  # 20, 20, 20, 20, 10
    before = state(tmp_path)
    edited = [page(n, day=1) for n in [*range(45), *range(46, 90)]] + [page(n, day=2) for n in range(1000, 1010)]
    summary, said = publish(edited, tmp_path, max_urls=20)
    after = state(tmp_path)
    assert rewritten(before, after) == {"sitemap-3.xml", "sitemap-5.xml", INDEX}
    assert set(summary.written) == {"sitemap-3.xml", "sitemap-5.xml", INDEX}
    assert len(summary.unchanged) == 3 and summary.removed == () and summary.entries == 99
    assert summary.files == first.files
    files = held(tmp_path)
    assert numbers(files["sitemap-3.xml"]) == [*range(40, 45), *range(46, 60)]  # shorter by one
    assert numbers(files["sitemap-5.xml"]) == [*range(80, 90), *range(1000, 1010)]  # the new ones after
    assert "cut-afresh" not in codes(said) and "previous-run-unusable" not in codes(said)


def test_the_command_line_keeps_each_url_in_its_file_and_says_what_changed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    listed = tmp_path / "urls.txt"
    listed.write_text("".join(f"{BASE}p/{n}\n" for n in range(90)))
    code, _, err = run(capsys, "convert", listed, "-o", f"{out}/", "--base-url", BASE, "--max-urls", "20")
    assert code == 0 and err.splitlines()[-1].endswith("6 files written, 0 unchanged, 0 removed")
    before = state(out)
    listed.write_text("".join(f"{BASE}p/{n}\n" for n in [*range(45), *range(46, 90), *range(1000, 1010)]))
    code, _, err = run(capsys, "convert", listed, "-o", f"{out}/", "--base-url", BASE, "--max-urls", "20")
    assert code == 0 and err.splitlines()[-1].endswith("2 files written, 4 unchanged, 0 removed"), err
    assert rewritten(before, state(out)) == {"sitemap-3.xml", "sitemap-5.xml"}  # the index names the same files
    code, _, err = run(
        capsys, "convert", listed, "-o", f"{out}/", "--base-url", BASE, "--max-urls", "20", "--rebalance"
    )
    assert code == 0 and err.splitlines()[-1].endswith("3 files written, 3 unchanged, 0 removed"), err  # 3, 4, 5


def test_the_same_input_again_rewrites_nothing(tmp_path: Path) -> None:
    publish(pages(range(50)), tmp_path, max_urls=8)
    edited = pages([*range(3, 20), *range(25, 50), *range(200, 213)])
    publish(edited, tmp_path, max_urls=8)
    before = state(tmp_path)
    summary, _ = publish(edited, tmp_path, max_urls=8)
    assert state(tmp_path) == before  # same inodes, same bytes
    assert summary.written == () and len(summary.unchanged) == len(before)


def test_only_removals_rewrite_only_the_files_that_held_them(tmp_path: Path) -> None:
    publish(pages(range(60)), tmp_path, max_urls=10)
    before = state(tmp_path)
    summary, _ = publish(pages([n for n in range(60) if n not in (3, 4, 35)]), tmp_path, max_urls=10)
    assert rewritten(before, state(tmp_path)) == {"sitemap-1.xml", "sitemap-4.xml"}
    assert summary.files == tuple(f"sitemap-{n}.xml" for n in range(1, 7))  # no file added, none renumbered
    assert numbers(held(tmp_path)["sitemap-6.xml"]) == list(range(50, 60))


def test_only_additions_fill_the_last_file_then_new_ones(tmp_path: Path) -> None:
    publish(pages(range(25)), tmp_path, max_urls=10)  # 10, 10, 5
    before = state(tmp_path)
    summary, _ = publish(pages([*range(100, 104), *range(25), *range(104, 112)]), tmp_path, max_urls=10)
    assert rewritten(before, state(tmp_path)) == {"sitemap-3.xml", "sitemap-4.xml", INDEX}  # the index names 4
    files = held(tmp_path)
    assert numbers(files["sitemap-3.xml"]) == [100, 101, 102, 103, 20, 21, 22, 23, 24, 104]  # in input order
    assert numbers(files["sitemap-4.xml"]) == list(range(105, 112))
    assert summary.files == ("sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml", "sitemap-4.xml")


def test_an_emptied_file_is_removed_and_its_number_left_unused(tmp_path: Path) -> None:
    publish(pages(range(30)), tmp_path, max_urls=10)
    before = state(tmp_path)
    summary, said = publish(pages([*range(10), *range(20, 30)]), tmp_path, max_urls=10)
    assert summary.files == ("sitemap-1.xml", "sitemap-3.xml") and summary.removed == ("sitemap-2.xml",)
    assert rewritten(before, state(tmp_path)) == {INDEX} and not (tmp_path / "sitemap-2.xml").exists()
    assert "stale-files-removed" in codes(said)
    summary, _ = publish(pages([*range(10), *range(20, 30), *range(40, 45)]), tmp_path, max_urls=10)
    assert summary.files == ("sitemap-1.xml", "sitemap-3.xml", "sitemap-4.xml")  # the gap stays


def test_an_emptied_last_file_takes_the_new_urls(tmp_path: Path) -> None:
    publish(pages(range(25)), tmp_path, max_urls=10)
    summary, _ = publish(pages([*range(20), 70, 71]), tmp_path, max_urls=10)
    assert summary.files == ("sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml")
    assert numbers(held(tmp_path)["sitemap-3.xml"]) == [70, 71]


def test_no_url_kept_is_a_fresh_cut(tmp_path: Path) -> None:
    publish(pages(range(25)), tmp_path / "sticky", max_urls=10)
    summary, _ = publish(pages(range(100, 112)), tmp_path / "sticky", max_urls=10)
    publish(pages(range(100, 112)), tmp_path / "fresh", max_urls=10)
    assert summary.files == ("sitemap-1.xml", "sitemap-2.xml") and summary.removed == ("sitemap-3.xml",)
    assert same_bytes(tmp_path / "sticky", tmp_path / "fresh")


def test_nothing_left_writes_one_empty_file_as_a_first_run_does(tmp_path: Path) -> None:
    publish(pages(range(25)), tmp_path, max_urls=10)
    summary, said = publish([], tmp_path, max_urls=10)
    assert summary.files == ("sitemap-1.xml",) and held(tmp_path) == {"sitemap-1.xml": []}
    assert "empty-document" in codes(said)


# ------------------------------------------------------------------------------------------------- limits


def test_an_entry_grown_past_the_byte_limit_moves_and_its_file_keeps_the_rest(tmp_path: Path) -> None:
    limit = 1_270  # the files of 30 pages of one image: three or more
    first, _ = publish([page(n, images=1) for n in range(30)], tmp_path, max_file_bytes=limit)
    assert len(first.files) >= 3
    before_files = held(tmp_path)
    second_file = before_files["sitemap-2.xml"]
    grown = numbers(second_file)[1]
    before = state(tmp_path)
    entries = [page(n, images=12 if n == grown else 1) for n in range(30)]
    summary, _ = publish(entries, tmp_path, max_file_bytes=limit)
    after = held(tmp_path)
    assert all((tmp_path / name).stat().st_size <= limit for name in summary.files)
    assert numbers(after["sitemap-2.xml"]) == [n for n in numbers(second_file) if n != grown]
    last, added = first.files[-1], summary.files[len(first.files) :]
    assert grown in [n for name in (last, *added) for n in numbers(after[name])]  # with the new ones
    assert rewritten(before, state(tmp_path)) - {INDEX} <= {"sitemap-2.xml", last, *added}
    assert sorted(n for locs in after.values() for n in numbers(locs)) == list(range(30))


def test_a_lowered_url_limit_recuts_only_the_files_over_it(tmp_path: Path) -> None:
    publish(pages(range(10)), tmp_path / "out", max_urls=10)  # one file of 10
    summary, _ = publish(pages(range(10)), tmp_path / "out", max_urls=4)
    files = held(tmp_path / "out")
    assert [numbers(files[name]) for name in summary.files] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_an_entry_larger_than_a_file_stays_alone_in_its_file(tmp_path: Path) -> None:
    huge = page(5, images=40)
    entries = [*pages(range(5)), huge, *pages(range(6, 12))]
    publish(entries, tmp_path, max_file_bytes=2_000)
    placed = {n: name for name, locs in held(tmp_path).items() for n in numbers(locs)}
    _, said = publish([*entries, page(99)], tmp_path, max_file_bytes=2_000)
    assert codes(said).count("entry-too-large") == 1
    now = held(tmp_path)
    assert numbers(now[placed[5]]) == [5]
    assert {n: name for name, locs in now.items() for n in numbers(locs) if n != 99} == placed


def test_past_the_file_cap_with_the_kept_files_nothing_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from feedmap._publish import split as splitting  # the cap is a constant of feedmap's: lowered here

    publish(pages(range(0, 40, 2)), tmp_path, max_urls=10)  # 2 files of the even numbers
    publish(pages(range(1, 40, 2)), tmp_path, max_urls=10)  # none kept: 2 files of the odd ones
    publish([*pages(range(1, 40, 2)), *pages(range(100, 105))], tmp_path, max_urls=10)  # 3 files
    before = state(tmp_path)
    monkeypatch.setattr(splitting, "MAX_FILES", 3)
    with pytest.raises(feedmap.LimitError, match="3 files"):
        publish([*pages(range(1, 40, 2)), *pages(range(100, 120))], tmp_path, max_urls=10)  # a 4th file
    assert state(tmp_path) == before


# ------------------------------------------------------------------------------------------------- fresh cuts


def test_rebalance_is_the_cut_of_a_first_run(tmp_path: Path) -> None:
    publish(pages(range(40)), tmp_path / "kept", max_urls=7)
    edited = pages([*range(100, 110), *range(0, 40, 2)])
    kept, _ = publish(edited, tmp_path / "kept", max_urls=7)
    summary, _ = publish(edited, tmp_path / "kept", max_urls=7, rebalance=True)
    fresh, _ = publish(edited, tmp_path / "fresh", max_urls=7)
    assert summary.files == fresh.files and len(kept.files) > len(fresh.files)
    assert same_bytes(tmp_path / "kept", tmp_path / "fresh")
    assert summary.removed == tuple(name for name in kept.files if name not in fresh.files)


def test_a_sorted_run_is_cut_afresh(tmp_path: Path) -> None:
    publish(pages(range(30)), tmp_path / "kept", max_urls=7)
    edited = pages([*range(100, 110), *range(30)])
    summary, _ = publish(edited, tmp_path / "kept", max_urls=7, sort="loc")
    fresh, _ = publish(edited, tmp_path / "fresh", max_urls=7, sort="loc")
    assert summary.files == fresh.files
    assert same_bytes(tmp_path / "kept", tmp_path / "fresh")


def test_an_index_of_another_set_is_a_fresh_cut_said_in_a_note(tmp_path: Path) -> None:
    publish(pages(range(30)), tmp_path, max_urls=10)
    summary, said = publish(pages(range(30)), tmp_path, max_urls=10, gzip=True)
    (note,) = [one for one in said if one.code == "cut-afresh"]
    assert note.level == feedmap.Level.INFO and "sitemap-1.xml" in note.message and note.source.endswith(INDEX)
    assert summary.files == ("sitemap-1.xml.gz", "sitemap-2.xml.gz", "sitemap-3.xml.gz")
    assert summary.removed == ("sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml")


@pytest.mark.parametrize(
    "there",
    [f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{BASE}p/1</loc></url></urlset>', "<no"],
)
def test_a_file_at_the_index_name_that_is_no_index_is_replaced_with_a_note(tmp_path: Path, there: str) -> None:
    (tmp_path / INDEX).write_text(there)
    summary, said = publish(pages(range(3)), tmp_path)
    (note,) = [one for one in said if one.code == "cut-afresh"]
    assert note.level == feedmap.Level.INFO and "is no sitemap index of a set" in note.message
    assert "previous-run-unusable" not in codes(said) and summary.files == ("sitemap-1.xml",)


def corrupt_second(folder: Path) -> None:
    path = folder / "sitemap-2.xml"
    path.write_bytes(path.read_bytes()[:-40])  # cut off: no longer well-formed


def unlist_second(folder: Path) -> None:
    (folder / "sitemap-2.xml").unlink()


def repeat_across(folder: Path) -> None:
    path = folder / "sitemap-3.xml"
    path.write_text(path.read_text().replace("</urlset>", f"<url><loc>{BASE}p/5</loc></url></urlset>"))


def cut_index(folder: Path) -> None:
    path = folder / INDEX
    path.write_bytes(path.read_bytes()[:-60])


def index_names_a_stranger(folder: Path) -> None:
    path = folder / INDEX
    stranger = f"<sitemap><loc>{BASE}other.xml</loc></sitemap></sitemapindex>"
    path.write_text(path.read_text().replace("</sitemapindex>", stranger))


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (corrupt_second, "sitemap-2.xml does not read back as written (warning[xml-not-well-formed]"),
        (unlist_second, "sitemap-2.xml, which is missing"),
        (repeat_across, f"{BASE}p/5 is in sitemap-1.xml too"),
        (index_names_a_stranger, f"{BASE}other.xml"),
        (cut_index, "sitemap_index.xml does not read back as written (warning[xml-not-well-formed]"),
    ],
)
def test_a_previous_run_that_cannot_be_read_back_is_a_fresh_cut_with_a_warning(
    tmp_path: Path, damage: object, says: str
) -> None:
    publish(pages(range(30)), tmp_path / "out", max_urls=10)
    edited = pages([*range(100, 105), *range(2, 30)])
    publish(edited, tmp_path / "out", max_urls=10)  # files of uneven lengths: a fresh cut differs
    damage(tmp_path / "out")  # type: ignore[operator]
    summary, said = publish(edited, tmp_path / "out", max_urls=10)
    (warning,) = [one for one in said if one.code == "previous-run-unusable"]
    assert warning.level == feedmap.Level.WARNING and says in warning.message and "cut afresh" in warning.message
    fresh, _ = publish(edited, tmp_path / "fresh", max_urls=10)
    assert summary.files == fresh.files
    assert {name: (tmp_path / "out" / name).read_bytes() for name in fresh.files} == {
        name: (tmp_path / "fresh" / name).read_bytes() for name in fresh.files
    }


def test_what_makes_a_file_damaged_are_codes_of_reading() -> None:
    from feedmap._core.rules import RULES  # no public name for the tables: the codes as feedmap registers them
    from feedmap._publish.previous import DAMAGE

    assert set(RULES) >= DAMAGE


def test_strict_stops_at_an_unusable_previous_run_before_anything_changes(tmp_path: Path) -> None:
    publish(pages(range(30)), tmp_path, max_urls=10)
    corrupt_second(tmp_path)
    before = state(tmp_path)
    with pytest.raises(feedmap.StrictError, match=r"sitemap-2\.xml does not read back as written"):
        publish(pages(range(31)), tmp_path, max_urls=10, strict=True)
    assert state(tmp_path) == before


def test_a_hand_edit_that_reads_back_is_kept(tmp_path: Path) -> None:
    """The files are the record: a URL moved by hand from file 1 to file 3 stays in file 3."""
    publish(pages(range(30)), tmp_path, max_urls=10)
    first, third = tmp_path / "sitemap-1.xml", tmp_path / "sitemap-3.xml"
    moved = f"<url><loc>{BASE}p/4</loc></url>\n"
    first.write_text(first.read_text().replace(moved, ""))
    third.write_text(third.read_text().replace("</urlset>", moved + "</urlset>"))
    publish(pages(range(30)), tmp_path, max_urls=10)
    files = held(tmp_path)
    assert 4 in numbers(files["sitemap-3.xml"]) and 4 not in numbers(files["sitemap-1.xml"])


# --------------------------------------------------------------------------------------------- other outputs


@pytest.mark.parametrize("gzip_files", [False, True])
def test_text_files_keep_their_urls(tmp_path: Path, gzip_files: bool) -> None:
    publish(pages(range(25)), tmp_path, "text", max_urls=10, gzip=gzip_files)
    before = state(tmp_path)
    publish(pages([*range(12), *range(13, 25), 77]), tmp_path, "text", max_urls=10, gzip=gzip_files)
    suffix = ".gz" if gzip_files else ""
    assert rewritten(before, state(tmp_path)) == {f"urls-2.txt{suffix}", f"urls-3.txt{suffix}"}
    body = (tmp_path / f"urls-3.txt{suffix}").read_bytes()
    text = (gzip.decompress(body) if gzip_files else body).decode()
    assert text == "".join(f"{BASE}p/{n}\n" for n in [*range(20, 25), 77])


def test_gzip_sitemaps_keep_their_urls_and_unchanged_ones_their_bytes(tmp_path: Path) -> None:
    publish(pages(range(30)), tmp_path, max_urls=10, gzip=True)
    before = state(tmp_path)
    summary, _ = publish(pages([n for n in range(30) if n != 15]), tmp_path, max_urls=10, gzip=True)
    assert rewritten(before, state(tmp_path)) == {"sitemap-2.xml.gz"}
    assert summary.written == ("sitemap-2.xml.gz",) and len(summary.unchanged) == 3


@pytest.mark.parametrize(("format", "named"), [("rss", "feed"), ("ror", "ror")])
def test_feed_files_keep_their_items_and_their_own_self_links(tmp_path: Path, format: str, named: str) -> None:
    items = [dataclasses.replace(entry, title=f"Page {n}") for n, entry in enumerate(pages(range(12)))]
    publish(items, tmp_path, format, max_urls=5)
    before = state(tmp_path)
    publish([*items[:6], *items[7:], page(50)], tmp_path, format, max_urls=5)
    assert rewritten(before, state(tmp_path)) == {f"{named}-2.xml", f"{named}-3.xml"}
    assert f'href="{BASE}{named}-2.xml"'.encode() in (tmp_path / f"{named}-2.xml").read_bytes()
    assert [numbers(locs) for locs in held(tmp_path, format).values()] == [[0, 1, 2, 3, 4], [5, 7, 8, 9], [10, 11, 50]]


def test_a_text_sitemap_input_is_placed_the_same_by_its_fast_lane_and_by_the_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text sitemap split into sitemaps takes the text lane (blocks of plain URLs): placed one by one there."""
    for lane in ("lane", "steps"):
        folder = tmp_path / lane
        listed = tmp_path / "urls.txt"
        listed.write_text("".join(f"{BASE}p/{n}\n" for n in range(40)))
        options = feedmap.Options(base_url=BASE, max_urls=9)
        if lane == "steps":
            monkeypatch.setenv("FEEDMAP_NO_LANE", "1")
        feedmap.convert(listed, f"{folder}/", "sitemap", options)
        listed.write_text("".join(f"{BASE}p/{n}\n" for n in [*range(500, 503), *range(5, 40), 600, 17]))
        feedmap.convert(listed, f"{folder}/", "sitemap", options)
    assert same_bytes(tmp_path / "lane", tmp_path / "steps")
    assert numbers(held(tmp_path / "lane")["sitemap-1.xml"]) == [5, 6, 7, 8]


def test_spilled_placement_gives_the_same_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the memory budgets (the URL map in the table and SQLite, the blocks in a temporary file), the
    same bytes."""
    from feedmap._io import seen_keys
    from feedmap._publish import previous, spools

    edited = [page(n, day=n % 27 + 1) for n in [*range(300, 320), *range(0, 200, 3), *range(201, 260)]]
    for how in ("memory", "disk"):
        folder = tmp_path / how
        publish([page(n, day=1) for n in range(260)], folder, max_urls=25)
        if how == "disk":
            monkeypatch.setattr(seen_keys, "IN_MEMORY", 10)
            monkeypatch.setattr(previous, "_IN_DICT", 10)
            monkeypatch.setattr(seen_keys, "TABLE_BYTES", 0)
            monkeypatch.setattr(spools, "BUDGET", 300)
        publish(edited, folder, max_urls=25)
    assert same_bytes(tmp_path / "memory", tmp_path / "disk")


# ------------------------------------------------------------------------------------------------- options


def test_rebalance_is_an_option_of_splitting_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="rebalance"):
        feedmap.write(pages(range(2)), tmp_path / "one.xml", "sitemap", feedmap.Options(rebalance=True))
    with pytest.raises(ValueError, match="rebalance"):
        feedmap.Options(rebalance="yes")  # type: ignore[arg-type]
    listed = tmp_path / "urls.txt"
    listed.write_text(f"{BASE}p/1\n")
    code, _, err = run(capsys, "convert", listed, "-o", tmp_path / "one.xml", "--rebalance")
    assert code == 2 and "--rebalance: only for an output directory" in err


# ------------------------------------------------------------------------------------------------- property


@st.composite
def edits(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    """URLs of a previous run, and the next input: some removed, some added anywhere, sometimes reordered."""
    before = draw(st.lists(st.integers(min_value=0, max_value=60), unique=True, max_size=40))
    after = [number for number in before if draw(st.integers(min_value=0, max_value=5))]  # about 1 in 6 removed
    for number in draw(st.lists(st.integers(min_value=61, max_value=90), unique=True, max_size=12)):
        after.insert(draw(st.integers(min_value=0, max_value=len(after))), number)
    if draw(st.integers(min_value=0, max_value=5)) == 0:
        after = draw(st.permutations(after))
    return before, after


def written_files(folder: Path) -> dict[str, list[str]]:
    index = (folder / INDEX).read_text()
    names = [part.split("</loc>")[0].removeprefix(BASE) for part in index.split("<loc>")[1:]]
    return {name: (folder / name).read_text().splitlines() for name in names}


def url(number: int) -> str:
    return f"{BASE}{'x' * (number % 7)}/{number}"  # of different lengths: files cut by bytes too


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits(),
    st.integers(min_value=1, max_value=5),
    st.integers(min_value=40, max_value=200),
    st.integers(min_value=1, max_value=5),
    st.integers(min_value=40, max_value=200),
)
def test_every_url_written_once_within_the_limits_and_kept_in_its_file_while_it_fits(
    runs: tuple[list[int], list[int]], urls_before: int, bytes_before: int, max_urls: int, max_bytes: int
) -> None:
    """Written with random limits, then with random edits under other random limits (lower ones re-cut)."""
    before, after = runs
    folder = Path(tempfile.mkdtemp(prefix="sticky-"))
    try:
        options = feedmap.Options(base_url=BASE, max_urls=urls_before, max_file_bytes=bytes_before)
        feedmap.split([Entry(loc=url(n)) for n in before], folder, "text", options)
        previous = written_files(folder)
        was_in = {loc: name for name, locs in previous.items() for loc in locs}
        last = max(previous, key=lambda name: int(name.split("-")[1].split(".")[0]))
        options = feedmap.Options(base_url=BASE, max_urls=max_urls, max_file_bytes=max_bytes)
        feedmap.split([Entry(loc=url(n)) for n in after], folder, "text", options)
        files = written_files(folder)
        written = [loc for locs in files.values() for loc in locs]
        assert sorted(written) == sorted(url(n) for n in after)  # every URL once
        for locs in files.values():  # within the limits (a URL larger than a file: alone)
            assert len(locs) <= max_urls
            assert sum(len(loc) + 1 for loc in locs) <= max_bytes or len(locs) == 1
        order = {url(n): place for place, n in enumerate(after)}
        kept = any(was_in.get(loc) == name for name, locs in files.items() for loc in locs)
        for name, locs in files.items():
            assert [order[loc] for loc in locs] == sorted(order[loc] for loc in locs)  # in input order
            if kept and name not in previous:  # a new file (numbered after the last): new or moved URLs only
                assert int(name.split("-")[1].split(".")[0]) > int(last.split("-")[1].split(".")[0])
            if kept and name in previous and name != last:  # an earlier file holds only its own URLs
                assert all(was_in.get(loc) == name for loc in locs)
        now_in = {loc: name for name, locs in files.items() for loc in locs}
        for loc, name in now_in.items():
            home = was_in.get(loc)
            if not kept or home is None or home == name:
                continue
            stayed = [other for other in files.get(home, []) if order[other] < order[loc] and was_in.get(other) == home]
            full = len(stayed) >= max_urls or sum(len(other) + 1 for other in stayed) + len(loc) + 1 > max_bytes
            assert full, f"{loc} moved from {home} to {name}, though it fit"
            event("a URL moved out of a full file")
        event("URLs kept" if kept else "a fresh cut")
        again = {path.name: path.stat().st_ino for path in folder.iterdir()}
        feedmap.split([Entry(loc=url(n)) for n in after], folder, "text", options)
        assert {path.name: path.stat().st_ino for path in folder.iterdir()} == again  # nothing rewritten
    finally:
        shutil.rmtree(folder)


def test_no_temporary_file_is_left(tmp_path: Path) -> None:
    publish(pages(range(30)), tmp_path, max_urls=10)
    publish(pages(range(5, 40)), tmp_path, max_urls=10)
    assert not [name for name in os.listdir(tmp_path) if name.startswith(".") and not name.endswith(".lock")]
