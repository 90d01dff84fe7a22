"""The ``csv`` format: entries written as RFC 4180 CSV with a header, read back with every field (issue 21, item 1).

Oracles: Python's ``csv`` module and pandas reading what is written (columns, cells, CR LF records); the entries
read from the XML or JSON lines source against those read back from CSV; ``feedmap.to_dataframe(explode=...)``
against a file written with ``--explode``; what the other formats write from the source against what they write
from its CSV.  The property of every field kept (``read(write(entries)) == entries``) is
tests/test_roundtrip.py's, which takes every format that reads and writes; the golden samples are under
``samples/csv/`` (tests/test_golden.py).
"""

from __future__ import annotations

import csv
import dataclasses
import gzip
import io
from collections.abc import Iterable
from pathlib import Path

import pandas as pd
import pytest
from conftest import codes, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_roundtrip import entries_for, project

import feedmap
from feedmap import (
    Alternate,
    Diagnostic,
    Entry,
    FeedmapError,
    FormatError,
    Image,
    Options,
    ReadError,
)
from feedmap.formats import registry

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
BASIC = SAMPLES / "sitemap" / "basic.xml"
ENTRIES = SAMPLES / "jsonl" / "entries.jsonl"  # every field: news XML extras, text extras, non-ASCII, "quotes"
HEADER = ["loc", "lastmod", "changefreq", "priority", "title", "description", "keywords", "type", "images"]
HEADER += ["alternates", "news", "videos", "extras"]


def written(entries: Iterable[Entry], options: Options | None = None) -> bytes:
    sink = io.BytesIO()
    feedmap.write(entries, sink, "csv", options)
    return sink.getvalue()


def read_back(data: bytes, options: Options | None = None, format: str | None = None) -> tuple[list[Entry], str]:
    """The entries of ``data`` and the format it was read as."""
    with feedmap.read(io.BytesIO(data), format, options) as doc:
        return list(doc.entries), str(doc.format)


def said(data: bytes, options: Options | None = None) -> tuple[list[str], list[tuple[str, int]]]:
    """The locs read from ``data`` (as CSV) and the diagnostics, each as (code, line)."""
    found: list[Diagnostic] = []
    with feedmap.read(io.BytesIO(data), "csv", options, on_diagnostic=found.append) as doc:
        locs = [entry.loc for entry in doc.entries]
    return locs, [(one.code, one.line) for one in found]


def entries_of(source: Path | str, options: Options | None = None) -> list[Entry]:
    with feedmap.read(source, options=options) as doc:
        return list(doc.entries)


# ------------------------------------------------------------------------------------------------ writing


def test_the_cli_writes_rfc_4180_that_the_csv_module_and_pandas_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    named, told = tmp_path / "urls.csv", tmp_path / "told"
    assert run(capsys, "convert", BASIC, "-o", named)[0] == 0  # the extension names the format
    assert run(capsys, "convert", BASIC, "-t", "csv", "-o", told)[0] == 0
    data = named.read_bytes()
    assert told.read_bytes() == data == written(entries_of(BASIC))
    records = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    assert records[0] == HEADER
    assert data.count(b"\r\n") == len(records) and b"\n" not in data.replace(b"\r\n", b"")  # CR LF records
    xml = entries_of(BASIC)
    assert [record[0] for record in records[1:]] == [entry.loc for entry in xml]
    assert [record[1] for record in records[1:]] == [entry.lastmod.text if entry.lastmod else "" for entry in xml]
    frame = pd.read_csv(named, dtype=str, keep_default_na=False)
    assert list(frame.columns) == HEADER and list(frame["loc"]) == [entry.loc for entry in xml]
    assert list(frame["priority"]) == ["1.0", "", "0.3", "0.8"]  # as written, absent is no 0.5


