"""``rss``: syndication feeds (RSS 0.9x/1.0/2.0, Atom 0.3/1.0) read with feedparser, written as RSS 2.0.

sitemaps.org ("Other formats") accepts RSS 2.0 and Atom as sitemaps; PROTOCOL.md, "Feeds as sitemaps":

* ``loc`` from the item's ``link``, else from a ``guid`` that is a permalink (``isPermaLink`` defaults to
  true), else Atom ``link[@rel=alternate or no rel]`` — feedparser's ``entry.link`` implements exactly this;
* ``lastmod`` from ``updated`` (Atom, ``dc:date``), ``published`` (``pubDate``) or Atom 0.3 ``modified``,
  read from the text as written so its offset and precision are kept;
* ``title``, ``description`` (summary) and ``keywords`` (category terms).

Items without a usable URL are skipped with a warning naming the item.  A malformed feed (feedparser's
``bozo``) gives a warning, so ``--strict`` stops on it.  Extension elements feedmap writes into RSS
(``sitemap:changefreq``, ``sitemap:priority``, ``image:image``, ``xhtml:link``) are read back by namespace
URI with lxml, so ``sitemap -> rss -> sitemap`` keeps them.  The feed is read whole (feedparser is not a
streaming parser), within the ``--max-bytes`` cap.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any, BinaryIO

from lxml import etree

from feedmap._dates import W3CDate, from_rfc822, to_rfc822
from feedmap._urls import is_absolute_url
from feedmap._xml import IMAGE_NS, SITEMAP_NAMESPACES, SITEMAP_NS, XHTML_NS
from feedmap.context import Context
from feedmap.errors import ReadError
from feedmap.formats._fields import read_lastmod, read_loc
from feedmap.formats._rsswrite import ATOM_NS, DC_NS, write_channel
from feedmap.formats.sitemap import (
    alternate_elements,
    entry_from_element,
    format_priority,
    image_elements,
    loc_text,
    text_of,
    xml_extras,
)
from feedmap.model import ENTRY_FIELDS, DocKind, DocMeta, Document, Entry, Position
from feedmap.registry import FormatSpec
from feedmap.sources import Source

__all__ = ["FORMAT", "read", "write"]

RSS10_NS = "http://purl.org/rss/1.0/"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
ATOM03_NS = "http://purl.org/atom/ns#"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
#: Namespaces of the sitemap family read back from feed items (news and video land in extras).
_EXTENSION_NAMESPACES = frozenset({*SITEMAP_NAMESPACES - {""}, IMAGE_NS, XHTML_NS, NEWS_NS, VIDEO_NS})


#: Namespaces whose elements feedparser maps to entry fields (read there, not kept as extras).
_FEED_NAMESPACES = frozenset(
    {
        None,
        RSS10_NS,
        RDF_NS,
        ATOM_NS,
        ATOM03_NS,
        DC_NS,
        "http://purl.org/dc/terms/",
        "http://purl.org/rss/1.0/modules/content/",
    }
)


def _describe(item: Any, index: int) -> str:
    title = item.get("title")
    return f"item {index} ({title!r})" if title else f"item {index}"


#: Per item, as lxml reads it: the sitemap extension elements, a permalink guid's text, the link's text.
_Raw = tuple[Entry | None, str | None, str | None]


def _extensions(data: bytes, ctx: Context) -> list[_Raw] | None:
    """Per item, the sitemap extension elements written into the feed, the text of a permalink ``guid``
    and the text of the RSS ``link`` (None when lxml cannot parse the feed).

    feedparser lets an empty ``<link/>`` hide a permalink guid (the guid is the loc then), and rewrites
    entity-like text in an RSS ``<link>`` (``/&amp;0;`` becomes ``/&0``): an absolute link is taken as written.
    """
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError:
        return None
    items = [
        node for node in root.iter() if isinstance(node.tag, str) and etree.QName(node).localname in ("item", "entry")
    ]
    found: list[_Raw] = []
    for item in items:
        link = next(
            (
                child.text.strip()
                for child in item
                if isinstance(child.tag, str)
                and etree.QName(child).localname == "link"
                and etree.QName(child).namespace in (None, RSS10_NS)
                and child.text
                and child.text.strip()
            ),
            None,
        )
        guid = item.find("guid")
        permalink = None
        if guid is not None and guid.text and guid.get("isPermaLink", "true").strip().lower() != "false":
            permalink = guid.text.strip() or None
        holder = etree.Element(f"{{{SITEMAP_NS}}}url")
        etree.SubElement(holder, f"{{{SITEMAP_NS}}}loc").text = "http://placeholder.invalid/"
        for child in item:
            if not isinstance(child.tag, str):
                continue
            namespace = etree.QName(child).namespace
            if namespace in _EXTENSION_NAMESPACES or namespace not in _FEED_NAMESPACES:
                holder.append(_renamed(child))
        found.append((entry_from_element(holder, SITEMAP_NS, ctx) if len(holder) > 1 else None, permalink, link))
    return found


def _renamed(child: etree._Element) -> etree._Element:
    """A copy of the element with any accepted sitemap-namespace variant mapped to the 0.9 namespace."""
    clone = copy.deepcopy(child)
    namespace = etree.QName(clone).namespace
    if namespace in SITEMAP_NAMESPACES and namespace != SITEMAP_NS:
        clone.tag = f"{{{SITEMAP_NS}}}{etree.QName(clone).localname}"
    return clone


def _feed_date(text: str, key: str, ctx: Context) -> W3CDate | None:
    """W3C (Atom, dc:date) or RFC 822 (RSS pubDate) as written, with its offset; anything else leniently."""
    try:
        return W3CDate(text.strip())
    except ValueError:
        pass
    return from_rfc822(text) or read_lastmod(text, ctx, 0, what=key)


def _atom_link(item: Any) -> str | None:
    """The entry's link[@rel=alternate or no rel] (feedparser's choice among several), never its id."""
    alternates = [link["href"] for link in item.get("links", []) if link.get("rel") == "alternate" and link.get("href")]
    link = item.get("link")
    return link if link in alternates else (alternates[0] if alternates else None)


def _entries(parsed: Any, extensions: list[_Raw] | None, ctx: Context) -> Iterator[Entry]:
    items = parsed.entries
    if extensions is not None and len(extensions) != len(items):
        extensions = None
    # feedparser reads an Atom <id> like an RSS guid and makes it the link when no link came first;
    # an Atom id is an identifier, not the entry's page (only link[@rel=alternate or no rel] is)
    atom = str(parsed.get("version", "")).startswith("atom")
    for index, item in enumerate(items, start=1):
        extra, permalink, link = extensions[index - 1] if extensions is not None else (None, None, None)
        if atom:
            loc_text = _atom_link(item)
        elif link is not None and is_absolute_url(link):
            loc_text = link
        else:
            loc_text = item.get("link")
        if not loc_text:
            loc_text = permalink
        if not loc_text:
            ctx.warning("missing-loc", f"{_describe(item, index)} has no link and no permalink guid; skipped")
            continue
        loc = read_loc(loc_text, ctx, 0)
        if loc is None:
            continue
        lastmod = None
        for key in ("updated", "published", "modified", "created"):
            text = dict.get(item, key)  # not item.get: feedparser maps a missing "updated" to "published", warning
            if text:
                lastmod = _feed_date(text, key, ctx)
                if lastmod is not None:
                    break
        keywords = tuple(tag["term"].strip() for tag in item.get("tags", []) if tag.get("term", "").strip())
        yield Entry(
            loc=loc,
            lastmod=lastmod,
            changefreq=extra.changefreq if extra is not None else None,
            priority=extra.priority if extra is not None else None,
            title=item.get("title") or None,
            description=item.get("summary") or None,
            keywords=keywords,
            images=extra.images if extra is not None else (),
            alternates=extra.alternates if extra is not None else (),
            extras=extra.extras if extra is not None else {},
            origin=Position(ctx.name, 0),
        )


def read(source: Source, *, ctx: Context) -> Document:
    import feedparser

    data = source.stream.read()
    try:
        parsed = feedparser.parse(data, sanitize_html=False, resolve_relative_uris=False)
    except Exception as error:  # feedparser has its own failure modes on damaged input (found by fuzzing)
        raise ReadError(f"feedparser cannot read this feed ({error})", source=ctx.name, code="not-a-feed") from error
    if parsed.get("bozo"):
        exc = parsed.get("bozo_exception")
        line = exc.getLineNumber() if hasattr(exc, "getLineNumber") else 0
        message = exc.getMessage() if hasattr(exc, "getMessage") else str(exc)
        ctx.warning("malformed-feed", f"the feed is not well-formed ({message}); read leniently", line)
    if not parsed.get("version") and not parsed.entries:
        raise ReadError("not a feed that feedparser understands", source=ctx.name, code="not-a-feed")
    feed = parsed.feed
    meta = DocMeta(
        kind=DocKind.FEED,
        title=feed.get("title") or None,
        link=feed.get("link") or None,
        description=feed.get("subtitle") or feed.get("description") or None,
    )
    doc = Document(meta, _entries(parsed, _extensions(data, ctx), ctx), diagnostics=ctx.reporter.diagnostics)
    return doc


# ----------------------------------------------------------------------------------------------- writing


def item_core(entry: Entry, ctx: Context) -> list[str]:
    """title, link, guid, description, pubDate, categories of an RSS 2.0 item."""
    loc = loc_text(entry, ctx)
    parts: list[str] = ["<item>"]
    title = entry.title
    if title is None and entry.description is None:
        title = entry.loc
    if title is not None:
        parts += ["<title>", text_of(title, "title", entry.loc, ctx), "</title>"]
    parts += ["<link>", loc, '</link><guid isPermaLink="true">', loc, "</guid>"]
    if entry.description is not None:
        parts += ["<description>", text_of(entry.description, "description", entry.loc, ctx), "</description>"]
    if entry.lastmod is not None:
        parts += ["<pubDate>", to_rfc822(entry.lastmod), "</pubDate>"]
    return parts


def _item(entry: Entry, ctx: Context, dropped: set[str]) -> str:
    parts = item_core(entry, ctx)
    for keyword in entry.keywords:
        parts += ["<category>", text_of(keyword, "keyword", entry.loc, ctx), "</category>"]
    if entry.lastmod is not None:
        parts += ["<dc:date>", entry.lastmod.text, "</dc:date>"]
    if entry.changefreq is not None:
        parts += ["<sitemap:changefreq>", entry.changefreq.value, "</sitemap:changefreq>"]
    if entry.priority is not None:
        priority = format_priority(entry.priority, ctx, entry.loc)
        if priority is not None:
            parts += ["<sitemap:priority>", priority, "</sitemap:priority>"]
    parts += image_elements(entry, ctx)
    parts += alternate_elements(entry, ctx)
    if entry.extras:
        parts += xml_extras(entry, dropped, ctx, _DECLARED, default_namespace=False)
    parts.append("</item>\n")
    return "".join(parts)


_DECLARED = {"atom": ATOM_NS, "dc": DC_NS, "sitemap": SITEMAP_NS, "image": IMAGE_NS, "xhtml": XHTML_NS}
RSS_NAMESPACES = "".join(f' xmlns:{prefix}="{uri}"' for prefix, uri in _DECLARED.items())


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    return write_channel(
        doc,
        sink,
        ctx,
        namespaces=RSS_NAMESPACES,
        title_prefix="Pages of",
        item=lambda entry, dropped: _item(entry, ctx, dropped),
    )


FORMAT = FormatSpec(
    name="rss",
    title="RSS / Atom feed (read: RSS 0.9x/1.0/2.0, Atom 0.3/1.0 via feedparser; write: RSS 2.0)",
    extensions=(".rss", ".atom"),
    roots=(("*", "rss"), (RDF_NS, "RDF"), ("*", "feed")),
    priority=5,
    reader=read,
    writer=write,
    fields=frozenset(ENTRY_FIELDS) - {"type"},
    description="loc from link / permalink guid / Atom alternate; lastmod keeps its offset; --title --link "
    "--description --self-url for the channel",
)
