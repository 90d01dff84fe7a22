"""The steps between a reader and a writer: entries (or a :class:`feedmap.Document`) in, entries out.

Each step is a function called as :func:`feedmap.read` is, ``step(entries, options=None, *, on_diagnostic=None,
reporter=None)``: URLs resolved or left out (:func:`resolve_relative`, :func:`keep_absolute`), the checks a reader
makes (:func:`check_values`), repeated URLs (:func:`merge_duplicates`, :func:`report_duplicates`, :func:`dedupe`),
values set on every entry (:func:`set_fields`), filters (:func:`filter_entries`, :func:`limit_entries`), order
(:func:`sort_entries`) and enrichment from the pages (:func:`enrich`); :func:`relative_reference` says whether a loc
is relative.  :func:`feedmap.convert`, :func:`feedmap.write` and :func:`feedmap.split` run them between reader and
writer.

One name per step.  A step has one name, the public one: ``feedmap.converters.merge_duplicates``.  Its
implementation, a function ``(entries, ctx, **arguments) -> entries`` over a
``Context`` (the one readers and writers take), has the same name in the private module of its concept
(``_duplicates.merge_duplicates``, ``_filters.filter_entries``, ``_sort.sort_entries``, ``_set.set_fields``,
``_enrich.enrich``; the URL checks in ``feedmap._core.entry_checks``, which the readers share), and a
conversion's plan runs that implementation under that name (``on_entries(merge_duplicates)``, shown so in
the plan).  The public function is the implementation with the library's call style around it (options,
where diagnostics go, a Document kept a Document).  Two steps exist only inside a conversion and have no
public function: ``check_web_urls`` (only http(s) URLs in an XML output) and the document-kind conversions
of the plan (``as_urlset``, ``sitemap_to_ror``).
"""

from feedmap.converters._steps import (
    check_values,
    dedupe,
    enrich,
    filter_entries,
    keep_absolute,
    limit_entries,
    merge_duplicates,
    relative_reference,
    report_duplicates,
    resolve_relative,
    set_fields,
    sort_entries,
)

__all__ = [
    "check_values",
    "dedupe",
    "enrich",
    "filter_entries",
    "keep_absolute",
    "limit_entries",
    "merge_duplicates",
    "relative_reference",
    "report_duplicates",
    "resolve_relative",
    "set_fields",
    "sort_entries",
]
