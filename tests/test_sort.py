"""``--sort loc|lastmod|-lastmod`` (issue 11, item 3) from the CLI and as
:func:`feedmap.converters.sort_entries`.

Stable order; lastmods (W3C Datetime, https://www.w3.org/TR/NOTE-datetime) compared by the instant their
period starts, no zone read as UTC; entries without a lastmod last in both directions; past a threshold,
sorted runs pickled to temporary files and merged.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from conftest import run_words as run

import feedmap
from feedmap import Entry, Options, W3CDate
from feedmap.cli.convert import join_sort_value
from feedmap.converters import _sort as sort_module
from feedmap.converters import sort_entries

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"

#: (name, lastmod) in input order; the comments give the instant each period starts, in UTC.
DATED: list[tuple[str, str | None]] = [
    ("e1", "2024-01-01T23:30:00-05:00"),  # 2024-01-02T04:30Z
    ("e2", "2024-01-02"),  # 2024-01-02T00:00Z
    ("e3", "2024"),  # 2024-01-01T00:00Z
    ("e4", "2024-01-01T12:00:00+02:00"),  # 2024-01-01T10:00Z
    ("e5", "2024-01-01"),  # 2024-01-01T00:00Z: e3's instant, finer: after e3 oldest first, before it newest first
    ("e6", None),
    ("e7", "2023-12-31T23:00:00-02:00"),  # 2024-01-01T01:00Z
    ("e8", None),
]
OLDEST_FIRST = ["e3", "e5", "e7", "e4", "e2", "e1", "e6", "e8"]
NEWEST_FIRST = ["e1", "e2", "e4", "e7", "e5", "e3", "e6", "e8"]  # the W3CDate order reversed


def dated() -> list[Entry]:
    return [Entry(loc=f"https://e.com/{name}", lastmod=W3CDate(text) if text else None) for name, text in DATED]


def names(entries: list[Entry]) -> list[str]:
    return [entry.loc.removeprefix("https://e.com/") for entry in entries]


@pytest.fixture
def urls(tmp_path: Path) -> Path:
    body = "".join(
        f"<url><loc>https://e.com/{name}</loc>" + (f"<lastmod>{text}</lastmod>" if text else "") + "</url>\n"
        for name, text in DATED
    )
    path = tmp_path / "s.xml"
    path.write_text(f'<urlset xmlns="{SM}">\n{body}</urlset>\n', encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------ the keys


@pytest.mark.parametrize(("order", "expected"), [("lastmod", OLDEST_FIRST), ("-lastmod", NEWEST_FIRST)])
def test_lastmod_across_precisions_and_zones_undated_last(order: str, expected: list[str]) -> None:
    assert names(list(sort_entries(dated(), Options(sort=order)))) == expected


def test_loc_in_string_order_ties_stable() -> None:
    entries = [
        Entry(loc="https://e.com/b", title="1"),
        Entry(loc="https://e.com/a"),
        Entry(loc="https://e.com/B"),
        Entry(loc="https://e.com/b", title="2"),
        Entry(loc="https://e.com/a/x"),
    ]
    result = list(sort_entries(entries, Options(sort="loc")))
    assert names(result) == ["B", "a", "a/x", "b", "b"]
    assert [entry.title for entry in result[3:]] == ["1", "2"]


@pytest.mark.parametrize(
    ("order", "expected"), [("lastmod", ["x", "0", "1", "2", "3", "4"]), ("-lastmod", ["0", "1", "2", "3", "4", "x"])]
)
def test_equal_lastmods_keep_the_input_order(order: str, expected: list[str]) -> None:
    entries = [Entry(loc=f"https://e.com/{n}", lastmod=W3CDate("2024-05-01T00:00:00Z")) for n in range(5)]
    # the same instant, coarser: before them in the W3CDate order, after them newest first
    entries.insert(2, Entry(loc="https://e.com/x", lastmod=W3CDate("2024-05-01")))
    assert names(list(sort_entries(entries, Options(sort=order)))) == expected


def test_without_sort_the_order_is_kept() -> None:
    assert names(list(sort_entries(dated()))) == [name for name, _ in DATED]


def test_an_unknown_key_in_options_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="sort"):
        Options(sort="newest")


def test_the_transform_on_a_document(urls: Path) -> None:
    with feedmap.read(urls) as doc:
        result = sort_entries(doc, Options(sort="-lastmod"))
        assert isinstance(result, feedmap.Document)
        assert names(list(result)) == NEWEST_FIRST


# ------------------------------------------------------------------------------------------------ spilling


@pytest.fixture
def spill_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Runs of 3 entries, written into a folder of the test's own."""
    folder = tmp_path / "spill"
    folder.mkdir()
    monkeypatch.setattr(sort_module, "ENTRIES_IN_MEMORY", 3)
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.mark.parametrize(("order", "expected"), [("lastmod", OLDEST_FIRST), ("-lastmod", NEWEST_FIRST)])
def test_the_spill_to_disk_gives_the_same_order_and_removes_its_files(
    spill_dir: Path, order: str, expected: list[str]
) -> None:
    result = sort_entries(dated(), Options(sort=order))
    first = next(result)
    assert len(list(spill_dir.glob("feedmap-sort-*"))) == 2  # 8 entries: two runs of 3 on disk, 2 in memory
    rest = list(result)
    assert names([first, *rest]) == expected
    assert list(spill_dir.iterdir()) == []


