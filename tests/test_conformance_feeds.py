"""Conformance over real feeds: feedparser's own test suite and ROR files published in the wild.

The corpus lives outside the repository (the folder named by ``$FEEDMAP_CORPUS``; see its README); the
tests are skipped, with the reason, when it is absent.

``feedparser/``: every file is read without a crash (a :class:`~feedmap.FeedmapError` is an answer, any other
exception is a bug).  Where feedparser calls the feed well-formed (``bozo == 0``) and its entries have
links, the sitemap feedmap writes lists exactly those links, de-duplicated in first-seen order.  The oracle
is feedparser's ``entry.link`` with two corrections for Atom feeds (RFC 4287 §4.2.7.2), where only
``link[@rel=alternate or no rel]`` is the entry's page: feedparser also makes an entry's ``<id>`` its link
when no alternate link came before it, and lets a later non-alternate ``<link>`` without ``href`` replace
the alternate one (its own test ``entry_link_no_href_link_priority`` expects otherwise).  Entries left
without a link must have been reported (``loc-missing``), links that are not absolute URLs are kept and
reported (``loc-not-absolute``, ``loc-not-escaped``); a feed with a permalink guid feedparser cannot resolve
(it empties the link, feedmap keeps the guid) is left out.  Feeds feedparser calls ill-formed give at least
one diagnostic.

Feeds are read by two paths: lxml streams every well-formed feed, feedparser reads what lxml cannot.  Over
every feed of the suite lxml parses, both paths give the same entries (loc, lastmod, title, description,
keywords) and channel metadata, but for the exceptions listed in ``PATH_EXCEPTIONS`` with their reasons.

``ror-wild/``: every file reads as ROR; the entry count equals the ``<item>``s with a link that are not the
header item (counted with lxml); the ``www.`` namespace is recognised; CRLF files report double escaping
on the lines where it is (found with a regular expression on the raw text); repaired text holds no
entity references any more.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import feedparser
import pytest
from lxml import etree

import feedmap
from feedmap import Diagnostic, DocMeta, Entry, FeedmapError, Level, Reporter
from feedmap.cli import main
from feedmap.formats import Context
from feedmap.formats.feeds import _parsed as _feedparsed

ROR_NAMESPACES = ("http://rorweb.com/0.1/", "http://www.rorweb.com/0.1/")
ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]+")
DOUBLE_ESCAPED = re.compile(r"&amp;(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);")

# ------------------------------------------------------------------------------------------------ helpers


def folder(corpus_dir: Path, name: str) -> Path:
    path = corpus_dir / name
    if not path.is_dir():
        pytest.skip(f"corpus folder {path} is absent")
    return path


def feed_files(corpus_dir: Path) -> list[Path]:
    """Every feed of feedparser's suite (some test folders nest further folders)."""
    root = folder(corpus_dir, "feedparser")
    return sorted(path for path in root.rglob("*.xml") if path.is_file())


def ror_files(corpus_dir: Path) -> list[Path]:
    return sorted(path for path in folder(corpus_dir, "ror-wild").glob("*.xml") if path.is_file())


def read(path: Path | bytes, format: str | None = None) -> tuple[list[Entry], list[Diagnostic], str | None]:
    reporter = Reporter()
    source = io.BytesIO(path) if isinstance(path, bytes) else str(path)
    with feedmap.read(source, format=format, reporter=reporter) as doc:
        entries = list(doc)
        return entries, reporter.diagnostics, doc.format


def to_sitemap(data: bytes) -> tuple[list[str], list[Diagnostic]]:
    """The locs of the sitemap feedmap writes for a feed, and the diagnostics of the conversion."""
    reporter = Reporter()
    sink = io.BytesIO()
    feedmap.convert(io.BytesIO(data), sink, "sitemap", reporter=reporter)
    with feedmap.read(io.BytesIO(sink.getvalue()), format="sitemap") as doc:
        return [entry.loc for entry in doc], reporter.diagnostics


def expected_link(entry: Any, atom: bool) -> str | None:
    """feedparser's link for an entry, corrected for Atom as the module docstring says."""
    link: str | None = entry.get("link") or None
    if not atom:
        return link
    alternates = [
        item["href"] for item in entry.get("links", []) if item.get("rel") == "alternate" and item.get("href")
    ]
    return link if link in alternates else (alternates[0] if alternates else None)


def rel(path: Path, corpus_dir: Path) -> str:
    return path.relative_to(corpus_dir).as_posix()


# ------------------------------------------------------------------------------------------------ feedparser's suite


def test_every_feed_reads_without_a_crash(corpus_dir: Path) -> None:
    files = feed_files(corpus_dir)
    assert len(files) > 400, "feedparser's suite has some 490 feeds"
    crashes = []
    for path in files:
        for action in ("read", "sitemap"):
            try:
                if action == "read":
                    read(path)
                else:
                    to_sitemap(path.read_bytes())
            except FeedmapError:
                pass
            except Exception as exc:  # any other exception is what this test looks for
                crashes.append(f"{rel(path, corpus_dir)} ({action}): {type(exc).__name__}: {exc}")
    assert crashes == []


