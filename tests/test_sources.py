"""feedmap._io.sources: opening inputs (paths, '-', file objects), gzip by magic bytes, the size cap, and
atomic output through open_sink.

RFC 1952: a gzip member starts with the bytes 1f 8b and ends with CRC32 and ISIZE; a file may hold
several members.  sitemaps.org: the size limit applies to the uncompressed bytes.
"""

from __future__ import annotations

import gzip
import io
import os
import struct
import sys
import zlib
from pathlib import Path

import pytest
from localsite import LocalSite

import feedmap
from feedmap import FetchError, HttpSettings, LimitError, Reporter, SourceError
from feedmap._io.sources import open_sink, open_source

NS = b"http://www.sitemaps.org/schemas/sitemap/0.9"


def sitemap(count: int) -> bytes:
    urls = b"".join(b"<url><loc>http://e.com/page/%d</loc></url>\n" % i for i in range(count))
    return b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="' + NS + b'">\n' + urls + b"</urlset>\n"


def locs(count: int) -> list[str]:
    return [f"http://e.com/page/{i}" for i in range(count)]


PAYLOAD = b"".join(b"line %d of a plain payload\n" % i for i in range(20_000))  # ~560 KB, many chunks


class CountingReader(io.RawIOBase):
    """A binary file over bytes that counts how many bytes were taken from it."""

    def __init__(self, data: bytes) -> None:
        super().__init__()
        self._data = io.BytesIO(data)
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self._data.read(len(buffer))
        buffer[: len(data)] = data
        self.consumed += len(data)
        return len(data)


def open_and_read(source: object, *, max_bytes: int = 1 << 30, chunk: int = 65536) -> tuple[bytes, list[str], bool]:
    """(decompressed bytes, diagnostic codes, compressed?) of reading ``source`` in ``chunk``-byte reads."""
    reporter = Reporter()
    with open_source(source, reporter=reporter, max_bytes=max_bytes) as opened:  # type: ignore[arg-type]
        parts = []
        while data := opened.stream.read(chunk):
            parts.append(data)
        compressed = opened.compressed
    return b"".join(parts), [d.code for d in reporter.diagnostics], compressed


def read_entries(source: object, **options: object) -> tuple[list[str], list[str]]:
    """(locs, diagnostic codes) of feedmap.read(source)."""
    with feedmap.read(source, options=feedmap.Options(**options)) as doc:  # type: ignore[arg-type]
        found = [e.loc for e in doc.entries]
    return found, [d.code for d in doc.diagnostics]


def zero_bomb(mebibytes: int) -> bytes:
    """One gzip member inflating to ``mebibytes`` MiB of zeros, built without compressing them all: after a
    full flush deflate restarts from an empty window, so every further MiB compresses to the same bytes."""
    block = bytes(1 << 20)
    deflater = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = deflater.compress(block) + deflater.flush(zlib.Z_FULL_FLUSH)
    repeat = deflater.compress(block) + deflater.flush(zlib.Z_FULL_FLUSH)
    end = deflater.flush()[:-8]  # the final empty block, without the (two-MiB) trailer
    crc = 0
    for _ in range(mebibytes):
        crc = zlib.crc32(block, crc)
    return first + repeat * (mebibytes - 1) + end + struct.pack("<II", crc, (mebibytes << 20) & 0xFFFFFFFF)


def test_zero_bomb_helper_is_a_valid_gzip() -> None:
    # checked on a small one: the same construction, inflated completely
    small = zero_bomb(3)
    assert gzip.decompress(small) == bytes(3 << 20)


# ---------------------------------------------------------------------------------- gzip recognition


def test_plain_input_is_passed_through() -> None:
    data, diagnostics, compressed = open_and_read(io.BytesIO(PAYLOAD))
    assert (data, diagnostics, compressed) == (PAYLOAD, [], False)


def test_gzip_is_recognised_by_magic_bytes() -> None:
    data, diagnostics, compressed = open_and_read(io.BytesIO(gzip.compress(PAYLOAD)))
    assert (data, diagnostics, compressed) == (PAYLOAD, [], True)


