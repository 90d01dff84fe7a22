"""The JSON lines reader's two twins of its common line (issue 19): the compiled one (``_jsonl_c.pyx``, its loc and
lastmod checks as C loops, entries built by slot stores) and the pure one (``_jsonl._common``, a regex and
``W3CDate``) give the same entry, or the same None (the long way), for every object of common keys; and a file
read, or converted, gives the same entries, diagnostics and output bytes with either (``FEEDMAP_PURE``), so the
compiled loop (``_jsonl_c.Lines``) hands the same lines to the long way as the pure one (``_jsonl._lines``).

The objects are drawn on both sides of each decision: loc characters (every ASCII one, blanks past ASCII, letters
past ASCII), userinfo, IP literals, ports, 2047 and 2048 characters; lastmods in and out of the plain form (leap
seconds, offsets to +14:00, ``Z``, fractions, a zone on a date, days past a month's end); changefreq spellings;
priorities met before or not; images of odd shapes; and a hypothesis property over all of them."""

from __future__ import annotations

import dataclasses
import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from conftest import env_flag
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Entry, Options, Reporter
from feedmap.formats.lines._jsonl import _common as pure_common
from feedmap.formats.lines._jsonl_values import priority_of

#: Compiled where built; None elsewhere (the tests that need it skip then, and fail under FEEDMAP_REQUIRE_ACCEL).
try:
    from feedmap.formats.lines import _jsonl_c as compiled_twin
except ImportError:  # not built here
    compiled_twin = None  # type: ignore[assignment]

PURE = "FEEDMAP_PURE"


@pytest.fixture
def twin() -> Any:
    if compiled_twin is None:
        message = "the compiled jsonl reader is not built here (pip install with a C compiler builds it)"
        if env_flag("FEEDMAP_REQUIRE_ACCEL"):
            pytest.fail(f"{message}; FEEDMAP_REQUIRE_ACCEL is set")
        pytest.skip(message)
    return compiled_twin.common


def decoded(line: str) -> Any:
    """A line's value as the reader decodes it (fractions as Decimal)."""
    return json.loads(line, parse_float=Decimal)


def shape(entry: Entry | None) -> object:
    """Every field with its type, each image's and the origin's too (entry equality leaves the origin out)."""
    if entry is None:
        return None
    fields = tuple((name, type(value), value) for name, value in dataclasses.asdict(entry).items())
    images = tuple(
        (type(image), tuple(type(getattr(image, key)) for key in dataclasses.asdict(image))) for image in entry.images
    )
    return type(entry), fields, images, type(entry.lastmod), type(entry.origin), tuple(entry.origin or ())


def _known_fractions() -> None:
    """The fractions the reader has met (its table, shared by both twins): 0.5 and 0.25, not 0.3."""
    for text in ("0.5", "0.25"):
        priority_of(Decimal(text), None, 1)  # type: ignore[arg-type]  # exact and in range: nothing is said


H = "https://example.com"

#: Locs on each side of the plain check (urls._PLAIN_LOC_NO_USERINFO, no '@', under 2048 characters).
LOCS = [
    H + "/",
    H,
    "https://e",
    "a://b",
    "a://",
    "://b",
    "1a://b",
    "a+.-9://b",
    "a_b://c",
    "HTTP://EXAMPLE.COM/P",
    H + "/a?b=c&d=e#f",
    H + "?q",
    H + "#f",
    H + "/#f#g",
    H + ":8080/",
    H + ":/",
    H + ":",
    H + ":1234",
    H + ":12345",
    H + ":80x/",
    H + "/[x]",
    H + "/a:b",
    H + "/%zz",
    "https://[::1]/",
    "https://[::1]:80/x",
    "https://[]/",
    "https://[::1/",
    "https://[g::1]/",
    "https://[1.2.3.4]",
    "https://a[b]/",
    "https://a]b/",
    "https://user@example.com/",
    H + "/a@b",
    "https://exämple.com/",
    H + "/é",
    "https://例え.jp/パス",
    H + "/\U0001f600",
    "https:/example.com/",
    "https//example.com/",
    "",
    " " + H + "/",
    H + "/ ",
    H + "/" + "a" * (2047 - len(H) - 1),
    H + "/" + "a" * (2048 - len(H) - 1),
    H + "/" + "é" * (2047 - len(H) - 1),
    *(H + "/a" + chr(code) + "b" for code in range(128)),
    *("https://a" + chr(code) + "b/" for code in range(128)),
    *(
        H + "/a" + char + "b"
        for char in ("\x85", "\xa0", "\u1680", "\u2000", "\u2028", "\u2029", "\u202f", "\u3000", "\ufeff", "\x80")
    ),
    *("https://a" + char + "b/" for char in ("\x85", "\xa0", "\u2028", "\u3000", "\x80", "ß")),
]

