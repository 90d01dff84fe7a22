"""The Google video sitemap extension: ``<video:video>`` read into ``Entry.videos`` and written back.

Spec: Google video sitemaps, namespace ``http://www.google.com/schemas/sitemap-video/1.1``
(https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps) and its XSD's order:
``thumbnail_loc``, ``title``, ``description``, ``content_loc``, ``player_loc`` (legacy attributes ``allow_embed``,
``autoplay``), ``duration``, ``expiration_date``, ``rating``, ``content_segment_loc``, ``view_count``,
``publication_date``, ``tag`` (up to 32), ``category``, ``family_friendly``, ``restriction`` (``relationship``),
``gallery_loc``, ``price`` (``currency``, ``type``, ``resolution``; several), ``requires_subscription``,
``uploader`` (``info``), ``tvshow``, ``platform`` (``relationship``), ``live``, ``id``.  A URL holds several
videos.  Each child is read into its part of :class:`~feedmap._core.model.Video` when the part holds it exactly;
the children no part holds (``content_segment_loc``, ``category``, ``gallery_loc``, ``tvshow``, ``id``, which
Google no longer reads), and anything a part cannot hold, are kept verbatim in ``Video.extras`` (:mod:`._typed`),
so nothing is lost.  Used by the sitemap and feed formats.
"""

from __future__ import annotations

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.model import Entry, Video
from feedmap._xml import VIDEO_NS, line_of
from feedmap.formats.ext import Extension, Fields
from feedmap.formats.ext._typed import Part, Reading, read_children, write_children

__all__ = ["EXTENSION", "read", "video_elements"]

_RELATIONSHIP = "relationship"
#: The children in the XSD's order, each with its part (None: kept verbatim, as no part holds it).
#: The code of a value its part cannot hold (read: kept verbatim; written: left out).
_CODE = "video-value-invalid"
_ORDER: tuple[tuple[str, Part | None], ...] = (
    ("thumbnail_loc", Part("thumbnail_loc", "url")),
    ("title", Part("title")),
    ("description", Part("description")),
    ("content_loc", Part("content_loc", "url")),
    (
        "player_loc",
        Part(
            "player_loc",
            "url",
            {"allow_embed": ("player_allow_embed", "flag"), "autoplay": ("player_autoplay", "text")},
        ),
    ),
    ("duration", Part("duration", "count")),
    ("expiration_date", Part("expiration_date", "date")),
    ("rating", Part("rating", "number")),
    ("content_segment_loc", None),
    ("view_count", Part("view_count", "count")),
    ("publication_date", Part("publication_date", "date")),
    ("tag", Part("tags", repeated=True)),
    ("category", None),
    ("family_friendly", Part("family_friendly", "flag")),
    ("restriction", Part("restriction", "words", {_RELATIONSHIP: ("restriction_relationship", "text")})),
    ("gallery_loc", None),
    (
        "price",
        Part(
            "prices",
            "price",
            {"currency": ("currency", "text"), "type": ("type", "text"), "resolution": ("resolution", "text")},
            repeated=True,
        ),
    ),
    ("requires_subscription", Part("requires_subscription", "flag")),
    ("uploader", Part("uploader", "text", {"info": ("uploader_info", "text")})),
    ("tvshow", None),
    ("platform", Part("platform", "words", {_RELATIONSHIP: ("platform_relationship", "text")})),
    ("live", Part("live", "flag")),
    ("id", None),
)
_PARTS = {local: part for local, part in _ORDER if part is not None}
_KNOWN = frozenset(local for local, part in _ORDER if part is None)


def read(element: etree._Element, into: Fields, ctx: Context, offset: int) -> bool:
    """The read hook: one more video of the entry (one with attributes is left to the reader, kept verbatim in
    the entry's extras, reported)."""
    if element.attrib:
        message = "<video:video> has attributes it cannot hold; kept as written in extras"
        ctx.warning("video-value-invalid", message, line_of(element) + offset)
        return False
    reading = Reading("video", "video:video", _CODE, ctx, offset)
    read_children(element, _PARTS, VIDEO_NS, _KNOWN, reading)
    values = reading.values
    for name in ("tags", "prices"):
        if name in values:
            values[name] = tuple(values[name])
    into.videos.append(Video(**values, extras=reading.extras))
    return True


def video_elements(entry: Entry, ctx: Context, xmlns: str = "") -> list[str]:
    """The write hook: the entry's ``video:video`` elements, children in the XSD's order (``xmlns``: as for
    images)."""
    parts: list[str] = []
    for video in entry.videos:
        parts.append(f"<video:video{xmlns}>")
        parts += write_children(video, _ORDER, "video", VIDEO_NS, entry, ctx, code=_CODE)
        parts.append("</video:video>")
    return parts


EXTENSION = Extension(
    name="video",
    namespace=VIDEO_NS,
    prefix="video",
    elements=frozenset({"video"}),
    field="videos",
    read=read,
    write=video_elements,
    formats=frozenset({"sitemap", "rss", "ror", "atom"}),
)
