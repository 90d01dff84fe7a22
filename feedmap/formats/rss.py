"""``rss``: syndication feeds (RSS 0.9x/1.0/2.0, Atom 0.3/1.0), streamed with lxml, written as RSS 2.0.

sitemaps.org ("Other formats") accepts RSS 2.0 and Atom as sitemaps; PROTOCOL.md, "Feeds as sitemaps":

* ``loc`` from the item's ``link``, else from a ``guid`` that is a permalink (``isPermaLink`` defaults to
  true), else Atom ``link[@rel=alternate or no rel]``;
* ``lastmod`` from ``updated`` (Atom, ``dc:date``), ``published`` (``pubDate``) or Atom 0.3 ``modified``,
  read from the text as written so its offset and precision are kept;
* ``title``, ``description`` (summary) and ``keywords`` (category terms).

Reading streams (:mod:`feedmap.formats._feedstream`): a well-formed feed is read item by item with lxml,
memory flat whatever its size.  feedparser reads what lxml cannot: a document whose root is no RSS, RDF
or Atom root, or one that is not well-formed (beyond the repairs :class:`~feedmap._xml.CleaningStream`
reports).  The input is recorded as it streams (in a spooled temporary file), so that when the XML breaks
off after some items, feedparser reads the whole (capped) input and the items after those already given
come from it.  Such a feed gives one ``malformed-feed`` warning (``--strict`` stops on it), and every URL
feedparser's recovery gives that the feed does not hold as written is reported (``feed-recovered-url``):
feedparser rewrites entity-like text in links (``?a=1&amp;b=2`` keeps ``&amp;``, ``&host;`` loses its
``;``); where the text as written is found, it is used instead.

Items without a usable URL are skipped with a warning naming the item.  Extension elements feedmap writes
into RSS (``sitemap:changefreq``, ``sitemap:priority``, ``image:image``, hreflang alternates as ``atom:link
rel="alternate" hreflang``; ``xhtml:link`` is read too) are read back by namespace URI, so ``sitemap -> rss
-> sitemap`` keeps them.  The channel's ``lastBuildDate`` (Atom: the feed's ``updated``) is kept
(``DocMeta.updated``) and written back.  Titles are written as plain text, descriptions as sanitized HTML
(:mod:`feedmap.formats._feedhtml`).
"""

from __future__ import annotations

import html
import itertools
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from lxml import etree

from feedmap._dates import W3CDate, from_rfc822, to_rfc822
from feedmap._xml import IMAGE_NS, SITEMAP_NS, line_of, peek_root
from feedmap.context import Context
from feedmap.errors import ReadError
from feedmap.formats._feedhtml import description_html
from feedmap.formats._feedstream import (
    ATOM03_NS,
    CORE_NAMESPACES,
    RDF_NS,
    FeedItems,
    ReferenceRepairs,
    channel_date,
    describe_item,
    feed_date,
    item_entry,
    link_relation,
    plain_title,
    real_title,
    replace_surrogate_refs,
)
from feedmap.formats._fields import read_loc
from feedmap.formats._rsswrite import ATOM_NS, DC_NS, Namespaces, alternate_links, plain_text_of, write_channel
from feedmap.formats.sitemap import (
    format_priority,
    image_elements,
    loc_text,
    text_of,
    xml_extras,
)
from feedmap.model import ENTRY_FIELDS, DocKind, DocMeta, Document, Entry, full_entry, new_position
from feedmap.registry import FormatSpec
from feedmap.sources import PeekableStream, Readable, Source

__all__ = ["FORMAT", "read", "write"]

_SPOOL_IN_MEMORY = 1 << 20  # bytes of the recorded input kept in memory before it goes to a temporary file


class _Recorder:
    """Reads through to a stream and keeps a copy of what was read, to give it to feedparser if need be."""

    def __init__(self, inner: Readable) -> None:
        self._inner = inner
        self._spool = tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY)  # noqa: SIM115 (closed by close)

    def read(self, size: int = -1, /) -> bytes:
        data = self._inner.read(size)
        if data:
            self._spool.write(data)
        return data

    def replay(self) -> bytes:
        """The whole input: what was read so far, then the rest of the stream."""
        self._spool.seek(0)
        return self._spool.read() + self._inner.read()

    def close(self) -> None:
        self._spool.close()


# ------------------------------------------------------------------------------------ the feedparser path


