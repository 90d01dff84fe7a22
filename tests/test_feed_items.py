"""The common feed item (issue 19): an entry with a loc, a title and a lastmod, nothing else, is written in one
string, and must be what the long way writes for it.  Pinned by its bytes (RSS 2.0 item: ``title``, ``link``, a
permalink ``guid``, ``pubDate``; ROR adds ``ror:updated`` and ``ror:resourceOf``), and held to the long way by
the same entry with one more field that writes the same bytes (ROR: ``ror:resourceOf`` given as the extra it
reads back as; RSS: a blank keyword, left out), over titles with markup, blanks and control characters, locs
that are plain URIs or not, and every form of lastmod."""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Diagnostic, Entry, Options, W3CDate

OPTIONS = Options(channel_title="T", channel_link="https://e.example/")


def _items(entries: list[Entry], fmt: str) -> tuple[list[bytes], list[str]]:
    seen: list[Diagnostic] = []
    out = io.BytesIO()
    feedmap.write(entries, out, fmt, OPTIONS, on_diagnostic=seen.append)
    items = [b"<item>" + part.split(b"</item>")[0] + b"</item>" for part in out.getvalue().split(b"<item>")[1:]]
    if fmt == "ror":
        items = items[1:]  # the header item
    return items, [f"{d.code} {d.message}" for d in seen if d.code != "keyword-changed"]


@pytest.mark.parametrize(
    ("fmt", "item"),
    [
        (
            "ror",
            b'<item><title>Product 1</title><link>https://e.example/p1</link><guid isPermaLink="true">'
            b"https://e.example/p1</guid><pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate>"
            b"<ror:updated>2024-01-02T10:00:00Z</ror:updated><ror:resourceOf>sitemap</ror:resourceOf></item>",
        ),
        (
            "rss",
            b'<item><title>Product 1</title><link>https://e.example/p1</link><guid isPermaLink="true">'
            b"https://e.example/p1</guid><pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate></item>",
        ),
    ],
)
def test_the_common_item_is_pinned(fmt: str, item: bytes) -> None:
    entry = Entry(loc="https://e.example/p1", lastmod=W3CDate("2024-01-02T10:00:00Z"), title="Product 1")
    assert _items([entry], fmt) == ([item], [])


@pytest.mark.parametrize("fmt", ["ror", "rss"])
def test_an_item_without_a_lastmod_or_a_title(fmt: str) -> None:
    entry = Entry(loc="https://e.example/p1")
    items, _ = _items([entry], fmt)
    resource = b"<ror:resourceOf>sitemap</ror:resourceOf>" if fmt == "ror" else b""
    link = b'<link>https://e.example/p1</link><guid isPermaLink="true">https://e.example/p1</guid>'
    assert items == [b"<item><title>https://e.example/p1</title>" + link + resource + b"</item>"]


TITLES: list[str | None] = [None, "Product", "", " padded ", "a & b", "<b>x</b>", "t\x02", "</p>", "a\u00a0"]
LOCS = ["https://e.example/p", "https://e.example/\u00fc", "https://e.example/a&b", "https://e.example/s p"]
LASTMODS: list[str | None] = [
    None,
    "2024-01-02",
    "2024-01-02T10:00:00Z",
    "2024-01-02T10:00:00+02:00",
    "2024-01-02T10:00:00+00:00",
    "2024-01-02T10:00Z",
    "2024-01-02T10:00:00.5Z",
    "0999-01-02T10:00:00Z",
    "2016-12-31T23:59:60Z",
    "2023",
]


@settings(max_examples=60, deadline=None)
@given(
    fmt=st.sampled_from(["ror", "rss"]),
    drawn=st.lists(
        st.tuples(st.sampled_from(LOCS), st.sampled_from(TITLES), st.sampled_from(LASTMODS)), min_size=1, max_size=6
    ),
)
def test_the_common_item_is_what_the_long_way_writes(fmt: str, drawn: list[tuple[str, Any, Any]]) -> None:
    plain = [
        Entry(loc=f"{loc}{n}", title=title, lastmod=None if lastmod is None else W3CDate(lastmod))
        for n, (loc, title, lastmod) in enumerate(drawn)
    ]
    _both_ways(fmt, plain)


def _both_ways(fmt: str, entries: list[Entry]) -> None:
    extra: dict[str, Any] = {"extras": {"ror:resourceOf": "sitemap"}} if fmt == "ror" else {"keywords": (" ",)}
    long_way = [Entry(loc=entry.loc, title=entry.title, lastmod=entry.lastmod, **extra) for entry in entries]
    assert _items(entries, fmt) == _items(long_way, fmt)


@pytest.mark.parametrize("fmt", ["ror", "rss"])
@pytest.mark.parametrize("title", TITLES)
@pytest.mark.parametrize("lastmod", LASTMODS)
def test_every_title_and_lastmod_of_the_common_item_as_the_long_way(fmt: str, title: str | None, lastmod: Any) -> None:
    date = None if lastmod is None else W3CDate(lastmod)
    _both_ways(fmt, [Entry(loc=f"{loc}1", title=title, lastmod=date) for loc in LOCS])