def test_spilled_ties_keep_the_input_order_across_runs(spill_dir: Path) -> None:
    entries = [Entry(loc="https://e.com/same", title=str(n), lastmod=W3CDate("2024-01-01")) for n in range(10)]
    entries += [Entry(loc=f"https://e.com/{n}", images=()) for n in range(9, -1, -1)]
    result = list(sort_entries(entries, Options(sort="loc")))
    assert names(result) == [str(n) for n in range(10)] + ["same"] * 10
    assert [entry.title for entry in result[10:]] == [str(n) for n in range(10)]
    assert result[10].lastmod == W3CDate("2024-01-01")
    assert list(spill_dir.iterdir()) == []


def test_closing_early_removes_the_spilled_files(spill_dir: Path) -> None:
    result = sort_entries(dated(), Options(sort="loc"))
    next(result)
    assert list(spill_dir.iterdir())
    result.close()  # type: ignore[attr-defined]  # a generator
    assert list(spill_dir.iterdir()) == []


def test_the_cli_spills_with_limit(capsys: pytest.CaptureFixture[str], urls: Path, spill_dir: Path) -> None:
    code, out, _ = run(capsys, "convert", urls, "-t", "text", "--sort", "-lastmod", "--limit", "5")  # past 3
    assert code == 0
    assert names([Entry(loc=loc) for loc in out]) == NEWEST_FIRST[:5]
    assert list(spill_dir.iterdir()) == []


