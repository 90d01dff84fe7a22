"""Fuzz test: whatever bytes come in, readers raise only :class:`feedmap.FeedmapError` subclasses.

Inputs are random bytes (some starting like XML, JSON, gzip or a BOM) and real samples with bytes
flipped, inserted and deleted: plain, gzip-compressed after mutation, and mutated after compression.
Each input is read with every registered reader by name and with auto-detection, and its entries are
consumed completely (readers stream, so most problems only show while iterating).
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap.errors import FeedmapError, Reporter
from feedmap.registry import all_formats

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
SEED_FILES = [
    SAMPLES / "sitemap" / "basic.xml",
    SAMPLES / "sitemap" / "lenient.xml",
    SAMPLES / "sitemapindex" / "index.xml",
    SAMPLES / "text" / "urls.txt",
    SAMPLES / "jsonl" / "entries.jsonl",
]
SEEDS = [path.read_bytes() for path in SEED_FILES]
MAPS = [("https://www.example.com/", SAMPLES / "site")]
READERS: list[str | None] = [spec.name for spec in all_formats() if spec.reader is not None]
READERS.append(None)  # auto-detection

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


def consume(data: bytes, format: str | None, strict: bool) -> None:
    """Read ``data`` to the end; a FeedmapError is an acceptable outcome, anything else is a bug."""
    try:
        with feedmap.read(
            io.BytesIO(data),
            format=format,
            strict=strict,
            max_bytes=1 << 20,
            maps=MAPS,
            reporter=Reporter(strict=strict),
        ) as doc:
            for entry in doc:
                assert isinstance(entry.loc, str) and entry.loc
    except FeedmapError:
        pass


def read_everywhere(data: bytes, strict: bool = False) -> None:
    for format in READERS:
        consume(data, format, strict)


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
    ]:
        read_everywhere(data)
        read_everywhere(data, strict=True)
