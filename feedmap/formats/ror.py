"""``ror``: RSS 2.0 carrying ROR ("Resources of a Resource", http://rorweb.com/0.1/) elements.

ROR in RSS 2.0 (rorweb.com, dormant since about 2006; PROTOCOL.md, "ROR"): each object is an ``<item>``;
RSS ``title``, ``link`` and ``description`` keep their meaning and ROR properties are ``ror:*`` children.

Reading uses lxml by namespace URI — ``http://rorweb.com/0.1/`` and the ``www.`` variant, any prefix —
never feedparser, which renames ``ror:*`` after the document's prefix and loses the text of elements
with attributes.  Mapping: ``link`` (else a permalink ``guid``) -> loc; ``ror:updated`` (W3C, exact) wins
over ``pubDate`` for lastmod; ``ror:updatePeriod`` -> changefreq (``day`` -> ``daily`` ...);
``ror:keywords`` split on commas; ``ror:type`` -> type; ``sitemap:priority`` -> priority (written by
feedmap to keep priority losslessly); ``image:image`` -> images; every other ``ror:*`` (``sortOrder``,
``about``, ``seeAlso``, ``descLong``, ...) -> ``extras["ror:NAME"]``; other foreign elements -> extras
verbatim.  The header item (``ror:about`` = sitemap, or ``ror:type`` SiteMap/Main) describes the document:
it becomes document metadata, never an entry.  A single-valued child given twice (every one but RSS
``category``) is reported and its first value kept.  Text that was escaped twice (``&amp;amp;``) is unescaped
once with a warning; URLs are never touched.

Writing emits the sitemap shape real generators use (Joomla RSSeo, Laravel sitemap, A1): the channel,
the header item, then one item per entry with ``title``, ``link``, ``guid``, ``description``,
``ror:keywords``, ``ror:updated`` plus ``pubDate``, ``ror:updatePeriod``, ``ror:type``, ``ror:resourceOf``,
``sitemap:priority``, ``image:image`` and hreflang alternates (``atom:link rel="alternate" hreflang``, before
``title``; ``xhtml:link`` is read too).  The channel's ``lastBuildDate`` is read and written.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import BinaryIO

from lxml import etree

from feedmap._dates import from_rfc822, to_rfc822
from feedmap._xml import (
    IMAGE_NS,
    SITEMAP_NAMESPACES,
    SITEMAP_NS,
    XHTML_NS,
    iter_elements,
    line_of,
    peek_cleaned,
    peek_root,
)
from feedmap.context import Context
from feedmap.errors import ReadError, Reporter
from feedmap.formats._extras import TEXT_NAME, xml_extra
from feedmap.formats._feedhtml import description_html
from feedmap.formats._feedstream import channel_date, hreflang_alternate, real_title
from feedmap.formats._fields import read_changefreq, read_lastmod, read_loc, read_priority
from feedmap.formats._rsswrite import ATOM_NS, Namespaces, plain_text_of, write_channel
from feedmap.formats.rss import item_core
from feedmap.formats.sitemap import (
    duplicate,
    format_priority,
    holds_markup,
    image_elements,
    rdf_only,
    read_image,
    serialize_element,
    text_of,
)
from feedmap.model import (
    ENTRY_FIELDS,
    Alternate,
    ChangeFreq,
    DocKind,
    DocMeta,
    Document,
    Entry,
    Image,
    full_entry,
    new_position,
)
from feedmap.registry import FormatSpec
from feedmap.sources import Source

__all__ = ["FORMAT", "ROR_NAMESPACES", "ROR_NS", "read", "write"]

ROR_NS = "http://rorweb.com/0.1/"
ROR_NAMESPACES = frozenset({ROR_NS, "http://www.rorweb.com/0.1/", "http://rorweb.com/0.1", "http://www.rorweb.com/0.1"})

_PERIODS: dict[str, ChangeFreq] = {member.value: member for member in ChangeFreq}
_PERIODS.update(
    {
        "hour": ChangeFreq.HOURLY,
        "day": ChangeFreq.DAILY,
        "week": ChangeFreq.WEEKLY,
        "month": ChangeFreq.MONTHLY,
        "year": ChangeFreq.YEARLY,
    }
)
_ESCAPED = re.compile(r"&(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});")
_HEADER_TYPES = frozenset({"sitemap", "main"})


def _namespace(tag: str) -> str:
    return tag[1 : tag.index("}")] if tag.startswith("{") else ""


def _local(tag: str) -> str:
    return tag[tag.index("}") + 1 :] if tag.startswith("{") else tag


def _text(value: str | None, what: str, ctx: Context, line: int) -> str | None:
    """Human text: blanks trimmed, double escaping undone once (reported)."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if _ESCAPED.search(text) is not None:
        fixed = html.unescape(text)
        ctx.warning("double-escaped", f"{what} was escaped twice ({text[:40]!r}); unescaped once", line)
        text = fixed
    return text