def test_sort_with_a_limit_keeps_only_the_first_n_no_spill(
    capsys: pytest.CaptureFixture[str], urls: Path, spill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--sort -lastmod --limit 2 (the newest pages as a feed) needs the 2 first in order only: no sorted
    run of the whole input goes to disk, memory holds 2 entries."""

    def no_run(batch: object) -> None:
        raise AssertionError("a sorted run was written")

    monkeypatch.setattr(sort_module, "_write_run", no_run)
    for order, expected in (("-lastmod", NEWEST_FIRST), ("lastmod", OLDEST_FIRST), ("loc", sorted(OLDEST_FIRST))):
        code, out, err = run(capsys, "convert", urls, "-t", "text", f"--sort={order}", "--limit", "2")
        assert (code, names([Entry(loc=loc) for loc in out])) == (0, expected[:2]), err
        assert "info[limit-reached]" in err
    assert run(capsys, "convert", urls, "-t", "text", "--sort=loc", "--limit", "0")[:2] == (0, [])


def test_the_transform_with_a_limit_in_options_still_sorts_everything() -> None:
    """Only the conversion's limit step after it cuts the output: sort_entries alone gives every entry."""
    assert names(list(sort_entries(dated(), Options(sort="-lastmod", limit=2)))) == NEWEST_FIRST


# ------------------------------------------------------------------------------------------------ the CLI


@pytest.mark.parametrize("spelling", [["--sort", "-lastmod"], ["--sort=-lastmod"]])
def test_newest_first_with_limit(capsys: pytest.CaptureFixture[str], urls: Path, spelling: list[str]) -> None:
    code, out, err = run(capsys, "convert", urls, "-t", "text", *spelling, "--limit", "3")
    assert code == 0, err
    assert out == ["https://e.com/e1", "https://e.com/e2", "https://e.com/e4"]


@pytest.mark.parametrize(
    ("order", "expected"), [("lastmod", [*OLDEST_FIRST, "a"]), ("loc", ["a", *sorted(OLDEST_FIRST)])]
)
def test_the_other_keys_from_the_cli(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, urls: Path, order: str, expected: list[str]
) -> None:
    more = tmp_path / "more.txt"
    more.write_text("https://e.com/a\n", encoding="utf-8")
    code, out, _ = run(capsys, "convert", urls, more, "-t", "text", "--sort", order)
    assert code == 0
    assert [loc.removeprefix("https://e.com/") for loc in out] == expected


@pytest.mark.parametrize("target", ["jsonl", "sitemap", "text", "rss", "ror"])
def test_every_output_format(capsys: pytest.CaptureFixture[str], tmp_path: Path, urls: Path, target: str) -> None:
    out = tmp_path / "out"
    code, _, err = run(capsys, "convert", urls, "-t", target, "-o", out, "--sort", "-lastmod", "--limit", "4")
    assert code == 0, err
    with feedmap.read(out) as doc:
        assert names(list(doc)) == NEWEST_FIRST[:4]


def test_sort_runs_after_dedupe(capsys: pytest.CaptureFixture[str], tmp_path: Path, urls: Path) -> None:
    more = tmp_path / "more.jsonl"
    more.write_text('{"loc": "https://e.com/e8", "lastmod": "2025-01-01"}\n', encoding="utf-8")
    code, out, _ = run(capsys, "convert", urls, more, "-t", "text", "--dedupe", "newest", "--sort=-lastmod")
    assert code == 0
    assert [loc.removeprefix("https://e.com/") for loc in out] == ["e8", *NEWEST_FIRST[:-1]]


def test_an_unknown_key_is_a_usage_error(capsys: pytest.CaptureFixture[str], urls: Path) -> None:
    code, _, err = run(capsys, "convert", urls, "-t", "text", "--sort", "newest")
    assert code == 2
    assert "invalid choice" in err


def test_only_the_sort_value_is_joined() -> None:
    assert join_sort_value(["convert", "--sort", "-lastmod", "x"]) == ["convert", "--sort=-lastmod", "x"]
    after_dashes = ["--sort", "loc", "--", "--sort", "-lastmod"]
    assert join_sort_value(after_dashes) == after_dashes
    assert join_sort_value(["-q", "--sort"]) == ["-q", "--sort"]


def test_convert_sorts_as_the_cli_does(tmp_path: Path, urls: Path) -> None:
    out = tmp_path / "out.txt"
    feedmap.convert(urls, out, "text", options=Options(sort="lastmod", limit=3))
    assert out.read_text(encoding="utf-8").split() == [f"https://e.com/{name}" for name in OLDEST_FIRST[:3]]


@pytest.mark.parametrize("spelling", [["--sor", "-lastmod"], ["--so", "-lastmod"]])
def test_an_abbreviated_option_takes_minus_lastmod_too(
    capsys: pytest.CaptureFixture[str], urls: Path, spelling: list[str]
) -> None:
    """argparse takes --sor for --sort (--sor lastmod worked): --sor -lastmod said 'expected one argument'."""
    code, out, err = run(capsys, "convert", urls, "-t", "text", *spelling, "--limit", "1")
    assert (code, out) == (0, ["https://e.com/e1"]), err


@pytest.mark.parametrize("value", ["-loc", "-newest", "-"])
def test_a_wrong_value_with_a_dash_names_the_choices(
    capsys: pytest.CaptureFixture[str], urls: Path, value: str
) -> None:
    """Not 'expected one argument', which says no value was given: the value given and the choices."""
    code, _, err = run(capsys, "convert", urls, "-t", "text", "--sort", value)
    assert code == 2
    assert f"invalid choice: '{value}'" in err and "-lastmod" in err and "expected one argument" not in err
    assert join_sort_value(["--title", "-loc", "--", "--sort", "-loc"]) == ["--title", "-loc", "--", "--sort", "-loc"]


def test_a_temporary_folder_that_cannot_be_written_is_a_message(
    capsys: pytest.CaptureFixture[str], urls: Path, spill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TMPDIR names a file (or the disk is full): the spill fails with a message, not a traceback."""
    not_a_folder = spill_dir / "not-a-folder"
    not_a_folder.write_text("", encoding="utf-8")
    monkeypatch.setattr(tempfile, "tempdir", str(not_a_folder))
    code, out, err = run(capsys, "convert", urls, "-t", "text", "--sort", "loc")
    assert (code, out) == (2, [])
    assert "feedmap: error: " in err and "temporary" in err and "Traceback" not in err
    with pytest.raises(feedmap.SourceError):
        list(sort_entries(dated(), Options(sort="loc")))
