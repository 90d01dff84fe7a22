"""Recognising a format without importing it: what the first bytes of an input are, and what each
built-in format's content looks like.

Sniffing looks at the decompressed head: XML (the root element and the namespaces declared up to it, XML
1.0 Appendix F for encodings without a byte-order mark), JSON lines, lines of URLs (RFC 3986 schemes), or
an HTML page (WHATWG HTML: a ``<!DOCTYPE html>`` or an ``<html>`` root).  Two formats say themselves what they
claim (``accept``): Parquet by its magic number, CSV (RFC 4180) by a first line that is a header naming a ``loc``
(or ``url``) column, its cells separated by commas or, as a European Excel writes them, semicolons
(:func:`csv_delimiter`); lines of comma-separated values without such a header stay the text format's, which
refuses them (``csv-input``).  The built-in formats' detection
data lives here, beside their lazy paths, so that detecting one imports no format module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the XML machinery (lxml) is imported when an input may be XML: lines of URLs need none of it
    from feedmap._io.sources import PeekableStream
    from feedmap._xml import RootInfo

__all__ = [
    "BUILTINS",
    "CSV_DELIMITERS",
    "Accept",
    "Detection",
    "Sniffed",
    "csv_delimiter",
    "csv_names",
    "head_of",
    "is_csv",
    "is_parquet",
    "looks_like_html",
    "sniff",
]

#: A format's own test of the content (Pillow's ``accept(prefix)``): the head of the input (the decompressed
#: first bytes, see :func:`head_of`) -> whether the format claims it.
Accept = Callable[[bytes], bool]


@dataclass(frozen=True, slots=True)
class Sniffed:
    """What the first bytes of an input look like."""

    kind: str  # "xml", "json", "text", "empty" or "binary"
    root: RootInfo | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Detection:
    """What recognising a format needs, known without importing the format's module."""

    extensions: tuple[str, ...] = ()
    #: Root elements as (namespace, local name); namespace "*" accepts any namespace.
    roots: tuple[tuple[str, str], ...] = ()
    #: Namespaces of which at least one must be declared for the root to match (e.g. ROR in RSS).
    requires_namespaces: frozenset[str] = frozenset()
    #: Content kind for non-XML formats ("json", "text").
    content: str | None = None
    #: Higher wins when several formats match the same content.
    priority: int = 0
    #: Media types (RFC 6838) that name the format as well as its name does.
    media_types: tuple[str, ...] = ()
    #: False for a format that can only be written: never detected.
    readable: bool = True
    #: The format's own test of the head of the input; when given, it alone decides whether the content is
    #: this format's (``roots``, ``requires_namespaces`` and ``content`` are then not used to recognise it).
    accept: Accept | None = None

    def matches(self, sniffed: Sniffed) -> bool:
        """Whether the declared roots or content kind match (not ``accept``: the registry asks it)."""
        if sniffed.kind == "xml" and sniffed.root is not None:
            root = sniffed.root
            for namespace, local in self.roots:
                declared = not self.requires_namespaces or bool(self.requires_namespaces & root.namespaces)
                if local == root.local and namespace in ("*", root.namespace) and declared:
                    return True
            return False
        return self.content is not None and self.content == sniffed.kind


_ANY = "*"


def is_parquet(head: bytes) -> bool:
    """Whether the input starts as an Apache Parquet file does: the magic number ``PAR1`` (its file format)."""
    return head[:4] == b"PAR1"


#: The cell separators of a CSV file, in the order they are tried: RFC 4180's comma, then the semicolon that Excel
#: writes where the comma is the decimal separator.
CSV_DELIMITERS = (",", ";")
#: The header cells that name the column of URLs (compared trimmed and in lower case).
_LOC_NAMES = frozenset({"loc", "url"})


def csv_names(line: str, delimiter: str) -> list[str]:
    """The cells of one CSV line (a header), trimmed and in lower case: the column names as read."""
    import csv  # the few formats that look at a CSV line import it

    try:
        cells = next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error:
        return []
    return [cell.strip().lower() for cell in cells]


def csv_delimiter(line: str) -> str | None:
    """The separator (:data:`CSV_DELIMITERS`) with which ``line`` is a header naming a ``loc`` or ``url`` column
    (any case, blanks around it), or None: ``loc,lastmod`` and ``URL;Title`` are headers, a line of URLs is not."""
    for delimiter in CSV_DELIMITERS:
        if (delimiter in line or delimiter == ",") and _LOC_NAMES.intersection(csv_names(line, delimiter)):
            return delimiter
    return None


def is_csv(head: bytes) -> bool:
    """Whether the input starts as a CSV file with a header does: its first line that is not blank (after a UTF-8
    byte order mark) names a ``loc`` or ``url`` column (:func:`csv_delimiter`)."""
    for raw in head.removeprefix(b"\xef\xbb\xbf").split(b"\n", 64)[:64]:
        if not raw.strip():
            continue
        lower = raw.lower()
        if raw.lstrip().startswith((b"<", b"{")) or (b"loc" not in lower and b"url" not in lower):
            return False  # XML, JSON, or no name of a loc column: no csv module needed to say so
        return csv_delimiter(raw.decode("utf-8", errors="replace").strip("\r")) is not None
    return False


_RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_ROR_NAMESPACES = frozenset(
    {"http://rorweb.com/0.1/", "http://www.rorweb.com/0.1/", "http://rorweb.com/0.1", "http://www.rorweb.com/0.1"}
)
#: The built-in formats: where each is defined, and what recognises it (the same values as its FormatSpec,
#: which a test checks) so that detection imports none of them.
BUILTINS: dict[str, tuple[str, Detection]] = {
    "sitemap": (
        "feedmap.formats.sitemap._urlset:FORMAT",
        Detection(extensions=(".xml",), roots=((_ANY, "urlset"),), priority=10),
    ),
    "sitemapindex": (
        "feedmap.formats.sitemap._index:FORMAT",
        Detection(roots=((_ANY, "sitemapindex"),), priority=10),
    ),
    "text": (
        "feedmap.formats.lines._text:FORMAT",
        Detection(extensions=(".txt",), content="text", media_types=("text/plain",)),
    ),
    "jsonl": (
        "feedmap.formats.lines._jsonl:FORMAT",
        Detection(
            extensions=(".jsonl", ".ndjson"),
            content="json",
            media_types=("application/jsonl", "application/x-ndjson", "application/x-jsonlines"),
        ),
    ),
    "rss": (
        "feedmap.formats.feeds._rss:FORMAT",
        Detection(
            extensions=(".rss",),
            roots=((_ANY, "rss"), (_RDF_NS, "RDF"), (_ANY, "feed")),
            priority=5,
            media_types=("application/rss+xml",),
        ),
    ),
    # Atom is read as the rss format reads it (any feed's root is rss's): named (-f atom) or by media type only
    "atom": (
        "feedmap.formats.feeds._atom:FORMAT",
        Detection(extensions=(".atom",), media_types=("application/atom+xml",)),
    ),
    "parquet": (
        "feedmap.formats.tabular._parquet:FORMAT",
        Detection(extensions=(".parquet",), media_types=("application/vnd.apache.parquet",), accept=is_parquet),
    ),
    "csv": (
        "feedmap.formats.tabular._csv:FORMAT",
        Detection(extensions=(".csv",), media_types=("text/csv",), accept=is_csv),
    ),
    "ror": (
        "feedmap.formats.feeds._ror:FORMAT",
        Detection(extensions=(".ror",), roots=((_ANY, "rss"),), requires_namespaces=_ROR_NAMESPACES, priority=20),
    ),
}


_URL_LINE = re.compile(rb"^\s*[A-Za-z][A-Za-z0-9+.-]*://\S", re.MULTILINE)


_SNIFF_WINDOW = 64 * 1024
#: How far blank lines before the content are looked past (the head is held in memory while it is read).
_MAX_BLANK_HEAD = 16 * 1024 * 1024


def head_of(stream: PeekableStream) -> bytes:
    """The first 64 KiB (all of a shorter input), or more while they are all blank: content after long
    blank lines is still seen (the XML reader removes blanks before the declaration however long they run).
    This is what a format's ``accept`` is given."""
    window = _SNIFF_WINDOW
    head = stream.peek(window)
    while len(head) == window < _MAX_BLANK_HEAD and not head.removeprefix(b"\xef\xbb\xbf").lstrip():
        window *= 2
        head = stream.peek(window)
    return head


#: What every head :func:`feedmap._xml.guess_encoding` finds in UTF-16/32 begins with: a UTF-16 byte-order mark
#: (UTF-32's little-endian one begins so too), or a zero byte among its first four (UTF-32's big-endian mark,
#: and each of XML 1.0 Appendix F's forms without a mark).  A head with neither is not UTF-16/32.
_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


def _maybe_utf16_or_32(head: bytes) -> bool:
    return head.startswith(_UTF16_MARKS) or b"\0" in head[:4]


def sniff(stream: PeekableStream) -> Sniffed:
    """Look at the first bytes (already decompressed) and say what kind of content they are."""
    head_bytes = head_of(stream)
    body = head_bytes.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not body:
        return Sniffed("empty")
    if body.startswith(b"<") or _maybe_utf16_or_32(head_bytes):
        from feedmap._xml import guess_encoding, peek_root  # XML (or perhaps): the XML machinery is needed

        # UTF-16/32, with a byte-order mark or without (XML 1.0 Appendix F), or a document that starts with "<"
        if guess_encoding(head_bytes) is not None or body.startswith(b"<"):
            return Sniffed("xml", peek_root(stream))
    if body.startswith(b"{"):
        return Sniffed("json")
    sample = body[:4096]
    if b"\x00" in sample:
        return Sniffed("binary")
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(sample) - 4:  # a cut multi-byte character at the end is fine
            return Sniffed("binary")
    if _URL_LINE.search(sample) is not None:
        return Sniffed("text")
    return Sniffed("binary")


_HTML_START = re.compile(rb"^(?:\s|<!--.*?-->|<\?xml[^>]*>)*<(?:!doctype\s+html|html)\b", re.IGNORECASE | re.DOTALL)


def looks_like_html(head: bytes, root: RootInfo | None) -> bool:
    """An HTML page (WHATWG HTML: a ``<!DOCTYPE html>`` or an ``<html>`` root, XHTML's namespace or none)."""
    if root is not None:
        return root.local.lower() == "html" and root.namespace in ("", "http://www.w3.org/1999/xhtml")
    return _HTML_START.match(head.removeprefix(b"\xef\xbb\xbf")) is not None
