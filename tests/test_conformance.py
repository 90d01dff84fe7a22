"""Conformance against real files written by other projects (sitemap.js, advertools, crawler-commons).

The corpus lives outside the repository, in the folder named by ``$FEEDMAP_CORPUS`` (CI sets it); see its
README.  This module is skipped, with the reason, when it is absent.

The expectations come from the files themselves: where a file is well-formed XML, the entries feedmap
reads are compared with an independent lxml parse of the same bytes (decompressed with :mod:`gzip`),
and text sitemaps with their lines; so the test checks feedmap against lxml, not against itself.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
from collections.abc import Iterator
from itertools import islice, zip_longest
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from conftest import codes
from lxml import etree

import feedmap
from feedmap import Diagnostic, DocKind, Entry, FeedmapError, Level

REPO_ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("sitemapjs", "advertools", "crawler-commons")


def find_corpus() -> Path:
    """The corpus folder ($FEEDMAP_CORPUS; unset, a folder that holds no corpus)."""
    return Path(os.environ.get("FEEDMAP_CORPUS") or REPO_ROOT / "no-corpus-given")


CORPUS = find_corpus()
if not all((CORPUS / folder).is_dir() for folder in FOLDERS):
    pytest.skip(
        f"external corpus not found: {CORPUS} lacks {', '.join(FOLDERS)} (set FEEDMAP_CORPUS to its folder)",
        allow_module_level=True,
    )

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
GZIP_MAGIC = b"\x1f\x8b"
# a safe, strict parser for the oracle: no DTD, no entities, no network, no recovery
ORACLE_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True)


def corpus_files() -> list[Path]:
    files = []
    for folder in FOLDERS:
        for path in sorted((CORPUS / folder).rglob("*")):
            if path.is_file() and path.suffix.lower() in (".xml", ".txt", ".gz"):
                files.append(path)
    return files


def rel(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


# ------------------------------------------------------------------------------------------- helpers


def raw(path: Path) -> bytes:
    """The file's bytes, decompressed with the stdlib when they start with the gzip magic bytes."""
    data = path.read_bytes()
    return gzip.decompress(data) if data.startswith(GZIP_MAGIC) else data


def local(tag: str) -> str:
    return tag.rpartition("}")[2]


def namespace(tag: str) -> str:
    return tag[1 : tag.index("}")] if tag.startswith("{") else ""


def lxml_root(data: bytes) -> etree._Element | None:
    """The root of the document by a strict lxml parse, or None when it is not well-formed."""
    try:
        return etree.fromstring(data, ORACLE_PARSER)
    except etree.XMLSyntaxError:
        return None


def source_line(element: etree._Element) -> int:
    line: object = element.sourceline
    return line if isinstance(line, int) else 0


def oracle_items(root: etree._Element) -> list[etree._Element]:
    """The ``<url>`` (or ``<sitemap>``) children of a urlset (or index), in the root's namespace."""
    child = "url" if local(root.tag) == "urlset" else "sitemap"
    ns = namespace(root.tag)
    return [el for el in root if isinstance(el.tag, str) and local(el.tag) == child and namespace(el.tag) == ns]


def oracle_loc(item: etree._Element) -> str:
    ns = namespace(item.tag)
    loc = item.find(f"{{{ns}}}loc" if ns else "loc")
    if loc is not None:
        return (loc.text or "").strip()
    return (item.text or "").strip()  # a bare URL standing in the element


def oracle_locs(root: etree._Element) -> list[str]:
    return [loc for loc in (oracle_loc(item) for item in oracle_items(root)) if loc]


def oracle_field(item: etree._Element, name: str) -> str | None:
    ns = namespace(item.tag)
    found = item.find(f"{{{ns}}}{name}" if ns else name)
    return None if found is None else (found.text or "").strip()


def oracle_images(item: etree._Element) -> list[dict[str, str]]:
    images = []
    for image in item.iter(f"{{{IMAGE_NS}}}image"):
        fields = {local(child.tag): (child.text or "").strip() for child in image if isinstance(child.tag, str)}
        images.append({key: value for key, value in fields.items() if value})
    return images


