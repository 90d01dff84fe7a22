"""The sitemap reader's hot path: one ``<url>`` or ``<sitemap>`` walked for the plain values of the common case.

Spec: https://www.sitemaps.org/protocol.html (``loc``, ``lastmod``, ``changefreq``, ``priority``: text only,
once per entry) and Google image sitemaps 1.1 (``<image:image>`` with ``loc``, ``caption``, ``geo_location``,
``title``, ``license``).  :func:`walk` reads an entry only when it is the common case: every child one of
those fields in the expected namespace, none repeated, each holding text only (``.text``, lxml's text before
the first child node, as the full reader takes it), no comment, processing instruction or entity reference
anywhere, images only when the built-in image hook reads them; every value not empty, and the loc and each
image's values without surrounding blanks (:meth:`str.strip`), each image with a loc.  Anything else gives
``None`` and the full
reader (:mod:`feedmap.formats.sitemap._read`) reads the entry and reports what it finds: the walk itself
never reports, so which walk ran cannot change a diagnostic.

The walk has two twins with the same result for every element: the compiled one (``_walk_c.pyx``, lxml's C
API, built by ``pip install`` where a C compiler is found) and the pure-Python one below.  The compiled twin
is used when it loads and was built against the major version of lxml that is running; ``FEEDMAP_PURE=1`` in
the environment (read on every call of :func:`walker`, so once per file read) forces the pure twin.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable

from lxml import etree

from feedmap._core.model import Image, blank_image
from feedmap._xml import IMAGE_NS

__all__ = ["IMAGE_FIELDS", "IMAGE_TAG", "Walk", "Walked", "accelerated", "walk", "walker"]

#: The element the built-in image hook reads (the walk reads it only for that hook).
IMAGE_TAG = f"{{{IMAGE_NS}}}image"

#: What a walk gives for the common case: the entry's line in the parsed text (0 when lxml does not know it),
#: the text of its loc, lastmod, changefreq and priority (None where absent) and its images in document order
#: (each as the image hook reads it: :func:`feedmap.formats.ext._image.read`).
Walked = tuple[int, "str | None", "str | None", "str | None", "str | None", "list[Image]"]
#: A walk: (element, the entry's namespace URI or "", whether images are read) -> Walked, or None.
Walk = Callable[[etree._Element, str, bool], "Walked | None"]

_FIELDS = ("loc", "lastmod", "changefreq", "priority")
#: An image's fields, in the order of a walked image's values.
IMAGE_FIELDS = ("loc", "caption", "geo_location", "title", "license")
_IMAGE_TAGS = {f"{{{IMAGE_NS}}}{name}": index for index, name in enumerate(IMAGE_FIELDS)}
_field_tags: dict[str, dict[str, int]] = {}


def _tags(namespace: str) -> dict[str, int]:
    tags = _field_tags.get(namespace)
    if tags is None:
        prefix = f"{{{namespace}}}" if namespace else ""
        tags = _field_tags[namespace] = {prefix + name: index for index, name in enumerate(_FIELDS)}
    return tags


def walk(element: etree._Element, namespace: str, images: bool) -> Walked | None:
    """The pure twin: the plain values of ``element`` (see :data:`Walked`), or None when it is not the common
    case (the full reader reads it then)."""
    fields = _tags(namespace)
    values: list[str | None] = [None, None, None, None]
    seen = [False, False, False, False]
    found: list[Image] = []
    for child in element:
        tag = child.tag
        if not isinstance(tag, str):
            return None  # a comment, processing instruction or entity reference
        index = fields.get(tag)
        if index is not None:
            if seen[index] or len(child):
                return None
            seen[index] = True
            text = child.text
            if not text or (not index and len(text.strip()) != len(text)):
                return None
            values[index] = text
        elif images and tag == IMAGE_TAG:
            image = _image(child)
            if image is None:
                return None
            found.append(image)
        else:
            return None
    line = element.sourceline
    return (line if isinstance(line, int) else 0, values[0], values[1], values[2], values[3], found)


def _image(element: etree._Element) -> Image | None:
    values: list[str | None] = [None, None, None, None, None]
    seen = [False, False, False, False, False]
    for child in element:
        tag = child.tag
        index = _IMAGE_TAGS.get(tag) if isinstance(tag, str) else None
        if index is None or seen[index] or len(child):
            return None
        seen[index] = True
        text = child.text
        if not text or len(text.strip()) != len(text):
            return None
        values[index] = text
    loc = values[0]
    if loc is None:
        return None
    image = blank_image()
    image.loc = loc
    image.caption, image.geo_location, image.title, image.license = values[1:]
    return image


def _load_compiled() -> Walk | None:
    """The compiled twin, when it is built and was built against this major version of lxml; else None."""
    try:
        with warnings.catch_warnings():
            # Cython's import check warns (RuntimeWarning) when lxml's _Element grew since the build: the library
            # never prints, so that is a refusal too, as an import error is
            warnings.simplefilter("error")
            from feedmap.formats.sitemap import _walk_c
    except Exception:  # missing, or an lxml whose C API it cannot import: the pure twin does the same, silently
        return None
    if _walk_c.LXML_VERSION[0] != etree.LXML_VERSION[0]:
        return None  # lxml's C structures may differ from those it was compiled for
    compiled: Walk = _walk_c.walk
    return compiled


_compiled = _load_compiled()


def walker() -> Walk:
    """The walk to use now: the compiled twin unless it is missing or ``FEEDMAP_PURE`` is set (not to ``0``)."""
    if _compiled is None or os.environ.get("FEEDMAP_PURE", "0") not in ("", "0"):
        return walk
    return _compiled


def accelerated() -> bool:
    """True when the sitemap reader uses the compiled walk (built and loaded, and ``FEEDMAP_PURE`` not set)."""
    return walker() is not walk
