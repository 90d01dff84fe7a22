"""The ``parquet`` format: entries written as an Apache Parquet file in row groups as they stream, read back.

Oracles: pyarrow's own reading of the file (its schema, row groups and values) against :func:`feedmap.to_dataframe`
of the same input; the entries of the source read as XML against those read back from Parquet; the JSON lines of
both.  Memory flat is shown by the file's structure: a row group per 65,536 entries, the first one on disk
before the last entry was read.
"""

from __future__ import annotations

import datetime
import gzip
import math
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import run
from without_modules import run_without

import feedmap
from feedmap import Diagnostic, Entry, FormatError, Options, ReadError, WriteError

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SITE = "https://www.example.com/"
INDEX = SAMPLES / "sitemapindex" / "index.xml"

#: The Arrow types of news and videos (a map's entries are named by the column in a Parquet file, nested ones too).
NEWS_TYPE = (
    "struct<publication_name: string, publication_language: string, publication_date: string, title: string, "
    "keywords: string, genres: string, stock_tickers: string, access: string, extras: map<string, string ('extras')>>"
)
VIDEOS_TYPE = (
    "list<element: struct<thumbnail_loc: string, title: string, description: string, content_loc: string, "
    "player_loc: string, player_allow_embed: bool, player_autoplay: string, duration: int64, expiration_date: "
    "string, rating: double, view_count: int64, publication_date: string, tags: list<element: string>, "
    "family_friendly: bool, restriction: list<element: string>, restriction_relationship: string, prices: "
    "list<element: struct<value: string, currency: string, type: string, resolution: string>>, "
    "requires_subscription: bool, uploader: string, uploader_info: string, platform: list<element: string>, "
    "platform_relationship: string, live: bool, extras: map<string, string ('extras')>>>"
)
#: The Arrow type of each column, as docs/formats.md gives them.
ARROW_TYPES = {
    "loc": "string",
    "lastmod": "timestamp[us, tz=UTC]",
    "lastmod_precision": "dictionary<values=string, indices=int8, ordered=1>",
    "lastmod_text": "string",
    "changefreq": "dictionary<values=string, indices=int8, ordered=0>",
    "priority": "double",
    "title": "string",
    "description": "string",
    "keywords": "list<element: string>",
    "type": "string",
    "images": "list<element: struct<loc: string, caption: string, geo_location: string, title: string, "
    "license: string>>",
    "alternates": "list<element: struct<hreflang: string, href: string>>",
    "news": NEWS_TYPE,
    "videos": VIDEOS_TYPE,
    "extras": "map<string, string ('extras')>",  # a map's entries are named by the column in a Parquet file
    "sitemap": "string",
    "line": "int64",
}


def _plain(value: Any) -> Any:
    """A frame's value as pyarrow gives it in Python (NA, NaT and NaN: None)."""
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


def test_convert_writes_a_file_pyarrow_reads_as_to_dataframe_gives(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "out.parquet"
    code, _, err = run(capsys, "convert", INDEX, "--map", f"{SITE}={SAMPLES / 'site'}/", "-t", "parquet", "-o", out)
    assert code == 0, err
    table = pq.read_table(out)
    assert {field.name: str(field.type) for field in table.schema} == ARROW_TYPES
    frame = feedmap.to_dataframe(INDEX, Options(maps=((SITE, SAMPLES / "site"),)))
    assert table.num_rows == len(frame) == 4
    for name in ARROW_TYPES:
        assert table.column(name).to_pylist() == [_plain(value) for value in frame[name].tolist()], name


def test_the_extension_names_the_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    named, told = tmp_path / "named.parquet", tmp_path / "told.parquet"
    assert run(capsys, "convert", SAMPLES / "sitemap" / "basic.xml", "-o", named)[0] == 0
    assert run(capsys, "convert", SAMPLES / "sitemap" / "basic.xml", "-t", "parquet", "-o", told)[0] == 0
    assert named.read_bytes()[:4] == b"PAR1" and named.read_bytes() == told.read_bytes()


def _text_sitemap(path: Path, count: int) -> Path:
    path.write_text("".join(f"https://example.com/page/{n}\n" for n in range(count)), encoding="utf-8")
    return path


def test_row_groups_are_written_as_the_entries_stream(tmp_path: Path) -> None:
    """70,000 entries: two row groups of at most 65,536 rows, the first on disk (in the output's temporary file)
    while the last entries are still being read."""
    source = _text_sitemap(tmp_path / "urls.txt", 70_000)
    out = tmp_path / "out.parquet"
    seen: list[int] = []

    def watched(entries: Any) -> Iterator[Entry]:
        for number, entry in enumerate(entries, 1):
            if number == 70_000:
                seen.extend(path.stat().st_size for path in tmp_path.glob(".out.parquet.*.part"))
            yield entry

    feedmap.convert(source, out, "parquet", wrap=watched)
    file = pq.ParquetFile(out)
    assert [file.metadata.row_group(i).num_rows for i in range(file.num_row_groups)] == [65_536, 4_464]
    assert len(seen) == 1 and seen[0] > out.stat().st_size // 2  # the first row group, written already
    assert file.read(columns=["loc"]).column("loc").to_pylist()[-1] == "https://example.com/page/69999"


def test_entries_read_back_are_those_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus_dir: Path
) -> None:
    source = corpus_dir / "sitemapjs" / "alltags.xml"  # images, hreflang alternates, news, video, keywords-free
    out = tmp_path / "all.parquet"
    feedmap.convert(source, out, "parquet")
    with feedmap.read(source) as doc:
        written = list(doc.entries)
    with feedmap.read(out) as doc:
        assert doc.format == "parquet"
        read_back = list(doc.entries)
    assert read_back == written and any(entry.images for entry in written) and any(e.extras for e in written)
    assert [entry.origin for entry in read_back] == [(str(out), row) for row in range(1, len(written) + 1)]
    jsonl_of_xml = run(capsys, "convert", source, "-t", "jsonl")[1]
    assert run(capsys, "convert", out, "-t", "jsonl")[1] == jsonl_of_xml


