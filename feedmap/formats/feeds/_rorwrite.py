"""Writing ``ror``: RSS 2.0 carrying ROR ("Resources of a Resource", http://rorweb.com/0.1/) elements.

The sitemap shape real generators use (Joomla RSSeo, Laravel sitemap, A1), as :mod:`feedmap.formats.feeds._ror`
describes it: the channel, the header item, then one item per entry.  A module of its own so that reading ROR
loads no writer (nor the HTML cleaning of descriptions, lxml.html and nh3).
"""

from __future__ import annotations

from typing import BinaryIO

from feedmap._core.context import Context
from feedmap._core.model import Document, Entry
from feedmap._core.urls import plain_uri
from feedmap._xml import SITEMAP_NS, escape_text
from feedmap.formats._extras import TEXT_NAME, xml_extra
from feedmap.formats._namespaces import Namespaces, extension_elements
from feedmap.formats._output import output_url
from feedmap.formats._registry import Rendered
from feedmap.formats._xmlwrite import format_priority, rdf_only, text_of
from feedmap.formats.ext import Hooks, hooks, report_broken
from feedmap.formats.feeds._html import description_html
from feedmap.formats.feeds._pubdate import pubdate
from feedmap.formats.feeds._rorread import ROR_NS
from feedmap.formats.feeds._rsswrite import (
    item_core,
    parts_only,
    plain_text_of,
    render_channel,
    web_url_or_none,
    write_channel,
    written_keywords,
)
from feedmap.formats.feeds._vocab import ATOM_NS

__all__ = ["NAMESPACES", "TITLE_PREFIX", "header_item", "render", "ror_item", "write"]


def _ror(name: str, value: str, loc: str, ctx: Context) -> str:
    return f"<ror:{name}>{text_of(value, f'ror:{name}', loc, ctx)}</ror:{name}>"


#: What most items say of themselves: the resource of a sitemap (``_ror`` of a text with nothing to escape).
_RESOURCE_OF = "<ror:resourceOf>sitemap</ror:resourceOf>"


def ror_item(entry: Entry, ctx: Context, dropped: set[str], namespaces: Namespaces, table: Hooks) -> str:
    """The entry's ``<item>`` (``dropped``: the extras already said dropped; ``namespaces``: where a namespace
    is declared): one look at each field, nothing done for an absent one.  The common item (a loc that is a
    plain URI, a title, a lastmod, nothing else) in one string: what the long way writes for it, and it says
    nothing."""
    loc = entry.loc
    if (
        entry.description is None
        and entry.priority is None
        and entry.changefreq is None
        and entry.type is None
        and not entry.keywords
        and not entry.extras
        and not entry.images
        and not entry.alternates
        and entry.news is None
        and not entry.videos
        and plain_uri(loc) is not None  # written as it is: nothing to encode nor escape
        and parts_only(table)
    ):
        title = loc if entry.title is None else entry.title  # RSS wants a title or a description
        if "</" in title or escape_text(title) is not title or title.strip() != title:
            title = plain_text_of(title, "title", loc, ctx)
        lastmod = entry.lastmod
        if lastmod is None:
            return (
                f'<item><title>{title}</title><link>{loc}</link><guid isPermaLink="true">{loc}</guid>'
                f"{_RESOURCE_OF}</item>\n"
            )
        return (
            f'<item><title>{title}</title><link>{loc}</link><guid isPermaLink="true">{loc}</guid>'
            f"<pubDate>{pubdate(lastmod)}</pubDate><ror:updated>{lastmod.text}</ror:updated>{_RESOURCE_OF}</item>\n"
        )
    parts = item_core(entry, ctx, namespaces, table)
    lastmod = entry.lastmod
    if lastmod is not None:
        parts += ("<pubDate>", pubdate(lastmod), "</pubDate>")  # ror:updated keeps the exact text
    if entry.keywords:
        keywords = written_keywords(entry.keywords, loc, ctx, joined=True)
        if keywords:
            parts.append(_ror("keywords", ", ".join(keywords), loc, ctx))
    if lastmod is not None:  # a W3CDate's text: digits, '-', ':', 'T', '.', 'Z', '+', nothing to escape
        parts += ("<ror:updated>", lastmod.text, "</ror:updated>")
    if entry.changefreq is not None:
        parts.append(_ror("updatePeriod", entry.changefreq.value, loc, ctx))
    if entry.type is not None:
        parts.append(_ror("type", entry.type, loc, ctx))
    extras = dict(entry.extras) if entry.extras else None
    resource_of = extras.pop("ror:resourceOf", None) if extras is not None else None
    parts.append(_RESOURCE_OF if resource_of is None else _ror("resourceOf", resource_of, loc, ctx))
    if entry.priority is not None:
        priority = format_priority(entry.priority, ctx, loc)
        if priority is not None:
            parts += (f"<sitemap:priority{namespaces.declare('sitemap')}>", priority, "</sitemap:priority>")
    for step in table.tail:  # images, news, videos, third-party extensions: a call only for a field the entry has
        if getattr(entry, step.field):
            parts += extension_elements(entry, ctx, namespaces, (step,))
    if extras:
        parts += _extras(entry, extras, dropped, ctx, table.keys)
    parts.append("</item>\n")
    return "".join(parts)


