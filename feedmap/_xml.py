"""Safe, lenient XML reading and fast, correct XML writing shared by the XML formats.

Safety (OWASP XXE cheat sheet, lxml FAQ "how do I protect against XML attacks"): the parser never loads
a DTD, never resolves entities and never touches the network, so XXE and "billion laughs" are inert.

Leniency: lxml's own ``recover=True`` silently drops or mangles data (a bare ``&`` in a URL loses the
query string).  Instead :class:`CleaningStream` repairs, before parsing and with a diagnostic carrying
the line, what real sitemaps get wrong:

* blanks or a BOM before ``<?xml`` (XML 1.0 §2.8 requires the declaration first),
* a bare ``&`` (or a reference to an entity that XML does not predefine) outside CDATA: escaped to
  ``&amp;`` so the URL keeps its ``&``,
* C0 control characters that XML 1.0 §2.2 forbids: removed.

Writing (XML 1.0 §2.4, §2.11, §3.3.3): :func:`escape_text` escapes ``& < > " '`` and CR, :func:`escape_attribute`
also LF and tab; both drop the characters XML cannot hold (§2.2), which :func:`unwritable` names for the
writers' diagnostics.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

from feedmap.errors import Reporter
from feedmap.sources import PeekableStream

__all__ = [
    "IMAGE_NS",
    "SITEMAP_NAMESPACES",
    "SITEMAP_NS",
    "XHTML_NS",
    "XSI_NS",
    "CleaningStream",
    "RootInfo",
    "escape_attribute",
    "escape_text",
    "iter_elements",
    "line_of",
    "local_name",
    "namespace_of",
    "peek_root",
    "unwritable",
]

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
GOOGLE_084_NS = "http://www.google.com/schemas/sitemap/0.84"
#: Namespaces read as sitemaps.org 0.9 without complaint ("" is no namespace at all).
SITEMAP_NAMESPACES = frozenset(
    {
        SITEMAP_NS,
        SITEMAP_NS + "/",
        "https://www.sitemaps.org/schemas/sitemap/0.9",
        "https://www.sitemaps.org/schemas/sitemap/0.9/",
        GOOGLE_084_NS,
        "",
    }
)
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"


def namespace_of(tag: str) -> str:
    return tag[1 : tag.index("}")] if tag.startswith("{") else ""


def local_name(tag: str) -> str:
    return tag[tag.index("}") + 1 :] if tag.startswith("{") else tag


# --------------------------------------------------------------------------------------------- reading

_KEEP = 64  # bytes held back at a chunk's end so that markers and references are never split
_BARE_AMP = re.compile(rb"&(?!(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});)")
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])  # the bytes _CONTROL matches


def _has_control(data: bytes) -> bool:
    """True when ``data`` holds a byte that _CONTROL matches (bytes.translate: 4x faster than the regex)."""
    return len(data.translate(None, _CONTROL_BYTES)) != len(data)


_CDATA_OPEN = b"<![CDATA["
_CDATA_CLOSE = b"]]>"
_LEADING = re.compile(rb"\A(?:\xef\xbb\xbf)?([ \t\r\n]+)(?=<\?xml[ \t\r\n?])")
_LEADING_WINDOW = 64 * 1024


class CleaningStream:
    """A file-like wrapper that repairs bytes lxml cannot parse, reporting each repair with its line.

    Works on ASCII-compatible encodings (UTF-8, ISO-8859-x, Windows-125x); UTF-16/32 input (recognised
    by its byte-order mark) passes through untouched.
    """

    def __init__(self, inner: PeekableStream, *, reporter: Reporter, name: str) -> None:
        self._inner = inner
        self._reporter = reporter
        self._name = name
        self._carry = b""
        self._eof = False
        self._in_cdata = False
        self._line = 1  # line number of the first byte of self._carry
        self._started = False
        self._passthrough = False
        #: Lines removed before the XML declaration; add to lxml's sourceline for the input's line.
        self.line_offset = 0

    def _start(self) -> None:
        self._started = True
        head = self._inner.peek(4)
        if head.startswith((b"\xff\xfe", b"\xfe\xff")):
            self._passthrough = True
            return
        # the same window peek_root looks at: any run of blanks it skips to find the root is removed here
        head = self._inner.peek(_LEADING_WINDOW)
        match = _LEADING.match(head)
        if match is not None:
            blanks = match.group(1)
            start = match.start(1)
            self._inner.read(match.end(1))
            self.line_offset = blanks.count(b"\n")
            self._line += self.line_offset
            self._reporter.warning(
                "leading-whitespace",
                "blank space before the XML declaration was removed (the declaration must come first)",
                self._name,
                1,
            )
            if start:  # a BOM stood before the blanks: keep it, it is allowed before <?xml
                self._carry = head[:start]

    def read(self, size: int = -1) -> bytes:
        if not self._started:
            self._start()
        if self._passthrough:
            return self._inner.read(size)
        want = size if size > 0 else 1 << 16
        while not self._eof and len(self._carry) < want + _KEEP:
            chunk = self._inner.read(max(want, 1 << 16))
            if not chunk:
                self._eof = True
                break
            self._carry += chunk
        if not self._carry:
            return b""
        buf = self._carry
        limit = len(buf) if self._eof else max(len(buf) - _KEEP, 0)
        out, consumed = self._clean(buf, limit)
        self._line += buf.count(b"\n", 0, consumed)
        self._carry = buf[consumed:]
        if not out and self._carry and not self._eof:
            return self.read(size)
        return out

    def _clean(self, buf: bytes, limit: int) -> tuple[bytes, int]:
        """Clean ``buf[:limit]`` (looking ahead past it as needed); returns (output, bytes consumed)."""
        parts: list[bytes] = []
        pos = 0
        while pos < limit:
            if self._in_cdata:
                end = buf.find(_CDATA_CLOSE, pos)
                if end < 0:
                    stop = limit
                    parts.append(self._strip_controls(buf, pos, stop))
                    pos = stop
                    break
                stop = end + len(_CDATA_CLOSE)
                parts.append(self._strip_controls(buf, pos, stop))
                pos = stop
                self._in_cdata = False
                continue
            start = buf.find(_CDATA_OPEN, pos)
            stop = limit if start < 0 or start >= limit else start
            parts.append(self._fix_segment(buf, pos, stop))
            pos = stop
            if start >= 0 and start < limit:
                parts.append(_CDATA_OPEN)
                pos = start + len(_CDATA_OPEN)
                self._in_cdata = True
        return b"".join(parts), pos

    def _fix_segment(self, buf: bytes, start: int, stop: int) -> bytes:
        segment = buf[start:stop]
        if b"&" in segment and _BARE_AMP.search(buf, start, min(len(buf), stop + 16)) is not None:
            pieces: list[bytes] = []
            last = start
            for match in _BARE_AMP.finditer(buf, start, min(len(buf), stop + 16)):
                if match.start() >= stop:
                    break
                pieces.append(buf[last : match.start()])
                pieces.append(b"&amp;")
                last = match.end()
                line = self._line + buf.count(b"\n", 0, match.start())
                context = buf[match.start() : match.start() + 24].split(b"<", 1)[0]
                self._reporter.warning(
                    "bare-ampersand",
                    f"unescaped '&' kept as a literal '&' (near {context.decode('utf-8', 'replace')!r}); "
                    "write it as '&amp;'",
                    self._name,
                    line,
                )
            pieces.append(buf[last:stop])
            segment = b"".join(pieces)
        if _has_control(segment):
            segment = self._strip_controls(segment, 0, len(segment), base=buf[:start])
        return segment

    def _strip_controls(self, buf: bytes, start: int, stop: int, base: bytes | None = None) -> bytes:
        segment = buf[start:stop]
        if not _has_control(segment):
            return segment
        offset_lines = base.count(b"\n") if base is not None else buf.count(b"\n", 0, start)
        for match in _CONTROL.finditer(segment):
            line = self._line + offset_lines + segment.count(b"\n", 0, match.start())
            self._reporter.warning(
                "control-character",
                f"control character {match.group()!r} is not allowed in XML and was removed",
                self._name,
                line,
            )
        return _CONTROL.sub(b"", segment)


@dataclass(frozen=True, slots=True)
class RootInfo:
    """The first element of an XML document and the namespaces declared up to it."""

    namespace: str
    local: str
    namespaces: frozenset[str]
    line: int


def peek_root(stream: PeekableStream, size: int = 64 * 1024) -> RootInfo | None:
    """Find the root element in the first ``size`` bytes, or None when they hold no XML start tag."""
    head = stream.peek(size)
    match = _LEADING.match(head)
    removed_lines = 0
    if match is not None:
        removed_lines = match.group(1).count(b"\n")
        head = head[: match.start(1)] + head[match.end(1) :]
    head = _BARE_AMP.sub(b"&amp;", head)
    namespaces: set[str] = set()
    parser = etree.XMLPullParser(
        events=("start-ns", "start"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        recover=True,
    )
    try:
        parser.feed(head)
        for event, value in parser.read_events():
            if event == "start-ns" and isinstance(value, tuple):
                namespaces.add(str(value[1]))
            elif isinstance(value, etree._Element) and isinstance(value.tag, str):
                tag = value.tag
                return RootInfo(
                    namespace_of(tag), local_name(tag), frozenset(namespaces), (line_of(value) or 1) + removed_lines
                )
    except etree.XMLSyntaxError:
        return None
    return None


def line_of(element: etree._Element) -> int:
    """The element's line in the parsed text (0 when lxml does not know it)."""
    line: object = element.sourceline
    return line if isinstance(line, int) else 0