def test_well_formed_feeds_give_the_links_feedparser_finds(corpus_dir: Path) -> None:
    mismatches = []
    checked = 0
    for path in feed_files(corpus_dir):
        data = path.read_bytes()
        parsed = feedparser.parse(data)
        if parsed.bozo:
            continue
        atom = str(parsed.get("version", "")).startswith("atom")
        links = [expected_link(entry, atom) for entry in parsed.entries]
        expected = list(dict.fromkeys(link for link in links if link is not None))
        if not parsed.entries or any(entry.get("guidislink") and not entry.get("link") for entry in parsed.entries):
            # no entries, or a permalink guid feedparser could not resolve (it empties the link, feedmap
            # keeps the guid as written): nothing to compare
            continue
        checked += bool(expected)
        locs, diagnostics = to_sitemap(data)
        where = rel(path, corpus_dir)
        if locs != expected:
            mismatches.append(f"{where}: feedmap {locs} != feedparser {expected}")
        codes = [d.code for d in diagnostics]
        if codes.count("loc-missing") < links.count(None):
            mismatches.append(f"{where}: {links.count(None)} entries without a link, not all reported: {codes}")
        url_problems = {"loc-not-absolute", "loc-not-escaped"} & set(codes)
        if any(not ABSOLUTE.match(link) for link in expected) and not url_problems:
            mismatches.append(f"{where}: a link that is no absolute URL was not reported: {codes}")
    assert checked >= 40, f"only {checked} well-formed feeds with links: is the corpus complete?"
    assert mismatches == []


def test_ill_formed_feeds_give_diagnostics(corpus_dir: Path) -> None:
    silent = []
    checked = 0
    for path in feed_files(corpus_dir):
        data = path.read_bytes()
        if not feedparser.parse(data).bozo:
            continue
        checked += 1
        for format in (None, "rss"):
            try:
                _, diagnostics, _ = read(data, format)
            except FeedmapError:
                continue
            if not [d for d in diagnostics if d.level >= Level.WARNING]:
                silent.append(f"{rel(path, corpus_dir)} (format {format})")
    assert checked >= 10, f"only {checked} ill-formed feeds: is the corpus complete?"
    assert silent == []


def test_the_cli_answers_every_ill_formed_feed_with_an_exit_code(
    corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    illformed = sorted(path for path in folder(corpus_dir, "feedparser/illformed").rglob("*.xml") if path.is_file())
    assert illformed
    for path in illformed:
        out = tmp_path / "out.xml"
        assert main(["convert", str(path), "-t", "sitemap", "-o", str(out), "-q"]) in (0, 1), path
        if feedparser.parse(path.read_bytes()).bozo:
            assert main(["convert", str(path), "-t", "sitemap", "-o", str(out), "--strict"]) == 1, path
    assert "Traceback" not in capsys.readouterr().err


#: Fields both paths read.  The sitemap extensions (changefreq, priority, images, alternates) and extras
#: were never read by feedparser (feedmap read them with lxml before too): the feedparser path has none.
COMPARED_FIELDS = ("loc", "lastmod", "title", "description", "keywords")
#: Feeds where the two paths differ on purpose, with the reason.
PATH_EXCEPTIONS = {
    "feedparser/rss/item_guid_isPermaLink_ValueError.xml": (
        "feedparser empties a permalink guid it cannot resolve as a URL; the lxml path keeps the guid as "
        "written and reports it as an invalid loc (as feedmap did before)"
    ),
}


def both_paths(data: bytes) -> tuple[tuple[DocMeta, list[tuple[Any, ...]]], tuple[DocMeta, list[tuple[Any, ...]]]]:
    """(meta, compared fields of each entry) read by the streaming path and by the feedparser path."""
    with feedmap.read(io.BytesIO(data), format="rss", reporter=Reporter()) as doc:
        streamed = (doc.meta, [tuple(getattr(entry, name) for name in COMPARED_FIELDS) for entry in doc])
    with _feedparsed.read_with_feedparser(data, Context(reporter=Reporter(), name="feed")) as doc:
        parsed = (doc.meta, [tuple(getattr(entry, name) for name in COMPARED_FIELDS) for entry in doc])
    return streamed, parsed


def well_formed(data: bytes) -> bool:
    try:
        etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False))
    except etree.XMLSyntaxError:
        return False
    return True


def test_the_lxml_and_feedparser_paths_give_the_same_entries(corpus_dir: Path) -> None:
    differing = {}
    compared = 0
    for path in feed_files(corpus_dir):
        data = path.read_bytes()
        if not well_formed(data):
            continue
        compared += 1
        streamed, parsed = both_paths(data)
        if streamed != parsed:
            differing[rel(path, corpus_dir)] = f"lxml {streamed} != feedparser {parsed}"
    assert compared > 400, f"only {compared} well-formed feeds: is the corpus complete?"
    unexpected = {name: difference for name, difference in differing.items() if name not in PATH_EXCEPTIONS}
    assert unexpected == {}
    assert set(differing) == set(PATH_EXCEPTIONS), "an exception no longer differs: remove it"


