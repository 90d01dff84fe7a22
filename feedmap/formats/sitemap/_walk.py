"""The sitemap reader's hot path: the loop over the parse's events, each ``<url>`` or ``<sitemap>`` walked for the
plain values of the common case and built into its :class:`~feedmap._core.model.Entry` when they are fine as
written.

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

:class:`Loop` is the whole read loop of one document: it steps through the events of an
:class:`~feedmap._xml.Elements` parse as :func:`feedmap._xml.iter_elements` does, reads each wanted element by
the walk and :func:`plain_entry` (a value to report, or an element that is not the common case, goes to the full
reader's ``read`` callback, which reports exactly what it reports without the loop), yields the entries one by
one (each before the next event is parsed, so diagnostics keep their order with those of later steps) and frees
each element after its entry was taken, as ``iter_elements`` does.  A break of the parse is kept in
:attr:`Loop.broke` and ends the loop: the reader reports it (:meth:`~feedmap._xml.Elements.broken`).

The walk and the loop have two twins with the same result for every element: the compiled one (``_walk_c.pyx``, lxml's C
API, built by ``pip install`` where a C compiler is found) and the pure-Python one below.  The compiled twin
is used when it loads and was built against the major version of lxml that is running; ``FEEDMAP_PURE=1`` in
the environment (read on every call of :func:`walker`, so once per file read) forces the pure twin.  The
compiled module also holds the cleaning stream's byte checks (:func:`byte_checks`), used with the compiled
twin; their pure twin is the cleaning stream's own passes.  The compiled twin builds its entries by direct
slot stores where Entry, Image and W3CDate are the shape it knows (``_walk_c.DIRECT_BUILD``), else by their
setattr path (same entries, slower): :func:`accelerated` counts it in use only with the direct build, and
``FEEDMAP_REQUIRE_ACCEL=1`` (CI) makes a compiled twin without it an ImportError when a read asks for it.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator
from typing import Protocol

from lxml import etree

from feedmap._core.dates import W3CDate
from feedmap._core.limits import PROTOCOL_MAX_IMAGES
from feedmap._core.model import ChangeFreq, Entry, Image, blank_image, new_entry, new_position
from feedmap._core.urls import check_loc
from feedmap._xml import IMAGE_NS, ByteChecks, Elements
from feedmap.formats._fields import PLAIN_PRIORITIES

__all__ = [
    "CHANGEFREQ_VALUES",
    "IMAGE_FIELDS",
    "IMAGE_TAG",
    "Loop",
    "ReadLoop",
    "ReadNode",
    "Walk",
    "Walked",
    "accelerated",
    "byte_checks",
    "looper",
    "plain_entry",
    "walk",
    "walker",
]

#: The element the built-in image hook reads (the walk reads it only for that hook).
IMAGE_TAG = f"{{{IMAGE_NS}}}image"

#: What a walk gives for the common case: the entry's line in the parsed text (0 when lxml does not know it),
#: the text of its loc, lastmod, changefreq and priority (None where absent) and its images in document order
#: (each as the image hook reads it: :func:`feedmap.formats.ext._image.read`).
Walked = tuple[int, "str | None", "str | None", "str | None", "str | None", "list[Image]"]
#: A walk: (element, the entry's namespace URI or "", whether images are read) -> Walked, or None.
Walk = Callable[[etree._Element, str, bool], "Walked | None"]

#: The full reader of one element (the entry's element, the line offset): its entry, or None; it reports.
ReadNode = Callable[[etree._Element, int], "Entry | None"]

#: The changefreq words, to their members (the plain values of a changefreq).
CHANGEFREQ_VALUES = {member.value: member for member in ChangeFreq}

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


def plain_entry(walked: Walked, source: str, offset: int) -> Entry | None:
    """The entry of a walked common case when every value is fine as written (as the full reader would read
    it, reporting nothing); None when a value needs the full reader (which reports it)."""
    line, loc, lastmod, changefreq, priority, walked_images = walked
    if loc is None or check_loc(loc) is not None:
        return None
    date = None
    if lastmod is not None:
        try:
            date = W3CDate(lastmod)
        except (TypeError, ValueError):
            return None
    freq = None
    if changefreq is not None and (freq := CHANGEFREQ_VALUES.get(changefreq)) is None:
        return None
    weight = None
    if priority is not None and (weight := PLAIN_PRIORITIES.get(priority)) is None:
        return None
    if len(walked_images) > PROTOCOL_MAX_IMAGES:
        return None  # reported by the full reader
    return new_entry(loc, date, freq, weight, tuple(walked_images), (), {}, new_position(source, line + offset))


class ReadLoop(Protocol):
    """What both twins of the loop are (and :class:`~feedmap._xml.ParseState`, the state a break reads)."""

    previous: etree._Element | None
    started: etree._Element | None
    clear_parent: etree._Element | None
    #: The entries yielded.
    count: int
    #: The break of the parse that ended the loop (an XMLSyntaxError or UnicodeDecodeError), or None.
    broke: Exception | None

    def __init__(self, elements: Elements, namespace: str, images: bool, source: str, read: ReadNode) -> None: ...

    def __iter__(self) -> Iterator[Entry]: ...

    def __next__(self) -> Entry: ...


class Loop:
    """The pure twin of the read loop (see the module's docstring): ``elements`` is the parse, ``namespace``
    the entries' namespace URI ("" for none), ``images`` whether the walk reads images, ``source`` the name
    entries' origins carry, ``read`` the full reader of an element the loop does not take."""

    def __init__(self, elements: Elements, namespace: str, images: bool, source: str, read: ReadNode) -> None:
        self.previous: etree._Element | None = None
        self.started: etree._Element | None = None
        self.clear_parent: etree._Element | None = None
        self.count = 0
        self.broke: Exception | None = None
        self._elements = elements
        self._namespace = namespace
        self._images = images
        self._source = source
        self._read = read
        self._pending: etree._Element | None = None  # the element of the entry yielded last, freed on the next step
        self._pending_parent: etree._Element | None = None

    def __iter__(self) -> Loop:
        return self

    def __next__(self) -> Entry:
        elements = self._elements
        pending = self._pending
        if pending is not None:
            self._pending = None
            elements.release(self, pending, self._pending_parent)
        events = elements.events
        while True:
            try:
                event, element = next(events)
            except (etree.XMLSyntaxError, UnicodeDecodeError) as exc:
                self.broke = exc
                raise StopIteration from None
            if event == "start":
                self.started = element
                continue
            parent = element.getparent()
            if not elements.accept(self, element, parent):
                continue
            offset = elements.cleaner.line_offset
            entry = None
            if not self._namespace or (isinstance(element.tag, str) and element.tag.startswith("{")):
                walked = walk(element, self._namespace, self._images)  # in no namespace inside one: read fully
                entry = None if walked is None else plain_entry(walked, self._source, offset)
            if entry is None:  # not the common case, or a value to report: the full reader reads it
                entry = self._read(element, offset)
            if entry is not None:
                self._pending = element
                self._pending_parent = parent
                self.count += 1
                return entry
            elements.release(self, element, parent)


def _load_compiled() -> tuple[Walk, type[ReadLoop], ByteChecks] | None:
    """The compiled twins, when they are built and were built against this major version of lxml; else None."""
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
    return compiled, _walk_c.Loop, (_walk_c.quiet_span, _walk_c.plain_utf8)


_compiled = _load_compiled()


def _direct_build() -> bool:
    """Whether the compiled twin builds its entries by direct slot stores (``_walk_c.DIRECT_BUILD``): off when
    Entry, Image or W3CDate is not the shape its builders know (a field added), so it builds them the slow way."""
    from feedmap.formats.sitemap import _walk_c

    return bool(_walk_c.DIRECT_BUILD)


#: Whether the compiled twins (where loaded) build entries directly; read once, as the module decides it once.
_DIRECT = _compiled is not None and _direct_build()


def _twins() -> tuple[Walk, type[ReadLoop], ByteChecks] | None:
    """The compiled twins to use now, or None (missing, or ``FEEDMAP_PURE`` set, not to ``0``).  With
    ``FEEDMAP_REQUIRE_ACCEL=1`` (CI), compiled twins that cannot build their entries directly are an ImportError,
    as a missing compiled pass is (:mod:`feedmap.converters._pass`): a grown Entry must not cost speed unseen."""
    if _compiled is None or _pure():
        return None
    if not _DIRECT and os.environ.get("FEEDMAP_REQUIRE_ACCEL", "0") not in ("", "0"):
        raise ImportError(
            "feedmap's compiled sitemap walk cannot build entries by direct slot stores (DIRECT_BUILD is off: "
            "Entry, Image or W3CDate is not the shape _walk_c.pyx's builders know); FEEDMAP_REQUIRE_ACCEL is set"
        )
    return _compiled


def walker() -> Walk:
    """The walk to use now: the compiled twin unless it is missing or ``FEEDMAP_PURE`` is set (not to ``0``)."""
    twins = _twins()
    return walk if twins is None else twins[0]


def looper() -> type[ReadLoop]:
    """The read loop to use now: the compiled twin unless it is missing or ``FEEDMAP_PURE`` is set (not to ``0``)."""
    twins = _twins()
    return Loop if twins is None else twins[1]


def byte_checks() -> ByteChecks | None:
    """The cleaning stream's compiled checks, where the compiled twin is in use; else None (its own passes)."""
    twins = _twins()
    return None if twins is None else twins[2]


def _pure() -> bool:
    return os.environ.get("FEEDMAP_PURE", "0") not in ("", "0")


def accelerated() -> bool:
    """True when the sitemap reader uses the compiled walk (built and loaded, and ``FEEDMAP_PURE`` not set) in
    full: building its entries by direct slot stores (a compiled walk without them runs, slower, and is not
    counted)."""
    return walker() is not walk and _DIRECT
