"""Writing XML output as plain strings: escaped text and attributes, priorities, checked extras, root tags.

XML 1.0 (https://www.w3.org/TR/xml/): what §2.2 ``Char`` excludes (most C0 controls, U+FFFE, U+FFFF,
surrogates) is dropped and reported (``character-dropped``); text and attributes are escaped by
:func:`feedmap._xml.escape_text` / :func:`~feedmap._xml.escape_attribute`.  Output is string building
through one escaping function, faster than ``lxml.etree.xmlfile`` for the common loc with nothing to escape
(benchmarks/README.md, ``bench_micro.py`` ``escape``); the tests parse every output back to prove it
well-formed.  A priority is a short ``xsd:decimal`` (XML Schema Part 2 §3.2.3); an
extra is written only when it is well-formed elements named by its key (:mod:`feedmap.formats._extras`).
Root tags follow the sitemaps.org 0.9 schemas (https://www.sitemaps.org/protocol.html); a lastmod is written
as their ``xsd:date | xsd:dateTime`` (XML Schema Part 2 §3.2.7, §3.2.9) wherever the same instant can be.
"""

from __future__ import annotations

import decimal
import math
import re
from typing import TYPE_CHECKING

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate, is_xsd_lastmod, with_seconds
from feedmap._core.model import Entry
from feedmap._core.urls import is_uri, plain_uri
from feedmap._xml import (
    IMAGE_NS,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
    XSI_NS,
    escape_attribute,
    escape_text,
    unwritable,
)
from feedmap.formats._extras import xml_extra
from feedmap.formats._output import output_url

if TYPE_CHECKING:  # the writers give them: this module does not need the module at run time
    from feedmap.formats._namespaces import Namespaces

__all__ = [
    "FEED_ONLY_NAMESPACES",
    "PRIORITY_PLACES",
    "PRIORITY_TEXTS",
    "RDF_NS",
    "ROOT_NAMESPACES",
    "SCHEMA_LOCATION",
    "attribute_of",
    "feed_only",
    "format_priority",
    "loc_text",
    "plain_uri",
    "rdf_only",
    "report_unwritable",
    "root_open_tag",
    "text_of",
    "undeclared",
    "xml_extras",
    "xsd_lastmod",
]

SCHEMA_LOCATION = f"{SITEMAP_NS} {SITEMAP_NS}/sitemap.xsd"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_ATOM_NS = "http://www.w3.org/2005/Atom"

#: Namespaces a written sitemap declares on its root when it uses them, by the prefixes Google's documentation uses.
ROOT_NAMESPACES = {
    "image": IMAGE_NS,
    "xhtml": XHTML_NS,
    "news": NEWS_NS,
    "video": VIDEO_NS,
}


#: A date, or a date and time with seconds of at most 59 (any fraction or zone): in the text of a
#: :class:`W3CDate` (valid W3C Datetime), exactly what :func:`is_xsd_lastmod` accepts, found in one short regex.
_XSD_SHAPE = re.compile(r"\d{4}-\d\d-\d\d(?:T\d\d:\d\d:[0-5]\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?)?", re.ASCII)
xsd_shape = _XSD_SHAPE.fullmatch


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


def loc_text(entry: Entry, ctx: Context) -> str:
    """The entry's loc as written in ``<loc>`` (or an RSS ``<link>``): encoded (unless --keep-urls), escaped."""
    loc, options = entry.loc, ctx.options
    if plain_uri(loc) is not None:
        return loc  # written as it is in every mode, nothing to escape
    # a loc that is a URI already is written as it is (output_url's common case, without its calls)
    url = loc if (not options.keep_urls or options.encode_urls) and is_uri(loc) else output_url(loc, ctx, entry)
    text = escape_text(url)
    if text is not url:
        report_unwritable(url, "loc", entry.loc, ctx)
    return text


def root_open_tag(element: str, extra_namespaces: str, ctx: Context) -> str:
    """The XML declaration and the start tag of a ``<urlset>`` or ``<sitemapindex>`` (``xsi:schemaLocation``
    with the 0.9 XSD when asked for)."""
    xsi = ""
    if ctx.options.schema_location:
        location = SCHEMA_LOCATION if element == "urlset" else f"{SITEMAP_NS} {SITEMAP_NS}/siteindex.xsd"
        xsi = f' xmlns:xsi="{XSI_NS}" xsi:schemaLocation="{location}"'
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<{element} xmlns="{SITEMAP_NS}"{extra_namespaces}{xsi}>\n'


def undeclared(fragment: str, declared: dict[str, str]) -> str:
    """A verbatim XML extra without the namespace declarations the element around it makes (same prefix and URI)."""
    end = fragment.find(">")
    if end < 0 or "xmlns" not in fragment[:end]:
        return fragment
    head = fragment[:end]
    for prefix, uri in declared.items():
        head = head.replace(f' xmlns:{prefix}="{uri}"', "")
    return head + fragment[end:]


