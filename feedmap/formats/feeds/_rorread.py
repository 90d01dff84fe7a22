"""Reading ROR ("Resources of a Resource", http://rorweb.com/0.1/) items from RSS 2.0, with lxml.

Spec: ROR in RSS 2.0 (rorweb.com, the ``ror:*`` elements) over RSS 2.0
(https://www.rssboard.org/rss-specification); the mapping is described in :mod:`feedmap.formats.feeds._ror`.
Each item's children are gathered by namespace URI (a dispatch table per namespace), elements an extension
claims (:mod:`feedmap.formats.ext`: images, hreflang alternates as ``atom:link`` or ``xhtml:link``,
third-party ones) by its read hook, then turned into an entry, or into document metadata for the header item.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate
from feedmap._core.errors import Reporter
from feedmap._core.model import (
    Alternate,
    ChangeFreq,
    DocKind,
    DocMeta,
    Entry,
    Image,
    News,
    Video,
    full_entry,
    new_position,
)
from feedmap._core.urls import check_loc
from feedmap._io.sources import Source
from feedmap._xml import (
    SITEMAP_NAMESPACES,
    iter_elements,
    line_of,
    local_name,
    namespace_of,
    peek_cleaned,
)
from feedmap.formats._elements import duplicate, holds_markup, serialize_element
from feedmap.formats._fields import read_changefreq, read_lastmod, read_loc, read_priority, read_rfc822_date
from feedmap.formats.ext import ReadHook, hooks
from feedmap.formats.feeds._vocab import GENERATOR, channel_date, real_title

__all__ = ["ROR_NAMESPACES", "ROR_NS", "channel_meta", "ror_items"]

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


def _text(value: str | None, what: str, ctx: Context, line: int, repair: bool = True) -> str | None:
    """Human text: blanks trimmed, double escaping undone once (reported) unless ``repair`` is off (feedmap's
    own output, whose ``&amp;`` is an ampersand written once)."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if repair and "&" in text and _ESCAPED.search(text) is not None:
        import html  # with its table of entities, for a text escaped twice only

        fixed = html.unescape(text)
        ctx.warning("double-escaped", f"{what} was escaped twice ({text[:40]!r}); unescaped once", line)
        text = fixed
    return text


class _Item:
    """The children of one ``<item>``, gathered by namespace URI."""

    __slots__ = (
        "alternates",
        "categories",
        "changefreq",
        "extras",
        "images",
        "news",
        "plain",
        "priority",
        "ror",
        "videos",
    )

    def __init__(self) -> None:
        self.plain: dict[str, tuple[str | None, int, etree._Element]] = {}
        self.ror: dict[str, tuple[str, int]] = {}
        self.categories: list[str] = []
        self.images: list[Image] = []
        self.alternates: list[Alternate] = []
        self.news: News | None = None
        self.videos: list[Video] = []
        self.extras: dict[str, str] = {}
        self.priority: tuple[str | None, int] | None = None
        self.changefreq: tuple[str | None, int] | None = None


#: Item children that may come more than once (RSS 2.0 ``category``); every other one is single-valued.
_REPEATABLE = frozenset({"category"})


#: What a tag's Clark name says, worked out once per tag by :class:`_Tags`: its local name, the single-valued
#: field it fills (None if none), the read hook of the extension that claims it and the reader of its
#: namespace (None if none).
_Facts = tuple[str, "str | None", "ReadHook | None", "Reader | None"]


class _Tags(dict[str, _Facts]):
    """The facts of each tag met so far in one document, for the ``ror`` format's read hooks (``claims``);
    bounded, cleared when full (a feed has few distinct tags, an odd one may have many)."""

    __slots__ = ("claims",)
    limit = 1024

    def __init__(self, claims: Mapping[str, ReadHook]) -> None:
        super().__init__()
        self.claims = claims

    def __missing__(self, tag: str) -> _Facts:
        namespace, local = namespace_of(tag), local_name(tag)
        facts = (local, _field_key(namespace, local), self.claims.get(tag), _READERS.get(namespace))
        if len(self) >= self.limit:
            self.clear()
        self[tag] = facts
        return facts


def _gather(element: etree._Element, ctx: Context, offset: int, tags: _Tags) -> _Item:
    """The children of an ``<item>``, each read by the extension that claims it (``tags.claims``: the ``ror``
    format's read hooks by tag), else by the reader of its namespace (:data:`_READERS`); what none takes is
    kept verbatim in extras.

    A second single-valued child, or one holding markup, is not read (both reported)."""
    item = _Item()
    seen: set[str] = set()
    for child in element:
        tag = child.tag
        if not isinstance(tag, str):
            continue
        local, key, hook, reader = tags[tag]
        if key is not None:
            if key in seen:
                duplicate(child, element, ctx, offset)
                continue
            seen.add(key)
            if len(child) and holds_markup(child, local, ctx, offset):  # an unexpanded entity, an element
                continue
        if hook is not None and hook(child, item, ctx, offset):
            continue
        known_line: object = child.sourceline  # line_of(child) + offset, inline: it runs once per child
        line = (known_line if isinstance(known_line, int) else 0) + offset
        if reader is _ror_child:  # the two readers of nearly every child, inline
            item.ror[local] = ((child.text or "").strip(), line)
        elif reader is _plain and local != "category":
            item.plain[local] = (child.text, line, child)
        elif reader is None or not reader(item, child, local, line, ctx, offset):
            item.extras[tag] = item.extras.get(tag, "") + serialize_element(child)
    return item


