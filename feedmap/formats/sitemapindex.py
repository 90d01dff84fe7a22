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

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

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
from feedmap.model import DocKind, DocMeta, Document, Entry
from feedmap.registry import FormatSpec
from feedmap.sources import Source

__all__ = ["FORMAT", "read", "resolve_local", "write"]


def resolve_local(loc: str, ctx: Context, line: int = 0) -> Path | None:
    """The local file a child URL stands for (``--map`` prefix or ``file:`` URL), or None.

    A mapped URL that leads outside its directory is reported (``map-escape``) and gives None.
    """
    for prefix, directory in ctx.options.maps:
        if loc.startswith(prefix):
            rest = unquote(urlsplit(loc[len(prefix) :]).path).lstrip("/")
            target = (directory / rest).resolve()
            base = directory.resolve()
            if target != base and base not in target.parents:
                ctx.warning("map-escape", f"{loc} maps outside {directory}; not read", line)
                return None
            if target.is_dir():
                target = target / "index.xml"
            return target
    if loc.startswith("file:"):
        return Path(unquote(urlsplit(loc).path))
    return None


def _follow(index_entries: Iterator[Entry], ctx: Context) -> Iterator[Entry]:
    from feedmap.api import read_entries

    for index_entry in index_entries:
        loc = index_entry.loc
        line = index_entry.origin.line if index_entry.origin else 0
        path = resolve_local(loc, ctx, line)
        if path is None:
            if any(loc.startswith(prefix) for prefix, _ in ctx.options.maps):
                continue  # mapped, but outside its directory: resolve_local reported map-escape
            ctx.warning(
                "child-not-read",
                f"child sitemap {loc} was not read: fetching over HTTP is not available in this version; "
                "map its URL prefix to a local directory with --map PREFIX=DIR",
                line,
            )
            continue
        key = str(path.resolve())
        if key == ctx.key() or key in ctx.chain:
            ctx.warning("index-loop", f"child sitemap {loc} is an index already being read; not followed", line)
            continue
        if len(ctx.chain) + 1 > ctx.options.max_depth:
            ctx.warning(
                "index-too-deep",
                f"child sitemap {loc} is nested deeper than {ctx.options.max_depth} indexes; not followed",
                line,
            )
            continue
        try:
            yield from read_entries(path, ctx.child(str(path), path))
        except StrictError:
            raise
        except FeedmapError as exc:
            ctx.warning("child-failed", f"child sitemap {loc} could not be read: {exc}", line)


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
