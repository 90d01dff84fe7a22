"""Streaming reader of well-formed feeds: RSS 0.9x/2.0, RSS 1.0 (RDF), Atom 0.3 and Atom 1.0, with lxml.

Specs: RSS 2.0 (https://www.rssboard.org/rss-specification), RSS 1.0 (https://web.resource.org/rss/1.0/spec),
RSS 0.90/0.91 (the Netscape ``rdf/simple/0.9`` namespace and the Userland DTD), Atom 1.0 (RFC 4287) and
Atom 0.3 (draft-ietf-atompub-format, namespace ``http://purl.org/atom/ns#``); the mapping to entries is
the one feedparser gives, with the corrections (see :mod:`feedmap.formats.rss`):

* ``loc``: RSS ``<link>`` text, else a link with ``href`` (Atom ``link[@rel=alternate or no rel]``, the
  last of HTML type, else the first), else a permalink ``<guid>`` (``isPermaLink`` defaults to true).  In
  Atom feeds only the links count (an Atom ``<id>`` is an identifier, not the page);
* ``lastmod``: ``updated`` / ``dc:date`` / ``modified`` / ``dcterms:modified``, else ``pubDate`` /
  ``published`` / ``issued`` / ``dcterms:issued``, else ``created``, read as written (offset kept);
* ``title`` (or ``dc:title``), ``description`` (``description`` / ``summary`` / ``dc:description``, else the
  ``content`` of a text or HTML type), ``keywords`` (``category``, ``dc:subject``, ``itunes:keywords``...);
* sitemap extensions (``sitemap:changefreq``, ``sitemap:priority``, ``image:image``, ``xhtml:link``) and
  elements of namespaces feeds do not define are read as in a sitemap ``<url>`` (extras keep the rest).

Elements are read with the hardened ``iterparse`` of :mod:`feedmap._xml` over :class:`CleaningStream`
(its lenient repairs reported), each item cleared once read, so memory stays flat however long the feed.
A link, guid or date holding an element or an unexpanded entity reference is not read (reported): lxml's
``.text`` stops there, and a URL cut short is a changed URL.  A character reference to a UTF-16 surrogate
(``&#xD800;``, not an XML character: XML 1.0 §2.2) is replaced by U+FFFD with a warning instead of stopping
the parse.
"""

from __future__ import annotations

import base64
import binascii
import copy
import functools
import html.entities
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urljoin

import lxml.html
from lxml import etree

from feedmap._dates import W3CDate, from_rfc822
from feedmap._urls import is_absolute_url
from feedmap._xml import IMAGE_NS, SITEMAP_NAMESPACES, SITEMAP_NS, XHTML_NS, CleaningStream, line_of, make_iterparse
from feedmap.context import Context
from feedmap.errors import Reporter
from feedmap.formats._fields import read_lastmod, read_loc
from feedmap.formats.sitemap import duplicate, entry_from_element, holds_markup
from feedmap.model import Alternate, DocKind, DocMeta, Entry, full_entry, new_position
from feedmap.sources import PeekableStream, Readable

__all__ = [
    "CORE_NAMESPACES",
    "FeedItems",
    "ReferenceRepairs",
    "channel_date",
    "describe_item",
    "feed_date",
    "hreflang_alternate",
    "link_relation",
    "real_title",
    "replace_surrogate_refs",
]

RSS10_NS = "http://purl.org/rss/1.0/"
RSS090_NS = "http://my.netscape.com/rdf/simple/0.9/"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
ATOM_NS = "http://www.w3.org/2005/Atom"
ATOM03_NS = "http://purl.org/atom/ns#"
DC_NS = "http://purl.org/dc/elements/1.1/"
DCTERMS_NS = "http://purl.org/dc/terms/"
CONTENT_NS = "http://purl.org/rss/1.0/modules/content/"
ITUNES_NS = "http://www.itunes.com/DTDs/PodCast-1.0.dtd"
MEDIA_NAMESPACES = frozenset({"http://search.yahoo.com/mrss", "http://search.yahoo.com/mrss/"})
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"

