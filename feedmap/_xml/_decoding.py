"""Decoding an XML input into UTF-8 for lxml: encodings, byte-order marks, bytes that are not text.

XML 1.0 (https://www.w3.org/TR/xml/) §4.3.3 and Appendix F: UTF-16/32 are recognised by their byte-order
mark or, without one, by the first characters; any other declared encoding is transcoded and the
declaration rewritten to name UTF-8.  A declared name is accepted only when it is a label of the WHATWG
Encoding Standard (https://encoding.spec.whatwg.org/, ``webencodings``), never by Python's codecs at large
(``idna``, ``utf-7``, ``unicode_escape`` are codecs, not document encodings).  Bytes that are not in the
document's encoding, and U+FFFE / U+FFFF (§2.2), become U+FFFD, each repair reported with its line.
Blanks before ``<?xml`` (§2.8 requires the declaration first) are removed.
"""

from __future__ import annotations

import codecs
import re
import threading
from collections.abc import Callable
from typing import Protocol

import webencodings

from feedmap._xml._repairs import REPORT_CAP, Lines, Repairs

__all__ = ["Utf8Input", "guess_encoding", "unusable_declaration"]

#: U+FFFE and U+FFFF in UTF-8: valid UTF-8, but no XML characters (XML 1.0 §2.2); lxml stops at them.
_NONCHARACTER = re.compile(rb"\xef\xbf[\xbe\xbf]")
_REPLACEMENT = "\ufffd".encode()


def _has_noncharacter(data: bytes) -> bool:
    """Whether ``data`` (UTF-8) holds U+FFFE or U+FFFF.  Their lead byte 0xEF is looked for first: a one-byte
    search is a memchr, much faster than a three-byte one (benchmarks/README.md, ``bench_micro.py``
    ``noncharacter``), and most chunks hold no 0xEF at all."""
    first = data.find(b"\xef")
    return first >= 0 and (data.find(b"\xef\xbf\xbe", first) >= 0 or data.find(b"\xef\xbf\xbf", first) >= 0)


_LEADING = re.compile(rb"\A(?:\xef\xbb\xbf)?([ \t\r\n]+)(?=<\?xml[ \t\r\n?])")
_LEADING_WINDOW = 64 * 1024
_DECLARED_ENCODING = re.compile(
    rb"\A(?:\xef\xbb\xbf)?[ \t\r\n]*<\?xml[^>]*?encoding[ \t\r\n]*=[ \t\r\n]*[\"']([A-Za-z][\w.-]*)[\"']"
)
_DECLARATION_ENCODING = re.compile(rb"\A((?:\xef\xbb\xbf)?<\?xml[^>]*?encoding[ \t\r\n]*=[ \t\r\n]*)([\"'])[^\"']*\2")
_UTF8_NAMES = frozenset({"utf-8", "utf8"})

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


def unusable_declaration(head: bytes) -> str | None:
    """Why the encoding a document's first bytes declare is not the one it is read in (it is read as UTF-8,
    see :class:`Utf8Input`), or None: a name that is no WHATWG document encoding (``UTF-7``), or UTF-16/32
    declared by bytes that are ASCII-compatible.  ``validate`` reads such a document as the reader does."""
    if guess_encoding(head) is not None:
        return None
    declared = _DECLARED_ENCODING.match(head)
    if declared is None:
        return None
    name = declared.group(1).decode("ascii")
    encoding = webencodings.lookup(name)
    if encoding is None or encoding.name == "replacement":
        return f"encoding {name!r} is not a document encoding; read as UTF-8"
    if (_python_codec(name) or encoding.codec_info).name.startswith(("utf-16", "utf-32")):
        return f"the document declares {name} but is not in it; read as UTF-8"
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


class _Inner(Protocol):
    def peek(self, size: int) -> bytes: ...

    def read(self, size: int = -1, /) -> bytes: ...