#: Lastmods in and out of the plain form and W3CDate's (a leap second, offsets, Z, fractions, odd days).
LASTMODS = [
    "2024",
    "0000",
    "0001",
    "2024-06",
    "2024-13",
    "2024-00",
    "2024-06-01",
    "2024-02-29",
    "2023-02-29",
    "2000-02-29",
    "1900-02-29",
    "2024-04-31",
    "2024-06-01Z",
    "2024-06-01+02:00",
    "2024-06-01T10:20Z",
    "2024-06-01T10:20",
    "2024-06-01T10:20+14:00",
    "2024-06-01T10:20:30",
    "2024-06-01T10:20:30Z",
    "2024-06-01T10:20:30.5Z",
    "2024-06-01T10:20:30.123456789+05:30",
    "2024-06-01T10:20:30.Z",
    "2024-06-01T10:20:30,5Z",
    "2024-06-01T23:59:59-14:00",
    "2024-06-01T24:00:00Z",
    "2024-06-01T10:60:00Z",
    "2024-06-01T10:20:60Z",
    "2016-12-31T23:59:60Z",
    "2024-06-01T10:20:30+14:01",
    "2024-06-01T10:20:30+15:00",
    "2024-06-01T10:20:30+13:59",
    "2024-06-01T10:20:30+1:00",
    "2024-06-01T10:20:30z",
    "2024-06-01t10:20:30Z",
    "2024-06-01 10:20:30Z",
    "2024-6-1",
    "24-06-01",
    "\uff12\uff10\uff12\uff14",  # fullwidth digits
    "2024-06-01T10:20:30Z ",
    "",
    "yesterday",
]

CHANGEFREQS = ["always", "hourly", "daily", "weekly", "monthly", "yearly", "never", "Daily", " daily", "", "sometimes"]

#: Priorities as JSON text (fractions decode as Decimal): met before (0.5, 0.25), not (0.3), ints, odd ones.
PRIORITIES = ["0.5", "0.50", "0.25", "0.3", "0", "1", "0.0", "-0.0", "1.5", "-0.5", "true", '"0.5"', "5e-1", "1e-400"]

#: Images of odd shapes, as JSON text.
IMAGES = [
    "[]",
    '[{"loc": "https://example.com/i.png"}]',
    '[{"loc": "https://example.com/i.png"}, {"loc": "https://example.com/j.png"}]',
    '[{"loc": ""}]',
    '[{"loc": " odd "}]',
    '[{"loc": 1}]',
    '[{"loc": null}]',
    '[{"src": "https://example.com/i.png"}]',
    '[{"loc": "https://example.com/i.png", "caption": "c"}]',
    '[{"loc": "https://example.com/i.png", "caption": null}]',
    "[{}]",
    "[[]]",
    '["https://example.com/i.png"]',
    "[null]",
    "{}",
    '"https://example.com/i.png"',
    "7",
    '[{"loc": "https://example.com/i.png"}, 1]',
    "[" + ", ".join(f'{{"loc": "https://example.com/{n}.png"}}' for n in range(1001)) + "]",
]


def grid() -> list[str]:
    """One JSON object line for each value above, with the other keys at a plain value (or absent)."""
    lines = [json.dumps({"loc": loc}) for loc in LOCS]
    lines += [json.dumps({"loc": H + "/d", "lastmod": lastmod}) for lastmod in LASTMODS]
    lines += [json.dumps({"loc": H + "/f", "changefreq": freq}) for freq in CHANGEFREQS]
    lines += [f'{{"loc": "{H}/p", "priority": {priority}}}' for priority in PRIORITIES]
    lines += [f'{{"loc": "{H}/i", "images": {images}}}' for images in IMAGES]
    lines += [f'{{"loc": "{H}/x", "lastmod": {value}}}' for value in ("2024", "null", "[]", '{"a": 1}', "1.5", "true")]
    lines += [f'{{"loc": {value}}}' for value in ("null", "1", "[]", '{"a": "b"}', "true")]
    lines += [f'{{"loc": "{H}/c", "changefreq": {value}}}' for value in ("null", "[]", '{"a": 1}', "7", "0.5")]
    lines += [
        '{"lastmod": "2024"}',
        "{}",
        json.dumps(
            {
                "loc": H + "/all",
                "lastmod": "2024-06-01T10:20:30.5+02:00",
                "changefreq": "weekly",
                "priority": 0.25,
                "images": [{"loc": H + "/i.png"}],
            }
        ),
        json.dumps({"loc": H + "/none", "lastmod": None, "changefreq": None, "priority": None, "images": None}),
    ]
    return lines