#: Namespaces whose elements are the feed's own (RSS, RDF site summary, Atom and their historical URIs):
#: feedparser reads all of them as one vocabulary, and so does this reader.
CORE_NAMESPACES = frozenset(
    {
        "",
        "http://backend.userland.com/rss",
        "http://backend.userland.com/rss2",
        "http://blogs.law.harvard.edu/tech/rss",
        RSS10_NS,
        RSS090_NS,
        ATOM03_NS,
        ATOM_NS,
        "http://purl.org/rss/1.0/modules/rss091#",
    }
)
#: Namespaces of the sitemap family read back from feed items (news and video land in extras).
_EXTENSION_NAMESPACES = frozenset({*SITEMAP_NAMESPACES - {""}, IMAGE_NS, XHTML_NS, NEWS_NS, VIDEO_NS})
#: Namespaces whose elements map to entry fields or are feed vocabulary (never kept as extras).
_FEED_NAMESPACES = frozenset({*CORE_NAMESPACES, RDF_NS, DC_NS, DCTERMS_NS, CONTENT_NS})

_UPDATED = frozenset({"updated", "modified", "lastBuildDate"})
_PUBLISHED = frozenset({"published", "issued", "pubDate"})
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml", "html", "xhtml"})
_TEXT_TYPES = frozenset({"text/plain", "text", *_HTML_TYPES})
_ITEM_TAGS = ["{*}item", "{*}entry"]


def real_title(title: str | None, *locs: str) -> str | None:
    """The title, or None when it is only the item's own URL: what feedmap (and other writers) put in an
    item with no title and no description, as RSS 2.0 needs one of them; read back as a real title, it
    would survive a round trip and stop ``--enrich`` from filling in the page's title."""
    if title is not None and title.strip() in locs:
        return None
    return title


def describe_item(title: str | None, index: int) -> str:
    return f"item {index} ({title!r})" if title else f"item {index}"


def feed_date(text: str, key: str, ctx: Context, line: int = 0) -> W3CDate | None:
    """W3C (Atom, dc:date) or RFC 822 (RSS pubDate) as written, with its offset; anything else leniently.

    ``key`` names the element as the feed writes it (``pubDate``, ``dc:date``, ``published``), for reports.
    """
    text = text.strip()
    if text[:1].isdigit():
        try:
            return W3CDate(text)
        except ValueError:
            pass
    return from_rfc822(text) or read_lastmod(text, ctx, line, what=key)


#: RFC 4287 4.2.7.2: a link relation may be written as the IANA registry's URI of a registered name.
IANA_RELATIONS = "http://www.iana.org/assignments/relation/"


def link_relation(rel: str | None) -> str:
    """The relation of an Atom link: ``alternate`` when none is given, an IANA URI as its short name."""
    rel = (rel or "").strip()
    if not rel:
        return "alternate"
    if rel.startswith(IANA_RELATIONS) and rel[len(IANA_RELATIONS) :]:
        return rel[len(IANA_RELATIONS) :]
    return rel


# ------------------------------------------------------------------------------------------ surrogates

#: ``&#...;`` naming a UTF-16 surrogate (U+D800..U+DFFF, decimal 55296..57343): no XML character.
_SURROGATE_REF = re.compile(
    rb"&#(?:[xX]0*[dD][89a-fA-F][0-9a-fA-F]{2}|0*(?:5529[6-9]|55[3-9][0-9]{2}|56[0-9]{3}|57[0-2][0-9]{2}|573[0-3][0-9]|5734[0-3]));"
)


def replace_surrogate_refs(data: bytes, reporter: Reporter, name: str, *, skip: int = 0) -> bytes:
    """``data`` with every surrogate character reference replaced by ``&#xFFFD;``, each reported (the
    first ``skip`` ones were reported already)."""
    count = 0

    def replace(match: re.Match[bytes]) -> bytes:
        nonlocal count
        count += 1
        if count > skip:
            _report_surrogate(reporter, name, match.group(), data.count(b"\n", 0, match.start()) + 1)
        return b"&#xFFFD;"

    return _SURROGATE_REF.sub(replace, data)


def _report_surrogate(reporter: Reporter, name: str, ref: bytes, line: int) -> None:
    reporter.warning(
        "invalid-character",
        f"{ref.decode('ascii')} names a UTF-16 surrogate, which is no XML character; read as U+FFFD",
        name,
        line,
    )