def image_dicts(entry: Entry) -> list[dict[str, str]]:
    names = ("loc", "caption", "geo_location", "title", "license")
    return [{n: getattr(i, n) for n in names if getattr(i, n) is not None} for i in entry.images]


def is_url(line: str) -> bool:
    parts = urlsplit(line)
    return bool(parts.scheme and parts.netloc) and "://" in line


def text_oracle(path: Path) -> Iterator[str]:
    """The URLs of a text sitemap, line by line, read with the stdlib (BOM and blanks ignored)."""
    with path.open("rb") as probe:
        compressed = probe.read(2) == GZIP_MAGIC
    opener = gzip.open if compressed else open
    with opener(path, "rt", encoding="utf-8-sig", newline="") as handle:
        for line in handle:
            stripped = line.strip()
            if stripped and is_url(stripped):
                yield stripped


def read_all(path: Path, **options: Any) -> tuple[str | None, list[Entry], list[Diagnostic]]:
    received: list[Diagnostic] = []
    with feedmap.read(path, options=feedmap.Options(**options), on_diagnostic=received.append) as doc:
        entries = list(doc.entries)
        fmt = doc.format
    return fmt, entries, received


def convert_bytes(data: bytes, to: str) -> bytes:
    sink = io.BytesIO()
    feedmap.convert(io.BytesIO(data), sink, format=to)
    return sink.getvalue()


# ------------------------------------------------------------------------------- every file of the corpus

FILES = corpus_files()
#: Text sitemaps are compared line by line up to this many entries; only sitemapjs/long-list.txt.gz
#: (1,000,000 lines, ~10 s to read whole) is longer; medium-list.txt.gz (100,000) is read to its end.
TEXT_COMPARED = 100_000


def test_the_corpus_has_the_expected_files() -> None:
    names = {rel(path) for path in FILES}
    for name in (
        "sitemapjs/alltags.xml",
        "sitemapjs/short-list.txt",
        "advertools/regular_sitemap.xml.gz",
        "crawler-commons/sitemap.badns.xml",
        "crawler-commons/extension/sitemap-news.xml",
    ):
        assert name in names


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_every_file_reads_like_an_independent_parse(path: Path) -> None:
    """No exception but FeedmapError; well-formed sitemaps give lxml's locs; text sitemaps give their lines."""
    data = raw(path)
    is_xml = data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")
    received: list[Diagnostic] = []
    try:
        doc = feedmap.read(path, on_diagnostic=received.append, options=feedmap.Options(follow=False))
    except FeedmapError:
        # only an input that is neither a sitemap nor a list of URLs may be refused
        root = lxml_root(data) if is_xml else None
        assert root is None or local(root.tag) not in ("urlset", "sitemapindex"), rel(path)
        assert not is_xml or root is not None, "malformed XML must be read leniently, not refused"
        return
    with doc:
        entries = iter(doc.entries)
        if not is_xml and not data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
            # a text sitemap: compare line by line, streaming
            pairs = zip_longest(entries, text_oracle(path))
            for ours, theirs in islice(pairs, TEXT_COMPARED + 1):
                assert ours is not None and theirs is not None, f"{rel(path)}: counts differ"
                assert ours.loc == theirs
            return
        read = list(entries)
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        objects = [json.loads(line) for line in data.splitlines() if line.strip()]
        assert [e.loc for e in read] == [o["loc"] for o in objects if isinstance(o.get("loc"), str)]
        return
    root = lxml_root(data)
    if root is None:
        # not well-formed: feedmap keeps what came before and says where it broke off
        assert "xml-not-well-formed" in codes(received, Level.WARNING), rel(path)
        return
    if local(root.tag) not in ("urlset", "sitemapindex"):
        return  # a feed, read by a feed format if one is registered
    assert [e.loc for e in read] == oracle_locs(root)
    if local(root.tag) == "sitemapindex":
        assert doc.meta.kind is DocKind.INDEX
        return
    repaired = {"lastmod-repaired", "lastmod-invalid", "changefreq-case", "changefreq-invalid", "priority-invalid"}
    items = [item for item in oracle_items(root) if oracle_loc(item)]
    for entry, item in zip(read, items, strict=True):
        assert image_dicts(entry) == oracle_images(item)
        if repaired & set(codes(received, Level.WARNING)):
            continue
        lastmod, changefreq, priority = (oracle_field(item, name) for name in ("lastmod", "changefreq", "priority"))
        assert (entry.lastmod.text if entry.lastmod else None) == lastmod
        assert (entry.changefreq.value if entry.changefreq else None) == changefreq
        assert entry.priority == (float(priority) if priority is not None else None)


