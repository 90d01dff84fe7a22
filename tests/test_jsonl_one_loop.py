"""The JSON Lines reader's one loop: a common line (an object of loc, lastmod, changefreq, priority and images of
which nothing is said) is read in the loop itself; every other line takes the long way, with every check and
message. The oracle: the same file with each valid line made to take the long way without changing what it
means (a letter that opens a JSON string written as its ``\\u`` escape: the loop leaves a line with an escape
to the long way), so both files must give the same entries (every field and line) and the same diagnostics."""

from __future__ import annotations

import io
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Diagnostic, Entry, Options, Reporter

LOC = "https://www.example.com/"
IMG = "https://www.example.com/i.png"
LIMIT = 4096  # lines drawn below stay far under it once escaped; the overlong ones are far over it

_OPENING_LETTER = re.compile(rb'"([A-Za-z])')


def read(data: bytes) -> tuple[list[tuple[Entry, object, object, object]], list[tuple[int | None, str, str]]]:
    reporter = Reporter()
    with feedmap.read(
        io.BytesIO(data), format="jsonl", options=Options(max_line_bytes=LIMIT), reporter=reporter
    ) as doc:
        entries: list[tuple[Entry, object, object, object]] = [
            (entry, entry.origin, entry.extras, entry.images) for entry in doc
        ]
    return entries, [said(d) for d in reporter.diagnostics]


def said(diagnostic: Diagnostic) -> tuple[int | None, str, str]:
    return diagnostic.line, diagnostic.code, diagnostic.message


def long_way(data: bytes) -> bytes:
    """``data`` with every line that is valid JSON made to take the long way, meaning the same.

    This holds while the loop leaves every line holding a ``\\u`` escape to the long way (its surrogate checks):
    a change that reads such lines in the loop must find another way to force the long way here."""
    return b"\n".join(
        _OPENING_LETTER.sub(lambda m: b'"\\u%04x' % ord(m.group(1)), raw) if is_json(raw) else raw
        for raw in data.split(b"\n")
    )


