"""``ror``: RSS 2.0 carrying ROR ("Resources of a Resource", http://rorweb.com/0.1/) elements.

ROR in RSS 2.0 (rorweb.com, dormant since about 2006): each object is an ``<item>``;
RSS ``title``, ``link`` and ``description`` keep their meaning and ROR properties are ``ror:*`` children.

Reading uses lxml by namespace URI — ``http://rorweb.com/0.1/`` and the ``www.`` variant, any prefix —
never feedparser, which renames ``ror:*`` after the document's prefix and loses the text of elements
with attributes.  Mapping: ``link`` (else a permalink ``guid``) -> loc; ``ror:updated`` (W3C, exact) wins
over ``pubDate`` for lastmod; ``ror:updatePeriod`` -> changefreq (``day`` -> ``daily`` ...);
``ror:keywords`` split on commas; ``ror:type`` -> type; ``sitemap:priority`` -> priority (written by
feedmap to keep priority losslessly); elements an extension claims (:mod:`feedmap.formats.ext`:
``image:image`` -> images, hreflang alternates, third-party ones) through its read hook; every other
``ror:*`` (``sortOrder``, ``about``, ``seeAlso``, ``descLong``, ...) -> ``extras["ror:NAME"]``; other
foreign elements -> extras verbatim.  The header item (``ror:about`` = sitemap, or ``ror:type``
SiteMap/Main) describes the document: it becomes document metadata, never an entry.  A single-valued child
given twice (every one but RSS ``category``) is reported and its first value kept.  Text that was escaped
twice (``&amp;amp;``) is unescaped once with a warning; URLs are never touched.

Writing emits the sitemap shape real generators use (Joomla RSSeo, Laravel sitemap, A1): the channel,
the header item, then one item per entry with ``title``, ``link``, ``guid``, ``description``,
``ror:keywords``, ``ror:updated`` plus ``pubDate``, ``ror:updatePeriod``, ``ror:type``, ``ror:resourceOf``,
``sitemap:priority`` and the extensions' elements, written by their write hooks: ``image:image``, hreflang
alternates (``atom:link rel="alternate" hreflang``, before ``title``; ``xhtml:link`` is read too),
third-party ones.  XML extras an RSS 2.0 item cannot hold (RDF, Atom, XHTML markup) are left out
(``extra-dropped``).  The channel's ``lastBuildDate`` is read and written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, BinaryIO

from feedmap._core.context import Context
from feedmap._core.errors import ReadError
from feedmap._core.model import ENTRY_FIELDS, Document
from feedmap._io.sources import Source
from feedmap._xml import peek_root
from feedmap.formats._registry import FormatSpec
from feedmap.formats.ext import report_broken
from feedmap.formats.feeds._rorread import ROR_NAMESPACES, ROR_NS, channel_meta, ror_items

if TYPE_CHECKING:
    from feedmap.formats._registry import Rendered


__all__ = ["FORMAT", "ROR_NAMESPACES", "ROR_NS", "read", "render", "write"]


def read(source: Source, *, ctx: Context) -> Document:
    report_broken(ctx)
    root = peek_root(source.stream)
    if root is None or root.local != "rss":
        found = f"<{root.local}>" if root is not None else "no XML root element"
        raise ReadError(f"a ROR document is RSS 2.0 (<rss>); found {found}", source=ctx.name, code="wrong-root")
    if not root.namespaces & ROR_NAMESPACES:
        ctx.warning("no-ror-namespace", f"the document does not declare the ROR namespace {ROR_NS}")
    meta, repair = channel_meta(source, ctx)
    return Document(meta, ror_items(source, meta, ctx, repair=repair), diagnostics=ctx.reporter.diagnostics)


def render(doc: Document, *, ctx: Context) -> Rendered:
    from feedmap.formats.feeds._rorwrite import render as rendered  # the writer loads when a run writes ROR

    return rendered(doc, ctx=ctx)


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    from feedmap.formats.feeds._rorwrite import write as written

    return written(doc, sink, ctx=ctx)


FORMAT = FormatSpec(
    name="ror",
    title="ROR RSS (RSS 2.0 with Resources-of-a-Resource elements, http://rorweb.com/0.1/)",
    extensions=(".ror",),
    roots=(("*", "rss"),),
    requires_namespaces=ROR_NAMESPACES,
    priority=20,
    reader=read,
    writer=write,
    renderer=render,
    fields=frozenset(ENTRY_FIELDS),
    description="header item -> document metadata; ror:updated exact + pubDate; other ror:* kept in extras",
)
