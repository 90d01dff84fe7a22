"""The cleaning stream's compiled byte checks and its own passes read every input alike (issue 19, round 4).

Where the compiled sitemap walk is in use, the sitemap reader also hands the cleaning stream two checks in C:
one pass over a chunk that says "nothing to repair here" (no forbidden control character, every ``&`` a
reference XML 1.0 §4.1 allows to a character §2.2 allows, no CDATA section beginning), and one that says "this
is UTF-8 without U+FFFE / U+FFFF".  A chunk they say yes to is passed on as it is; every other chunk takes the
stream's Python passes, which are the checks' twin (``FEEDMAP_PURE=1`` reads with those passes alone).  The
hostile bytes below are put where the stream's chunks begin and end (lxml asks for 64 KiB, then 32 KiB at a
time), so that a check must be right about a reference, a control, a CDATA opener or a UTF-8 sequence cut by
the end of a chunk, or standing right before it: both ways must give the same entries, lines and diagnostics.
"""

from __future__ import annotations

import io

import pytest
from conftest import env_flag
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Diagnostic, Entry, Options, Reporter

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
REQUIRE_ACCEL = "FEEDMAP_REQUIRE_ACCEL"
PURE = "FEEDMAP_PURE"

#: Where the stream's chunks end in a long document (what lxml asks for: 64 KiB first, then 32 KiB each).
CHUNK_ENDS = [65_536 + 32_768 * step for step in range(3)]

#: Bytes the stream repairs, reports or must look past a chunk's end for, and their harmless neighbours.
HOSTILE = [
    b"&",
    b"& ",
    b"&amp",
    b"&amp;",
    b"&lt;",
    b"&quot;",
    b"&apos;",
    b"&#65;",
    b"&#x41;",
    b"&#X41;",
    b"&#0;",
    b"&#x0;",
    b"&#9;",
    b"&#xD800;",
    b"&#xFFFE;",
    b"&#x10FFFF;",
    b"&#x110000;",
    b"&#1114111;",
    b"&#12345678;",
    b"&#x1234567;",
    b"&e;",
    b"&unknown;",
    b"\x00",
    b"\x01",
    b"\x0b",
    b"\x1f",
    b"\t",
    b"\r\n",
    b"\x7f",
    b"<![CDATA[a&b\x01]]>",
    b"<![CDATA[",
    b"]]>",
    b"\xc3\xa9",
    b"\xe2\x82\xac",
    b"\xf0\x9f\x98\x80",
    b"\xef\xbf\xbd",
    b"\xef\xbf\xbe",
    b"\xef\xbf\xbf",
    b"\xed\xa0\x80",
    b"\xed\x9f\xbf",
    b"\xc0\xaf",
    b"\xe0\x80\xaf",
    b"\xf4\x90\x80\x80",
    b"\xf4\x8f\xbf\xbf",
    b"\xe2\x82",
    b"\x80",
    b"\xff",
]


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled checks in use (they come with the compiled walk; CI fails where it was not built)."""
    monkeypatch.delenv(PURE, raising=False)
    if not feedmap.accelerated():
        message = "the compiled sitemap walk is not built here (pip install with a C compiler builds it)"
        if env_flag(REQUIRE_ACCEL):
            pytest.fail(f"{message}; {REQUIRE_ACCEL} is set")
        pytest.skip(message)


Read = tuple[list[tuple[Entry, object]], list[Diagnostic]]


def read_all(data: bytes, monkeypatch: pytest.MonkeyPatch, *, pure: bool) -> Read:
    """Entries (each with its line) and diagnostics of ``data``, or the error it fails with."""
    if pure:
        monkeypatch.setenv(PURE, "1")
    else:
        monkeypatch.delenv(PURE, raising=False)
    reporter = Reporter()
    try:
        with feedmap.read(io.BytesIO(data), options=Options(follow=False), reporter=reporter) as doc:
            entries: list[tuple[Entry, object]] = [(entry, entry.origin) for entry in doc]
    except feedmap.FeedmapError as error:
        entries = [(Entry(loc="error:"), (type(error).__name__, str(error)))]
    return entries, list(reporter.diagnostics)


def both(data: bytes, monkeypatch: pytest.MonkeyPatch) -> Read:
    """What the compiled checks and the stream's own passes read from ``data`` (asserted equal)."""
    fast = read_all(data, monkeypatch, pure=False)
    slow = read_all(data, monkeypatch, pure=True)
    assert fast == slow
    return fast


