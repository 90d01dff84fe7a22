"""``atom``: Atom 1.0 feeds (RFC 4287), written one ``<entry>`` per entry; read as every feed is read.

Writing (:mod:`feedmap.formats.feeds._atomwrite`): ``<feed xmlns="http://www.w3.org/2005/Atom">`` with its
``id``, ``title``, ``updated``, ``author``, alternate and self links, then one ``<entry>`` per entry with ``id``,
``title``, ``link rel="alternate"`` (and its hreflang alternates), ``updated`` (RFC 3339; a lastmod it cannot hold
exactly also as ``dc:date``), ``summary``, ``category`` per keyword, ``sitemap:changefreq``,
``sitemap:priority``, Google images and the extensions' elements: what the W3C Feed Validator takes without an
error.  An entry's ``type`` has no place in Atom (``field-dropped``).

Reading is the ``rss`` format's (:mod:`feedmap.formats.feeds._feedread`: any feed, RSS or Atom, streamed): an
Atom input is recognised as ``rss`` by its content, and ``-f atom`` (or ``application/atom+xml``) reads it the
same way.  ``.atom`` names this format for an output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, BinaryIO

from feedmap._core.context import Context
from feedmap._core.model import ENTRY_FIELDS, Document
from feedmap.formats._registry import FormatSpec
from feedmap.formats.feeds._feedread import read

if TYPE_CHECKING:
    from feedmap.formats._registry import Rendered

__all__ = ["FORMAT", "read", "render", "write"]


def render(doc: Document, *, ctx: Context) -> Rendered:
    from feedmap.formats.feeds._atomwrite import render as rendered  # the writer loads when a run writes Atom

    return rendered(doc, ctx=ctx)


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    from feedmap.formats.feeds._atomwrite import write as written

    return written(doc, sink, ctx=ctx)


FORMAT = FormatSpec(
    name="atom",
    title="Atom 1.0 feed (RFC 4287; read as the rss format reads feeds)",
    extensions=(".atom",),
    media_types=("application/atom+xml",),
    reader=read,
    writer=write,
    renderer=render,
    fields=frozenset(ENTRY_FIELDS) - {"type"},
    description="entry id, title, alternate link, updated (RFC 3339), summary, categories; changefreq, priority "
    "and images as extension elements; the feed's id, title, author and updated from the options or the entries",
)
