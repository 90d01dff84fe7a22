"""The plain URL of both passes (issue 19): a loc a urlset's or a feed's one pass takes as plain (sitemaps.org 0.9,
https://www.sitemaps.org/protocol.html, and RSS 2.0, https://www.rssboard.org/rss-specification: an absolute
http(s) URL) is written and keyed as it is, only an ``&`` escaped in a urlset; a feed takes no ``&`` as plain.
Both passes' compiled loops ask the same character loop, so each code unit of ASCII (and a few wider ones) is put
in each part of a loc (the scheme, the host, the port, the path, the query, the fragment), as a loc and as an
image's: each twin (compiled where built, and pure) must write and say what the steps one after the other do,
byte for byte and line for line (the oracle: the same call with a ``limit``, a step after the merge).
"""

from __future__ import annotations

import dataclasses
import io

import pytest

import feedmap
from feedmap import Diagnostic, Entry, Image, Options, Position, W3CDate

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
    fields = {field.name: getattr(options, field.name) for field in dataclasses.fields(options)}
    written = _write(entries, fmt, options)
    assert written == _write(entries, fmt, Options(**{**fields, "limit": 10**6}))
    assert written[2] == ""
    if form not in FORMS[:2]:  # past the scheme, most code units are written: plain ones among them
        assert written[0].count(b"<loc>" if fmt == "sitemap" else b"<item>") > 10
