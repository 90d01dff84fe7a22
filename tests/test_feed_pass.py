"""The feeds' one pass (issue 19, round 5): a ``ror`` or ``rss`` write whose plan ends with the checks of its URLs
and the merge of repeats checks, keys and renders a *plain* entry in one look, and sends every other entry
through each step's own function.  Both loops (the compiled one where it is built, the pure-Python twin under
``FEEDMAP_PURE=1``) must write and say what the steps one after the other write and say, byte for byte and line
for line: the oracle is the same call with a ``limit`` (a step after the merge, which keeps the steps apart).

The entries are drawn at each side of the plain decision: locs (plain, uppercase scheme, a port of five digits,
``&``, an IRI, another scheme, a relative one, 2,047 and 2,048 characters), titles (plain, blank at an end, the
five characters XML escapes, an end tag, non-ASCII, a control character, empty), lastmods of every form a
``pubDate`` is written from (a date, seconds with ``Z``, offsets of 0, 13 and 14 hours, fractions, minutes,
a year, a year before 1000, a leap day), and other fields now and then, with repeats.

The plain URL of both passes (a feed's and a urlset's: their compiled loops ask one character loop) is held to
the steps for each code unit of ASCII (and a few wider ones) in each part of a loc (the scheme, the host, the
port, the path, the query, the fragment), as a loc and as a urlset image's: a urlset writes a plain loc as it is
but an ``&`` escaped; a feed takes no ``&`` as plain.
"""

from __future__ import annotations

import dataclasses
import io
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import feedmap
from feedmap import ChangeFreq, Diagnostic, Entry, Image, Options, Position, W3CDate
from feedmap.cli import main

LOCS = [
    "https://e.example/a",
    "http://e.example:8080/p?q=1#f",
    "https://e.example:12345/p",
    "HTTPS://e.example/b",
    "https://e.example/a&b",
    "https://e.example/\u00fc",
    "https://e.example/%C3%BC",
    "https://e.example/a#b#c",
    "ftp://e.example/f",
    "/relative",
    "https://e.example/" + "x" * 2025,
    "https://e.example/" + "y" * 2030,
]
TITLES: list[Any] = [
    None,
    "Product 1",
    "~!#$%()*+,-./:;=?@[]^_`{|}",
    " lead",
    "trail ",
    "a & b",
    "a < b",
    "a > b",
    'a "b"',
    "it's",
    "x</p>",
    "\u00e9t\u00e9",
    "t\x02",
    "",
    "two  spaces",
    "del\x7f",
]
DATES: list[Any] = [
    None,
    "2024-01-02",
    "2024-01-02T03:04:05Z",
    "2024-01-02T03:04:05+02:00",
    "2024-01-02T03:04:05-13:59",
    "2024-01-02T03:04:05+14:00",
    "2024-01-02T03:04:05+00:00",
    "2024-01-02T03:04:05-00:00",
    "2024-01-02T03:04:05.5Z",
    "2024-01-02T03:04:05.1000Z",
    "2024-01-02T03:04:05.25+01:00",
    "2024-01-02T03:04Z",
    "2024-01",
    "2024",
    "0999-03-04T05:06:07Z",
    "0999-03-04",
    "1000-03-04T05:06:07Z",
    "2024-02-29T23:59:59Z",
    "1900-02-28",
    "2000-02-29T00:00:00Z",
    "0001-01-01T00:00:00Z",
]


def _said(seen: list[Diagnostic]) -> list[str]:
    return [f"{d.level.name} {d.code} {d.message} {d.source}:{d.line}" for d in seen]


def _write(entries: list[Entry], fmt: str, options: Options) -> tuple[bytes, list[str], str]:
    seen: list[Diagnostic] = []
    out = io.BytesIO()
    error = ""
    try:
        feedmap.write(entries, out, fmt, options, on_diagnostic=seen.append)
    except feedmap.FeedmapError as exc:
        error = f"{type(exc).__name__}: {exc}"
    return out.getvalue(), _said(seen), error


