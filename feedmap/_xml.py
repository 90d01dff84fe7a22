"""Safe, lenient XML reading and fast, correct XML writing shared by the XML formats.

Safety (OWASP XXE cheat sheet, lxml FAQ "how do I protect against XML attacks"): the parser never loads
a DTD, never resolves entities and never touches the network, so XXE and "billion laughs" are inert.
A DOCTYPE reaches lxml reduced to its root name and its general entities declared empty: a reference
to one stays an entity node (reported, and never taken as part of a value), nothing can amplify.

Leniency: lxml's own ``recover=True`` silently drops or mangles data (a bare ``&`` in a URL loses the
query string).  Instead :class:`CleaningStream` repairs, before parsing and with a diagnostic carrying
the line, what real sitemaps get wrong:

* blanks or a BOM before ``<?xml`` (XML 1.0 §2.8 requires the declaration first),
* a bare ``&`` (or a reference to an entity that XML does not predefine) outside CDATA: escaped to
  ``&amp;`` so the URL keeps its ``&``,
* C0 control characters that XML 1.0 §2.2 forbids: removed; the noncharacters U+FFFE and U+FFFF
  (valid UTF-8, but no XML characters either) and character references to any of them or to surrogates
  (``&#xD800;``): replaced by U+FFFD;
* bytes that are not in the document's encoding: replaced by U+FFFD.  lxml always gets UTF-8: UTF-16/32
  (by its byte-order mark, or without one by the first characters, XML 1.0 Appendix F) and any other
  declared encoding (XML 1.0 §4.3.3) are transcoded, and the declaration rewritten.  A declared name is
  accepted only when it is a label of the WHATWG Encoding Standard (``webencodings``), never by Python's
  codecs at large (``idna``, ``utf-7``, ``unicode_escape`` are codecs, not document encodings); a name
  that is not such a label is read as UTF-8, with a warning.

Repairs are reported one by one up to :data:`REPORT_CAP` per kind, then counted, so that a file with
millions of them stays linear in time and memory.

Writing (XML 1.0 §2.4, §2.11, §3.3.3): :func:`escape_text` escapes ``& < > " '`` and CR, :func:`escape_attribute`
also LF and tab; both drop the characters XML cannot hold (§2.2), which :func:`unwritable` names for the
writers' diagnostics.
"""

from __future__ import annotations

import codecs
import itertools
import re
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

import webencodings
from lxml import etree

from feedmap._errors import Reporter
from feedmap._sources import PeekableStream

__all__ = [
    "IMAGE_NS",
    "REPORT_CAP",
    "SITEMAP_NAMESPACES",
    "SITEMAP_NS",
    "XHTML_NS",
    "XSI_NS",
    "CleaningStream",
    "RootInfo",
    "escape_attribute",
    "escape_text",
    "guess_encoding",
    "has_entity",
    "iter_elements",
    "line_of",
    "local_name",
    "namespace_of",
    "peek_cleaned",
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
_ENTITY_REF = re.compile(rb"&([A-Za-z_:][A-Za-z0-9_.:-]*);")
_CHAR_REF = re.compile(rb"&#(?:([0-9]{1,7})|x([0-9A-Fa-f]{1,6}));")
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])  # the bytes _CONTROL matches


#: U+FFFE and U+FFFF in UTF-8: valid UTF-8, but no XML characters (XML 1.0 §2.2); lxml stops at them.
_NONCHARACTER = re.compile(rb"\xef\xbf[\xbe\xbf]")
_REPLACEMENT = "\ufffd".encode()


def _has_noncharacter(data: bytes) -> bool:
    """Whether ``data`` (UTF-8) holds U+FFFE or U+FFFF.  Their lead byte 0xEF is looked for first: a one-byte
    search is a memchr, some 100 times faster than a three-byte one, and most chunks hold no 0xEF at all."""
    first = data.find(b"\xef")
    return first >= 0 and (data.find(b"\xef\xbf\xbe", first) >= 0 or data.find(b"\xef\xbf\xbf", first) >= 0)


def _has_control(data: bytes) -> bool:
    """True when ``data`` holds a byte that _CONTROL matches (bytes.translate: 4x faster than the regex)."""
    return len(data.translate(None, _CONTROL_BYTES)) != len(data)