def test_recognised_by_content_also_gzipped(tmp_path: Path) -> None:
    out = tmp_path / "basic.parquet"
    feedmap.convert(SAMPLES / "sitemap" / "basic.xml", out, "parquet")
    renamed = tmp_path / "data.bin"
    shutil.copy(out, renamed)
    zipped = tmp_path / "basic.parquet.gz"
    zipped.write_bytes(gzip.compress(out.read_bytes()))
    with feedmap.read(SAMPLES / "sitemap" / "basic.xml") as doc:
        expected = list(doc.entries)
    for path in (renamed, zipped):
        with feedmap.read(path) as doc:
            assert doc.format == "parquet" and list(doc.entries) == expected, path


def test_a_parquet_file_made_by_others(tmp_path: Path) -> None:
    """pandas' own file: only loc and a lastmod timestamp, and a column feedmap does not know."""
    path = tmp_path / "others.parquet"
    moment = datetime.datetime(2024, 5, 3, 10, 0, tzinfo=datetime.timezone.utc)
    pd.DataFrame(
        {
            "loc": ["https://example.com/a", "https://example.com/b"],
            "lastmod": [moment, None],
            "colour": ["red", "blue"],
        }
    ).to_parquet(path)
    said: list[Diagnostic] = []
    with feedmap.read(path, on_diagnostic=said.append) as doc:
        entries = list(doc.entries)
    assert [(entry.loc, entry.lastmod) for entry in entries] == [
        ("https://example.com/a", feedmap.W3CDate("2024-05-03T10:00:00Z")),
        ("https://example.com/b", None),
    ]
    assert [one.code for one in said] == ["unknown-column"] and "colour" in said[0].message


def test_what_cannot_be_read_says_why(tmp_path: Path) -> None:
    no_loc = tmp_path / "no-loc.parquet"
    pq.write_table(pa.table({"url": ["https://example.com/"]}), no_loc)
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(b"PAR1" + b"\0" * 64)
    for path, words in ((no_loc, "without a loc column"), (cut, "not a Parquet file")):
        with pytest.raises(ReadError, match=words) as raised, feedmap.read(path) as doc:
            list(doc.entries)
        assert raised.value.code == "parquet-invalid" and raised.value.source == str(path)


def test_a_failed_write_leaves_the_earlier_file(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    out.write_bytes(b"before")

    def entries() -> Iterator[Entry]:
        for n in range(70_000):  # a row group written before the failure
            yield Entry(loc=f"https://example.com/{n}")
        raise RuntimeError("the source broke")

    with pytest.raises(RuntimeError, match="the source broke"):
        feedmap.write(entries(), out, "parquet")
    assert out.read_bytes() == b"before" and sorted(os.listdir(tmp_path)) == ["out.parquet"]


def test_an_entry_no_utf_8_column_can_hold_is_said_and_nothing_written(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    entries = [Entry(loc="https://example.com/a"), Entry(loc="https://example.com/b", title="half \ud800 a pair")]
    with pytest.raises(WriteError, match=r"'https://example.com/b': U\+D800 \(a lone surrogate\)"):
        feedmap.write(entries, out, "parquet")
    assert os.listdir(tmp_path) == []


def test_not_written_to_a_terminal(tmp_path: Path) -> None:
    primary, secondary = os.openpty()
    try:
        with open(secondary, "wb", closefd=False) as terminal, pytest.raises(WriteError, match="terminal"):
            feedmap.write([Entry(loc="https://example.com/")], terminal, "parquet")
    finally:
        os.close(primary)
        os.close(secondary)


def test_splitting_into_a_directory_is_refused_with_the_formats_that_can(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with pytest.raises(FormatError, match=r"'parquet' cannot be split into files; the formats that can: .*sitemap"):
        feedmap.split([Entry(loc="https://example.com/")], tmp_path / "out", "parquet", Options(base_url=SITE))
    argv = ["convert", SAMPLES / "sitemap" / "basic.xml", "-t", "parquet", "-o", f"{tmp_path}/dir/", "--base-url", SITE]
    code, _, err = run(capsys, *argv)
    assert code == 2 and "cannot be split" in err and not (tmp_path / "dir").exists()


def test_without_pyarrow_the_command_says_what_to_install(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    script = "import sys; from feedmap.cli import main; sys.exit(main(sys.argv[1:]))"
    result = run_without({"pyarrow"}, script, "convert", "samples/sitemap/basic.xml", "-t", "parquet", "-o", str(out))
    assert result.returncode == 2, result.stderr
    assert "pip install 'feedmap[dataframe]'" in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()