#: A character reference to a surrogate (group 1: hex digits, group 2: decimal digits) or a named reference
#: other than XML's five (group 3).
_REPAIRABLE = re.compile(
    rb"&(?:#(?:[xX]0*([dD][89a-fA-F][0-9a-fA-F]{2})|0*(5[5-7][0-9]{3}))|(?!(?:amp|lt|gt|quot|apos);)([A-Za-z][A-Za-z0-9]{1,9}));"
)
#: HTML 4's named character references (the RSS 0.91 DTD declares them; feedparser reads them in any feed).
_HTML_ENTITIES = {name.encode("ascii"): code for name, code in html.entities.name2codepoint.items()}
_HOLD = 16  # bytes held back at a chunk's end: a reference or a CDATA marker is never longer
_CDATA_OPEN = b"<![CDATA["
_CDATA_CLOSE = b"]]>"


class ReferenceRepairs:
    """Reads through a feed's bytes repairing, outside CDATA sections, two references XML does not allow:

    * a character reference to a surrogate becomes ``&#xFFFD;`` (each reported: ``invalid-character``);
    * an HTML named reference (``&nbsp;``, ``&eacute;``: RSS 0.91's DTD declares HTML 4's, which a parser
      that loads no DTD does not know) becomes its numeric reference (``html-entity``, once per name).

    Other unknown references are left to :class:`~feedmap._xml.CleaningStream` (kept as written).  Sits
    before it, so lines are the input's.
    """

    def __init__(self, inner: Readable, *, reporter: Reporter, name: str) -> None:
        self._inner = inner
        self._reporter = reporter
        self._name = name
        self._carry = b""
        self._eof = False
        self._in_cdata = False
        self._line = 1
        self._named: set[bytes] = set()
        #: Surrogate references replaced so far.
        self.replaced = 0

    def read(self, size: int = -1, /) -> bytes:
        while True:
            chunk = b""
            if not self._eof:
                chunk = self._inner.read(size if size > 0 else 1 << 16)
                self._eof = not chunk
            buf = self._carry + chunk
            cut = len(buf) if self._eof else _safe_cut(buf)
            head, self._carry = buf[:cut], buf[cut:]
            if self._in_cdata or b"&" in head or _CDATA_OPEN in head:
                head = self._repair(head)
            self._line += head.count(b"\n")
            if head or self._eof:
                return head

    def _repair(self, data: bytes) -> bytes:
        parts: list[bytes] = []
        pos = counted = 0
        line = self._line  # line of data[counted], advanced as pos moves so that lines are counted once
        while pos < len(data):
            if self._in_cdata:
                end = data.find(_CDATA_CLOSE, pos)
                stop = len(data) if end < 0 else end + len(_CDATA_CLOSE)
                parts.append(data[pos:stop])
                self._in_cdata = end < 0
                pos = stop
                continue
            start = data.find(_CDATA_OPEN, pos)
            stop = len(data) if start < 0 else start
            segment = data[pos:stop]
            if b"&" in segment:
                line += data.count(b"\n", counted, pos)
                counted = pos
                segment = _REPAIRABLE.sub(self._replacer(line), segment)
            parts.append(segment)
            if start < 0:
                break
            parts.append(_CDATA_OPEN)
            pos = start + len(_CDATA_OPEN)
            self._in_cdata = True
        return b"".join(parts)

    def _replacer(self, line: int) -> Callable[[re.Match[bytes]], bytes]:
        """Replaces one match in a segment whose first byte is on ``line``."""
        last = [0, line]  # a position in the segment and its line: matches come in order, each newline counted once

        def at(match: re.Match[bytes]) -> int:
            last[1] += match.string.count(b"\n", last[0], match.start())
            last[0] = match.start()
            return last[1]

        def replace(match: re.Match[bytes]) -> bytes:
            name = match.group(3)
            if name is not None:
                code = _HTML_ENTITIES.get(name)
                if code is None:
                    return match.group()
                if name not in self._named:
                    self._named.add(name)
                    self._reporter.warning(
                        "html-entity",
                        f"&{name.decode('ascii')}; is an HTML entity XML does not define; read as {chr(code)!r}",
                        self._name,
                        at(match),
                    )
                return b"&#%d;" % code
            if match.group(2) is not None and not 55296 <= int(match.group(2)) <= 57343:
                return match.group()
            self.replaced += 1
            _report_surrogate(self._reporter, self._name, match.group(), at(match))
            return b"&#xFFFD;"

        return replace


