"""The writers and the merge of repeated URLs (issue 19, the writers' speed): random entries, repeated with older,
newer, equal and missing lastmods, with bad values, IRIs, images, alternates and extras, written to every
merged format and JSON lines under every ``dedupe`` policy, give

* the bytes a reference model gives: the model picks each URL's entry (its first place; the first, the last or
  the newest, ties to the first; an IRI and its URI one URL) and the writer writes that selection with
  nothing left to merge;
* the same bytes and the same diagnostics, in the same order, whether the merge holds its entries in memory
  or pickles every one into its spool's pages (read back in order, and out of order for the repeats);
* the same files in a split directory either way.

The writers' fast paths (a URL written as it is, a date already in the XSD's form, an image with a loc alone)
are held to the long way by the entries that take it: URLs with ``&``, ``'``, ``%`` escapes, two ``#``, blanks
and characters XML cannot hold; dates of minutes, of a year, a leap second.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Alternate, ChangeFreq, Diagnostic, Entry, Image, Options, Position, W3CDate
from feedmap.cli import main

#: Lastmods: missing, dates and times that tie, order or only look alike (+00:00 and Z), and forms the XSD
#: rejects or wants seconds added to (a year, a month, minutes, a leap second).
DATES = [
    None,
    "2024-01-01",
    "2024-01-02T10:00:00Z",
    "2024-01-02T12:00:00+02:00",
    "2024-01-02T10:00:00+00:00",
    "2024-01-02T10:00Z",
    "2023-12",
    "2023",
    "2016-12-31T23:59:60Z",
    "2024-03-04T05:06:07.25-03:30",
]
#: Paths of a loc: plain, an IRI (whose URI spelling, the next one, is the same URL), what XML escapes, an
#: escape, two '#', a blank (encoded), a control character (dropped from the XML).
PATHS = ["p{n}", "\u00fc{n}", "%C3%BC{n}", "a&b'{n}", "q?x=1&y={n}", "%41{n}", "x#a#{n}", "s p{n}", "c\x01{n}"]
#: What each path is as the URL a writer keys on (the model's merge key): the IRI and its URI are one URL.
KEYS = {"\u00fc{n}": "%C3%BC{n}"}
IMAGES = ["https://e.example/i{n}.png", "https://e.example/\u00e9{n}.png", "https://e.example/a&b{n}.png", "data:x"]


def _date(text: str | None) -> W3CDate | None:
    return None if text is None else W3CDate(text)


def _key(path: str, n: int) -> str:
    return KEYS.get(path, path).format(n=n)


@st.composite
def entries_drawn(draw: st.DrawFn) -> list[Entry]:
    """Up to 40 entries of up to 6 URLs, each built from drawn parts (origin: its place in the input)."""
    out: list[Entry] = []
    for number in range(draw(st.integers(min_value=0, max_value=40))):
        n = draw(st.integers(min_value=0, max_value=5))
        path = draw(st.sampled_from(PATHS))
        rich = draw(st.integers(min_value=0, max_value=7))
        images = tuple(
            Image(loc=draw(st.sampled_from(IMAGES)).format(n=number), caption=f"c{number}" if rich & 1 else None)
            for _ in range(draw(st.integers(min_value=0, max_value=2)))
        )
        out.append(
            Entry(
                loc=f"https://e.example/{path.format(n=n)}",
                lastmod=_date(draw(st.sampled_from(DATES))),
                changefreq=ChangeFreq.DAILY if rich & 2 else None,
                priority=draw(st.sampled_from([None, 0.5, 1.0, 0.1234567890123456789, 1.5, float("nan")])),
                title=f"t{number}\x02" if rich & 4 else f"t{number}",
                description="d&<x>" if rich & 1 else None,
                images=images,
                alternates=(Alternate(hreflang="de", href=f"https://e.example/de/{number}"),) if rich & 2 else (),
                extras=draw(
                    st.sampled_from(
                        [{}, {"note": "text"}, {"{urn:x}k": "<k xmlns='urn:x'>v</k>"}, {"{urn:x}k": "<broken"}]
                    )
                ),
                origin=Position("in.jsonl", number + 1),
            )
        )
    return out


def _url(entry: Entry) -> str:
    """The URL the writers key on, for the entries drawn here (the model's own mapping, not feedmap's)."""
    path = entry.loc.removeprefix("https://e.example/")
    for pattern in PATHS:
        for n in range(6):
            if pattern.format(n=n) == path:
                return _key(pattern, n)
    raise AssertionError(entry.loc)


def _newer(candidate: Entry, current: Entry) -> bool:
    if candidate.lastmod is None:
        return False
    return current.lastmod is None or candidate.lastmod > current.lastmod


def model(entries: list[Entry], policy: str) -> list[Entry]:
    """Each URL once at its first place: the first, the last or the newest entry (ties: the first)."""
    kept: dict[str, Entry] = {}
    for entry in entries:
        key = _url(entry)
        current = kept.get(key)
        if current is None or policy == "last" or (policy == "newest" and _newer(entry, current)):
            kept[key] = entry
    return list(kept.values())


FORMATS = ["sitemap", "ror", "rss", "jsonl"]
POLICIES: list[Any] = [None, "first", "last", "newest"]
CHANNEL = {"channel_title": "T", "channel_link": "https://e.example/"}


def _options(fmt: str, policy: Any) -> Options:
    return Options(dedupe=policy, **(CHANNEL if fmt in ("ror", "rss") else {}))  # type: ignore[arg-type]


def _write(entries: list[Entry], fmt: str, options: Options, folder: Path) -> tuple[bytes, list[str]]:
    """The bytes written and the diagnostics given, each as its code, message, source and line."""
    seen: list[Diagnostic] = []
    out = folder / f"out.{fmt}"
    feedmap.write(entries, out, fmt, options, on_diagnostic=seen.append)
    return out.read_bytes(), [f"{d.code} {d.message} {d.source}:{d.line}" for d in seen]


@contextmanager
def spooled(folder: Path, chunk: int) -> Iterator[None]:
    """Every entry of a merge pickled into the spool, in pages of 3, one page kept unpickled, written by the
    ``chunk`` bytes (64: a page closes at each entry; 4096: pages of 3): each repeat reads its kept entry
    back from the file, the output reads pages in order."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(folder))
        patch.setattr("feedmap.converters._duplicates._ENTRIES_IN_MEMORY", 0)
        patch.setattr("feedmap.converters._duplicates._PAGE", 3)
        patch.setattr("feedmap.converters._duplicates._PAGES_DECODED", 1)
        patch.setattr("feedmap.converters._duplicates._CHUNK", chunk)
        patch.setattr("feedmap.converters._duplicates._SMALL", 16)
        yield
    assert list(folder.iterdir()) == [], "the spool left files behind"


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=entries_drawn())
def test_the_merge_writes_what_the_model_selects(
    tmp_path_factory: pytest.TempPathFactory, fmt: str, policy: str | None, entries: list[Entry]
) -> None:
    folder = tmp_path_factory.mktemp("w")
    written, _ = _write(entries, fmt, _options(fmt, policy), folder)
    if fmt == "jsonl" and policy is None:  # JSON lines keeps every entry, one a line
        assert written.count(b"\n") == len(entries)
        return
    expected, _ = _write(model(entries, policy or "newest"), fmt, _options(fmt, "first"), folder)  # nothing to merge
    assert written == expected


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=entries_drawn(), chunk=st.sampled_from([64, 4096]))
def test_the_spool_changes_no_byte_and_no_diagnostic(
    tmp_path_factory: pytest.TempPathFactory, fmt: str, policy: str | None, entries: list[Entry], chunk: int
) -> None:
    folder = tmp_path_factory.mktemp("w")
    in_memory = _write(entries, fmt, _options(fmt, policy), folder)
    scratch = tmp_path_factory.mktemp("scratch")
    with spooled(scratch, chunk):
        assert _write(entries, fmt, _options(fmt, policy), folder) == in_memory


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=entries_drawn(), chunk=st.sampled_from([64, 4096]))
def test_a_split_directory_is_the_same_through_the_spool(
    tmp_path_factory: pytest.TempPathFactory, policy: Any, entries: list[Entry], chunk: int
) -> None:
    def split(folder: Path) -> dict[str, bytes]:
        options = Options(dedupe=policy, max_urls=2, base_url="https://e.example/maps/")
        feedmap.split(entries, folder, "sitemap", options)
        return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}

    in_memory = split(tmp_path_factory.mktemp("split"))
    scratch = tmp_path_factory.mktemp("scratch")
    with spooled(scratch, chunk):
        assert split(tmp_path_factory.mktemp("split")) == in_memory


