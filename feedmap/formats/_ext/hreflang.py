"""hreflang alternates: ``<xhtml:link rel="alternate" hreflang=".." href=".."/>`` read into ``Entry.alternates``.

Spec: Google's localized versions in sitemaps
(https://developers.google.com/search/docs/specialty/international/localized-versions#sitemap), elements
of the XHTML namespace ``http://www.w3.org/1999/xhtml``.  Only a link with ``rel="alternate"``, an
``hreflang`` and an ``href`` is an alternate; any other ``xhtml:link`` is left to the reader, which keeps
it verbatim as an XML extra.  Used by every XML format (sitemap, index, RSS, ROR).
"""

from __future__ import annotations

from lxml import etree

from feedmap._context import Context
from feedmap._model import Alternate, Entry
from feedmap._xml import XHTML_NS
from feedmap.formats._ext import Extension, Fields
from feedmap.formats._output import output_url
from feedmap.formats._xmlwrite import attribute_of

__all__ = ["EXTENSION", "alternate_elements", "read"]


def read(element: etree._Element, into: Fields, ctx: Context, offset: int) -> bool:
    """The read hook: an alternate joins ``into.alternates``; another ``xhtml:link`` is not claimed."""
    hreflang, href = element.get("hreflang"), element.get("href")
    if element.get("rel") != "alternate" or not hreflang or not href:
        return False
    into.alternates.append(Alternate(hreflang=hreflang.strip(), href=href.strip()))
    return True


def alternate_elements(entry: Entry, ctx: Context, xmlns: str = "") -> list[str]:
    """The write hook: the entry's alternates as ``xhtml:link`` elements (``xmlns`` as for images)."""
    parts: list[str] = []
    loc = entry.loc
    for alternate in entry.alternates:
        parts += [
            f'<xhtml:link{xmlns} rel="alternate" hreflang="',
            attribute_of(alternate.hreflang, "hreflang", loc, ctx),
            '" href="',
            attribute_of(output_url(alternate.href, ctx), "alternate href", loc, ctx),
            '"/>',
        ]
    return parts


EXTENSION = Extension(
    name="hreflang",
    namespace=XHTML_NS,
    prefix="xhtml",
    elements=frozenset({"link"}),
    field="alternates",
    read=read,
    write=alternate_elements,
)