#: The namespaces of feeds' vocabularies (RSS 1.0 and its modules, Atom, RDF, Dublin Core, the comment and
#: podcast modules, Media RSS, ROR, ...): their elements say something of a feed item (its comments, its author,
#: its content) that a sitemap does not hold, and no sitemap reader reads them.
FEED_ONLY_NAMESPACES = frozenset(
    {
        "http://purl.org/rss/1.0/",
        "http://my.netscape.com/rdf/simple/0.9/",
        "http://backend.userland.com/rss",
        "http://backend.userland.com/rss2",
        "http://blogs.law.harvard.edu/tech/rss",
        _ATOM_NS,
        "http://purl.org/atom/ns#",
        "http://www.w3.org/2007/app",
        "http://purl.org/syndication/thread/1.0",
        "http://purl.org/syndication/history/1.0",
        RDF_NS,
        "http://purl.org/dc/elements/1.1/",
        "http://purl.org/dc/terms/",
        "http://wellformedweb.org/CommentAPI/",
        "http://madskills.com/public/xml/rss/module/trackback/",
        "http://webns.net/mvcb/",
        "http://backend.userland.com/blogChannelModule",
        "http://backend.userland.com/creativeCommonsRssModule",
        "http://www.itunes.com/dtds/podcast-1.0.dtd",
        "http://www.itunes.com/DTDs/PodCast-1.0.dtd",
        "http://www.google.com/schemas/play-podcasts/1.0",
        "https://podcastindex.org/namespace/1.0",
        "http://search.yahoo.com/mrss/",
        "http://search.yahoo.com/mrss",
        "http://rssnamespace.org/feedburner/ext/1.0",
        "http://a9.com/-/spec/opensearch/1.1/",
        "http://a9.com/-/spec/opensearchrss/1.0/",
        "http://rorweb.com/0.1/",
        "http://www.rorweb.com/0.1/",
    }
)
#: What starts every RSS 1.0 module's namespace (content, slash, syndication, taxonomy, ...).
_RSS10_MODULES = "http://purl.org/rss/1.0/modules/"


def feed_only(key: str) -> bool:
    """Whether the XML extra ``key`` (``{namespace}local``) is an element of a feed's vocabulary
    (:data:`FEED_ONLY_NAMESPACES`, the RSS 1.0 modules)."""
    namespace = key[1 : key.find("}")]
    return namespace in FEED_ONLY_NAMESPACES or namespace.startswith(_RSS10_MODULES)


def xml_extras(
    entry: Entry,
    dropped: set[str],
    ctx: Context,
    namespaces: Namespaces | None = None,
    *,
    default_namespace: bool = True,
    claimed: frozenset[str] = frozenset(),
) -> list[str]:
    """The XML extras of an entry, each checked (:mod:`feedmap.formats._extras`): one that is not well-formed
    elements named by its key is dropped with ``invalid-extra``.  Text extras cannot be held in XML and are
    reported once (``dropped`` collects their keys), except those in ``claimed``, which an extension's write
    hook writes (:mod:`feedmap.formats.ext`).  ``default_namespace``: the element they go into has one (a
    sitemap's): there an element of a feed's vocabulary (:func:`feed_only`) is left out, said once
    (``extra-dropped``), unless ``keep_feed_extras``.  ``namespaces``: those of the output (each extra without
    the declarations its root makes, :meth:`~feedmap.formats._namespaces.Namespaces.adopt`), or None.
    """
    out: list[str] = []
    for key, value in entry.extras.items():
        if key.startswith("{"):
            if not default_namespace and rdf_only(key, value, entry.loc, ctx):
                continue
            if default_namespace and feed_only(key) and not ctx.options.keep_feed_extras:
                if key not in dropped:
                    dropped.add(key)
                    ctx.info("extra-dropped", f"{_FEED_EXTRA.format(key)} (keep_feed_extras keeps it)")
                continue
            text = xml_extra(key, value, entry.loc, ctx, default_namespace=default_namespace)
            if text is not None:
                out.append(namespaces.adopt(text) if namespaces is not None else text)
        elif key not in dropped and key not in claimed:
            dropped.add(key)
            ctx.info("field-dropped", f"extra {key!r} has no place in this format and is not written")
    return out


_FEED_EXTRA = "extra {0!r} is an element of a feed's vocabulary, which means nothing in a sitemap: not written"