def _allowed_char(code: int) -> bool:
    """XML 1.0 §2.2 ``Char``: what a character reference may stand for."""
    if code < 0x20:
        return code in (0x9, 0xA, 0xD)
    return code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF


_CDATA_OPEN = b"<![CDATA["
_CDATA_CLOSE = b"]]>"
_DOCTYPE = b"<!DOCTYPE"
_START_TAG = re.compile(rb"<[A-Za-z_:]")
_URI_REPLACEMENT = b"%EF%BF%BD"  # U+FFFD percent-escaped (RFC 3987 §3.1)
_SUBSET_END = re.compile(rb"\][ \t\r\n]*>")
_DOCTYPE_NAME = re.compile(rb"<!DOCTYPE[ \t\r\n]+([A-Za-z_:][A-Za-z0-9_.:-]*)")
_ENTITY_DECL = re.compile(rb"<!ENTITY[ \t\r\n]+([A-Za-z_:][A-Za-z0-9_.:-]*)")
_LEADING = re.compile(rb"\A(?:\xef\xbb\xbf)?([ \t\r\n]+)(?=<\?xml[ \t\r\n?])")
_LEADING_WINDOW = 64 * 1024
_DECLARED_ENCODING = re.compile(
    rb"\A(?:\xef\xbb\xbf)?[ \t\r\n]*<\?xml[^>]*?encoding[ \t\r\n]*=[ \t\r\n]*[\"']([A-Za-z][\w.-]*)[\"']"
)
_DECLARATION_ENCODING = re.compile(rb"\A((?:\xef\xbb\xbf)?<\?xml[^>]*?encoding[ \t\r\n]*=[ \t\r\n]*)([\"'])[^\"']*\2")
_UTF8_NAMES = frozenset({"utf-8", "utf8"})
#: How many repairs of one kind are reported one by one (each with its line); the rest are counted.
REPORT_CAP = 100

_decode_errors = threading.local()