def test_every_field_comes_back_through_the_cli_and_the_library(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "entries.csv"
    code, _, err = run(capsys, "convert", ENTRIES, "-o", out)
    assert code == 0, err
    source = entries_of(ENTRIES)
    assert any(e.images and e.alternates and e.keywords and e.extras and e.type for e in source)  # every field
    assert entries_of(out) == source
    code, jsonl, _ = run(capsys, "convert", out, "-t", "jsonl")
    assert code == 0 and [feedmap.Entry(**one) for one in map(_loads, jsonl.splitlines())] == source
    feedmap.convert(ENTRIES, tmp_path / "library.csv", "csv")
    assert (tmp_path / "library.csv").read_bytes() == out.read_bytes()


def _loads(line: str) -> dict[str, object]:
    import json

    obj = json.loads(line)
    obj["images"] = [Image(**image) for image in obj.get("images", [])]
    obj["alternates"] = [Alternate(**alternate) for alternate in obj.get("alternates", [])]
    return dict(obj)


def test_values_are_written_as_read_and_empty_is_no_value() -> None:
    entries = [
        Entry(loc="https://e.com/a", lastmod="2024-06-01T10:00:00.5+02:00", priority=0.00001, title=""),
        Entry(loc="https://e.com/b", lastmod="2024", priority=1.0, keywords=("a, b", "c"), extras={"x:y": ""}),
    ]
    records = list(csv.DictReader(io.StringIO(written(entries).decode("utf-8"), newline="")))
    assert [(one["lastmod"], one["priority"], one["title"]) for one in records] == [
        ("2024-06-01T10:00:00.5+02:00", "0.00001", ""),  # its precision and zone; a decimal, no exponent
        ("2024", "1.0", ""),
    ]
    assert records[1]["keywords"] == '["a, b","c"]' and records[1]["extras"] == '{"x:y":""}'
    back, _ = read_back(written(entries))
    assert back[0].title is None and back[0].priority == 0.00001  # an empty cell is no value
    assert written([]) == (",".join(HEADER) + "\r\n").encode()  # the header, always
    assert back[1] == entries[1]


def test_a_string_utf_8_cannot_hold_loses_the_character_said() -> None:
    found: list[Diagnostic] = []
    sink = io.BytesIO()
    feedmap.write([Entry(loc="https://e.com/a", title="half \ud800 a pair")], sink, "csv", on_diagnostic=found.append)
    assert codes(found) == ["character-dropped"] and "https://e.com/a" in found[0].message
    assert read_back(sink.getvalue())[0][0].title == "half  a pair"


# ------------------------------------------------------------------------------------------------ recognising


@pytest.mark.parametrize(
    "data",
    [
        b"loc\nhttps://e.com/a\n",
        b"URL\r\nhttps://e.com/a\r\n",
        b" Loc ,lastmod\nhttps://e.com/a,2024-01-01\n",
        b"\xef\xbb\xbfloc,title\nhttps://e.com/a,A\n",  # Excel's "CSV UTF-8"
        b"\n\nlastmod,url\n2024-01-01,https://e.com/a\n",
        b"title;URL;priority\nA;https://e.com/a;0,5\n",  # a European Excel's semicolons
    ],
    ids=["loc", "URL", "Loc-blanks", "bom", "url-second", "semicolons"],
)
def test_a_header_naming_loc_or_url_is_csv(data: bytes, tmp_path: Path) -> None:
    entries, format = read_back(data)
    assert format == "csv" and [entry.loc for entry in entries] == ["https://e.com/a"]
    (tmp_path / "urls.txt").write_bytes(gzip.compress(data))  # the content says it, not the name, through gzip
    assert [entry.loc for entry in entries_of(tmp_path / "urls.txt")] == ["https://e.com/a"]


@pytest.mark.parametrize(
    ("data", "format"),
    [
        (b"https://e.com/loc\nhttps://e.com/url\n", "text"),
        (b'{"loc":"https://e.com/a"}\n', "jsonl"),
        (b"<urlset><url><loc>https://e.com/a</loc></url></urlset>", "sitemap"),
    ],
)
def test_what_names_no_loc_column_is_not_csv(data: bytes, format: str) -> None:
    assert read_back(data)[1] == format


@pytest.mark.parametrize(
    "data",
    [b"https://e.com/a,2024-01-01\nhttps://e.com/b,2024-01-02\n", b"location,date\nhttps://e.com/a,2024-01-01\n"],
    ids=["no-header", "header-without-loc"],
)
def test_comma_lines_without_a_header_naming_loc_are_still_refused(data: bytes) -> None:
    with pytest.raises(ReadError, match="a CSV file starts with a header naming its columns") as raised:
        read_back(data)
    assert raised.value.code == "csv-input"


# ------------------------------------------------------------------------------------------------ reading


def test_rows_that_cannot_be_read_are_said_at_their_line_and_skipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = (
        b"loc,title,colour,images\n"  # 1: colour is no column of feedmap's
        b'https://e.com/a,"two\nlines",red,\n'  # 2-3
        b'https://e.com/b,"stray"quote,,\n'  # 4: not valid CSV
        b"https://e.com/c,C,,,extra\n"  # 5: one cell more than the header
        b"https://e.com/d,D,,[1]\n"  # 6: images of the wrong shape
        b"https://e.com/e,E,,{\n"  # 7: no JSON
        b",,,\n"  # 8: empty: passed over
        b",no loc,,\n"  # 9
        b"https://e.com/f,F,,,\n"  # 10: a last empty cell more is nothing lost
        b'https://e.com/g,"never closed\n'  # 11: the rest of the file is inside the quote
    )
    locs, found = said(data)
    assert locs == ["https://e.com/a", "https://e.com/f"]
    assert found == [
        ("unknown-column", 1),
        ("csv-row", 4),
        ("csv-row", 5),
        ("invalid-value", 6),
        ("invalid-value", 7),
        ("loc-missing", 9),
        ("csv-row", 11),
    ]
    path = tmp_path / "rows.csv"
    path.write_bytes(data)
    code, _, err = run(capsys, "convert", path, "-t", "text")
    assert code == 0 and f"{path}:4: warning[csv-row]: a row that is not valid CSV" in err
    assert run(capsys, "convert", path, "-t", "text", "--strict")[0] == 1


def test_values_are_checked_as_the_other_readers_check_them() -> None:
    data = (
        b"loc,lastmod,changefreq,priority\n"
        b" https://e.com/a ,2024-13-01,Daily,1.5\n"
        b"https://e.com/b,2024-01-02T10:00Z,sometimes,abc\n"
    )
    jsonl = b'{"loc":" https://e.com/a ","lastmod":"2024-13-01","changefreq":"Daily","priority":1.5}\n'
    jsonl += b'{"loc":"https://e.com/b","lastmod":"2024-01-02T10:00Z","changefreq":"sometimes","priority":"abc"}\n'
    locs, found = said(data)
    assert locs == ["https://e.com/a", "https://e.com/b"]
    from_json: list[Diagnostic] = []
    with feedmap.read(io.BytesIO(jsonl), "jsonl", on_diagnostic=from_json.append) as doc:
        first, *_ = list(doc.entries)
    assert [code for code, _ in found[:4]] == codes(from_json)[:4]  # the same checks, the same codes
    assert read_back(data)[0][0] == first
    assert found[-1] == ("priority-invalid", 3)  # text in a priority (JSON lines: no number at all)


def test_a_header_that_says_no_entry_is_an_error_at_its_line() -> None:
    cases = {
        b"\ntitle,lastmod\nA,2024\n": "no header naming a loc",
        b"loc,title,Title\n": "names title twice",
        b"loc,images,image_loc\n": "both a images column and the parts of its items",
        b"loc,image_loc,keyword\n": "explodes one list",
        b"loc,image_caption\n": "without image_loc",
    }
    for data, words in cases.items():
        with pytest.raises(ReadError, match=words) as raised:
            feedmap.read(io.BytesIO(data), "csv")  # at once, before an entry is asked for
        assert (raised.value.code, raised.value.line) == ("csv-invalid", 2 if data.startswith(b"\n") else 1)


def test_an_empty_file_named_csv_has_no_entries() -> None:
    assert said(b"", None) == ([], []) and said(b"\r\n\r\n") == ([], [])


def test_a_line_that_is_not_utf_8_is_read_as_windows_1252() -> None:
    data = "loc,title\nhttps://e.com/a,Café\n".encode("cp1252")
    entries, _ = read_back(data)
    assert entries[0].title == "Café"
    assert said(data)[1] == [("not-utf8", 2)]


def test_long_cells_and_long_lines(tmp_path: Path) -> None:
    """A cell past the csv module's default limit (131,072 characters) is read (the cap is max_line_bytes); a line
    past max_line_bytes is skipped with the row it is in, the rows after it read."""
    long = Entry(loc="https://e.com/long", description="word " * 60_000)
    assert read_back(written([long]))[0] == [long]
    data = (
        b"loc,title\nhttps://e.com/a," + b"x" * 5000 + b'\nhttps://e.com/b,"' + b"y" * 5000 + b'"\nhttps://e.com/c,C\n'
    )
    options = Options(max_line_bytes=4096)
    locs, found = said(data, options)
    assert locs == ["https://e.com/c"] and found == [("line-too-long", 2), ("line-too-long", 3)]
    data = b'loc,title\nhttps://e.com/a,"y\n' + b"y" * 5000 + b'"\nhttps://e.com/c,C\n'
    locs, found = said(data, options)
    assert "https://e.com/a" not in locs and "https://e.com/c" in locs
    assert found[0] == ("line-too-long", 3) and "inside the row from line 2" in _messages(data, options)[0]


def _messages(data: bytes, options: Options) -> list[str]:
    found: list[Diagnostic] = []
    with feedmap.read(io.BytesIO(data), "csv", options, on_diagnostic=found.append) as doc:
        list(doc.entries)
    return [one.message for one in found]


def test_reading_streams(tmp_path: Path) -> None:
    """The first entry comes before the rest of the input is read (an input that breaks later still gave it)."""
    path = tmp_path / "big.csv"
    path.write_bytes(b"loc\n" + b"".join(b"https://e.com/%d\n" % n for n in range(200_000)))
    with feedmap.read(path) as doc:
        first = next(iter(doc.entries))
        assert first.loc == "https://e.com/0" and first.origin is not None and first.origin.line == 2
        assert sum(1 for _ in doc.entries) == 199_999


# ------------------------------------------------------------------------------------------------ formulas


FORMULAS = [
    Entry(loc="https://e.com/a", title='=HYPERLINK("https://evil.example/","click")', description="-20% off"),
    Entry(loc="https://e.com/b", title="@SUM(1)", type="+1", keywords=("=a",)),
    Entry(loc="https://e.com/c", title="'=already quoted", description="'plain quote", extras={"x:n": "\t1"}),
]


def test_formula_cells_are_said_and_written_safely_with_excel_safe(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    found: list[Diagnostic] = []
    plain = io.BytesIO()
    feedmap.write(FORMULAS, plain, "csv", on_diagnostic=found.append)
    assert codes(found) == ["csv-formula"] and found[0].message.startswith("4 cells start with =, +, -, @")
    records = list(csv.DictReader(io.StringIO(plain.getvalue().decode("utf-8"), newline="")))
    assert records[0]["title"].startswith("=HYPERLINK")  # as it is: the note said so
    safe = written(FORMULAS, Options(excel_safe=True))
    assert safe.startswith(b"\xef\xbb\xbf")  # UTF-8 for Excel
    records = list(csv.DictReader(io.StringIO(safe.decode("utf-8-sig"), newline="")))
    cells = [cell for record in records for cell in record.values()]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "-", "@", "\t", "\r", "\0")]
    assert [records[0]["title"][:2], records[1]["type"], records[2]["title"], records[2]["description"]] == [
        "'=",
        "'+1",
        "''=already quoted",  # one ' more, so that reading takes back exactly one
        "'plain quote",  # no formula after the quote: as it is
    ]
    assert read_back(safe, Options(excel_safe=True))[0] == FORMULAS
    assert read_back(safe)[0][1].title == "'@SUM(1)"  # read without excel_safe: the cell as written
    path = tmp_path / "safe.csv"
    assert run(capsys, "convert", ENTRIES, "-o", path, "--excel-safe")[0] == 0
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    assert entries_of(path, Options(excel_safe=True)) == entries_of(ENTRIES)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="'=+-@\t\r\0ab ,\"\n", max_size=8))
def test_excel_safe_takes_back_exactly_what_it_added(title: str) -> None:
    entry = Entry(loc="https://e.com/a", title=title or None)
    safe = written([entry], Options(excel_safe=True))
    assert read_back(safe, Options(excel_safe=True))[0] == [entry]
    record = next(csv.DictReader(io.StringIO(safe.decode("utf-8-sig"), newline="")))
    assert record["title"][:1] not in ("=", "+", "-", "@", "\t", "\r", "\0")


