"""Repairing what real sitemaps get wrong before lxml parses them, each repair reported with its line.

Safety (OWASP XXE cheat sheet, lxml FAQ "how do I protect against XML attacks"): a DOCTYPE reaches lxml
reduced to its root name and its general entities declared empty, so a reference to one stays an entity
node (reported, never taken as part of a value) and nothing can amplify.  Leniency: lxml's own
``recover=True`` silently drops or mangles data (a bare ``&`` in a URL loses the query string), so instead,
outside CDATA (XML 1.0, https://www.w3.org/TR/xml/):

* a bare ``&`` (or a reference to an entity that XML does not predefine) is escaped to ``&amp;`` so the
  URL keeps its ``&`` (§4.1);
* C0 control characters that §2.2 forbids are removed, and character references to them or to
  surrogates (``&#xD800;``) replaced by U+FFFD;
* a run of blank space (§2.3 ``S``) longer than :data:`MAX_BLANK_RUN` is cut to that length (its line breaks
  kept while they fit): libxml2 stops at one text of :data:`PARSER_TEXT_MAX` characters (its memory guard),
  so 400 MB of spaces between two ``<url>`` lost every entry after them.  A run past the parser's limit is
  reported as ``xml-limit`` (an error: the document is past what parsers read, and ``validate`` says so too);
  a shorter run is passed on whole but for its blanks past :data:`MAX_BLANK_RUN`, which hold no value.

Decoding to UTF-8 comes first (:mod:`feedmap._xml._decoding`); repairs are reported one by one up to
:data:`~feedmap._xml._repairs.REPORT_CAP` per kind, then counted.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from feedmap._core.errors import Reporter
from feedmap._core.wording import counted
from feedmap._xml._decoding import Utf8Input, _Inner
from feedmap._xml._repairs import REPORT_CAP, Lines, Repairs

__all__ = ["MAX_BLANK_RUN", "PARSER_TEXT_MAX", "TEXT_LIMIT", "ByteChecks", "CleaningStream"]

#: Compiled checks a reader may hand the stream (the sitemap reader's, ``formats/sitemap/_walk_c.pyx``):
#: ``quiet_span(data, start, stop)``, the number of line feeds in ``data[start:stop]`` when the passes below
#: would pass it on as it is and report nothing there (else -1), and ``plain_utf8(data)``, True only for
#: UTF-8 that :class:`~feedmap._xml._decoding.Utf8Input`'s strict decode and noncharacter search would pass.
#: Without them every chunk takes the Python passes, which give the same bytes and reports.
ByteChecks = tuple[Callable[[bytes, int, int], int], Callable[[bytes], bool]]

#: What libxml2's limit on one text is, in feedmap's words (``parser_limit`` gives the others).
TEXT_LIMIT = "the XML parser's limit on one text, 10,000,000 characters (a guard on memory)"
#: libxml2's limit on one text node without XML_PARSE_HUGE (its XML_MAX_TEXT_LENGTH).
PARSER_TEXT_MAX = 10_000_000
#: The longest run of blank space passed on: below the parser's limit, with room for the text around it; the
#: rest of a longer run is left out (``xml-limit`` when the run is past :data:`PARSER_TEXT_MAX`).
MAX_BLANK_RUN = 9_000_000
_BLANKS = b" \t\r\n"
_KEEP = 64  # bytes held back at a chunk's end so that markers and references are never split
_BARE_AMP = re.compile(rb"&(?!(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});)")
_ENTITY_REF = re.compile(rb"&([A-Za-z_:][A-Za-z0-9_.:-]*);")
_CHAR_REF = re.compile(rb"&#(?:([0-9]{1,7})|x([0-9A-Fa-f]{1,6}));")
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])  # the bytes _CONTROL matches


def _has_control(data: bytes) -> bool:
    """True when ``data`` holds a byte that _CONTROL matches (bytes.translate: faster than the regex, see
    benchmarks/README.md, ``bench_micro.py`` ``control``)."""
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


def _whole_references(buf: bytes, limit: int) -> int:
    """``limit``, or before it when it would cut a reference in two: the position of an ``&`` without its ``;``
    in the last bytes before it (the rest waits for the next chunk)."""
    if limit < len(buf):
        amp = buf.rfind(b"&", max(limit - _KEEP + 4, 0), limit)
        if amp >= 0 and buf.find(b";", amp, limit) < 0:
            return amp
    return limit


class CleaningStream:
    """A file-like wrapper that repairs bytes lxml cannot parse, reporting each repair with its line.

    Passes UTF-8 on: input in UTF-8 is checked (bytes that are not UTF-8 become U+FFFD, each reported with
    its line), input in another encoding (UTF-16/32, or declared) is transcoded and its declaration
    rewritten.  A DOCTYPE is passed on reduced to its root name and its general entities declared empty;
    a reference to one of them is reported as not expanded.  Repairs are reported one by one up to
    :data:`REPORT_CAP` per kind, then counted (see :meth:`finish`).
    """

    def __init__(self, inner: _Inner, *, reporter: Reporter, name: str, checks: ByteChecks | None = None) -> None:
        self._repairs = Repairs(reporter, name)
        self._reporter = reporter
        self._name = name
        self._quiet_span = None if checks is None else checks[0]
        self._input = Utf8Input(inner, self._repairs, self._input_line, None if checks is None else checks[1])
        self._carry = b""
        self._eof = False
        self._in_cdata = False
        self._line = 1  # line number of the first byte of self._carry
        self._started = False
        self._doctype_done = False
        self._entities: frozenset[bytes] = frozenset()
        #: Lines removed before the XML declaration; add to lxml's sourceline for the input's line.
        self.line_offset = 0
        self._blank_run = 0  # length of the run of blank space the output ends with
        self._whole_run = 0  # and of that run as read, the blanks left out counted
        self._blank_run_reported = False

    def finish(self) -> None:
        """Report how many repairs of each kind went unreported one by one (once, at the end: ``more-repairs``)."""
        self._repairs.finish()

    def _input_line(self) -> int:
        """The line the next bytes read from the input begin on (they come right after the carry)."""
        return self._line + self._carry.count(b"\n")

    def _start(self) -> None:
        self._started = True
        removed, kept = self._input.start()
        self.line_offset = removed
        self._line += removed
        if kept:
            self._carry = kept

    # ------------------------------------------------------------------------------- cleaning

    def read(self, size: int = -1) -> bytes:
        """Cleaned bytes, a run of blank space past :data:`MAX_BLANK_RUN` cut (see the module's docstring)."""
        while True:
            out = self._read_cleaned(size)
            if out.strip(_BLANKS):  # the usual chunk: not all blank
                self._blank_run = self._whole_run = len(out) - len(out.rstrip(_BLANKS))
                return out
            self._whole_run += len(out)
            if not out or self._blank_run + len(out) <= MAX_BLANK_RUN:
                self._blank_run += len(out)
                return out
            if self._whole_run > PARSER_TEXT_MAX:
                self._report_blank_run()
            kept = max(MAX_BLANK_RUN - self._blank_run, 0)
            breaks = b"\n" * min(out.count(b"\n"), kept)  # the lines lxml counts stay as they were, if they fit
            self._blank_run += len(breaks)
            if breaks:
                return breaks

    def _report_blank_run(self) -> None:
        if self._blank_run_reported:
            return
        self._blank_run_reported = True
        self._reporter.error(
            "xml-limit",
            f"more than {PARSER_TEXT_MAX:,} characters of blank space in one run: a text past {TEXT_LIMIT} stops "
            f"the parser; the blanks past the first {MAX_BLANK_RUN:,} are left out and reading goes on",
            self._name,
            self._line,
        )

    def _read_cleaned(self, size: int) -> bytes:
        if not self._started:
            self._start()
        want = size if size > 0 else 1 << 16
        while True:
            while not self._eof and len(self._carry) < want + _KEEP:
                # no more than asked for: sniffing reads ahead through here, and --max-bytes counts what is read
                chunk = self._input.read(want + _KEEP - len(self._carry))
                if not chunk:
                    self._eof = True
                    break
                self._carry += chunk
            if not self._carry:
                return b""
            buf = self._carry
            limit = _whole_references(buf, len(buf) if self._eof else max(len(buf) - _KEEP, 0))
            lines = -1
            if self._quiet_span is not None and self._doctype_done and not self._in_cdata:
                lines = self._quiet_span(buf, 0, limit)
            if lines >= 0:  # nothing to repair: the chunk as it is (what _clean gives it)
                out, consumed = buf[:limit], limit
                self._line += lines
            else:
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
        """Clean ``buf[:limit]`` (looking ahead past it as needed; ``limit`` cuts no reference, see
        :func:`_whole_references`); returns (output, bytes consumed)."""
        parts: list[bytes] = []
        pos = 0
        lines = Lines(buf, self._line)
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
                f"the DOCTYPE is ignored (DTDs are never read): the {counted(len(names), 'entity', 'entities')} it "
                f"declares ({listed}"
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
        lines = Lines(segment, line)
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
                    if self._repairs.wants("unresolved-entity"):
                        done = "replaced by U+FFFD (percent-escaped)" if replace else "not expanded"
                        self._repairs.report(
                            "unresolved-entity",
                            f"&{ref.group(1).decode()}; is declared in the DOCTYPE, which is ignored: {done}",
                            lines.at(where),
                        )
                    if replace:  # an attribute value: lxml would expand it to nothing, silently
                        pieces += [segment[last:where], _URI_REPLACEMENT]
                        last = ref.end()
                    continue  # in text it stays: lxml keeps it as an entity reference node
            if self._repairs.reported["bare-ampersand"] >= REPORT_CAP and not self._entities:
                fixed, count = _escape_bare(lookahead[where:], len(segment) - where)
                self._repairs.unreported["bare-ampersand"] += count
                pieces += [segment[last:where], fixed]
                last = len(segment)
                break
            pieces.append(segment[last:where])
            pieces.append(b"&amp;")
            last = where + 1
            if self._repairs.wants("bare-ampersand"):
                context = segment[where : where + 24].split(b"<", 1)[0]
                self._repairs.report(
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
        lines = Lines(segment, line)
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
            if self._repairs.wants("invalid-char-ref"):
                self._repairs.report(
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
        room = max(REPORT_CAP - self._repairs.reported["control-character"], 0)
        if room:
            lines = Lines(segment, line)
            for match in itertools.islice(_CONTROL.finditer(segment), room):
                self._repairs.report(
                    "control-character",
                    f"control character {match.group()!r} is not allowed in XML and was removed",
                    lines.at(match.start()),
                )
        self._repairs.unreported["control-character"] += max(len(segment) - len(stripped) - room, 0)
        if not self._repairs.unreported["control-character"]:
            del self._repairs.unreported["control-character"]
        return stripped
