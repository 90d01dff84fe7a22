"""The feeds' merge of repeated URLs as rendered records (issue 19, round 4): ``ror`` and ``rss`` written from the
default merge (or ``--dedupe last|newest``) must write and say what the merge of entries then the feed writer
write and say, byte for byte and line for line:

* the channel (its link derived from the first URL kept when no option gives one, its title and description
  with markup and ``&``, a self URL) and, for ROR, the header item;
* the root's namespace declarations, which are those the first batch of items uses (512 items, or fewer when
  they hold a MiB), a namespace first used by a later item declared on that item's element, and a repeat that
  wins in a slot of the first batch bringing its namespaces to the root;
* the writer's diagnostics of each item at its place in output order (``field-dropped`` of an extra once, at
  the first item written that holds it), ``title-missing`` and the fields the format cannot hold at the end;
* under ``strict``, the same bytes on a stream and the same error.

The merge of entries stays feedmap's path wherever a step comes after the merge (a ``limit``, a ``wrap``): the
oracle here, public and unchanged, runs the same entries both ways.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Alternate, ChangeFreq, Diagnostic, Entry, Image, Options, Position, W3CDate

FEEDS = ["ror", "rss"]
POLICIES: list[Any] = [None, "last", "newest"]
DATES = [None, "2024-01-01", "2024-01-02T10:00:00Z", "2024-01-02T12:00:00+02:00", "2024-01-02T10:00Z", "2023"]
#: Paths of the few locs the specials repeat: plain, an IRI and its URI spelling (one URL), what XML escapes,
#: a control character (dropped from the XML).
PATHS = ["a", "\u00fc", "%C3%BC", "a&b'", "c\x01", "p3", "p600"]
TITLES: list[str | None] = [None, "T", " padded ", "a & <b>x</b>", "t\x02", "</p>"]
KEYWORDS: list[tuple[str, ...]] = [(), ("k",), (" k ", ""), ("a,b", "a,b"), ("x&y",)]
EXTRAS: list[dict[str, str]] = [
    {},
    {"note": "text"},
    {"ror:sortOrder": "2"},
    {"ror:updated": "2020"},
    {"{urn:x}k": "<k xmlns='urn:x'>v</k>"},
    {"{urn:x}k": "<broken"},
]
#: The channel: given by the options (with markup and a self URL), else derived from the first URL kept.
CHANNELS: list[dict[str, Any]] = [
    {"channel_title": "T", "channel_link": "https://e.example/"},
    {},
    {"channel_title": "A & <b>B</b>", "channel_description": " d ", "self_url": "https://e.example/f\u00e9ed.xml"},
    {"channel_description": "&lt;p&gt;d"},
]


def _said(seen: list[Diagnostic]) -> list[str]:
    return [f"{d.level.name} {d.code} {d.message} {d.source}:{d.line}" for d in seen]


def _write(entries: list[Entry], fmt: str, options: Options) -> tuple[bytes, list[str], str]:
    """Bytes written to a stream (what reached it when an error stopped the run), diagnostics, the error."""
    seen: list[Diagnostic] = []
    out = io.BytesIO()
    error = ""
    try:
        feedmap.write(entries, out, fmt, options, on_diagnostic=seen.append)
    except feedmap.FeedmapError as exc:
        error = f"{type(exc).__name__}: {exc}"
    return out.getvalue(), _said(seen), error


def _plain(number: int, lastmod: str | None = "2024-01-01") -> Entry:
    return Entry(
        loc=f"https://e.example/p{number}",
        lastmod=None if lastmod is None else W3CDate(lastmod),
        title=f"Product {number}" if number % 3 else None,
        origin=Position("in.jsonl", number + 1),
    )


@st.composite
def specials(draw: st.DrawFn, line: int) -> Entry:
    """An entry of a few locs (so that it repeats) with what a feed writes, declares or says."""
    rich = draw(st.integers(min_value=0, max_value=63))
    return Entry(
        loc="https://e.example/" + draw(st.sampled_from(PATHS)),
        lastmod=None if (text := draw(st.sampled_from(DATES))) is None else W3CDate(text),
        changefreq=ChangeFreq.DAILY if rich & 1 else None,
        priority=draw(st.sampled_from([None, 0.5, 1.5, float("nan")])) if rich & 2 else None,
        title=draw(st.sampled_from(TITLES)),
        description=draw(st.sampled_from([None, "d&<x>", "<p>ok</p>", "x" * 300_000])) if rich & 4 else None,
        keywords=draw(st.sampled_from(KEYWORDS)),
        type="product" if rich & 8 else None,
        images=(Image(loc="https://e.example/\u00e9.png", title="i"),) if rich & 16 else (),
        alternates=(Alternate(hreflang="de", href="https://e.example/de/"),) if rich & 32 else (),
        extras=dict(draw(st.sampled_from(EXTRAS))),
        origin=Position("in.jsonl", line),
    )


@st.composite
def feeds_drawn(draw: st.DrawFn) -> list[Entry]:
    """Plain entries past the first batch of 512 items, with specials put among them: early, in the first
    batch, after it and at the end, so that a namespace is first used on the root, on an item's element, or
    by a repeat that wins a slot of the first batch."""
    count = draw(st.sampled_from([0, 3, 511, 512, 513, 530]))
    entries = [_plain(number) for number in range(count)]
    for number in range(draw(st.integers(min_value=0, max_value=8))):
        place = draw(st.integers(min_value=0, max_value=count))
        entries.insert(place, draw(specials(10_000 + number)))
    return entries


@pytest.mark.parametrize("fmt", FEEDS)
@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(entries=feeds_drawn(), channel=st.sampled_from(CHANNELS), strict=st.booleans())
def test_a_feed_writes_and_says_what_the_merge_of_entries_does(
    fmt: str, policy: Any, entries: list[Entry], channel: dict[str, Any], strict: bool
) -> None:
    """``feedmap.write`` to a feed, against the same call with a limit above the entries' count (the merge of
    entries, then the feed writer)."""
    options = Options(dedupe=policy, strict=strict, **channel)
    new = _write(entries, fmt, options)
    old = _write(entries, fmt, Options(dedupe=policy, strict=strict, limit=10**6, **channel))
    assert new == old


@pytest.mark.parametrize(("source_fmt", "fmt"), [("ror", "ror"), ("rss", "rss"), ("ror", "rss"), ("jsonl", "ror")])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(entries=feeds_drawn(), strict=st.booleans())
def test_a_feed_converted_writes_and_says_what_the_merge_of_entries_does(
    tmp_path_factory: pytest.TempPathFactory, source_fmt: str, fmt: str, entries: list[Entry], strict: bool
) -> None:
    """``feedmap.convert`` of a feed (its channel and ROR header kept) or of JSON lines, against the same call
    with a ``wrap`` that passes every entry on through a generator of its own."""
    source = tmp_path_factory.mktemp("in") / f"in.{source_fmt}"
    feedmap.write(entries, source, source_fmt, Options(channel_title="S & <i>s</i>", channel_link="https://s.example/"))
    options = Options(strict=strict)

    def converted(**wrap: Any) -> tuple[bytes, list[str], str]:
        seen: list[Diagnostic] = []
        out = io.BytesIO()
        error = ""
        try:
            feedmap.convert(source, out, fmt, options, on_diagnostic=seen.append, **wrap)
        except feedmap.FeedmapError as exc:
            error = f"{type(exc).__name__}: {exc}"
        return out.getvalue(), _said(seen), error

    # a wrap that makes a new iterator is a step after the merge (one that returns its argument would not be)
    assert converted() == converted(wrap=lambda entries: (entry for entry in entries))


def _late_priority(fmt: str) -> tuple[bytes, list[str]]:
    entries = [_plain(number) for number in range(600)]
    entries.append(Entry(loc="https://e.example/p550", lastmod=W3CDate("2024-02-01"), priority=0.5))
    entries.append(Entry(loc="https://e.example/p10", lastmod=W3CDate("2023-06-01"), priority=0.5))
    data, said, error = _write(entries, fmt, Options(channel_title="T", channel_link="https://e.example/"))
    assert not error
    return data, said


@pytest.mark.parametrize("fmt", FEEDS)
def test_a_namespace_first_used_after_the_first_batch_is_declared_on_its_element(fmt: str) -> None:
    """p550's newer repeat has a priority (the sitemap namespace), p10's older one does not win: the root does
    not declare the namespace, p550's item does, in p550's place."""
    data, said = _late_priority(fmt)
    root = data.split(b"<channel>", 1)[0]
    assert b"xmlns:sitemap" not in root
    item = data.split(b"<link>https://e.example/p550</link>", 1)[1].split(b"</item>", 1)[0]
    assert b'<sitemap:priority xmlns:sitemap="http://www.sitemaps.org/schemas/sitemap/0.9">0.5' in item
    assert data.count(b"xmlns:sitemap") == 1
    assert [line.split(" ")[1] for line in said][:4] == ["loc-duplicate", "loc-duplicate", "duplicates-merged"] + (
        ["title-missing"] if fmt == "ror" else []
    )


@pytest.mark.parametrize("fmt", FEEDS)
def test_a_repeat_that_wins_a_slot_of_the_first_batch_declares_its_namespace_on_the_root(fmt: str) -> None:
    entries = [_plain(number) for number in range(600)]
    entries.append(Entry(loc="https://e.example/p3", lastmod=W3CDate("2024-02-01"), priority=0.5))
    data, _, _ = _write(entries, fmt, Options(channel_title="T", channel_link="https://e.example/"))
    root = data.split(b"<channel>", 1)[0]
    assert b'xmlns:sitemap="http://www.sitemaps.org/schemas/sitemap/0.9"' in root
    assert data.count(b"xmlns:sitemap") == 1
    assert data.index(b"<link>https://e.example/p3</link>") < data.index(b"<link>https://e.example/p4</link>")


@pytest.mark.parametrize("fmt", FEEDS)
def test_the_feed_records_spill_past_their_budget_and_leave_no_file(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records past the memory budget go to a scratch file, read back in order and, for the repeats, out of
    order; the output is the merge of entries' and the file is gone at the end."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr("feedmap.converters._duplicates._ENTRIES_IN_MEMORY", 0)
    monkeypatch.setattr("feedmap.converters._duplicates._PAGE", 3)
    monkeypatch.setattr("feedmap.converters._duplicates._CHUNK", 256)
    entries = [_plain(n % 40, f"2024-01-{1 + n // 40:02d}") for n in range(200)]
    entries += [Entry(loc="https://e.example/p7", lastmod=W3CDate("2025-01-01"), priority=0.5, extras={"n": "x"})]
    channel: dict[str, Any] = {"channel_title": "T"}
    assert _write(entries, fmt, Options(**channel)) == _write(entries, fmt, Options(limit=10**6, **channel))
    assert list(tmp_path.iterdir()) == []