# ------------------------------------------------------------------------------------------------ explode


IMAGES = (Image(loc="https://e.com/1.png", caption="One, first"), Image(loc="https://e.com/2.png", license="L"))
EXPLODED = [
    Entry(loc="https://e.com/a", title="A", images=IMAGES, keywords=("k", "l"), alternates=()),
    Entry(loc="https://e.com/b", title="B"),  # no item: one row
    Entry(loc="https://e.com/c", images=IMAGES[:1], alternates=(Alternate(hreflang="de", href="https://e.com/de"),)),
    Entry(loc="https://e.com/c", images=IMAGES[1:], title="another entry of the same URL"),
]


@pytest.mark.parametrize("explode", ["images", "alternates", "keywords"])
def test_an_exploded_file_reads_back_as_the_entries_written(explode: str) -> None:
    data = written(EXPLODED, Options(explode=explode))  # type: ignore[arg-type]
    records = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    frame = feedmap.to_dataframe(feedmap.Document(entries=EXPLODED), explode=explode)
    assert records[0] == [name for name in frame.columns if name not in NOT_IN_CSV]  # the frame's names, in order
    assert len(records) - 1 == len(frame)  # one row per item, one for an entry without any: as to_dataframe
    parts = [name for name in records[0] if name not in HEADER]  # the parts of an item, in the list's place
    assert parts and records[0].index(parts[0]) == HEADER.index(explode)
    for name in parts:
        column = records[0].index(name)
        assert [record[column] for record in records[1:]] == list(frame[name].fillna("")), name
    assert read_back(data)[0] == EXPLODED


