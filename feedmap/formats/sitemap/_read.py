"""Reading the sitemaps.org 0.9 family: the root check and one ``<url>`` or ``<sitemap>`` entry.

Spec: https://www.sitemaps.org/protocol.html (XSD http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd
and siteindex.xsd).  Namespace URIs are matched, never prefixes: the 0.9 namespace, its ``https`` and
trailing-slash variants, Google's 0.84 and no namespace at all are read as 0.9; any other namespace on the
root is read with a warning.  Children are accepted in any order; a single-valued child given twice is
reported and its first value kept.  Elements an extension claims (images, hreflang alternates, third-party
ones: :mod:`feedmap.formats.ext`) go through its read hook; other elements are kept verbatim in
``Entry.extras`` under their Clark name.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate
from feedmap._core.errors import ReadError
from feedmap._core.limits import PROTOCOL_MAX_IMAGES, PROTOCOL_MAX_URLS
from feedmap._core.model import ChangeFreq, Entry, new_entry, new_position
from feedmap._core.urls import check_loc, is_absolute_url
from feedmap._io.sources import Source
from feedmap._xml import SITEMAP_NAMESPACES, SITEMAP_NS, Elements, RootInfo, line_of
from feedmap.formats._elements import duplicate, holds_markup, serialize_element
from feedmap.formats._fields import PLAIN_PRIORITIES, read_changefreq, read_lastmod, read_loc, read_priority
from feedmap.formats.ext import EntryFields, ReadHook, hooks
from feedmap.formats.ext._image import read as read_image
from feedmap.formats.sitemap._walk import CHANGEFREQ_VALUES, IMAGE_TAG, byte_checks, looper, plain_entry, walker

__all__ = ["check_root", "entry_from_element", "iter_entries"]

_CHANGEFREQ_VALUES = CHANGEFREQ_VALUES


def check_root(root: RootInfo | None, expected: str, ctx: Context) -> str:
    """The namespace to read elements in; ReadError when the root is not ``expected``."""
    if root is None:
        raise ReadError("not an XML document (no root element found)", source=ctx.name, code="not-xml")
    if root.local != expected:
        raise ReadError(
            f"the root element is <{root.local}>, not <{expected}>",
            source=ctx.name,
            line=root.line,
            code="wrong-root",
        )
    if root.namespace not in SITEMAP_NAMESPACES:
        ctx.warning(
            "unknown-namespace",
            f"<{expected}> is in namespace {root.namespace!r}; read as {SITEMAP_NS!r}",
            root.line,
        )
    return root.namespace


def _qualified(namespace: str, local: str) -> str:
    return f"{{{namespace}}}{local}" if namespace else local


#: The single-valued fields, by their index in an entry's values.
_FIELDS = ("loc", "lastmod", "changefreq", "priority")


@functools.lru_cache(maxsize=16)
def _field_indexes(namespace: str) -> dict[str, int]:
    return {_qualified(namespace, name): index for index, name in enumerate(_FIELDS)}


# Each value takes a fast path when it is fine as written; anything else goes to the _fields reader, which
# reports it.  A child's line is looked up only then (it costs as much as reading the value).


def _loc(child: etree._Element, ctx: Context, offset: int) -> etree._Element:
    return child


def _lastmod(child: etree._Element, ctx: Context, offset: int) -> W3CDate | None:
    text = child.text
    try:
        return W3CDate(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return read_lastmod(text, ctx, line_of(child) + offset)


def _changefreq(child: etree._Element, ctx: Context, offset: int) -> ChangeFreq | None:
    return read_changefreq(child.text, ctx, line_of(child) + offset)


def _priority(child: etree._Element, ctx: Context, offset: int) -> float | None:
    return read_priority(child.text, ctx, line_of(child) + offset)


#: The values of plain text that need no reading, for each field in the order of _FIELDS: looked up before
#: the field's reader is called (one dict lookup instead of a call for the usual changefreq and priority).
_PLAIN_VALUES: tuple[Mapping[str, Any], ...] = ({}, {}, _CHANGEFREQ_VALUES, PLAIN_PRIORITIES)

#: The reader of each single-valued field, in the order of _FIELDS (a per-tag dispatch table); ``loc`` is
#: kept as its element and read at the end, as a missing ``<loc>`` may be replaced by the entry's text.
_FIELD_READERS: tuple[Callable[[etree._Element, Context, int], Any], ...] = (
    _loc,
    _lastmod,
    _changefreq,
    _priority,
)


def entry_from_element(
    element: etree._Element,
    namespace: str,
    ctx: Context,
    offset: int = 0,
    read_hooks: Mapping[str, ReadHook] | None = None,
) -> Entry | None:
    """Build an Entry from a ``<url>`` or ``<sitemap>`` element; None when it has no usable loc.

    ``offset`` is added to lxml's line numbers (see :func:`feedmap._xml.iter_elements`).  A field given
    twice is reported (``element-repeated``) and its first value kept.  ``read_hooks``: the extensions'
    read hooks by Clark tag (the sitemap format's when None).
    """
    claims = hooks("sitemap").read if read_hooks is None else read_hooks
    fields = _field_indexes(namespace)
    values: list[Any] = [None, None, None, None]  # loc (its element), lastmod, changefreq, priority
    seen = [False, False, False, False]  # a field's second value is reported, not read
    gathered = EntryFields()
    for child in element:
        tag = child.tag
        if not isinstance(tag, str):
            continue
        index = fields.get(tag)
        if index is None:
            hook = claims.get(tag)
            if hook is None or not hook(child, gathered, ctx, offset):
                _keep(child, tag, namespace, gathered.extras, ctx, offset)
        elif seen[index]:
            duplicate(child, element, ctx, offset)
        else:
            seen[index] = True
            if len(child) and holds_markup(child, _FIELDS[index], ctx, offset):
                if not index:
                    return None  # never a URL with a piece missing
                continue
            if not index:
                values[0] = child  # the loc, read at the end (a call saved on the hot path)
                continue
            fast = _PLAIN_VALUES[index].get(child.text)  # type: ignore[arg-type]
            values[index] = fast if fast is not None else _FIELD_READERS[index](child, ctx, offset)
    line = line_of(element) + offset
    loc = _entry_loc(element, values[0], ctx, line, offset)
    if loc is None:
        return None
    images = gathered.images
    if len(images) > PROTOCOL_MAX_IMAGES:
        ctx.warning(
            "too-many-images", f"{len(images):,} images; the protocol allows {PROTOCOL_MAX_IMAGES:,} per URL", line
        )
    entry = new_entry(
        loc,
        values[1],
        values[2],
        values[3],
        tuple(images),
        tuple(gathered.alternates),
        gathered.extras,
        new_position(ctx.name, line),
    )
    entry.news, entry.videos = gathered.news, tuple(gathered.videos)
    return entry


def _keep(child: etree._Element, tag: str, namespace: str, extras: dict[str, str], ctx: Context, offset: int) -> None:
    """Keep an element no field or extension reads in ``extras`` (one of the format's own is reported)."""
    prefix = "{" + namespace + "}" if namespace else ""
    if tag.startswith(prefix) if namespace else not tag.startswith("{"):
        ctx.warning(
            "unknown-element",
            f"<{tag[len(prefix) :]}> is not a sitemap element; kept in extras",
            line_of(child) + offset,
        )
    key = tag if tag.startswith("{") else "{}" + tag  # Clark notation, also for no namespace
    extras[key] = extras.get(key, "") + serialize_element(child)


def _entry_loc(
    element: etree._Element, loc_element: etree._Element | None, ctx: Context, line: int, offset: int
) -> str | None:
    """The entry's loc: its ``<loc>``, or a URL standing alone in the element (``loc-as-text``); else None."""
    if loc_element is None:
        bare = (element.text or "").strip()
        if not is_absolute_url(bare):
            ctx.warning("loc-missing", "entry without <loc> is skipped", line)
            return None
        ctx.warning("loc-as-text", f"URL {bare} stands in the element without <loc>; read as its loc", line)
        loc_text: str | None = bare
    else:
        loc_text = loc_element.text
    if loc_text and len(loc_text.strip()) == len(loc_text) and check_loc(loc_text) is None:
        return loc_text  # fine as written: nothing to report
    loc_line = line_of(loc_element) + offset if loc_element is not None else line
    return read_loc(loc_text, ctx, loc_line)


def iter_entries(source: Source, ctx: Context, namespace: str, element: str) -> Iterator[Entry]:
    """Stream the entries of every ``element`` child of the root (``url`` of a urlset, ``sitemap`` of an
    index: each format's extensions read their elements).

    The loop (:func:`~feedmap.formats.sitemap._walk.looper`: compiled, or its pure twin) takes the common case
    itself and gives every other element to :func:`_reader`'s full read."""
    tag = _qualified(namespace, element)
    # an entry that undeclares the namespace (<url xmlns="">, children in no namespace either) is still one
    tags = [tag, element] if namespace else [tag]
    read_hooks = hooks("sitemapindex" if element == "sitemap" else "sitemap").read
    elements = Elements(
        source.stream,
        tags,
        reporter=ctx.reporter,
        name=ctx.name,
        starts_entry=_qualified(namespace, "loc"),
        checks=byte_checks(),
    )
    images = read_hooks.get(IMAGE_TAG) is read_image  # the walk reads images only as the built-in hook does
    read = _reader(ctx, namespace, element, read_hooks, images)
    loop = looper()(elements, namespace, images, ctx.name, read)
    try:
        yield from loop
        if loop.broke is None:
            elements.check_rest()
        else:
            for piece in elements.broken(loop, loop.broke):
                entry = read(piece, elements.cleaner.line_offset)
                if entry is not None:
                    loop.count += 1
                    yield entry
    finally:
        elements.cleaner.finish()
    if loop.count > PROTOCOL_MAX_URLS:
        ctx.warning("too-many-entries", f"{loop.count:,} entries; the protocol allows {PROTOCOL_MAX_URLS:,} per file")


def _reader(
    ctx: Context, namespace: str, element: str, read_hooks: Mapping[str, ReadHook], images: bool
) -> Callable[[etree._Element, int], Entry | None]:
    """The full read of one wanted element (the entry's element, the line offset): its entry or None."""
    walk = walker()
    name = ctx.name

    def read(node: etree._Element, offset: int) -> Entry | None:
        node_namespace = namespace
        if node.tag == element and namespace:
            parent = node.getparent()
            if parent is None or parent.getparent() is not None:
                return None  # deeper than an entry (inside an extension element): part of the entry around it
            node_namespace = ""
            ctx.warning(
                "entry-namespace",
                f'<{element}> in no namespace (xmlns="") inside the sitemap namespace\'s root; read as an entry',
                line_of(node) + offset,
            )
        walked = walk(node, node_namespace, images)
        entry = None if walked is None else plain_entry(walked, name, offset)
        if entry is None:  # not the common case, or a value to report: the full reader reads it
            entry = entry_from_element(node, node_namespace, ctx, offset, read_hooks)
        return entry

    return read
