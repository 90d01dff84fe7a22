"""Fuzz test: whatever bytes come in, readers raise only :class:`feedmap.FeedmapError` subclasses, and
whatever they read, every writer writes output that parses.

Inputs are random bytes (some starting like XML, JSON, gzip or a BOM) and real samples with bytes
flipped, inserted and deleted: plain, gzip-compressed after mutation, and mutated after compression.
Each input is read with every registered reader by name and with auto-detection, and its entries are
consumed completely (readers stream, so most problems only show while iterating).  What a reader
accepted is then converted to every writable format: XML output must be well-formed (parsed without
DTD, entities or network) and hold exactly as many entries as the writer says it wrote (an extra that
broke out of its element would add one); JSON lines must be JSON objects, one per entry; a text sitemap
must be UTF-8, one URL per line.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import feedmap
from feedmap import FeedmapError, Options, Reporter
from feedmap.formats._registry import all_formats

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
SEED_FILES = [
    SAMPLES / "sitemap" / "basic.xml",
    SAMPLES / "sitemap" / "lenient.xml",
    SAMPLES / "sitemapindex" / "index.xml",
    SAMPLES / "text" / "urls.txt",
    SAMPLES / "jsonl" / "entries.jsonl",
    SAMPLES / "rss" / "feed.xml",
    SAMPLES / "rss" / "atom.xml",
    SAMPLES / "ror" / "site.xml",
    SAMPLES / "sitemap" / "basic.expected.rss.xml",
    SAMPLES / "sitemap" / "basic.expected.ror.xml",
]
#: JSON lines with what XML writers must not write verbatim or raw (extras, controls, odd priorities).
HOSTILE_JSONL = (
    b'{"kind":"feed","title":"T\\u0001","extras":{"ror:a b":"1","header:title":"<&>"}}\n'
    b'{"loc":"0","extras":{"{":"<"}}\n'
    b'{"loc":"https://e.com/1","extras":{"{urn:x}y":"<x:y xmlns:x=\\"urn:x\\"/></url><url><loc>https://i.example/</loc>"}}\n'
    b'{"loc":"https://e.com/2","extras":{"{}image:image":"<image:image><image:loc>x</image:loc></image:image>"}}\n'
    b'{"loc":"https://e.com/3","extras":{"{}foo":"<foo/>","{urn:x}y":"<x:y xmlns:x=\\"urn:x\\">1</x:y>"}}\n'
    b'{"loc":"https://e.com/ctl\\u0001\\r","priority":5e-324,"title":"\\ufffe","keywords":["\\u0000"]}\n'
    b'{"loc":"https://e.com/4","alternates":[{"hreflang":"d\\ne","href":"https://e.com/\\t"}]}\n'
    b'{"loc":"https://e.com/5","title":"\\ud83d\\ude00","priority":0.5,"extras":{"{}news:news":"<news:news/>"}}\n'
)
#: A sitemap whose xhtml and image prefixes are never declared.
UNDECLARED = (
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://e.com/</loc>'
    b'<xhtml:link rel="alternate" hreflang="de" href="https://e.com/de"/>'
    b"<image:image><image:loc>https://e.com/i.png</image:loc></image:image></url></urlset>"
)
SEEDS = [path.read_bytes() for path in SEED_FILES] + [HOSTILE_JSONL, UNDECLARED]
MAPS = [("https://www.example.com/", SAMPLES / "site")]
#: A mutated index names children on other hosts (www.exammple.com): fetching them fails at once, with no
#: retry and its back-off sleeps (3 of them a child, for each reader and writer), which took one example past
#: the test's time bound on a loaded machine.
NO_RETRY = feedmap.HttpSettings(retries=0, connect_timeout=2, read_timeout=2)
READERS: list[str | None] = [spec.name for spec in all_formats() if spec.reader is not None]
READERS.append(None)  # auto-detection
WRITERS = [spec.name for spec in all_formats() if spec.writer is not None]
#: The elements that hold one written entry each, per XML format (ROR adds its header item).
ENTRY_ELEMENTS = {
    "sitemap": ("{http://www.sitemaps.org/schemas/sitemap/0.9}url", 0),
    "sitemapindex": ("{http://www.sitemaps.org/schemas/sitemap/0.9}sitemap", 0),
    "rss": ("item", 0),
    "ror": ("item", 1),
}
SAFE_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)

PREFIXES = [
    b"",
    b'<?xml version="1.0" encoding="UTF-8"?>',
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>',
    b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>',
    b'<rss version="2.0"><channel><item><link>',
    b'{"loc":"',
    b"\x1f\x8b",
    b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff",
    b"\xef\xbb\xbf",
    b"\xff\xfe<\x00",
    b"https://www.example.com/\n",
]


def consume(data: bytes, format: str | None, strict: bool) -> bool:
    """Read ``data`` to the end; True when it was read, False on a FeedmapError (acceptable), else a bug."""
    try:
        with feedmap.read(
            io.BytesIO(data),
            format=format,
            reporter=Reporter(strict=strict),
            options=feedmap.Options(strict=strict, max_bytes=1 << 20, maps=MAPS, http=NO_RETRY),
        ) as doc:
            for entry in doc:
                assert isinstance(entry.loc, str) and entry.loc
    except FeedmapError:
        return False
    return True


def check_output(target: str, data: bytes, written: int) -> None:
    """The output of a writer parses in its format and holds ``written`` entries."""
    if target in ENTRY_ELEMENTS:
        root = etree.fromstring(data, SAFE_PARSER)
        tag, more = ENTRY_ELEMENTS[target]
        held = root.findall(tag) if target.startswith("sitemap") else root.findall(f"channel/{tag}")
        assert len(held) == written + more, (target, data)
    elif target == "jsonl":  # lines end at LF only (str.splitlines would also split at U+2028, ...)
        objects = [json.loads(line) for line in data.decode("utf-8").split("\n")[:-1]]
        assert all(isinstance(obj, dict) for obj in objects)
        assert len([obj for obj in objects if "loc" in obj]) == written, data
    elif target == "text":
        data.decode("utf-8")
        assert data.count(b"\n") == written and b"\r" not in data, data


def convert_everywhere(data: bytes, format: str | None, strict: bool) -> None:
    """Convert ``data`` (read as ``format``) to every writable format and check each output."""
    for target in WRITERS:
        sink = io.BytesIO()
        try:
            summary = feedmap.convert(
                io.BytesIO(data),
                sink,
                target,
                source_format=format,
                options=Options(strict=strict, max_bytes=1 << 20, maps=tuple(MAPS), http=NO_RETRY),
                reporter=Reporter(strict=strict),
            )
        except FeedmapError:
            continue
        check_output(target, sink.getvalue(), summary.entries)


def read_everywhere(data: bytes, strict: bool = False, *, write: bool = True) -> None:
    for format in READERS:
        if consume(data, format, strict) and write:
            convert_everywhere(data, format, strict)


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    """``seed`` with a few bytes flipped, inserted or deleted."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        operation = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "duplicate"]))
        position = draw(st.integers(min_value=0, max_value=max(len(data) - 1, 0)))
        if operation == "flip" and data:
            data[position] ^= 1 << draw(st.integers(min_value=0, max_value=7))
        elif operation == "insert":
            data[position:position] = draw(st.binary(min_size=1, max_size=4) | st.sampled_from([b"&", b"<", b"]]>"]))
        elif operation == "delete" and data:
            del data[position : position + draw(st.integers(min_value=1, max_value=16))]
        elif operation == "truncate":
            del data[position:]
        elif operation == "duplicate" and data:
            end = position + draw(st.integers(min_value=1, max_value=64))
            data[position:position] = data[position:end]
    return bytes(data)


