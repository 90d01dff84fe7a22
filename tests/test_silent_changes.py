"""Nothing is changed on write in silence (issue 17, point 14): what a format cannot hold as given (a keyword
holding a comma in ``ror:keywords``, an empty or padded keyword, a title with blanks around it, U+0085
among them, an extra whose element names an undeclared prefix) is either kept exact or reported with a code,
and then it reads back as the report says."""

from __future__ import annotations

import io

import pytest

import feedmap
from feedmap import Diagnostic, Entry, Level

LOC = "https://www.example.com/a"


def round_trip(entry: Entry, format: str) -> tuple[Entry, list[Diagnostic]]:
    sink = io.BytesIO()
    summary = feedmap.write([entry], sink, format)
    with feedmap.read(io.BytesIO(sink.getvalue()), format=format, options=feedmap.Options(follow=False)) as doc:
        entries = list(doc)
    return entries[-1], summary.diagnostics


def changes(diagnostics: list[Diagnostic]) -> list[str]:
    return [d.code for d in diagnostics if d.code in ("keyword-changed", "whitespace-trimmed", "invalid-extra")]


@pytest.mark.parametrize(
    ("keywords", "read_back", "reported"),
    [
        (("tea, green", "cup"), ("tea", "green", "cup"), 1),  # a comma splits it: ror:keywords is one list
        (("tea", "", "cup"), ("tea", "cup"), 1),
        ((" tea ", "cup"), ("tea", "cup"), 1),
        (("tea", "cup"), ("tea", "cup"), 0),
    ],
)
def test_ror_keywords_that_cannot_be_held_are_reported(
    keywords: tuple[str, ...], read_back: tuple[str, ...], reported: int
) -> None:
    entry, diagnostics = round_trip(Entry(loc=LOC, title="T", keywords=keywords), "ror")
    assert entry.keywords == read_back
    assert changes(diagnostics) == ["keyword-changed"] * reported


@pytest.mark.parametrize(
    ("keywords", "read_back", "reported"),
    [
        (("tea", "", "cup"), ("tea", "cup"), 1),
        ((" tea ", "cup"), ("tea", "cup"), 1),
        (("a, b",), ("a, b",), 0),
        (("tea", "tea", "Tea"), ("tea", "Tea"), 1),  # a feed reader reads a repeated category once
        (("tea", " tea"), ("tea",), 2),
    ],
)
def test_rss_categories_that_cannot_be_held_are_reported(
    keywords: tuple[str, ...], read_back: tuple[str, ...], reported: int
) -> None:
    entry, diagnostics = round_trip(Entry(loc=LOC, title="T", keywords=keywords), "rss")
    assert entry.keywords == read_back
    assert changes(diagnostics) == ["keyword-changed"] * reported


@pytest.mark.parametrize("format", ["rss", "ror"])
@pytest.mark.parametrize("title", ["\x85Title", "  Title", "Title\u2028", "\tTitle \n"])
def test_a_title_with_blanks_around_it_is_written_trimmed_and_reported(format: str, title: str) -> None:
    entry, diagnostics = round_trip(Entry(loc=LOC, title=title), format)
    assert entry.title == "Title"
    assert changes(diagnostics) == ["whitespace-trimmed"]
    assert all(d.level is Level.INFO for d in diagnostics if d.code == "whitespace-trimmed")


@pytest.mark.parametrize("format", ["rss", "ror"])
def test_a_title_as_it_is_is_not_reported(format: str) -> None:
    entry, diagnostics = round_trip(Entry(loc=LOC, title="A title"), format)
    assert entry.title == "A title" and changes(diagnostics) == []


def test_json_lines_never_write_an_extra_their_reader_refuses() -> None:
    """``<news:news>`` with its prefix undeclared is read (reported) as an element without a namespace,
    ``{}news:news``: JSON lines wrote that key, and their own reader dropped it."""
    sitemap = (
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://www.example.com/a</loc>'
        b"<news:news><news:title>T</news:title></news:news><x xmlns=''>kept</x></url></urlset>"
    )
    with feedmap.read(io.BytesIO(sitemap)) as doc:
        (entry,) = list(doc)
    assert set(entry.extras) == {"{}news:news", "{}x"}
    written, diagnostics = round_trip(entry, "jsonl")
    assert written.extras == {"{}x": "<x>kept</x>"}
    assert changes(diagnostics) == ["invalid-extra"]
    sink = io.BytesIO()
    feedmap.write([entry], sink, "jsonl")
    reread: list[Diagnostic] = []
    with feedmap.read(io.BytesIO(sink.getvalue()), format="jsonl", on_diagnostic=reread.append) as doc:
        assert next(iter(doc)).extras == {"{}x": "<x>kept</x>"}
    assert reread == []  # what was written is read without a complaint


@pytest.mark.parametrize("format", ["rss", "ror"])
def test_an_ampersand_written_as_amp_in_a_description_is_reported(format: str) -> None:
    """``Paws&Toebeans`` is written ``Paws&amp;Toebeans`` (the same HTML, no parse error): the description
    read back is that HTML, so the change is said (a real ROR file's double-escaped descriptions had it)."""
    entry, diagnostics = round_trip(Entry(loc=LOC, title="T", description="Paws&Toebeans"), format)
    assert entry.description == "Paws&amp;Toebeans"
    assert [d.level for d in diagnostics if d.code == "ampersand-escaped"] == [Level.INFO]
    _, diagnostics = round_trip(Entry(loc=LOC, title="T", description="Paws &amp; Toebeans & co"), format)
    assert "ampersand-escaped" not in [d.code for d in diagnostics]