def test_the_writers_diagnostics_follow_the_merges_in_output_order(tmp_path: Path) -> None:
    """The order today: the readers' checks (check_values: the bad priority), then the merge's lines, then
    what the writer says of the entries kept, in their output order (the repeated URL first: it is seen first,
    and the newer of its entries, an IRI, is the one written)."""
    entries = [
        Entry(loc="https://e.example/b%C3%BC", lastmod=W3CDate("2024-01-01T10:00Z"), origin=Position("in", 1)),
        Entry(loc="https://e.example/a", priority=2.0, origin=Position("in", 2)),
        Entry(loc="https://e.example/b\u00fc", lastmod=W3CDate("2024-01-02T10:00Z"), origin=Position("in", 3)),
        Entry(loc="https://e.example/c", lastmod=W3CDate("2023"), origin=Position("in", 4)),
    ]
    _, said = _write(entries, "sitemap", Options(), tmp_path)
    codes = [line.split(" ", 1)[0] for line in said]
    assert codes == [
        "priority-invalid",
        "loc-duplicate",
        "duplicates-merged",
        "url-encoded",
        "lastmod-seconds-added",
        "lastmod-not-xsd",
    ]
    assert "2024-01-02T10:00Z" in said[4], "the newer entry's lastmod is the one written"


