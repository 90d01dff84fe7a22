"""The steps between a reader and a writer: URL and field checks, repeated URLs, filters, sorting, the
conversions between document kinds (feed to sitemap, sitemap to ROR) and enrichment from the pages.

The steps a library user runs on a stream of entries are exported here; :func:`feedmap.enrich` is the
enrichment step."""

from feedmap.converters._steps import (
    check_values,
    dedupe,
    filter_entries,
    keep_absolute,
    limit_entries,
    merge_duplicates,
    relative_reference,
    report_duplicates,
    resolve_relative,
    sort_entries,
)

__all__ = [
    "check_values",
    "dedupe",
    "filter_entries",
    "keep_absolute",
    "limit_entries",
    "merge_duplicates",
    "relative_reference",
    "report_duplicates",
    "resolve_relative",
    "sort_entries",
]
