"""Writing an RSS 2.0 item (https://www.rssboard.org/rss-specification, ``<item>``) of the ``rss`` writer.

``title`` (the loc when the entry has neither title nor description), ``link`` and a permalink ``guid``,
``description``, a ``category`` per keyword, the lastmod as ``pubDate`` when RFC 822 holds it exactly, else as
Dublin Core ``dc:date``, the sitemap namespace's ``changefreq`` and ``priority``, the extensions' elements and
the XML extras an item can hold (:mod:`feedmap.formats.feeds._rsswrite` for the channel and the namespaces).
A module of its own so that reading RSS loads no writer.
"""

from __future__ import annotations

from feedmap._core.context import Context
from feedmap._core.model import Entry
from feedmap._core.urls import plain_uri
from feedmap._xml import escape_text
from feedmap.formats._namespaces import Namespaces, extension_elements
from feedmap.formats._xmlwrite import format_priority, text_of, xml_extras
from feedmap.formats.ext import Hooks
from feedmap.formats.feeds._pubdate import exact_pubdate
from feedmap.formats.feeds._rsswrite import (
    item_core,
    parts_only,
    plain_text_of,
    written_keywords,
)

__all__ = ["rss_item"]


def rss_item(entry: Entry, ctx: Context, dropped: set[str], namespaces: Namespaces, table: Hooks) -> str:
    """The entry's ``<item>`` (``dropped``: the extras already said dropped; ``namespaces``: where a namespace
    is declared).  The common item (a loc that is a plain URI, a title, a lastmod RFC 822 holds exactly, nothing
    else) in one string: what the long way writes for it.  An entry's ``type`` has no place in RSS (said once, at
    the end, by the caller)."""
    loc = entry.loc
    lastmod = entry.lastmod
    if (
        lastmod is not None
        and entry.description is None
        and entry.priority is None
        and entry.changefreq is None
        and not entry.keywords
        and not entry.extras
        and not entry.images
        and not entry.alternates
        and entry.news is None
        and not entry.videos
        and plain_uri(loc) is not None  # written as it is: nothing to encode nor escape
        and parts_only(table)
    ):
        pub_date = exact_pubdate(lastmod)  # says nothing
        if pub_date is not None:
            title = loc if entry.title is None else entry.title  # RSS wants a title or a description
            if "</" in title or escape_text(title) is not title or title.strip() != title:
                title = plain_text_of(title, "title", loc, ctx)
            return (
                f'<item><title>{title}</title><link>{loc}</link><guid isPermaLink="true">{loc}</guid>'
                f"<pubDate>{pub_date}</pubDate></item>\n"
            )
    parts = item_core(entry, ctx, namespaces, table)
    for keyword in written_keywords(entry.keywords, entry.loc, ctx, joined=False) if entry.keywords else ():
        parts += ["<category>", text_of(keyword, "keyword", entry.loc, ctx), "</category>"]
    if entry.lastmod is not None:
        # the exact lastmod in one place (pubDate and dc:date together are the validator's DuplicateItemSemantics)
        pub_date = exact_pubdate(entry.lastmod)
        if pub_date is not None:
            parts += ["<pubDate>", pub_date, "</pubDate>"]
        else:
            parts += [f"<dc:date{namespaces.declare('dc')}>", entry.lastmod.text, "</dc:date>"]
    if entry.changefreq is not None:
        sitemap = namespaces.declare("sitemap")
        parts += [f"<sitemap:changefreq{sitemap}>", entry.changefreq.value, "</sitemap:changefreq>"]
    if entry.priority is not None:
        priority = format_priority(entry.priority, ctx, entry.loc)
        if priority is not None:
            parts += [f"<sitemap:priority{namespaces.declare('sitemap')}>", priority, "</sitemap:priority>"]
    parts += extension_elements(entry, ctx, namespaces, table.tail)  # images, news, videos, third-party extensions
    if entry.extras:
        parts += xml_extras(entry, dropped, ctx, default_namespace=False, claimed=table.keys)
    parts.append("</item>\n")
    return "".join(parts)