class _Item:
    """The children of one ``<item>``, gathered by namespace URI."""

    def __init__(self) -> None:
        self.plain: dict[str, tuple[str | None, int, etree._Element]] = {}
        self.ror: dict[str, tuple[str, int]] = {}
        self.categories: list[str] = []
        self.images: list[Image] = []
        self.alternates: list[Alternate] = []
        self.extras: dict[str, str] = {}
        self.priority: tuple[str | None, int] | None = None
        self.changefreq: tuple[str | None, int] | None = None


#: Item children that may come more than once (RSS 2.0 ``category``); every other one is single-valued.
_REPEATABLE = frozenset({"category"})


def _gather(element: etree._Element, ctx: Context, offset: int) -> _Item:
    item = _Item()
    seen: set[str] = set()
    for child in element:
        tag = child.tag
        if not isinstance(tag, str):
            continue
        line = line_of(child) + offset
        namespace = _namespace(tag)
        local = _local(tag)
        key = _field_key(namespace, local)
        if key is not None:
            if key in seen:
                duplicate(child, element, ctx, offset)
                continue
            seen.add(key)
            if len(child) and holds_markup(child, local, ctx, offset):  # an unexpanded entity, an element
                continue
        if namespace == "":
            if local == "category":
                if child.text and child.text.strip():
                    item.categories.append(child.text.strip())
            else:
                item.plain[local] = (child.text, line, child)
        elif namespace in ROR_NAMESPACES:
            item.ror[local] = ((child.text or "").strip(), line)
        elif namespace in SITEMAP_NAMESPACES and local == "priority":
            item.priority = (child.text, line)
        elif namespace in SITEMAP_NAMESPACES and local == "changefreq":
            item.changefreq = (child.text, line)
        elif namespace == IMAGE_NS and local == "image":
            image = read_image(child, ctx, offset)
            if image is not None:
                item.images.append(image)
        elif namespace == ATOM_NS and local == "link" and (alternate := hreflang_alternate(child)) is not None:
            item.alternates.append(alternate)
        elif namespace == XHTML_NS and local == "link" and child.get("hreflang") and child.get("href"):
            alternates_href = child.get("href", "").strip()
            item.alternates.append(Alternate(hreflang=child.get("hreflang", "").strip(), href=alternates_href))
        else:
            item.extras[tag] = item.extras.get(tag, "") + serialize_element(child)
    return item


def _field_key(namespace: str, local: str) -> str | None:
    """The single-valued field a child fills (RSS, ``ror:*``, ``sitemap:priority``/``changefreq``), or None."""
    if namespace == "":
        return None if local in _REPEATABLE else local
    if namespace in ROR_NAMESPACES:
        return "ror:" + local
    if namespace in SITEMAP_NAMESPACES and local in ("priority", "changefreq"):
        return "sitemap:" + local
    return None


def _is_header(item: _Item) -> bool:
    """``ror:about`` = sitemap, or ``ror:type`` SiteMap/Main, on an item that is no page of the sitemap.

    Pages carry ``ror:resourceOf`` (feedmap always writes it), so a page typed "Main" (or one whose extras
    hold ``ror:about``) stays a page: a round trip neither gains nor loses entries.
    """
    about = item.ror.get("about", ("", 0))[0].lower()
    kind = item.ror.get("type", ("", 0))[0].lower()
    return (about == "sitemap" or kind in _HEADER_TYPES) and "resourceOf" not in item.ror


def _loc(item: _Item, ctx: Context, line: int) -> str | None:
    link = item.plain.get("link")
    if link is not None and link[0] and link[0].strip():
        return read_loc(link[0], ctx, link[1], what="link")
    guid = item.plain.get("guid")
    if guid is not None and guid[0] and guid[0].strip() and guid[2].get("isPermaLink", "true").lower() != "false":
        return read_loc(guid[0], ctx, guid[1], what="guid")
    ctx.warning("missing-loc", "item without <link> or permalink <guid> is skipped", line)
    return None


