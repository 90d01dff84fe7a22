"""``feedmap.dask.read_bag`` cuts a big JSON lines or text sitemap file into line-aligned byte ranges.

The oracle is always :func:`feedmap.read` of the whole file in this process: the entries (every field and the
origin's line), the diagnostics in their order, the error that stops reading.  The ranges are checked three
ways: the line arithmetic (where lines end in a piece of a file, which range owns which line and its number)
against the lines a regular expression splits, at every byte and at drawn cuts; the ranges read as a worker
reads them (:func:`feedmap._web.bag_parts.read_part`, replayed as the client replays them) at drawn cuts, for
files drawn from every kind of line (CR, LF and CR LF ends, a BOM, blank, bad, too long, not UTF-8 and CSV
lines, JSON lines headers, the compiled and the pure twin); then a real ``LocalCluster`` end to end
(:func:`feedmap.dask.entries`, ``write_split`` byte for byte as :func:`feedmap.split`, ``to_jsonl``), with the
hostile inputs: a file changed after it was planned, one huge line.
"""

from __future__ import annotations

import gzip
import itertools
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import dask
import distributed
import pytest
from conftest import urlset_xml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from localcluster import local_cluster
from localsite import LocalSite

import feedmap
import feedmap.dask
from feedmap import Diagnostic, Entry, FeedmapError, Options, ReadError, Reporter, SourceError
from feedmap._web.bag_parts import Part, Tallies, read_part, reraise, worker_view
from feedmap._web.bag_ranges import SPLIT_FORMATS, Head, cut, head_of, scan_block
from feedmap.formats.lines._common import line_ends

SITE = "https://e.com/"

#: What ends a line: a text sitemap's every line end; JSON lines' LF only (a CR is blank space inside a line).
_ENDS = {True: re.compile(rb"\r\n|\r|\n"), False: re.compile(rb"\n")}

Outcome = tuple[list[tuple[Entry, object]], list[Diagnostic], str | None]


@pytest.fixture(scope="module")
def client() -> Iterator[distributed.Client]:
    with local_cluster() as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture
def local() -> Iterator[None]:
    """Dask's synchronous scheduler, in this process (the scans and reads of a bag without a cluster)."""
    with dask.config.set(scheduler="sync"):
        yield


def whole(path: Path, format: str | None = None, options: Options | None = None) -> Outcome:
    """The entries (with their origins), diagnostics and error of reading ``path`` in one process."""
    said: list[Diagnostic] = []
    entries: list[tuple[Entry, object]] = []
    error = None
    try:
        with feedmap.read(str(path), format, options, on_diagnostic=said.append) as doc:
            entries.extend((entry, entry.origin) for entry in doc.entries)
    except FeedmapError as exc:
        error = f"{type(exc).__name__}: {exc}"
    return entries, said, error


def bagged(path: Path, blocksize: int, format: str | None = None, options: Options | None = None) -> Outcome:
    """The same of :func:`feedmap.dask.read_bag` in ranges of ``blocksize``, streamed by ``feedmap.dask.entries``."""
    said: list[Diagnostic] = []
    entries: list[tuple[Entry, object]] = []
    error = None
    try:
        bag = feedmap.dask.read_bag(str(path), format, options, on_diagnostic=said.append, blocksize=blocksize)
        entries.extend((entry, entry.origin) for entry in feedmap.dask.entries(bag, on_diagnostic=said.append))
    except FeedmapError as exc:
        error = f"{type(exc).__name__}: {exc}"
    return entries, said, error


