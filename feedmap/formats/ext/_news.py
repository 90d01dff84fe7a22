"""The Google News sitemap extension: ``<news:news>`` read into ``Entry.news`` and written back.

Spec: Google News sitemaps, namespace ``http://www.google.com/schemas/sitemap-news/0.9``
(https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap) and its XSD's order:
``publication`` (``name``, ``language``), ``access``, ``genres``, ``publication_date``, ``title``, ``keywords``,
``stock_tickers``.  Google requires the publication's name and language, the publication date and the title, and
no longer reads the other four (they are read and written all the same).  One ``news:news`` per URL: a second,
or one with attributes, is reported and kept verbatim in ``Entry.extras``.  Each child is read into its part of
:class:`~feedmap._core.model.News` (the publication date as a W3C Datetime, kept as written) when the part holds
it exactly; anything else is kept verbatim in ``News.extras`` and reported (:mod:`._typed`), so nothing is lost:
a ``publication`` with anything but one ``name`` and one ``language`` of text only is kept whole.  Used by the
sitemap and feed formats (a feed item holds the same element, so sitemap -> ROR -> sitemap keeps it).
"""

from __future__ import annotations

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.model import Entry, News
from feedmap._xml import NEWS_NS, line_of
from feedmap.formats.ext import Extension, Fields
from feedmap.formats.ext._typed import Part, Reading, read_children, write_children

__all__ = ["EXTENSION", "news_elements", "read"]

_PARTS = {
    "access": Part("access"),
    "genres": Part("genres"),
    "publication_date": Part("publication_date", "date"),
    "title": Part("title"),
    "keywords": Part("keywords"),
    "stock_tickers": Part("stock_tickers"),
}
_PUBLICATION = {"name": Part("publication_name"), "language": Part("publication_language")}
#: The children in the XSD's order, each with its part (the publication is written by itself, first).
#: The code of a value its part cannot hold (read: kept verbatim; written: left out).
_CODE = "news-value-invalid"
_ORDER: tuple[tuple[str, Part | None], ...] = (("publication", None), *_PARTS.items())
_PUBLICATION_TAG = f"{{{NEWS_NS}}}publication"
_PUBLICATION_CHILDREN = frozenset({f"{{{NEWS_NS}}}name", f"{{{NEWS_NS}}}language"})


def read(element: etree._Element, into: Fields, ctx: Context, offset: int) -> bool:
    """The read hook: the entry's news; a second ``news:news``, or one with attributes, is left to the reader
    (kept verbatim in the entry's extras), reported."""
    line = line_of(element) + offset
    if into.news is not None:
        ctx.warning("element-repeated", "a second <news:news> in one entry; kept as written in extras", line)
        return False
    if element.attrib:
        ctx.warning("news-value-invalid", "<news:news> has attributes it cannot hold; kept as written in extras", line)
        return False
    reading = Reading("news", "news:news", _CODE, ctx, offset)
    publication = False
    for child in element:
        if child.tag != _PUBLICATION_TAG:
            read_children((child,), _PARTS, NEWS_NS, frozenset(), reading)
        elif publication:
            ctx.warning(
                "element-repeated",
                "a second <news:publication> in <news:news>; the first is read, this one kept as written in its extras",
                line_of(child) + offset,
            )
            reading.keep(child)
        else:
            publication = True
            if _plain_publication(child):
                read_children(child, _PUBLICATION, NEWS_NS, frozenset(), reading)
            else:
                reading.refuse(child, "holds more than one name and one language of text only")
    into.news = News(**reading.values, extras=reading.extras)
    return True


def _plain_publication(publication: etree._Element) -> bool:
    """Whether a publication holds what its two parts can: no attribute, at most one name and one language, each
    of text only, nothing else (comments aside)."""
    if publication.attrib:
        return False
    children = [child for child in publication if isinstance(child.tag, str)]
    tags = [child.tag for child in children]
    return (
        len(tags) == len(set(tags))
        and set(tags) <= _PUBLICATION_CHILDREN
        and not any(len(child) or child.attrib for child in children)
    )


def news_elements(entry: Entry, ctx: Context, xmlns: str = "") -> list[str]:
    """The write hook: the entry's ``news:news``, children in the XSD's order (``xmlns``: as for images)."""
    news = entry.news
    if news is None:
        return []
    parts = [f"<news:news{xmlns}>"]
    if news.publication_name is not None or news.publication_language is not None:
        parts.append("<news:publication>")
        parts += write_children(news, tuple(_PUBLICATION.items()), "news", NEWS_NS, entry, ctx, code=_CODE, kept=False)
        parts.append("</news:publication>")
    parts += write_children(news, _ORDER, "news", NEWS_NS, entry, ctx, code=_CODE)
    parts.append("</news:news>")
    return parts


EXTENSION = Extension(
    name="news",
    namespace=NEWS_NS,
    prefix="news",
    elements=frozenset({"news"}),
    field="news",
    read=read,
    write=news_elements,
    formats=frozenset({"sitemap", "rss", "ror", "atom"}),
)