#: The frame's columns a CSV file does not hold: the lastmod's parts (its cell keeps its text) and where a row was read.
NOT_IN_CSV = ("lastmod_precision", "lastmod_text", "sitemap", "line")


def _without_empty_items(entry: Entry, explode: str) -> Entry:
    """The entry as an exploded file holds it: an item's empty part is an empty cell, read as none (an empty keyword,
    the item's only part, is no item)."""
    if explode == "keywords":
        return dataclasses.replace(entry, keywords=tuple(word for word in entry.keywords if word))
    if explode == "images":
        images = [
            dataclasses.replace(one, **{k: v or None for k, v in dataclasses.asdict(one).items() if k != "loc"})
            for one in entry.images
        ]
        return dataclasses.replace(entry, images=tuple(images))
    return entry


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize("explode", ["images", "alternates", "keywords"])
def test_every_field_comes_back_from_an_exploded_file(explode: str, data: st.DataObject) -> None:
    spec = registry()["csv"]
    entries = data.draw(st.lists(entries_for(spec), max_size=4, unique_by=lambda entry: entry.loc))
    back, _ = read_back(written(entries, Options(explode=explode)))  # type: ignore[arg-type]
    assert back == [_without_empty_items(project(entry, spec), explode) for entry in entries]


def test_rows_of_one_entry_are_consecutive_with_the_same_cells(capsys: pytest.CaptureFixture[str]) -> None:
    data = (
        b"loc,title,image_loc\n"
        b"https://e.com/a,A,https://e.com/1.png\n"
        b"https://e.com/a,A,https://e.com/2.png\n"  # the same entry: a second image
        b"https://e.com/a,changed,https://e.com/3.png\n"  # other cells: another entry
        b"https://e.com/b,B,https://e.com/4.png\n"
        b"https://e.com/a,changed,https://e.com/5.png\n"  # not consecutive: another entry
    )
    entries, _ = read_back(data)
    assert [(e.loc, e.title, [image.loc[-5:] for image in e.images]) for e in entries] == [
        ("https://e.com/a", "A", ["1.png", "2.png"]),
        ("https://e.com/a", "changed", ["3.png"]),
        ("https://e.com/b", "B", ["4.png"]),
        ("https://e.com/a", "changed", ["5.png"]),
    ]
    assert [entry.origin.line for entry in entries if entry.origin] == [2, 4, 5, 6]


