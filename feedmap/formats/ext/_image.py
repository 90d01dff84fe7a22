"""The Google image sitemap extension: ``<image:image>`` read into ``Entry.images`` and written back.

Spec: Google image sitemaps, namespace ``http://www.google.com/schemas/sitemap-image/1.1``
(https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps): each
``<image:image>`` holds one ``<image:loc>`` and optionally ``caption``, ``geo_location``, ``title`` and
``license`` (the last four deprecated by Google in 2022, still read and written).  An image without a loc
is skipped (``loc-missing``); a child given twice is reported and its first value kept.  Children are
written in XSD order.  Used by every XML format (sitemap, index, RSS, ROR, Atom).  In a sitemap the namespace's
prefix is ``image``, as Google writes it; a feed (RSS, ROR, Atom) writes ``gimage`` (:data:`FEED_PREFIX`), as the
W3C Feed Validator takes ``image`` for the RSS 1.0 image module's prefix and warns (``ReservedPrefix``) of any
other namespace bound to it (readers match the namespace, never the prefix).
"""

from __future__ import annotations

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.model import Entry, blank_image
from feedmap._xml import IMAGE_NS, line_of
from feedmap.formats._elements import duplicate, holds_markup
from feedmap.formats._fields import strip_value
from feedmap.formats._output import output_url
from feedmap.formats._xmlwrite import plain_uri, text_of
from feedmap.formats.ext import Extension, Fields

__all__ = ["EXTENSION", "FEED_PREFIX", "feed_image_elements", "image_elements", "read"]

#: The prefix of the image namespace in feeds (see the module's docstring).
FEED_PREFIX = "gimage"
_FEEDS = frozenset({"rss", "ror", "atom"})

_IMAGE_FIELDS = {
    f"{{{IMAGE_NS}}}loc": "loc",
    f"{{{IMAGE_NS}}}caption": "caption",
    f"{{{IMAGE_NS}}}geo_location": "geo_location",
    f"{{{IMAGE_NS}}}title": "title",
    f"{{{IMAGE_NS}}}license": "license",
}


def read(element: etree._Element, into: Fields, ctx: Context, offset: int) -> bool:
    """The read hook: the image an ``<image:image>`` describes joins ``into.images``; one without a loc is
    reported and skipped."""
    image = blank_image()
    seen: set[str] | None = set() if len(element) > 1 else None  # one child (the usual) cannot repeat
    for child in element:
        tag = child.tag
        name = _IMAGE_FIELDS.get(tag)  # None for other elements, and for comments and PIs (tag not a str)
        if name is None:
            if isinstance(tag, str):
                ctx.warning("unknown-element", f"<{tag}> inside <image:image> is not read", line_of(child) + offset)
            continue
        if seen is not None:
            if name in seen:
                duplicate(child, element, ctx, offset)
                continue
            seen.add(name)
        if len(child) and holds_markup(child, f"image:{name}", ctx, offset):
            continue
        text = child.text
        if not text:
            continue
        value = text.strip()
        if len(value) != len(text):  # blanks around it: strip_value reports that (with the line)
            value = strip_value(text, f"image:{name}", ctx, line_of(child) + offset)
        if value:
            setattr(image, name, value)
    if not image.loc:
        ctx.warning("loc-missing", "<image:image> without <image:loc> is skipped", line_of(element) + offset)
    else:
        into.images.append(image)
    return True


def image_elements(entry: Entry, ctx: Context, xmlns: str = "") -> list[str]:
    """The write hook: the entry's ``image:image`` elements, children in XSD order; ``xmlns``: declarations for
    their start tags (a writer declares a namespace where it is first used when its root does not)."""
    return _images(entry, ctx, xmlns, "image")


def feed_image_elements(entry: Entry, ctx: Context, xmlns: str = "") -> list[str]:
    """The feeds' write hook: the entry's images as :func:`image_elements` writes them, with the prefix
    :data:`FEED_PREFIX`."""
    return _images(entry, ctx, xmlns, FEED_PREFIX)


def _images(entry: Entry, ctx: Context, xmlns: str, prefix: str) -> list[str]:
    parts: list[str] = []
    loc = entry.loc
    start, end = f"<{prefix}:image{xmlns}><{prefix}:loc>", f"</{prefix}:loc>"
    for image in entry.images:
        image_loc = image.loc
        if plain_uri(image_loc) is None:  # else written as it is in every mode (the common case)
            image_loc = text_of(output_url(image_loc, ctx, entry), "image:loc", loc, ctx)
        if image.caption is None and image.geo_location is None and image.title is None and image.license is None:
            parts += [start, image_loc, f"{end}</{prefix}:image>"]
            continue  # an image with a loc alone, the common case
        parts += [start, image_loc, end]
        if image.caption is not None:
            caption = text_of(image.caption, "image:caption", loc, ctx)
            parts += [f"<{prefix}:caption>", caption, f"</{prefix}:caption>"]
        if image.geo_location is not None:
            geo = text_of(image.geo_location, "image:geo_location", loc, ctx)
            parts += [f"<{prefix}:geo_location>", geo, f"</{prefix}:geo_location>"]
        if image.title is not None:
            parts += [f"<{prefix}:title>", text_of(image.title, "image:title", loc, ctx), f"</{prefix}:title>"]
        if image.license is not None:
            license_url = text_of(output_url(image.license, ctx, entry), "image:license", loc, ctx)
            parts += [f"<{prefix}:license>", license_url, f"</{prefix}:license>"]
        parts.append(f"</{prefix}:image>")
    return parts


EXTENSION = Extension(
    name="image",
    namespace=IMAGE_NS,
    prefix="image",
    elements=frozenset({"image"}),
    field="images",
    read=read,
    write=image_elements,
    formats=frozenset({"sitemap", "sitemapindex"}),
    variants=(
        Extension(
            name="image",
            namespace=IMAGE_NS,
            prefix=FEED_PREFIX,
            elements=frozenset({"image"}),
            field="images",
            read=read,
            write=feed_image_elements,
            formats=_FEEDS,
        ),
    ),
)