def _safe_cut(buf: bytes) -> int:
    """Where to end the bytes handed on so that no repairable reference or CDATA marker is split: the last
    ``_HOLD`` bytes wait, and the cut moves back to the start of any such token it would cut through."""
    cut = max(len(buf) - _HOLD, 0)
    moved = True
    while moved:
        moved = False
        for pos in range(max(cut - _HOLD, 0), cut):
            if _spans(buf, pos, cut):
                cut, moved = pos, True
                break
    return cut


def _spans(buf: bytes, pos: int, cut: int) -> bool:
    """True when a token that matters to :class:`ReferenceRepairs` starts at ``pos`` and ends after ``cut``."""
    byte = buf[pos]
    if byte == 0x26:  # &
        match = _REPAIRABLE.match(buf, pos)
        return match is not None and match.end() > cut
    if byte == 0x3C:  # <
        return pos + len(_CDATA_OPEN) > cut and buf.startswith(_CDATA_OPEN, pos)
    if byte == 0x5D:  # ]
        return pos + len(_CDATA_CLOSE) > cut and buf.startswith(_CDATA_CLOSE, pos)
    return False


# ------------------------------------------------------------------------------------------ the reader


@dataclass(slots=True)
class _Fields:
    """What one item holds, as read from its children."""

    text_link: str | None = None
    links: list[tuple[str, str, str]] = field(default_factory=list)  # (rel, type, href)
    permalink: str | None = None
    title: str | None = None
    summary: str | None = None
    content: str | None = None
    #: key (updated, published, created) -> (text, the element's name as written, its line)
    dates: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    tags: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    extensions: list[etree._Element] = field(default_factory=list)
    #: hreflang alternates an RSS item carries as ``atom:link rel="alternate" hreflang`` (as feedmap writes them)
    alternates: list[Alternate] = field(default_factory=list)
    #: URL and date elements that hold more than text (an element, an unexpanded entity): not read, reported.
    not_text: list[etree._Element] = field(default_factory=list)


def _qname(tag: str) -> tuple[str, str]:
    if tag[0] == "{":
        end = tag.index("}")
        return tag[1:end], tag[end + 1 :]
    return "", tag


def _text(element: etree._Element) -> str:
    """The element's content as feedparser gives it: text, with any child markup serialized, stripped.

    Atom's ``type="xhtml"`` wraps the content in one ``<div>``, which is not part of it (RFC 4287 §3.1.1.3);
    base64 content (Atom 0.3 ``mode``, Atom 1.0 binary types) is decoded.
    """
    if len(element) == 0:
        text = (element.text or "").strip()
        return _base64(text) if _is_base64(element) else text
    holder = element
    if element.get("type") == "xhtml" and len(element) == 1 and not (element.text or "").strip():
        div = element[0]
        if isinstance(div.tag, str) and _qname(div.tag)[1] == "div" and not (div.tail or "").strip():
            holder = div
    parts = [escape_markup(holder.text or "")]
    for child in holder:
        parts.append(_markup(child))
    return "".join(parts).strip()


def _is_base64(element: etree._Element) -> bool:
    """Atom 0.3 ``mode="base64"``, or an Atom 1.0 content type that is neither text nor XML (RFC 4287 §4.1.3.3)."""
    if element.get("mode") == "base64":
        return True
    kind = element.get("type") or "text"
    return "/" in kind and not kind.startswith("text/") and not kind.endswith(("+xml", "/xml"))


def _base64(text: str) -> str:
    try:
        return base64.b64decode(text, validate=False).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return text