@st.composite
def entries_drawn(draw: st.DrawFn) -> list[Entry]:
    """Entries at each side of the plain decision, repeating a few locs."""
    entries = []
    for line in range(draw(st.integers(min_value=0, max_value=24))):
        more = draw(st.integers(min_value=0, max_value=15))
        date = draw(st.sampled_from(DATES))
        entries.append(
            Entry(
                loc=draw(st.sampled_from(LOCS)),
                lastmod=None if date is None else W3CDate(date),
                title=draw(st.sampled_from(TITLES)),
                description="d" if more == 1 else None,
                priority=(0.5, 1.5)[line % 2] if more == 2 else None,
                changefreq=ChangeFreq.DAILY if more == 3 else None,
                keywords=("k",) if more == 4 else (),
                type="product" if more == 5 else None,
                origin=Position("in.jsonl", line + 1) if more != 6 else None,
            )
        )
    return entries


@pytest.mark.parametrize("twin", ["compiled", "pure"])
@pytest.mark.parametrize("fmt", ["ror", "rss"])
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(
    entries=entries_drawn(),
    policy=st.sampled_from([None, "last", "newest", "first"]),
    strict=st.booleans(),
    keep_urls=st.booleans(),
)
def test_a_feed_written_in_one_pass_writes_and_says_what_the_steps_do(
    monkeypatch: pytest.MonkeyPatch,
    twin: str,
    fmt: str,
    entries: list[Entry],
    policy: Any,
    strict: bool,
    keep_urls: bool,
) -> None:
    if twin == "pure":
        monkeypatch.setenv("FEEDMAP_PURE", "1")
    else:
        monkeypatch.delenv("FEEDMAP_PURE", raising=False)
    options = Options(
        channel_title="T", channel_link="https://e.example/", dedupe=policy, strict=strict, keep_urls=keep_urls
    )
    fused = _write(entries, fmt, options)
    steps = _write(entries, fmt, Options(**{**_fields(options), "limit": 10**6}))
    assert fused == steps


def _fields(options: Options) -> dict[str, Any]:
    return {field.name: getattr(options, field.name) for field in dataclasses.fields(options)}


@pytest.mark.parametrize("twin", ["compiled", "pure"])
@pytest.mark.parametrize("fmt", ["ror", "rss"])
@pytest.mark.parametrize("date", DATES)
@pytest.mark.parametrize("title", TITLES)
def test_each_title_and_lastmod_at_the_plain_decision_is_written_as_the_steps_write_it(
    monkeypatch: pytest.MonkeyPatch, twin: str, fmt: str, date: Any, title: Any
) -> None:
    if twin == "pure":
        monkeypatch.setenv("FEEDMAP_PURE", "1")
    else:
        monkeypatch.delenv("FEEDMAP_PURE", raising=False)
    lastmod = None if date is None else W3CDate(date)
    entries = [
        Entry(loc="https://e.example/a", lastmod=lastmod, title=title, origin=Position("in.jsonl", 1)),
        Entry(loc="https://e.example/b", lastmod=lastmod, origin=Position("in.jsonl", 2)),
        Entry(loc="https://e.example/a", lastmod=W3CDate("2030-01-01"), title=title, origin=Position("in.jsonl", 3)),
    ]
    options = Options(channel_title="T", channel_link="https://e.example/")
    assert _write(entries, fmt, options) == _write(entries, fmt, Options(**{**_fields(options), "limit": 10**6}))


@pytest.mark.parametrize("twin", ["compiled", "pure"])
@pytest.mark.parametrize("fmt", ["ror", "rss"])
@pytest.mark.parametrize("loc", LOCS)
def test_each_loc_at_the_plain_decision_is_written_as_the_steps_write_it(
    monkeypatch: pytest.MonkeyPatch, twin: str, fmt: str, loc: str
) -> None:
    """Every loc of :data:`LOCS` with a plain title and lastmod, alone and repeated: the same bytes and lines as
    the steps one after the other, and a feed that parses (an ``&`` the urlset's pass now takes as plain, escaped
    there, was written bare by the feed pass's twin)."""
    if twin == "pure":
        monkeypatch.setenv("FEEDMAP_PURE", "1")
    else:
        monkeypatch.delenv("FEEDMAP_PURE", raising=False)
    entries = [
        Entry(loc=loc, lastmod=W3CDate("2024-01-02T03:04:05Z"), title="Product 1", origin=Position("in.jsonl", 1)),
        Entry(loc="https://e.example/z", lastmod=W3CDate("2024-01-02"), origin=Position("in.jsonl", 2)),
        Entry(loc=loc, lastmod=W3CDate("2030-01-01T00:00:00Z"), title="Product 2", origin=Position("in.jsonl", 3)),
    ]
    options = Options(channel_title="T", channel_link="https://e.example/")
    written = _write(entries, fmt, options)
    assert written == _write(entries, fmt, Options(**{**_fields(options), "limit": 10**6}))
    if written[0]:
        etree.fromstring(written[0])