def is_json(raw: bytes) -> bool:
    """Whether a line read (stripped of ASCII blanks) is JSON in strict UTF-8."""
    try:
        json.loads(raw.strip().decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return True


def assert_read_alike(data: bytes) -> None:
    assert read(data) == read(long_way(data))


def dumped(obj: object) -> bytes:
    return json.dumps(obj).encode()


COMMON = {"loc": LOC + "c", "lastmod": "2024-05-26T21:33:00Z", "images": [{"loc": IMG}]}

#: Lines on both sides of the common line, each value one the loop must give to the long way or take as it is.
ODD_LINES: list[bytes] = [
    dumped(COMMON),
    dumped({"loc": LOC + "plain"}),
    dumped({"loc": LOC + "a", "changefreq": "daily", "priority": 0.5}),
    dumped({"loc": LOC + "a", "priority": 0.5}),
    dumped({"loc": LOC + "a", "priority": 0.50}),
    b'{"loc": "https://www.example.com/a", "priority": 0.500}',
    dumped({"loc": LOC + "a", "priority": 0.0}),
    dumped({"loc": LOC + "a", "priority": -0.0}),
    dumped({"loc": LOC + "a", "priority": 0}),
    dumped({"loc": LOC + "a", "priority": 1}),
    dumped({"loc": LOC + "a", "priority": True}),
    dumped({"loc": LOC + "a", "priority": "0.5"}),
    dumped({"loc": LOC + "a", "priority": 1.5}),
    b'{"loc": "https://www.example.com/a", "priority": 0.12345678901234567890}',
    b'{"loc": "https://www.example.com/a", "priority": 1e-400}',
    b'{"loc": "https://www.example.com/a", "priority": NaN}',
    b'{"loc": "https://www.example.com/a", "priority": Infinity}',
    b'{"loc": "https://www.example.com/a", "priority": 5e-1}',
    dumped({"loc": LOC + "a", "changefreq": "Daily"}),
    dumped({"loc": LOC + "a", "changefreq": " daily"}),
    dumped({"loc": LOC + "a", "changefreq": "sometimes"}),
    dumped({"loc": LOC + "a", "changefreq": ["daily"]}),
    dumped({"loc": LOC + "a", "changefreq": {"a": 1}}),
    dumped({"loc": LOC + "a", "changefreq": 7}),
    dumped({"loc": LOC + "a", "changefreq": ""}),
    dumped({"loc": LOC + "a", "lastmod": "2024-01-02"}),
    dumped({"loc": LOC + "a", "lastmod": "2024-1-2"}),
    dumped({"loc": LOC + "a", "lastmod": "2024-01-02 10:00"}),
    dumped({"loc": LOC + "a", "lastmod": "yesterday"}),
    dumped({"loc": LOC + "a", "lastmod": 2024}),
    dumped({"loc": LOC + "a", "lastmod": ""}),
    dumped({"loc": LOC + "a", "lastmod": ["2024"]}),
    dumped({"loc": LOC + "a", "lastmod": None, "changefreq": None, "priority": None, "images": None}),
    dumped({"loc": LOC + "a", "images": []}),
    dumped({"loc": LOC + "a", "images": {}}),
    dumped({"loc": LOC + "a", "images": "x"}),
    dumped({"loc": LOC + "a", "images": [1]}),
    dumped({"loc": LOC + "a", "images": [{"loc": 1}]}),
    dumped({"loc": LOC + "a", "images": [{"src": IMG}]}),
    dumped({"loc": LOC + "a", "images": [{"loc": IMG, "caption": "c"}]}),
    dumped({"loc": LOC + "a", "images": [{"loc": IMG, "caption": None}]}),
    dumped({"loc": LOC + "a", "images": [{"loc": IMG}, {"loc": IMG, "size": 2}]}),
    dumped({"loc": LOC + "a", "images": [{"loc": " " + IMG}]}),
    dumped({"loc": LOC + "a", "title": "T"}),
    dumped({"loc": LOC + "a", "colour": "blue"}),
    dumped({"loc": LOC + "a", "alternates": [{"hreflang": "de", "href": LOC + "de"}]}),
    dumped({"loc": LOC + "a", "extras": {"{}x": "y"}}),
    dumped({"loc": " " + LOC + "a"}),
    dumped({"loc": LOC + "a b"}),
    dumped({"loc": LOC + "a<b"}),
    dumped({"loc": "https://user@www.example.com/a"}),
    dumped({"loc": "https://www.example.com/a@b"}),
    dumped({"loc": "https://[::1/a"}),
    dumped({"loc": "https://www.example.com:99999/a"}),
    dumped({"loc": "relative/a"}),
    dumped({"loc": ""}),
    dumped({"loc": None}),
    dumped({"loc": 7}),
    dumped({"loc": LOC + "x" * 2100}),
    dumped({"lastmod": "2024-01-02"}),
    dumped({}),
    dumped([COMMON]),
    b"7",
    b'"loc"',
    b"null",
    b'{"loc": "https://www.example.com/dup", "loc": "https://www.example.com/dup2"}',
    b'{"loc": "https://www.example.com/dup", "lastmod": 5, "lastmod": "2024-01-02"}',
    b'{"loc": "https://www.example.com/big", "priority": 1' + b"0" * 5000 + b"}",
    b'{"loc": "https://www.example.com/deep", "images": ' + b"[" * 3000 + b"]" * 3000 + b"}",
    b'{"loc": "https://www.example.com/esc\\u00e9"}',
    b'{"loc": "https://www.example.com/sur\\ud800"}',
    b'{"loc": "https://www.example.com/pair\\ud83d\\ude00"}',
    '{"loc": "https://www.example.com/\u00e9t\u00e9"}'.encode(),
    '{"loc": "https://www.example.com/\u2028"}'.encode(),
    b'{"loc": "https://www.example.com/bad\xff"}',
    b'{"loc": "https://www.example.com/surrogate-bytes\xed\xa0\x80"}',
    b'{"loc": "https://www.example.com/overlong\xc0\xaf"}',
    b"\xef\xbb\xbf" + dumped(COMMON),
    b"  " + dumped(COMMON) + b"  ",
    b"\t" + dumped(COMMON) + b"\x0c",
    dumped(COMMON) + b"\r",
    dumped(COMMON) + b" x",
    dumped(COMMON) + b"{}",
    dumped(COMMON)[:-3],
    b"",
    b"   ",
    b"\r",
    b"{" + b" " * (LIMIT + 100) + b"}",
    b"x" * (LIMIT * 3),
]


@pytest.mark.parametrize("line", ODD_LINES, ids=range(len(ODD_LINES)))
def test_each_odd_line_is_read_as_the_long_way_reads_it(line: bytes) -> None:
    """Each line after a common one, twice (a fraction is taken the short way once met), then a common one."""
    common = dumped(COMMON)
    data = b"\n".join([common, line, line, common, b""])
    assert_read_alike(data)
    if line.strip() and not is_json(line):  # the long way leaves it out, and says so
        entries, diagnostics = read(data)
        assert [entry.origin.line for entry, *_ in entries if entry.origin is not None] == [1, 4]
        assert [(at, code) for at, code, _ in diagnostics] in (
            [(2, "invalid-json"), (3, "invalid-json")],
            [(2, "line-too-long"), (3, "line-too-long")],
        )


def test_a_header_and_then_the_odd_lines_are_read_as_the_long_way_reads_them() -> None:
    header = dumped({"kind": "urlset", "title": "T"})
    assert_read_alike(b"\n".join([header, *ODD_LINES, *ODD_LINES, b""]))
    assert_read_alike(b"\r\n".join([b"", b"", *ODD_LINES]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(ODD_LINES), min_size=0, max_size=40),
    st.sampled_from([b"\n", b"\r\n"]),
    st.booleans(),
)
def test_any_mix_of_odd_lines_is_read_as_the_long_way_reads_it(picked: list[bytes], end: bytes, last: bool) -> None:
    data = end.join(picked) + (end if last else b"")
    assert_read_alike(data)


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.sampled_from(["daily", "Daily", "2024-01-02", "2024-01-02T10:00:00Z", "2024-13-01", "0.5", "", " x"]),
    st.sampled_from([0.5, 0.25, 1.0, 0.0, 2.5, 0.1]),
    st.text(max_size=6),
    st.lists(st.sampled_from([{"loc": IMG}, {"loc": 2}, {"loc": IMG, "title": "t"}, "x"]), max_size=3),
    st.dictionaries(st.sampled_from(["loc", "caption", "a"]), st.sampled_from([IMG, 1, None]), max_size=2),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["loc", "lastmod", "changefreq", "priority", "images", "title"]),
            _VALUES,
            max_size=5,
        ).map(lambda obj: {**obj, "loc": LOC + "p"} if obj.get("loc") is None and len(obj) % 2 else obj),
        max_size=20,
    )
)
def test_objects_of_the_common_keys_with_values_of_any_type_are_read_as_the_long_way_reads_them(
    objects: list[dict[str, object]],
) -> None:
    data = b"".join(dumped(COMMON) + b"\n" + dumped(obj) + b"\n" for obj in objects)
    assert_read_alike(data)


def test_the_common_lines_keep_every_field_and_their_line() -> None:
    data = b"\n".join([dumped(COMMON), b"", dumped({**COMMON, "changefreq": "weekly", "priority": 0.5})] * 3)
    entries, diagnostics = read(data)
    assert diagnostics == []
    assert [entry.origin.line for entry, *_ in entries if entry.origin is not None] == [1, 3, 4, 6, 7, 9]
    assert entries[-1][0].changefreq == "weekly" and entries[-1][0].priority == 0.5
    escaped = long_way(data)
    assert b"\\u006coc" in escaped and b'"loc"' not in escaped  # the oracle's lines do take the long way
    assert entries == read(escaped)[0]