def _entry(item: _Item, ctx: Context, line: int) -> Entry | None:
    loc = _loc(item, ctx, line)
    if loc is None:
        return None
    extras: dict[str, str] = {}
    lastmod = None
    updated = item.ror.pop("updated", None)
    if updated is not None and updated[0]:
        lastmod = read_lastmod(updated[0], ctx, updated[1], what="ror:updated")
    pub = item.plain.get("pubDate")
    if lastmod is None and pub is not None and pub[0] and pub[0].strip():
        lastmod = from_rfc822(pub[0]) or read_lastmod(pub[0], ctx, pub[1], what="pubDate")
    changefreq = None
    period = item.ror.pop("updatePeriod", None)
    if period is not None:
        changefreq = _PERIODS.get(period[0].lower())
        if changefreq is not None and period[0] not in _PERIODS:
            ctx.warning(
                "changefreq-case",
                f"ror:updatePeriod {period[0]!r} read as {changefreq.value!r} (the values are lower case)",
                period[1],
            )
        if changefreq is None:
            extras["ror:updatePeriod"] = period[0]
            if period[0]:
                ctx.warning(
                    "invalid-changefreq",
                    f"ror:updatePeriod {period[0]!r} is not a known period; kept in extras",
                    period[1],
                )
    elif item.changefreq is not None:
        changefreq = read_changefreq(item.changefreq[0], ctx, item.changefreq[1])
    priority = read_priority(item.priority[0], ctx, item.priority[1]) if item.priority is not None else None
    keywords_text = item.ror.pop("keywords", None)
    keywords: tuple[str, ...] = ()
    if keywords_text is not None and keywords_text[0]:
        cleaned = _text(keywords_text[0], "ror:keywords", ctx, keywords_text[1]) or ""
        keywords = tuple(part.strip() for part in cleaned.split(",") if part.strip())
    entry_type = item.ror.pop("type", None)
    resource_of = item.ror.get("resourceOf")
    if resource_of is not None and resource_of[0] == "sitemap":
        del item.ror["resourceOf"]
    for name, (value, _line) in item.ror.items():
        extras[f"ror:{name}"] = value
    extras.update(item.extras)
    title = item.plain.get("title")
    description = item.plain.get("description")
    return full_entry(  # Entry(...) without its coercion: every value below has its type already
        loc,
        lastmod,
        changefreq,
        priority,
        real_title(_text(title[0], "title", ctx, title[1]) if title is not None else None, loc),
        _text(description[0], "description", ctx, description[1]) if description is not None else None,
        keywords or tuple(item.categories),
        entry_type[0] if entry_type is not None and entry_type[0] else None,
        tuple(item.images),
        tuple(item.alternates),
        extras,
        new_position(ctx.name, line),
    )


def _header_into(meta: DocMeta, item: _Item) -> None:
    for name, (ror_value, _line) in item.ror.items():
        meta.extras[f"ror:{name}"] = ror_value
    for name in ("title", "link", "description"):
        found = item.plain.get(name)
        text = found[0].strip() if found is not None and found[0] else None
        if text and text != getattr(meta, name):
            meta.extras[f"header:{name}"] = text


def _items(source: Source, meta: DocMeta, ctx: Context) -> Iterator[Entry]:
    for element, offset in iter_elements(
        source.stream, ["item"], reporter=ctx.reporter, name=ctx.name, report_unknown=False
    ):
        line = line_of(element) + offset
        item = _gather(element, ctx, offset)
        if _is_header(item):
            _header_into(meta, item)
            continue
        entry = _entry(item, ctx, line)
        if entry is not None:
            yield entry


def _channel_meta(source: Source, ctx: Context) -> DocMeta:
    """Channel title, link and description from the head of the document (before the items), and the
    header item when it comes first: the metadata is complete before any entry is read, so a writer that
    writes metadata first (jsonl's header line) sees it.  The items are read (and reported) again later.
    """
    meta = DocMeta(kind=DocKind.FEED)
    head = peek_cleaned(source.stream, 256 * 1024)
    parser = etree.XMLPullParser(events=("end",), resolve_entities=False, no_network=True, load_dtd=False, recover=True)
    try:
        parser.feed(head)
        events = list(parser.read_events())
    except (etree.XMLSyntaxError, UnicodeDecodeError):  # the items are read (and the problem reported) later
        return meta
    for _event, element in events:
        if not isinstance(element, etree._Element) or not isinstance(element.tag, str):
            continue
        if element.tag == "item":
            first = _gather(element, Context(reporter=Reporter(), options=ctx.options, name=ctx.name), 0)
            if _is_header(first):
                _header_into(meta, first)
            break
        parent = element.getparent()
        if parent is not None and parent.tag == "channel" and element.tag == "lastBuildDate":
            if meta.updated is None and len(element) == 0:
                meta.updated = channel_date(element.text or "")
        elif parent is not None and parent.tag == "channel" and element.tag in ("title", "link", "description"):
            text = _text(element.text, f"channel {element.tag}", ctx, line_of(element))
            if text and getattr(meta, element.tag) is None:
                setattr(meta, element.tag, text)
    return meta


