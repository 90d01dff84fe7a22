"""The extension elements of a feed item (RSS ``<item>``, Atom ``<entry>``): what no feed vocabulary defines.

Specs: the extensions of :mod:`feedmap.formats.ext` (Google image sitemaps, hreflang alternates,
third-party ones), read by their read hooks; the sitemaps.org 0.9 ``changefreq`` and ``priority``
(https://www.sitemaps.org/protocol.html), which the ``rss`` and ``ror`` writers put into items as
``sitemap:changefreq`` / ``sitemap:priority``: read into the entry's fields, a second one reported
(``element-repeated``) and the first kept.  Every other element of a namespace feeds do not define is kept
verbatim in ``Entry.extras`` (one of the sitemap namespace is reported: it is no field of a feed item).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.limits import PROTOCOL_MAX_IMAGES
from feedmap._core.model import ChangeFreq
from feedmap._xml import SITEMAP_NAMESPACES, line_of, local_name
from feedmap.formats._elements import holds_markup, serialize_element
from feedmap.formats._fields import read_changefreq, read_priority
from feedmap.formats.ext import EntryFields, ReadHook, hooks
from feedmap.formats.feeds._links import ATOM_NS

__all__ = ["ItemExtensions", "item_claims", "read_extension"]

_ATOM_NAMESPACES = frozenset({ATOM_NS, "http://purl.org/atom/ns#"})
#: The sitemap fields a feed item may carry (as the ``rss`` and ``ror`` writers put them).
_SITEMAP_FIELDS = ("changefreq", "priority")


@dataclass(slots=True)
class ItemExtensions:
    """What one item's extension elements hold."""

    #: what the extensions' read hooks fill (images, alternates, extras), and the extras kept verbatim
    fields: EntryFields = field(default_factory=EntryFields)
    changefreq: ChangeFreq | None = None
    priority: float | None = None
    seen: set[str] = field(default_factory=set)

    def check(self, ctx: Context, line: int) -> EntryFields:
        """The fields, with more images than the protocol allows reported (``too-many-images``)."""
        count = len(self.fields.images)
        if count > PROTOCOL_MAX_IMAGES:
            ctx.warning(
                "too-many-images", f"{count:,} images; the protocol allows {PROTOCOL_MAX_IMAGES:,} per URL", line
            )
        return self.fields


def item_claims(atom: bool) -> dict[str, ReadHook]:
    """The read hooks of the ``rss`` format's extensions by claimed tag; in an Atom feed, Atom elements are
    the entry's own (its links), never an extension's."""
    claims = hooks("rss").read
    if not atom:
        return claims
    return {tag: hook for tag, hook in claims.items() if tag[1:].partition("}")[0] not in _ATOM_NAMESPACES}


def read_extension(
    child: etree._Element, tag: str, item: etree._Element, into: ItemExtensions, ctx: Context, offset: int
) -> None:
    """An element of a namespace feeds do not define that no extension claimed: ``sitemap:changefreq`` and
    ``sitemap:priority`` fill the entry's fields; every other one is kept verbatim in extras."""
    namespace, _, local = tag[1:].rpartition("}")
    if namespace in SITEMAP_NAMESPACES:
        if local in _SITEMAP_FIELDS:
            _sitemap_field(child, local, item, into, ctx, offset)
            return
        ctx.warning("unknown-element", f"<{local}> is not a sitemap element; kept in extras", line_of(child) + offset)
    extras = into.fields.extras
    extras[tag] = extras.get(tag, "") + serialize_element(child)


def _sitemap_field(
    child: etree._Element, local: str, item: etree._Element, into: ItemExtensions, ctx: Context, offset: int
) -> None:
    if local in into.seen:  # named as the sitemap field it fills, whatever its prefix
        where = f"<{local_name(str(item.tag))}>" + (f" at line {line_of(item) + offset}" if line_of(item) else "")
        ctx.warning("element-repeated", f"a second <{local}> in {where}; the first is kept", line_of(child) + offset)
        return
    into.seen.add(local)
    if holds_markup(child, local, ctx, offset):
        return
    line = line_of(child) + offset
    if local == "changefreq":
        into.changefreq = read_changefreq(child.text, ctx, line)
    else:
        into.priority = read_priority(child.text, ctx, line)