def ranged(path: Path, cuts: list[int], format: str, options: Options) -> Outcome:
    """The same of reading ``path`` in the ranges of blocks cut at ``cuts`` (0 and its size among them) as a
    worker reads each (:func:`read_part`) and the client replays them (diagnostics in order, the tallies)."""
    said = Reporter(keep=1 << 30)
    entries: list[tuple[Entry, object]] = []
    error = None
    name = str(path)
    try:
        head = head_of(name, name, format, options, said, 0)
        assert head is not None
        scans = [
            scan_block(name, start, stop, head.size, head.mtime_ns, SPLIT_FORMATS[head.format])
            for start, stop in itertools.pairwise(cuts)
        ]
        tallies = Tallies(said)
        for window in cut(head, scans):
            view = worker_view(options)
            read = read_part(Part(name, format, name, path, None, (), view, 0, None, head.format, head.meta, window))
            tallies.add(read)
            for diagnostic in read.diagnostics:
                said.report(diagnostic)
            reraise(read)  # as the client does: a range that failed gives its diagnostics, then its error
            entries.extend((entry, entry.origin) for entry in read.entries())
        tallies.close()
    except FeedmapError as exc:
        error = f"{type(exc).__name__}: {exc}"
    return entries, said.diagnostics, error


# ------------------------------------------------------------------------------------------ the line arithmetic


def line_starts(data: bytes, any_newline: bool) -> list[int]:
    """Where each line of ``data`` starts, as the line readers split them (a last line end starts no line)."""
    return [0, *(match.end() for match in _ENDS[any_newline].finditer(data) if match.end() < len(data))]


def expected_ranges(data: bytes, cuts: list[int], any_newline: bool) -> list[tuple[int, int, int]]:
    """(start, stop, the line before) of each range: the lines that start in a block, by the regex's lines."""
    starts = line_starts(data, any_newline)
    owned = [
        [(number, start) for number, start in enumerate(starts) if low <= start < high]
        for low, high in itertools.pairwise(cuts)
    ]
    firsts = [lines[0] for lines in owned if lines]
    stops = [start for _, start in firsts[1:]] + [len(data)]
    return [(start, stop, number) for (number, start), stop in zip(firsts, stops, strict=True)]


_PIECES = st.lists(st.sampled_from([b"a", b"\r", b"\n", b"\r\n", b"\r\r", b"\n\r"]), max_size=30).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(_PIECES, st.booleans())
def test_line_ends_counts_and_finds_what_the_readers_split_in_any_piece(data: bytes, any_newline: bool) -> None:
    ends = [match.end() - 1 for match in _ENDS[any_newline].finditer(data)]  # each line end's last byte
    for low, high in itertools.combinations(range(len(data) + 1), 2):
        piece = data[low : high + 1]  # the byte after the piece when there is one
        inside = [end - low for end in ends if low <= end < high]
        assert line_ends(piece, high - low, any_newline=any_newline) == (len(inside), inside[0] if inside else -1)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_PIECES.filter(bool), st.booleans(), st.data())
def test_ranges_own_the_lines_that_start_in_their_blocks_and_number_them(
    tmp_path: Path, data: bytes, any_newline: bool, draw: st.DataObject
) -> None:
    path = tmp_path / "lines"
    path.write_bytes(data)
    cuts = _drawn_cuts(len(data), draw, len(data))
    status = path.stat()
    scans = [
        scan_block(str(path), start, stop, status.st_size, status.st_mtime_ns, any_newline)
        for start, stop in itertools.pairwise(cuts)
    ]
    head = _head(path, "text" if any_newline else "jsonl")
    assert [(one.start, one.stop, one.line) for one in cut(head, scans)] == expected_ranges(data, cuts, any_newline)


def _head(path: Path, format: str) -> Head:
    status = path.stat()
    return Head(format, feedmap.DocMeta(), 0, (), status.st_size, status.st_mtime_ns)


def test_every_single_cut_of_a_file_of_mixed_line_ends_reads_as_the_whole_file(tmp_path: Path) -> None:
    """Two ranges, the cut at each byte in turn: on a CR, between CR and LF, inside a line, on a BOM."""
    path = tmp_path / "mixed.txt"
    path.write_bytes(
        b"\xef\xbb\xbfhttps://e.com/a\r\nhttps://e.com/b\rnot a URL\r\r\n\nhttps://e.com/c,2024-01-01\r\n"
        b"https://e.com/caf\xe9\n  https://e.com/d  \rhttps://e.com/e"
    )
    size = path.stat().st_size
    expected = whole(path, "text")
    assert {one.code for one in expected[1]} >= {"not-utf8", "csv-line", "loc-not-absolute"}
    assert [entry.loc for entry, _ in expected[0]][:2] == [f"{SITE}a", f"{SITE}b"]  # the BOM taken off
    for at in range(1, size):
        assert ranged(path, [0, at, size], "text", Options()) == expected, at