def escape_markup(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_XMLNS = re.compile(r' xmlns(?::[\w.-]+)?="[^"]*"')


def _markup(child: etree._Element) -> str:
    if not isinstance(child.tag, str):
        return escape_markup(child.tail or "")
    text = etree.tostring(child, encoding="unicode", with_tail=True)
    text = _XMLNS.sub("", text)
    return re.sub(r"(</?)[\w.-]+:", r"\1", text) if ":" in text else text


def _resolved(element: etree._Element, url: str) -> str:
    """A relative URL resolved against the element's ``xml:base``, as feedparser resolves links."""
    if not url or is_absolute_url(url):
        return url
    base = element.base
    return urljoin(base, url) if base else url


def _text_of(child: etree._Element) -> str:
    return (child.text or "").strip()


def _link(child: etree._Element, fields: _Fields) -> None:
    href = child.get("href") or child.get("url") or child.get("uri")
    rel = link_relation(child.get("rel"))
    if href is None:
        if len(child):
            fields.not_text.append(child)
            return
        text = _text_of(child)
        if text:
            url = _resolved(child, text)
            if fields.text_link is None:
                fields.text_link = url
            fields.links.append((rel, child.get("type") or "text/html", url))
    elif href.strip():
        kind = child.get("type") or ("application/atom+xml" if rel == "self" else "text/html")
        fields.links.append((rel, kind, _resolved(child, href.strip())))


def _guid(child: etree._Element, fields: _Fields) -> None:
    if len(child):
        fields.not_text.append(child)
        return
    text = _text_of(child)
    if text and fields.permalink is None and child.get("isPermaLink", "true").strip().lower() != "false":
        fields.permalink = _resolved(child, text)


#: Atom text constructs holding markup (RFC 4287 §3.1.1): a title of these types is read as its plain text.
_MARKUP_TYPES = frozenset({"html", "xhtml", "text/html", "application/xhtml+xml"})


def _title_text(child: etree._Element) -> str:
    """A title as plain text: Atom ``type="html"``/``"xhtml"`` markup becomes its text content (an RSS 2.0
    title is plain text; markup in it is the W3C validator's ``ContainsHTML``)."""
    return plain_title(_text(child), child.get("type", ""))


def plain_title(text: str, kind: str) -> str:
    """``text`` as plain text when ``kind`` (an Atom text construct's type) says it holds markup."""
    if kind.strip().lower() not in _MARKUP_TYPES or ("<" not in text and "&" not in text):
        return text
    try:
        fragment = lxml.html.fragment_fromstring(text, create_parent="div")
    except (etree.LxmlError, ValueError):
        return text
    return " ".join(fragment.text_content().split())


def _title(child: etree._Element, fields: _Fields) -> None:
    if fields.title is None:
        fields.title = _title_text(child)


def _summary(child: etree._Element, fields: _Fields) -> None:
    if fields.summary is None:
        fields.summary = _text(child)


def _content(child: etree._Element, fields: _Fields) -> None:
    kind = child.get("type") or "text/plain"
    if fields.content is None and (kind in _TEXT_TYPES or (kind.endswith("+xml") and "xhtml" in kind)):
        fields.content = _text(child)


def _encoded(child: etree._Element, fields: _Fields) -> None:
    if fields.content is None:
        fields.content = _text(child)


def _date(key: str) -> Handler:
    def handler(child: etree._Element, fields: _Fields) -> None:
        if len(child):
            fields.not_text.append(child)
            return
        if key not in fields.dates:
            local = _qname(child.tag)[1]
            name = f"{child.prefix}:{local}" if child.prefix else local
            fields.dates[key] = (_text_of(child), name, line_of(child))

    return handler


def _category(child: etree._Element, fields: _Fields) -> None:
    scheme = child.get("scheme", child.get("domain"))
    term = child.get("term")
    text = _text_of(child)
    if term is not None or scheme is not None or child.get("label") is not None:
        _add_tag(fields, term or text, scheme, child.get("label"))
    elif text:
        _add_tag(fields, text, None, None)


def _subject(child: etree._Element, fields: _Fields) -> None:
    _add_tag(fields, _text_of(child), None, None)


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
    namespace, local = _qname(tag)
    handlers = _CORE_HANDLERS if namespace in CORE_NAMESPACES else _HANDLERS.get(namespace, {})
    return handlers.get(local), namespace in _EXTENSION_NAMESPACES or namespace not in _FEED_NAMESPACES


def _add_tag(fields: _Fields, term: str, scheme: str | None, label: str | None) -> None:
    if not (term or scheme or label):
        return
    tag = (term, scheme, label)
    if tag not in fields.tags:
        fields.tags.append(tag)


def _atom_loc(links: list[tuple[str, str, str]]) -> str | None:
    """link[@rel=alternate or no rel]: the last of an HTML type, else the first (feedparser's choice)."""
    alternates = [(kind, href) for rel, kind, href in links if rel == "alternate" and href]
    html = [href for kind, href in alternates if _content_type(kind) in ("text/html", "application/xhtml+xml")]
    if html:
        return html[-1]
    return alternates[0][1] if alternates else None


def _content_type(kind: str) -> str:
    return {"text": "text/plain", "html": "text/html", "xhtml": "application/xhtml+xml"}.get(kind, kind)


def _holder(extensions: list[etree._Element], ctx: Context) -> Entry | None:
    """The sitemap extensions of an item, read as a sitemap ``<url>`` would be."""
    if not extensions:
        return None
    holder = etree.Element(f"{{{SITEMAP_NS}}}url")
    etree.SubElement(holder, f"{{{SITEMAP_NS}}}loc").text = "http://placeholder.invalid/"
    for child in extensions:
        clone = copy.deepcopy(child)
        namespace = _qname(clone.tag)[0]
        if namespace in SITEMAP_NAMESPACES and namespace != SITEMAP_NS:
            clone.tag = f"{{{SITEMAP_NS}}}{_qname(clone.tag)[1]}"
        holder.append(clone)
    return entry_from_element(holder, SITEMAP_NS, ctx)


#: Elements an item or entry holds once (RSS 2.0 item elements, RFC 4287 §4.1.2): a second one is reported.
_SINGLE = frozenset({"title", "description", "summary", "content", "guid", "pubDate", "updated", "published"})


def _single_key(child: etree._Element, tag: str) -> object | None:
    """What a second child must not repeat (its tag; for an Atom alternate link, its type and language)."""
    local = _qname(tag)[1]
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
            "duplicate-element",
            f"a second <link rel=\"alternate\"> of the same type and language in <{_qname(element.tag)[1]}> "
            f"(RFC 4287 allows one); {loc} is used",
            line_of(child) + offset if line_of(child) else 0,
        )