GRID = grid()


@pytest.mark.parametrize("line", GRID)
def test_the_twins_give_the_same_entry_for_each_object(twin: Any, line: str) -> None:
    _known_fractions()
    obj = decoded(line)
    built, pure = twin(obj, "src", 7), pure_common(obj, "src", 7)
    assert shape(built) == shape(pure)


def test_the_grid_has_objects_on_both_sides() -> None:
    """The grid reaches both answers of the common step: entries and None (else it would test one side only)."""
    _known_fractions()
    answers = [pure_common(decoded(line), "src", 1) for line in GRID]
    assert sum(answer is None for answer in answers) > 100
    assert sum(answer is not None for answer in answers) > 100


@pytest.mark.parametrize(
    "loc",
    [
        H + "/",
        "https://[::1]:80/x",
        "https://exämple.com/é",
        H + "/" + "a" * (2047 - len(H) - 1),
        H + "/a[b]",
        H + "/a\x7fb",
        H + "/a\x00b",
    ],
)
def test_a_plain_loc_takes_the_common_step(twin: Any, loc: str) -> None:
    """Locs the expression takes (past ASCII, an IP literal, 2047 characters, a control that is no blank) give
    an entry in both twins: a C check stricter than the expression would hand them to the long way unseen."""
    entry = twin({"loc": loc}, "src", 1)
    assert entry is not None and entry.loc == loc
    assert shape(entry) == shape(pure_common({"loc": loc}, "src", 1))


@pytest.mark.parametrize(
    "lastmod", ["2024-06-01T10:20:30.123456789+05:30", "2016-12-31T23:59:60Z", "2024-06-01Z", "2024-06-01T10:20Z"]
)
def test_a_lastmod_past_the_plain_form_is_still_a_w3cdate(twin: Any, lastmod: str) -> None:
    entry = twin({"loc": H + "/", "lastmod": lastmod}, "src", 1)
    assert entry is not None and entry.lastmod == feedmap.W3CDate(lastmod)
    assert type(entry.lastmod) is feedmap.W3CDate


LOC_CHARS = st.sampled_from(
    [*"abcXYZ019+.-:/?#[]@%&=;,!$'()*_~<>\"{}|\\^` \t\n\r\x0b\x0c\x1c\x1f\x00\x7f", "é", "\x85", "\xa0", "\u2028", "例"]
)
LOC_TEXT = st.one_of(
    st.lists(LOC_CHARS, max_size=30).map("".join),
    st.tuples(
        st.sampled_from(["https://", "a://", "h1+.-://", "https://[", "https:/", ""]),
        st.lists(LOC_CHARS, max_size=25).map("".join),
    ).map("".join),
)
DATE_TEXT = st.one_of(
    st.sampled_from(LASTMODS),
    st.tuples(
        st.sampled_from(["2024", "0000", "1999-12", "2024-02-29", "2023-02-29", "2024-06-31"]),
        st.sampled_from(["", "T10:20", "T23:59:59", "T23:59:60", "T24:00:00", "T10:20:30.25", "T1:2:3"]),
        st.sampled_from(["", "Z", "+14:00", "-14:01", "+05:30", "+5:30", "z"]),
    ).map("".join),
)
VALUES: dict[str, st.SearchStrategy[str]] = {
    "loc": LOC_TEXT.map(json.dumps),
    "lastmod": st.one_of(DATE_TEXT.map(json.dumps), st.sampled_from(["null", "2024", "[]"])),
    "changefreq": st.sampled_from([json.dumps(freq) for freq in CHANGEFREQS] + ["null", "[]", "1"]),
    "priority": st.sampled_from([*PRIORITIES, "null"]),
    "images": st.sampled_from([*IMAGES[:-1], "null"]),
}
OBJECTS = (
    st.dictionaries(st.sampled_from(list(VALUES)), st.just(None), min_size=1)
    .flatmap(lambda keys: st.tuples(*(VALUES[key].map(lambda value, key=key: f'"{key}": {value}') for key in keys)))
    .map(lambda pairs: "{" + ", ".join(pairs) + "}")
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=OBJECTS)
def test_the_twins_agree_on_any_object(twin: Any, line: str) -> None:
    _known_fractions()
    obj = decoded(line)
    assert shape(twin(obj, "src", 3)) == shape(pure_common(obj, "src", 3))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(loc=LOC_TEXT)
