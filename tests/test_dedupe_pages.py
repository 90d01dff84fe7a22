"""The dedupe spool's pages (issue 19): entries past the in-memory few are pickled a page at a time, the page
being filled is read as it is, and only the last few pages read stay unpickled.  Whatever the page size, the
number of pages kept unpickled and the chunk size, every policy gives what a reference model written here
gives: every field of the entry kept, its origin too, in first-seen order.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feedmap import Alternate, ChangeFreq, Entry, Image, Options, Position
from feedmap.cli import main
from feedmap.converters import dedupe, merge_duplicates, report_duplicates

DATES = [None, "2024-01-01", "2024-01-02T10:00:00Z", "2024-01-02T12:00:00+02:00", "2023-12"]


def _entry(n: int, loc: int, lastmod: str | None, rich: bool) -> Entry:
    """Entry number ``n`` of loc ``loc``; ``rich``: with every field set (each pickled and read back)."""
    if not rich:
        return Entry(loc=f"https://e.example/{loc}", lastmod=lastmod, title=f"e{n}", origin=Position("in", n + 1))
    return Entry(
        loc=f"https://e.example/{loc}",
        lastmod=lastmod,
        changefreq=ChangeFreq.DAILY,
        priority=0.5,
        title=f"e{n}",
        description="d" * (n % 4) * 300 or None,
        keywords=("k", f"k{n}"),
        type="Article",
        images=(Image(loc=f"https://e.example/{n}.png", caption="c", geo_location="g", title="t", license="l"),),
        alternates=(Alternate(hreflang="de", href=f"https://e.example/de/{n}"),),
        extras={"ror:sortOrder": str(n)},
        origin=Position("in", n + 1),
    )


def _newer(candidate: Entry, current: Entry) -> bool:
    if candidate.lastmod is None:
        return False
    return current.lastmod is None or candidate.lastmod > current.lastmod


def model(entries: list[Entry], policy: str) -> list[Entry]:
    """Each loc once at its first place: the first, the last or the newest entry (ties: the first); ``none``:
    every entry, in order."""
    if policy == "none":
        return list(entries)
    kept: dict[str, Entry] = {}
    for entry in entries:
        current = kept.get(entry.loc)
        if current is None or policy == "last" or (policy in ("newest", "merge") and _newer(entry, current)):
            kept[entry.loc] = entry
    return list(kept.values())


def _run(entries: list[Entry], policy: str) -> list[Entry]:
    if policy == "merge":
        return list(merge_duplicates(entries))
    if policy == "none":
        return list(report_duplicates(entries))
    return list(dedupe(entries, Options(dedupe=policy)))


def _whole(entries: list[Entry]) -> list[tuple[Entry, Position | None]]:
    return [(entry, entry.origin) for entry in entries]


@contextmanager
def paged(folder: Path, page: int, decoded: int, chunk: int) -> Iterator[None]:
    """Every entry spooled, in pages of ``page``, ``decoded`` pages kept unpickled, written by ``chunk`` bytes."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(folder))
        patch.setattr("feedmap.converters._duplicates._ENTRIES_IN_MEMORY", 0)
        patch.setattr("feedmap.converters._duplicates._PAGE", page)
        patch.setattr("feedmap.converters._duplicates._PAGES_DECODED", decoded)
        patch.setattr("feedmap.converters._duplicates._CHUNK", chunk)
        patch.setattr("feedmap.converters._duplicates._SMALL", 16)
        patch.setattr("feedmap._io.seen_keys.IN_MEMORY", 3)
        yield
    assert list(folder.iterdir()) == [], "a spill left files behind"


drawn_entries = st.lists(
    st.tuples(st.integers(min_value=0, max_value=12), st.sampled_from(DATES), st.booleans()), max_size=60
)


@pytest.mark.parametrize("policy", ["first", "last", "newest", "merge", "none"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    drawn=drawn_entries,
    page=st.integers(min_value=1, max_value=9),
    decoded=st.integers(min_value=1, max_value=3),
    chunk=st.sampled_from([64, 3000, 1 << 20]),
)
def test_every_policy_through_pages_of_any_size_equals_the_model(
    tmp_path_factory: pytest.TempPathFactory,
    policy: str,
    drawn: list[tuple[int, str | None, bool]],
    page: int,
    decoded: int,
    chunk: int,
) -> None:
    entries = [_entry(n, loc, lastmod, rich) for n, (loc, lastmod, rich) in enumerate(drawn)]
    expected = _whole(model(entries, policy))
    assert _whole(_run(entries, policy)) == expected
    with paged(tmp_path_factory.mktemp("pages"), page, decoded, chunk):
        assert _whole(_run(entries, policy)) == expected


@pytest.mark.parametrize("policy", ["newest", "last"])
def test_repeats_read_back_out_of_order_from_pages_long_evicted(tmp_path: Path, policy: str) -> None:
    """A second crawl in the reverse order of the first: each repeat reads a page that left the few kept
    unpickled long ago (and, with a small chunk, that is only on disk)."""
    first = [_entry(n, n, "2024-01-01", n % 2 == 0) for n in range(200)]
    second = [_entry(200 + n, 199 - n, "2024-01-02T10:00:00Z", n % 3 == 0) for n in range(200)]
    entries = first + second
    with paged(tmp_path, 7, 1, 512):
        assert _whole(_run(entries, policy)) == _whole(model(entries, policy))


def test_a_sitemap_written_through_the_pages_is_the_one_written_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI, whole: the same bytes and the same diagnostics through pages as without a spool."""
    lines = [
        f'{{"loc": "https://e.example/{n % 70}", "lastmod": "2024-01-{1 + n % 28:02d}", "title": "t{n}"}}\n'
        for n in range(150)
    ]
    (tmp_path / "in.jsonl").write_text("".join(lines), encoding="utf-8")

    def convert(out: str) -> str:
        assert main(["convert", str(tmp_path / "in.jsonl"), "-t", "rss", "-o", str(tmp_path / out)]) == 0
        return (tmp_path / out).read_text(encoding="utf-8")

    in_memory = convert("memory.xml")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with paged(scratch, 4, 1, 700):
        assert convert("paged.xml") == in_memory