def root_name(path: Path) -> str | None:
    root = lxml_root(raw(path))
    return None if root is None else local(root.tag)


INDEXES = [path for path in FILES if root_name(path) == "sitemapindex"]


@pytest.mark.parametrize("path", INDEXES, ids=rel)
def test_followed_index_reports_each_unreadable_child(path: Path, tmp_path: Path) -> None:
    """Every child here is mapped (no network) to an empty directory: each one is reported with its URL."""
    root = lxml_root(raw(path))
    assert root is not None
    children = oracle_locs(root)
    sites = {"/".join(loc.split("/", 3)[:3]) + "/" for loc in children}
    diagnostics: list[Diagnostic] = []
    maps = [(site, tmp_path) for site in sites]
    with (
        pytest.raises(FeedmapError, match="nothing was read"),  # issue 9: not one child could be read
        feedmap.read(path, on_diagnostic=diagnostics.append, options=feedmap.Options(maps=maps)) as doc,
    ):
        assert list(doc.entries) == []
    failed = [d.message for d in diagnostics if d.code == "child-unreadable"]
    assert len(failed) == len(children)
    assert all(loc in message for loc, message in zip(children, failed, strict=True))


# ---------------------------------------------------------------------------------------- crawler-commons

CC = CORPUS / "crawler-commons"


def test_bad_namespace_is_read_with_one_warning() -> None:
    path = CC / "sitemap.badns.xml"
    assert b'xmlns="http://www.google.com/schemas/sitemap/0.9"' in path.read_bytes()
    fmt, entries, diagnostics = read_all(path)
    assert fmt == "sitemap"
    assert [e.loc for e in entries] == ["http://www.example.com/1", "http://www.example.com/2"]
    assert [e.changefreq.value if e.changefreq else None for e in entries] == ["daily", "daily"]
    assert codes(diagnostics, Level.WARNING) == ["unknown-namespace"]
    with pytest.raises(feedmap.StrictError) as info, feedmap.read(path, options=feedmap.Options(strict=True)) as doc:
        list(doc.entries)
    assert info.value.diagnostic.code == "unknown-namespace"


def test_prefixed_sitemap_namespace() -> None:
    path = CC / "sitemap.ns.xml"
    assert b"<sit:urlset" in path.read_bytes() and b"<sit:loc>" in path.read_bytes()
    root = lxml_root(raw(path))
    assert root is not None
    fmt, entries, diagnostics = read_all(path)
    assert fmt == "sitemap"
    assert [e.loc for e in entries] == oracle_locs(root) == ["http://www.example.com/1", "http://www.example.com/2"]
    assert codes(diagnostics, Level.INFO) == []


def test_text_sitemap_with_bom() -> None:
    path = CC / "sitemap-with-bom.txt"
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    expected = data[3:].decode("utf-8").split()
    fmt, entries, diagnostics = read_all(path)
    assert fmt == "text"
    assert (
        [e.loc for e in entries] == expected == ["http://www.domain.com/page1.html", "http://www.domain.com/page2.html"]
    )
    assert codes(diagnostics, Level.WARNING) == []