class Utf8Input:
    """The input's bytes as UTF-8 (checked, or transcoded), each repair reported through ``repairs``.

    ``line_at`` says the line the next bytes read begin on (the reader's position, for diagnostics).
    """

    def __init__(
        self,
        inner: _Inner,
        repairs: Repairs,
        line_at: Callable[[], int],
        plain_utf8: Callable[[bytes], bool] | None = None,
    ) -> None:
        self._inner = inner
        #: A compiled check (see :class:`~feedmap._xml._cleaning.CleaningStream`'s ``checks``): True only for
        #: UTF-8 the strict decode and the noncharacter search would pass as it is; None: always those passes.
        self._plain_utf8 = plain_utf8
        self._repairs = repairs
        self._line_at = line_at
        self._decoder: codecs.IncrementalDecoder | None = None
        self._wide = False  # UTF-16/32
        self._codec_name = ""
        self._declaration_pending = True  # the declaration names an encoding the bytes passed on are not in
        self._raw_tail = b""  # bytes of a UTF-8 sequence that may continue in the next chunk

    def start(self) -> tuple[int, bytes]:
        """Choose the decoding and remove blanks before the declaration; returns the number of lines removed
        and the bytes to pass on first (a byte-order mark that stood before the blanks)."""
        window = _LEADING_WINDOW
        head = self._inner.peek(window)
        while len(head) == window and not head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n"):
            window *= 2  # nothing but blanks so far: look further for the declaration
            head = self._inner.peek(window)
        self._choose_decoding(head)
        if self._decoder is not None and self._wide:
            return 0, b""
        match = _LEADING.match(head)
        if match is None:
            return 0, b""
        blanks = match.group(1)
        start = match.start(1)
        self._inner.read(match.end(1))
        self._repairs.warning(
            "leading-whitespace",
            "blank space before the XML declaration was removed (the declaration must come first)",
            1,
        )
        return blanks.count(b"\n"), head[:start]  # a BOM stood before the blanks: kept, allowed before <?xml

    def _choose_decoding(self, head: bytes) -> None:
        """How the input becomes UTF-8: checked as it is, or transcoded (UTF-16/32, a declared other encoding)."""
        guessed = guess_encoding(head)
        if guessed is not None:
            codec, has_bom = guessed
            self._decoder = codecs.getincrementaldecoder(codec)("feedmap-record")
            self._wide = True
            if not has_bom:
                self._repairs.warning(
                    "missing-bom",
                    f"the document is in {codec.upper()} without a byte-order mark (XML 1.0 §4.3.3 requires one); "
                    f"read as {codec.upper()}",
                    1,
                )
            return
        declared = _DECLARED_ENCODING.match(head)
        name = declared.group(1).decode("ascii") if declared is not None else "UTF-8"
        problem = unusable_declaration(head)
        if problem is not None:  # read as UTF-8, the declaration rewritten to say so
            self._repairs.warning("unknown-encoding", problem, 1)
            self._declaration_pending = True
            return
        encoding = webencodings.lookup(name)
        assert encoding is not None  # unusable_declaration said it is one
        # the codec of the very name declared when Python has one (Shift_JIS is not cp932), else WHATWG's
        codec_info = _python_codec(name) or encoding.codec_info
        if codec_info.name == "utf-8":
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
            if self._repairs.wants("encoding-error"):
                message = f"{len(errors):,} byte sequence(s) could not be decoded; replaced by U+FFFD"
                self._repairs.report("encoding-error", message, 0)
            return
        lines = Lines(raw, self._line_at())  # raw comes right after the carry
        for offset, bad in errors:
            if self._repairs.wants("encoding-error"):
                self._repairs.report(
                    "encoding-error",
                    f"bytes {bad.hex(' ')} are not {self._codec_name} and were replaced by U+FFFD",
                    lines.at(max(offset, 0)),
                )

    def _check_utf8(self, raw: bytes) -> tuple[bytes, bool]:
        """``raw`` (after what came before) with every byte sequence that is not UTF-8 replaced by U+FFFD, and
        whether it is known to hold no U+FFFE / U+FFFF (ASCII, or the compiled check said so)."""
        data = self._raw_tail + raw
        if raw:
            end = _utf8_complete(data)
            data, self._raw_tail = data[:end], data[end:]
        else:
            self._raw_tail = b""
        if data.isascii():  # most sitemaps: no need to decode
            return data, True
        if self._plain_utf8 is not None and self._plain_utf8(data):
            return data, True
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            data = self._repair_utf8(data)
        return data, False

    def _repair_utf8(self, data: bytes) -> bytes:
        text = data.decode("utf-8", "replace")
        total = text.count("\ufffd") - data.count("\ufffd".encode())  # U+FFFD written as such is no repair
        lines = Lines(data, self._line_at())  # data comes right after the carry
        shown = 0
        pos = 0
        view = memoryview(data)
        room = min(max(REPORT_CAP - self._repairs.reported["invalid-utf8"], 0), total)
        while shown < room:
            try:
                codecs.utf_8_decode(view[pos:], "strict", True)
            except UnicodeDecodeError as exc:  # each decode goes on from the last error: linear in all
                start, pos = pos + exc.start, pos + exc.end
                shown += 1
                self._repairs.report(
                    "invalid-utf8",
                    f"bytes {data[start:pos].hex(' ')} are not UTF-8 and were replaced by U+FFFD",
                    lines.at(start),
                )
            else:
                break
        if total > shown:
            self._repairs.unreported["invalid-utf8"] += total - shown
        return text.encode("utf-8")

    def _replace_noncharacters(self, data: bytes) -> bytes:
        """``data`` (UTF-8, complete characters) with U+FFFE and U+FFFF replaced by U+FFFD, each reported."""
        lines = Lines(data, self._line_at())  # data comes right after the carry

        def replace(match: re.Match[bytes]) -> bytes:
            if self._repairs.wants("invalid-character"):
                character = match.group().decode("utf-8")
                self._repairs.report(
                    "invalid-character",
                    f"character U+{ord(character):04X} is not allowed in XML and was replaced by U+FFFD",
                    lines.at(match.start()),
                )
            return _REPLACEMENT

        return _NONCHARACTER.sub(replace, data)

    def read(self, size: int) -> bytes:
        """The next bytes of the input, in UTF-8 (transcoded or checked)."""
        while True:
            raw = self._inner.read(size)
            if self._decoder is not None:
                data, plain = self._transcode(raw), False
            else:
                data, plain = self._check_utf8(raw)
            if not plain and _has_noncharacter(data):
                data = self._replace_noncharacters(data)
            if data and self._declaration_pending:
                data = self._rewrite_declaration(data)
            if data or not raw:
                return data
