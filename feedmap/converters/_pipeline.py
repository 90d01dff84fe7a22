"""Post-read steps that turn one document into another, plain functions ``(Document, Context) -> Document``.

:func:`plan` picks the steps a conversion needs (pandoc's idea of transforms between reader and writer):

* XML targets (sitemap, sitemap index, RSS, ROR, Atom) take only http(s) URLs: a ``javascript:`` or ``data:``
  loc, image or alternate is left out (WARNING ``non-web-url``), which every other target writes with the
  same warning (:func:`feedmap._core.entry_checks.check_web_urls`); and they require absolute URLs: entries
  without one are left out (:func:`feedmap.converters.keep_absolute`);
* repeated URLs are reported in every conversion (INFO ``loc-duplicate``); every target but JSON lines
  lists each URL once: :func:`feedmap.converters.merge_duplicates` keeps the entry with the newest lastmod
  (a text sitemap, which holds only the loc, drops the repeats as they stream by); JSON lines keeps them
  (:func:`feedmap.converters.report_duplicates`).  This does not depend on the kind of the inputs or their
  order.  ``options.dedupe`` (``--dedupe first|last|newest``) chooses the entry kept instead, in every
  target, JSON lines included (:func:`feedmap.converters.dedupe`);
* the values the options set on every entry (``set``, ``set_missing``: :func:`feedmap.converters.set_fields`)
  first, on the entries as read, so that every later step sees them;
* the entry filters the options ask for (``since``, ``until``, ``require_lastmod``, ``include``, ``exclude``:
  :func:`feedmap.converters.filter_entries`) run first, on the entries as read; ``sort``
  (:func:`feedmap.converters.sort_entries`) runs after deduplication; ``limit``
  (:func:`feedmap.converters.limit_entries`) after both, so N distinct URLs are written (the newest N with
  ``sort="-lastmod"``) and
  reading stops after them (a merged target, which reads everything to keep each URL's newest entry,
  stops writing there);
* a feed written as a sitemap, index or text sitemap becomes a urlset (:func:`as_urlset`);
* with ``enrich=True`` (``--enrich``), :func:`feedmap.converters._enrich.enrich` fills titles,
  descriptions and keywords from the pages (after deduplication, so each URL is fetched once; before
  :func:`sitemap_to_ror`, which counts the entries still without a title);
* anything that is not already ROR written as ROR goes through :func:`sitemap_to_ror`.

The library function for enrichment outside a conversion is :func:`feedmap.enrich`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from feedmap._core import entry_checks
from feedmap._core.context import Context, Options
from feedmap._core.model import DocKind, Document, Entry
from feedmap._io.http import Shared
from feedmap.converters import _duplicates, _filters, _set, _sort
from feedmap.converters._feed_to_sitemap import feed_to_sitemap
from feedmap.converters._sitemap_to_ror import sitemap_to_ror
from feedmap.formats import _registry as registry

__all__ = [
    "OnEntries",
    "Step",
    "as_urlset",
    "feed_to_sitemap",
    "fused",
    "on_entries",
    "plan",
    "selection",
    "sitemap_to_ror",
]

Step = Callable[[Document, Context], Document]

_SITEMAP_TARGETS = frozenset({"sitemap", "sitemapindex", "text"})
#: Targets whose URLs must be absolute (sitemaps.org 0.9 loc; RSS 2.0 link and permalink guid; Atom id and link).
ABSOLUTE_TARGETS = frozenset({"sitemap", "sitemapindex", "rss", "ror", "atom"})
#: Targets that list a URL once with all its fields: the newest entry of a repeated URL is kept.
_MERGED_TARGETS = frozenset({"sitemap", "sitemapindex", "rss", "ror", "atom"})


@dataclass(frozen=True, slots=True)
class OnEntries:
    """A step of a plan made of a step over entries: ``function(doc.entries, ctx, **arguments)``, the document's
    metadata, format and diagnostics kept.  Equal when the function and the arguments are."""

    function: Callable[..., Iterator[Entry]]
    arguments: tuple[tuple[str, Any], ...] = ()

    def __call__(self, doc: Document, ctx: Context) -> Document:
        result = Document(
            doc.meta, self.function(doc.entries, ctx, **dict(self.arguments)), diagnostics=doc.diagnostics
        )
        result.format = doc.format
        return result

    def __repr__(self) -> str:
        arguments = ", ".join(f"{name}={value!r}" for name, value in self.arguments)
        return f"{self.function.__name__}({arguments})"


def on_entries(function: Callable[..., Iterator[Entry]], **arguments: Any) -> OnEntries:
    """The plan's step running ``function`` (a step over entries: ``(entries, ctx, **arguments)``) on a document."""
    return OnEntries(function, tuple(sorted(arguments.items())))


def _filters_asked(options: Options) -> bool:
    """Whether the options ask :func:`feedmap.converters._filters.filter_entries` for anything."""
    return bool(
        options.since is not None
        or options.until is not None
        or options.require_lastmod
        or options.include
        or options.exclude
    )


def _fields_set(options: Options) -> bool:
    """Whether the options set a field on every entry (:func:`feedmap.converters._set.set_fields`)."""
    return bool(options.set or options.set_missing)


def as_urlset(doc: Document, ctx: Context) -> Document:
    """The document as a urlset (a feed's channel metadata kept); the entries unchanged."""
    result = Document(doc.meta.as_kind(DocKind.URLSET), doc.entries, diagnostics=doc.diagnostics)
    result.format = doc.format
    return result