# ------------------------------------------------------------------------------------------ drawn files, drawn cuts

_TEXT_LINES = [
    b"https://e.com/a",
    b"https://e.com/b?q=1#f",
    b"  https://e.com/blank  ",
    b"not a URL",
    b"",
    b"https://e.com/c,2024-01-01",  # CSV: csv-input before any URL, csv-line after
    b"https://e.com/caf\xe9",  # not UTF-8
    b"https://e.com/" + b"x" * 40,  # longer than max_line_bytes below
    b"/relative",
]
_JSON_LINES = [
    b'{"loc":"https://e.com/a"}',
    b'{"loc":"https://e.com/b","lastmod":"2024-01-01","priority":0.5}',
    b'{"loc":"https://e.com/c","title":"t","changefreq":"Daily"}',  # the long way
    b'{"title":"T","link":"https://e.com/"}',  # a header when it is the first object, else loc-missing
    b'{"title":"T","zz":1}',  # a header with an unknown key
    b'{"loc":"https://e.com/\\u00e9"}',
    b"not json",
    b"[1]",
    b"",
    b"   ",
    b'{"loc":"https://e.com/caf\xe9"}',  # not UTF-8
    b'{"loc":"https://e.com/' + b"x" * 40 + b'"}',  # longer than max_line_bytes below
    b'{"loc":"https://e.com/cr"}\r',  # a CR before the LF: blank space to JSON
    b'{"loc":"https://e.com/d"}\r{"loc":"https://e.com/e"}',  # a lone CR ends no JSON line
]


def drawn_file(format: str) -> st.SearchStrategy[bytes]:
    lines = st.lists(st.sampled_from(_TEXT_LINES if format == "text" else _JSON_LINES), min_size=1, max_size=12)
    ends = st.sampled_from([b"\n", b"\r\n", b"\r"] if format == "text" else [b"\n", b"\r\n"])
    return (
        st.tuples(st.booleans(), lines, st.lists(ends, min_size=12, max_size=12), st.booleans())
        .map(
            lambda drawn: (
                (b"\xef\xbb\xbf" if drawn[0] else b"")
                + b"".join(line + end for line, end in zip(drawn[1], drawn[2], strict=False))[
                    : None
                    if drawn[3]
                    else -1  # without a final line end (or a CR LF cut to its CR)
                ]
            )
        )
        .filter(bool)
    )


def _drawn_cuts(size: int, draw: st.DataObject, most: int = 6) -> list[int]:
    """0, at most ``most`` cuts inside ``size`` bytes, and ``size``."""
    inner = draw.draw(st.sets(st.integers(1, size - 1), max_size=most) if size > 1 else st.just(set()))
    return [0, *sorted(inner), size]


_SMALL_LINES = Options(max_line_bytes=40)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn_file("text"), st.data())
def test_a_text_sitemap_read_in_ranges_is_the_whole_file(tmp_path: Path, data: bytes, draw: st.DataObject) -> None:
    path = tmp_path / "drawn.txt"
    path.write_bytes(data)
    assert ranged(path, _drawn_cuts(len(data), draw), "text", _SMALL_LINES) == whole(path, "text", _SMALL_LINES)


