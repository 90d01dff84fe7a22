"""``sitemap``: the sitemaps.org 0.9 ``<urlset>`` with the Google image extension and hreflang links.

Spec: https://www.sitemaps.org/protocol.html (XSD http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd),
Google image sitemaps (namespace ``http://www.google.com/schemas/sitemap-image/1.1``) and hreflang
alternates (``<xhtml:link rel="alternate" hreflang=".." href=".."/>``).

Reading streams with ``iterparse`` and matches namespace URIs, never prefixes: the 0.9 namespace, its
``https`` and trailing-slash variants, Google's 0.84 and no namespace at all are read as 0.9; any other
namespace on ``<urlset>`` is read with a warning.  Children are accepted in any order; a single-valued
child given twice (``loc``, ``lastmod``, ``changefreq``, ``priority``, an image's ``loc``...) is reported
and its first value kept.  Elements of
other namespaces (news, video, ...) are kept verbatim in ``Entry.extras`` under their Clark name.

Writing emits UTF-8 with nothing before ``<?xml``, children in XSD order (``loc, lastmod, changefreq,
priority``, then extensions; image children ``loc, caption, geo_location, title, license``) and every
namespace declared once on the root.  Output is plain string building through one escaping function
(DESIGN.md measured it 3x faster than ``lxml.etree.xmlfile``); tests parse it back to prove it well-formed.
What XML 1.0 cannot hold (§2.2: most C0 controls, U+FFFE, U+FFFF, surrogates) is dropped and reported
(``character-dropped``); an extra is written only when it is well-formed elements named by its key
(``invalid-extra``, :mod:`feedmap.formats._extras`); a priority is a short ``xsd:decimal``.
"""

from __future__ import annotations

import copy
import decimal
import functools
import math
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from lxml import etree

from feedmap._dates import W3CDate
from feedmap._urls import check_loc, encode_url, is_absolute_url, is_uri, not_in_iris
from feedmap._xml import (
    IMAGE_NS,
    SITEMAP_NAMESPACES,
    SITEMAP_NS,
    XHTML_NS,
    XSI_NS,
    RootInfo,
    escape_attribute,
    escape_text,
    has_entity,
    iter_elements,
    line_of,
    local_name,
    namespace_of,
    peek_root,
    unwritable,
)
from feedmap._context import Context
from feedmap._errors import ReadError
from feedmap.formats._extras import xml_extra
from feedmap.formats._fields import (
    PLAIN_PRIORITIES,
    read_changefreq,
    read_lastmod,
    read_loc,
    read_priority,
    strip_value,
)
from feedmap._model import (
    Alternate,
    ChangeFreq,
    DocKind,
    DocMeta,
    Document,
    Entry,
    Image,
    blank_image,
    new_entry,
    new_position,
)
from feedmap._registry import FormatSpec
from feedmap._sources import Source

__all__ = [
    "FORMAT",
    "alternate_elements",
    "duplicate",
    "escape_text",
    "holds_markup",
    "image_elements",
    "read",
    "read_image",
    "serialize_element",
    "write",
]

MAX_URLS = 50_000
MAX_BYTES = 52_428_800
MAX_IMAGES = 1_000
SCHEMA_LOCATION = f"{SITEMAP_NS} {SITEMAP_NS}/sitemap.xsd"

_IMAGE = f"{{{IMAGE_NS}}}image"
_IMAGE_FIELDS = {
    f"{{{IMAGE_NS}}}loc": "loc",
    f"{{{IMAGE_NS}}}caption": "caption",
    f"{{{IMAGE_NS}}}geo_location": "geo_location",
    f"{{{IMAGE_NS}}}title": "title",
    f"{{{IMAGE_NS}}}license": "license",
}
_XHTML_LINK = f"{{{XHTML_NS}}}link"
_CHANGEFREQ_VALUES = {member.value: member for member in ChangeFreq}