def test_the_compiled_loc_check_is_the_expression(twin: Any, loc: str) -> None:
    """A loc alone: an entry exactly where the pure twin's expression (and its '@' and length tests) says so."""
    assert (twin({"loc": loc}, "s", 1) is None) is (pure_common({"loc": loc}, "s", 1) is None)


# ------------------------------------------------------------------------------------------ files read both ways


def read(data: bytes, monkeypatch: pytest.MonkeyPatch, *, pure: bool) -> tuple[list[object], list[str]]:
    if pure:
        monkeypatch.setenv(PURE, "1")
    else:
        monkeypatch.delenv(PURE, raising=False)
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), format="jsonl", options=Options(), reporter=reporter) as doc:
        entries = [shape(entry) for entry in doc]
    return entries, [str(diagnostic) for diagnostic in reporter.diagnostics]


#: Lines that are no common object (not a dict, escapes, blanks, a BOM, broken JSON) among the grid's.
ODD_LINES = [
    "[1, 2]",
    '"https://example.com/"',
    "7",
    "null",
    "",
    "   ",
    '{"loc": "https://example.com/\\u00e9"}',
    '{"loc": "https://ex\\u0061mple.com/"}',
    '{"loc": "https://example.com/\\ud800"}',
    '  {"loc": "https://example.com/blanks"}  ',
    '{"loc": "https://example.com/a"} x',
    '{"loc": "https://example.com/a"',
    '{"loc": "https://example.com/t", "title": "T"}',
    '{"loc": "https://example.com/u", "colour": "blue"}',
    '\x0b\x0c\t{"loc": "https://example.com/vt"}\r',
    '\x1c{"loc": "https://example.com/fs"}',
    '{"loc": "https://example.com/fs"}\x1f',
    '{"loc": "https://example.com/a\\\\u"}',
    '{"loc": "https://example.com/a\\\\"}',
    '{"loc": "https://example.com/tab\\t"}',
    '{"loc": "https://example.com/q\\""}',
    '{"loc": "https://example.com/dup", "loc": "https://example.com/dup2"}',
    '{"loc": "https://example.com/x"}{"loc": "https://example.com/y"}',
    "[" * 100000,
    '{"loc": "https://example.com/\xff"}',
    "\ufeff" + '{"loc": "https://example.com/bom-late"}',
]


def test_a_file_of_the_grid_reads_alike_both_ways(twin: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ["\ufeff" + GRID[0], *GRID, *ODD_LINES, *GRID]  # the second time round, every fraction is known
    data = "\n".join(lines).encode("utf-8")
    data += b'\n{"loc": "https://example.com/\xff"}\n{"loc": "https://example.com/\xed\xa0\x80"}\n' + data  # not UTF-8
    built = read(data, monkeypatch, pure=False)
    pure = read(data, monkeypatch, pure=True)
    assert built == pure
    entries, said = built
    assert len(entries) > 200 and len(said) > 100  # both answers, and the long way's reports, are in it


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.one_of(OBJECTS, st.sampled_from(ODD_LINES)), min_size=1, max_size=12))
def test_any_file_reads_alike_both_ways(twin: Any, monkeypatch: pytest.MonkeyPatch, lines: list[str]) -> None:
    data = "\n".join(lines).encode("utf-8")
    assert read(data, monkeypatch, pure=False) == read(data, monkeypatch, pure=True)


@pytest.mark.parametrize("target", ["sitemap", "jsonl", "text"])
def test_a_conversion_writes_the_same_bytes_both_ways(
    twin: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, target: str
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join([*GRID, *ODD_LINES, *GRID]) + "\n", encoding="utf-8")
    written = {}
    for pure in (False, True):
        if pure:
            monkeypatch.setenv(PURE, "1")
        else:
            monkeypatch.delenv(PURE, raising=False)
        out = tmp_path / f"out-{pure}.{target}"
        reporter = Reporter()
        feedmap.convert(str(source), str(out), target, reporter=reporter)
        said = [str(diagnostic).replace(str(out), "OUT") for diagnostic in reporter.diagnostics]
        written[pure] = (out.read_bytes(), said)
    assert written[False] == written[True]
    assert written[False][0].count(b"https://example.com/") > 100


def test_feedmap_pure_or_a_grown_entry_turns_the_part_off(twin: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PURE, raising=False)
    assert feedmap.compiled_parts()["jsonl reader"] is bool(compiled_twin.DIRECT_BUILD)
    monkeypatch.setenv(PURE, "1")
    assert feedmap.compiled_parts()["jsonl reader"] is False