_ATOM_LINK = f"{{{ATOM_NS}}}link"


def hreflang_alternate(child: etree._Element) -> Alternate | None:
    """An ``atom:link rel="alternate"`` with ``hreflang`` and ``href`` in an RSS item: a sitemap's hreflang
    alternate, as the ``rss`` and ``ror`` writers put it (the ``xhtml:link`` of a sitemap, RFC 4287 §4.2.7)."""
    hreflang = (child.get("hreflang") or "").strip()
    href = (child.get("href") or "").strip()
    if not hreflang or not href or link_relation(child.get("rel")) != "alternate":
        return None
    return Alternate(hreflang=hreflang, href=href)


def _hreflang_alternate(child: etree._Element, fields: _Fields) -> bool:
    alternate = hreflang_alternate(child)
    if alternate is not None:
        fields.alternates.append(alternate)
    return alternate is not None


def item_entry(
    element: etree._Element,
    index: int,
    atom: bool,
    ctx: Context,
    offset: int = 0,
    channel_link: str | None = None,
) -> Entry | None:
    """The entry of one ``<item>`` / ``<entry>``; None (reported) when it has no usable URL.

    ``offset`` is added to lxml's line numbers (lines the cleaner removed before the parsed text).  A
    relative URL is resolved against the item's ``xml:base``, else the feed's own URL, else
    ``channel_link`` (see :func:`~feedmap.formats._fields.read_loc`).
    """
    line = line_of(element) + offset if line_of(element) else 0
    fields = _Fields()
    seen: set[object] = set()
    repeated: list[etree._Element] = []
    for child in element:
        tag = child.tag
        if not isinstance(tag, str):
            continue
        if not atom and tag == _ATOM_LINK and _hreflang_alternate(child, fields):
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
            fields.extensions.append(child)
    for child in fields.not_text:
        holds_markup(child, _qname(child.tag)[1], ctx, offset)
    title = fields.title or None
    loc_text = _atom_loc(fields.links) if atom else fields.text_link or _atom_loc(fields.links)
    if not loc_text:
        loc_text = fields.permalink
    if repeated:
        _report_repeated(repeated, element, loc_text, ctx, offset)
    if not loc_text:
        ctx.warning("missing-loc", f"{describe_item(title, index)} has no link and no permalink guid; skipped", line)
        return None
    loc = read_loc(loc_text, ctx, line, fallback_base=channel_link)
    if loc is None:
        return None
    title = real_title(title, loc_text, loc)
    lastmod = None
    for key in ("updated", "published", "created"):
        text, name, at = fields.dates.get(key, ("", key, 0))
        if text:
            lastmod = feed_date(text, name, ctx, at + offset if at else line)
            if lastmod is not None:
                break
    extra = _holder(fields.extensions, ctx)
    return full_entry(  # Entry(...) without its coercion: every value below has its type already
        loc,
        lastmod,
        extra.changefreq if extra is not None else None,
        extra.priority if extra is not None else None,
        title,
        fields.summary or fields.content or None,
        tuple(term.strip() for term, _, _ in fields.tags if term.strip()),
        None,
        extra.images if extra is not None else (),
        (extra.alternates if extra is not None else ()) + tuple(fields.alternates),
        extra.extras if extra is not None else {},
        new_position(ctx.name, line),
    )


