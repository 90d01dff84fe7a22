"""Reading one child element of an entry: single-valued fields, text-only values, verbatim copies.

XML 1.0 (https://www.w3.org/TR/xml/) and the sitemaps.org 0.9 XSD
(http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd): ``loc``, ``lastmod``, ``changefreq`` and
``priority`` are simple-typed, so they hold text only and stand once per entry.  A second one is reported
(``element-repeated``) and its first value kept; a value holding an element or an unexpanded entity is
reported and not used.  Elements no field holds are copied verbatim (:func:`serialize_element`) into
``Entry.extras``, declaring only the namespaces they use (Namespaces in XML 1.0 §5).
"""

from __future__ import annotations

import copy

from lxml import etree

from feedmap._core.context import Context
from feedmap._xml import has_entity, line_of, local_name, namespace_of

__all__ = ["duplicate", "holds_markup", "serialize_element"]


def serialize_element(element: etree._Element) -> str:
    """The element as standalone XML, declaring only the namespaces it uses.

    References to entities of an ignored DOCTYPE (reported as ``unresolved-entity`` while reading) are
    left out: without the DOCTYPE they would make the output ill-formed.
    """
    clone = copy.deepcopy(element)
    clone.tail = None
    for entity in list(clone.iter(etree.Entity)):
        _drop_keeping_tail(entity)
    etree.cleanup_namespaces(clone)
    return etree.tostring(clone, encoding="unicode")


def _drop_keeping_tail(node: etree._Element) -> None:
    parent = node.getparent()
    if parent is None:
        return
    tail = node.tail or ""
    previous = node.getprevious()
    if previous is not None:
        previous.tail = (previous.tail or "") + tail
    else:
        parent.text = (parent.text or "") + tail
    parent.remove(node)


def duplicate(child: etree._Element, parent: etree._Element, ctx: Context, offset: int) -> None:
    """Report a second value for a single-valued field (the first is kept)."""
    same = namespace_of(child.tag) == namespace_of(parent.tag)
    name = local_name(child.tag) if same or not child.prefix else f"{child.prefix}:{local_name(child.tag)}"
    parent_line = line_of(parent)  # 0 for an element built in memory (the RSS reader's holder)
    where = f"<{local_name(parent.tag)}>" + (f" at line {parent_line + offset}" if parent_line else "")
    ctx.warning("element-repeated", f"a second <{name}> in {where}; the first is kept", line_of(child) + offset)


def _unexpanded(child: etree._Element, what: str, ctx: Context, offset: int) -> None:
    ctx.warning(
        "unresolved-entity",
        f"<{what}> holds a reference to an entity that is not expanded; the value is not used",
        line_of(child) + offset,
    )


def holds_markup(child: etree._Element, what: str, ctx: Context, offset: int) -> bool:
    """True (reported) when a field holds more than text: lxml's ``.text`` stops at the first child node, so
    the text before an element or an unexpanded entity is no value (``https://e.com/b<x/>z`` is not
    ``https://e.com/b``).  Comments and processing instructions are removed by the parser and never count."""
    if not len(child):
        return False
    if has_entity(child):
        _unexpanded(child, what, ctx, offset)
        return True
    inner = next((node for node in child if isinstance(node.tag, str)), None)
    if inner is None:  # only comments or processing instructions (an element built by hand): text after all
        return False
    ctx.warning(
        "unknown-element",
        f"<{local_name(inner.tag)}> inside <{what}> is not read: <{what}> must hold text only; its value is not used",
        line_of(inner) + offset,
    )
    return True
