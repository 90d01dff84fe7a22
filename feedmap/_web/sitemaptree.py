"""The tree of a sitemap index with entry counts (``feedmap discover --tree``).

Where the rules come from:

* **The sitemap index** (sitemaps.org protocol, "Using Sitemap index files",
  https://www.sitemaps.org/protocol.html#index): an index lists sitemaps (``<sitemap><loc>``).  The protocol
  does not nest indexes, but real sites do, so a child index is read too, as
  :mod:`feedmap._web.follow` follows it.  A node counts its document's own entries: URLs (feed
  items) for a urlset, feed or text sitemap, child sitemaps for an index.
* **Scope** (sitemaps.org: an index lists only sitemaps "found on the same site as the Sitemap index
  file"): a child must have its index's scheme, host and port, else it is not read
  (``child-off-site``).  The index's site is that of the URL it was found at after redirects:
  an index asked for at ``http://example.com/old.xml`` and served from ``https://example.com/index.xml``
  has the children of ``https://example.com``, as in :mod:`feedmap._web.follow`.  A child's own
  redirects must stay on its index's site too (checked before each hop is requested: ``child-off-site``).
* **Following**: each sitemap is read without following (``follow=False``), an index's children are then
  read concurrently (one pool, ``concurrency`` at once), level by level, under the rules of index following:
  an index already being read is a loop (``index-loop``), nesting deeper than ``max_depth`` stops
  (``index-too-deep``).  A child that fails becomes a node with an error code and the rest goes on.

Sitemaps are opened as :mod:`feedmap._web.discover` opens them, so ``--map PREFIX=DIR`` applies; the root may be
an http(s) URL, a ``file:`` URL or a local path (``feedmap discover --tree FILE``).  Nothing here prints or exits.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from feedmap._core.call_fields import refuse_unused
from feedmap._core.context import Context, Options, reporter_for
from feedmap._core.errors import Diagnostic, DiagnosticHandler, FeedmapError, Reporter, SourceError, reason_of
from feedmap._io.http import Shared
from feedmap._io.locate import local_path
from feedmap._io.sources import is_url
from feedmap._web.discover import error_code, open_url
from feedmap._web.follow import child_refusal, child_url, loop_key, resolved_message, same_site_rule
from feedmap.formats import _registry as registry

__all__ = ["SitemapNode", "sitemap_tree", "sitemap_trees"]

#: What a node's ``kind`` is for each built-in format (other formats: the document's kind).
_KINDS = {
    "sitemapindex": "index",
    "sitemap": "urlset",
    "rss": "feed",
    "ror": "feed",
    "atom": "feed",
    "text": "text",
    "jsonl": "jsonl",
}


@dataclass(slots=True)
class SitemapNode:
    """One sitemap of a tree: what it is and how many entries it has, or why it could not be read.

    ``entries`` counts the document's own entries: URLs (feed items) for a urlset, feed or text sitemap,
    child sitemaps for an index.  ``code`` and ``error`` are set when the sitemap was not read: the fetch
    error's code (``http-404``, ``timeout``, ``too-large``, ...), ``not-a-sitemap``, ``child-off-site``,
    ``index-loop``, ``index-too-deep``, ``map-escape``, ``child-not-read``.
    """

    url: str
    kind: str | None = None
    format: str | None = None
    entries: int = 0
    code: str | None = None
    error: str | None = None
    #: The line of the parent index that lists it (0 for a root).
    line: int = 0
    children: list[SitemapNode] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def urls(self) -> int:
        """The URLs below this node: its own entries, or for an index the sum over the children read."""
        return sum(node.entries for _, node in self.walk() if node.ok and node.kind not in ("index", None))

    @property
    def failed(self) -> int:
        """How many sitemaps of this subtree (this one included) could not be read."""
        return sum(1 for _, node in self.walk() if not node.ok)

    def walk(self, depth: int = 0) -> Iterator[tuple[int, SitemapNode]]:
        """This node and its descendants, depth first, each with its depth (0 for this node).

        An explicit stack, not a generator per level: a tree as deep as ``max_depth`` allows costs no
        Python stack (as following an index does not, see :mod:`feedmap._web.follow`).
        """
        stack = [(depth, self)]
        while stack:
            level, node = stack.pop()
            yield level, node
            stack.extend((level + 1, child) for child in reversed(node.children))

    def to_dict(self) -> dict[str, Any]:
        made: dict[int, dict[str, Any]] = {}
        for _, node in self.walk():
            made[id(node)] = {
                "url": node.url,
                "kind": node.kind,
                "format": node.format,
                "entries": node.entries,
                "urls": 0,
                "error": {"code": node.code, "message": node.error} if node.error is not None else None,
                "children": [],
            }
        for _, node in self.walk():  # children lists, and URL counts from the leaves up
            made[id(node)]["children"] = [made[id(child)] for child in node.children]
        for _, node in reversed(list(self.walk())):
            record = made[id(node)]
            if node.kind == "index":
                record["urls"] = sum(child["urls"] for child in record["children"])
            else:
                record["urls"] = node.entries if node.ok else 0
        return made[id(self)]


@dataclass(slots=True)
class _Read:
    """What reading one sitemap gave (made in a pool thread, applied in the caller's)."""

    format: str | None = None
    kind: str | None = None
    entries: int = 0
    children: list[tuple[str, int]] = field(default_factory=list)
    #: The URL the sitemap was found at after redirects (the site its children are scoped to).
    final_url: str | None = None
    code: str | None = None
    error: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _read(url: str, options: Options, shared: Shared, index_url: str | None) -> _Read:
    """Read one sitemap without following it: its format, kind, entry count, and an index's children.

    ``index_url`` is the final URL of the index listing it (None for a root): a redirect off that index's
    site is refused before it is followed (``child-off-site``).
    """
    reporter = Reporter()
    result = _Read(diagnostics=reporter.diagnostics)
    rule = same_site_rule(index_url)
    try:
        with open_url(url, options, shared, reporter, options.max_bytes, rule) as source:
            result.final_url = source.url or url
            spec = registry.detect(source, reporter)
            assert spec.reader is not None
            ctx = Context(reporter=reporter, options=options, name=url, path=source.path, url=result.final_url)
            doc = spec.reader(source, ctx=ctx)
            result.format = spec.name
            result.kind = _KINDS.get(spec.name, doc.meta.kind.value)
            if result.kind == "index":
                for entry in doc.entries:
                    result.children.append((entry.loc, entry.origin.line if entry.origin else 0))
                result.entries = len(result.children)
            else:
                result.entries = sum(1 for _ in doc.entries)
    except FeedmapError as exc:
        result.code = error_code(exc)
        result.error = reason_of(exc, url)
        if result.code == "redirect-refused":
            result.code = "child-off-site"
        result.children.clear()
    return result


def _key(url: str, options: Options) -> str:
    """What identifies a sitemap of the tree for loop detection (as :mod:`feedmap._web.follow` knows a child): the
    file it is read from, resolved (a local path, a ``--map`` or ``file:`` URL), else its URL normalised."""
    try:
        path = local_path(url, options.maps) if is_url(url) else Path(url)
    except SourceError:  # outside its folder, no regular file: refused when it is read
        path = None
    return str(path.resolve()) if path is not None else loop_key(url)


def sitemap_trees(
    urls: Sequence[str | os.PathLike[str]],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> list[SitemapNode]:
    """The tree of each sitemap of ``urls``, read with one HTTP client and one pool of threads.

    Each of ``urls`` is an http(s) URL, a ``file:`` URL or a local path (a ``str`` or a ``Path``).  A sitemap read
    from a local path has no site: its children are not held to one (as following a local index does not), but
    every sitemap read from a file is known by that file, so a child that maps back to an index being read is a
    loop (``index-loop``).

    The settings that apply are in ``options`` (:class:`~feedmap._core.context.Options`): ``concurrency``
    (threads of the pool), ``max_depth``, ``max_bytes``, ``http``, ``maps``, ``strict``; each sitemap is
    read without following (``follow`` is ignored).  Sitemaps are read level by level: the roots, then
    every child of the indexes among them at once, and so on.  A sitemap that cannot be read is a node
    with ``code``/``error``; the rest goes on.  The diagnostics of the documents read (lenient repairs,
    ...) go to ``on_diagnostic`` / ``reporter``, in tree order.
    """
    refuse_unused(options or Options(), "sitemap_tree")
    options = replace(options or Options(), follow=False)
    reporter = reporter_for(options, reporter, on_diagnostic)
    roots = [SitemapNode(os.fspath(url)) for url in urls]
    #: (node, keys of the indexes above it, final URL of its index)
    frontier: list[tuple[SitemapNode, tuple[str, ...], str | None]] = [(node, (), None) for node in roots]
    shared = Shared()
    try:
        pool = shared.pool(options.concurrency)
        while frontier:
            futures: list[Future[_Read]] = [
                pool.submit(_read, node.url, options, shared, index_url) for node, _, index_url in frontier
            ]
            following: list[tuple[SitemapNode, tuple[str, ...], str | None]] = []
            for (node, chain, _), future in zip(frontier, futures, strict=True):
                read = future.result()
                node.format, node.kind, node.entries = read.format, read.kind, read.entries
                node.code, node.error = read.code, read.error
                for diagnostic in read.diagnostics:
                    reporter.report(diagnostic)
                inner = (*chain, _key(node.url, options))
                for written, line in read.children:
                    scope = read.final_url or node.url
                    loc = child_url(written, scope) or written
                    if loc != written:
                        reporter.info("relative-url-resolved", resolved_message(written, loc), node.url, line)
                    child = SitemapNode(loc, line=line)
                    node.children.append(child)
                    refused = child_refusal(loc, scope, _key(loc, options), inner, options.max_depth)
                    if refused is not None:
                        child.code, child.error = refused
                    else:
                        following.append((child, inner, scope))
            frontier = following
    finally:
        shared.close()
    return roots


def sitemap_tree(
    url: str | os.PathLike[str],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> SitemapNode:
    """The tree of one sitemap or index: ``url`` is its http(s) URL (read from a folder when ``options.maps`` maps
    it), a ``file:`` URL or a local path; see :func:`sitemap_trees`."""
    (root,) = sitemap_trees([url], options, on_diagnostic=on_diagnostic, reporter=reporter)
    return root