def read(source: Source, *, ctx: Context) -> Document:
    root = peek_root(source.stream)
    if root is None or root.local != "rss":
        found = f"<{root.local}>" if root is not None else "no XML root element"
        raise ReadError(f"a ROR document is RSS 2.0 (<rss>); found {found}", source=ctx.name, code="wrong-root")
    if not root.namespaces & ROR_NAMESPACES:
        ctx.warning("no-ror-namespace", f"the document does not declare the ROR namespace {ROR_NS}")
    meta = _channel_meta(source, ctx)
    return Document(meta, _items(source, meta, ctx), diagnostics=ctx.reporter.diagnostics)


# ----------------------------------------------------------------------------------------------- writing


def _ror(name: str, value: str, loc: str, ctx: Context) -> str:
    return f"<ror:{name}>{text_of(value, f'ror:{name}', loc, ctx)}</ror:{name}>"


def _item(entry: Entry, ctx: Context, dropped: set[str], namespaces: Namespaces) -> str:
    loc = entry.loc
    parts = item_core(entry, ctx, namespaces)
    if entry.lastmod is not None:
        parts += ["<pubDate>", to_rfc822(entry.lastmod), "</pubDate>"]  # ror:updated keeps the exact text
    if entry.keywords:
        parts.append(_ror("keywords", ", ".join(entry.keywords), loc, ctx))
    if entry.lastmod is not None:
        parts.append(_ror("updated", entry.lastmod.text, loc, ctx))
    if entry.changefreq is not None:
        parts.append(_ror("updatePeriod", entry.changefreq.value, loc, ctx))
    if entry.type is not None:
        parts.append(_ror("type", entry.type, loc, ctx))
    extras = dict(entry.extras)
    parts.append(_ror("resourceOf", extras.pop("ror:resourceOf", "sitemap"), loc, ctx))
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
    if entry.priority is not None:
        priority = format_priority(entry.priority, ctx, loc)
        if priority is not None:
            parts += [f"<sitemap:priority{namespaces.declare('sitemap')}>", priority, "</sitemap:priority>"]
    if entry.images:
        parts += image_elements(entry, ctx, namespaces.declare("image"))
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
        elif key not in dropped:
            dropped.add(key)
            ctx.info("field-dropped", f"extra {key!r} has no place in ROR and is not written")
    parts.append("</item>\n")
    return "".join(parts)


_HEADER = "the ROR header item"


def _header_item(doc: Document, link: str, title: str, ctx: Context) -> str:
    extras = doc.meta.extras
    parts = [
        "<item><title>",
        plain_text_of(extras.get("header:title", title), "title", _HEADER, ctx),
        "</title><link>",
        text_of(extras.get("header:link", link), "link", _HEADER, ctx),
        # a guid of its own (the validator's MissingGuid otherwise), not the link: a page of the sitemap
        # is often the site's home page, and two items must not share a guid
        '</link><guid isPermaLink="false">',
        text_of(extras.get("header:link", link), "guid", _HEADER, ctx),
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


#: Every namespace a ROR document may use, by prefix: ``ror`` always, the others only when used.
NAMESPACES = {"ror": ROR_NS, "sitemap": SITEMAP_NS, "image": IMAGE_NS, "atom": ATOM_NS}


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    namespaces = Namespaces(NAMESPACES, always=("ror",))
    return write_channel(
        doc,
        sink,
        ctx,
        namespaces=namespaces,
        title_prefix="ROR Sitemap for",
        item=lambda entry, dropped: _item(entry, ctx, dropped, namespaces),
        after_channel=lambda channel: _header_item(doc, channel.link, channel.title, ctx),
    )


FORMAT = FormatSpec(
    name="ror",
    title="ROR RSS (RSS 2.0 with Resources-of-a-Resource elements, http://rorweb.com/0.1/)",
    extensions=(".ror",),
    roots=(("*", "rss"),),
    requires_namespaces=ROR_NAMESPACES,
    priority=20,
    reader=read,
    writer=write,
    fields=frozenset(ENTRY_FIELDS),
    description="header item -> document metadata; ror:updated exact + pubDate; other ror:* kept in extras",
)
