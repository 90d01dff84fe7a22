"""The cyclic garbage collector is spaced out while a run streams, and put back as it was after it (issue 19).

A streaming run frees its entries by reference counting; the collector's passes over the objects alive cost it
about a tenth of its instructions.  During ``convert``, ``write``, ``split`` and the command line the youngest
generation's threshold is raised; after them, the thresholds are what they were, also when the run fails, and a
collector turned off stays off.  Objects in reference cycles made during a run are still collected.
"""

from __future__ import annotations

import gc
import io
import weakref
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

import feedmap
from feedmap import Entry, Options
from feedmap.cli import main

DEFAULT_YOUNGEST = 700  # CPython's own


@pytest.fixture(autouse=True)
def _thresholds_kept() -> Iterator[None]:
    before, enabled = gc.get_threshold(), gc.isenabled()
    yield
    gc.set_threshold(*before)
    if enabled:
        gc.enable()
    else:
        gc.disable()


def _source(tmp_path: Path, count: int = 50) -> Path:
    path = tmp_path / "in.txt"
    path.write_text("".join(f"https://e.example/p{n}\n" for n in range(count)), encoding="utf-8")
    return path


def _watching(seen: list[tuple[int, int, int]]) -> Callable[[Iterable[Entry]], Iterator[Entry]]:
    def wrap(entries: Iterable[Entry]) -> Iterator[Entry]:
        for entry in entries:
            seen.append(gc.get_threshold())
            yield entry

    return wrap


def test_a_conversion_spaces_the_youngest_generation_and_puts_the_thresholds_back(tmp_path: Path) -> None:
    gc.set_threshold(DEFAULT_YOUNGEST, 11, 12)
    seen: list[tuple[int, int, int]] = []
    feedmap.convert(_source(tmp_path), io.BytesIO(), "text", wrap=_watching(seen))
    assert seen and all(threshold[0] >= 50 * DEFAULT_YOUNGEST and threshold[1:] == (11, 12) for threshold in seen)
    assert gc.get_threshold() == (DEFAULT_YOUNGEST, 11, 12)


def test_the_thresholds_are_put_back_when_a_run_fails(tmp_path: Path) -> None:
    gc.set_threshold(DEFAULT_YOUNGEST, 10, 10)

    def failing(entries: Iterable[Entry]) -> Iterator[Entry]:
        for entry in entries:
            assert gc.get_threshold()[0] > DEFAULT_YOUNGEST
            raise RuntimeError("stop")
            yield entry

    with pytest.raises(RuntimeError, match="stop"):
        feedmap.convert(_source(tmp_path), io.BytesIO(), "text", wrap=failing)
    assert gc.get_threshold() == (DEFAULT_YOUNGEST, 10, 10)


def test_a_collector_turned_off_or_already_spaced_is_left_as_it_is(tmp_path: Path) -> None:
    gc.set_threshold(DEFAULT_YOUNGEST, 10, 10)
    gc.disable()
    seen_off: list[tuple[int, int, int]] = []
    feedmap.convert(_source(tmp_path), io.BytesIO(), "text", wrap=_watching(seen_off))
    assert not gc.isenabled()
    assert seen_off and all(threshold == (DEFAULT_YOUNGEST, 10, 10) for threshold in seen_off)
    gc.enable()
    gc.set_threshold(1_000_000, 10, 10)
    seen_spaced: list[tuple[int, int, int]] = []
    feedmap.convert(_source(tmp_path), io.BytesIO(), "text", wrap=_watching(seen_spaced))
    assert seen_spaced and all(threshold == (1_000_000, 10, 10) for threshold in seen_spaced)
    assert gc.get_threshold() == (1_000_000, 10, 10)


def test_write_and_split_space_it_too_and_put_it_back(tmp_path: Path) -> None:
    gc.set_threshold(DEFAULT_YOUNGEST, 10, 10)
    seen: list[tuple[int, int, int]] = []

    def entries() -> Iterator[Entry]:
        for n in range(20):
            seen.append(gc.get_threshold())
            yield Entry(loc=f"https://e.example/p{n}")

    feedmap.write(entries(), io.BytesIO(), "sitemap")
    feedmap.split(entries(), tmp_path / "out", "sitemap", Options(base_url="https://e.example/"))
    assert len(seen) == 40 and all(youngest > DEFAULT_YOUNGEST for youngest, _, _ in seen)
    assert gc.get_threshold() == (DEFAULT_YOUNGEST, 10, 10)


def test_the_command_line_puts_the_thresholds_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gc.set_threshold(DEFAULT_YOUNGEST, 10, 10)
    assert main(["convert", str(_source(tmp_path)), "-t", "sitemap", "-o", str(tmp_path / "out.xml")]) == 0
    capsys.readouterr()
    assert gc.get_threshold() == (DEFAULT_YOUNGEST, 10, 10)


class _Cyclic:
    def __init__(self) -> None:
        self.me = self


def test_cycles_made_during_a_run_are_still_collected(tmp_path: Path) -> None:
    """Each entry passed on leaves a reference cycle behind: most are gone before the run ends (memory stays
    bounded), not only when it is over."""
    gc.set_threshold(DEFAULT_YOUNGEST, 10, 10)
    alive: list[weakref.ref[_Cyclic]] = []
    most_alive = 0

    def wrap(entries: Iterable[Entry]) -> Iterator[Entry]:
        nonlocal most_alive
        for entry in entries:
            for _ in range(10):
                alive.append(weakref.ref(_Cyclic()))
            if len(alive) % 20_000 == 0:
                most_alive = max(most_alive, sum(ref() is not None for ref in alive))
            yield entry

    feedmap.convert(_source(tmp_path, 30_000), io.BytesIO(), "text", wrap=wrap)
    assert len(alive) == 300_000
    assert 0 < most_alive < 150_000  # cycles made (each a container allocation) were collected as the run went
