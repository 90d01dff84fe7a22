"""Index following as its own step (:mod:`feedmap._web.follow`): the index reader yields the index's own entries,
and :func:`feedmap._web.follow.follow_index` turns an index into its children's entries, opening each child itself
(:func:`feedmap._web.follow.start_document`) with the run's threads and fetcher it is given.

The rules themselves (scope, loops, depth, ``--since``, downloads) are exercised end to end through
``feedmap.read`` in test_sitemapindex.py and test_follow_web.py.
"""

from __future__ import annotations

from pathlib import Path

import feedmap
from feedmap import DocKind, DocMeta, Document, Entry, Options, Position, Reporter
from feedmap._io.http import Shared
from feedmap._io.sources import open_source
from feedmap._web.follow import follow_index
from feedmap.formats import Context
from feedmap.formats.sitemap import _index as sitemapindex

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _index(path: Path, *locs: str) -> Path:
    children = "".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
    path.write_text(f'<?xml version="1.0"?>\n<sitemapindex xmlns="{SM}">\n{children}</sitemapindex>\n')
    return path


def test_the_index_reader_yields_the_index_own_entries_even_when_following_is_on(tmp_path: Path) -> None:
    index = _index(tmp_path / "index.xml", "https://ex.com/a.xml", "https://ex.com/b.xml")
    ctx = Context(reporter=Reporter(), options=Options(follow=True), name=str(index))
    with open_source(index, reporter=ctx.reporter) as source:
        doc = sitemapindex.read(source, ctx=ctx)
        assert doc.meta.kind is DocKind.INDEX
        assert [entry.loc for entry in doc.entries] == ["https://ex.com/a.xml", "https://ex.com/b.xml"]
    assert ctx.reporter.diagnostics == []  # nothing was followed, so nothing was refused or failed


def test_follow_index_leaves_other_kinds_and_no_follow_alone() -> None:
    entries = [Entry(loc="https://ex.com/a")]
    urlset = Document(DocMeta(kind=DocKind.URLSET), entries)
    ctx = Context(reporter=Reporter())
    shared = Shared()  # never used: nothing is followed
    assert follow_index(urlset, ctx, shared) is urlset
    assert urlset.meta.kind is DocKind.URLSET and urlset.entries is entries
    index = Document(DocMeta(kind=DocKind.INDEX), entries)
    index.format = "jsonl"  # JSON lines of kind index: read as they are
    assert follow_index(index, ctx, shared) is index
    assert index.meta.kind is DocKind.INDEX and index.entries is entries
    index.format = "sitemapindex"
    no_follow = Context(reporter=Reporter(), options=Options(follow=False))
    assert follow_index(index, no_follow, shared) is index
    assert index.meta.kind is DocKind.INDEX and index.entries is entries


def test_follow_index_opens_each_child_by_its_content_with_a_child_context(tmp_path: Path) -> None:
    """The step opens the children itself, each read by content (a urlset, a text sitemap) with a context whose
    chain holds the index; the run's threads and fetcher are those it is handed (nothing fetched here)."""
    (tmp_path / "a.xml").write_text(
        f'<urlset xmlns="{SM}"><url><loc>https://ex.com/a/1</loc></url><url><loc>https://ex.com/a/2</loc></url></urlset>'
    )
    (tmp_path / "b.txt").write_text("https://ex.com/b/1\nhttps://ex.com/b/2\n")
    children = [tmp_path / "a.xml", tmp_path / "b.txt"]
    index_entries = [Entry(loc=child.as_uri(), origin=Position("index.xml", n + 3)) for n, child in enumerate(children)]
    index = Document(DocMeta(kind=DocKind.INDEX, title="kept"), index_entries)
    index.format = "sitemapindex"
    ctx = Context(reporter=Reporter(), name="index.xml", path=tmp_path / "index.xml")
    shared = Shared()
    try:
        doc = follow_index(index, ctx, shared)
        assert doc is index
        assert doc.meta.kind is DocKind.URLSET and doc.meta.title == "kept"
        assert [entry.loc for entry in doc.entries] == [f"https://ex.com/{c}/{n}" for c in "ab" for n in (1, 2)]
    finally:
        shared.close()
    assert ctx.reporter.diagnostics == []


def test_a_child_in_json_lines_of_kind_index_is_read_not_followed(tmp_path: Path) -> None:
    """Only a ``<sitemapindex>`` is followed: a JSON lines child of kind index gives its own entries."""
    child = tmp_path / "child.jsonl"
    child.write_text('{"kind":"index"}\n{"loc":"https://ex.com/s.xml"}\n')
    index = _index(tmp_path / "index.xml", "https://ex.com/child.jsonl")
    reporter = Reporter()
    with feedmap.read(index, options=feedmap.Options(maps=[("https://ex.com/", tmp_path)]), reporter=reporter) as doc:
        assert [entry.loc for entry in doc] == ["https://ex.com/s.xml"]
        assert doc.meta.kind is DocKind.URLSET
    assert reporter.diagnostics == []
