"""Post-read steps that turn one document into another, plain functions ``(Document, Context) -> Document``.

:func:`plan` picks the steps a conversion needs (pandoc's idea of transforms between reader and writer):

* XML targets (sitemap, sitemap index, RSS, ROR) take only http(s) URLs: a ``javascript:`` or ``data:``
  loc, image or alternate is left out (WARNING ``non-web-url``), which every other target writes with the
  same warning (:func:`feedmap._core.entry_checks.web_entries`); and they require absolute URLs: entries
  without one are left out (:func:`feedmap.converters._steps.keep_absolute`);
* repeated URLs are reported in every conversion (INFO ``duplicate-loc``); every target but JSON lines
  lists each URL once: :func:`feedmap.converters._steps.merge_duplicates` keeps the entry with the newest lastmod
  (a text sitemap, which holds only the loc, drops the repeats as they stream by); JSON lines keeps them
  (:func:`feedmap.converters._steps.report_duplicates`).  This does not depend on the kind of the inputs or their
  order.  ``options.dedupe`` (``--dedupe first|last|newest``) chooses the entry kept instead, in every
  target, JSON lines included (:func:`feedmap.converters._steps.dedupe`);
* the entry filters the options ask for (``since``, ``until``, ``require_lastmod``, ``include``, ``exclude``:
  :func:`feedmap.converters._steps.filter_entries`) run first, on the entries as read; ``sort``
  (:func:`feedmap.converters._steps.sort_entries`) runs after deduplication; ``limit``
  (:func:`feedmap.converters._steps.limit_entries`) after both, so N distinct URLs are written (the newest N with
  ``sort="-lastmod"``) and
  reading stops after them (a merged target, which reads everything to keep each URL's newest entry,
  stops writing there);
* a feed written as a sitemap, index or text sitemap becomes a urlset (:func:`as_urlset`);
* with ``enrich=True`` (``--enrich``), :func:`~feedmap.converters._enrich.enrich_step` fills titles,
  descriptions and keywords from the pages (after deduplication, so each URL is fetched once; before
  :func:`sitemap_to_ror`, which counts the entries still without a title);
* anything that is not already ROR written as ROR goes through :func:`sitemap_to_ror`.

The library function for enrichment outside a conversion is :func:`feedmap.enrich`.
"""

from __future__ import annotations

from collections.abc import Callable

from feedmap._core.context import Context, Options
from feedmap._core.model import DocKind, Document
from feedmap.converters._enrich import enrich_step
from feedmap.converters._feed_to_sitemap import feed_to_sitemap
from feedmap.converters._sitemap_to_ror import sitemap_to_ror
from feedmap.converters._steps import (
    absolute_step,
    check_step,
    dedupe_step,
    filter_step,
    filters_asked,
    limit_step,
    merge_step,
    report_step,
    sort_step,
    unique_step,
    web_step,
)
from feedmap.formats import _registry as registry

__all__ = ["Step", "as_urlset", "enrich_step", "feed_to_sitemap", "plan", "selection", "sitemap_to_ror"]

Step = Callable[[Document, Context], Document]

_SITEMAP_TARGETS = frozenset({"sitemap", "sitemapindex", "text"})
#: Targets whose URLs must be absolute (sitemaps.org 0.9 loc; RSS 2.0 link and permalink guid).
ABSOLUTE_TARGETS = frozenset({"sitemap", "sitemapindex", "rss", "ror"})
#: Targets that list a URL once with all its fields: the newest entry of a repeated URL is kept.
_MERGED_TARGETS = frozenset({"sitemap", "sitemapindex", "rss", "ror"})


def as_urlset(doc: Document, ctx: Context) -> Document:
    """The document as a urlset (a feed's channel metadata kept); the entries unchanged."""
    result = Document(doc.meta.as_kind(DocKind.URLSET), doc.entries, diagnostics=doc.diagnostics)
    result.format = doc.format
    return result


def plan(
    doc: Document, target: str, *, enrich: bool = False, check: bool = False, options: Options | None = None
) -> list[Step]:
    """The steps that turn ``doc`` into what format ``target`` expects, enriching pages if asked.

    ``check``: the document comes from no feedmap reader (entries built in code): give its values the
    checks a reader makes first (:func:`feedmap.converters._steps.check_values`).  ``options``: the entry filters
    and the limit it asks for are planned too.
    """
    steps: list[Step] = [check_step] if check else []
    if options is not None and filters_asked(options):
        steps.append(filter_step)
    fields = registry.get(target).fields
    steps.append(web_step(target in ABSOLUTE_TARGETS, parts="images" in fields or "alternates" in fields))
    if target in ABSOLUTE_TARGETS:
        steps.append(absolute_step(target))
    if options is not None and options.dedupe is not None:
        steps.append(dedupe_step)
    elif target == "text":
        steps.append(unique_step)
    elif target in _MERGED_TARGETS:
        steps.append(merge_step)
    else:  # JSON lines (and formats registered by others) keep what was read
        steps.append(report_step)
    if options is not None and options.sort is not None:
        steps.append(sort_step)
    if options is not None and options.limit is not None:
        steps.append(limit_step)
    if doc.meta.kind is DocKind.FEED and target in _SITEMAP_TARGETS:
        steps.append(as_urlset)
    if enrich:
        steps.append(enrich_step)
    if target == "ror" and doc.format != "ror":
        steps.append(sitemap_to_ror)
    return steps


def selection(options: Options) -> list[Step]:
    """The steps :func:`plan` takes from the options alone, in its order, for a call that writes nothing
    (:func:`feedmap.read`): the entry filters, ``dedupe``, ``sort``, ``limit``, then ``enrich``."""
    steps: list[Step] = [filter_step] if filters_asked(options) else []
    if options.dedupe is not None:
        steps.append(dedupe_step)
    if options.sort is not None:
        steps.append(sort_step)
    if options.limit is not None:
        steps.append(limit_step)
    if options.enrich:
        steps.append(enrich_step)
    return steps
