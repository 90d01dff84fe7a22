"""Repairs of two character references XML does not allow in a feed, made on the bytes before parsing.

Spec: XML 1.0 §2.2 (a character reference must name an XML character: no UTF-16 surrogate) and §4.1 (a
named reference needs a declaration: RSS 0.91's DTD declares HTML 4's entities, which a parser that loads
no DTD does not know).  A surrogate reference becomes U+FFFD (``invalid-character``), an HTML named
reference its numeric reference (``html-entity``); CDATA sections are left alone.
"""

from __future__ import annotations

import html.entities
import re
from collections.abc import Callable

from feedmap._core.errors import Reporter
from feedmap._io.sources import Readable

__all__ = ["ReferenceRepairs", "replace_surrogate_refs"]

#: ``&#...;`` naming a UTF-16 surrogate (U+D800..U+DFFF, decimal 55296..57343): no XML character.
_SURROGATE_REF = re.compile(
    rb"&#(?:[xX]0*[dD][89a-fA-F][0-9a-fA-F]{2}|0*(?:5529[6-9]|55[3-9][0-9]{2}|56[0-9]{3}|57[0-2][0-9]{2}|573[0-3][0-9]|5734[0-3]));"
)


def replace_surrogate_refs(data: bytes, reporter: Reporter, name: str, *, skip: int = 0) -> bytes:
    """``data`` with every surrogate character reference replaced by ``&#xFFFD;``, each reported (the
    first ``skip`` ones were reported already)."""
    count = 0

    def replace(match: re.Match[bytes]) -> bytes:
        nonlocal count
        count += 1
        if count > skip:
            _report_surrogate(reporter, name, match.group(), data.count(b"\n", 0, match.start()) + 1)
        return b"&#xFFFD;"

    return _SURROGATE_REF.sub(replace, data)


def _report_surrogate(reporter: Reporter, name: str, ref: bytes, line: int) -> None:
    reporter.warning(
        "invalid-character",
        f"{ref.decode('ascii')} names a UTF-16 surrogate, which is no XML character; read as U+FFFD",
        name,
        line,
    )


#: A character reference to a surrogate (group 1: hex digits, group 2: decimal digits) or a named reference
#: other than XML's five (group 3).
_REPAIRABLE = re.compile(
    rb"&(?:#(?:[xX]0*([dD][89a-fA-F][0-9a-fA-F]{2})|0*(5[5-7][0-9]{3}))|(?!(?:amp|lt|gt|quot|apos);)([A-Za-z][A-Za-z0-9]{1,9}));"
)

#: HTML 4's named character references (the RSS 0.91 DTD declares them; feedparser reads them in any feed).
_HTML_ENTITIES = {name.encode("ascii"): code for name, code in html.entities.name2codepoint.items()}
_HOLD = 16  # bytes held back at a chunk's end: a reference or a CDATA marker is never longer
_CDATA_OPEN = b"<![CDATA["
_CDATA_CLOSE = b"]]>"


class ReferenceRepairs:
    """Reads through a feed's bytes repairing, outside CDATA sections, two references XML does not allow:

    * a character reference to a surrogate becomes ``&#xFFFD;`` (each reported: ``invalid-character``);
    * an HTML named reference (``&nbsp;``, ``&eacute;``: RSS 0.91's DTD declares HTML 4's, which a parser
      that loads no DTD does not know) becomes its numeric reference (``html-entity``, once per name).

    Other unknown references are left to :class:`~feedmap._xml.CleaningStream` (kept as written).  Sits
    before it, so lines are the input's.
    """

    def __init__(self, inner: Readable, *, reporter: Reporter, name: str) -> None:
        self._inner = inner
        self._reporter = reporter
        self._name = name
        self._carry = b""
        self._eof = False
        self._in_cdata = False
        self._line = 1
        self._named: set[bytes] = set()
        #: Surrogate references replaced so far.
        self.replaced = 0

    def read(self, size: int = -1, /) -> bytes:
        while True:
            chunk = b""
            if not self._eof:
                chunk = self._inner.read(size if size > 0 else 1 << 16)
                self._eof = not chunk
            buf = self._carry + chunk
            cut = len(buf) if self._eof else _safe_cut(buf)
            head, self._carry = buf[:cut], buf[cut:]
            if self._in_cdata or b"&" in head or _CDATA_OPEN in head:
                head = self._repair(head)
            self._line += head.count(b"\n")
            if head or self._eof:
                return head

    def _repair(self, data: bytes) -> bytes:
        parts: list[bytes] = []
        pos = counted = 0
        line = self._line  # line of data[counted], advanced as pos moves so that lines are counted once
        while pos < len(data):
            if self._in_cdata:
                end = data.find(_CDATA_CLOSE, pos)
                stop = len(data) if end < 0 else end + len(_CDATA_CLOSE)
                parts.append(data[pos:stop])
                self._in_cdata = end < 0
                pos = stop
                continue
            start = data.find(_CDATA_OPEN, pos)
            stop = len(data) if start < 0 else start
            segment = data[pos:stop]
            if b"&" in segment:
                line += data.count(b"\n", counted, pos)
                counted = pos
                segment = _REPAIRABLE.sub(self._replacer(line), segment)
            parts.append(segment)
            if start < 0:
                break
            parts.append(_CDATA_OPEN)
            pos = start + len(_CDATA_OPEN)
            self._in_cdata = True
        return b"".join(parts)

    def _replacer(self, line: int) -> Callable[[re.Match[bytes]], bytes]:
        """Replaces one match in a segment whose first byte is on ``line``."""
        last = [0, line]  # a position in the segment and its line: matches come in order, each newline counted once

        def at(match: re.Match[bytes]) -> int:
            last[1] += match.string.count(b"\n", last[0], match.start())
            last[0] = match.start()
            return last[1]

        def replace(match: re.Match[bytes]) -> bytes:
            name = match.group(3)
            if name is not None:
                code = _HTML_ENTITIES.get(name)
                if code is None:
                    return match.group()
                if name not in self._named:
                    self._named.add(name)
                    self._reporter.warning(
                        "html-entity",
                        f"&{name.decode('ascii')}; is an HTML entity XML does not define; read as {chr(code)!r}",
                        self._name,
                        at(match),
                    )
                return b"&#%d;" % code
            if match.group(2) is not None and not 55296 <= int(match.group(2)) <= 57343:
                return match.group()
            self.replaced += 1
            _report_surrogate(self._reporter, self._name, match.group(), at(match))
            return b"&#xFFFD;"

        return replace


def _safe_cut(buf: bytes) -> int:
    """Where to end the bytes handed on so that no repairable reference or CDATA marker is split: the last
    ``_HOLD`` bytes wait, and the cut moves back to the start of any such token it would cut through."""
    cut = max(len(buf) - _HOLD, 0)
    moved = True
    while moved:
        moved = False
        for pos in range(max(cut - _HOLD, 0), cut):
            if _spans(buf, pos, cut):
                cut, moved = pos, True
                break
    return cut


def _spans(buf: bytes, pos: int, cut: int) -> bool:
    """True when a token that matters to :class:`ReferenceRepairs` starts at ``pos`` and ends after ``cut``."""
    byte = buf[pos]
    if byte == 0x26:  # &
        match = _REPAIRABLE.match(buf, pos)
        return match is not None and match.end() > cut
    if byte == 0x3C:  # <
        return pos + len(_CDATA_OPEN) > cut and buf.startswith(_CDATA_OPEN, pos)
    if byte == 0x5D:  # ]
        return pos + len(_CDATA_CLOSE) > cut and buf.startswith(_CDATA_CLOSE, pos)
    return False