def long_urlset(entries: int, tail: str = "") -> bytes:
    """A urlset past three chunk ends: entries with a query (``&amp;``), an image and a non-ASCII caption."""
    body = "".join(
        f"<url><loc>https://example.com/page/{number}?a=1&amp;b=2</loc><lastmod>2024-01-02</lastmod>"
        f"<image:image><image:loc>https://example.com/i/{number}.png</image:loc>"
        f"<image:caption>caf\u00e9 &#233; {number}{tail}</image:caption></image:image></url>\n"
        for number in range(entries)
    )
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}" xmlns:image="{IMAGE}">\n'
    return f"{head}{body}</urlset>\n".encode()


BASE = long_urlset(900)


@st.composite
def planted(draw: st.DrawFn) -> bytes:
    """:data:`BASE` with one to four hostile snippets put near a chunk's end (or anywhere), maybe cut short."""
    data = BASE
    for _ in range(draw(st.integers(1, 4))):
        snippet = draw(st.sampled_from(HOSTILE))
        if draw(st.booleans()):
            where = draw(st.sampled_from(CHUNK_ENDS)) + draw(st.integers(-80, 24))
        else:
            where = draw(st.integers(200, len(data) - 20))
        data = data[:where] + snippet + data[where:]
    if draw(st.integers(0, 9)) == 0:
        data = data[: draw(st.integers(len(data) // 2, len(data)))]
    return data


@pytest.mark.timeout(900)
@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
@given(planted())
def test_checks_and_passes_read_hostile_bytes_at_chunk_ends_alike(
    compiled: None, monkeypatch: pytest.MonkeyPatch, data: bytes
) -> None:
    both(data, monkeypatch)


@pytest.mark.parametrize("snippet", HOSTILE, ids=[repr(snippet)[2:-1] for snippet in HOSTILE])
@pytest.mark.parametrize("shift", [-70, -64, -61, -3, -1, 0, 1, 5])
def test_each_hostile_snippet_at_the_first_chunk_end_is_read_alike(
    compiled: None, monkeypatch: pytest.MonkeyPatch, snippet: bytes, shift: int
) -> None:
    """Each snippet right before, across and right after the first chunk's end (the stream holds its last 64
    bytes back for the next chunk, so that a reference is never cut)."""
    where = CHUNK_ENDS[0] + shift
    both(BASE[:where] + snippet + BASE[where:], monkeypatch)


@pytest.mark.parametrize(
    ("snippet", "code"),
    [
        (b"\x01", "control-character"),
        (b"&", "bare-ampersand"),
        (b"&#xD800;", "invalid-char-ref"),
        (b"\xff", "invalid-utf8"),
        (b"\xed\xa0\x80", "invalid-utf8"),
        (b"\xef\xbf\xbe", "invalid-character"),
    ],
)
def test_a_repair_past_the_first_chunk_is_reported_at_its_line(
    compiled: None, monkeypatch: pytest.MonkeyPatch, snippet: bytes, code: str
) -> None:
    """A repair in a chunk after clean ones is still seen and reported at its line, with the compiled checks as
    without them, and the entries after it are all read."""
    line = 700
    lines = BASE.split(b"\n")
    lines[line - 1] = lines[line - 1].replace(b"</image:caption>", snippet + b"</image:caption>")
    entries, diagnostics = both(b"\n".join(lines), monkeypatch)
    assert len(entries) == 900
    assert diagnostics
    assert {(d.code, d.line) for d in diagnostics} == {(code, line)}  # a surrogate is three bytes, three repairs


def test_a_clean_long_urlset_is_read_with_its_lines_and_nothing_reported(
    compiled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The usual input, every chunk clean: the lines the stream counts in C are the lines of the entries."""
    entries, diagnostics = both(BASE, monkeypatch)
    assert diagnostics == []
    assert [entry.origin.line if entry.origin else 0 for entry, _ in entries] == list(range(3, 903))
    assert entries[-1][0].images[0].caption == "caf\u00e9 \u00e9 899"
