"""Looking at the head of an XML input without consuming it: its root element and declared namespaces.

The head is cleaned as :class:`~feedmap._xml._cleaning.CleaningStream` will clean it and fed to lxml's
pull parser (no DTD, no entities, no network) up to the root's start tag (XML 1.0 §2.8 prolog, however
long: comments, a DOCTYPE; Namespaces in XML 1.0 for the declarations).
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from feedmap._core.errors import Reporter
from feedmap._io.sources import PeekableStream
from feedmap._xml._cleaning import CleaningStream
from feedmap._xml._names import line_of, local_name, namespace_of

__all__ = ["RootInfo", "peek_cleaned", "peek_root"]


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
    with None as far as the stream's own size cap (``--max-bytes``) allows.  The answer is kept on the
    stream until it is read from, so looking again (the reader after detection) parses nothing.
    """
    key = ("root", size)
    if key in stream.memo:
        return stream.memo[key]  # type: ignore[return-value]
    root = _parse_root(stream, size)
    stream.memo[key] = root
    return root


def _parse_root(stream: PeekableStream, size: int | None) -> RootInfo | None:
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