# ------------------------------------------------------------------------------------------------ ROR in the wild


def ror_children(item: etree._Element, local: str) -> list[etree._Element]:
    return [
        child
        for child in item
        if etree.QName(child).namespace in ROR_NAMESPACES and etree.QName(child).localname == local
    ]


def page_items(path: Path) -> list[etree._Element]:
    """The items of a ROR file that are pages: a non-empty link, and no ror:about=sitemap (the header)."""
    root = etree.fromstring(path.read_bytes(), etree.XMLParser(resolve_entities=False, no_network=True))
    pages = []
    for item in root.iter("item"):
        about = [(child.text or "").strip().lower() for child in ror_children(item, "about")]
        if (item.findtext("link") or "").strip() and "sitemap" not in about:
            pages.append(item)
    return pages


def test_every_ror_file_reads_with_one_entry_per_page_item(corpus_dir: Path) -> None:
    files = ror_files(corpus_dir)
    assert len(files) >= 5
    for path in files:
        entries, diagnostics, fmt = read(path)
        assert fmt == "ror", path.name
        pages = page_items(path)
        assert [entry.loc for entry in entries] == [(item.findtext("link") or "").strip() for item in pages], path.name
        # wild files need repairs at most: nothing else is worth a warning
        assert {d.code for d in diagnostics if d.level >= Level.WARNING} <= {"double-escaped"}, path.name


def test_the_www_namespace_is_ror(corpus_dir: Path) -> None:
    www = [path for path in ror_files(corpus_dir) if b'"http://www.rorweb.com/0.1/"' in path.read_bytes()]
    assert www, "the corpus has a file in the www. namespace"
    for path in www:
        entries, _, fmt = read(path)
        assert fmt == "ror"
        pages = page_items(path)
        assert len(entries) == len(pages) > 0
        # its ror:updated and ror:type are read, so the namespace was matched
        updated = [ror_children(item, "updated") for item in pages]
        assert [entry.lastmod.text if entry.lastmod else None for entry in entries] == [
            found[0].text.strip() if found and found[0].text else None for found in updated
        ]
        assert all(entry.type for entry in entries)


def test_empty_ror_elements_are_kept_empty_without_warnings(corpus_dir: Path) -> None:
    seen = 0
    for path in ror_files(corpus_dir):
        entries, diagnostics, _ = read(path)
        for entry, item in zip(entries, page_items(path), strict=True):
            for local in ("updatePeriod", "sortOrder"):
                found = ror_children(item, local)
                if found and not (found[0].text or "").strip():
                    seen += 1
                    assert entry.extras.get(f"ror:{local}") == "", (path.name, entry.loc)
                    if local == "updatePeriod":
                        assert entry.changefreq is None
        assert "changefreq-invalid" not in {d.code for d in diagnostics}
    assert seen > 0, "the corpus has empty ror:updatePeriod / ror:sortOrder elements"


def double_escaped_lines(data: bytes) -> list[int]:
    """1-based lines of title, description and ror:keywords elements whose raw text is escaped twice."""
    text = data.decode("utf-8")
    lines = []
    for match in re.finditer(r"<(title|description|[\w.-]+:keywords)>(.*?)</\1>", text, re.DOTALL):
        if DOUBLE_ESCAPED.search(match.group(2)):
            lines.append(text.count("\n", 0, match.start()) + 1)
    return lines


def test_crlf_files_report_double_escaping_on_its_lines(corpus_dir: Path) -> None:
    crlf = [path for path in ror_files(corpus_dir) if b"\r\n" in path.read_bytes()]
    assert crlf, "the corpus has a ROR file with CRLF line ends"
    checked = 0
    for path in crlf:
        data = path.read_bytes()
        expected = double_escaped_lines(data)
        _, diagnostics, _ = read(path)
        assert sorted(d.line for d in diagnostics if d.code == "double-escaped") == expected, path.name
        checked += len(expected)
    assert checked > 0, "a CRLF file in the corpus has double-escaped text"


def test_double_escaped_text_is_repaired(corpus_dir: Path) -> None:
    repaired = 0
    for path in ror_files(corpus_dir):
        entries, diagnostics, _ = read(path)
        repaired += sum(d.code == "double-escaped" for d in diagnostics)
        for entry in entries:
            for text in (entry.title, entry.description, *entry.keywords):
                assert text is None or not re.search(r"&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);", text), (
                    path.name,
                    text,
                )
    assert repaired > 0


def test_written_ror_and_rss_of_wild_files_are_read_by_feedparser(corpus_dir: Path) -> None:
    for path in ror_files(corpus_dir):
        count = len(read(path)[0])
        for target in ("ror", "rss"):
            sink = io.BytesIO()
            feedmap.convert(str(path), sink, target)
            parsed = feedparser.parse(sink.getvalue())
            assert parsed.bozo == 0, (path.name, target, parsed.get("bozo_exception"))
            assert len(parsed.entries) == count + (target == "ror"), (path.name, target)