def make_iterparse(
    source: CleaningStream, tags: list[str] | str, events: tuple[str, ...] = ("end",)
) -> etree.iterparse:
    """An ``iterparse`` that cannot be abused: no DTD, no entities, no network, no huge trees."""
    return etree.iterparse(
        source,
        events=events,
        tag=tags,
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def iter_elements(
    stream: PeekableStream,
    tags: list[str],
    *,
    reporter: Reporter,
    name: str,
    report_unknown: bool = True,
) -> Iterator[tuple[etree._Element, int]]:
    """Yield each completed element with one of ``tags`` (Clark names) and the line offset to add to
    lxml's ``sourceline`` to get the line in the input (blank lines removed before ``<?xml``).

    Each element is cleared after the caller is done with it, so memory stays flat.  A document that
    breaks off (truncated, or malformed beyond repair) yields what came before and reports a warning.
    With ``report_unknown``, other elements beside the wanted ones (they are expected directly under the
    root, as in a urlset) are reported as ``unknown-element``; formats whose wanted elements sit deeper
    (RSS items inside ``<channel>``, next to the channel's own elements) turn it off.
    """
    cleaner = CleaningStream(stream, reporter=reporter, name=name)
    context = make_iterparse(cleaner, tags)
    wanted = frozenset(tags)

    def check_unexpected(node: etree._Element) -> None:
        if report_unknown and isinstance(node.tag, str) and node.tag not in wanted:
            reporter.warning(
                "unknown-element",
                f"<{local_name(node.tag)}> does not belong here; ignored",
                name,
                line_of(node) + cleaner.line_offset,
            )

    try:
        previous: etree._Element | None = None
        for _event, element in context:
            yield element, cleaner.line_offset
            element.clear(keep_tail=False)
            parent = element.getparent()
            if parent is not None:
                while element.getprevious() is not None:
                    first = parent[0]
                    if first is not previous:  # lxml keeps one proxy per live node: `is` holds
                        check_unexpected(first)
                    del parent[0]
            previous = element
        root = context.root
        if root is not None:
            for child in root:
                check_unexpected(child)
    except etree.XMLSyntaxError as exc:
        line = (exc.lineno or 0) + cleaner.line_offset if exc.lineno else 0
        message = exc.msg if hasattr(exc, "msg") and exc.msg else str(exc)
        reporter.warning(
            "malformed-xml",
            f"the XML breaks off here ({message}); the entries before it are kept",
            name,
            line,
        )


# --------------------------------------------------------------------------------------------- writing

#: XML 1.0 §2.2 ``Char``: what a document can hold at all (C0 controls but tab, LF and CR; U+FFFE, U+FFFF;
#: surrogates, which no UTF-8 text can carry either).
_INVALID_XML_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
#: Text: ``& < >`` and both quotes; CR as ``&#13;`` (a raw CR reads back as LF, XML 1.0 §2.11).
_TEXT_ESCAPES = {
    ord("&"): "&amp;",
    ord("<"): "&lt;",
    ord(">"): "&gt;",
    ord('"'): "&quot;",
    ord("'"): "&apos;",
    ord("\r"): "&#13;",
}
#: Attributes also keep LF and tab as references (raw, attribute-value normalization reads them as spaces, §3.3.3).
_ATTRIBUTE_ESCAPES = {**_TEXT_ESCAPES, ord("\n"): "&#10;", ord("\t"): "&#9;"}
_NEEDS_ESCAPE = re.compile("[&<>\"'\r\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_NEEDS_ATTRIBUTE_ESCAPE = re.compile("[&<>\"'\r\n\t\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def escape_text(value: str) -> str:
    """Escape a string for XML text; drop characters XML 1.0 forbids (:func:`unwritable` finds them).

    The common case, nothing to escape, is one regex search and returns ``value`` itself, so a writer can
    tell by identity (``escape_text(v) is not v``) that it should look for dropped characters.
    """
    if _NEEDS_ESCAPE.search(value) is None:
        return value
    if _INVALID_XML_CHARS.search(value) is not None:
        value = _INVALID_XML_CHARS.sub("", value)
    return value.translate(_TEXT_ESCAPES)


def escape_attribute(value: str) -> str:
    """Escape a string for a double-quoted attribute: as :func:`escape_text`, and LF, tab as references."""
    if _NEEDS_ATTRIBUTE_ESCAPE.search(value) is None:
        return value
    if _INVALID_XML_CHARS.search(value) is not None:
        value = _INVALID_XML_CHARS.sub("", value)
    return value.translate(_ATTRIBUTE_ESCAPES)


def unwritable(value: str) -> list[str]:
    """The characters of ``value`` that no XML 1.0 document can hold (what :func:`escape_text` drops)."""
    return _INVALID_XML_CHARS.findall(value)
