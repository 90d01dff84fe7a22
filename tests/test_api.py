"""The library API: :func:`feedmap.read`, :func:`feedmap.write`, :func:`feedmap.convert` used from Python.

Reading streams: ``Document.entries`` is a one-shot iterator, the file behind it is closed when the
entries are exhausted or the document is closed, and memory does not grow with the number of URLs.
"""

from __future__ import annotations

import gc
import gzip
import io
import json
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from lxml import etree

import feedmap
from feedmap import (
    ChangeFreq,
    Diagnostic,
    DocKind,
    Document,
    Entry,
    FeedmapError,
    FormatError,
    Image,
    Level,
    ReadError,
    StrictError,
    Summary,
    UnknownFormatError,
    W3CDate,
)

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
SITEMAP = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="{SITEMAP_NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>https://example.com/</loc><lastmod>2024-01-02</lastmod><changefreq>weekly</changefreq>
    <priority>0.5</priority><image:image><image:loc>https://example.com/a.png</image:loc></image:image></url>
  <url><loc>https://example.com/b</loc></url>
  <url><loc>https://example.com/c</loc></url>
</urlset>
""".encode()
LOCS = ["https://example.com/", "https://example.com/b", "https://example.com/c"]
BAD_TEXT = b"https://example.com/1\nnot a url\nhttps://example.com/2\n"


def write_file(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def open_handles(path: Path) -> int:
    """How many file descriptors of this process point at ``path`` (Linux /proc)."""
    target = str(path.resolve())
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == target:
                count += 1
        except OSError:
            continue
    return count


needs_proc = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc/self/fd")


@pytest.fixture
def sitemap_path(tmp_path: Path) -> Path:
    return write_file(tmp_path / "sitemap.xml", SITEMAP)


# ------------------------------------------------------------------------------------------------ read


def test_read_returns_a_streaming_document(sitemap_path: Path) -> None:
    doc = feedmap.read(sitemap_path)
    assert isinstance(doc, Document)
    assert doc.format == "sitemap"
    assert doc.meta.kind is DocKind.URLSET
    entries = doc.entries
    assert iter(entries) is entries  # an iterator, not a list
    first = next(iter(entries))
    assert first == Entry(
        loc="https://example.com/",
        lastmod=W3CDate("2024-01-02"),
        changefreq=ChangeFreq.WEEKLY,
        priority=0.5,
        images=(Image(loc="https://example.com/a.png"),),
    )
    assert [entry.loc for entry in entries] == LOCS[1:]
    assert list(entries) == []  # one-shot
    doc.close()


def test_entries_know_where_they_came_from(sitemap_path: Path) -> None:
    with feedmap.read(sitemap_path) as doc:
        origins = [entry.origin for entry in doc.entries]
    assert [(o.source, o.line) for o in origins if o is not None] == [
        (str(sitemap_path), 3),
        (str(sitemap_path), 5),
        (str(sitemap_path), 6),
    ]


def test_read_detects_each_format(tmp_path: Path) -> None:
    cases = {
        "a.xml": (SITEMAP, "sitemap"),
        "b.txt": ("\n".join(LOCS).encode(), "text"),
        "c.jsonl": ("\n".join(json.dumps({"loc": loc}) for loc in LOCS).encode(), "jsonl"),
        "d.bin": (gzip.compress(SITEMAP), "sitemap"),  # gzip by content, not by name
    }
    for name, (data, fmt) in cases.items():
        with feedmap.read(write_file(tmp_path / name, data)) as doc:
            assert [entry.loc for entry in doc.entries] == LOCS, name
            assert doc.format == fmt, name


def test_read_with_explicit_format(tmp_path: Path) -> None:
    path = write_file(tmp_path / "list", "\n".join(LOCS).encode())
    with feedmap.read(path, format="text") as doc:
        assert [entry.loc for entry in doc.entries] == LOCS
    with pytest.raises(FormatError):
        feedmap.read(path, format="no-such-format")


def test_read_does_not_close_a_caller_owned_stream() -> None:
    stream = io.BytesIO(SITEMAP)
    doc = feedmap.read(stream)
    assert [entry.loc for entry in doc.entries] == LOCS
    assert not stream.closed
    doc.close()
    assert not stream.closed
    with feedmap.read(io.BytesIO(SITEMAP)) as doc2:
        next(iter(doc2.entries))
    stream2 = io.BytesIO(SITEMAP)
    with feedmap.read(stream2) as doc3:
        next(iter(doc3.entries))
    assert not stream2.closed


@needs_proc
def test_file_is_closed_when_entries_are_exhausted(sitemap_path: Path) -> None:
    assert open_handles(sitemap_path) == 0
    doc = feedmap.read(sitemap_path)
    entries = iter(doc.entries)
    next(entries)
    assert open_handles(sitemap_path) == 1
    assert len(list(entries)) == 2
    assert open_handles(sitemap_path) == 0


@needs_proc
def test_file_is_closed_by_close_and_by_with(sitemap_path: Path) -> None:
    doc = feedmap.read(sitemap_path)
    next(iter(doc.entries))
    assert open_handles(sitemap_path) == 1
    doc.close()
    assert open_handles(sitemap_path) == 0

    with feedmap.read(sitemap_path) as doc2:
        next(iter(doc2.entries))
        assert open_handles(sitemap_path) == 1
    assert open_handles(sitemap_path) == 0

    with feedmap.read(sitemap_path) as doc3:  # never iterated
        assert open_handles(sitemap_path) == 1
        del doc3
    gc.collect()
    assert open_handles(sitemap_path) == 0


@needs_proc
def test_file_is_closed_when_the_format_is_not_recognised(tmp_path: Path) -> None:
    path = write_file(tmp_path / "junk.bin", bytes(range(256)) * 8)
    with pytest.raises(UnknownFormatError) as info:
        feedmap.read(path)
    assert isinstance(info.value, LookupError)
    assert open_handles(path) == 0


def test_no_resource_warning_after_reading(sitemap_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        doc = feedmap.read(sitemap_path)
        assert len(list(doc.entries)) == 3
        partial = feedmap.read(sitemap_path)
        next(iter(partial.entries))
        partial.close()
        del doc, partial
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_strict_raises_with_the_diagnostic(tmp_path: Path) -> None:
    path = write_file(tmp_path / "urls.txt", BAD_TEXT)
    doc = feedmap.read(path, options=feedmap.Options(strict=True))
    seen: list[str] = []
    with pytest.raises(StrictError) as info:
        for entry in doc.entries:
            seen.append(entry.loc)
    assert seen == ["https://example.com/1"]  # the entry before the problem came through
    error = info.value
    assert isinstance(error, ReadError) and isinstance(error, ValueError) and isinstance(error, FeedmapError)
    assert isinstance(error.diagnostic, Diagnostic)
    assert (error.diagnostic.code, error.diagnostic.line, error.diagnostic.level) == (
        "loc-not-absolute",
        2,
        Level.WARNING,
    )
    assert (error.code, error.line, error.source) == ("loc-not-absolute", 2, str(path))


def test_strict_raises_at_read_time_for_a_root_problem(tmp_path: Path) -> None:
    path = write_file(
        tmp_path / "s.xml",
        b'<urlset xmlns="http://example.com/other"><url><loc>https://a.example/</loc></url></urlset>',
    )
    with pytest.raises(StrictError) as info, feedmap.read(path, options=feedmap.Options(strict=True)) as doc:
        list(doc.entries)
    assert info.value.diagnostic.code == "unknown-namespace"
    with feedmap.read(path) as lenient:
        assert [entry.loc for entry in lenient.entries] == ["https://a.example/"]


def test_on_diagnostic_receives_diagnostics(tmp_path: Path) -> None:
    path = write_file(tmp_path / "urls.txt", BAD_TEXT + b"https://example.com/has space\n")
    received: list[Diagnostic] = []
    with feedmap.read(path, on_diagnostic=received.append) as doc:
        locs = [entry.loc for entry in doc.entries]
        assert doc.diagnostics == received  # the document keeps them too
    assert locs == ["https://example.com/1", "https://example.com/2", "https://example.com/has space"]
    assert all(isinstance(d, Diagnostic) for d in received)
    assert [(d.code, d.line, d.level, d.source) for d in received] == [
        ("loc-not-absolute", 2, Level.WARNING, str(path)),
        ("loc-not-escaped", 4, Level.WARNING, str(path)),
    ]
    assert str(received[0]).startswith(f"{path}:2: warning[loc-not-absolute]: ")


def test_diagnostics_arrive_while_streaming(tmp_path: Path) -> None:
    path = write_file(tmp_path / "urls.txt", BAD_TEXT)
    received: list[Diagnostic] = []
    with feedmap.read(path, on_diagnostic=received.append) as doc:
        entries = iter(doc.entries)
        next(entries)
        assert received == []
        next(entries)
        assert [d.code for d in received] == ["loc-not-absolute"]


def test_max_bytes_raises_limit_error(tmp_path: Path) -> None:
    # gzip: the cap counts decompressed bytes (a plain local file is read whole, tests/test_local_cap.py)
    data = b"".join(b"https://example.com/%05d\n" % i for i in range(1000))
    path = write_file(tmp_path / "urls.txt.gz", gzip.compress(data))
    with pytest.raises(feedmap.LimitError) as info, feedmap.read(path, options=feedmap.Options(max_bytes=1024)) as doc:
        list(doc.entries)
    assert info.value.code == "too-large"


# ------------------------------------------------------------------------------------------------ write


def test_write_a_plain_list_of_entries(tmp_path: Path) -> None:
    entries = [Entry(loc=loc) for loc in LOCS]
    target = tmp_path / "out.xml"
    summary = feedmap.write(entries, target, "sitemap")
    assert isinstance(summary, Summary)
    assert summary.entries == 3
    root = etree.parse(str(target)).getroot()
    assert [loc.text for loc in root.iter(f"{{{SITEMAP_NS}}}loc")] == LOCS
    with feedmap.read(target) as doc:
        assert list(doc.entries) == entries


def test_write_a_generator(tmp_path: Path) -> None:
    def generate() -> Iterator[Entry]:
        for i in range(10):
            yield Entry(loc=f"https://example.com/{i}")

    summary = feedmap.write(generate(), tmp_path / "out.txt", "text")
    assert summary.entries == 10
    assert (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines() == [
        f"https://example.com/{i}" for i in range(10)
    ]


def test_write_to_a_binary_stream() -> None:
    sink = io.BytesIO()
    entry = Entry(loc="https://example.com/x", lastmod=W3CDate("2024-03-04T05:06:07+01:00"), priority=0.25)
    summary = feedmap.write([entry], sink, "jsonl")
    assert summary.entries == 1
    assert not sink.closed
    assert json.loads(sink.getvalue()) == {
        "loc": "https://example.com/x",
        "lastmod": "2024-03-04T05:06:07+01:00",
        "priority": 0.25,
    }


def test_write_a_read_document(sitemap_path: Path) -> None:
    sink = io.BytesIO()
    with feedmap.read(sitemap_path) as doc:
        summary = feedmap.write(doc, sink, "text")
    assert summary.entries == 3
    assert sink.getvalue().decode().splitlines() == LOCS
    codes = [d.code for d in summary.diagnostics]
    assert codes.count("field-dropped") == 1  # lastmod, changefreq, priority, images, in one line
    assert all(d.level is Level.INFO for d in summary.diagnostics)


def test_write_reports_to_on_diagnostic() -> None:
    received: list[Diagnostic] = []
    feedmap.write(
        [Entry(loc="https://b\u00fccher.example/\u00e9")],
        io.BytesIO(),
        "text",
        on_diagnostic=received.append,
        options=feedmap.Options(encode_urls=True),
    )
    assert [d.code for d in received] == ["url-encoded"]


def test_write_strict_raises_on_a_warning() -> None:
    with pytest.raises(StrictError) as info:
        feedmap.write([], io.BytesIO(), "sitemap", options=feedmap.Options(strict=True))
    assert info.value.diagnostic.code == "empty-document"


def test_write_unknown_format() -> None:
    with pytest.raises(FormatError):
        feedmap.write([Entry(loc="https://example.com/")], io.BytesIO(), "no-such-format")


def test_write_failure_keeps_the_previous_file(tmp_path: Path) -> None:
    target = write_file(tmp_path / "out.txt", b"previous\n")

    def failing() -> Iterator[Entry]:
        for i in range(10_000):
            yield Entry(loc=f"https://example.com/{i}")
        raise RuntimeError("the producer failed")

    with pytest.raises(RuntimeError):
        feedmap.write(failing(), target, "text")
    assert target.read_bytes() == b"previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


# ------------------------------------------------------------------------------------------------ convert


def test_convert_a_list_of_sources(tmp_path: Path, sitemap_path: Path) -> None:
    text = write_file(tmp_path / "more.txt", b"https://more.example/1\nhttps://more.example/2\n")
    stream = io.BytesIO(b'{"loc": "https://stream.example/"}\n')
    sink = io.BytesIO()
    summary = feedmap.convert([sitemap_path, text, stream], sink, format="text")
    assert summary.entries == 6
    assert sink.getvalue().decode().splitlines() == [
        *LOCS,
        "https://more.example/1",
        "https://more.example/2",
        "https://stream.example/",
    ]


def test_convert_a_single_source_to_a_path(sitemap_path: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    summary = feedmap.convert(sitemap_path, target, format="jsonl")
    assert summary.entries == 3
    assert [json.loads(line)["loc"] for line in target.read_text(encoding="utf-8").splitlines()] == LOCS


def test_convert_with_wrap_and_options(sitemap_path: Path) -> None:
    sink = io.BytesIO()
    summary = feedmap.convert(
        sitemap_path,
        sink,
        format="sitemap",
        options=feedmap.Options(schema_location=True),
        wrap=lambda entries: (entry for entry in entries if entry.loc != LOCS[1]),
    )
    assert summary.entries == 2
    root = etree.fromstring(sink.getvalue())
    assert [loc.text for loc in root.iter(f"{{{SITEMAP_NS}}}loc")] == [LOCS[0], LOCS[2]]
    assert root.get("{http://www.w3.org/2001/XMLSchema-instance}schemaLocation") is not None


def test_convert_strict_option(tmp_path: Path) -> None:
    path = write_file(tmp_path / "urls.txt", BAD_TEXT)
    with pytest.raises(StrictError):
        feedmap.convert(path, io.BytesIO(), format="text", options=feedmap.Options(strict=True))
    summary = feedmap.convert(path, io.BytesIO(), format="text")
    assert summary.entries == 2
    assert [d.code for d in summary.diagnostics] == ["loc-not-absolute"]


def test_convert_nothing() -> None:
    with pytest.raises(FormatError):
        feedmap.convert([], io.BytesIO(), format="text")


# ------------------------------------------------------------------------------------------------ memory


MEMORY_PROBE = textwrap.dedent(
    """
    import gc, io, sys
    import feedmap

    def peak_kib():
        # VmHWM belongs to this process image; ru_maxrss would carry the forking parent's peak over exec
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmHWM")

    gc.disable()  # both probes: the collector's passes over 200,000 live entries only cost time

    class Discard(io.RawIOBase):
        def writable(self):
            return True
        def write(self, data):
            return len(data)

    path, mode, warmup = sys.argv[1], sys.argv[2], sys.argv[3]
    feedmap.convert(warmup, Discard(), "text")  # imports and first-use allocations
    before = peak_kib()
    if mode == "stream":
        count = feedmap.convert(path, Discard(), "text").entries
    else:
        with feedmap.read(path) as doc:
            kept = list(doc.entries)
        count = len(kept)
    after = peak_kib()
    print(count, after - before)
    """
)


def probe(mode: str, path: Path, warmup: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", MEMORY_PROBE, str(path), mode, str(warmup)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def result(process: subprocess.Popen[str]) -> tuple[int, float]:
    """(entries, peak resident-set growth in MiB) reported by a probe."""
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    count, growth_kib = out.split()
    return int(count), int(growth_kib) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads the peak RSS from Linux /proc")
@pytest.mark.timeout(660)  # two probes of up to 300 s each
def test_memory_does_not_grow_with_the_number_of_urls(tmp_path: Path) -> None:
    """Stream a 200,000-URL sitemap to text and compare with keeping its entries in a list.

    Each run is a fresh interpreter (two in parallel), measuring the growth of its peak resident set
    (VmHWM) after a warm-up conversion.  tracemalloc would measure the same thing but slows this run
    sixfold; the peak RSS of a child process is exact enough for a bound this generous.
    """
    count = 200_000
    path = tmp_path / "big.xml"
    with path.open("w", encoding="utf-8") as out:
        out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}">\n')
        for i in range(count):
            out.write(f"<url><loc>https://www.example.com/section/{i}/page-{i}.html</loc></url>\n")
        out.write("</urlset>\n")
    warmup = write_file(tmp_path / "warmup.xml", SITEMAP)

    streaming, materialising = probe("stream", path, warmup), probe("list", path, warmup)
    streamed, stream_growth = result(streaming)
    listed, list_growth = result(materialising)
    assert streamed == listed == count

    bound = 20.0  # MiB; streaming the entries measures ~0
    # the bound is meaningful: holding the entries (what a non-streaming reader does) costs far more
    assert list_growth > 2 * bound, f"materialising {count:,} entries grew only {list_growth:.1f} MiB"
    # what does grow: the set of the locs' hashes that finds repeated URLs (feedmap.converters: about 70
    # bytes per URL), still well under what holding the entries costs
    allowed = bound + 80 * count / 2**20
    assert stream_growth < allowed, f"streaming {count:,} entries grew the peak by {stream_growth:.1f} MiB"
    assert stream_growth < list_growth / 2


# ------------------------------------------------------------------------------------------------ names


def test_public_names_exist() -> None:
    assert len(feedmap.__all__) == len(set(feedmap.__all__))
    for name in feedmap.__all__:
        with warnings.catch_warnings():  # the deprecated alias warns when first read (test_transforms_alias.py)
            warnings.simplefilter("ignore", DeprecationWarning)
            assert hasattr(feedmap, name), name
    for name in ("read", "write", "convert", "Entry", "Image", "Document", "FeedmapError", "StrictError"):
        assert name in feedmap.__all__