@pytest.mark.parametrize(("name", "fmt"), [("sitemap.txt.gz", "text"), ("xmlSitemap.gz", "sitemap")])
def test_gzip_is_recognised_by_magic_bytes(name: str, fmt: str) -> None:
    path = CC / name
    assert path.read_bytes()[:2] == GZIP_MAGIC
    data = gzip.decompress(path.read_bytes())
    expected = oracle_locs(lxml_root(data)) if fmt == "sitemap" else data.decode().split()  # type: ignore[arg-type]
    found, entries, diagnostics = read_all(path)
    assert found == fmt
    assert [e.loc for e in entries] == expected
    assert len(expected) == 5
    assert "http://www.example.com/catalog?item=12&desc=vacation_hawaii" in expected
    assert codes(diagnostics, Level.WARNING) == []


def test_index_with_bare_urls_read_without_following() -> None:
    path = CC / "sitemap.index.xml"
    root = lxml_root(raw(path))
    assert root is not None
    items = oracle_items(root)
    assert all(item.find(f"{{{SITEMAP_NS}}}loc") is None for item in items)  # no <loc>: bare URLs
    fmt, entries, diagnostics = read_all(path, follow=False)
    assert fmt == "sitemapindex"
    locs = [e.loc for e in entries]
    assert locs == [(item.text or "").strip() for item in items]
    assert len(locs) == 15 and all("&lang=en" in loc for loc in locs)
    loc_as_text = [d for d in diagnostics if d.code == "loc-as-text"]
    assert [d.line for d in loc_as_text] == [source_line(item) for item in items]
    assert set(codes(diagnostics, Level.WARNING)) == {"loc-as-text"}
    with feedmap.read(path, options=feedmap.Options(follow=False)) as doc:
        assert doc.meta.kind is DocKind.INDEX


EXTENSIONS = sorted((CC / "extension").glob("*.xml"))
#: Google News and video elements: typed fields of an entry (Entry.news, Entry.videos), not extras.
_NEWS_TAG = "{http://www.google.com/schemas/sitemap-news/0.9}news"
_VIDEO_TAG = "{http://www.google.com/schemas/sitemap-video/1.1}video"
_TYPED = frozenset({_NEWS_TAG, _VIDEO_TAG})


def exclusive_c14n(element: etree._Element) -> bytes:
    return etree.tostring(element, method="c14n", exclusive=True, with_tail=False)


@pytest.mark.parametrize("path", EXTENSIONS, ids=rel)
def test_extension_elements_are_kept_verbatim_in_extras(path: Path) -> None:
    root = lxml_root(raw(path))
    assert root is not None
    _, entries, diagnostics = read_all(path)
    items = oracle_items(root)
    assert [e.loc for e in entries] == oracle_locs(root)
    assert codes(diagnostics, Level.WARNING) == []
    for entry, item in zip(entries, items, strict=True):
        foreign: dict[str, list[bytes]] = {}
        for child in item:
            if not isinstance(child.tag, str) or namespace(child.tag) == SITEMAP_NS:
                continue
            if child.tag == f"{{{IMAGE_NS}}}image":
                continue
            if child.tag == f"{{{XHTML_NS}}}link" and child.get("rel") == "alternate" and child.get("hreflang"):
                continue
            if child.tag in _TYPED:  # typed fields: each element and attribute counted by test_news_video
                continue
            foreign.setdefault(child.tag, []).append(exclusive_c14n(child))
        typed = [child.tag for child in item if child.tag in _TYPED]
        assert typed.count(_NEWS_TAG) == (entry.news is not None) and typed.count(_VIDEO_TAG) == len(entry.videos)
        clark = {key: value for key, value in entry.extras.items() if key.startswith("{")}
        assert set(clark) == set(foreign)
        for key, value in clark.items():
            wrapper = etree.fromstring(f"<wrapper>{value}</wrapper>".encode(), ORACLE_PARSER)
            assert [exclusive_c14n(el) for el in wrapper] == foreign[key], key
        alternates = [
            (link.get("hreflang"), link.get("href"))
            for link in item.iter(f"{{{XHTML_NS}}}link")
            if link.get("rel") == "alternate" and link.get("hreflang")
        ]
        assert [(a.hreflang, a.href) for a in entry.alternates] == alternates


