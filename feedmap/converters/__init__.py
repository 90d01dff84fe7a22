"""Post-read steps that turn one document into another, plain functions ``(Document, Context) -> Document``.

:func:`plan` picks the steps a conversion needs (pandoc's idea of transforms between reader and writer):

* a feed written as a sitemap, index or text sitemap goes through :func:`feed_to_sitemap` (one entry per
  URL, newest lastmod kept);
* with ``enrich=True`` (``--enrich``), :func:`~feedmap.converters.enrich.enrich_step` fills titles,
  descriptions and keywords from the pages (after deduplication, so each URL is fetched once; before
  :func:`sitemap_to_ror`, which counts the entries still without a title);
* anything that is not already ROR written as ROR goes through :func:`sitemap_to_ror`.

The library function for enrichment outside a conversion is :func:`feedmap.converters.enrich.enrich`.
"""

from __future__ import annotations

from collections.abc import Callable

from feedmap.context import Context
from feedmap.converters.enrich import enrich_step
from feedmap.converters.feed_to_sitemap import feed_to_sitemap
from feedmap.converters.sitemap_to_ror import sitemap_to_ror
from feedmap.model import DocKind, Document

__all__ = ["Step", "enrich_step", "feed_to_sitemap", "plan", "sitemap_to_ror"]

Step = Callable[[Document, Context], Document]

_SITEMAP_TARGETS = frozenset({"sitemap", "sitemapindex", "text"})


def plan(doc: Document, target: str, *, enrich: bool = False) -> list[Step]:
    """The steps that turn ``doc`` into what format ``target`` expects (often none), enriching pages if asked."""
    steps: list[Step] = []
    if doc.meta.kind is DocKind.FEED and target in _SITEMAP_TARGETS:
        steps.append(feed_to_sitemap)
    if enrich:
        steps.append(enrich_step)
    if target == "ror" and doc.format != "ror":
        steps.append(sitemap_to_ror)
    return steps