SEED = st.sampled_from(SEEDS)
FUZZ_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ_SETTINGS
@given(data=st.builds(lambda prefix, tail: prefix + tail, st.sampled_from(PREFIXES), st.binary(max_size=512)))
def test_random_bytes(data: bytes) -> None:
    read_everywhere(data)


@FUZZ_SETTINGS
@given(data=SEED.flatmap(mutated), strict=st.booleans())
def test_mutated_samples(data: bytes, strict: bool) -> None:
    read_everywhere(data, strict)


@FUZZ_SETTINGS
@given(data=SEED.flatmap(mutated))
def test_gzip_of_mutated_samples(data: bytes) -> None:
    read_everywhere(gzip.compress(data, mtime=0))


@FUZZ_SETTINGS
@given(data=SEED.map(lambda seed: gzip.compress(seed, mtime=0)).flatmap(mutated))
def test_mutated_gzip_of_samples(data: bytes) -> None:
    read_everywhere(data)


def test_the_samples_themselves_read_everywhere() -> None:
    for seed in SEEDS:
        read_everywhere(seed)
        read_everywhere(gzip.compress(seed, mtime=0))
        read_everywhere(seed, strict=True)


def test_edge_inputs() -> None:
    for data in [
        b"",
        b"\x00" * 100,
        b"\xef\xbb\xbf",
        b"   \n\n",
        b"<",
        b"<?xml",
        b"<urlset",
        b"<urlset>",
        b"<urlset><url><loc>https://www.example.com/</loc></url>",
        b"<" * 10_000,
        b"<a>" * 2_000,
        b"{" * 10_000,
        b"[" * 10_000,
        b'{"loc":' * 5_000,
        b"\x1f\x8b",
        gzip.compress(b"")[:-4],
        gzip.compress(b"<urlset/>") + b"trailing garbage",
        gzip.compress(gzip.compress(b"<urlset/>")),
        "<urlset><url><loc>https://www.example.com/\udcff</loc></url></urlset>".encode("utf-8", "surrogateescape"),
        b'<?xml version="1.0" encoding="UTF-16"?><urlset/>',
        b'<?xml version="1.0" encoding="bogus"?><urlset/>',
        b'<!DOCTYPE urlset [<!ENTITY x "y">]><urlset><url><loc>https://www.example.com/&x;</loc></url></urlset>',
        b'{"loc":"https://e.com/\xed\xa0\x80"}\n{"loc":"https://e.com/"}\n',  # raw surrogate bytes
        HOSTILE_JSONL,
        UNDECLARED,
    ]:
        read_everywhere(data)
        read_everywhere(data, strict=True)
