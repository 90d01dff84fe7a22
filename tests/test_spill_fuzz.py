"""Hostile inputs through the dedupe and sort spills (issue 17, "Done when"): with every threshold forced low,
the output equals the in-memory one and a reference model written here, whatever the input.

The locs are drawn from a pool made to hurt: two locs with equal ``hash()`` (an ASCII string and the UCS-2
string of its byte pairs), an IRI and its URI (one URL), long locs that fill the byte budgets at once, and
plain ones; lastmods repeat (ties) or are missing.  The model knows which locs are one URL from the pool,
not from feedmap.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feedmap import Entry, Options
from feedmap.cli import main
from feedmap.converters import dedupe, merge_duplicates, report_duplicates, sort_entries

NARROW = "https://e.example/ab"
WIDE = "".join(chr(ord(low) | ord(high) << 8) for low, high in zip(NARROW[::2], NARROW[1::2], strict=True))
LONG = "https://e.example/long/" + "x" * 700

#: (loc, the URL it is): locs of one URL share the second value.
POOL = [
    (NARROW, "narrow"),
    (WIDE, "wide"),
    ("https://e.example/café", "cafe"),
    ("https://e.example/caf%C3%A9", "cafe"),
    (LONG, "long"),
    (LONG + "y", "long-y"),
    *((f"https://e.example/{n}", f"n{n}") for n in range(5)),
]
URL_OF = dict(POOL)
DATES = [None, "2024-01-01", "2024-01-02", "2024-01-03"]

#: Every threshold of the spills, lowered: keys, their bytes and batches, entries held, chunks, runs.
LOW = {
    "feedmap._io.seen_keys.IN_MEMORY": 2,
    "feedmap._io.seen_keys.IN_MEMORY_BYTES": 600,
    "feedmap._io.seen_keys.BATCH": 2,
    "feedmap._io.seen_keys.BATCH_BYTES": 600,
    "feedmap.converters._duplicates._ENTRIES_IN_MEMORY": 1,
    "feedmap.converters._duplicates._BYTES_IN_MEMORY": 1500,
    "feedmap.converters._duplicates._CHUNK": 50,
    "feedmap.converters._duplicates._SMALL": 10,
    "feedmap.converters._sort.ENTRIES_IN_MEMORY": 3,
    "feedmap.converters._sort.RUN_BYTES": 2500,
    "feedmap.converters._sort.MAX_RUNS": 2,
}

Kept = list[tuple[str, str]]  # (loc, title): the title says which input entry it is
inputs = st.lists(st.tuples(st.sampled_from([loc for loc, _ in POOL]), st.sampled_from(DATES)), max_size=40)


def _entries(drawn: list[tuple[str, str | None]]) -> list[Entry]:
    return [Entry(loc=loc, lastmod=lastmod, title=f"e{n}") for n, (loc, lastmod) in enumerate(drawn)]


def _kept(entries: Iterator[Entry] | list[Entry]) -> Kept:
    return [(entry.loc, entry.title or "") for entry in entries]


def _day(entry: Entry) -> int:
    return dt.date.fromisoformat(entry.lastmod.text).toordinal() if entry.lastmod is not None else 0


def model_dedupe(entries: list[Entry], policy: str) -> Kept:
    """Each URL once, at its first place: the first, the last, or the newest (ties: the first) entry."""
    kept: dict[str, Entry] = {}
    for entry in entries:
        url = URL_OF[entry.loc]
        current = kept.get(url)
        if current is None or policy == "last" or (policy == "newest" and _day(entry) > _day(current)):
            kept[url] = entry
    return _kept(kept.values())


def model_sort(entries: list[Entry], order: str) -> Kept:
    """Stable; no lastmod last in both directions."""
    if order == "loc":
        return _kept(sorted(entries, key=lambda e: e.loc))
    sign = -1 if order == "-lastmod" else 1
    return _kept(sorted(entries, key=lambda e: (e.lastmod is None, sign * _day(e))))


@contextmanager
def spilling(folder: Path) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(folder))
        for target, value in LOW.items():
            patch.setattr(target, value)
        yield
    assert list(folder.iterdir()) == [], "a spill left files behind"


def _dedupe(entries: list[Entry], policy: str) -> Kept:
    if policy == "merge_duplicates":
        return _kept(merge_duplicates(entries))
    if policy == "report_duplicates":
        return _kept(report_duplicates(entries))
    return _kept(dedupe(entries, Options(dedupe=policy)))


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check_platform() -> None:
    if sys.byteorder != "little" or hash(WIDE) != hash(NARROW):
        pytest.skip("this interpreter does not hash strings by their storage bytes")


@pytest.mark.parametrize("policy", ["first", "last", "newest", "merge_duplicates", "report_duplicates"])
@FUZZ
@given(drawn=inputs)
def test_dedupe_spilled_equals_in_memory_and_the_model(
    tmp_path_factory: pytest.TempPathFactory, policy: str, drawn: list[tuple[str, str | None]]
) -> None:
    _check_platform()
    entries = _entries(drawn)
    if policy == "report_duplicates":
        model = _kept(entries)  # every entry passed on, in order
    else:
        model = model_dedupe(entries, "newest" if policy == "merge_duplicates" else policy)
    assert _dedupe(entries, policy) == model
    with spilling(tmp_path_factory.mktemp("spill")):
        assert _dedupe(entries, policy) == model


@pytest.mark.parametrize("order", ["loc", "lastmod", "-lastmod"])
@FUZZ
@given(drawn=inputs)
def test_sort_spilled_equals_in_memory_and_the_model(
    tmp_path_factory: pytest.TempPathFactory, order: str, drawn: list[tuple[str, str | None]]
) -> None:
    entries = _entries(drawn)
    model = model_sort(entries, order)
    assert _kept(sort_entries(entries, Options(sort=order))) == model
    with spilling(tmp_path_factory.mktemp("spill")):
        assert _kept(sort_entries(entries, Options(sort=order))) == model


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    drawn=inputs,
    policy=st.sampled_from(["first", "last", "newest"]),
    order=st.sampled_from(["loc", "lastmod", "-lastmod"]),
    limit=st.integers(min_value=0, max_value=12),
)
def test_the_cli_dedupes_sorts_and_limits_past_the_spills_as_the_model(
    tmp_path_factory: pytest.TempPathFactory, drawn: list[tuple[str, str | None]], policy: str, order: str, limit: int
) -> None:
    """``convert --dedupe P --sort O --limit N`` (the sort cuts its batches to the first N) through JSON lines."""
    _check_platform()
    entries = _entries(drawn)
    deduped = model_dedupe(entries, policy)
    by_title = {entry.title: entry for entry in entries}
    model = model_sort([by_title[title] for _, title in deduped], order)[:limit]
    folder = tmp_path_factory.mktemp("cli")
    source = folder / "in.jsonl"
    lines = [{"loc": e.loc, "title": e.title, **({"lastmod": e.lastmod.text} if e.lastmod else {})} for e in entries]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = folder / "out.jsonl"
    scratch = folder / "scratch"
    scratch.mkdir()
    with spilling(scratch):
        argv = ["convert", str(source), "-t", "jsonl", "--dedupe", policy, "--sort", order, "--limit", str(limit)]
        assert main([*argv, "-o", str(out)]) in (0, 1)  # 1: no entry written (empty-document with --limit 0)
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []
    assert [(line["loc"], line["title"]) for line in written if "loc" in line] == model