@pytest.mark.parametrize(
    ("lastmod", "written", "code"),
    [
        ("2024-01-01", "2024-01-01", None),
        ("2024-01-02T10:00:00Z", "2024-01-02T10:00:00Z", None),
        ("2024-03-04T05:06:07.25-03:30", "2024-03-04T05:06:07.25-03:30", None),
        ("2024-01-02T10:00Z", "2024-01-02T10:00:00Z", "lastmod-seconds-added"),
        ("2023-12", "2023-12", "lastmod-not-xsd"),
        ("2016-12-31T23:59:60Z", "2016-12-31T23:59:60Z", "lastmod-not-xsd"),
    ],
)
def test_a_lastmod_is_written_in_the_xsds_form_or_said_why_not(
    tmp_path: Path, lastmod: str, written: str, code: str | None
) -> None:
    data, said = _write([Entry(loc="https://e.example/", lastmod=W3CDate(lastmod))], "sitemap", Options(), tmp_path)
    assert f"<lastmod>{written}</lastmod>".encode() in data
    assert [line.split(" ", 1)[0] for line in said] == ([code] if code else [])


@pytest.mark.parametrize(
    ("url", "written", "code"),
    [
        ("https://e.example/p", "https://e.example/p", None),
        ("https://e.example/p#f", "https://e.example/p#f", None),
        ("https://e.example/a&b'c", "https://e.example/a&amp;b&apos;c", None),
        ("https://e.example/%41", "https://e.example/%41", None),
        ("https://e.example/\u00fc", "https://e.example/%C3%BC", "url-encoded"),
        ("https://e.example/x#a#b", "https://e.example/x#a%23b", "url-encoded"),
        ("https://e.example/s p", "https://e.example/s%20p", "url-encoded"),
        ("https://e.example/50%", "https://e.example/50%25", "url-encoded"),
    ],
)
@pytest.mark.parametrize("where", ["loc", "image"])
def test_a_url_is_written_as_a_uri_escaped_for_xml(
    tmp_path: Path, url: str, written: str, code: str | None, where: str
) -> None:
    entry = (
        Entry(loc=url)
        if where == "loc"
        else Entry(loc="https://e.example/page", images=(Image(loc=url), Image(loc=url, title="t")))
    )
    data, said = _write([entry], "sitemap", Options(), tmp_path)
    tag = "loc" if where == "loc" else "image:loc"
    assert data.count(f"<{tag}>{written}</{tag}>".encode()) == (1 if where == "loc" else 2)
    expected = [code] * (1 if where == "loc" else 2) if code else []
    if where == "loc" and " " in url:
        expected.insert(0, "loc-not-escaped")  # the check of a loc built in code, first
    assert [line.split(" ", 1)[0] for line in said] == expected


@pytest.mark.parametrize(
    ("title", "written", "codes"),
    [
        ("Plain", "Plain", []),
        (" Padded\u0085", "Padded", ["whitespace-trimmed"]),
        ("a & b < c", "a &#x26; b &#x3C; c", []),
        ('it\'s "q"', "it&apos;s &quot;q&quot;", []),
        ("<b>bold</b>", "bold", ["markup-in-text"]),
        ("bell\x07", "bell", ["character-dropped"]),
    ],
)
@pytest.mark.parametrize("fmt", ["ror", "rss"])
def test_a_feed_title_is_plain_text_escaped(
    tmp_path: Path, fmt: str, title: str, written: str, codes: list[str]
) -> None:
    entry = Entry(loc="https://e.example/p", title=title, lastmod=W3CDate("2024-01-02T10:00:00+02:00"))
    data, said = _write([entry], fmt, _options(fmt, None), tmp_path)
    assert f"<title>{written}</title>".encode() in data
    assert [line.split(" ", 1)[0] for line in said] == codes
    if fmt == "ror":
        assert b"<ror:updated>2024-01-02T10:00:00+02:00</ror:updated>" in data


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"loc": "https://e.example/a"}', None),
        ('{"loc": "https://e.example/a"}  \t', None),
        (
            '{"loc": "https://e.example/a"} {"loc": "https://e.example/b"}',
            "[invalid-json]: not a JSON object (Extra data",
        ),
        ('{"loc": "https://e.example/a"', "[invalid-json]: not a JSON object (Expecting ',' delimiter"),
        ('{"loc": "https://e.example/a"} x', "[invalid-json]: not a JSON object (Extra data: line 1 column 32"),
        ("[1, 2]", "[invalid-json]: a JSON list, not an object"),
        ('{"loc": 5}', "[invalid-value]"),
    ],
)
def test_a_json_line_is_read_whole_or_said_why_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, said: str | None
) -> None:
    """The JSON lines reader's short path: a line holding one object and nothing after it; any other line gets
    the message the full decoder gives it (its column too)."""
    source = tmp_path / "in.jsonl"
    source.write_text('{"loc": "https://e.example/first"}\n' + line + "\n", encoding="utf-8")
    status = main(["convert", str(source), "-t", "text", "-o", str(tmp_path / "out.txt")])
    err = capsys.readouterr().err
    if said is None:
        assert status == 0
        assert (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines()[1] == "https://e.example/a"
    else:
        assert f"in.jsonl:2: warning{said}" in err