def plan(
    doc: Document,
    target: str,
    *,
    enrich: bool = False,
    check: bool = False,
    options: Options | None = None,
    shared: Shared | None = None,
) -> list[Step]:
    """The steps that turn ``doc`` into what format ``target`` expects, enriching pages if asked.

    ``check``: the document comes from no feedmap reader (entries built in code): give its values the
    checks a reader makes first (:func:`feedmap.converters.check_values`).  ``options``: the entry filters
    and the limit it asks for are planned too.  ``shared``: the run's threads and fetcher, which enrichment uses
    (required with ``enrich``; the run closes it).
    """
    steps: list[Step] = [on_entries(_set.set_fields)] if options is not None and _fields_set(options) else []
    if check:
        steps.append(on_entries(entry_checks.check_values))
    if options is not None and _filters_asked(options):
        steps.append(on_entries(_filters.filter_entries))
    fields = registry.get(target).fields
    parts = "images" in fields or "alternates" in fields  # the output holds images and alternates
    steps.append(on_entries(entry_checks.check_web_urls, xml=target in ABSOLUTE_TARGETS, parts=parts))
    if target in ABSOLUTE_TARGETS:
        steps.append(on_entries(entry_checks.keep_absolute, target=target))
    if options is not None and options.dedupe is not None:
        steps.append(on_entries(_duplicates.dedupe))
    elif target == "text":
        steps.append(on_entries(_duplicates.report_duplicates, drop=True))  # holds only the loc: streamed
    elif target in _MERGED_TARGETS:
        steps.append(on_entries(_duplicates.merge_duplicates))
    else:  # JSON lines (and formats registered by others) keep what was read
        steps.append(on_entries(_duplicates.report_duplicates))
    if options is not None and options.sort is not None:
        steps.append(on_entries(_sort.sort_entries, first=options.limit))  # the limit step comes next
    if options is not None and options.limit is not None:
        steps.append(on_entries(_filters.limit_entries))
    if doc.meta.kind is DocKind.FEED and target in _SITEMAP_TARGETS:
        steps.append(as_urlset)
    if enrich:
        if shared is None:
            raise ValueError("enrich reads the pages on the run's threads with its fetcher: give shared")
        from feedmap.converters._enrich import enrich as enrich_pages  # page reading: only when asked

        steps.append(on_entries(enrich_pages, shared=shared))
    if target == "ror" and doc.format != "ror":
        steps.append(sitemap_to_ror)
    return steps


def fused(steps: list[Step], target: str) -> list[Step]:
    """``steps`` (a :func:`plan`'s) to run: the last ones of a ``sitemap`` (the checks of its URLs, then the merge
    of repeats) or of a ``text`` target (the web-URL check, then the drop of repeats) made one step (a feed's:
    :func:`feedmap.converters._feed_pass.fused_feed`)
    (:func:`feedmap.converters._pass.checked_merge`, :func:`feedmap.converters._lines_pass.checked_lines`: one
    pass per entry where the writer takes it, the steps as they are elsewhere); else ``steps`` as they are."""
    if target in ("ror", "rss"):  # the feeds' own pass: the checks, the merge and the item in one look
        from feedmap.converters._feed_pass import fused_feed

        return fused_feed(steps, target)
    dedupes = (on_entries(_duplicates.dedupe), on_entries(_duplicates.report_duplicates, drop=True))
    lines = target == "text" and len(steps) >= 2 and steps[-1] in dedupes
    if lines and steps[-2] == on_entries(entry_checks.check_web_urls, xml=False, parts=False):
        from feedmap.converters._lines_pass import checked_lines

        return [*steps[:-2], on_entries(checked_lines, dedupe_step=steps[-1] == dedupes[0])]
    web = on_entries(entry_checks.check_web_urls, xml=True, parts=True)
    merges = (on_entries(_duplicates.merge_duplicates), dedupes[0])
    if target != "sitemap" or len(steps) < 3 or steps[-1] not in merges or steps[-3] != web:
        return steps
    if steps[-2] != on_entries(entry_checks.keep_absolute, target=target):
        return steps
    values = len(steps) > 3 and steps[-4] == on_entries(entry_checks.check_values)
    from feedmap.converters._pass import checked_merge

    merged = on_entries(checked_merge, values=values, dedupe_step=steps[-1] == merges[1])
    return [*steps[: -4 if values else -3], merged]


def selection(options: Options, shared: Shared) -> list[Step]:
    """The steps :func:`plan` takes from the options alone, in its order, for a call that writes nothing
    (:func:`feedmap.read`): the values set on every entry, the entry filters, ``dedupe``, ``sort``, ``limit``,
    then ``enrich`` (on the run's threads and fetcher, ``shared``)."""
    steps: list[Step] = [on_entries(_set.set_fields)] if _fields_set(options) else []
    if _filters_asked(options):
        steps.append(on_entries(_filters.filter_entries))
    if options.dedupe is not None:
        steps.append(on_entries(_duplicates.dedupe))
    if options.sort is not None:
        steps.append(on_entries(_sort.sort_entries, first=options.limit))
    if options.limit is not None:
        steps.append(on_entries(_filters.limit_entries))
    if options.enrich:
        from feedmap.converters._enrich import enrich as enrich_pages  # page reading: only when asked

        steps.append(on_entries(enrich_pages, shared=shared))
    return steps
