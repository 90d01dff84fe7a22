"""The vocabulary every feed reader shares: namespaces, text constructs, link relations and dates.

Specs: RSS 2.0 (https://www.rssboard.org/rss-specification), RSS 1.0 (https://web.resource.org/rss/1.0/spec),
RSS 0.90/0.91 (the Netscape ``rdf/simple/0.9`` namespace and the Userland DTD), Atom 1.0 (RFC 4287: text
constructs §3.1, content §4.1.3, link relations §4.2.7.2) and Atom 0.3 (draft-ietf-atompub-format,
namespace ``http://purl.org/atom/ns#``).  Element content is read as feedparser gives it (markup
serialized, Atom ``xhtml`` unwrapped from its ``<div>``, base64 decoded); dates are W3C or RFC 822 as written.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate, from_rfc822
from feedmap._core.urls import is_absolute_url
from feedmap._xml import IMAGE_NS, SITEMAP_NAMESPACES, XHTML_NS
from feedmap.formats._fields import read_lastmod, read_rfc822_date
from feedmap.formats.feeds._links import ATOM_NS, IANA_RELATIONS, link_relation

__all__ = [
    "ATOM03_NS",
    "ATOM_NS",
    "CONTENT_NS",
    "CORE_NAMESPACES",
    "DCTERMS_NS",
    "DC_NS",
    "EXTENSION_NAMESPACES",
    "FEED_NAMESPACES",
    "GENERATOR",
    "IANA_RELATIONS",
    "ITUNES_NS",
    "MEDIA_NAMESPACES",
    "NEWS_NS",
    "RDF_NS",
    "RSS090_NS",
    "RSS10_NS",
    "TEXT_TYPES",
    "VIDEO_NS",
    "channel_date",
    "content_text",
    "describe_item",
    "element_text",
    "escape_markup",
    "feed_date",
    "link_relation",
    "plain_title",
    "qname",
    "real_title",
    "resolved",
    "title_text",
]

#: What feedmap writes in a channel's ``<generator>`` (RSS 2.0): a ROR reader undoes double escaping in
#: anyone's output but feedmap's own, where ``&amp;amp;`` is the text ``&amp;`` escaped once.
GENERATOR = "feedmap"

RSS10_NS = "http://purl.org/rss/1.0/"
RSS090_NS = "http://my.netscape.com/rdf/simple/0.9/"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
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
EXTENSION_NAMESPACES = frozenset({*SITEMAP_NAMESPACES - {""}, IMAGE_NS, XHTML_NS, NEWS_NS, VIDEO_NS})

#: Namespaces whose elements map to entry fields or are feed vocabulary (never kept as extras).
FEED_NAMESPACES = frozenset({*CORE_NAMESPACES, RDF_NS, DC_NS, DCTERMS_NS, CONTENT_NS})
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml", "html", "xhtml"})
TEXT_TYPES = frozenset({"text/plain", "text", *_HTML_TYPES})


def real_title(title: str | None, *locs: str) -> str | None:
    """The title (or description), or None when it is only the item's own URL: what feedmap (and other writers)
    put in an item with no title and no description, as RSS 2.0 needs one of them (and in an Atom entry without
    a description, as the validator asks for a summary); read back as a real value, it would survive a round trip
    and stop ``--enrich`` from filling in the page's."""
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
    return read_rfc822_date(text, ctx, line, key) or read_lastmod(text, ctx, line, what=key)


def qname(tag: str) -> tuple[str, str]:
    if tag[0] == "{":
        end = tag.index("}")
        return tag[1:end], tag[end + 1 :]
    return "", tag


def content_text(element: etree._Element) -> str:
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
        if isinstance(div.tag, str) and qname(div.tag)[1] == "div" and not (div.tail or "").strip():
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
    import base64  # Atom's base64 content only
    import binascii

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


def resolved(element: etree._Element, url: str) -> str:
    """A relative URL resolved against the element's ``xml:base``, as feedparser resolves links."""
    if not url or is_absolute_url(url):
        return url
    base = element.base
    return urljoin(base, url) if base else url


def element_text(child: etree._Element) -> str:
    return (child.text or "").strip()


#: Atom text constructs holding markup (RFC 4287 §3.1.1): a title of these types is read as its plain text.
_MARKUP_TYPES = frozenset({"html", "xhtml", "text/html", "application/xhtml+xml"})


def title_text(child: etree._Element) -> str:
    """A title as plain text: Atom ``type="html"``/``"xhtml"`` markup becomes its text content (an RSS 2.0
    title is plain text; markup in it is the W3C validator's ``ContainsHTML``)."""
    return plain_title(content_text(child), child.get("type", ""))


def plain_title(text: str, kind: str) -> str:
    """``text`` as plain text when ``kind`` (an Atom text construct's type) says it holds markup."""
    if kind.strip().lower() not in _MARKUP_TYPES or ("<" not in text and "&" not in text):
        return text
    import lxml.html  # its HTML parser, for titles that hold markup only: a feed read without them never loads it

    try:
        fragment = lxml.html.fragment_fromstring(text, create_parent="div")
    except (etree.LxmlError, ValueError):
        return text
    return " ".join(fragment.text_content().split())


def channel_date(text: str) -> W3CDate | None:
    """A channel's date, W3C or RFC 822, as written; None when it is neither (the channel date is not
    essential: it is left out of what is written)."""
    text = text.strip()
    try:
        return W3CDate(text)
    except ValueError:
        return from_rfc822(text)
