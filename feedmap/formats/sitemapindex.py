"""``sitemapindex``: the sitemaps.org 0.9 sitemap index (``<sitemapindex>`` of ``<sitemap>`` entries).

Spec: https://www.sitemaps.org/protocol.html#index (XSD siteindex.xsd): each ``<sitemap>`` has a ``loc``
and an optional ``lastmod``; an index lists at most 50,000 sitemaps.

Reading follows the children by default and yields their entries, one child after another (streaming).
A child is read from disk when its URL starts with a ``--map PREFIX=DIR`` prefix (a static-site build
directory) or is a ``file:`` URL; nested indexes are followed up to a depth cap, and a loop is reported
and not followed.  A child that cannot be read is reported with its URL and the rest goes on.  With
``follow=False`` (``--no-follow``) the index's own entries (loc, lastmod) are yielded.

Writing emits an index with one ``<sitemap>`` per entry (loc and lastmod; other fields are dropped with
an INFO diagnostic).  Writers never nest indexes.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from feedmap._urls import is_http_url, same_site
from feedmap._xml import peek_root
from feedmap.context import Context
from feedmap.errors import FeedmapError, StrictError
from feedmap.formats.sitemap import (
    SizeWatch,
    check_root,
    escape_text,
    iter_entries,
    output_url,
    root_open_tag,
    write_blocks,
    xml_extras,
)
from feedmap.locate import MapEscapeError, local_path
from feedmap.model import DocKind, DocMeta, Document, Entry
from feedmap.registry import FormatSpec
from feedmap.sources import Source

__all__ = ["FORMAT", "read", "write"]

_SPOOL_IN_MEMORY = 1 << 20


@dataclass(slots=True)
class _Child:
    """A child sitemap about to be read: from disk (``path``) or being downloaded (``download``)."""

    loc: str
    line: int
    path: Path | None = None
    download: Future[tuple[BinaryIO, str]] | None = None


def _download(url: str, ctx: Context) -> tuple[BinaryIO, str]:
    """Fetch a child into a spooled temporary file (in memory up to 1 MiB), capped at ``--max-bytes``.

    Returns the file and the URL it was found at after redirects (the site a nested index is scoped to).
    """
    spool = tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY)  # noqa: SIM115 - handed to the reader
    try:
        with ctx.fetcher().open(url, max_bytes=ctx.options.max_bytes) as fetched:
            while chunk := fetched.read(1 << 16):
                spool.write(chunk)
            final_url = fetched.final_url
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool, final_url  # type: ignore[return-value]


def _plan(index_entry: Entry, ctx: Context) -> _Child | None:
    """Decide how a child is read, or report why it is not (and give None)."""
    loc = index_entry.loc
    line = index_entry.origin.line if index_entry.origin else 0
    options = ctx.options
    if options.follow_child is not None and not options.follow_child(loc, index_entry.lastmod):
        lastmod = f" (lastmod {index_entry.lastmod})" if index_entry.lastmod is not None else ""
        ctx.info("child-skipped", f"child sitemap {loc}{lastmod} is not read: the follow filter left it out", line)
        return None
    if ctx.url is not None and is_http_url(ctx.url) and not same_site(loc, ctx.url):
        ctx.warning(
            "child-off-site",
            f"child sitemap {loc} is not on the index's site ({ctx.url}); not read "
            "(an index may list only sitemaps of its own scheme, host and port)",
            line,
        )
        return None
    try:
        path = local_path(loc, options.maps)
    except MapEscapeError as exc:
        ctx.warning("map-escape", str(exc), line)
        return None
    if path is None and not is_http_url(loc):
        ctx.warning("child-not-read", f"child sitemap {loc} is not an http(s) URL; not read", line)
        return None
    key = str(path.resolve()) if path is not None else loc
    if key == ctx.key() or key in ctx.chain:
        ctx.warning("index-loop", f"child sitemap {loc} is an index already being read; not followed", line)
        return None
    if len(ctx.chain) + 1 > options.max_depth:
        ctx.warning(
            "index-too-deep",
            f"child sitemap {loc} is nested deeper than {options.max_depth} indexes; not followed",
            line,
        )
        return None
    if path is not None:
        return _Child(loc, line, path=path)
    return _Child(loc, line, download=ctx.shared.pool(options.concurrency).submit(_download, loc, ctx))


def _read_child(child: _Child, ctx: Context) -> Iterator[Entry]:
    from feedmap.api import read_entries

    try:
        if child.download is not None:
            body, final_url = child.download.result()
            with body:
                yield from read_entries(body, ctx.child(child.loc, None, url=final_url))
        else:
            assert child.path is not None
            mapped = child.loc if not child.loc.startswith("file:") else None
            yield from read_entries(child.path, ctx.child(str(child.path), child.path, url=mapped))
    except StrictError:
        raise
    except FeedmapError as exc:
        ctx.warning("child-failed", f"child sitemap {child.loc} could not be read: {exc}", child.line)


def _follow(index_entries: Iterator[Entry], ctx: Context) -> Iterator[Entry]:
    """The entries of each child in index order, while up to ``concurrency`` children download ahead."""
    window: deque[_Child] = deque()
    try:
        for index_entry in index_entries:
            child = _plan(index_entry, ctx)
            if child is None:
                continue
            window.append(child)
            if len(window) > max(0, ctx.options.concurrency - 1):
                yield from _read_child(window.popleft(), ctx)
        while window:
            yield from _read_child(window.popleft(), ctx)
    finally:
        for child in window:  # stopped early (an error, or the caller closed us): drop what is in flight
            if child.download is not None and not child.download.cancel():
                with contextlib.suppress(BaseException):
                    child.download.result()[0].close()


def read(source: Source, *, ctx: Context) -> Document:
    root = peek_root(source.stream)
    namespace = check_root(root, "sitemapindex", ctx)
    entries = iter_entries(source, ctx, namespace, "sitemap")
    if not ctx.options.follow:
        return Document(DocMeta(kind=DocKind.INDEX), entries, diagnostics=ctx.reporter.diagnostics)
    return Document(DocMeta(kind=DocKind.URLSET), _follow(entries, ctx), diagnostics=ctx.reporter.diagnostics)


def _sitemap_block(entry: Entry, ctx: Context, dropped: set[str]) -> str:
    parts = ["<sitemap><loc>", escape_text(output_url(entry.loc, ctx)), "</loc>"]
    if entry.lastmod is not None:
        parts += ["<lastmod>", entry.lastmod.text, "</lastmod>"]
    if entry.extras:
        parts += xml_extras(entry, dropped, ctx, {})
    parts.append("</sitemap>\n")
    return "".join(parts)


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    dropped: set[str] = set()
    blocks = (_sitemap_block(entry, ctx, dropped) for entry in doc.entries)
    header = root_open_tag("sitemapindex", "", ctx)
    count = write_blocks(sink, header, "</sitemapindex>\n", blocks, SizeWatch(ctx, "sitemaps"))
    if count == 0:
        ctx.warning("empty-document", "no entries: wrote an empty <sitemapindex>")
    return count


FORMAT = FormatSpec(
    name="sitemapindex",
    title="XML sitemap index (sitemaps.org 0.9 sitemapindex)",
    extensions=(),
    roots=(("*", "sitemapindex"),),
    priority=10,
    reader=read,
    writer=write,
    fields=frozenset({"loc", "lastmod", "extras"}),
    description="reading follows children (--map PREFIX=DIR, file: URLs) unless --no-follow",
)
