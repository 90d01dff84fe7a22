"""Entries pickled to a temporary file by dedupe and sort come back whole: every field, with its type, whatever
the order of writes and reads (feedmap.converters._duplicates's spool)."""

from __future__ import annotations

import random

import pytest

import feedmap.converters._duplicates as duplicates
import feedmap.converters._sort as sort_module
from feedmap import Alternate, ChangeFreq, Entry, Image, Options, Position, W3CDate
from feedmap.converters import dedupe, sort_entries


def _rich(n: int, lastmod: str | None) -> Entry:
    return Entry(
        loc=f"https://e.example/p/{n}",
        lastmod=lastmod,
        changefreq=ChangeFreq.WEEKLY if n % 2 else None,
        priority=0.25 if n % 3 else None,
        title=f"t{n}",
        description="d" * (n % 5) * 200 or None,  # up to 800 characters: longer than a small read
        keywords=("a", "b") if n % 7 else (),
        type="Article" if n % 11 else None,
        images=(Image(loc="https://e.example/i.png", caption=f"c{n}", geo_location="g", title="t", license="l"),)
        * (n % 3),
        alternates=(Alternate(hreflang="de", href=f"https://e.example/de/{n}"),) if n % 4 else (),
        extras={"ror:sortOrder": str(n)} if n % 6 else {},
        origin=Position("in.jsonl", n + 1),
    )


def _entries() -> list[Entry]:
    """400 locs, each written up to 3 times in a shuffled order, the repeats with various lastmods."""
    chooser = random.Random(11)
    out = []
    for _ in range(1_000):
        loc = chooser.randrange(400)
        lastmod = chooser.choice([None, "2024-01-02", "2024-03-04T05:06:07Z", "2023-12-31T23:59:59.5+01:00"])
        out.append(_rich(loc, lastmod))
    return out


def _fields(entry: Entry) -> tuple[object, ...]:
    return (entry, entry.origin, *_kinds(entry))


def _kinds(entry: Entry) -> set[type]:
    values = (entry.lastmod, entry.changefreq, entry.origin, *entry.images, *entry.alternates)
    return {type(value) for value in values}


@pytest.mark.parametrize(
    ("chunk", "small"),
    [(1 << 20, 4096), (300, 40), (1, 1)],
    ids=["in-the-unwritten-tail", "across-chunks", "one-entry-a-read"],
)
@pytest.mark.parametrize("policy", ["last", "newest"])
def test_a_dedupe_through_the_spool_gives_what_one_in_memory_gives(
    monkeypatch: pytest.MonkeyPatch, policy: str, chunk: int, small: int
) -> None:
    expected = [_fields(e) for e in dedupe(_entries(), Options(dedupe=policy))]
    monkeypatch.setattr(duplicates, "_ENTRIES_IN_MEMORY", 0)  # every entry pickled, read back between writes
    monkeypatch.setattr(duplicates, "_CHUNK", chunk)  # bytes written at once, and read at once in order
    monkeypatch.setattr(duplicates, "_SMALL", small)  # bytes read for an entry out of order
    assert [_fields(e) for e in dedupe(_entries(), Options(dedupe=policy))] == expected
    kinds = set().union(*map(_kinds, dedupe(_entries(), Options(dedupe=policy))))
    assert kinds == {W3CDate, ChangeFreq, Position, Image, Alternate, type(None)}


def test_a_sort_through_its_runs_gives_what_one_in_memory_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = [_fields(e) for e in sort_entries(_entries(), Options(sort="-lastmod"))]
    monkeypatch.setattr(sort_module, "ENTRIES_IN_MEMORY", 7)
    assert [_fields(e) for e in sort_entries(_entries(), Options(sort="-lastmod"))] == expected


def test_a_changefreq_set_by_hand_as_text_comes_back_as_it_was_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(duplicates, "_ENTRIES_IN_MEMORY", 0)
    by_hand = Entry(loc="https://e.example/a")
    by_hand.changefreq = "sometimes"  # type: ignore[assignment]  # bypassing the constructor's coercion
    entries = [by_hand, Entry(loc="https://e.example/b", changefreq="daily")]
    assert [e.changefreq for e in dedupe(entries, Options(dedupe="last"))] == ["sometimes", ChangeFreq.DAILY]
