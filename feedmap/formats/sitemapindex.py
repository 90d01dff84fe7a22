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

import tempfile
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit, urlunsplit

from feedmap._urls import is_http_url, same_site
from feedmap._xml import peek_root
from feedmap.context import Context
from feedmap.errors import FeedmapError, StrictError, UnknownFormatError, reason_of
from feedmap.formats.sitemap import (
    SizeWatch,
    check_root,
    iter_entries,
    loc_text,
    root_open_tag,
    write_blocks,
    xml_extras,
)
from feedmap.locate import MapEscapeError, local_path
from feedmap.model import DocKind, DocMeta, Document, Entry
from feedmap.registry import FormatSpec
from feedmap.sources import Source

__all__ = ["FORMAT", "child_refusal", "loop_key", "read", "write"]

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


def loop_key(url: str) -> str:
    """What identifies a fetched index for loop detection: its URL without fragment, scheme and host lowercased."""
    try:
        parts = urlsplit(url)
    except ValueError:  # a malformed authority (``http://[::1/x``): the URL as written
        return url
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


def child_refusal(
    loc: str, index_url: str | None, key: str, ancestors: tuple[str, ...], max_depth: int
) -> tuple[str, str] | None:
    """Why a child of an index is not read, as (code, reason), or None: the rules of index following.

    ``index_url`` is where the index was found (its final URL after redirects; None for a local file),
    ``key`` the child's :func:`loop_key` (or resolved path), ``ancestors`` the keys of the indexes being
    read, the child's own index last.
    """
    if index_url is not None and is_http_url(index_url) and not same_site(loc, index_url):
        return "child-off-site", (
            f"is not on the index's site ({index_url}); not read "
            "(an index may list only sitemaps of its own scheme, host and port)"
        )
    if not is_http_url(loc) and not loc.startswith("file:"):
        return "child-not-read", "is not an http(s) URL; not read"
    if key in ancestors:
        return "index-loop", "is an index already being read; not followed"
    if len(ancestors) > max_depth:
        return "index-too-deep", f"is nested deeper than {max_depth} indexes; not followed"
    return None


def _plan(index_entry: Entry, ctx: Context) -> _Child | None:
    """Decide how a child is read, or report why it is not (and give None)."""
    loc = index_entry.loc
    line = index_entry.origin.line if index_entry.origin else 0
    options = ctx.options
    if options.follow_child is not None and not options.follow_child(loc, index_entry.lastmod):
        lastmod = f" (lastmod {index_entry.lastmod})" if index_entry.lastmod is not None else ""
        ctx.info("child-skipped", f"child sitemap {loc}{lastmod} is not read: the follow filter left it out", line)
        return None
    try:
        path = local_path(loc, options.maps)
    except MapEscapeError as exc:
        ctx.warning("map-escape", str(exc), line)
        return None
    key = str(path.resolve()) if path is not None else loop_key(loc)
    refused = child_refusal(loc, ctx.url, key, (*ctx.chain, ctx.key()), options.max_depth)
    if refused is not None:
        code, reason = refused
        ctx.warning(code, f"child sitemap {loc} {reason}", line)
        return None
    if path is not None:
        return _Child(loc, line, path=path)
    return _Child(loc, line, download=ctx.shared.pool(options.concurrency).submit(_download, loc, ctx))


def _discard(download: Future[tuple[BinaryIO, str]]) -> None:
    """Close a child downloaded after nobody wanted it any more (without waiting for it)."""
    if not download.cancelled() and download.exception() is None:
        download.result()[0].close()


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
    except UnknownFormatError as exc:
        reason = f"it is not a sitemap: it {exc.what}" if exc.what else str(exc)
        ctx.warning("child-failed", f"child sitemap {child.loc} could not be read: {reason}", child.line)
    except FeedmapError as exc:
        reason = reason_of(exc, child.loc)  # the URL is named once, first
        ctx.warning("child-failed", f"child sitemap {child.loc} could not be read: {reason}", child.line)


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
                child.download.add_done_callback(_discard)


def read(source: Source, *, ctx: Context) -> Document:
    root = peek_root(source.stream)
    namespace = check_root(root, "sitemapindex", ctx)
    entries = iter_entries(source, ctx, namespace, "sitemap")
    if not ctx.options.follow:
        return Document(DocMeta(kind=DocKind.INDEX), entries, diagnostics=ctx.reporter.diagnostics)
    return Document(DocMeta(kind=DocKind.URLSET), _follow(entries, ctx), diagnostics=ctx.reporter.diagnostics)


def _sitemap_block(entry: Entry, ctx: Context, dropped: set[str]) -> str:
    parts = ["<sitemap><loc>", loc_text(entry, ctx), "</loc>"]
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