def test_explode_from_the_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "images.csv"
    assert run(capsys, "convert", BASIC, "-o", out, "--explode", "images")[0] == 0
    frame = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(frame["image_loc"]) == list(feedmap.to_dataframe(BASIC, explode="images")["image_loc"].fillna(""))
    assert entries_of(out) == entries_of(BASIC)


# ------------------------------------------------------------------------------------------------ options


def test_the_options_of_csv_are_refused_where_no_csv_is(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "convert", BASIC, "-t", "text", "--explode", "images")
    assert code == 2 and "explode='images' says how a CSV file is written, and the output is text" in err
    code, _, err = run(capsys, "convert", BASIC, "-t", "text", "--excel-safe")
    assert code == 2 and "excel_safe is for a CSV file read or written" in err
    code, _, err = run(capsys, "convert", BASIC, "-t", "csv", "--title", "News", "--schema-location")
    assert code == 2 and "a CSV file has no XML schema location and no feed channel" in err
    assert not list(tmp_path.iterdir())
    with pytest.raises(FormatError, match="the output is sitemap"):
        feedmap.write([Entry(loc="https://e.com/a")], tmp_path / "a.xml", "sitemap", Options(explode="images"))
    with pytest.raises(FormatError, match="here sitemap read"):
        feedmap.read(BASIC, options=Options(excel_safe=True))
    with pytest.raises(ValueError, match=r"^read\(\) cannot use explode"):
        feedmap.read(BASIC, options=Options(explode="images"))
    with pytest.raises(ValueError, match=r"^split\(\) cannot use explode"):
        feedmap.split([], tmp_path / "dir", "text", Options(explode="images", base_url="https://e.com/"))
    with pytest.raises(ValueError, match=r"^explode is one of 'images', 'alternates', 'keywords'"):
        Options(explode="pages")  # type: ignore[arg-type]
    assert not list(tmp_path.iterdir())
    safe = tmp_path / "safe.csv"
    safe.write_bytes(written(FORMULAS, Options(excel_safe=True)))
    code, out, _ = run(capsys, "convert", safe, "-t", "jsonl", "--excel-safe")  # a CSV read: it applies
    assert code == 0 and '"title":"@SUM(1)"' in out


