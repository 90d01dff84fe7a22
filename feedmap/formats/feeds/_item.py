"""One feed item (RSS ``<item>``, Atom ``<entry>``) read into an entry, child by child (per-tag handlers).

Specs: RSS 2.0 (https://www.rssboard.org/rss-specification), RSS 1.0 (https://web.resource.org/rss/1.0/spec),
Atom 1.0 (RFC 4287 §4.1.2) and Atom 0.3, with Dublin Core, ``dcterms``, ``content:encoded``, iTunes and
Media RSS keywords; the mapping to entries is the one feedparser gives, with the corrections (see
:mod:`feedmap.formats.feeds._rss`):

* ``loc``: RSS ``<link>`` text, else a link with ``href`` (Atom ``link[@rel=alternate or no rel]``, the
  last of HTML type, else the first), else a permalink ``<guid>`` (``isPermaLink`` defaults to true).  In
  Atom feeds only the links count (an Atom ``<id>`` is an identifier, not the page); an Atom entry with an
  alternate link without ``hreflang`` takes its loc among those, and its alternate links with an ``hreflang``
  are its hreflang alternates (as the ``atom`` writer writes them);
* ``lastmod``: ``updated`` / ``dc:date`` / ``modified`` / ``dcterms:modified``, else ``pubDate`` /
  ``published`` / ``issued`` / ``dcterms:issued``, else ``created``, read as written (offset kept);
* ``title`` (or ``dc:title``), ``description`` (``description`` / ``summary`` / ``dc:description``, else the
  ``content`` of a text or HTML type; a title or description that is the item's URL is none: what a writer puts
  where a feed needs one, RSS a title, the ``atom`` writer a summary), ``keywords`` (``category``, ``dc:subject``,
  ``itunes:keywords``...);
* elements an extension claims (:mod:`feedmap.formats.ext`: ``image:image``, hreflang alternates as
  ``atom:link rel="alternate" hreflang`` in an RSS item or as ``xhtml:link``, third-party ones) are read
  by its read hook; ``sitemap:changefreq`` and ``sitemap:priority`` (as feedmap writes them) fill the
  entry's fields; other elements of namespaces feeds do not define are kept verbatim in extras.

A link, guid or date holding an element or an unexpanded entity reference is not read (reported): lxml's
``.text`` stops there, and a URL cut short is a changed URL.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate
from feedmap._core.model import Alternate, Entry, full_entry, new_position
from feedmap._xml import line_of
from feedmap.formats._elements import duplicate, holds_markup
from feedmap.formats._fields import read_loc
from feedmap.formats.ext import ReadHook
from feedmap.formats.feeds._ext import ItemExtensions, read_extension
from feedmap.formats.feeds._vocab import (
    CONTENT_NS,
    CORE_NAMESPACES,
    DC_NS,
    DCTERMS_NS,
    EXTENSION_NAMESPACES,
    FEED_NAMESPACES,
    ITUNES_NS,
    MEDIA_NAMESPACES,
    TEXT_TYPES,
    content_text,
    describe_item,
    element_text,
    feed_date,
    link_relation,
    qname,
    real_title,
    resolved,
    title_text,
)

__all__ = ["item_entry"]

_UPDATED = frozenset({"updated", "modified", "lastBuildDate"})
_PUBLISHED = frozenset({"published", "issued", "pubDate"})


@dataclass(slots=True)
class _Fields:
    """What one item holds, as read from its children."""

    text_link: str | None = None
    links: list[tuple[str, str, str, str]] = field(default_factory=list)  # (rel, type, href, hreflang)
    permalink: str | None = None
    title: str | None = None
    summary: str | None = None
    content: str | None = None
    #: key (updated, published, created) -> (text, the element's name as written, its line)
    dates: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    tags: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    #: what the extensions and the sitemap fields hold (:mod:`feedmap.formats.feeds._ext`)
    ext: ItemExtensions = field(default_factory=ItemExtensions)
    #: URL and date elements that hold more than text (an element, an unexpanded entity): not read, reported.
    not_text: list[etree._Element] = field(default_factory=list)


def _link(child: etree._Element, fields: _Fields) -> None:
    href = child.get("href") or child.get("url") or child.get("uri")
    rel = link_relation(child.get("rel"))
    if href is None:
        if len(child):
            fields.not_text.append(child)
            return
        text = element_text(child)
        if text:
            url = resolved(child, text)
            if fields.text_link is None:
                fields.text_link = url
            fields.links.append((rel, child.get("type") or "text/html", url, ""))
    elif href.strip():
        kind = child.get("type") or ("application/atom+xml" if rel == "self" else "text/html")
        fields.links.append((rel, kind, resolved(child, href.strip()), (child.get("hreflang") or "").strip()))


def _guid(child: etree._Element, fields: _Fields) -> None:
    if len(child):
        fields.not_text.append(child)
        return
    text = element_text(child)
    if text and fields.permalink is None and child.get("isPermaLink", "true").strip().lower() != "false":
        fields.permalink = resolved(child, text)


def _title(child: etree._Element, fields: _Fields) -> None:
    if fields.title is None:
        fields.title = title_text(child)


def _summary(child: etree._Element, fields: _Fields) -> None:
    if fields.summary is None:
        fields.summary = content_text(child)


def _content(child: etree._Element, fields: _Fields) -> None:
    kind = child.get("type") or "text/plain"
    if fields.content is None and (kind in TEXT_TYPES or (kind.endswith("+xml") and "xhtml" in kind)):
        fields.content = content_text(child)


def _encoded(child: etree._Element, fields: _Fields) -> None:
    if fields.content is None:
        fields.content = content_text(child)


def _date(key: str) -> Handler:
    def handler(child: etree._Element, fields: _Fields) -> None:
        if len(child):
            fields.not_text.append(child)
            return
        if key not in fields.dates:
            local = qname(child.tag)[1]
            name = f"{child.prefix}:{local}" if child.prefix else local
            fields.dates[key] = (element_text(child), name, line_of(child))

    return handler


def _category(child: etree._Element, fields: _Fields) -> None:
    scheme = child.get("scheme", child.get("domain"))
    term = child.get("term")
    text = element_text(child)
    if term is not None or scheme is not None or child.get("label") is not None:
        _add_tag(fields, term or text, scheme, child.get("label"))
    elif text:
        _add_tag(fields, text, None, None)


def _subject(child: etree._Element, fields: _Fields) -> None:
    _add_tag(fields, element_text(child), None, None)


def _terms(scheme: str | None) -> Handler:
    """Comma-separated keywords (``itunes:keywords``, ``media:keywords``)."""

    def handler(child: etree._Element, fields: _Fields) -> None:
        for term in (child.text or "").split(","):
            if term.strip():
                _add_tag(fields, term.strip(), scheme, None)

    return handler


def _itunes_category(child: etree._Element, fields: _Fields) -> None:
    _add_tag(fields, child.get("text") or "", _ITUNES_SCHEME, None)


Handler = Callable[[etree._Element, _Fields], None]

_ITUNES_SCHEME = "http://www.itunes.com/"

_CORE_HANDLERS: dict[str, Handler] = {
    "link": _link,
    "guid": _guid,
    "title": _title,
    "description": _summary,
    "summary": _summary,
    "abstract": _summary,
    "content": _content,
    **dict.fromkeys(_UPDATED, _date("updated")),
    **dict.fromkeys(_PUBLISHED, _date("published")),
    "created": _date("created"),
    "category": _category,
    "keywords": _category,
}

_HANDLERS: dict[str, dict[str, Handler]] = {
    DC_NS: {"date": _date("updated"), "title": _title, "description": _summary, "subject": _subject},
    DCTERMS_NS: {"modified": _date("updated"), "issued": _date("published"), "created": _date("created")},
    CONTENT_NS: {"encoded": _encoded},
    ITUNES_NS: {"keywords": _terms(_ITUNES_SCHEME), "category": _itunes_category},
    **{key: {"keywords": _terms(None)} for key in MEDIA_NAMESPACES},
}


@functools.lru_cache(maxsize=1024)
def _dispatch(tag: str) -> tuple[Handler | None, bool]:
    """What reads a child with this tag, and whether it is an extension element (kept like a sitemap's)."""
    namespace, local = qname(tag)
    handlers = _CORE_HANDLERS if namespace in CORE_NAMESPACES else _HANDLERS.get(namespace, {})
    return handlers.get(local), namespace in EXTENSION_NAMESPACES or namespace not in FEED_NAMESPACES


def _add_tag(fields: _Fields, term: str, scheme: str | None, label: str | None) -> None:
    if not (term or scheme or label):
        return
    tag = (term, scheme, label)
    if tag not in fields.tags:
        fields.tags.append(tag)


def _atom_loc(links: list[tuple[str, str, str, str]]) -> str | None:
    """link[@rel=alternate or no rel]: the last of an HTML type, else the first (feedparser's choice)."""
    alternates = [(kind, href) for rel, kind, href, _ in links if rel == "alternate" and href]
    html = [href for kind, href in alternates if _content_type(kind) in ("text/html", "application/xhtml+xml")]
    if html:
        return html[-1]
    return alternates[0][1] if alternates else None


def _atom_links(links: list[tuple[str, str, str, str]]) -> tuple[str | None, list[Alternate]]:
    """An Atom entry's loc and its language versions.  When the entry has an alternate link without ``hreflang``
    (its page), the loc is chosen among those (:func:`_atom_loc`) and each alternate link with an ``hreflang`` is a
    language version of it (as ``atom:link rel="alternate" hreflang`` in an RSS item is, and as the ``atom`` writer
    writes them); else the loc is chosen among them all, and none is a language version."""
    plain = [link for link in links if not link[3]]
    if _atom_loc(plain) is None:
        return _atom_loc(links), []
    versions = [Alternate(hreflang=lang, href=href) for rel, _, href, lang in links if rel == "alternate" and lang]
    return _atom_loc(plain), versions


def _content_type(kind: str) -> str:
    return {"text": "text/plain", "html": "text/html", "xhtml": "application/xhtml+xml"}.get(kind, kind)


#: Elements an item or entry holds once (RSS 2.0 item elements, RFC 4287 §4.1.2): a second one is reported.
_SINGLE = frozenset({"title", "description", "summary", "content", "guid", "pubDate", "updated", "published"})


def _single_key(child: etree._Element, tag: str) -> object | None:
    """What a second child must not repeat (its tag; for an Atom alternate link, its type and language)."""
    local = qname(tag)[1]
    if local == "link":
        if child.get("href") is None:
            return tag  # an RSS <link>: one per item
        if (child.get("rel") or "alternate") != "alternate":
            return None
        return (tag, child.get("type") or "", child.get("hreflang") or "")  # RFC 4287 §4.1.1
    return tag if local in _SINGLE else None


def _report_repeated(
    repeated: list[etree._Element], element: etree._Element, loc: str | None, ctx: Context, offset: int
) -> None:
    for child in repeated:
        if child.get("href") is None:
            duplicate(child, element, ctx, offset)  # the readers keep the first
            continue
        ctx.warning(
            "element-repeated",
            f'a second <link rel="alternate"> of the same type and language in <{qname(element.tag)[1]}> '
            f"(RFC 4287 allows one); {loc} is used",
            line_of(child) + offset if line_of(child) else 0,
        )


def item_entry(
    element: etree._Element,
    index: int,
    atom: bool,
    ctx: Context,
    offset: int = 0,
    channel_link: str | None = None,
    *,
    claims: Mapping[str, ReadHook],
) -> Entry | None:
    """The entry of one ``<item>`` / ``<entry>``; None (reported) when it has no usable URL.

    ``claims``: the extensions' read hooks (:func:`item_claims`; an Atom feed's leave its Atom elements
    alone).  ``offset`` is added to lxml's line numbers (lines the cleaner removed before the parsed text).
    A relative URL is resolved against the item's ``xml:base``, else the feed's own URL, else
    ``channel_link`` (see :func:`~feedmap.formats._fields.read_loc`).
    """
    line = line_of(element) + offset if line_of(element) else 0
    fields, repeated = _read_children(element, claims, ctx, offset)
    for child in fields.not_text:
        holds_markup(child, qname(child.tag)[1], ctx, offset)
    title = fields.title or None
    versions: list[Alternate] = []
    if atom:
        loc_text, versions = _atom_links(fields.links)
    else:
        loc_text = fields.text_link or _atom_loc(fields.links)
    if not loc_text:
        loc_text = fields.permalink
    if repeated:
        _report_repeated(repeated, element, loc_text, ctx, offset)
    if not loc_text:
        ctx.warning("loc-missing", f"{describe_item(title, index)} has no link and no permalink guid; skipped", line)
        return None
    loc = read_loc(loc_text, ctx, line, fallback_base=channel_link)
    if loc is None:
        return None
    title = real_title(title, loc_text, loc)
    description = real_title(fields.summary or fields.content or None, loc_text, loc)  # the atom writer's summary
    lastmod = _lastmod(fields, ctx, offset, line)
    gathered = fields.ext.check(ctx, line)
    if versions:
        gathered.alternates += versions
    entry = full_entry(  # Entry(...) without its coercion: every value below has its type already
        loc,
        lastmod,
        fields.ext.changefreq,
        fields.ext.priority,
        title,
        description,
        tuple(term.strip() for term, _, _ in fields.tags if term.strip()),
        None,
        tuple(gathered.images),
        tuple(gathered.alternates),
        gathered.extras,
        new_position(ctx.name, line),
    )
    entry.news, entry.videos = gathered.news, tuple(gathered.videos)
    return entry


def _read_children(
    element: etree._Element, claims: Mapping[str, ReadHook], ctx: Context, offset: int
) -> tuple[_Fields, list[etree._Element]]:
    """What an item's children hold, each read by the extension that claims it, else by the handler of its
    tag (:func:`_dispatch`), and the children that repeat one that may come once."""
    fields = _Fields()
    seen: set[object] = set()
    repeated: list[etree._Element] = []
    for child in element:
        tag = child.tag
        if not isinstance(tag, str):
            continue
        hook = claims.get(tag)
        if hook is not None and hook(child, fields.ext.fields, ctx, offset):
            continue
        handler, extension = _dispatch(tag)
        if handler is not None:
            key = _single_key(child, tag)
            if key is not None:
                if key in seen:
                    repeated.append(child)
                seen.add(key)
            handler(child, fields)
        if extension:
            read_extension(child, tag, element, fields.ext, ctx, offset)
    return fields, repeated


def _lastmod(fields: _Fields, ctx: Context, offset: int, line: int) -> W3CDate | None:
    """The first readable of the item's updated, published and created dates."""
    for key in ("updated", "published", "created"):
        text, name, at = fields.dates.get(key, ("", key, 0))
        if text:
            lastmod = feed_date(text, name, ctx, at + offset if at else line)
            if lastmod is not None:
                return lastmod
    return None