def test_gzipped_file_named_xml_is_decompressed(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_bytes(gzip.compress(sitemap(3)))
    assert read_entries(path) == (locs(3), [])
    assert read_entries(str(path)) == (locs(3), [])


def test_plain_file_named_gz_is_read_as_is(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml.gz"
    path.write_bytes(sitemap(3))
    assert read_entries(path) == (locs(3), [])
    data, diagnostics, compressed = open_and_read(path)
    assert (data, diagnostics, compressed) == (sitemap(3), [], False)


def test_multi_member_gzip_is_read_to_the_end() -> None:
    members = gzip.compress(PAYLOAD[:1000]) + gzip.compress(b"") + gzip.compress(PAYLOAD[1000:])
    data, diagnostics, _ = open_and_read(io.BytesIO(members))
    assert data == PAYLOAD
    assert diagnostics == []


def test_multi_member_gzipped_sitemap(tmp_path: Path) -> None:
    document = sitemap(500)
    path = tmp_path / "s.xml.gz"
    path.write_bytes(b"".join(gzip.compress(document[i : i + 999]) for i in range(0, len(document), 999)))
    assert read_entries(path) == (locs(500), [])


def test_zero_padding_after_gzip_is_ignored() -> None:
    data, diagnostics, _ = open_and_read(io.BytesIO(gzip.compress(PAYLOAD) + bytes(1024)))
    assert (data, diagnostics) == (PAYLOAD, [])


@pytest.mark.parametrize("keep", [0.99, 0.5, 0.1])
def test_truncated_gzip_keeps_the_decompressed_prefix(keep: float) -> None:
    compressed = gzip.compress(PAYLOAD)
    data, diagnostics, _ = open_and_read(io.BytesIO(compressed[: int(len(compressed) * keep)]))
    assert PAYLOAD.startswith(data)
    assert len(data) > len(PAYLOAD) * keep / 2  # a real part of the payload, not nothing
    assert diagnostics == ["truncated-gzip"]


@pytest.mark.parametrize("missing", [1, 4, 8])
def test_gzip_missing_its_trailer_is_truncated(missing: int) -> None:
    data, diagnostics, _ = open_and_read(io.BytesIO(gzip.compress(PAYLOAD)[:-missing]))
    assert data == PAYLOAD
    assert diagnostics == ["truncated-gzip"]


@pytest.mark.parametrize("cut", [2, 5, 10])
def test_gzip_cut_inside_its_header_is_truncated(cut: int) -> None:
    data, diagnostics, _ = open_and_read(io.BytesIO(gzip.compress(PAYLOAD)[:cut]))
    assert data == b""
    assert diagnostics == ["truncated-gzip"]


def test_truncated_gzipped_sitemap_keeps_the_entries_before_the_cut(tmp_path: Path) -> None:
    document = sitemap(2000)
    compressed = gzip.compress(document)
    path = tmp_path / "cut.xml.gz"
    path.write_bytes(compressed[: len(compressed) * 2 // 3])
    found, diagnostics = read_entries(path)
    assert 0 < len(found) < 2000
    assert found == locs(len(found))
    assert "truncated-gzip" in diagnostics
    assert "xml-not-well-formed" in diagnostics


@pytest.mark.parametrize("position", [-8, -6, -5, -4, -1])  # CRC32 is bytes -8..-5, ISIZE -4..-1
def test_corrupt_gzip_trailer_is_reported(position: int) -> None:
    damaged = bytearray(gzip.compress(PAYLOAD))
    damaged[position] ^= 0xFF
    data, diagnostics, _ = open_and_read(io.BytesIO(bytes(damaged)))
    assert data == PAYLOAD  # everything inflated is used, as the message says; the last chunk too
    assert diagnostics == ["corrupt-gzip"]


@pytest.mark.parametrize("garbage", [b"not gzip", b"x", b"\0\0\0junk", b"\x1f"])
def test_garbage_after_gzip_is_corrupt(garbage: bytes) -> None:
    data, diagnostics, _ = open_and_read(io.BytesIO(gzip.compress(PAYLOAD) + garbage))
    assert data == PAYLOAD
    assert diagnostics == ["corrupt-gzip"]


def damaged_gzip(data: bytes, damage: str) -> bytes:
    compressed = bytearray(gzip.compress(data))
    if damage == "crc":
        compressed[-8] ^= 0xFF
    elif damage == "isize":
        compressed[-1] ^= 0xFF
    else:
        compressed += b"trailing garbage"
    return bytes(compressed)


@pytest.mark.parametrize("damage", ["crc", "isize", "garbage"])
def test_damage_after_the_data_keeps_every_entry(tmp_path: Path, damage: str) -> None:
    # the last 64 KiB inflated were dropped: a 20,000-URL file kept 18,760
    path = tmp_path / "sitemap.xml.gz"
    path.write_bytes(damaged_gzip(sitemap(20_000), damage))
    found, diagnostics = read_entries(path)
    assert found == locs(20_000)
    assert diagnostics == ["corrupt-gzip"]


def test_damage_after_the_data_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from feedmap.cli import main

    path = tmp_path / "sitemap.xml.gz"
    path.write_bytes(damaged_gzip(sitemap(20_000), "crc"))
    assert main(["convert", str(path), "-t", "text"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == locs(20_000)
    assert "warning[corrupt-gzip]" in captured.err


def gzip_header(flags: int = 0, extra: bytes = b"", name: bytes = b"", comment: bytes = b"") -> bytes:
    """A member header (RFC 1952 2.3.1) with the optional fields ``flags`` names."""
    header = b"\x1f\x8b\x08" + bytes([flags]) + bytes(6)
    if flags & 4:
        header += struct.pack("<H", len(extra)) + extra
    if flags & 8:
        header += name + b"\0"
    if flags & 16:
        header += comment + b"\0"
    if flags & 2:
        header += struct.pack("<H", zlib.crc32(header) & 0xFFFF)
    return header


def member(data: bytes, header: bytes) -> bytes:
    deflater = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflater.compress(data) + deflater.flush()
    return header + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def test_optional_header_fields_are_skipped() -> None:
    header = gzip_header(2 | 4 | 8 | 16, extra=b"AB\x02\x00hi", name=b"sitemap.xml", comment=b"made by hand")
    raw = member(PAYLOAD[:5000], header) + member(PAYLOAD[5000:], gzip_header(8, name=b"part2"))
    assert gzip.decompress(raw) == PAYLOAD  # what the standard library makes of it
    data, diagnostics, _ = open_and_read(io.BytesIO(raw))
    assert (data, diagnostics) == (PAYLOAD, [])


def test_a_header_field_that_never_ends_stops_at_the_cap() -> None:
    reader = CountingReader(gzip_header(8, name=b"n" * (8 << 20))[:-1])  # a file name of 8 MiB and no NUL
    with pytest.raises(LimitError) as caught:
        open_and_read(reader, max_bytes=1 << 20)
    assert caught.value.code == "too-large"
    assert reader.consumed < 2 << 20


@pytest.mark.parametrize("cut", [3, 10, 12], ids=["magic", "fixed-part", "file-name"])
def test_a_second_member_cut_inside_its_header_is_truncated(cut: int) -> None:
    second = gzip_header(8, name=b"second.xml") + b"..."
    data, diagnostics, _ = open_and_read(io.BytesIO(gzip.compress(PAYLOAD) + second[:cut]))
    assert (data, diagnostics) == (PAYLOAD, ["truncated-gzip"])


def test_unknown_compression_method_is_corrupt() -> None:
    data, diagnostics, _ = open_and_read(io.BytesIO(b"\x1f\x8b\x07\x00" + bytes(6) + b"whatever"))
    assert (data, diagnostics) == (b"", ["corrupt-gzip"])


def test_zero_padding_between_members_is_skipped() -> None:
    raw = gzip.compress(PAYLOAD[:1000]) + bytes(5000) + gzip.compress(PAYLOAD[1000:]) + bytes(10)
    assert gzip.decompress(raw) == PAYLOAD  # the standard library allows it too
    data, diagnostics, _ = open_and_read(io.BytesIO(raw))
    assert (data, diagnostics) == (PAYLOAD, [])


def write_padded(path: Path, compressed: bytes, padding: int) -> None:
    """``compressed`` and then ``padding`` NUL bytes, written a MiB at a time."""
    block = bytes(1 << 20)
    with path.open("wb") as file:
        file.write(compressed)
        for _ in range(padding >> 20):
            file.write(block)
        file.write(bytes(padding & ((1 << 20) - 1)))


def test_64_mib_of_zero_padding_is_read_without_recursion(tmp_path: Path) -> None:
    # the padding was skipped by one recursive call per 64 KiB: RecursionError from 64 MiB on
    path = tmp_path / "padded.xml.gz"
    write_padded(path, gzip.compress(sitemap(3)), (64 << 20) + 12345)
    found, diagnostics = read_entries(path, max_bytes=1 << 30)
    assert (found, diagnostics) == (locs(3), [])


def test_zero_padding_counts_against_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "padded.xml.gz"
    write_padded(path, gzip.compress(PAYLOAD), 8 << 20)
    with pytest.raises(LimitError) as caught:
        open_and_read(path, max_bytes=len(PAYLOAD) + (1 << 20))
    assert caught.value.code == "too-large"
    assert "padding" in str(caught.value)
    # all of it fits (the member's 10-byte header and 8-byte trailer count as well)
    data, diagnostics, _ = open_and_read(path, max_bytes=len(PAYLOAD) + (8 << 20) + 18)
    assert (data, diagnostics) == (PAYLOAD, [])


def test_zero_padding_stops_being_read_at_the_cap() -> None:
    reader = CountingReader(gzip.compress(PAYLOAD) + bytes(16 << 20))
    with pytest.raises(LimitError):
        open_and_read(reader, max_bytes=len(PAYLOAD) + (1 << 20))
    assert reader.consumed < len(PAYLOAD) + (2 << 20)


def test_zero_padding_too_large_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from feedmap.cli import main

    path = tmp_path / "padded.xml.gz"
    write_padded(path, gzip.compress(sitemap(3)), 3 << 20)
    assert main(["convert", str(path), "-t", "text", "--max-bytes", str(1 << 20)]) == 1
    captured = capsys.readouterr()
    assert "too-large" in captured.err or "larger than" in captured.err
    assert "Traceback" not in captured.err


def test_corpus_truncated_gzip_files(corpus_dir: Path) -> None:
    folder = corpus_dir / "scrapy-compressed"
    names = ["truncated-crc-error.gz", "truncated-crc-error-short.gz", "unexpected-eof.gz"]
    if not all((folder / name).is_file() for name in names):
        pytest.skip(f"{folder} does not hold the scrapy truncated gzip samples")
    for name in names:
        raw = (folder / name).read_bytes()
        inflater = zlib.decompressobj(31)
        most = inflater.decompress(raw)  # what zlib itself can recover
        data, diagnostics, compressed = open_and_read(folder / name)
        assert compressed, name
        assert data == most, name
        assert diagnostics == ["truncated-gzip"], name


# -------------------------------------------------------------------------------------------- size cap


def test_plain_input_at_the_cap_is_read() -> None:
    data, diagnostics, _ = open_and_read(io.BytesIO(PAYLOAD), max_bytes=len(PAYLOAD))
    assert (data, diagnostics) == (PAYLOAD, [])


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_input_over_the_cap_raises_limit_error(compress: bool) -> None:
    raw = gzip.compress(PAYLOAD) if compress else PAYLOAD
    with pytest.raises(LimitError) as caught:
        open_and_read(io.BytesIO(raw), max_bytes=len(PAYLOAD) - 1)
    assert caught.value.code == "too-large"
    assert isinstance(caught.value, ValueError)


def test_the_cap_counts_decompressed_bytes() -> None:
    compressed = gzip.compress(PAYLOAD)
    assert len(compressed) < 100_000 < len(PAYLOAD)
    with pytest.raises(LimitError):
        open_and_read(io.BytesIO(compressed), max_bytes=100_000)


def test_read_caps_the_size() -> None:
    # a file object (a local regular file given by its path is read whole: tests/test_local_cap.py)
    with pytest.raises(LimitError) as caught:
        read_entries(io.BytesIO(sitemap(5000)), max_bytes=64 * 1024)
    assert caught.value.code == "too-large"


def test_gzip_bomb_stops_at_the_cap_without_reading_it_all() -> None:
    bomb = zero_bomb(200)
    reader = CountingReader(bomb)
    cap = 1 << 20
    with pytest.raises(LimitError) as caught:
        open_and_read(reader, max_bytes=cap)
    assert caught.value.code == "too-large"
    # 200 MiB of zeros compress to about 200 KB; stopping at 1 MiB needs only the first compressed chunk
    assert reader.consumed < len(bomb) // 2


def test_gzip_bomb_in_a_sitemap_stops_reading(tmp_path: Path) -> None:
    head = sitemap(3).removesuffix(b"</urlset>\n")
    deflater = zlib.compressobj(9, zlib.DEFLATED, 31)
    spaces = b" " * (1 << 20)
    body = [deflater.compress(head)] + [deflater.compress(spaces) for _ in range(8)] + [deflater.flush()]
    path = tmp_path / "bomb.xml.gz"
    path.write_bytes(b"".join(body))
    found: list[str] = []
    with pytest.raises(LimitError), feedmap.read(path, options=feedmap.Options(max_bytes=1 << 20)) as doc:
        for entry in doc.entries:
            found.append(entry.loc)
    assert found == locs(3)


def test_corpus_gzip_bomb(corpus_dir: Path) -> None:
    path = corpus_dir / "scrapy-compressed" / "bomb-gzip.bin"
    if not path.is_file():
        pytest.skip(f"{path} is not in the corpus")
    with pytest.raises(LimitError) as caught:
        open_and_read(path, max_bytes=1 << 20)
    assert caught.value.code == "too-large"


# ---------------------------------------------------------------------------------------- stream reads


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_read_without_size_returns_everything(compress: bool) -> None:
    raw = gzip.compress(PAYLOAD) if compress else PAYLOAD
    reporter = Reporter()
    with open_source(io.BytesIO(raw), reporter=reporter) as opened:
        opened.stream.peek(10)
        assert opened.stream.read() == PAYLOAD
        assert opened.stream.read() == b""


def test_peek_does_not_consume() -> None:
    with open_source(io.BytesIO(gzip.compress(PAYLOAD)), reporter=Reporter()) as opened:
        head = opened.stream.peek(100_000)
        assert head == PAYLOAD[:100_000]
        assert opened.stream.read(10) == PAYLOAD[:10]


# ------------------------------------------------------------------------------------ stdin and paths


def _fake_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_dash_reads_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_stdin(monkeypatch, sitemap(4))
    with feedmap.read("-") as doc:
        found = [e.loc for e in doc.entries]
        origins = {e.origin.source for e in doc.entries if e.origin}
    assert found == locs(4)
    assert origins <= {"<stdin>"}


def test_dash_reads_gzipped_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_stdin(monkeypatch, gzip.compress(sitemap(4)))
    assert read_entries("-") == (locs(4), [])


def test_dash_is_named_stdin_in_diagnostics(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_stdin(monkeypatch, b"http://e.com/a\nnot a url\n")
    with feedmap.read("-") as doc:
        list(doc.entries)
    assert [(d.code, d.source, d.line) for d in doc.diagnostics] == [("loc-not-absolute", "<stdin>", 2)]


def test_stdin_is_not_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_stdin(monkeypatch, sitemap(1))
    read_entries("-")
    assert not sys.stdin.buffer.closed


def test_missing_file_is_a_source_error(tmp_path: Path) -> None:
    path = tmp_path / "nope.xml"
    with pytest.raises(SourceError) as caught:
        feedmap.read(path)
    assert isinstance(caught.value, OSError)
    assert str(path) in str(caught.value)


def test_directory_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError):
        feedmap.read(tmp_path)


def test_http_url_that_cannot_be_fetched_is_a_source_error(refused_port: int) -> None:
    url = f"http://127.0.0.1:{refused_port}/sitemap.xml"
    with pytest.raises(SourceError) as caught:
        feedmap.read(url, options=feedmap.Options(http=HttpSettings(retries=0)))
    assert isinstance(caught.value, FetchError)
    assert (caught.value.code, caught.value.url) == ("fetch-failed", url)


def test_http_url_that_answers_404_is_a_source_error(web: LocalSite) -> None:
    with pytest.raises(SourceError) as caught:
        feedmap.read(web.url("/missing.xml"), options=feedmap.Options(http=HttpSettings(retries=0)))
    assert isinstance(caught.value, FetchError)
    assert (caught.value.code, caught.value.status) == ("http-404", 404)


def test_file_object_is_not_closed_by_reading() -> None:
    stream = io.BytesIO(sitemap(2))
    assert read_entries(stream) == (locs(2), [])
    assert not stream.closed


# ------------------------------------------------------------------------------------------- open_sink


def _leftovers(folder: Path, keep: set[str]) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name not in keep)


def test_open_sink_renames_into_place(tmp_path: Path) -> None:
    target = tmp_path / "out.xml"
    with open_sink(target) as out:
        out.write(b"first part, ")
        assert not target.exists()  # nothing at the target until the whole document is written
        out.write(b"second part")
    assert target.read_bytes() == b"first part, second part"
    assert _leftovers(tmp_path, {"out.xml"}) == []


def test_open_sink_replaces_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "out.xml"
    target.write_bytes(b"old")
    with open_sink(str(target)) as out:
        out.write(b"new")
    assert target.read_bytes() == b"new"
    assert _leftovers(tmp_path, {"out.xml"}) == []


def test_open_sink_failure_leaves_the_existing_file_untouched(tmp_path: Path) -> None:
    target = tmp_path / "out.xml"
    target.write_bytes(b"earlier output")
    with pytest.raises(RuntimeError, match="boom"), open_sink(target) as out:
        out.write(b"half a docu")
        raise RuntimeError("boom")
    assert target.read_bytes() == b"earlier output"
    assert _leftovers(tmp_path, {"out.xml"}) == []


def test_open_sink_failure_creates_nothing(tmp_path: Path) -> None:
    target = tmp_path / "out.xml"
    with pytest.raises(KeyboardInterrupt), open_sink(target) as out:
        out.write(b"partial")
        raise KeyboardInterrupt
    assert _leftovers(tmp_path, set()) == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_open_sink_keeps_the_mode_of_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "out.xml"
    target.write_bytes(b"old")
    target.chmod(0o640)
    with open_sink(target) as out:
        out.write(b"new")
    assert target.stat().st_mode & 0o777 == 0o640


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_open_sink_new_file_gets_the_usual_mode(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        with open_sink(tmp_path / "new.xml") as out:
            out.write(b"x")
    finally:
        os.umask(umask)
    assert (tmp_path / "new.xml").stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600


def test_open_sink_missing_directory_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError), open_sink(tmp_path / "no" / "such" / "out.xml"):
        pass


@pytest.mark.parametrize("target", [None, "-"])
def test_open_sink_writes_stdout(monkeypatch: pytest.MonkeyPatch, target: str | None) -> None:
    buffer = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(buffer))
    with open_sink(target) as out:
        out.write(b"to stdout")
    assert buffer.getvalue() == b"to stdout"
    assert not buffer.closed


def test_open_sink_passes_a_file_object_through() -> None:
    stream = io.BytesIO()
    with open_sink(stream) as out:
        out.write(b"data")
    assert stream.getvalue() == b"data"
    assert not stream.closed


def test_write_failure_keeps_the_previous_output(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(b"previous\n")

    def entries() -> object:
        yield feedmap.Entry(loc="http://e.com/1")
        raise RuntimeError("source failed mid-way")

    with pytest.raises(RuntimeError):
        feedmap.write(entries(), target, format="text")  # type: ignore[arg-type]
    assert target.read_bytes() == b"previous\n"
    assert _leftovers(tmp_path, {"out.txt"}) == []


def _gzip_member(deflate: bytes) -> bytes:
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + deflate + struct.pack("<II", 0, 0)  # crc32(b"") == 0


def test_empty_gzip_members_count_against_the_cap() -> None:
    # members that inflate to nothing were read to the end however many: an endless stream never stopped
    reader = CountingReader(_gzip_member(b"\x03\x00") * 200_000)  # 4 MB of empty members
    with pytest.raises(LimitError) as caught:
        open_and_read(reader, max_bytes=1 << 20)
    assert caught.value.code == "too-large"
    assert reader.consumed < 2 << 20


def test_empty_deflate_blocks_count_against_the_cap() -> None:
    # one member of empty stored blocks (RFC 1951 §3.2.4: LEN 0) inflates to nothing however long it is
    blocks = b"\x00\x00\x00\xff\xff" * 800_000 + b"\x01\x00\x00\xff\xff"
    reader = CountingReader(_gzip_member(blocks))
    with pytest.raises(LimitError) as caught:
        open_and_read(reader, max_bytes=1 << 20)
    assert caught.value.code == "too-large"
    assert reader.consumed < 2 << 20
