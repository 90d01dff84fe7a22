"""Safe, lenient XML reading and fast, correct XML writing shared by the XML formats (one import path).

Each job lives in its own module; this package re-exports them under the names the formats use:

* :mod:`._names`: the namespaces feedmap knows, Clark-notation tags, an element's line;
* :mod:`._decoding`: the input as UTF-8 (UTF-16/32, declared encodings, bytes that are not text;
  XML 1.0 §4.3.3, Appendix F);
* :mod:`._cleaning`: :class:`CleaningStream`, the repairs made before lxml parses (a bare ``&``, control
  characters, a DOCTYPE made inert), :mod:`._repairs` reporting them (one by one up to :data:`REPORT_CAP`
  per kind, then counted);
* :mod:`._peek`: the root element and namespaces of an input, without consuming it;
* :mod:`._parse`: :func:`iter_elements` (and :class:`Elements`, its steps for a loop of its own), the hardened
  streaming ``iterparse`` (no DTD, no entities, no
  network: OWASP XXE cheat sheet);
* :mod:`._escape`: escaping for output (XML 1.0 §2.2, §2.4, §3.3.3).
"""

from __future__ import annotations

from feedmap._xml._cleaning import ByteChecks, CleaningStream
from feedmap._xml._decoding import guess_encoding, unusable_declaration
from feedmap._xml._escape import escape_attribute, escape_text, unwritable
from feedmap._xml._names import (
    GOOGLE_084_NS,
    IMAGE_NS,
    NEWS_NS,
    SITEMAP_NAMESPACES,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
    XSI_NS,
    has_entity,
    line_of,
    local_name,
    namespace_of,
)
from feedmap._xml._parse import Elements, ParseState, iter_elements, make_iterparse, parser_limit
from feedmap._xml._peek import RootInfo, peek_cleaned, peek_root
from feedmap._xml._repairs import REPORT_CAP

__all__ = [
    "GOOGLE_084_NS",
    "IMAGE_NS",
    "NEWS_NS",
    "REPORT_CAP",
    "SITEMAP_NAMESPACES",
    "SITEMAP_NS",
    "VIDEO_NS",
    "XHTML_NS",
    "XSI_NS",
    "ByteChecks",
    "CleaningStream",
    "Elements",
    "ParseState",
    "RootInfo",
    "escape_attribute",
    "escape_text",
    "guess_encoding",
    "has_entity",
    "iter_elements",
    "line_of",
    "local_name",
    "make_iterparse",
    "namespace_of",
    "parser_limit",
    "peek_cleaned",
    "peek_root",
    "unusable_declaration",
    "unwritable",
]