def check_root(root: RootInfo | None, expected: str, ctx: Context) -> str:
    """The namespace to read elements in; ReadError when the root is not ``expected``."""
    if root is None:
        raise ReadError("not an XML document (no root element found)", source=ctx.name, code="not-xml")
    if root.local != expected:
        page = " (an HTML page: `feedmap discover SITE-URL` finds a site's sitemaps)" if root.local == "html" else ""
        raise ReadError(
            f"the root element is <{root.local}>, not <{expected}>{page}",
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


@functools.lru_cache(maxsize=16)
def _field_names(namespace: str) -> dict[str, str]:
    return {_qualified(namespace, name): name for name in ("loc", "lastmod", "changefreq", "priority")}


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
    ctx.warning("duplicate-element", f"a second <{name}> in {where}; the first is kept", line_of(child) + offset)


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


def read_image(element: etree._Element, ctx: Context, offset: int) -> Image | None:
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
        ctx.warning("missing-loc", "<image:image> without <image:loc> is skipped", line_of(element) + offset)
        return None
    return image


def entry_from_element(element: etree._Element, namespace: str, ctx: Context, offset: int = 0) -> Entry | None:
    """Build an Entry from a ``<url>`` or ``<sitemap>`` element; None when it has no usable loc.

    ``offset`` is added to lxml's line numbers (see :func:`feedmap._xml.iter_elements`).  A field given
    twice is reported (``duplicate-element``) and its first value kept.
    """
    line = line_of(element) + offset
    loc_text: str | None = None
    loc_element: etree._Element | None = None
    has_loc = False
    lastmod: W3CDate | None = None
    changefreq: ChangeFreq | None = None
    priority: float | None = None
    images: list[Image] = []
    alternates: list[Alternate] = []
    extras: dict[str, str] = {}
    fields = _field_names(namespace)
    seen_lastmod = seen_changefreq = seen_priority = False  # a field's second value is reported, not read
    # Each value takes a fast path when it is fine as written; anything else goes to the _fields reader,
    # which reports it.  A child's line is looked up only then (it costs as much as reading the value).
    for child in element:
        tag = child.tag
        if not isinstance(tag, str):
            continue
        field = fields.get(tag)
        if field == "loc":
            if has_loc:
                duplicate(child, element, ctx, offset)
                continue
            loc_text, loc_element, has_loc = child.text, child, True
            if len(child) and holds_markup(child, "loc", ctx, offset):
                return None  # never a URL with a piece missing
        elif field == "lastmod":
            if seen_lastmod:
                duplicate(child, element, ctx, offset)
                continue
            seen_lastmod = True
            if len(child) and holds_markup(child, "lastmod", ctx, offset):
                continue
            text = child.text
            try:
                lastmod = W3CDate(text)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                lastmod = read_lastmod(text, ctx, line_of(child) + offset)
        elif field == "changefreq":
            if seen_changefreq:
                duplicate(child, element, ctx, offset)
                continue
            seen_changefreq = True
            if len(child) and holds_markup(child, "changefreq", ctx, offset):
                continue
            changefreq = _CHANGEFREQ_VALUES.get(child.text)  # type: ignore[arg-type]
            if changefreq is None:
                changefreq = read_changefreq(child.text, ctx, line_of(child) + offset)
        elif field == "priority":
            if seen_priority:
                duplicate(child, element, ctx, offset)
                continue
            seen_priority = True
            if len(child) and holds_markup(child, "priority", ctx, offset):
                continue
            priority = PLAIN_PRIORITIES.get(child.text)  # type: ignore[arg-type]
            if priority is None:
                priority = read_priority(child.text, ctx, line_of(child) + offset)
        elif tag == _IMAGE:
            image = read_image(child, ctx, offset)
            if image is not None:
                images.append(image)
        elif tag == _XHTML_LINK and child.get("rel") == "alternate" and child.get("hreflang") and child.get("href"):
            alternates.append(Alternate(hreflang=child.get("hreflang", "").strip(), href=child.get("href", "").strip()))
        else:
            prefix = "{" + namespace + "}" if namespace else ""
            if tag.startswith(prefix) if namespace else not tag.startswith("{"):
                ctx.warning(
                    "unknown-element",
                    f"<{tag[len(prefix) :]}> is not a sitemap element; kept in extras",
                    line_of(child) + offset,
                )
            key = tag if tag.startswith("{") else "{}" + tag  # Clark notation, also for no namespace
            extras[key] = extras.get(key, "") + serialize_element(child)
    if not has_loc:
        bare = (element.text or "").strip()
        if not is_absolute_url(bare):
            ctx.warning("missing-loc", "entry without <loc> is skipped", line)
            return None
        ctx.warning("loc-as-text", f"URL {bare} stands in the element without <loc>; read as its loc", line)
        loc_text = bare
    if loc_text and len(loc_text.strip()) == len(loc_text) and check_loc(loc_text) is None:
        loc: str | None = loc_text  # fine as written: nothing to report
    else:
        loc_line = line_of(loc_element) + offset if loc_element is not None else line
        loc = read_loc(loc_text, ctx, loc_line)
    if loc is None:
        return None
    if len(images) > MAX_IMAGES:
        ctx.warning("too-many-images", f"{len(images):,} images; the protocol allows {MAX_IMAGES:,} per URL", line)
    return new_entry(
        loc, lastmod, changefreq, priority, tuple(images), tuple(alternates), extras, new_position(ctx.name, line)
    )


def iter_entries(source: Source, ctx: Context, namespace: str, element: str) -> Iterator[Entry]:
    """Stream the entries of every ``element`` child of the root."""
    tag = _qualified(namespace, element)
    count = 0
    for node, offset in iter_elements(source.stream, [tag], reporter=ctx.reporter, name=ctx.name):
        entry = entry_from_element(node, namespace, ctx, offset)
        if entry is not None:
            count += 1
            yield entry
    if count > MAX_URLS:
        ctx.warning("too-many-urls", f"{count:,} entries; the protocol allows {MAX_URLS:,} per file")


def read(source: Source, *, ctx: Context) -> Document:
    root = peek_root(source.stream)
    if root is not None and root.local == "sitemapindex":
        from feedmap.formats import sitemapindex

        ctx.info("read-as-index", "this is a sitemap index; it is read as one")
        doc = sitemapindex.read(source, ctx=ctx)
        doc.format = "sitemapindex"
        return doc
    namespace = check_root(root, "urlset", ctx)
    return Document(
        DocMeta(kind=DocKind.URLSET),
        iter_entries(source, ctx, namespace, "url"),
        diagnostics=ctx.reporter.diagnostics,
    )


# ----------------------------------------------------------------------------------------------- writing


class SizeWatch:
    """Warns once when a written file passes the protocol's URL-count or uncompressed-size limit."""

    def __init__(self, ctx: Context, what: str) -> None:
        self.ctx = ctx
        self.what = what
        self.count = 0
        self.size = 0
        self._warned_count = False
        self._warned_size = False

    def add(self, entries: int, size: int) -> None:
        self.count += entries
        self.size += size
        if self.count > MAX_URLS and not self._warned_count:
            self._warned_count = True
            self.ctx.warning(
                "too-many-urls",
                f"more than {MAX_URLS:,} {self.what} in one file; the protocol asks to split it",
            )
        if self.size > MAX_BYTES and not self._warned_size:
            self._warned_size = True
            self.ctx.warning(
                "file-too-large",
                f"output passes {MAX_BYTES:,} bytes uncompressed; the protocol asks to split it",
            )


def output_url(url: str, ctx: Context) -> str:
    """The URL as an XML output writes it: an IRI becomes a URI (each change reported, ``url-encoded``),
    unless ``--keep-urls`` (then a URL holding blanks or characters no URI holds is reported, ``url-not-encoded``)."""
    options = ctx.options
    if options.keep_urls and not options.encode_urls:
        bad = not_in_iris(url)
        if bad:
            message = f"{url!r} holds {bad}, which no URI or IRI may; written as read (URLs kept as read)"
            ctx.warning("url-not-encoded", message)
        return url
    return encoded_url(url, ctx)


def encoded_url(url: str, ctx: Context) -> str:
    """``url`` as a URI (:func:`feedmap._urls.encode_url`); a change is reported (``url-encoded``)."""
    if is_uri(url):
        return url  # nearly every URL: nothing to encode, one regex call
    encoded = encode_url(url)
    if encoded != url:
        ctx.info("url-encoded", f"{url} written as {encoded}")
    return encoded


def root_open_tag(element: str, extra_namespaces: str, ctx: Context) -> str:
    xsi = ""
    if ctx.options.schema_location:
        location = SCHEMA_LOCATION if element == "urlset" else f"{SITEMAP_NS} {SITEMAP_NS}/siteindex.xsd"
        xsi = f' xmlns:xsi="{XSI_NS}" xsi:schemaLocation="{location}"'
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<{element} xmlns="{SITEMAP_NS}"{extra_namespaces}{xsi}>\n'


#: Namespaces every written sitemap declares on its root, by the prefixes Google's documentation uses.
ROOT_NAMESPACES = {
    "image": IMAGE_NS,
    "xhtml": XHTML_NS,
    "news": "http://www.google.com/schemas/sitemap-news/0.9",
    "video": "http://www.google.com/schemas/sitemap-video/1.1",
}


def undeclared(fragment: str, declared: dict[str, str]) -> str:
    """A verbatim XML extra without the namespace declarations the root already makes (same prefix and URI)."""
    end = fragment.find(">")
    if end < 0 or "xmlns" not in fragment[:end]:
        return fragment
    head = fragment[:end]
    for prefix, uri in declared.items():
        head = head.replace(f' xmlns:{prefix}="{uri}"', "")
    return head + fragment[end:]


def xml_extras(
    entry: Entry,
    dropped: set[str],
    ctx: Context,
    declared: dict[str, str] = ROOT_NAMESPACES,
    *,
    default_namespace: bool = True,
) -> list[str]:
    """The XML extras of an entry, each checked (:mod:`feedmap.formats._extras`): one that is not well-formed
    elements named by its key is dropped with ``invalid-extra``.  Text extras cannot be held in XML and are
    reported once (``dropped`` collects their keys).  ``default_namespace``: the element they go into has one.
    """
    out: list[str] = []
    for key, value in entry.extras.items():
        if key.startswith("{"):
            if not default_namespace and rdf_only(key, value, entry.loc, ctx):
                continue
            text = xml_extra(key, value, entry.loc, ctx, default_namespace=default_namespace)
            if text is not None:
                out.append(undeclared(text, declared))
        elif key not in dropped:
            dropped.add(key)
            ctx.info("field-dropped", f"extra {key!r} has no place in this format and is not written")
    return out


RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


def rdf_only(key: str, value: str, loc: str, ctx: Context) -> bool:
    """True (reported, ``extra-dropped``) for an extra an RSS 2.0 item cannot hold: RSS 1.0 module markup
    that uses RDF (``<l:permalink rdf:resource="..."/>``, an ``rdf:`` element or attribute); RSS 2.0 has no
    RDF, so the W3C validator reports it (``UndefinedElement``, ``UnexpectedAttribute``); and markup holding
    Atom elements, which an RSS 2.0 item would read as its own title, id, ...."""
    if RDF_NS in value:
        why = "is RDF markup (RSS 1.0), which RSS 2.0 cannot hold"
        ctx.info("extra-dropped", f"extra {key!r} of {loc} {why}; not written")
        return True
    if _ATOM_NS in value:
        # Atom elements nested in a foreign element (an APP <app:collection> with its <atom:title>): the
        # validator takes them for the item's own (DuplicateDescriptionSemantics)
        why = "holds Atom elements, which an RSS 2.0 item would take for its own"
        ctx.info("extra-dropped", f"extra {key!r} of {loc} {why}; not written")
        return True
    return False


_ATOM_NS = "http://www.w3.org/2005/Atom"


def report_unwritable(value: str, what: str, loc: str, ctx: Context) -> None:
    """Report the characters of ``value`` (the ``what`` of the entry ``loc``) that XML cannot hold, if any."""
    lost = unwritable(value)
    if lost:
        shown = ", ".join(f"U+{ord(char):04X}" for char in dict.fromkeys(lost))
        verb = "was" if len(lost) == 1 else "were"
        ctx.warning("character-dropped", f"{what} of {loc!r}: {shown} cannot be written in XML 1.0 and {verb} dropped")


def text_of(value: str, what: str, loc: str, ctx: Context) -> str:
    """``value`` escaped for XML text; a dropped character is reported (escape_text returns ``value``
    itself when there is nothing to escape, so the common case costs one regex search)."""
    text = escape_text(value)
    if text is not value:
        report_unwritable(value, what, loc, ctx)
    return text


def attribute_of(value: str, what: str, loc: str, ctx: Context) -> str:
    """``value`` escaped for a double-quoted attribute; a dropped character is reported."""
    text = escape_attribute(value)
    if text is not value:
        report_unwritable(value, what, loc, ctx)
    return text


def image_elements(entry: Entry, ctx: Context, xmlns: str = "") -> list[str]:
    """The entry's ``image:image`` elements, children in XSD order (also used inside RSS items);
    ``xmlns``: declarations for their start tags (a feed declares a namespace where it is first used)."""
    parts: list[str] = []
    loc = entry.loc
    for image in entry.images:
        image_loc = text_of(output_url(image.loc, ctx), "image:loc", loc, ctx)
        parts += [f"<image:image{xmlns}><image:loc>", image_loc, "</image:loc>"]
        if image.caption is not None:
            parts += ["<image:caption>", text_of(image.caption, "image:caption", loc, ctx), "</image:caption>"]
        if image.geo_location is not None:
            geo = text_of(image.geo_location, "image:geo_location", loc, ctx)
            parts += ["<image:geo_location>", geo, "</image:geo_location>"]
        if image.title is not None:
            parts += ["<image:title>", text_of(image.title, "image:title", loc, ctx), "</image:title>"]
        if image.license is not None:
            license_url = text_of(output_url(image.license, ctx), "image:license", loc, ctx)
            parts += ["<image:license>", license_url, "</image:license>"]
        parts.append("</image:image>")
    return parts


def alternate_elements(entry: Entry, ctx: Context, xmlns: str = "") -> list[str]:
    """The entry's hreflang alternates as ``xhtml:link`` elements (``xmlns`` as for :func:`image_elements`)."""
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


def loc_text(entry: Entry, ctx: Context) -> str:
    """The entry's loc as written in ``<loc>`` (or an RSS ``<link>``): encoded (unless --keep-urls), escaped."""
    url = output_url(entry.loc, ctx)
    text = escape_text(url)
    if text is not url:
        report_unwritable(url, "loc", entry.loc, ctx)
    return text


def _url_block(entry: Entry, ctx: Context, dropped: set[str]) -> str:
    url = output_url(entry.loc, ctx)
    loc = escape_text(url)  # loc_text, inlined: this runs once per URL written
    if loc is not url:
        report_unwritable(url, "loc", entry.loc, ctx)
    parts = ["<url><loc>", loc, "</loc>"]
    if entry.lastmod is not None:
        parts += ["<lastmod>", entry.lastmod.text, "</lastmod>"]
    if entry.changefreq is not None:
        parts += ["<changefreq>", entry.changefreq.value, "</changefreq>"]
    if entry.priority is not None:
        priority = format_priority(entry.priority, ctx, entry.loc)
        if priority is not None:
            parts += ["<priority>", priority, "</priority>"]
    if entry.images:
        parts += image_elements(entry, ctx)
    if entry.alternates:
        parts += alternate_elements(entry, ctx)
    if entry.extras:
        parts += xml_extras(entry, dropped, ctx)
    parts.append("</url>\n")
    return "".join(parts)


#: Fractional digits at most in a written priority: every XSD processor supports 18 decimal digits
#: (XML Schema Part 2, §3.2.3 decimal, "minimally conforming"), and the value is below 1.
PRIORITY_PLACES = 18
_PRIORITY_QUANTUM = decimal.Decimal(1).scaleb(-PRIORITY_PLACES)


def format_priority(priority: float, ctx: Context | None = None, loc: str = "") -> str | None:
    """The priority as a short ``xsd:decimal`` (``0.5``, ``1.0``, ``0.25``), or None when it has none.

    The shortest decimal that reads back as the same float, positional (the XSD's decimal has no exponent),
    with at most :data:`PRIORITY_PLACES` fractional digits: ``5e-324`` is written ``0.0``, not as 325
    digits.  A written value that differs from the entry's is reported (``priority-rounded``), and so is a
    value outside 0.0-1.0 (written clamped) or not a number (not written) (``invalid-priority``).
    """
    text = repr(float(priority))
    if "e" not in text and len(text) <= PRIORITY_PLACES + 2 and 0.0 <= priority <= 1.0:
        return text  # the common case: short, in range, exact
    return _unusual_priority(float(priority), ctx, loc)


def _unusual_priority(priority: float, ctx: Context | None, loc: str) -> str | None:
    if not math.isfinite(priority):
        if ctx is not None:
            ctx.warning("invalid-priority", f"priority {priority} of {loc} is not a number; not written")
        return None
    if not 0.0 <= priority <= 1.0:
        clamped = min(max(priority, 0.0), 1.0)
        if ctx is not None:
            ctx.warning("invalid-priority", f"priority {priority} of {loc} is outside 0.0-1.0; written as {clamped}")
        priority = clamped
    exact = decimal.Decimal(repr(priority))
    rounded = exact.quantize(_PRIORITY_QUANTUM, rounding=decimal.ROUND_HALF_EVEN).normalize()
    text = format(rounded, "f")
    if "." not in text:
        text += ".0"
    if float(text) != priority and ctx is not None:
        ctx.warning(
            "priority-rounded",
            f"priority {priority!r} of {loc} written as {text} (at most {PRIORITY_PLACES} decimal places)",
        )
    return text


def write_blocks(
    sink: BinaryIO,
    header: str,
    footer: str,
    blocks: Iterable[str],
    watch: SizeWatch,
    *,
    batch: int = 512,
) -> int:
    """Write header, blocks and footer in batches; returns the number of blocks."""
    data = header.encode("utf-8")
    sink.write(data)
    watch.add(0, len(data))
    pending: list[str] = []
    count = 0
    for block in blocks:
        pending.append(block)
        if len(pending) >= batch:
            data = "".join(pending).encode("utf-8")
            sink.write(data)
            watch.add(len(pending), len(data))
            count += len(pending)
            pending.clear()
    if pending:
        data = "".join(pending).encode("utf-8")
        sink.write(data)
        watch.add(len(pending), len(data))
        count += len(pending)
    data = footer.encode("utf-8")
    sink.write(data)
    watch.add(0, len(data))
    return count


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    namespaces = "".join(f' xmlns:{prefix}="{uri}"' for prefix, uri in ROOT_NAMESPACES.items())
    dropped: set[str] = set()
    blocks = (_url_block(entry, ctx, dropped) for entry in doc.entries)
    count = write_blocks(sink, root_open_tag("urlset", namespaces, ctx), "</urlset>\n", blocks, SizeWatch(ctx, "URLs"))
    if count == 0:
        ctx.warning("empty-document", "no entries: wrote an empty <urlset> (valid for Google, not for the XSD)")
    return count


FORMAT = FormatSpec(
    name="sitemap",
    title="XML sitemap (sitemaps.org 0.9 urlset, image extension, hreflang)",
    extensions=(".xml",),
    roots=(("*", "urlset"),),
    priority=10,
    reader=read,
    writer=write,
    fields=frozenset({"loc", "lastmod", "changefreq", "priority", "images", "alternates", "extras"}),
    description="reads 0.9, https and no-namespace variants and Google 0.84; any prefix, any order",
)