#: Link-like text and attributes as written in the raw feed (to check feedparser's recovered URLs against).
_RAW_TEXT = re.compile(r"<(?:[\w.-]+:)?(?:link|guid|id)\b[^>]*>\s*(?:<!\[CDATA\[)?(.*?)(?:\]\]>)?\s*</", re.S)
_RAW_ATTRIBUTE = re.compile(r"\b(?:href|url|uri)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_ENTITY_LIKE = re.compile(r"&([A-Za-z0-9_]+);")  # what feedparser rewrites in links (mixin.py, "query variables")
_REFERENCE = re.compile(r"&(amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});")


def _unescape(text: str) -> str:
    """XML's predefined and character references resolved; other entity-like text kept as written."""
    return _REFERENCE.sub(lambda match: html.unescape(match.group()), text)


class _RawLinks:
    """The URLs a malformed feed holds as written, to verify those feedparser's recovery gives.

    ``written`` maps each raw text, and the forms feedparser's recovery turns it into (it keeps ``&amp;``
    in a guid, and in a link turns ``&name;`` into ``&name``), to what the XML means by it.
    """

    def __init__(self, text: str) -> None:
        raw = [match.group(1).strip() for match in _RAW_TEXT.finditer(text)]
        raw += [(match.group(1) or match.group(2) or "").strip() for match in _RAW_ATTRIBUTE.finditer(text)]
        self.values = {_unescape(value) for value in raw if value}
        self.written: dict[str, set[str]] = {}
        for value in raw:
            meant = _unescape(value)
            plain = value.replace("&amp;", "&")
            for form in (value, plain, _ENTITY_LIKE.sub(r"&\g<1>", plain)):
                self.written.setdefault(form, set()).add(meant)

    def verify(self, url: str, ctx: Context) -> str:
        """The URL as the feed writes it, when feedparser's recovery changed it; reported if it differs."""
        if url in self.values:
            return url
        meant = self.written.get(url, set())
        if len(meant) == 1:
            written = next(iter(meant))
            ctx.warning(
                "feed-recovered-url",
                f"feedparser's recovery of the malformed feed read {url!r}; the feed writes {written!r}: "
                "kept as written",
            )
            return written
        ctx.warning(
            "feed-recovered-url",
            f"{url!r} comes from feedparser's recovery of the malformed feed and is not in it as written; check it",
        )
        return url


def _atom_link(item: Any) -> str | None:
    """The entry's (or feed's) link[@rel=alternate or no rel] (feedparser's choice among several), never
    its id: feedparser makes an Atom ``<id>`` the link when there is no link."""
    links = item.get("links", [])
    alternates = [link["href"] for link in links if link_relation(link.get("rel")) == "alternate" and link.get("href")]
    link = item.get("link")
    return link if link in alternates else (alternates[0] if alternates else None)


#: The element an RSS feed writes for each of feedparser's date keys (feedparser names them as Atom does).
_RSS_DATE_NAMES = {"published": "pubDate", "updated": "dc:date", "modified": "dcterms:modified", "created": "created"}


def _entries(parsed: Any, ctx: Context, raw: _RawLinks | None, skip: int = 0) -> Iterator[Entry]:
    """The entries feedparser found, after the first ``skip`` items; URLs checked against ``raw``."""
    # feedparser reads an Atom <id> like an RSS guid and makes it the link when no link came first;
    # an Atom id is an identifier, not the entry's page (only link[@rel=alternate or no rel] is)
    atom = str(parsed.get("version", "")).startswith("atom")
    for index, item in enumerate(itertools.islice(parsed.entries, skip, None), start=skip + 1):
        loc_text = _atom_link(item) if atom else item.get("link")
        if not loc_text:
            ctx.warning(
                "missing-loc", f"{describe_item(item.get('title'), index)} has no link and no permalink guid; skipped"
            )
            continue
        if raw is not None:
            loc_text = raw.verify(loc_text, ctx)
        loc = read_loc(loc_text, ctx, 0, fallback_base=parsed.feed.get("link") or None)
        if loc is None:
            continue
        lastmod = None
        for key in ("updated", "published", "modified", "created"):
            text = dict.get(item, key)  # not item.get: feedparser maps a missing "updated" to "published", warning
            if text:
                lastmod = feed_date(text, key if atom else _RSS_DATE_NAMES[key], ctx)
                if lastmod is not None:
                    break
        keywords = tuple(tag["term"].strip() for tag in item.get("tags", []) if tag.get("term", "").strip())
        title = real_title(_feed_title(item) or None, loc_text, loc)
        summary = item.get("summary") or None
        origin = new_position(ctx.name, 0)
        yield full_entry(loc, lastmod, None, None, title, summary, keywords, None, (), (), {}, origin)


def _feed_title(node: Any) -> str:
    """feedparser's title, as plain text when its type says it holds markup (as the lxml path reads it)."""
    title = str(node.get("title") or "")
    detail = node.get("title_detail") or {}
    return plain_title(title, str(detail.get("type", ""))) if title else title


def _feed_description(feed: Any, atom: bool) -> str:
    """feedparser's subtitle or description; an Atom subtitle as plain text when its type says it holds
    markup (RSS 2.0's channel description is plain text; the lxml path reads it so)."""
    text = str(feed.get("subtitle") or feed.get("description") or "")
    detail = feed.get("subtitle_detail") or {}
    return plain_title(text, str(detail.get("type", ""))) if atom and text else text


def _feedparse(data: bytes, ctx: Context, broken: etree.LxmlError | None) -> Any:
    """feedparser's reading of the whole input; ``broken`` is lxml's error when lxml could not read it."""
    import feedparser

    try:
        parsed = feedparser.parse(data, sanitize_html=False, resolve_relative_uris=False)
    except Exception as error:  # feedparser has its own failure modes on damaged input (found by fuzzing)
        raise ReadError(f"feedparser cannot read this feed ({error})", source=ctx.name, code="not-a-feed") from error
    if broken is not None:
        line = broken.lineno if isinstance(broken, etree.XMLSyntaxError) and broken.lineno else 0
        message = broken.msg if isinstance(broken, etree.XMLSyntaxError) and broken.msg else str(broken)
        ctx.warning("malformed-feed", f"the feed is not well-formed ({message}); read leniently", line)
    elif parsed.get("bozo"):
        exc = parsed.get("bozo_exception")
        line = exc.getLineNumber() if hasattr(exc, "getLineNumber") else 0
        message = exc.getMessage() if hasattr(exc, "getMessage") else str(exc)
        ctx.warning("malformed-feed", f"the feed is not well-formed ({message}); read leniently", line)
    return parsed


def _raw_links(parsed: Any, data: bytes) -> _RawLinks | None:
    """The raw links of a feed feedparser had to recover (None when it read the feed as well-formed)."""
    if not parsed.get("bozo"):
        return None
    encoding = str(parsed.get("encoding") or "utf-8")
    try:
        text = data.decode(encoding, "replace")
    except LookupError:
        text = data.decode("utf-8", "replace")
    return _RawLinks(text)


def _read_with_feedparser(
    data: bytes, ctx: Context, broken: etree.LxmlError | None = None, *, reported: int = 0
) -> Document:
    """The whole feed read by feedparser (the path for what lxml cannot read); the first ``reported``
    surrogate references were reported already."""
    data = replace_surrogate_refs(data, ctx.reporter, ctx.name, skip=reported)
    parsed = _feedparse(data, ctx, broken)
    if not parsed.get("version") and not parsed.entries:
        raise ReadError("not a feed that feedparser understands", source=ctx.name, code="not-a-feed")
    feed = parsed.feed
    atom = str(parsed.get("version", "")).startswith("atom")
    meta = DocMeta(
        kind=DocKind.FEED,
        title=_feed_title(feed) or None,
        link=(_atom_link(feed) if atom else feed.get("link")) or None,
        description=_feed_description(feed, atom) or None,
        updated=channel_date(str(dict.get(feed, "updated") or "")),
    )
    return Document(meta, _entries(parsed, ctx, _raw_links(parsed, data)), diagnostics=ctx.reporter.diagnostics)


# ------------------------------------------------------------------------------------ the streaming path


def _streamable(stream: PeekableStream) -> bool | None:
    """True for an Atom feed, False for RSS / RDF, None when the root is none of these (feedparser reads it)."""
    root = peek_root(stream)
    if root is None:
        return None
    if root.local == "feed" and root.namespace in (ATOM_NS, ATOM03_NS):
        return True
    if (root.local == "rss" and root.namespace in CORE_NAMESPACES) or (
        root.local == "RDF" and root.namespace == RDF_NS
    ):
        return False
    return None


@dataclass(frozen=True, slots=True)
class _Fallback:
    """What the feedparser path needs when the XML breaks off: the recorded input, the repairs reported."""

    recorder: _Recorder
    repairs: ReferenceRepairs


def _streamed(
    items: FeedItems,
    elements: Iterator[etree._Element],
    first: etree._Element | None,
    fallback: _Fallback,
    ctx: Context,
) -> Iterator[Entry]:
    try:
        element = first
        while element is not None:
            entry = item_entry(
                element, items.items, items.atom, ctx, items.line(element) - line_of(element), items.meta.link
            )
            if entry is not None:
                yield entry
            element = next(elements, None)
    except etree.LxmlError as broken:
        # the XML breaks off after some items: feedparser reads the whole input, the items not given yet count
        data = replace_surrogate_refs(
            fallback.recorder.replay(), ctx.reporter, ctx.name, skip=fallback.repairs.replaced
        )
        parsed = _feedparse(data, ctx, broken)
        yield from _entries(parsed, ctx, _raw_links(parsed, data), skip=items.items)
    finally:
        fallback.recorder.close()


def read(source: Source, *, ctx: Context) -> Document:
    recorder = _Recorder(source.stream)
    peeked = PeekableStream(recorder)
    atom = _streamable(peeked)
    if atom is None:
        try:
            return _read_with_feedparser(recorder.replay(), ctx)
        finally:
            recorder.close()
    repairs = ReferenceRepairs(peeked, reporter=ctx.reporter, name=ctx.name)
    items = FeedItems(PeekableStream(repairs), ctx, atom=atom)
    elements = items.elements()
    try:
        first = next(elements, None)
    except etree.LxmlError as broken:
        try:
            return _read_with_feedparser(recorder.replay(), ctx, broken, reported=repairs.replaced)
        finally:
            recorder.close()
    entries = _streamed(items, elements, first, _Fallback(recorder, repairs), ctx)
    doc = Document(items.meta, entries, diagnostics=ctx.reporter.diagnostics)
    doc.closers.append(recorder.close)
    return doc


# ----------------------------------------------------------------------------------------------- writing


def item_core(entry: Entry, ctx: Context, namespaces: Namespaces) -> list[str]:
    """hreflang alternates, title, link, guid and description of an RSS 2.0 item (the start tag included).

    The alternates (``atom:link rel="alternate"``) come before ``<link>``: feedparser takes the last
    alternate link of an HTML type as the item's link, so ``<link>`` must come after them to stay it."""
    loc = loc_text(entry, ctx)
    parts: list[str] = ["<item>"]
    if entry.alternates:
        parts += alternate_links(entry, ctx, namespaces.declare("atom"))
    title = entry.title
    if title is None and entry.description is None:
        title = entry.loc
    if title is not None:
        parts += ["<title>", plain_text_of(title, "title", entry.loc, ctx), "</title>"]
    parts += ["<link>", loc, '</link><guid isPermaLink="true">', loc, "</guid>"]
    if entry.description is not None:
        description = description_html(entry.description, entry.loc, ctx)
        parts += ["<description>", text_of(description, "description", entry.loc, ctx), "</description>"]
    return parts


def exact_rfc822(lastmod: W3CDate) -> str | None:
    """The lastmod as an RFC 822 ``pubDate`` when that reads back as exactly the same W3C text, else None
    (a date without a time, fractions of seconds, ``+00:00`` rather than ``Z``)."""
    try:
        text = to_rfc822(lastmod)
    except (ValueError, OverflowError):
        return None
    back = from_rfc822(text)
    return text if back is not None and back.text == lastmod.text else None


def _item(entry: Entry, ctx: Context, dropped: set[str], namespaces: Namespaces) -> str:
    parts = item_core(entry, ctx, namespaces)
    for keyword in entry.keywords:
        parts += ["<category>", text_of(keyword, "keyword", entry.loc, ctx), "</category>"]
    if entry.lastmod is not None:
        # the exact lastmod in one place (pubDate and dc:date together are the validator's DuplicateItemSemantics)
        pub_date = exact_rfc822(entry.lastmod)
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
    if entry.images:
        parts += image_elements(entry, ctx, namespaces.declare("image"))
    if entry.extras:
        parts += xml_extras(entry, dropped, ctx, {}, default_namespace=False)
    parts.append("</item>\n")
    return "".join(parts)


#: Every namespace an RSS item may use, by prefix (declared only when used).
RSS_NAMESPACES = {"atom": ATOM_NS, "dc": DC_NS, "sitemap": SITEMAP_NS, "image": IMAGE_NS}


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    namespaces = Namespaces(RSS_NAMESPACES)
    return write_channel(
        doc,
        sink,
        ctx,
        namespaces=namespaces,
        title_prefix="Pages of",
        item=lambda entry, dropped: _item(entry, ctx, dropped, namespaces),
    )


FORMAT = FormatSpec(
    name="rss",
    title="RSS / Atom feed (read: RSS 0.9x/1.0/2.0, Atom 0.3/1.0, streamed; write: RSS 2.0)",
    extensions=(".rss", ".atom"),
    roots=(("*", "rss"), (RDF_NS, "RDF"), ("*", "feed")),
    priority=5,
    reader=read,
    writer=write,
    fields=frozenset(ENTRY_FIELDS) - {"type"},
    description="loc from link / permalink guid / Atom alternate; lastmod keeps its offset; --title --link "
    "--description --self-url for the channel",
)
