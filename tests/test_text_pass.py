"""The text sitemap's pass in runs (issue 19, round 6): entries whose loc is a web URL with nothing to say
(ASCII, no line break; a URI as written with ``--encode-urls``) wait in runs of 4,096 that are keyed, watched
and written in a few calls; any other entry ends the run and takes each step's own code.

What it writes and says must be what the plan's steps one after the other write and say, in the same order:
the oracle is the same call with a step after them (``limit`` above the entries' count, or a ``wrap`` that
passes every entry on), which keeps the steps apart.  The entries here are thousands, so that runs fill and
end at every kind of entry: locs on each side of the run's decision (a ``%`` escape, a blank, a second ``#``,
``<``, quotes, non-ASCII, a line break, a carriage return, another scheme, a relative reference), repeats
inside a run and across runs, and fields a text sitemap cannot hold appearing late.  A stop in the middle of
a run (``--strict``) must leave on a stream what the steps leave.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Diagnostic, Entry, Options, Position, W3CDate

#: Locs on both sides of the run's decision ({n}: a number).
ODD_LOCS = [
    "https://e.example/%C3%BC{n}",
    "https://e.example/%zz{n}",
    "https://e.example/s p{n}",
    "https://e.example/s%20p{n}",  # the URI the one before it is written as: one URL
    "https://e.example/p{n}#a#b",
    "https://e.example/<{n}>",
    'https://e.example/"{n}"',
    "https://e.example/a&b'{n}",
    "https://e.example/\u00fc{n}",
    "https://\u00e9.example/p{n}",
    "https://e.example/nl\n{n}",
    "https://e.example/cr\r{n}",
    "https://e.example/c\x01{n}",
    "HTTPS://e.example/p{n}",
    "ftp://e.example/p{n}",
    "javascript:alert({n})",
    "rel/p{n}",
    "https://e.example/lone\ud800{n}",
]

#: Where an odd entry stands: at and around the edges of runs of 4,096 (and 0, the first).
ODD_PLACES = {0, 1, 4094, 4095, 4096, 4097, 5000, 8190, 8191, 8192, 8193}

OPTIONS: list[dict[str, Any]] = [
    {},
    {"encode_urls": True},
    {"keep_urls": True},
    {"keep_urls": True, "encode_urls": True},
    {"dedupe": "first"},
    {"dedupe": "newest"},
]


def _entries(count: int, odd_every: int, late_title: int | None = None) -> list[Entry]:
    """``count`` entries: plain web locs with a lastmod, every 97th a repeat of an earlier one, an odd loc at
    each of :data:`ODD_PLACES` and every ``odd_every``-th place, a title on entry ``late_title``."""
    out: list[Entry] = []
    odd = 0
    for number in range(count):
        if number in ODD_PLACES or (odd_every and number % odd_every == 0):
            loc = ODD_LOCS[odd % len(ODD_LOCS)].format(n=number % 50)  # some odd ones repeat too
            odd += 1
        elif number % 97 == 96:
            loc = f"https://e.example/p{number // 3}?a=1&b=2"  # a repeat of an entry before it
        else:
            loc = f"https://e.example/p{number}?a=1&b=2"
        title = "T" if number == late_title else None
        lastmod = W3CDate("2024-01-01") if number % 5 else None
        out.append(Entry(loc=loc, lastmod=lastmod, title=title, origin=Position("in.jsonl", number + 1)))
    return out


def _said(seen: list[Diagnostic]) -> list[str]:
    return [f"{d.level.name} {d.code} {d.message} {d.source}:{d.line}" for d in seen]


def _write(entries: list[Entry], options: Options) -> tuple[bytes, list[str], str]:
    """Bytes written to a stream (what reached it when an error stopped the run), diagnostics, the error."""
    seen: list[Diagnostic] = []
    out = io.BytesIO()
    error = ""
    try:
        feedmap.write(entries, out, "text", options, on_diagnostic=seen.append)
    except feedmap.FeedmapError as exc:
        error = f"{type(exc).__name__}: {exc}"
    return out.getvalue(), _said(seen), error


def _convert(source: Path, options: Options, *, apart: bool) -> tuple[bytes, list[str], str]:
    """``feedmap.convert`` to a text stream; ``apart``: with a ``wrap`` after the steps, which keeps them apart."""
    seen: list[Diagnostic] = []
    out = io.BytesIO()
    error = ""
    try:
        feedmap.convert(source, out, "text", options, wrap=(lambda e: e) if apart else None, on_diagnostic=seen.append)
    except feedmap.FeedmapError as exc:
        error = f"{type(exc).__name__}: {exc}"
    return out.getvalue(), _said(seen), error


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "default")
@pytest.mark.parametrize("odd_every", [0, 7, 1000])
def test_a_text_write_in_runs_says_and_writes_what_the_steps_do(options: dict[str, Any], odd_every: int) -> None:
    """Thousands of entries, odd ones at the edges of runs (and every 7th, or every 1,000th): the same bytes,
    diagnostics and error as with the steps apart; a title first seen late is said."""
    entries = _entries(9000, odd_every, late_title=8500)
    new = _write(entries, Options(**options))
    assert new == _write(entries, Options(**options, limit=10**6))
    data, said, error = new
    assert not error
    assert any("cannot hold lastmod, title" in line for line in said)
    assert any(" loc-duplicate " in line for line in said)
    assert data.count(b"\n") > 8000


def test_runs_of_plain_entries_only_are_written_as_the_steps_write_them() -> None:
    """No odd entry at all (every run fills, the last one part way): the same bytes and diagnostics."""
    entries = [
        Entry(loc=f"https://e.example/p{number % 9000}", origin=Position("in.jsonl", number + 1))
        for number in range(12_300)
    ]
    new = _write(entries, Options())
    assert new == _write(entries, Options(limit=10**6))
    assert new[0] == "".join(f"https://e.example/p{number}\n" for number in range(9000)).encode()


def test_a_stop_inside_a_run_leaves_on_the_stream_what_the_steps_leave(tmp_path: Path) -> None:
    """``--strict`` stops the conversion at a warning of the reader at line 6,001, inside a run: the stream holds
    what the steps one by one had written by then (a batch of 4,096 lines, which repeats in the first run push
    past its end), and the same diagnostics and error."""
    source = tmp_path / "in.jsonl"
    lines = []
    for number in range(9000):
        loc = f"https://e.example/p{number % 3000 if number < 4096 and number % 20 == 0 else number}"
        lastmod = "not a date" if number == 6000 else "2024-01-01"
        lines.append(f'{{"loc": "{loc}", "lastmod": "{lastmod}"}}')
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    options = Options(strict=True)
    new = _convert(source, options, apart=False)
    assert new == _convert(source, options, apart=True)
    data, _said_lines, error = new
    assert error.startswith("StrictError")
    assert data.count(b"\n") == 4096


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "default")
def test_a_conversion_of_many_entries_in_runs_says_what_the_steps_say_with_lines(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    """``feedmap.convert`` of a JSON lines file (each entry with its line): the same output and diagnostics,
    ``file:line`` and all, as with the steps apart."""
    source = tmp_path / "in.jsonl"
    feedmap.write(_entries(9000, 500), source, "jsonl", Options(keep_urls=True))
    opts = Options(**options)
    assert _convert(source, opts, apart=False) == _convert(source, opts, apart=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    paths=st.lists(st.text(alphabet="ab#%/ ?&'<\n\r\u00e9~=", max_size=6), min_size=1, max_size=40),
    encode=st.booleans(),
)
def test_runs_of_locs_drawn_from_characters_on_each_side_of_the_decision_are_written_as_the_steps_write_them(
    paths: list[str], encode: bool
) -> None:
    """Locs made of characters a URI as written holds and some it does not (``#`` once or twice, ``%``, blanks,
    line breaks, non-ASCII), each many times over so that runs fill with them: the same bytes and diagnostics
    as with the steps apart."""
    entries = [
        Entry(loc=f"https://e.example/{paths[number % len(paths)]}", origin=Position("in.jsonl", number + 1))
        for number in range(5000)
    ]
    options = Options(encode_urls=encode)
    assert _write(entries, options) == _write(entries, Options(encode_urls=encode, limit=10**6))
