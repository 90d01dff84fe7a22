"""Kinds of entries and the formats that write them: report a conversion that changes what entries are.

A sitemap index lists child sitemaps; a sitemap (urlset), an RSS or a ROR feed lists pages (sitemaps.org,
"Using Sitemap index files").  Writing an index's own entries (read with ``--no-follow``) as pages, or pages
as an index's children, gives a document that means something else than its input: it is reported as a
``kind-changed`` warning.  JSON lines and text sitemaps hold either kind (JSON lines records the kind).

:func:`xml_for_kind` is what the CLI's ``-o NAME.xml`` writes: the XML sitemap of the kind read (an index's
own entries as a sitemap index, pages as a urlset).
"""

from __future__ import annotations

from feedmap._core.context import Context
from feedmap._core.model import DocKind

__all__ = ["WRITTEN_KIND", "report_kind_change", "xml_for_kind"]

#: What each built-in XML format's entries are; formats not named here hold any kind.
WRITTEN_KIND: dict[str, DocKind] = {
    "sitemapindex": DocKind.INDEX,
    "sitemap": DocKind.URLSET,
    "rss": DocKind.FEED,
    "ror": DocKind.FEED,
    "atom": DocKind.FEED,
}


def xml_for_kind(kind: DocKind) -> str:
    """The XML sitemap format that keeps entries of ``kind`` what they are."""
    return "sitemapindex" if kind is DocKind.INDEX else "sitemap"


def report_kind_change(kind: DocKind, target: str, ctx: Context) -> None:
    """Warn (``kind-changed``) when format ``target`` makes entries of ``kind`` into something else."""
    written = WRITTEN_KIND.get(target)
    if written is None or (written is DocKind.INDEX) == (kind is DocKind.INDEX):
        return
    if kind is DocKind.INDEX:
        ctx.warning(
            "kind-changed",
            f"the entries are the child sitemaps of an index (read without following it); format {target!r} "
            "writes them as pages",
        )
    else:
        ctx.warning(
            "kind-changed",
            f"the entries are pages ({kind.value}); format 'sitemapindex' writes them as child sitemaps of an index",
        )