def _extras(
    entry: Entry, extras: dict[str, str], dropped: set[str], ctx: Context, claimed: frozenset[str]
) -> list[str]:
    """The extras ROR can hold: XML elements (written as they are) and ``ror:NAME`` text; the others are
    reported once each (``dropped`` collects them) and left out, but for those an extension writes (``claimed``)."""
    loc = entry.loc
    written = {
        name
        for name, value in (
            ("keywords", entry.keywords),
            ("updated", entry.lastmod),
            ("updatePeriod", entry.changefreq),
            ("type", entry.type),
        )
        if value
    }
    parts: list[str] = []
    for key, value in extras.items():
        if key.startswith("{"):
            if rdf_only(key, value, loc, ctx):
                continue
            text = xml_extra(key, value, loc, ctx, default_namespace=False)
            if text is not None:
                parts.append(text)
        elif key.startswith("ror:") and TEXT_NAME.fullmatch(key, 4):
            if key[4:] in written:  # a second ror:updatePeriod: which one counts would be up to the reader
                ctx.warning("invalid-extra", f"extra {key!r} of {loc} repeats a field of the entry; not written")
                continue
            parts.append(_ror(key[4:], value, loc, ctx))
        elif key not in dropped and key not in claimed:
            dropped.add(key)
            ctx.info("field-dropped", f"extra {key!r} has no place in ROR and is not written")
    return parts


_HEADER = "the ROR header item"


def header_item(doc: Document, link: str, title: str, ctx: Context) -> str:
    """The ROR header item; its link is the header's own when it is a web URL (written as every link is:
    :func:`~feedmap.formats._output.output_url`), else the channel's (already written so)."""
    extras = doc.meta.extras
    own = web_url_or_none(extras.get("header:link"), "ROR header item link", ctx)
    header_link = text_of(output_url(own, ctx) if own else link, "link", _HEADER, ctx)
    parts = [
        "<item><title>",
        plain_text_of(extras.get("header:title", title), "title", _HEADER, ctx),
        "</title><link>",
        header_link,
        # a guid of its own (the validator's MissingGuid otherwise), not the link: a page of the sitemap
        # is often the site's home page, and two items must not share a guid
        '</link><guid isPermaLink="false">',
        header_link,
        "#ror-sitemap</guid>",
    ]
    if "header:description" in extras:
        description = text_of(description_html(extras["header:description"], _HEADER, ctx), "description", _HEADER, ctx)
        parts += ["<description>", description, "</description>"]
    parts.append(_ror("about", extras.get("ror:about", "sitemap"), _HEADER, ctx))
    parts.append(_ror("type", extras.get("ror:type", "SiteMap"), _HEADER, ctx))
    for key, value in extras.items():
        if key.startswith("ror:") and key not in ("ror:about", "ror:type"):
            if TEXT_NAME.fullmatch(key, 4):
                parts.append(_ror(key[4:], value, _HEADER, ctx))
            else:
                ctx.info("field-dropped", f"header extra {key!r} is not an XML name and is not written")
    parts.append("</item>\n")
    return "".join(parts)


#: What a derived channel title and description start with ("ROR Sitemap for https://host/").
TITLE_PREFIX = "ROR Sitemap for"

#: Every namespace a ROR document may use, by prefix: ``ror`` always, the others only when used.
NAMESPACES = {"ror": ROR_NS, "sitemap": SITEMAP_NS, "atom": ATOM_NS}


def render(doc: Document, *, ctx: Context) -> Rendered:
    report_broken(ctx)
    table = hooks("ror")
    namespaces = Namespaces(NAMESPACES, always=("ror",), hooks=table)
    return render_channel(
        doc,
        ctx,
        namespaces=namespaces,
        title_prefix=TITLE_PREFIX,
        item=lambda entry, dropped: ror_item(entry, ctx, dropped, namespaces, table),
        after_channel=lambda channel: header_item(doc, channel.link, channel.title, ctx),
    )


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    return write_channel(sink, ctx, render(doc, ctx=ctx))