@pytest.mark.parametrize("twin", ["compiled", "pure"])
@pytest.mark.parametrize("fmt", ["ror", "rss"])
@pytest.mark.parametrize("more", [[], ["--dedupe", "last"], ["--strict"], ["--keep-urls"]])
def test_the_cli_converts_to_a_feed_in_one_pass_as_the_steps_do(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Any,
    twin: str,
    fmt: str,
    more: list[str],
) -> None:
    if twin == "pure":
        monkeypatch.setenv("FEEDMAP_PURE", "1")
    else:
        monkeypatch.delenv("FEEDMAP_PURE", raising=False)
    lines = []
    for number, (loc, title, date) in enumerate(zip(LOCS * 3, TITLES * 3, DATES * 2, strict=False)):
        record: dict[str, Any] = {"loc": loc if number % 5 else LOCS[0]}
        if title is not None:
            record["title"] = title
        if date is not None:
            record["lastmod"] = date
        lines.append(record)
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    results = []
    for limit in ([], ["--limit", "1000000"]):
        out = tmp_path / "out.xml"  # one name: the messages name it
        out.unlink(missing_ok=True)
        code = main(["convert", str(source), "-t", fmt, "-o", str(out), *more, *limit])
        captured = capsys.readouterr()
        results.append((code, captured.out, captured.err, out.read_bytes() if out.exists() else None))
    assert results[0] == results[1]
    assert results[0][0] in (0, 1)


#: Where a code unit goes ({}): each part of a URL, and the ends of the host and the path.
FORMS = [
    "http{}://e.example/p",
    "https:/{}/e.example/p",
    "https://{}e.example/p",
    "https://e.ex{}ample/p",
    "https://e.example{}",
    "https://e.example:8{}/p",
    "https://e.example/p{}q",
    "https://e.example/p?q={}&r",
    "https://e.example/p#{}f",
]
UNITS = [chr(unit) for unit in range(128)] + ["\u00e9", "\u0100", "\u20ac", "\U0001f600"]


def _entries(form: str, fmt: str) -> list[Entry]:
    """Each code unit in ``form``, then each again (a repeat, newer): titled for a feed (a urlset's plain entry
    has no title), an image of the same loc on every other entry of a urlset."""
    entries = []
    for number, unit in enumerate(UNITS + UNITS[::-1]):
        loc = form.format(unit)
        entries.append(
            Entry(
                loc=loc,
                lastmod=W3CDate("2024-01-02T03:04:05Z" if number < len(UNITS) else "2030-01-02T03:04:05Z"),
                title=None if fmt == "sitemap" else "T",
                images=(Image(loc=loc),) if fmt == "sitemap" and number % 2 else (),
                origin=Position("in.jsonl", number + 1),
            )
        )
    return entries


@pytest.mark.parametrize("twin", ["compiled", "pure"])
@pytest.mark.parametrize("fmt", ["sitemap", "ror", "rss"])
@pytest.mark.parametrize("form", FORMS)
def test_each_code_unit_in_each_part_of_a_loc_is_written_as_the_steps_write_it(
    monkeypatch: pytest.MonkeyPatch, twin: str, fmt: str, form: str
) -> None:
    if twin == "pure":
        monkeypatch.setenv("FEEDMAP_PURE", "1")
    else:
        monkeypatch.delenv("FEEDMAP_PURE", raising=False)
    options = Options(channel_title="T", channel_link="https://e.example/")
    entries = _entries(form, fmt)
    written = _write(entries, fmt, options)
    assert written == _write(entries, fmt, Options(**{**_fields(options), "limit": 10**6}))
    assert written[2] == ""
    if form not in FORMS[:2]:  # past the scheme, most code units are written: plain ones among them
        assert written[0].count(b"<loc>" if fmt == "sitemap" else b"<item>") > 10
