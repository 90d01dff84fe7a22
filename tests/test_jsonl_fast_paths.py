"""The JSON Lines reader's short ways (an image object with its loc alone, a line with the common keys only, one
JSON decoder for every line) give what the long ways give: every check and message kept."""

from __future__ import annotations

import io
import json

import pytest

import feedmap
from feedmap import Diagnostic, Entry, Image, Reporter, W3CDate

LOC = "https://www.example.com/"
IMG = "https://www.example.com/i.png"


def read(data: bytes) -> tuple[list[Entry], list[Diagnostic]]:
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), format="jsonl", reporter=reporter) as doc:
        return list(doc), reporter.diagnostics


def lines(*objects: object) -> bytes:
    return "".join(json.dumps(obj) + "\n" for obj in objects).encode()


def messages(diagnostics: list[Diagnostic]) -> list[tuple[int, str, str]]:
    return [(d.line, d.code, d.message) for d in diagnostics]


@pytest.mark.parametrize(
    ("image", "message"),
    [
        ({"loc": IMG, "size": "big"}, "unknown image keys: size; line skipped"),
        ({"loc": IMG, "zz": 1, "aa": None}, "unknown image keys: aa, zz; line skipped"),
        ({"size": IMG}, "each image must be an object with a string 'loc'; line skipped"),
        ({"loc": 7}, "each image must be an object with a string 'loc'; line skipped"),
        ({"loc": IMG, "caption": 3}, "image 'caption' must be a string; line skipped"),
    ],
)
def test_each_image_object_is_still_checked(image: dict[str, object], message: str) -> None:
    entries, diagnostics = read(lines({"loc": LOC, "images": [{"loc": IMG}, image]}, {"loc": LOC + "2"}))
    assert [e.loc for e in entries] == [LOC + "2"]
    assert messages(diagnostics) == [(1, "invalid-value", message)]


def test_an_image_with_its_loc_alone_equals_the_full_constructor() -> None:
    entries, diagnostics = read(lines({"loc": LOC, "images": [{"loc": IMG}, {"loc": IMG, "caption": None}]}))
    assert entries[0].images == (Image(loc=IMG), Image(loc=IMG))
    assert diagnostics == []


def test_a_line_with_the_common_keys_only_equals_the_full_constructor() -> None:
    common = {"loc": LOC, "lastmod": "2024-05-26T21:33:00Z", "changefreq": "daily", "images": [{"loc": IMG}]}
    entries, diagnostics = read(lines(common, {**common, "title": None, "priority": None, "extras": None}))
    expected = Entry(loc=LOC, lastmod=W3CDate("2024-05-26T21:33:00Z"), changefreq="daily", images=(Image(loc=IMG),))
    assert entries == [expected, expected]
    assert entries[0].extras is not entries[1].extras  # each entry its own dict
    assert diagnostics == []


def test_the_common_keys_are_still_checked_and_the_others_still_read() -> None:
    entries, diagnostics = read(
        lines(
            {"loc": LOC + "1", "images": [{"loc": IMG, "x": "y"}]},
            {"loc": LOC + "2", "lastmod": 2024},
            {"loc": LOC + "3", "colour": "blue", "images": [{"loc": IMG}]},
            {"loc": LOC + "4", "images": [{"loc": IMG}], "priority": 0.5, "title": "T"},
        )
    )
    assert [(e.loc, e.priority, e.title, len(e.images)) for e in entries] == [
        (LOC + "3", None, None, 1),
        (LOC + "4", 0.5, "T", 1),
    ]
    assert messages(diagnostics) == [
        (1, "invalid-value", "unknown image keys: x; line skipped"),
        (2, "invalid-value", "'lastmod' must be a string, not int; line skipped"),
        (3, "unknown-key", "unknown keys colour ignored"),
    ]


def test_a_byte_order_mark_past_the_first_line_keeps_the_json_message() -> None:
    _, diagnostics = read(lines({"loc": LOC}) + b'\xef\xbb\xbf{"loc": "https://www.example.com/2"}\n')
    assert messages(diagnostics) == [
        (
            2,
            "invalid-json",
            "not a JSON object (Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)); line skipped",
        ),
    ]


@pytest.mark.parametrize(
    ("line", "locs", "codes"),
    [
        ({"loc": LOC + "a", "lastmod": "2024-01-02"}, [LOC + "a"], []),
        ({"loc": " " + LOC + "a\t", "lastmod": "2024-01-02"}, [LOC + "a"], ["whitespace-trimmed"]),
        ({"loc": "", "lastmod": "2024-01-02"}, [], ["loc-missing"]),
        ({"loc": "   "}, [], ["loc-missing"]),
        ({"loc": None}, [], ["loc-missing"]),
        ({"loc": LOC + "a b"}, [LOC + "a b"], ["loc-not-escaped"]),
        ({"loc": "relative/a"}, ["relative/a"], ["relative-url"]),
        ({"loc": LOC + "a", "lastmod": "2024-1-2"}, [LOC + "a"], ["lastmod-repaired"]),
        ({"loc": LOC + "a", "lastmod": "yesterday"}, [LOC + "a"], ["lastmod-invalid"]),
        ({"loc": LOC + "a", "priority": 1.5}, [LOC + "a"], ["priority-invalid"]),
        ({"loc": LOC + "a", "images": []}, [LOC + "a"], []),
    ],
)
def test_a_common_line_takes_every_check_of_its_loc_lastmod_and_priority(
    line: dict[str, object], locs: list[str], codes: list[str]
) -> None:
    """The common line's short way (its loc fine as written, its lastmod a W3C date, no priority) says yes only
    where the long way reads the value as it is and reports nothing; each other value is read the long way."""
    entries, diagnostics = read(lines(line))
    assert [entry.loc for entry in entries] == locs
    assert [(d.line, d.code) for d in diagnostics] == [(1, code) for code in codes]
    if entries and "lastmod" in line and not codes:
        assert entries[0].lastmod == W3CDate(str(line["lastmod"]))