def _record_decode_error(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _decode_errors.found.append((exc.start, exc.object[exc.start : exc.end]))
    return "\ufffd", exc.end


codecs.register_error("feedmap-record", _record_decode_error)


def _decode(data: bytes, decoder: codecs.IncrementalDecoder, final: bool) -> tuple[str, list[tuple[int, bytes]]]:
    """Decode, replacing what cannot be decoded by U+FFFD; returns the text and (offset, bytes) of each repair."""
    found: list[tuple[int, bytes]] = []
    _decode_errors.found = found
    try:
        return decoder.decode(data, final), found
    finally:
        _decode_errors.found = []


def _python_codec(name: str) -> codecs.CodecInfo | None:
    try:
        return codecs.lookup(name)
    except LookupError:
        return None


def guess_encoding(head: bytes) -> tuple[str, bool] | None:
    """The UTF-16/32 codec of a document from its first bytes (XML 1.0 Appendix F), and whether a byte-order
    mark says so; None for ASCII-compatible encodings (UTF-8, ISO-8859-x, Windows-125x...)."""
    if head.startswith((b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00")):
        return "utf-32", True
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16", True
    if len(head) < 4:
        return None
    starts = b"<\t\r\n "
    if head[1:4] == b"\0\0\0" and head[0] in starts:
        return "utf-32-le", False
    if head[:3] == b"\0\0\0" and head[3] in starts:
        return "utf-32-be", False
    if head[1] == 0 and head[3] == 0 and head[0] in starts and head[2] != 0:
        return "utf-16-le", False
    if head[0] == 0 and head[2] == 0 and head[1] in starts and head[3] != 0:
        return "utf-16-be", False
    return None


def _utf8_complete(data: bytes) -> int:
    """Where a UTF-8 sequence that may continue in the next chunk starts at the end of ``data`` (else its length)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return len(data)
        if byte >= 0xC0:
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return len(data) - back if needed > back else len(data)
    return len(data)


def _escape_bare(lookahead: bytes, length: int) -> tuple[bytes, int]:
    """``lookahead[:length]`` with every bare ``&`` escaped (judged with the bytes after it), and their number."""
    fixed, total = _BARE_AMP.subn(b"&amp;", lookahead)
    beyond = sum(1 for _ in _BARE_AMP.finditer(lookahead, length))
    return fixed[: len(fixed) - (len(lookahead) - length) - 4 * beyond], total - beyond


def _inside_tag(data: bytes, since: int, where: int, was: bool) -> bool:
    """Whether ``where`` is inside a tag (in an attribute value), knowing whether ``since`` was (linear when
    followed along increasing positions)."""
    opened, closed = data.rfind(b"<", since, where), data.rfind(b">", since, where)
    return was if opened == closed else opened > closed  # equal: both -1, no tag boundary in between


class _Lines:
    """Line numbers of increasing positions in one buffer, counted incrementally (linear, never from 0 again)."""

    __slots__ = ("_data", "_pos", "line")

    def __init__(self, data: bytes, line: int, pos: int = 0) -> None:
        self._data = data
        self._pos = pos
        self.line = line

    def at(self, pos: int) -> int:
        if pos >= self._pos:
            self.line += self._data.count(b"\n", self._pos, pos)
        else:
            self.line -= self._data.count(b"\n", pos, self._pos)
        self._pos = pos
        return self.line


class _Peeking:
    """Reads a PeekableStream ahead without consuming it."""

    def __init__(self, stream: PeekableStream) -> None:
        self._stream = stream
        self.pos = 0

    def peek(self, size: int) -> bytes:
        return self._stream.peek(self.pos + size)[self.pos :]

    def read(self, size: int = -1, /) -> bytes:
        data = self.peek(size if size >= 0 else 1 << 16)
        self.pos += len(data)
        return data


class _Inner(Protocol):
    def peek(self, size: int) -> bytes: ...

    def read(self, size: int = -1, /) -> bytes: ...


class CleaningStream:
    """A file-like wrapper that repairs bytes lxml cannot parse, reporting each repair with its line.

    Passes UTF-8 on: input in UTF-8 is checked (bytes that are not UTF-8 become U+FFFD, each reported with
    its line), input in another encoding (UTF-16/32, or declared) is transcoded and its declaration
    rewritten.  A DOCTYPE is passed on reduced to its root name and its general entities declared empty;
    a reference to one of them is reported as not expanded.  Repairs are reported one by one up to
    :data:`REPORT_CAP` per kind, then counted (see :meth:`finish`).
    """

    def __init__(self, inner: _Inner, *, reporter: Reporter, name: str) -> None:
        self._inner = inner
        self._reporter = reporter
        self._name = name
        self._carry = b""
        self._eof = False
        self._in_cdata = False
        self._line = 1  # line number of the first byte of self._carry
        self._started = False
        self._decoder: codecs.IncrementalDecoder | None = None
        self._wide = False  # UTF-16/32
        self._codec_name = ""
        self._declaration_pending = True  # the declaration names an encoding the bytes passed on are not in
        self._raw_tail = b""  # bytes of a UTF-8 sequence that may continue in the next chunk
        self._doctype_done = False
        self._entities: frozenset[bytes] = frozenset()
        self._reported: Counter[str] = Counter()
        self._unreported: Counter[str] = Counter()
        self._finished = False
        #: Lines removed before the XML declaration; add to lxml's sourceline for the input's line.
        self.line_offset = 0

    # ------------------------------------------------------------------------------- reporting

    def _report(self, code: str, message: str, line: int) -> None:
        self._reported[code] += 1
        self._reporter.warning(code, message, self._name, line)

    def _wants(self, code: str) -> bool:
        """Whether the next repair of ``code`` is reported one by one (else it is only counted)."""
        if self._reported[code] < REPORT_CAP:
            return True
        self._unreported[code] += 1
        return False

    def finish(self) -> None:
        """Report how many repairs of each kind went unreported one by one (once, at the end: ``more-repairs``)."""
        if self._finished:
            return
        self._finished = True
        for code, count in self._unreported.items():  # its own code: a printer that caps each code shows it
            self._reporter.warning(
                "more-repairs",
                f"{count:,} more {code} repairs were made (the first {REPORT_CAP} were reported one by one)",
                self._name,
            )

    # ----------------------------------------------------------------------------- decoding

    def _start(self) -> None:
        self._started = True
        window = _LEADING_WINDOW
        head = self._inner.peek(window)
        while len(head) == window and not head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n"):
            window *= 2  # nothing but blanks so far: look further for the declaration
            head = self._inner.peek(window)
        self._choose_decoding(head)
        if self._decoder is not None and self._wide:
            return
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

    def _choose_decoding(self, head: bytes) -> None:
        """How the input becomes UTF-8: checked as it is, or transcoded (UTF-16/32, a declared other encoding)."""
        guessed = guess_encoding(head)
        if guessed is not None:
            codec, has_bom = guessed
            self._decoder = codecs.getincrementaldecoder(codec)("feedmap-record")
            self._wide = True
            if not has_bom:
                self._reporter.warning(
                    "missing-bom",
                    f"the document is in {codec.upper()} without a byte-order mark (XML 1.0 §4.3.3 requires one); "
                    f"read as {codec.upper()}",
                    self._name,
                    1,
                )
            return
        declared = _DECLARED_ENCODING.match(head)
        name = declared.group(1).decode("ascii") if declared is not None else "UTF-8"
        encoding = webencodings.lookup(name)
        if encoding is None or encoding.name == "replacement":
            self._reporter.warning(
                "unknown-encoding", f"encoding {name!r} is not a document encoding; read as UTF-8", self._name, 1
            )
            codec = "utf-8"
        else:  # the codec of the very name declared when Python has one (Shift_JIS is not cp932), else WHATWG's
            codec_info = _python_codec(name) or encoding.codec_info
            codec = codec_info.name
        if codec.startswith(("utf-16", "utf-32")):  # the bytes are ASCII-compatible (guess_encoding said so)
            self._reporter.warning(
                "unknown-encoding", f"the document declares {name} but is not in it; read as UTF-8", self._name, 1
            )
            codec = "utf-8"
        if codec == "utf-8":
            self._declaration_pending = name.lower() not in _UTF8_NAMES
        else:
            self._decoder = codec_info.incrementaldecoder("feedmap-record")
            self._codec_name = name

    def _rewrite_declaration(self, data: bytes) -> bytes:
        """The first bytes passed on, with the declaration naming UTF-8, the encoding they are now in."""
        self._declaration_pending = False
        return _DECLARATION_ENCODING.sub(rb'\1"UTF-8"', data, count=1)

    def _transcode(self, raw: bytes) -> bytes:
        assert self._decoder is not None
        text, errors = _decode(raw, self._decoder, not raw)
        if errors:
            self._report_undecodable(raw, errors)
        return text.encode("utf-8")

    def _report_undecodable(self, raw: bytes, errors: list[tuple[int, bytes]]) -> None:
        if self._wide:  # UTF-16/32: lines are not counted in the raw bytes; one summary per chunk
            if self._wants("encoding-error"):
                message = f"{len(errors):,} byte sequence(s) could not be decoded; replaced by U+FFFD"
                self._report("encoding-error", message, 0)
            return
        lines = _Lines(raw, self._line + self._carry.count(b"\n"))  # raw comes right after the carry
        for offset, bad in errors:
            if self._wants("encoding-error"):
                self._report(
                    "encoding-error",
                    f"bytes {bad.hex(' ')} are not {self._codec_name} and were replaced by U+FFFD",
                    lines.at(max(offset, 0)),
                )

    def _check_utf8(self, raw: bytes) -> bytes:
        """``raw`` (after what came before) with every byte sequence that is not UTF-8 replaced by U+FFFD."""
        data = self._raw_tail + raw
        if raw:
            end = _utf8_complete(data)
            data, self._raw_tail = data[:end], data[end:]
        else:
            self._raw_tail = b""
        if data.isascii():  # most sitemaps: no need to decode
            return data
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            data = self._repair_utf8(data)
        return data

    def _repair_utf8(self, data: bytes) -> bytes:
        text = data.decode("utf-8", "replace")
        total = text.count("\ufffd") - data.count("\ufffd".encode())  # U+FFFD written as such is no repair
        lines = _Lines(data, self._line + self._carry.count(b"\n"))  # data comes right after the carry
        shown = 0
        pos = 0
        view = memoryview(data)
        room = min(max(REPORT_CAP - self._reported["invalid-utf8"], 0), total)
        while shown < room:
            try:
                codecs.utf_8_decode(view[pos:], "strict", True)
            except UnicodeDecodeError as exc:  # each decode goes on from the last error: linear in all
                start, pos = pos + exc.start, pos + exc.end
                shown += 1
                self._report(
                    "invalid-utf8",
                    f"bytes {data[start:pos].hex(' ')} are not UTF-8 and were replaced by U+FFFD",
                    lines.at(start),
                )
            else:
                break
        if total > shown:
            self._unreported["invalid-utf8"] += total - shown
        return text.encode("utf-8")

    def _replace_noncharacters(self, data: bytes) -> bytes:
        """``data`` (UTF-8, complete characters) with U+FFFE and U+FFFF replaced by U+FFFD, each reported."""
        lines = _Lines(data, self._line + self._carry.count(b"\n"))  # data comes right after the carry

        def replace(match: re.Match[bytes]) -> bytes:
            if self._wants("invalid-character"):
                character = match.group().decode("utf-8")
                self._report(
                    "invalid-character",
                    f"character U+{ord(character):04X} is not allowed in XML and was replaced by U+FFFD",
                    lines.at(match.start()),
                )
            return _REPLACEMENT

        return _NONCHARACTER.sub(replace, data)

    def _next(self, size: int) -> bytes:
        """The next bytes of the input, in UTF-8 (transcoded or checked)."""
        while True:
            raw = self._inner.read(size)
            data = self._transcode(raw) if self._decoder is not None else self._check_utf8(raw)
            if _has_noncharacter(data):
                data = self._replace_noncharacters(data)
            if data and self._declaration_pending:
                data = self._rewrite_declaration(data)
            if data or not raw:
                return data

    # ------------------------------------------------------------------------------- cleaning

    def read(self, size: int = -1) -> bytes:
        if not self._started:
            self._start()
        want = size if size > 0 else 1 << 16
        while True:
            while not self._eof and len(self._carry) < want + _KEEP:
                # no more than asked for: sniffing reads ahead through here, and --max-bytes counts what is read
                chunk = self._next(want + _KEEP - len(self._carry))
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
            if out or (self._eof and not self._carry):
                return out
            if self._eof:  # nothing more will come: what is left is passed on as it is
                out, self._carry = self._carry, b""
                return out
            want = len(self._carry) + (1 << 16)  # a construct longer than the buffer (a DOCTYPE): read on

    def _clean(self, buf: bytes, limit: int) -> tuple[bytes, int]:
        """Clean ``buf[:limit]`` (looking ahead past it as needed); returns (output, bytes consumed)."""
        parts: list[bytes] = []
        pos = 0
        lines = _Lines(buf, self._line)
        if limit < len(buf):  # never cut a reference in two: stop before an '&' without its ';'
            amp = buf.rfind(b"&", max(limit - _KEEP + 4, 0), limit)
            if amp >= 0 and buf.find(b";", amp, limit) < 0:
                limit = amp
        while pos < limit:
            if self._in_cdata:
                end = buf.find(_CDATA_CLOSE, pos)
                stop = limit if end < 0 else end + len(_CDATA_CLOSE)
                parts.append(self._strip_controls(buf[pos:stop], lines.at(pos)))
                pos = stop
                self._in_cdata = end < 0
                continue
            start = buf.find(_CDATA_OPEN, pos)
            stop = limit if start < 0 or start >= limit else start
            if not self._doctype_done:
                doctype = buf.find(_DOCTYPE, pos, stop + len(_DOCTYPE) - 1)
                if doctype < 0 or doctype >= stop:
                    self._doctype_done = self._root_begins(buf, pos, stop)
                else:
                    parts.append(self._fix_segment(buf, pos, doctype, lines.at(pos)))
                    end = self._doctype(buf, doctype, lines.at(doctype))
                    if end < 0:  # the DOCTYPE goes on past the buffer: wait for more
                        return b"".join(parts), doctype
                    parts.append(self._neutral_doctype(buf[doctype:end]))
                    pos = end
                    continue
            parts.append(self._fix_segment(buf, pos, stop, lines.at(pos)))
            pos = stop
            if start >= 0 and start < limit:
                parts.append(_CDATA_OPEN)
                pos = start + len(_CDATA_OPEN)
                self._in_cdata = True
        return b"".join(parts), pos

    @staticmethod
    def _root_begins(buf: bytes, start: int, stop: int) -> bool:
        """Whether a start tag (so the root: no DOCTYPE can follow) stands in ``buf[start:stop]``, outside a
        comment as far as a quick look can tell."""
        tag = _START_TAG.search(buf, start, stop)
        return tag is not None and buf.find(b"<!--", start, tag.start()) < 0

    def _doctype(self, buf: bytes, start: int, line: int) -> int:
        """The end of the DOCTYPE at ``start`` (-1 when it is not all in ``buf``); notes the entities it declares."""
        close = buf.find(b">", start)
        bracket = buf.find(b"[", start, close if close >= 0 else len(buf))
        if bracket >= 0:
            match = _SUBSET_END.search(buf, bracket)
            close = match.end() - 1 if match is not None else -1
        if close < 0:
            if not self._eof:
                return -1
            close = len(buf) - 1
        end = close + 1
        self._doctype_done = True
        names = frozenset(match.group(1) for match in _ENTITY_DECL.finditer(buf, start, end))
        self._entities = names
        if names:
            listed = ", ".join(sorted(f"&{name.decode()};" for name in names)[:5])
            self._reporter.warning(
                "doctype-ignored",
                f"the DOCTYPE is ignored (DTDs are never read): the {len(names)} entities it declares ({listed}"
                f"{', ...' if len(names) > 5 else ''}) are not expanded",
                self._name,
                line,
            )
        else:
            self._reporter.info("doctype-ignored", "the DOCTYPE is ignored (DTDs are never read)", self._name, line)
        return end

    def _neutral_doctype(self, doctype: bytes) -> bytes:
        """The DOCTYPE as lxml gets it: the root name and each general entity declared empty (so that the
        references stay entity nodes, which cannot amplify), no external identifiers, the same lines."""
        name = _DOCTYPE_NAME.match(doctype)
        if name is None:
            return doctype
        declarations = b"".join(b'<!ENTITY %s "">' % entity for entity in sorted(self._entities))
        subset = b" [" + declarations + b"]" if declarations else b""
        return b"<!DOCTYPE " + name.group(1) + subset + b">" + b"\n" * doctype.count(b"\n")

    def _fix_segment(self, buf: bytes, start: int, stop: int, line: int) -> bytes:
        segment = buf[start:stop]
        stripped = _has_control(segment)
        if stripped:
            segment = self._strip_controls(segment, line)
        if b"&" not in segment:
            return segment
        # a reference may end past the segment: look 16 bytes further (in buf itself when nothing was removed)
        if stripped or _BARE_AMP.search(buf, start, min(len(buf), stop + 16)) is not None:
            segment = self._fix_ampersands(segment, segment + buf[stop : stop + 16], line)
        if b"#" in segment and b"&#" in segment:  # "#" first: one byte is found much faster than two
            segment = self._fix_char_refs(segment, line)
        return segment

    def _fix_ampersands(self, segment: bytes, lookahead: bytes, line: int) -> bytes:
        pieces: list[bytes] = []
        last = 0
        lines = _Lines(segment, line)
        in_tag, since = False, 0
        for match in _BARE_AMP.finditer(lookahead, 0, len(segment) + 16):
            where = match.start()
            if where >= len(segment):
                break
            if self._entities:
                ref = _ENTITY_REF.match(lookahead, where)
                if ref is not None and ref.group(1) in self._entities:
                    in_tag, since = _inside_tag(segment, since, where, in_tag), where
                    replace = in_tag and ref.end() <= len(segment)
                    if self._wants("unresolved-entity"):
                        done = "replaced by U+FFFD (percent-escaped)" if replace else "not expanded"
                        self._report(
                            "unresolved-entity",
                            f"&{ref.group(1).decode()}; is declared in the DOCTYPE, which is ignored: {done}",
                            lines.at(where),
                        )
                    if replace:  # an attribute value: lxml would expand it to nothing, silently
                        pieces += [segment[last:where], _URI_REPLACEMENT]
                        last = ref.end()
                    continue  # in text it stays: lxml keeps it as an entity reference node
            if self._reported["bare-ampersand"] >= REPORT_CAP and not self._entities:
                fixed, count = _escape_bare(lookahead[where:], len(segment) - where)
                self._unreported["bare-ampersand"] += count
                pieces += [segment[last:where], fixed]
                last = len(segment)
                break
            pieces.append(segment[last:where])
            pieces.append(b"&amp;")
            last = where + 1
            if self._wants("bare-ampersand"):
                context = segment[where : where + 24].split(b"<", 1)[0]
                self._report(
                    "bare-ampersand",
                    f"unescaped '&' kept as a literal '&' (near {context.decode('utf-8', 'replace')!r}); "
                    "write it as '&amp;'",
                    lines.at(where),
                )
        pieces.append(segment[last:])
        return b"".join(pieces)

    def _fix_char_refs(self, segment: bytes, line: int) -> bytes:
        """Replace character references to characters XML 1.0 §2.2 forbids (``&#xD800;``, ``&#1;``) by U+FFFD,
        percent-escaped inside a tag: removing them could leave an empty namespace name, and a namespace
        name must be a URI, both of which lxml refuses."""
        pieces: list[bytes] = []
        last = 0
        lines = _Lines(segment, line)
        in_tag, since = False, 0
        for match in _CHAR_REF.finditer(segment):
            decimal, hexadecimal = match.groups()
            code = int(decimal) if decimal is not None else int(hexadecimal, 16)
            if _allowed_char(code):
                continue
            where = match.start()
            in_tag, since = _inside_tag(segment, since, where, in_tag), where
            pieces += [segment[last:where], _URI_REPLACEMENT if in_tag else b"&#xFFFD;"]
            last = match.end()
            if self._wants("invalid-char-ref"):
                self._report(
                    "invalid-char-ref",
                    f"character reference {match.group().decode()} stands for a character XML does not allow; "
                    "replaced by U+FFFD (percent-escaped in an attribute, where it may be a URI)",
                    lines.at(match.start()),
                )
        if not pieces:
            return segment
        pieces.append(segment[last:])
        return b"".join(pieces)

    def _strip_controls(self, segment: bytes, line: int) -> bytes:
        if not _has_control(segment):
            return segment
        stripped = segment.translate(None, _CONTROL_BYTES)
        room = max(REPORT_CAP - self._reported["control-character"], 0)
        if room:
            lines = _Lines(segment, line)
            for match in itertools.islice(_CONTROL.finditer(segment), room):
                self._report(
                    "control-character",
                    f"control character {match.group()!r} is not allowed in XML and was removed",
                    lines.at(match.start()),
                )
        self._unreported["control-character"] += max(len(segment) - len(stripped) - room, 0)
        if not self._unreported["control-character"]:
            del self._unreported["control-character"]
        return stripped


@dataclass(frozen=True, slots=True)
class RootInfo:
    """The first element of an XML document and the namespaces declared up to it."""

    namespace: str
    local: str
    namespaces: frozenset[str]
    line: int


def peek_root(stream: PeekableStream, size: int | None = None) -> RootInfo | None:
    """Find the root element, or None when the input holds no XML start tag.

    The input is read ahead (cleaned as :class:`CleaningStream` will clean it, never consumed) until the
    root's start tag, however long the prolog before it (comments, a DOCTYPE): up to ``size`` bytes, or
    with None as far as the stream's own size cap (``--max-bytes``) allows.
    """
    reader = _Peeking(stream)
    cleaner = CleaningStream(reader, reporter=Reporter(), name="")
    namespaces: set[str] = set()
    parser = etree.XMLPullParser(
        events=("start-ns", "start"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        recover=True,
    )
    try:
        while size is None or reader.pos < size:
            chunk = cleaner.read(max(reader.pos, 1 << 16))  # at least doubles what was read
            if not chunk:
                return None
            parser.feed(chunk)
            for event, value in parser.read_events():
                if event == "start-ns" and isinstance(value, tuple):
                    namespaces.add(str(value[1]))
                elif isinstance(value, etree._Element) and isinstance(value.tag, str):
                    tag = value.tag
                    line = (line_of(value) or 1) + cleaner.line_offset
                    return RootInfo(namespace_of(tag), local_name(tag), frozenset(namespaces), line)
    except (etree.XMLSyntaxError, UnicodeDecodeError):
        return None
    return None


def peek_cleaned(stream: PeekableStream, size: int) -> bytes:
    """About the first ``size`` bytes of the input as :class:`CleaningStream` passes them on (not consumed)."""
    cleaner = CleaningStream(_Peeking(stream), reporter=Reporter(), name="")
    parts: list[bytes] = []
    total = 0
    while total < size and (chunk := cleaner.read(1 << 16)):
        parts.append(chunk)
        total += len(chunk)
    return b"".join(parts)


def has_entity(element: etree._Element) -> bool:
    """True when the element's text holds a reference to an entity the (ignored) DOCTYPE declares."""
    return len(element) > 0 and any(isinstance(child, etree._Entity) for child in element)


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
    breaks off (truncated, or malformed beyond repair) yields what came before and reports a warning
    (``malformed-xml``); the wanted element it broke off in is yielded too, with the children that were
    complete (``truncated-entry``), as usp, scrapy and crawler-commons keep such an entry.
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

    previous: etree._Element | None = None
    try:
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
    except (etree.XMLSyntaxError, UnicodeDecodeError) as exc:
        cleaner.finish()
        broke = _report_break(exc, context.error_log, reporter, name, cleaner.line_offset)
        if broke is None:  # only namespace errors: lxml read to the end, every element was yielded
            return
        line, message = broke
        partial = _partial(previous, wanted, message)
        if partial is not None:
            reporter.warning(
                "truncated-entry",
                f"the <{local_name(partial.tag)}> cut off by the break is kept with the fields that were complete",
                name,
                line_of(partial) + cleaner.line_offset or line,
            )
            yield partial, cleaner.line_offset
    finally:
        cleaner.finish()


def _report_break(
    exc: Exception, log: etree._ListErrorLog, reporter: Reporter, name: str, offset: int
) -> tuple[int, str] | None:
    """Report where the XML breaks off; returns its line and lxml's message, or None when it did not break.

    An undeclared prefix is a namespace error, not a fatal one: lxml reads on and raises at the end with that
    first error as its message, so this parse's log (``log``: the exception's own log also holds earlier
    parses' errors) is searched for the fatal error (the break) and the namespace error is reported as what
    it is.
    """
    if not isinstance(exc, etree.XMLSyntaxError):
        return _break_at(reporter, name, 0, f"text that cannot be decoded: {exc}")
    fatal = namespace = None
    for entry in log:
        if entry.level == etree.ErrorLevels.FATAL and fatal is None:
            fatal = entry
        elif entry.domain == etree.ErrorDomains.NAMESPACE and entry.level == etree.ErrorLevels.ERROR:
            namespace = namespace or entry
    if namespace is not None:
        reporter.warning(
            "malformed-xml",
            f"{namespace.message.strip()} (line {namespace.line}, column {namespace.column}); read on, "
            "the element taken as one without a namespace",
            name,
            namespace.line + offset,
        )
        if fatal is None:
            return None
    if fatal is not None:
        message = f"{fatal.message.strip()}, line {fatal.line}, column {fatal.column}"
        return _break_at(reporter, name, fatal.line + offset if fatal.line else 0, message)
    line = (exc.lineno or 0) + offset if exc.lineno else 0
    return _break_at(reporter, name, line, exc.msg if hasattr(exc, "msg") and exc.msg else str(exc))


def _break_at(reporter: Reporter, name: str, line: int, message: str) -> tuple[int, str]:
    reporter.warning(
        "malformed-xml",
        f"the XML breaks off here ({message}); the entries before it are kept",
        name,
        line,
    )
    return line, message


_PREMATURE_END = re.compile(r"Premature end of data in tag (\S+) line")


def _partial(previous: etree._Element | None, wanted: frozenset[str], message: str) -> etree._Element | None:
    """The wanted element the XML broke off in, without its last child when that may be cut too; None if none.

    The children before the last one are complete (another began after each).  The last one is complete
    when text after it was read, or when the parser says the data ended inside the wanted element itself.
    """
    parent = previous.getparent() if previous is not None else None
    if parent is None or not len(parent) or parent[-1] is previous:
        return None
    partial = parent[-1]
    if not isinstance(partial.tag, str) or partial.tag not in wanted or not len(partial):
        return None
    ended = _PREMATURE_END.search(message)
    qualified = f"{partial.prefix}:{local_name(partial.tag)}" if partial.prefix else local_name(partial.tag)
    last = partial[-1]
    if (ended is None or ended.group(1) != qualified) and last.tail is None:
        partial.remove(last)
    return partial if len(partial) else None


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
