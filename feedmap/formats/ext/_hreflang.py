"""hreflang alternates: ``<xhtml:link rel="alternate" hreflang=".." href=".."/>`` read into ``Entry.alternates``.

Spec: Google's localized versions in sitemaps
(https://developers.google.com/search/docs/specialty/international/localized-versions#sitemap), elements
of the XHTML namespace ``http://www.w3.org/1999/xhtml``.  Only a link with ``rel="alternate"``, an
``hreflang`` and an ``href`` is an alternate; any other ``xhtml:link`` is left to the reader, which keeps
it verbatim as an XML extra.

Feeds (RSS, ROR) hold the same alternates as Atom links, ``<atom:link rel="alternate" hreflang=".."
href=".."/>`` (RFC 4287 §4.2.7; the Atom namespace is valid in RSS 2.0, where the W3C Feed Validator calls
``xhtml:link`` misplaced): the feed variant reads and writes them, first in the item (feedparser takes the
last alternate link of an HTML type as the item's link, so ``<link>`` must come after them), and the
``xhtml:link`` alternates of older feeds are still read there.  An Atom feed holds them as its own links (in its
default namespace, :func:`link_elements`; the validator asks Atom feeds not to prefix the Atom namespace): its
writer writes them, no hook of this extension serves it.
"""

from __future__ import annotations

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.model import Alternate, Entry
from feedmap._core.urls import is_http_url
from feedmap._xml import XHTML_NS, line_of
from feedmap.formats._output import output_url
from feedmap.formats._xmlwrite import attribute_of
from feedmap.formats.ext import Extension, Fields
from feedmap.formats.feeds._links import ATOM_NS, link_relation

__all__ = ["EXTENSION", "alternate_elements", "atom_link_elements", "link_elements", "read", "read_atom_link"]

_FEEDS = frozenset({"rss", "ror"})


def read(element: etree._Element, into: Fields, ctx: Context, offset: int) -> bool:
    """The read hook: an alternate joins ``into.alternates``; another ``xhtml:link`` is not claimed. A link
    without ``rel``, or an alternate without ``hreflang`` or ``href``, is reported (``alternate-incomplete``)."""
    rel, hreflang, href = element.get("rel"), element.get("hreflang"), element.get("href")
    if rel != "alternate" or not hreflang or not href:
        app_link = bool(href) and not is_http_url(href or "")  # rel="alternate" href="android-app://..."
        if rel is None or (rel == "alternate" and not app_link):
            _report_incomplete(element, ("rel", rel), ("hreflang", hreflang), ("href", href), ctx=ctx, offset=offset)
        return False
    into.alternates.append(Alternate(hreflang=hreflang.strip(), href=href.strip()))
    return True


def _report_incomplete(element: etree._Element, *attributes: tuple[str, str | None], ctx: Context, offset: int) -> None:
    missing = " and ".join(name for name, value in attributes if not (value or "").strip())
    ctx.warning(
        "alternate-incomplete",
        f'<xhtml:link> without {missing} is no hreflang alternate (Google\'s localized versions need rel="alternate", '
        "hreflang and href); kept as an extra",
        line_of(element) + offset,
    )


def read_atom_link(element: etree._Element, into: Fields, ctx: Context, offset: int) -> bool:
    """The feeds' read hook: an ``atom:link`` with ``hreflang`` and ``href`` whose relation is ``alternate``
    (the default, or its IANA URI) joins ``into.alternates``; another is left to the feed reader."""
    hreflang = (element.get("hreflang") or "").strip()
    href = (element.get("href") or "").strip()
    if not hreflang or not href or link_relation(element.get("rel")) != "alternate":
        return False
    into.alternates.append(Alternate(hreflang=hreflang, href=href))
    return True


def _links(element: str, entry: Entry, ctx: Context, xmlns: str, alternates: tuple[Alternate, ...]) -> list[str]:
    parts: list[str] = []
    loc = entry.loc
    for alternate in alternates:
        parts += [
            f'<{element}{xmlns} rel="alternate" hreflang="',
            attribute_of(alternate.hreflang, "hreflang", loc, ctx),
            '" href="',
            attribute_of(output_url(alternate.href, ctx, entry), "alternate href", loc, ctx),
            '"/>',
        ]
    return parts


def alternate_elements(entry: Entry, ctx: Context, xmlns: str = "") -> list[str]:
    """The write hook: the entry's alternates as ``xhtml:link`` elements (``xmlns`` as for images)."""
    return _links("xhtml:link", entry, ctx, xmlns, entry.alternates)


def atom_link_elements(entry: Entry, ctx: Context, xmlns: str = "") -> list[str]:
    """The feeds' write hook: the entry's alternates as ``atom:link rel="alternate"`` elements."""
    return _links("atom:link", entry, ctx, xmlns, entry.alternates)


def link_elements(alternates: tuple[Alternate, ...], entry: Entry, ctx: Context) -> list[str]:
    """``alternates`` (of ``entry``) as an Atom entry's own ``link rel="alternate"`` elements (in the default
    namespace of an Atom feed)."""
    return _links("link", entry, ctx, "", alternates)


EXTENSION = Extension(
    name="hreflang",
    namespace=XHTML_NS,
    prefix="xhtml",
    elements=frozenset({"link"}),
    field="alternates",
    read=read,
    write=alternate_elements,
    formats=frozenset({"sitemap", "sitemapindex"}),
    variants=(
        Extension(
            name="hreflang",
            namespace=ATOM_NS,
            prefix="atom",
            elements=frozenset({"link"}),
            field="alternates",
            read=read_atom_link,
            write=atom_link_elements,
            formats=_FEEDS,
            leading=True,
        ),
        Extension(
            name="hreflang",
            namespace=XHTML_NS,
            prefix="xhtml",
            elements=frozenset({"link"}),
            field="alternates",
            read=read,
            formats=_FEEDS,
        ),
    ),
)
