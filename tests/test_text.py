"""The ``text`` format: one absolute URL per line (sitemaps.org text sitemap)."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Diagnostic, Entry, Level, Reporter, W3CDate
from feedmap.cli import main
from feedmap.formats.lines._common import bounded_lines


def read(data: bytes, format: str | None = "text") -> tuple[list[Entry], list[Diagnostic]]:
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), format=format, reporter=reporter) as doc:
        return list(doc), reporter.diagnostics


def write(entries: Iterable[Entry]) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    summary = feedmap.write(entries, sink, "text")
    return sink.getvalue(), summary.diagnostics


def locs(entries: Iterable[Entry]) -> list[str]:
    return [entry.loc for entry in entries]


def coded(diagnostics: Iterable[Diagnostic]) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in diagnostics]


URLS = ["https://www.example.com/", "https://www.example.com/a?b=1&c=2", "https://www.example.com/é"]


@pytest.mark.parametrize(
    "ending",
    [b"\n", b"\r\n", b"\r"],
    ids=["LF", "CRLF", "CR"],
)
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"], ids=["no-BOM", "BOM"])
def test_line_endings_and_bom(ending: bytes, bom: bytes) -> None:
    data = bom + ending.join(url.encode() for url in URLS) + ending
    entries, diagnostics = read(data)
    assert locs(entries) == URLS
    assert diagnostics == []


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"], ids=["no-BOM", "BOM"])
def test_detected_from_content(bom: bytes) -> None:
    entries, _ = read(bom + "\n".join(URLS).encode(), format=None)
    assert locs(entries) == URLS


def test_no_final_line_end() -> None:
    entries, _ = read(b"https://www.example.com/1\nhttps://www.example.com/2")
    assert locs(entries) == ["https://www.example.com/1", "https://www.example.com/2"]


def test_blank_lines_and_blanks_around_urls_are_ignored() -> None:
    data = b"\n\n   https://www.example.com/1  \n\t\n \t https://www.example.com/2\t\n\n"
    entries, diagnostics = read(data)
    assert locs(entries) == ["https://www.example.com/1", "https://www.example.com/2"]
    assert diagnostics == []


def test_entries_remember_their_line() -> None:
    entries, _ = read(b"\nhttps://www.example.com/1\r\n\r\nhttps://www.example.com/2\n")
    assert [entry.origin.line if entry.origin else None for entry in entries] == [2, 4]


def test_non_url_lines_are_skipped_with_their_line() -> None:
    data = b"https://www.example.com/1\n# a comment\n/relative\nwww.example.com/no-scheme\nhttps://www.example.com/2\n"
    entries, diagnostics = read(data)
    assert locs(entries) == ["https://www.example.com/1", "https://www.example.com/2"]
    assert coded(diagnostics) == [(2, "loc-not-absolute"), (3, "loc-not-absolute"), (4, "loc-not-absolute")]
    assert {d.level for d in diagnostics} == {Level.WARNING}


def test_non_url_lines_with_crlf_report_the_right_line() -> None:
    data = b"https://www.example.com/1\r\n\r\nnope\r\nhttps://www.example.com/2\r\n"
    entries, diagnostics = read(data)
    assert len(entries) == 2
    assert coded(diagnostics) == [(3, "loc-not-absolute")]


def test_a_url_with_white_space_is_kept_with_a_warning() -> None:
    entries, diagnostics = read(b"https://www.example.com/a b\n")
    assert locs(entries) == ["https://www.example.com/a b"]
    assert coded(diagnostics) == [(1, "loc-not-escaped")]


def test_non_utf8_line_is_read_as_windows_1252_with_a_warning() -> None:
    data = b"https://www.example.com/ok\nhttps://www.example.com/caf\xe9\nhttps://www.example.com/\xe2\x82\xac\n"
    entries, diagnostics = read(data)
    assert locs(entries) == ["https://www.example.com/ok", "https://www.example.com/café", "https://www.example.com/€"]
    assert coded(diagnostics) == [(2, "not-utf8")]


def test_empty_input_named_as_text_has_no_entries() -> None:
    entries, diagnostics = read(b"")
    assert entries == []
    assert diagnostics == []


def test_reading_more_than_50000_urls_warns() -> None:
    data = "".join(f"https://www.example.com/{i}\n" for i in range(50_001)).encode()
    entries, diagnostics = read(data)
    assert len(entries) == 50_001
    assert [d.code for d in diagnostics] == ["too-many-entries"]


# ------------------------------------------------------------------------------------------------ writing


def test_writer_one_url_per_line_utf8_lf() -> None:
    data, diagnostics = write(Entry(loc=url) for url in URLS)
    assert data == ("\n".join(URLS) + "\n").encode("utf-8")
    assert diagnostics == []


def test_writer_drops_other_fields_with_one_info_each() -> None:
    entries = [
        Entry(loc="https://www.example.com/1", lastmod=W3CDate("2024-01-01"), priority=0.5),
        Entry(loc="https://www.example.com/2", lastmod=W3CDate("2024-01-02"), priority=0.6),
    ]
    data, diagnostics = write(entries)
    assert data == b"https://www.example.com/1\nhttps://www.example.com/2\n"
    assert [d.code for d in diagnostics] == ["field-dropped"]  # lastmod, priority: one line
    assert "cannot hold lastmod, priority; they are not written" in diagnostics[0].message
    assert {d.level for d in diagnostics} == {Level.INFO}


def test_writer_refuses_a_url_with_a_line_break() -> None:
    entries = [Entry(loc="https://www.example.com/a\nhttps://evil.example/"), Entry(loc="https://www.example.com/b")]
    data, diagnostics = write(entries)
    assert data == b"https://www.example.com/b\n"
    # reported as a reader would (white space in a loc), then refused by the writer
    assert {d.code for d in diagnostics} == {"loc-not-escaped"}


def test_writer_zero_entries_warns() -> None:
    data, diagnostics = write([])
    assert data == b""
    assert [d.code for d in diagnostics] == ["empty-document"]


def test_writer_encode_urls() -> None:
    sink = io.BytesIO()
    entries = [Entry(loc="http://www.example.com/ümlat.html&q=name")]
    summary = feedmap.write(entries, sink, "text", options=feedmap.Options(encode_urls=True))
    assert sink.getvalue() == b"http://www.example.com/%C3%BCmlat.html&q=name\n"
    assert [d.code for d in summary.diagnostics] == ["url-encoded"]


def test_round_trip() -> None:
    data, _ = write(Entry(loc=url) for url in URLS)
    entries, diagnostics = read(data)
    assert entries == [Entry(loc=url) for url in URLS]
    assert diagnostics == []


@pytest.mark.parametrize(
    "data",
    [
        b"https://www.example.com/1\rnope\r\rhttps://www.example.com/2\rbad line\r",
        b"https://www.example.com/1\r\nnope\r\n\r\nhttps://www.example.com/2\r\nbad line\r\n",
        b"https://www.example.com/1\nnope\r\rhttps://www.example.com/2\r\nbad line",
    ],
    ids=["CR", "CRLF", "mixed"],
)
def test_line_numbers_count_every_kind_of_line_end(data: bytes) -> None:
    entries, diagnostics = read(data)
    assert [(e.loc, e.origin.line if e.origin else 0) for e in entries] == [
        ("https://www.example.com/1", 1),
        ("https://www.example.com/2", 4),
    ]
    assert coded(diagnostics) == [(2, "loc-not-absolute"), (5, "loc-not-absolute")]


def test_writer_drops_a_lone_surrogate_with_a_warning() -> None:
    data, diagnostics = write([Entry(loc="https://www.example.com/a\ud800b"), Entry(loc="https://www.example.com/c")])
    assert data.decode("utf-8") == "https://www.example.com/ab\nhttps://www.example.com/c\n"
    assert coded(diagnostics) == [(0, "character-dropped")]
    assert "U+D800" in diagnostics[0].message


def test_a_line_longer_than_the_cap_is_skipped_and_the_rest_is_read() -> None:
    data = (
        b"https://www.example.com/1\n"
        + b"https://www.example.com/"
        + b"x" * (2 << 20)
        + b"\nhttps://www.example.com/3\n"
    )
    entries, diagnostics = read(data)
    assert locs(entries) == ["https://www.example.com/1", "https://www.example.com/3"]
    assert coded(diagnostics) == [(2, "line-too-long")]
    assert [e.origin.line if e.origin else 0 for e in entries] == [1, 3]


def test_the_line_cap_is_a_command_line_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "urls.txt"
    source.write_bytes(b"https://www.example.com/short\nhttps://www.example.com/" + b"y" * 100 + b"\n")
    assert main(["convert", str(source), "-t", "text", "--max-line-bytes", "64"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "https://www.example.com/short\n"
    assert "urls.txt:2: warning[line-too-long]" in captured.err


class Dribble:
    """A stream that returns at most ``size`` bytes per read, whatever is asked (line ends split across reads)."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.size = data, size

    def read(self, _size: int = -1) -> bytes:
        out, self.data = self.data[: self.size], self.data[self.size :]
        return out


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"a", b"bcd" * 3, b"\r", b"\n", b"\r\n"]), max_size=16).map(b"".join),
    limit=st.integers(min_value=0, max_value=8),
    size=st.integers(min_value=1, max_value=5),
    any_newline=st.booleans(),
)
def test_bounded_lines_split_like_the_line_end_rules(data: bytes, limit: int, size: int, any_newline: bool) -> None:
    """Whatever the reads cut, each line comes once, as split at its line ends, or None when over the cap."""
    expected = re.split(rb"\r\n|\r|\n", data) if any_newline else data.split(b"\n")
    if expected[-1] == b"":
        expected.pop()
    got = list(bounded_lines(Dribble(data, size), limit, any_newline=any_newline))
    assert got == [line if len(line) <= limit else None for line in expected]
