"""JSON lines as other programs write them: ``json.dumps`` escapes every non-ASCII character by default
(``ensure_ascii``), a character past U+FFFF as a UTF-16 surrogate pair (``"\\ud83d\\ude00"`` for 😀, RFC 8259
§7). Such a line is the same JSON text as its raw UTF-8 form, so it reads back as the same entries and every
format writes it to the same bytes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Alternate, ChangeFreq, Entry, Image, Reporter
from feedmap.cli import main

OUTPUT_FORMATS = ["sitemap", "sitemapindex", "text", "jsonl", "rss", "ror"]

EMOJI_LINE = b'{"loc":"https://www.example.com/a","title":"\\ud83d\\ude00","priority":0.5}\n'


@pytest.mark.parametrize("target", OUTPUT_FORMATS)
def test_an_escaped_surrogate_pair_beside_a_priority_converts(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lone-surrogate check re-encoded the line with json.dumps, which refuses the Decimal a fraction is
    read as: any emoji written by json.dumps, with a priority, ended every command in a TypeError."""
    source = tmp_path / "in.jsonl"
    source.write_bytes(EMOJI_LINE)
    assert main(["convert", str(source), "-t", target, "-o", str(tmp_path / "out")]) == 0
    assert b"https://www.example.com/a" in (tmp_path / "out").read_bytes()
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("command", [["info"], ["validate"], ["diff"]])
def test_an_escaped_surrogate_pair_beside_a_priority_is_read_by_every_command(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(EMOJI_LINE)
    again = tmp_path / "again.jsonl"  # diff refuses one file on both sides (same-files)
    again.write_bytes(EMOJI_LINE)
    operands = [str(source), str(again)] if command == ["diff"] else [str(source)]
    code = main([*command, *operands])
    assert code in (0, 1)  # validate judges JSON lines by its own rules; what matters is that it ran
    assert "Traceback" not in capsys.readouterr().err


def test_the_entry_read_from_an_escaped_line_is_the_raw_one() -> None:
    with feedmap.read(io.BytesIO(EMOJI_LINE), format="jsonl") as doc:
        assert list(doc) == [Entry(loc="https://www.example.com/a", title="😀", priority=0.5)]


def test_a_lone_escaped_surrogate_beside_a_priority_is_still_refused() -> None:
    reporter = Reporter()
    data = (
        b'{"loc":"https://www.example.com/a","title":"\\ud83d","priority":0.5}\n{"loc":"https://www.example.com/b"}\n'
    )
    with feedmap.read(io.BytesIO(data), format="jsonl", reporter=reporter) as doc:
        assert [entry.loc for entry in doc] == ["https://www.example.com/b"]
    assert [(d.line, d.code) for d in reporter.diagnostics] == [(1, "invalid-value")]


# ------------------------------------------------------------------------------------------------ properties

#: Characters from every plane, astral ones (surrogate pairs once escaped) often.
TEXT = st.text(
    alphabet=st.characters(codec="utf-8") | st.sampled_from("😀𝄞𠀀\U0010fffd\u2028\x85é"), min_size=1, max_size=12
)
URLS = st.builds(lambda path: f"https://www.example.com/{path}", TEXT)
PRIORITIES = st.none() | st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.8, 1.0, 1, 0])

ENTRIES = st.builds(
    Entry,
    loc=URLS,
    lastmod=st.none() | st.sampled_from(["2024-03-01", "2024-03-01T10:00:00Z", "2023"]),
    changefreq=st.none() | st.sampled_from(list(ChangeFreq)),
    priority=PRIORITIES,
    title=st.none() | TEXT,
    description=st.none() | TEXT,
    keywords=st.lists(TEXT, max_size=2).map(tuple),
    type=st.none() | TEXT,
    images=st.lists(st.builds(Image, loc=URLS, caption=st.none() | TEXT), max_size=2).map(tuple),
    alternates=st.lists(st.builds(Alternate, hreflang=st.just("de"), href=URLS), max_size=1).map(tuple),
    extras=st.dictionaries(st.sampled_from(["x:note", "ror:about"]), TEXT, max_size=2),
)


def as_written_by_json_dumps(data: bytes, ensure_ascii: bool) -> bytes:
    """The same JSON lines re-encoded as ``json.dumps`` writes them (its default separators too)."""
    lines = data.decode("utf-8").splitlines()
    return "".join(json.dumps(json.loads(line), ensure_ascii=ensure_ascii) + "\n" for line in lines).encode()


def converted(data: bytes, target: str) -> tuple[bytes, list[tuple[int, str]]]:
    reporter = Reporter()
    sink = io.BytesIO()
    with feedmap.read(io.BytesIO(data), format="jsonl", reporter=reporter) as doc:
        feedmap.write(doc, sink, target, reporter=reporter)
    return sink.getvalue(), [(d.line, d.code) for d in reporter.diagnostics]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=st.lists(ENTRIES, min_size=1, max_size=3, unique_by=lambda e: e.loc), ensure_ascii=st.booleans())
def test_json_lines_read_back_and_rewrite_in_every_format_whatever_their_escapes(
    entries: list[Entry], ensure_ascii: bool
) -> None:
    sink = io.BytesIO()
    feedmap.write(entries, sink, "jsonl")
    ours = sink.getvalue()
    theirs = as_written_by_json_dumps(ours, ensure_ascii)
    with feedmap.read(io.BytesIO(theirs), format="jsonl") as doc:
        read_back = list(doc)
    with feedmap.read(io.BytesIO(ours), format="jsonl") as doc:
        assert read_back == list(doc)
    for target in OUTPUT_FORMATS:
        assert converted(theirs, target) == converted(ours, target), target