#: Reads one child of an item into it: (item, child, local name, line, ctx, line offset) -> taken.
Reader = Callable[[_Item, etree._Element, str, int, Context, int], bool]


def _plain(item: _Item, child: etree._Element, local: str, line: int, ctx: Context, offset: int) -> bool:
    """An RSS 2.0 child (no namespace): ``category`` may repeat, every other one is kept by name."""
    if local != "category":
        item.plain[local] = (child.text, line, child)
    elif child.text and child.text.strip():
        item.categories.append(child.text.strip())
    return True


def _ror_child(item: _Item, child: etree._Element, local: str, line: int, ctx: Context, offset: int) -> bool:
    item.ror[local] = ((child.text or "").strip(), line)
    return True


def _sitemap_child(item: _Item, child: etree._Element, local: str, line: int, ctx: Context, offset: int) -> bool:
    """``sitemap:priority`` and ``sitemap:changefreq`` (as feedmap writes priority, losslessly)."""
    if local == "priority":
        item.priority = (child.text, line)
    elif local == "changefreq":
        item.changefreq = (child.text, line)
    else:
        return False
    return True


_READERS: dict[str, Reader] = {
    **dict.fromkeys(ROR_NAMESPACES, _ror_child),
    **dict.fromkeys(SITEMAP_NAMESPACES - {""}, _sitemap_child),
    "": _plain,
}


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
    ror = item.ror
    if "resourceOf" in ror:  # a page (nearly every item): nothing else to look at
        return False
    about = ror.get("about", ("", 0))[0].lower()
    kind = ror.get("type", ("", 0))[0].lower()
    return about == "sitemap" or kind in _HEADER_TYPES


def _loc(item: _Item, ctx: Context, line: int) -> str | None:
    link = item.plain.get("link")
    if link is not None and link[0] and link[0].strip():
        text = link[0]
        if len(text.strip()) == len(text) and check_loc(text) is None:
            return text  # fine as written: read_loc would say nothing and give it back
        return read_loc(text, ctx, link[1], what="link")
    guid = item.plain.get("guid")
    if guid is not None and guid[0] and guid[0].strip() and guid[2].get("isPermaLink", "true").lower() != "false":
        return read_loc(guid[0], ctx, guid[1], what="guid")
    ctx.warning("loc-missing", "item without <link> or permalink <guid> is skipped", line)
    return None


def _entry(item: _Item, ctx: Context, line: int, repair: bool) -> Entry | None:
    loc = _loc(item, ctx, line)
    if loc is None:
        return None
    extras: dict[str, str] = {}
    lastmod = _lastmod(item, ctx)
    changefreq = _changefreq(item, ctx, extras)
    priority = read_priority(item.priority[0], ctx, item.priority[1]) if item.priority is not None else None
    keywords = _keywords(item, ctx, repair)
    entry_type = item.ror.pop("type", None)
    resource_of = item.ror.get("resourceOf")
    if resource_of is not None and resource_of[0] == "sitemap":
        del item.ror["resourceOf"]
    for name, (value, _line) in item.ror.items():
        extras[f"ror:{name}"] = value
    extras.update(item.extras)
    title = item.plain.get("title")
    description = item.plain.get("description")
    entry = full_entry(  # Entry(...) without its coercion: every value below has its type already
        loc,
        lastmod,
        changefreq,
        priority,
        real_title(_text(title[0], "title", ctx, title[1], repair) if title is not None else None, loc),
        _text(description[0], "description", ctx, description[1], repair) if description is not None else None,
        keywords or tuple(item.categories),
        entry_type[0] if entry_type is not None and entry_type[0] else None,
        tuple(item.images),
        tuple(item.alternates),
        extras,
        new_position(ctx.name, line),
    )
    entry.news, entry.videos = item.news, tuple(item.videos)
    return entry


def _lastmod(item: _Item, ctx: Context) -> W3CDate | None:
    """``ror:updated`` (W3C, exact), else ``pubDate``."""
    lastmod = None
    updated = item.ror.pop("updated", None)
    if updated is not None and updated[0]:
        try:
            lastmod = W3CDate(updated[0])  # what read_lastmod gives a valid date, without a word
        except ValueError:
            lastmod = read_lastmod(updated[0], ctx, updated[1], what="ror:updated")
    pub = item.plain.get("pubDate")
    if lastmod is None and pub is not None and pub[0] and pub[0].strip():
        lastmod = read_rfc822_date(pub[0], ctx, pub[1], "pubDate") or read_lastmod(pub[0], ctx, pub[1], what="pubDate")
    return lastmod


