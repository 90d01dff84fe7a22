"""Post-read steps that turn one document into another, plain functions ``(Document, Context) -> Document``.

:func:`plan` picks the steps a conversion needs (pandoc's idea of transforms between reader and writer):

* a feed written as a sitemap, index or text sitemap goes through :func:`feed_to_sitemap` (one entry per
  URL, newest lastmod kept);
* anything that is not already ROR written as ROR goes through :func:`sitemap_to_ror`.
"""

from __future__ import annotations

from collections.abc import Callable

from feedmap.context import Context
from feedmap.converters.feed_to_sitemap import feed_to_sitemap
from feedmap.converters.sitemap_to_ror import sitemap_to_ror
from feedmap.model import DocKind, Document

__all__ = ["Step", "feed_to_sitemap", "plan", "sitemap_to_ror"]

Step = Callable[[Document, Context], Document]

_SITEMAP_TARGETS = frozenset({"sitemap", "sitemapindex", "text"})


def plan(doc: Document, target: str) -> list[Step]:
    """The steps that turn ``doc`` into what format ``target`` expects (often none)."""
    steps: list[Step] = []
    if doc.meta.kind is DocKind.FEED and target in _SITEMAP_TARGETS:
        steps.append(feed_to_sitemap)
    if target == "ror" and doc.format != "ror":
        steps.append(sitemap_to_ror)
    return steps