def test_extension_files_have_the_elements_they_are_named_for() -> None:
    """Guards the test above against vacuity: each kind of extension element really is in the entries (news and
    videos in their typed fields, the others in extras)."""
    typed = {
        "sitemap-news.xml": "news",
        "shinpaideshou-news-sitemap.xml": "news",
        "sitemap-videos.xml": "videos",
        "sitemap-videos-tvshow.xml": "videos",
        "hebdenbridgetimes-articles-sitemap.xml": "videos",
    }
    for name, field in typed.items():
        _, entries, _ = read_all(CC / "extension" / name)
        assert any(getattr(entry, field) for entry in entries), name
    expected = {
        "sitemap-mobile.xml": "{http://www.google.com/schemas/sitemap-mobile/1.0}mobile",
        "pagemaps-sitemap.xml": "{http://www.google.com/schemas/sitemap-pagemap/1.0}PageMap",
    }
    for name, key in expected.items():
        _, entries, _ = read_all(CC / "extension" / name)
        assert any(key in entry.extras for entry in entries), name
    _, mobile, _ = read_all(CC / "extension" / "sitemap-mobile.xml")
    assert [("{http://www.google.com/schemas/sitemap-mobile/1.0}mobile" in e.extras) for e in mobile] == [
        True,
        True,
        False,
    ]
    _, links, _ = read_all(CC / "extension" / "sitemap-links.xml")
    assert [len(e.alternates) for e in links] == [3, 3, 3]
    _, images, _ = read_all(CC / "extension" / "sitemap-images.xml")
    assert images[0].images[1].geo_location == "Limerick, Ireland"


@pytest.mark.parametrize("path", EXTENSIONS, ids=rel)
def test_extension_round_trip_through_jsonl_is_stable(path: Path) -> None:
    """sitemap -> jsonl -> sitemap -> jsonl gives the same JSON lines; the written sitemap is well-formed."""
    first = convert_bytes(path.read_bytes(), "jsonl")
    written = convert_bytes(first, "sitemap")
    again = convert_bytes(written, "jsonl")
    assert again == first
    root = lxml_root(written)
    assert root is not None
    assert oracle_locs(root) == [json.loads(line)["loc"] for line in first.splitlines()]


# ---------------------------------------------------------------------------------------------- advertools

AT = CORPUS / "advertools"


def test_gz_name_without_gzip_content() -> None:
    fake = AT / "regular_sitemap.xml.gz"
    assert fake.read_bytes().startswith(b"<?xml")  # named .gz, not compressed
    _, from_fake, fake_diagnostics = read_all(fake)
    _, from_plain, _ = read_all(AT / "regular_sitemap.xml")
    assert from_fake == from_plain
    root = lxml_root(fake.read_bytes())
    assert root is not None
    assert [e.loc for e in from_fake] == oracle_locs(root)
    assert len(from_fake) == 5
    assert codes(fake_diagnostics, Level.WARNING) == []


def test_real_gzip_sitemap() -> None:
    path = AT / "zipped_sitemap.xml.gz"
    assert path.read_bytes()[:2] == GZIP_MAGIC
    root = lxml_root(gzip.decompress(path.read_bytes()))
    assert root is not None
    fmt, entries, _ = read_all(path)
    assert fmt == "sitemap"
    assert [e.loc for e in entries] == oracle_locs(root)
    assert len(entries) == 5 and all(urlsplit(e.loc).hostname == "www.gzipped.com" for e in entries)
    assert entries[0].priority == 0.8 and entries[0].lastmod is not None and entries[0].lastmod.text == "2005-01-01"


def test_image_sitemap() -> None:
    path = AT / "image_sitemap.xml"
    root = lxml_root(raw(path))
    assert root is not None
    _, entries, _ = read_all(path)
    assert [image_dicts(e) for e in entries] == [oracle_images(item) for item in oracle_items(root)]
    assert [len(e.images) for e in entries] == [2, 2]
    last = entries[1].images[1]
    assert (last.loc, last.caption, last.geo_location, last.title, last.license) == (
        "http://example.com/photo2.jpg",
        "This is the Caption!",
        "The Youniverse...",
        "Image Title",
        "Free License",
    )