def rdf_only(key: str, value: str, loc: str, ctx: Context, *, holder: str = "an RSS 2.0 item") -> bool:
    """True (reported, ``extra-dropped``) for an extra an RSS 2.0 item (or an Atom entry: ``holder``) cannot hold:
    RSS 1.0 module markup
    that uses RDF (``<l:permalink rdf:resource="..."/>``, an ``rdf:`` element or attribute); RSS 2.0 has no
    RDF, so the W3C validator reports it (``UndefinedElement``, ``UnexpectedAttribute``); markup holding
    Atom elements, which an RSS 2.0 item would read as its own title, id, ...; and XHTML elements (a
    sitemap's ``xhtml:link`` that is no hreflang alternate, ``rel="amphtml"``), which an RSS 2.0 item cannot
    hold (the validator's ``MisplacedXHTMLContent``; hreflang alternates are not extras)."""
    if XHTML_NS in value:
        why = f"is XHTML markup, which {holder} cannot hold"
        ctx.info("extra-dropped", f"extra {key!r} of {loc} {why}; not written")
        return True
    if RDF_NS in value:
        why = f"is RDF markup (RSS 1.0), which {holder} cannot hold"
        ctx.info("extra-dropped", f"extra {key!r} of {loc} {why}; not written")
        return True
    if _ATOM_NS in value:
        # Atom elements nested in a foreign element (an APP <app:collection> with its <atom:title>): the
        # validator takes them for the item's own (DuplicateDescriptionSemantics)
        why = f"holds Atom elements, which {holder} would take for its own"
        ctx.info("extra-dropped", f"extra {key!r} of {loc} {why}; not written")
        return True
    return False


#: Fractional digits at most in a written priority: every XSD processor supports 18 decimal digits
#: (XML Schema Part 2, §3.2.3 decimal, "minimally conforming"), and the value is below 1.
PRIORITY_PLACES = 18
_PRIORITY_QUANTUM = decimal.Decimal(1).scaleb(-PRIORITY_PLACES)


def format_priority(priority: float, ctx: Context | None = None, loc: str = "") -> str | None:
    """The priority as a short ``xsd:decimal`` (``0.5``, ``1.0``, ``0.25``), or None when it has none.

    The shortest decimal that reads back as the same float, positional (the XSD's decimal has no exponent),
    with at most :data:`PRIORITY_PLACES` fractional digits: ``5e-324`` is written ``0.0``, not as 325
    digits.  A written value that differs from the entry's is reported (``priority-rounded``), and so is a
    value outside 0.0-1.0 or not a number (not written) (``priority-invalid``).
    """
    if priority.__class__ is float:
        known = _PRIORITY_TEXTS.get(priority)
        if known is not None:
            return known
    text = repr(float(priority))
    if "e" not in text and len(text) <= PRIORITY_PLACES + 2 and 0.0 <= priority <= 1.0:
        if priority and priority.__class__ is float and len(_PRIORITY_TEXTS) < _KNOWN_MAX:
            _PRIORITY_TEXTS[priority] = text  # a zero is not kept: 0.0 and -0.0 are equal keys, two texts
        return text  # the common case: short, in range, exact
    return _unusual_priority(float(priority), ctx, loc)


#: The texts of priorities (floats) and lastmods met before that take the common way, without a
#: diagnostic: a file uses a few priorities and repeats its dates.  At most :data:`_KNOWN_MAX` of each.
_PRIORITY_TEXTS: dict[float, str] = {}
#: The priorities known to take the common way, and their texts (what :func:`format_priority` returns for them).
PRIORITY_TEXTS = _PRIORITY_TEXTS
_XSD_LASTMODS: set[str] = set()
_KNOWN_MAX = 4096


def _unusual_priority(priority: float, ctx: Context | None, loc: str) -> str | None:
    if not math.isfinite(priority):
        if ctx is not None:
            ctx.warning("priority-invalid", f"priority {priority} of {loc} is not a number; not written")
        return None
    if not 0.0 <= priority <= 1.0:  # never clamped: an invalid value is no claim to the top priority
        if ctx is not None:
            ctx.warning("priority-invalid", f"priority {priority} of {loc} is outside 0.0-1.0; not written")
        return None
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


def xsd_lastmod(lastmod: W3CDate, ctx: Context, loc: str) -> str:
    """The lastmod text a sitemap or index writes: as read when the sitemaps XSD takes it; a time of minutes
    with ``:00`` seconds added (the same instant; INFO ``lastmod-seconds-added``); a year, a month or a leap
    second (``:60``, no xsd:dateTime) as read,
    with the warning ``feedmap validate`` gives it (``lastmod-not-xsd``): a full date would invent a day."""
    text = lastmod.text
    if text in _XSD_LASTMODS or xsd_shape(text) is not None:
        return text
    if is_xsd_lastmod(text):
        if len(_XSD_LASTMODS) >= _KNOWN_MAX:
            _XSD_LASTMODS.clear()
        _XSD_LASTMODS.add(text)
        return text
    written = with_seconds(text)
    if written is not None:
        ctx.info(
            "lastmod-seconds-added",
            f"lastmod {text} of {loc} written as {written}, the same instant (the sitemaps XSD wants seconds)",
        )
        return written
    why = (
        "its seconds would be 59, another instant"
        if text[17:19] == "60"
        else "a full date, YYYY-MM-DD, would invent a month or day that the source does not give"
    )
    ctx.warning(
        "lastmod-not-xsd",
        f"lastmod {text!r} of {loc} is W3C Datetime but the sitemaps XSD rejects it; written as read ({why})",
    )
    return text