@pytest.mark.parametrize("pure", ["0", "1"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=drawn_file("jsonl"), draw=st.data())
def test_a_jsonl_file_read_in_ranges_is_the_whole_file_with_either_twin(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, pure: str, data: bytes, draw: st.DataObject
) -> None:
    monkeypatch.setenv("FEEDMAP_PURE", pure)  # "1": the pure twin of the common line; "0": the compiled one where built
    path = tmp_path / "drawn.jsonl"
    path.write_bytes(data)
    assert ranged(path, _drawn_cuts(len(data), draw), "jsonl", _SMALL_LINES) == whole(path, "jsonl", _SMALL_LINES)


def test_a_csv_row_stops_reading_only_before_the_first_url_whichever_range_holds_it(
    tmp_path: Path, local: None
) -> None:
    """The one state a text line leaves to the lines after it: a CSV row before any URL is a CSV file
    (``csv-input``, reading stops), after one a ``csv-line`` warning; the URL may be ranges before the row."""
    bad = b"not a URL\n" * 30
    for name, data, code in [
        # a header naming no loc (or url) column: with one, the file is the csv format's, read whole
        ("csv.txt", b"date,page\n" + bad + b"https://e.com/a,2024-01-01\nhttps://e.com/b,2024-01-02\n", "csv-input"),
        ("late.txt", b"https://e.com/first\n" + bad + b"https://e.com/a,2024-01-01\nhttps://e.com/b\n", "csv-line"),
    ]:
        path = tmp_path / name
        path.write_bytes(data)
        expected = whole(path)
        assert (code == "csv-input") == (expected[2] is not None and "CSV" in expected[2])
        for blocksize in (7, 31, 64, 200):
            assert bagged(path, blocksize) == expected, (name, blocksize)


def test_the_url_cap_of_a_text_sitemap_is_counted_over_its_ranges_and_said_once_at_its_end(
    tmp_path: Path, local: None
) -> None:
    path = tmp_path / "many.txt"
    path.write_bytes(b"".join(b"https://e.com/%d\n" % n for n in range(50_001)))
    expected = whole(path)
    assert [one.code for one in expected[1]] == ["too-many-entries"]
    got = bagged(path, 200_000)
    assert got == expected


def test_an_invalid_jsonl_header_in_a_later_range_is_the_error_of_planning_after_the_lines_before_it(
    tmp_path: Path, local: None
) -> None:
    path = tmp_path / "header.jsonl"
    path.write_bytes(b"\n" * 40 + b"not json\n" + b'{"kind":"nope"}\n' + b'{"loc":"https://e.com/a"}\n' * 20)
    expected = whole(path)
    assert expected[2] is not None and "invalid header line" in expected[2] and expected[1]
    assert bagged(path, 16) == expected


def test_a_jsonl_header_after_blank_and_bad_lines_is_the_bags_metadata_and_written_as_split_writes_it(
    tmp_path: Path, local: None
) -> None:
    path = tmp_path / "late-header.jsonl"
    lines = [b"", b"bad", b'{"kind":"urlset","title":"News","zz":1}']
    lines += [b'{"loc":"https://e.com/%d","lastmod":"2024-01-%02d"}' % (n, n % 28 + 1) for n in range(60)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert bagged(path, 50) == whole(path)
    bag = feedmap.dask.read_bag(str(path), blocksize=50)
    assert bag.npartitions > 20
    feedmap.dask.write_split(bag, tmp_path / "bag", SITE, "rss", Options(max_urls=25))
    with feedmap.read(str(path)) as doc:
        feedmap.split(doc, tmp_path / "one", "rss", Options(base_url=SITE, max_urls=25))
    assert len(_files(tmp_path / "one")) >= 3 and _files(tmp_path / "bag") == _files(tmp_path / "one")
    assert all(b"<title>News</title>" in data for name, data in _files(tmp_path / "bag").items() if "index" not in name)


def test_what_is_not_cut_is_one_partition_and_blocksize_is_checked(tmp_path: Path, local: None) -> None:
    data = b"".join(b"https://e.com/%d\n" % n for n in range(200))
    (tmp_path / "big.txt").write_bytes(data)
    (tmp_path / "big.txt.gz").write_bytes(gzip.compress(data))
    assert (tmp_path / "big.txt.gz").stat().st_size > 64  # larger than its block: cut but for its gzip
    (tmp_path / "big.xml").write_bytes(urlset_xml(*(f"{SITE}{n}" for n in range(200))))
    cut_up = feedmap.dask.read_bag(str(tmp_path / "big.txt"), blocksize=512)
    assert cut_up.npartitions == -(-len(data) // 512)  # every block holds a line start here
    expected = list(feedmap.dask.entries(cut_up))
    assert len(expected) == 200
    with LocalSite() as served:
        url = served.add("/big.txt", data)
        for source, blocksize in [
            (str(tmp_path / "big.txt.gz"), 64),  # gzip: its bytes are not the lines'
            (str(tmp_path / "big.xml"), 64),  # another format
            (url, 64),  # on the web
            (str(tmp_path / "big.txt"), len(data)),  # not larger than a block
            (str(tmp_path / "big.txt"), 0),
            (str(tmp_path / "big.txt"), None),
        ]:
            bag = feedmap.dask.read_bag(source, blocksize=blocksize)
            assert bag.npartitions == 1, source
            assert list(feedmap.dask.entries(bag)) == expected, source
    assert feedmap.dask.read_bag(str(tmp_path / "big.txt"), blocksize="1K").npartitions == -(-len(data) // 1024)
    for wrong in (-1, 1.5, "lots", True):
        with pytest.raises(ValueError, match="blocksize"):
            feedmap.dask.read_bag(str(tmp_path / "big.txt"), blocksize=wrong)  # type: ignore[arg-type]


def test_an_input_read_whole_says_the_diagnostics_of_its_first_lines_once(tmp_path: Path, local: None) -> None:
    """The client opens each input to see whether it is an index; what opening another input says is said by
    the worker that reads it, not twice."""
    path = tmp_path / "small.jsonl"
    path.write_bytes(b'not json\n{"title":"T","zz":1}\n{"loc":"https://e.com/a"}\n')
    expected = whole(path)
    assert [one.code for one in expected[1]] == ["invalid-json", "unknown-key"]
    assert bagged(path, 0) == expected


def test_the_diagnostics_of_recognising_the_format_come_first_once(tmp_path: Path) -> None:
    """A format plugin whose ``accept`` fails is reported by recognising the format, which the client does once
    for a file it cuts: the first range says it, before its lines' diagnostics (a fresh interpreter: the
    plugin stays out of this one's registry)."""
    (tmp_path / "urls.txt").write_bytes(b"not a URL\nhttps://e.com/a\n" * 20)
    script = textwrap.dedent(
        """
        import dask, feedmap, feedmap.dask
        from feedmap.formats import FormatSpec, register
        register(FormatSpec(name="buggy", title="b", reader=lambda source, *, ctx: None, accept=lambda head: 1 / 0))
        said, one = [], []
        with feedmap.read("urls.txt", on_diagnostic=one.append) as doc:
            entries = [(entry, entry.origin) for entry in doc.entries]
        with dask.config.set(scheduler="sync"):
            bag = feedmap.dask.read_bag("urls.txt", on_diagnostic=said.append, blocksize=64)
            got = [(entry, entry.origin) for entry in feedmap.dask.entries(bag, on_diagnostic=said.append)]
        print(bag.npartitions > 5, got == entries, said == one)
        print(*(one.code for one in said[:2]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["True True True", "format-accept-failed loc-not-absolute"]


# ------------------------------------------------------------------------------------------ on a cluster


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def _mixed_text(count: int) -> bytes:
    ends = itertools.cycle([b"\n", b"\r\n", b"\r"])
    lines = []
    for n in range(count):
        line = f"https://e.com/{n}".encode()
        if n % 17 == 5:
            line = b"not a URL"
        elif n % 23 == 7:
            line = b"https://e.com/caf\xe9"
        elif n % 29 == 11:
            line = b"https://e.com/%d,2024-01-01" % n
        lines.append(line + next(ends))
    return b"\xef\xbb\xbf" + b"".join(lines)


def test_a_cut_text_sitemap_on_a_cluster_reads_writes_and_splits_as_the_whole_file(
    client: distributed.Client, tmp_path: Path
) -> None:
    path = tmp_path / "urls.txt"
    path.write_bytes(_mixed_text(400))
    expected = whole(path)
    bag = feedmap.dask.read_bag(str(path), blocksize=512)
    assert bag.npartitions >= 10
    assert bagged(path, 512) == expected
    feedmap.dask.write_split(bag, tmp_path / "bag", SITE, options=Options(max_urls=100))
    with feedmap.read(str(path)) as doc:
        feedmap.split(doc, tmp_path / "one", options=Options(base_url=SITE, max_urls=100))
    assert len(_files(tmp_path / "one")) == 5 and _files(tmp_path / "bag") == _files(tmp_path / "one")
    written = feedmap.dask.to_jsonl(bag, tmp_path / "parts")
    assert len(written) == bag.npartitions
    read_back: list[Entry] = []
    for one in written:
        with feedmap.read(one, "jsonl") as doc:
            read_back.extend(doc.entries)
    assert read_back == [entry for entry, _ in expected[0]]


def _set_env(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


@pytest.mark.parametrize("pure", [None, "1"])
def test_a_cut_jsonl_file_on_a_cluster_is_the_whole_file_with_either_twin(
    client: distributed.Client, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, pure: str | None
) -> None:
    lines = [b'{"title":"T"}', b"not json", b""]
    for n in range(300):
        lines.append(b'{"loc":"https://e.com/%d","lastmod":"2024-02-%02d","priority":0.5}' % (n, n % 28 + 1))
        if n % 31 == 3:
            lines.append(b'{"loc":"https://e.com/%d","changefreq":"Weekly","extras":{"a":"b"}}' % n)
        if n % 37 == 4:
            lines.append(b'{"nol":1}\r')
    path = tmp_path / "entries.jsonl"
    path.write_bytes(b"\n".join(lines))  # no final line end
    monkeypatch.delenv("FEEDMAP_PURE", raising=False)
    if pure is not None:
        monkeypatch.setenv("FEEDMAP_PURE", pure)
    client.run(_set_env, "FEEDMAP_PURE", pure)
    try:
        expected = whole(path)
        assert {one.code for one in expected[1]} == {"invalid-json", "loc-missing", "changefreq-case"}
        assert bagged(path, 700) == expected
    finally:
        client.run(_set_env, "FEEDMAP_PURE", None)


def test_a_file_changed_after_it_was_planned_is_an_error_naming_it_and_nothing_is_written(
    client: distributed.Client, tmp_path: Path
) -> None:
    path = tmp_path / "urls.txt"
    data = b"".join(b"https://e.com/%d\n" % n for n in range(300))
    for change in ("grown", "rewritten"):
        path.write_bytes(data)
        bag = feedmap.dask.read_bag(str(path), blocksize=1024)
        if change == "grown":
            with path.open("ab") as file:
                file.write(b"https://e.com/more\n")
        else:  # the same size, other bytes, a later time
            path.write_bytes(data.replace(b"e.com", b"x.org"))
            os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
        with pytest.raises(SourceError, match=re.escape(f"{path}: the file changed after read_bag planned")):
            feedmap.dask.write_split(bag, tmp_path / change, SITE)
        assert not (tmp_path / change).exists() or not os.listdir(tmp_path / change)


def test_one_huge_line_across_many_blocks_makes_no_empty_ranges(client: distributed.Client, tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    path.write_bytes(b"https://e.com/a\r\nhttps://e.com/" + b"x" * 300_000 + b"\rhttps://e.com/b\r\n")
    options = Options(max_line_bytes=100_000)
    expected = whole(path, options=options)
    assert [(one.code, one.line) for one in expected[1]] == [("line-too-long", 2)]
    bag = feedmap.dask.read_bag(str(path), options=options, blocksize=4096)
    assert bag.npartitions == 2  # the lines that start in the first block, and the one after the huge line
    assert bagged(path, 4096, options=options) == expected


def test_reading_stops_at_a_read_error_in_a_range_as_the_whole_file_stops(
    client: distributed.Client, tmp_path: Path
) -> None:
    path = tmp_path / "table.txt"
    # a header naming no loc (nor url) column: not a CSV input (issue 21), lines of comma-separated values refused
    path.write_bytes(b"page,lastmod\n" + b"".join(b"https://e.com/%d,2024-01-01\n" % n for n in range(100)))
    expected = whole(path)
    assert expected[2] is not None and expected[2].startswith("ReadError") and not expected[0]
    assert bagged(path, 256) == expected
    with pytest.raises(ReadError, match="CSV file"):
        feedmap.dask.write_split(feedmap.dask.read_bag(str(path), blocksize=256), tmp_path / "out", SITE)