def test_broken_sitemap_is_reported_not_raised() -> None:
    _, entries, diagnostics = read_all(AT / "error_sitemap.xml")
    assert entries == []
    assert "xml-not-well-formed" in codes(diagnostics, Level.WARNING)


# ----------------------------------------------------------------------------------------------- sitemap.js

SJ = CORPUS / "sitemapjs"


def descendants(element: etree._Element) -> list[tuple[str, str, dict[str, str]]]:
    """Tag, stripped text and attributes of every element below ``element`` (CDATA is just text)."""
    return [
        (el.tag, (el.text or "").strip(), {str(k): str(v) for k, v in el.attrib.items()})
        for el in element.iter()
        if isinstance(el.tag, str) and el is not element
    ]


def extras_elements(entry: Entry, key: str) -> list[etree._Element]:
    value = entry.extras.get(key)
    if value is None:
        return []
    return list(etree.fromstring(f"<wrapper>{value}</wrapper>".encode(), ORACLE_PARSER))


def test_alltags_plain_and_cdata_read_the_same() -> None:
    plain_root = lxml_root(raw(SJ / "alltags.xml"))
    assert plain_root is not None
    _, plain, _ = read_all(SJ / "alltags.xml")
    _, cdata, cdata_diagnostics = read_all(SJ / "alltags.cdata.xml")
    assert b"<![CDATA[" in (SJ / "alltags.cdata.xml").read_bytes()
    assert [e.loc for e in plain] == [e.loc for e in cdata] == oracle_locs(plain_root)
    assert any("&" in loc and "'" in loc for loc in (e.loc for e in plain))
    assert [e.images for e in plain] == [e.images for e in cdata]
    assert [e.alternates for e in plain] == [e.alternates for e in cdata]
    assert sum(len(e.images) for e in plain) == 5
    # the loc http://example.com/&><'"/ holds characters no URI holds: reported, never passed on silently
    assert codes(cdata_diagnostics, Level.WARNING) == ["loc-not-escaped"]
    for a, b in zip(plain, cdata, strict=True):
        assert set(a.extras) == set(b.extras)
        for key in a.extras:
            assert [descendants(el) for el in extras_elements(a, key)] == [
                descendants(el) for el in extras_elements(b, key)
            ]


def test_cdata_text_keeps_markup_characters_literally() -> None:
    _, cdata, _ = read_all(SJ / "alltags.cdata.xml")
    suffix = "&><'\""
    (video,) = cdata[0].videos
    assert (video.title or "").strip() == "2018:E6 - GoldenEye: Source" + suffix
    news = cdata[3].news
    assert news is not None and (news.title or "").strip() == "Companies A, B in Merger Talks" + suffix
    captions = [image.caption for image in cdata[4].images]
    assert captions == ["An image" + suffix, "Another image" + suffix]
    # written back out, the same text survives (escaped) and reads back equal
    written = io.BytesIO()
    feedmap.write(cdata, written, "sitemap", options=feedmap.Options(keep_urls=True))  # URLs as read, to compare them
    root = lxml_root(written.getvalue())
    assert root is not None
    _, again, _ = read_all_bytes(written.getvalue())
    assert [e.images for e in again] == [e.images for e in cdata]
    assert [e.loc for e in again] == [e.loc for e in cdata]
    assert [(e.news, e.videos) for e in again] == [(e.news, e.videos) for e in cdata]


def read_all_bytes(data: bytes) -> tuple[str | None, list[Entry], list[Diagnostic]]:
    received: list[Diagnostic] = []
    with feedmap.read(io.BytesIO(data), on_diagnostic=received.append) as doc:
        return doc.format, list(doc.entries), received


def test_alltags_hreflang_alternates_and_other_links() -> None:
    _, plain, _ = read_all(SJ / "alltags.xml")
    third = plain[2]
    assert [(a.hreflang, a.href) for a in third.alternates] == [
        ("en", "http://test.com/page-1/&%3E%3C'%22"),
        ("ja", "http://test.com/page-1/ja/&%3E%3C'%22"),
    ]
    # the links that are not hreflang alternates are kept, not dropped
    others = extras_elements(third, f"{{{XHTML_NS}}}link")
    assert [link.get("href") for link in others] == [
        "android-app://com.company.test/page-1/&><'\"",
        "http://ampproject.org/article.amp.html&><'\"",
    ]