def _changefreq(item: _Item, ctx: Context, extras: dict[str, str]) -> ChangeFreq | None:
    """``ror:updatePeriod`` (an unknown period is kept in ``extras``), else ``sitemap:changefreq``."""
    period = item.ror.pop("updatePeriod", None)
    if period is None:
        return read_changefreq(item.changefreq[0], ctx, item.changefreq[1]) if item.changefreq is not None else None
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
                "changefreq-invalid",
                f"ror:updatePeriod {period[0]!r} is not a known period; kept in extras",
                period[1],
            )
    return changefreq


def _keywords(item: _Item, ctx: Context, repair: bool) -> tuple[str, ...]:
    """``ror:keywords``, split on commas."""
    keywords_text = item.ror.pop("keywords", None)
    if keywords_text is None or not keywords_text[0]:
        return ()
    cleaned = _text(keywords_text[0], "ror:keywords", ctx, keywords_text[1], repair) or ""
    return tuple(part.strip() for part in cleaned.split(",") if part.strip())


def _header_into(meta: DocMeta, item: _Item) -> None:
    for name, (ror_value, _line) in item.ror.items():
        meta.extras[f"ror:{name}"] = ror_value
    for name in ("title", "link", "description"):
        found = item.plain.get(name)
        text = found[0].strip() if found is not None and found[0] else None
        if text and text != getattr(meta, name):
            meta.extras[f"header:{name}"] = text


def ror_items(source: Source, meta: DocMeta, ctx: Context, *, repair: bool = True) -> Iterator[Entry]:
    """The entries of the items (the header item's values go into ``meta``); ``repair``: undo double
    escaping (off for feedmap's own output, see :func:`channel_meta`)."""
    tags = _Tags(hooks("ror").read)
    for element, offset in iter_elements(
        source.stream, ["item"], reporter=ctx.reporter, name=ctx.name, report_unknown=False
    ):
        line = line_of(element) + offset
        item = _gather(element, ctx, offset, tags)
        if _is_header(item):
            _header_into(meta, item)
            continue
        entry = _entry(item, ctx, line, repair)
        if entry is not None:
            yield entry


def channel_meta(source: Source, ctx: Context) -> tuple[DocMeta, bool]:
    """Channel title, link and description from the head of the document (before the items), and the
    header item when it comes first: the metadata is complete before any entry is read, so a writer that
    writes metadata first (jsonl's header line) sees it.  The items are read (and reported) again later.

    Also whether text needs double escaping undone: not in feedmap's own output (``<generator>``
    :data:`GENERATOR`), where ``&amp;amp;`` is the escaped text ``&amp;``, not an ampersand escaped twice.
    """
    meta = DocMeta(kind=DocKind.FEED)
    texts: list[tuple[str, str | None, int]] = []
    head = peek_cleaned(source.stream, 256 * 1024)
    parser = etree.XMLPullParser(events=("end",), resolve_entities=False, no_network=True, load_dtd=False, recover=True)
    try:
        parser.feed(head)
        events = list(parser.read_events())
    except (etree.XMLSyntaxError, UnicodeDecodeError):  # the items are read (and the problem reported) later
        return meta, True
    repair = True
    for _event, element in events:
        if not isinstance(element, etree._Element) or not isinstance(element.tag, str):
            continue
        if element.tag == "item":
            _channel_texts(meta, texts, ctx, repair)
            texts = []
            quiet = Context(reporter=Reporter(), options=ctx.options, name=ctx.name)
            first = _gather(element, quiet, 0, _Tags(hooks("ror").read))
            if _is_header(first):
                _header_into(meta, first)
            break
        parent = element.getparent()
        if parent is not None and parent.tag == "channel" and element.tag == "lastBuildDate":
            if meta.updated is None and len(element) == 0:
                meta.updated = channel_date(element.text or "")
        elif parent is not None and parent.tag == "channel" and element.tag in ("title", "link", "description"):
            texts.append((element.tag, element.text, line_of(element)))
        elif parent is not None and parent.tag == "channel" and element.tag == "generator":
            repair = (element.text or "").strip() != GENERATOR
    _channel_texts(meta, texts, ctx, repair)
    return meta, repair


def _channel_texts(meta: DocMeta, texts: list[tuple[str, str | None, int]], ctx: Context, repair: bool) -> None:
    """The channel's title, link and description into ``meta`` (the first of each), read once ``repair``
    is known (feedmap's ``<generator>`` follows them)."""
    for tag, value, line in texts:
        text = _text(value, f"channel {tag}", ctx, line, repair)
        if text and getattr(meta, tag) is None:
            setattr(meta, tag, text)
