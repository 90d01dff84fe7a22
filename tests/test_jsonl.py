"""The ``jsonl`` format: the IR as JSON lines, header line, lenient reading, lossless conversions."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from pathlib import Path

import pytest

import feedmap
from feedmap import (
    Alternate,
    ChangeFreq,
    Diagnostic,
    DocKind,
    DocMeta,
    Document,
    Entry,
    Image,
    Options,
    ReadError,
    Reporter,
    W3CDate,
)


def read(data: bytes, format: str | None = "jsonl") -> tuple[list[Entry], list[Diagnostic], DocMeta]:
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), format=format, reporter=reporter) as doc:
        return list(doc), reporter.diagnostics, doc.meta


def write(doc: Document | Iterable[Entry]) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    summary = feedmap.write(doc, sink, "jsonl")
    return sink.getvalue(), summary.diagnostics


def lines(*objects: object) -> bytes:
    return "".join(json.dumps(obj) + "\n" for obj in objects).encode()


def coded(diagnostics: Iterable[Diagnostic]) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in diagnostics]


FULL = Entry(
    loc="https://www.example.com/é?a=1&b=<2>",
    lastmod=W3CDate("2024-02-03T04:05Z"),
    changefreq=ChangeFreq.WEEKLY,
    priority=0.3,
    title="Title 'quoted' \"double\"",
    description="Line one\nline two",
    keywords=("a", "b c"),
    type="Article",
    images=(
        Image(loc="https://www.example.com/1.png", caption="cap", geo_location="geo", title="t", license="https://l/"),
        Image(loc="https://www.example.com/2.png"),
    ),
    alternates=(Alternate(hreflang="de", href="https://www.example.com/de"),),
    extras={"ror:sortOrder": "2", "{urn:x}thing": '<x:thing xmlns:x="urn:x">1</x:thing>'},
)


def test_all_fields_round_trip() -> None:
    data, diagnostics = write([FULL, Entry(loc="https://www.example.com/plain")])
    # values built in code are checked as read ones are: the "<2>" in FULL's loc is reported, and written as it is
    assert [d.code for d in diagnostics] == ["loc-not-escaped"]
    entries, read_diagnostics, meta = read(data)
    assert entries == [FULL, Entry(loc="https://www.example.com/plain")]
    # jsonl keeps a loc as read; one holding characters no URI holds ("<2>") is reported, never silently
    assert [(d.code, d.line) for d in read_diagnostics] == [("loc-not-escaped", 1)]
    assert meta == DocMeta()


def test_written_objects_omit_empty_values_and_keep_ir_key_order() -> None:
    data, _ = write([FULL, Entry(loc="https://www.example.com/plain")])
    first, second = (json.loads(line) for line in data.decode().splitlines())
    assert list(first) == [
        "loc",
        "lastmod",
        "changefreq",
        "priority",
        "title",
        "description",
        "keywords",
        "type",
        "images",
        "alternates",
        "extras",
    ]
    assert second == {"loc": "https://www.example.com/plain"}
    assert first["images"][1] == {"loc": "https://www.example.com/2.png"}


def test_writer_is_utf8_one_line_per_entry() -> None:
    data, _ = write([FULL])
    assert data.count(b"\n") == 1
    assert "é".encode() in data


@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029"])
@pytest.mark.parametrize("lone_surrogate", ["", "\ud800"])
def test_unicode_line_breaks_are_escaped_so_each_object_stays_one_line(separator: str, lone_surrogate: str) -> None:
    # JSON lets them stand raw in a string, but str.splitlines() and editors break lines there
    entry = Entry(loc=f"https://www.example.com/a{separator}b", title=f"one{separator}two{lone_surrogate}")
    data, _ = write(Document(DocMeta(title=f"site{separator}"), iter([entry])))
    text = data.decode("utf-8")
    assert separator not in text
    assert len(text.splitlines()) == 2  # the header and the entry
    entries, _diagnostics, meta = read(data)
    assert [(e.loc, e.title) for e in entries] == [(entry.loc, f"one{separator}two")]
    assert meta.title == f"site{separator}"


def test_header_line_becomes_document_metadata() -> None:
    header = {
        "kind": "feed",
        "title": "Site",
        "link": "https://www.example.com/",
        "description": "All pages",
        "extras": {"ror:about": "sitemap"},
    }
    entries, diagnostics, meta = read(lines(header, {"loc": "https://www.example.com/1"}))
    assert meta == DocMeta(
        kind=DocKind.FEED,
        title="Site",
        link="https://www.example.com/",
        description="All pages",
        extras={"ror:about": "sitemap"},
    )
    assert entries == [Entry(loc="https://www.example.com/1")]
    assert diagnostics == []


def test_header_is_written_back() -> None:
    meta = DocMeta(kind=DocKind.INDEX, title="Index")
    data, _ = write(Document(meta, [Entry(loc="https://www.example.com/s.xml")]))
    assert data.splitlines()[0] == b'{"kind":"index","title":"Index"}'
    _, _, again = read(data)
    assert again == meta


def test_no_header_is_written_for_a_plain_urlset() -> None:
    data, _ = write(Document(DocMeta(), [Entry(loc="https://www.example.com/")]))
    assert data == b'{"loc":"https://www.example.com/"}\n'


def test_header_only_on_the_first_line() -> None:
    data = lines({"loc": "https://www.example.com/1"}, {"kind": "feed", "title": "late"})
    entries, diagnostics, meta = read(data)
    assert [e.loc for e in entries] == ["https://www.example.com/1"]
    assert meta == DocMeta()
    assert coded(diagnostics) == [(2, "loc-missing")]


def test_invalid_header_is_a_read_error() -> None:
    with pytest.raises(feedmap.ReadError) as info:
        read(lines({"kind": "carousel"}, {"loc": "https://www.example.com/1"}))
    assert info.value.code == "invalid-value"


def test_bad_json_lines_are_skipped_and_reading_goes_on() -> None:
    data = (
        b'{"loc":"https://www.example.com/1"}\n'
        b"{not json\n"
        b'["a","list"]\n'
        b"\n"
        b'"a string"\n'
        b'{"loc":"https://www.example.com/2"}\n'
        b"\xff\xfe garbage\n"
        b'{"loc":"https://www.example.com/3"}'
    )
    entries, diagnostics, _ = read(data)
    assert [e.loc for e in entries] == [f"https://www.example.com/{i}" for i in (1, 2, 3)]
    assert coded(diagnostics) == [(2, "invalid-json"), (3, "invalid-json"), (5, "invalid-json"), (7, "invalid-json")]


@pytest.mark.parametrize(
    "obj",
    [
        {"loc": 42},
        {"loc": "https://www.example.com/", "priority": "high"},
        {"loc": "https://www.example.com/", "priority": True},
        {"loc": "https://www.example.com/", "title": ["not", "a", "string"]},
        {"loc": "https://www.example.com/", "keywords": [1, 2]},
        {"loc": "https://www.example.com/", "images": "https://www.example.com/i.png"},
        {"loc": "https://www.example.com/", "images": [{"caption": "no loc"}]},
        {"loc": "https://www.example.com/", "images": [{"loc": "https://www.example.com/i", "size": "big"}]},
        {"loc": "https://www.example.com/", "images": [{"loc": "https://www.example.com/i", "title": 3}]},
        {"loc": "https://www.example.com/", "alternates": [{"hreflang": "de"}]},
        {"loc": "https://www.example.com/", "alternates": {"de": "https://www.example.com/de"}},
        {"loc": "https://www.example.com/", "extras": {"a": 1}},
        {"loc": "https://www.example.com/", "extras": ["a"]},
        {"loc": "https://www.example.com/", "lastmod": 2024},
        {"loc": "https://www.example.com/", "changefreq": 7},
    ],
)
def test_wrong_types_are_invalid_values(obj: dict[str, object]) -> None:
    data = lines({"loc": "https://www.example.com/first"}, obj, {"loc": "https://www.example.com/last"})
    entries, diagnostics, _ = read(data)
    assert [e.loc for e in entries] == ["https://www.example.com/first", "https://www.example.com/last"]
    assert coded(diagnostics) == [(2, "invalid-value")]


def test_field_repairs_use_the_shared_rules() -> None:
    data = lines(
        {"loc": "https://www.example.com/1", "priority": 3, "changefreq": "Daily", "lastmod": "2024-1-2"},
        {"loc": "https://www.example.com/2", "changefreq": "often", "lastmod": "never"},
        {"loc": "relative/3"},
        {"loc": ""},
    )
    entries, diagnostics, _ = read(data)
    assert entries[0] == Entry(
        loc="https://www.example.com/1",
        lastmod=W3CDate("2024-01-02"),
        changefreq=ChangeFreq.DAILY,
    )  # priority 3 is out of range: ignored, not clamped to 1.0
    assert entries[1] == Entry(loc="https://www.example.com/2")
    assert [e.loc for e in entries] == ["https://www.example.com/1", "https://www.example.com/2", "relative/3"]
    assert sorted(coded(diagnostics)) == [
        (1, "changefreq-case"),
        (1, "lastmod-repaired"),
        (1, "priority-invalid"),
        (2, "changefreq-invalid"),
        (2, "lastmod-invalid"),
        (3, "relative-url"),  # no base URL to resolve it against: kept, reported
        (4, "loc-missing"),
    ]


def test_keywords_may_be_a_comma_separated_string() -> None:
    entries, diagnostics, _ = read(lines({"loc": "https://www.example.com/", "keywords": "tea, green ,, cup"}))
    assert entries[0].keywords == ("tea", "green", "cup")
    assert diagnostics == []


def test_unknown_keys_are_reported_and_ignored() -> None:
    data = lines(
        {"kind": "urlset", "generator": "x"},
        {"loc": "https://www.example.com/1", "colour": "blue", "size": 3},
        {"loc": "https://www.example.com/2"},
    )
    entries, diagnostics, _ = read(data)
    assert entries == [Entry(loc="https://www.example.com/1"), Entry(loc="https://www.example.com/2")]
    assert coded(diagnostics) == [(1, "unknown-key"), (2, "unknown-key")]


def test_bom_and_crlf_are_tolerated() -> None:
    data = b'\xef\xbb\xbf{"loc":"https://www.example.com/1"}\r\n\r\n{"loc":"https://www.example.com/2"}\r\n'
    entries, diagnostics, _ = read(data, format=None)
    assert [e.loc for e in entries] == ["https://www.example.com/1", "https://www.example.com/2"]
    assert diagnostics == []


def test_entries_remember_their_line() -> None:
    entries, _, _ = read(b'\n{"loc":"https://www.example.com/1"}\n\n{"loc":"https://www.example.com/2"}\n')
    assert [e.origin.line if e.origin else 0 for e in entries] == [2, 4]


def test_detected_from_content() -> None:
    entries, _, _ = read(lines({"loc": "https://www.example.com/1"}), format=None)
    assert [e.loc for e in entries] == ["https://www.example.com/1"]


def test_sitemap_to_jsonl_to_sitemap_is_lossless(samples_dir: Path, tmp_path: Path) -> None:
    basic = samples_dir / "sitemap" / "basic.xml"
    as_jsonl = tmp_path / "basic.jsonl"
    back = tmp_path / "basic.xml"
    direct = tmp_path / "direct.xml"
    first = feedmap.convert(str(basic), as_jsonl, "jsonl")
    second = feedmap.convert(str(as_jsonl), back, "sitemap")
    feedmap.convert(str(basic), direct, "sitemap")
    assert first.diagnostics == []
    # the sample's year-only lastmod is kept, with the warning validate gives it (the XSD wants a full date)
    assert [d.code for d in second.diagnostics] == ["lastmod-not-xsd"]
    with feedmap.read(str(basic)) as doc:
        original = list(doc)
    with feedmap.read(str(back)) as doc:
        again = list(doc)
    assert len(original) == 4
    assert again == original
    assert back.read_bytes() == direct.read_bytes()


def test_jsonl_to_jsonl_is_byte_identical(tmp_path: Path) -> None:
    data, _ = write(Document(DocMeta(kind=DocKind.FEED, title="t"), [FULL]))
    source = tmp_path / "in.jsonl"
    source.write_bytes(data)
    out = tmp_path / "out.jsonl"
    feedmap.convert(str(source), out, "jsonl")
    assert out.read_bytes() == data


def test_deeply_nested_json_is_invalid_json_not_a_crash() -> None:
    data = b'{"loc":"https://www.example.com/1"}\n' + b'{"a":' * 100_000 + b'\n{"loc":"https://www.example.com/2"}\n'
    entries, diagnostics, _ = read(data)
    assert [e.loc for e in entries] == ["https://www.example.com/1", "https://www.example.com/2"]
    assert coded(diagnostics) == [(2, "invalid-json")]


def test_lone_surrogate_escapes_are_invalid_values() -> None:
    # a lone surrogate cannot be written as UTF-8 by any writer; an escaped surrogate pair is a normal character
    data = (
        b'{"loc":"https://www.example.com/\\ud800"}\n'
        b'{"loc":"https://www.example.com/\\ud83d\\ude00"}\n'
        b'{"loc":"https://www.example.com/3","extras":{"\\udfff":"x"}}\n'
    )
    entries, diagnostics, _ = read(data)
    assert [e.loc for e in entries] == ["https://www.example.com/😀"]
    assert coded(diagnostics) == [(1, "invalid-value"), (3, "invalid-value")]
    text, _ = write(entries)
    assert "😀".encode() in text


def test_raw_surrogate_bytes_are_invalid_utf8_not_a_crash(tmp_path: Path) -> None:
    """``\\xed\\xa0\\x80`` encodes U+D800 (CESU-8): json.loads(bytes) would let it through to the writers."""
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"loc":"https://e.com/\xed\xa0\x80"}\n{"loc":"https://www.example.com/ok"}\n')
    entries, diagnostics, _ = read(source.read_bytes())
    assert [e.loc for e in entries] == ["https://www.example.com/ok"]
    assert coded(diagnostics) == [(1, "invalid-json")]
    for target in ("jsonl", "text", "sitemap"):
        summary = feedmap.convert(source, tmp_path / f"out.{target}", target)
        assert summary.entries == 1
        (tmp_path / f"out.{target}").read_bytes().decode("utf-8")


def test_writer_drops_a_lone_surrogate_with_a_warning() -> None:
    entries = [Entry(loc="https://www.example.com/a\ud800b", title="t\udfff"), Entry(loc="https://www.example.com/c")]
    data, diagnostics = write(entries)
    assert [json.loads(line) for line in data.decode("utf-8").splitlines()] == [
        {"loc": "https://www.example.com/ab", "title": "t"},
        {"loc": "https://www.example.com/c"},
    ]
    assert [d.code for d in diagnostics] == ["character-dropped"]
    assert "U+D800, U+DFFF" in diagnostics[0].message


def test_a_header_with_a_lone_surrogate_is_written_without_it() -> None:
    data, diagnostics = write(Document(DocMeta(kind=DocKind.FEED, title="T\ud800"), []))
    assert json.loads(data) == {"kind": "feed", "title": "T"}
    assert [d.code for d in diagnostics] == ["character-dropped"]


@pytest.mark.parametrize("priority", [float("nan"), float("inf"), float("-inf")])
def test_writer_leaves_out_a_priority_that_is_not_a_number(priority: float) -> None:
    data, diagnostics = write([Entry(loc="https://www.example.com/", priority=priority)])
    assert json.loads(data) == {"loc": "https://www.example.com/"}
    assert [d.code for d in diagnostics] == ["priority-invalid"]


INJECTION = '<x:y xmlns:x="urn:x"/></url><url><loc>https://injected.example/</loc>'


def test_an_extra_that_is_not_one_well_formed_element_is_dropped_when_read(tmp_path: Path) -> None:
    good = '<x:y xmlns:x="urn:x">1</x:y>'
    data = lines(
        {"loc": "https://www.example.com/1", "extras": {"{urn:x}y": INJECTION, "ror:sortOrder": "1"}},
        {"loc": "https://www.example.com/2", "extras": {"{urn:x}y": good}},
        {"loc": "https://www.example.com/3", "extras": {"{": "<"}},
    )
    entries, diagnostics, _ = read(data)
    assert [e.extras for e in entries] == [{"ror:sortOrder": "1"}, {"{urn:x}y": good}, {}]
    assert coded(diagnostics) == [(1, "invalid-extra"), (3, "invalid-extra")]
    source = tmp_path / "in.jsonl"
    source.write_bytes(data)
    summary = feedmap.convert(source, tmp_path / "out.xml", "sitemap")
    assert summary.entries == 3
    assert (tmp_path / "out.xml").read_bytes().count(b"<url>") == 3


class Generated(io.RawIOBase):
    """A readable stream of ``size`` bytes of ``fill`` then ``tail``, made as it is read (never held whole)."""

    def __init__(self, fill: bytes, size: int, tail: bytes) -> None:
        self.fill, self.left, self.tail = fill, size, tail

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self.left > 0:
            count = min(len(buffer), self.left)
            buffer[:count] = self.fill * count
            self.left -= count
            return count
        count = min(len(buffer), len(self.tail))
        buffer[:count] = self.tail[:count]
        self.tail = self.tail[count:]
        return count


def test_a_line_longer_than_the_cap_is_skipped_without_being_held(tmp_path: Path) -> None:
    """One 24 MiB line under a 1 MiB cap: reported, skipped, and memory stays near the cap (not 4x the line)."""
    import tracemalloc

    stream = Generated(b"x", 24 << 20, b'\n{"loc":"https://www.example.com/after"}\n')
    reporter = Reporter()
    tracemalloc.start()
    try:
        with feedmap.read(
            io.BufferedReader(stream), format="jsonl", reporter=reporter, options=feedmap.Options(max_bytes=1 << 30)
        ) as doc:
            entries = list(doc)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [e.loc for e in entries] == ["https://www.example.com/after"]
    assert coded(reporter.diagnostics) == [(1, "line-too-long")]
    assert peak < 4 << 20


@pytest.mark.parametrize(
    ("limit", "too_long", "written"),
    [
        (20, [1, 2, 3], b""),
        (100, [2], b"https://www.example.com/a\nhttps://www.example.com/b\n"),
        (200, [], b"https://www.example.com/a\nhttps://www.example.com/b\n"),  # a line of exactly the cap is read
    ],
)
def test_the_line_cap_is_an_option(limit: int, too_long: list[int], written: bytes) -> None:
    data = b'{"loc":"https://www.example.com/a"}\n' + b" " * 200 + b"\n" + b'{"loc":"https://www.example.com/b"}'
    reporter = Reporter()
    sink = io.BytesIO()
    options = Options(max_line_bytes=limit)
    feedmap.convert(io.BytesIO(data), sink, "text", source_format="jsonl", options=options, reporter=reporter)
    assert [line for line, code in coded(reporter.diagnostics) if code == "line-too-long"] == too_long
    assert sink.getvalue() == written


@pytest.mark.parametrize(
    ("written", "priority", "codes"),
    [
        (b"0.5", 0.5, []),
        (b"0.50", 0.5, []),
        (b"1", 1.0, []),
        (b"5e-324", 5e-324, []),  # a float holds it; the XML writers round it (priority-rounded there)
        (b"0.12345678901234567890", 0.12345678901234568, ["priority-rounded"]),
        (b"1e-400", 0.0, ["priority-rounded"]),
        (b"1e400", None, ["priority-invalid"]),
        (b"-0.1", None, ["priority-invalid"]),
        (b"1.1", None, ["priority-invalid"]),
        (b"5", None, ["priority-invalid"]),
    ],
)
def test_a_priority_a_float_cannot_hold_is_reported(written: bytes, priority: float, codes: list[str]) -> None:
    entries, diagnostics, _ = read(b'{"loc":"https://www.example.com/","priority":' + written + b"}\n")
    assert [e.priority for e in entries] == [priority]
    assert [d.code for d in diagnostics] == codes


def test_a_fraction_where_a_string_belongs_is_still_an_invalid_value() -> None:
    entries, diagnostics, _ = read(b'{"loc":"https://www.example.com/","title":0.5}\n')
    assert entries == []
    assert coded(diagnostics) == [(1, "invalid-value")]
    assert "not float" in diagnostics[0].message


def test_the_line_cap_is_a_read_argument() -> None:
    reporter = Reporter()
    data = b'{"loc":"https://www.example.com/long"}\n{"loc":"https://e.com/"}\n'
    with feedmap.read(
        io.BytesIO(data), format="jsonl", reporter=reporter, options=feedmap.Options(max_line_bytes=30)
    ) as doc:
        assert [e.loc for e in doc] == ["https://e.com/"]
    assert coded(reporter.diagnostics) == [(1, "line-too-long")]


def test_the_line_too_long_message_reads_as_a_sentence() -> None:
    """The message has no blank before its ';' (the CLI appends "; --max-line-bytes raises the limit")."""
    reporter = Reporter()
    data = b'{"loc":"https://www.example.com/' + b"x" * 200 + b'"}\n{"loc":"https://www.example.com/b"}\n'
    with feedmap.read(
        io.BytesIO(data), format="jsonl", reporter=reporter, options=feedmap.Options(max_line_bytes=100)
    ) as doc:
        assert [e.loc for e in doc] == ["https://www.example.com/b"]
    assert [d.message for d in reporter.diagnostics if d.code == "line-too-long"] == [
        "line longer than 100 bytes; skipped"
    ]


def test_a_feeds_last_update_survives_json_lines() -> None:
    """JSON lines hold the whole IR: a channel's ``lastBuildDate`` (``DocMeta.updated``) goes into the header
    line and comes back, so rss -> jsonl -> rss keeps it."""
    rss = (
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>https://e.com/</link>'
        b"<description>d</description><lastBuildDate>Mon, 02 Jan 2006 15:04:05 +0000</lastBuildDate>"
        b"<item><link>https://e.com/a</link></item></channel></rss>"
    )
    lines = io.BytesIO()
    feedmap.convert(io.BytesIO(rss), lines, "jsonl", source_format="rss")
    header = json.loads(lines.getvalue().splitlines()[0])
    assert header["updated"] == "2006-01-02T15:04:05Z"
    back = io.BytesIO()
    feedmap.convert(io.BytesIO(lines.getvalue()), back, "rss", source_format="jsonl")
    assert b"<lastBuildDate>Mon, 02 Jan 2006 15:04:05 GMT</lastBuildDate>" in back.getvalue()


def test_a_header_updated_that_is_no_date_is_reported() -> None:
    """An invalid header line is refused, as a bad ``kind`` is."""
    data = b'{"kind":"feed","updated":"yesterday"}\n{"loc":"https://e.com/a"}\n'
    with pytest.raises(ReadError, match="'updated' must be a W3C Datetime"):
        feedmap.read(io.BytesIO(data), "jsonl")
