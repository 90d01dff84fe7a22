"""XML names: the namespaces feedmap knows, Clark-notation tags, and what lxml tells of an element.

Namespaces in XML 1.0 (https://www.w3.org/TR/xml-names/): a tag is ``{namespace-uri}local`` in lxml's
Clark notation.  The sitemaps.org 0.9 namespace (https://www.sitemaps.org/protocol.html) comes in
variants that real sitemaps use (``https``, a trailing slash, Google's 0.84, none at all).
"""

from __future__ import annotations

from lxml import etree

__all__ = [
    "GOOGLE_084_NS",
    "IMAGE_NS",
    "NEWS_NS",
    "SITEMAP_NAMESPACES",
    "SITEMAP_NS",
    "VIDEO_NS",
    "XHTML_NS",
    "XSI_NS",
    "has_entity",
    "line_of",
    "local_name",
    "namespace_of",
]

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
GOOGLE_084_NS = "http://www.google.com/schemas/sitemap/0.84"
#: Namespaces read as sitemaps.org 0.9 without complaint ("" is no namespace at all).
SITEMAP_NAMESPACES = frozenset(
    {
        SITEMAP_NS,
        SITEMAP_NS + "/",
        "https://www.sitemaps.org/schemas/sitemap/0.9",
        "https://www.sitemaps.org/schemas/sitemap/0.9/",
        GOOGLE_084_NS,
        "",
    }
)
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"


def namespace_of(tag: str) -> str:
    return tag[1 : tag.index("}")] if tag.startswith("{") else ""


def local_name(tag: str) -> str:
    return tag[tag.index("}") + 1 :] if tag.startswith("{") else tag


def has_entity(element: etree._Element) -> bool:
    """True when the element's text holds a reference to an entity the (ignored) DOCTYPE declares."""
    return len(element) > 0 and any(isinstance(child, etree._Entity) for child in element)


def line_of(element: etree._Element) -> int:
    """The element's line in the parsed text (0 when lxml does not know it)."""
    line: object = element.sourceline
    return line if isinstance(line, int) else 0