def test_unescaped_less_than_is_a_warning_not_a_traceback() -> None:
    path = SJ / "unescaped-lt.xml"
    lines = path.read_text(encoding="utf-8").splitlines()
    broken = next(number for number, line in enumerate(lines, start=1) if "<</" in line)
    assert lxml_root(path.read_bytes()) is None  # really not well-formed
    _, entries, diagnostics = read_all(path)
    # the only <url> is the broken one: kept with the fields complete before the break (its loc and lastmod),
    # as a broken entry after others is (issue 17: the first one was lost)
    assert [(e.loc, e.lastmod.text if e.lastmod else None, e.changefreq) for e in entries] == [
        ("http://example.com&><'\"/", "2011-06-27T00:00:00.000Z", None)
    ]
    assert "truncated-entry" in [d.code for d in diagnostics]
    malformed = [d for d in diagnostics if d.code == "xml-not-well-formed"]
    assert len(malformed) == 1
    assert malformed[0].line == broken and malformed[0].level is Level.WARNING
    with pytest.raises(feedmap.StrictError) as info, feedmap.read(path, options=feedmap.Options(strict=True)) as doc:
        list(doc.entries)
    assert info.value.diagnostic.code == "xml-not-well-formed"


def test_index_with_unescaped_less_than_keeps_the_entries_before() -> None:
    path = SJ / "index-unescaped-lt.xml"
    _, entries, diagnostics = read_all(path, follow=False)
    # the second <sitemap> breaks off inside its <lastmod>: its complete <loc> is kept, the lastmod is not
    assert [e.loc for e in entries] == [
        "https://www.example.com/sitemap1.xml.gz",
        "https://www.example.com/sitemap2.xml.gz",
    ]
    assert entries[1].lastmod is None
    assert "xml-not-well-formed" in codes(diagnostics, Level.WARNING)
    assert "truncated-entry" in codes(diagnostics, Level.WARNING)


def test_short_list_has_one_entry_per_line() -> None:
    path = SJ / "short-list.txt"
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(lines) == 1000
    fmt, entries, diagnostics = read_all(path)
    assert fmt == "text"
    assert len(entries) == len(lines)
    assert [e.loc for e in entries] == [line.strip() for line in lines]
    assert codes(diagnostics, Level.WARNING) == []


def test_text_lines_with_a_tab_are_kept_and_reported() -> None:
    path = SJ / "perf-data.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    with_space = [n for n, line in enumerate(lines, start=1) if re.search(r"[\s<>\"{}|\\^`]", line.strip())]
    assert with_space  # the file really has such lines
    _, entries, diagnostics = read_all(path)
    assert len(entries) == sum(1 for line in lines if line.strip())
    assert [d.line for d in diagnostics if d.code == "loc-not-escaped"] == with_space


def test_index_files_without_following() -> None:
    for name in ("alltags-index.xml", "alltags-index.cdata.xml", "bad-tag-index.xml"):
        path = SJ / name
        _, entries, _ = read_all(path, follow=False)
        assert [(e.loc, e.lastmod.text if e.lastmod else None) for e in entries] == [
            ("https://www.example.com/sitemap1.xml.gz", "2004-10-01T18:23:17+00:00"),
            ("https://www.example.com/sitemap2.xml.gz", "2005-01-01"),
        ], name


@pytest.mark.parametrize("name", ["bad-tag-sitemap.xml", "bad-tag-index.xml"])
def test_unknown_element_under_the_root_is_reported(name: str) -> None:
    path = SJ / name
    lines = path.read_text(encoding="utf-8").splitlines()
    foo = next(number for number, line in enumerate(lines, start=1) if "<foo>" in line)
    _, entries, diagnostics = read_all(path, follow=False)
    assert len(entries) == (7 if name == "bad-tag-sitemap.xml" else 2)  # the rest is read as usual
    assert [d.line for d in diagnostics if d.code == "unknown-element"] == [foo]