#: A channel's (feed's) last update: RSS 2.0 ``lastBuildDate``, Atom ``updated``, Atom 0.3 ``modified``, and
#: ``dc:date`` / ``dcterms:modified`` (feedparser's ``updated``).
_CHANNEL_UPDATED = frozenset({"lastBuildDate", "updated", "modified"})
_CHANNEL_DATES = frozenset({(DC_NS, "date"), (DCTERMS_NS, "modified")})


def channel_date(text: str) -> W3CDate | None:
    """A channel's date, W3C or RFC 822, as written; None when it is neither (the channel date is not
    essential: it is left out of what is written)."""
    text = text.strip()
    try:
        return W3CDate(text)
    except ValueError:
        return from_rfc822(text)


def _channel_meta(container: etree._Element, meta: DocMeta) -> None:
    """Fill what ``meta`` lacks from a channel (RSS) or feed (Atom) element's own children."""
    for child in container:
        if not isinstance(child.tag, str):
            continue
        namespace, local = _qname(child.tag)
        if (namespace, local) in _CHANNEL_DATES or (namespace in CORE_NAMESPACES and local in _CHANNEL_UPDATED):
            updated = channel_date(child.text or "") if len(child) == 0 else None
            if updated is not None:
                meta.updated = updated  # the last one written counts, as in feedparser
            continue
        if namespace not in CORE_NAMESPACES and not (namespace == DC_NS and local in ("title", "description")):
            continue
        if local == "title" and meta.title is None:
            meta.title = _title_text(child) or None
        elif local == "link" and meta.link is None:
            href = child.get("href")
            rel = link_relation(child.get("rel"))
            value = href if href is not None else child.text
            if rel == "alternate" and value and value.strip():
                meta.link = _resolved(child, value.strip())
        elif local in ("description", "subtitle", "tagline") and meta.description is None:
            meta.description = _title_text(child) or None  # RSS 2.0's channel description is plain text


def _meta_from(item: etree._Element, meta: DocMeta) -> None:
    """The channel metadata around an item: its parent (RSS 2.0 channel, Atom feed) or, in RSS 1.0, the
    ``<channel>`` beside it."""
    parent = item.getparent()
    if parent is None:
        return
    if _qname(parent.tag)[1] in ("channel", "feed"):
        _channel_meta(parent, meta)
    for sibling in parent:
        if isinstance(sibling.tag, str) and _qname(sibling.tag)[1] == "channel" and sibling is not item:
            _channel_meta(sibling, meta)


class FeedItems:
    """The items of a well-formed feed, one by one; raises lxml's XMLSyntaxError where the XML breaks.

    :attr:`meta` holds the channel's title, link and description once the first item was read (or the
    document ended); :attr:`items` counts the items read so far (with or without a usable URL).
    """

    def __init__(self, stream: PeekableStream, ctx: Context, *, atom: bool) -> None:
        self.ctx = ctx
        self.atom = atom
        self.meta = DocMeta(kind=DocKind.FEED)
        self.items = 0
        self._cleaner = CleaningStream(stream, reporter=ctx.reporter, name=ctx.name)
        self._context = make_iterparse(self._cleaner, _ITEM_TAGS)
        self._elements = iter(self._context)

    def elements(self) -> Iterator[etree._Element]:
        """Each item element of a feed namespace, cleared (with what came before it) after use."""
        for _event, element in self._elements:
            if _qname(element.tag)[0] not in CORE_NAMESPACES:
                continue
            if self.items == 0:
                _meta_from(element, self.meta)
            self.items += 1
            yield element
            element.clear(keep_tail=False)
            parent = element.getparent()
            if parent is not None:
                while element.getprevious() is not None:
                    del parent[0]
        root = self._context.root
        if root is not None:
            _channel_meta(root, self.meta)
            for child in root:
                if isinstance(child.tag, str) and _qname(child.tag)[1] == "channel":
                    _channel_meta(child, self.meta)

    def line(self, element: etree._Element) -> int:
        return line_of(element) + self._cleaner.line_offset