def test_a_csv_file_is_not_split_into_a_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Split files are listed by a sitemap index, which search engines read; none reads CSV (as JSON lines)."""
    with pytest.raises(FormatError, match=r"'csv' cannot be split into files; the formats that can: .*sitemap"):
        feedmap.split([Entry(loc="https://e.com/")], tmp_path / "out", "csv", Options(base_url="https://e.com/"))
    argv = ["convert", BASIC, "-t", "csv", "-o", f"{tmp_path}/dir/", "--base-url", "https://e.com/"]
    code, _, err = run(capsys, *argv)
    assert code == 2 and "cannot be split" in err and not (tmp_path / "dir").exists()


# ------------------------------------------------------------------------------------------------ the corpus


def _corpus_files(corpus: Path) -> list[Path]:
    folders = ("advertools", "sitemapjs", "crawler-commons", "ror-wild")
    return sorted(
        path
        for folder in folders
        for path in (corpus / folder).rglob("*")
        if path.is_file()
        and path.name != "LICENSE"
        and not path.name.endswith((".json", "robots.txt"))
        and path.stat().st_size < 2_000_000  # not long-list.txt.gz's million URLs (seconds to read alone)
    )


def test_corpus_files_through_csv_and_back_are_the_same(corpus_dir: Path, tmp_path: Path) -> None:
    """Every sitemap, index, text sitemap and feed of the corpus: its entries read back from its CSV are those read
    from it, and a sitemap, index or text sitemap written from the CSV is the bytes written from the file."""
    compared = 0
    for source in _corpus_files(corpus_dir):
        options = Options(follow=False)
        try:
            with feedmap.read(source, options=options) as doc:
                entries, format = list(doc.entries), doc.format
        except FeedmapError:
            continue  # not a file of entries (a decompression bomb, a broken feed): nothing to compare
        if len(entries) > 25_000:
            continue  # medium-list's 100,000 URLs: perf-data's 21,753 are the same kind
        middle = tmp_path / f"{source.name}.csv"
        feedmap.write(entries, middle, "csv")
        assert entries_of(middle) == entries, source
        if format in ("sitemap", "sitemapindex", "text"):
            direct, through = tmp_path / "direct", tmp_path / "through"
            feedmap.convert(source, direct, format, options)
            feedmap.convert(middle, through, format)
            assert through.read_bytes() == direct.read_bytes(), source
        compared += 1
    assert compared >= 25
