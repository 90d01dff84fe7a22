"""The format registry: what each format is, how to find it by name, and how to recognise it by content.

Built-in formats are registered as lazy dotted paths (``"feedmap.formats.sitemap:FORMAT"``, as rdflib's
plugin registry does), so importing feedmap loads no format module it does not use.  Third-party formats
join through the entry-point group ``feedmap.formats``; each entry point names a :class:`FormatSpec`.

Resolution order for an input (DESIGN.md): the explicit format name, then the content (gzip magic bytes
are handled by :mod:`feedmap._sources`; here the root element and declared namespaces of XML, a JSON
object per line, or lines of URLs), then the file extension, then :class:`UnknownFormatError`.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import BinaryIO, Protocol

from feedmap._xml import RootInfo, guess_encoding, peek_root
from feedmap._context import Context
from feedmap._errors import FormatError, UnknownFormatError
from feedmap._model import Document
from feedmap._sources import PeekableStream, Source

__all__ = [
    "ENTRY_POINT_GROUP",
    "FormatSpec",
    "Reader",
    "Sniffed",
    "Writer",
    "all_formats",
    "broken_formats",
    "detect",
    "get",
    "looks_like_html",
    "register",
    "sniff",
]

ENTRY_POINT_GROUP = "feedmap.formats"


class Reader(Protocol):
    def __call__(self, source: Source, *, ctx: Context) -> Document: ...


class Writer(Protocol):
    def __call__(self, doc: Document, sink: BinaryIO, *, ctx: Context) -> int: ...


@dataclass(frozen=True, slots=True)
class Sniffed:
    """What the first bytes of an input look like."""

    kind: str  # "xml", "json", "text", "empty" or "binary"
    root: RootInfo | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class FormatSpec:
    """One format: its names, how to recognise it, and its reader and writer (either may be None)."""

    name: str
    title: str
    extensions: tuple[str, ...] = ()
    #: Root elements as (namespace, local name); namespace "*" accepts any namespace.
    roots: tuple[tuple[str, str], ...] = ()
    #: Namespaces of which at least one must be declared for the root to match (e.g. ROR in RSS).
    requires_namespaces: frozenset[str] = frozenset()
    #: Content kind for non-XML formats ("json", "text").
    content: str | None = None
    #: Higher wins when several formats match the same content.
    priority: int = 0
    reader: Reader | None = None
    writer: Writer | None = None
    #: IR fields this format holds; converting into it drops the others with an INFO diagnostic.
    fields: frozenset[str] = frozenset()
    description: str = ""

    def matches(self, sniffed: Sniffed) -> bool:
        if sniffed.kind == "xml" and sniffed.root is not None:
            root = sniffed.root
            for namespace, local in self.roots:
                declared = not self.requires_namespaces or bool(self.requires_namespaces & root.namespaces)
                if local == root.local and namespace in ("*", root.namespace) and declared:
                    return True
            return False
        return self.content is not None and self.content == sniffed.kind


_BUILTINS: dict[str, str] = {
    "sitemap": "feedmap.formats.sitemap:FORMAT",
    "sitemapindex": "feedmap.formats.sitemapindex:FORMAT",
    "text": "feedmap.formats.text:FORMAT",
    "jsonl": "feedmap.formats.jsonl:FORMAT",
    "rss": "feedmap.formats.rss:FORMAT",
    "ror": "feedmap.formats.ror:FORMAT",
}
_loaded: dict[str, FormatSpec] = {}
_lazy: dict[str, str] = dict(_BUILTINS)
_entry_points_loaded = False
#: Formats whose registration could not be loaded, with the reason (kept so the error stays the same).
_broken: dict[str, str] = {}
#: Guards the tables above: formats load lazily, and reading happens on several threads at once (index
#: children, ``feedmap discover --tree``).  Re-entrant: loading a plugin module may register formats.
_lock = threading.RLock()


def register(spec: FormatSpec | str, name: str | None = None) -> None:
    """Register a format: a :class:`FormatSpec`, or a lazy ``"module:ATTRIBUTE"`` path with its name."""
    with _lock:
        _register(spec, name)


def _register(spec: FormatSpec | str, name: str | None) -> None:
    if isinstance(spec, FormatSpec):
        _loaded[spec.name] = spec
        _lazy.pop(spec.name, None)
        _broken.pop(spec.name, None)
    else:
        if name is None:
            raise ValueError("a lazy registration needs the format name")
        _lazy[name] = spec
        _loaded.pop(name, None)
        _broken.pop(name, None)


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name not in _loaded and point.name not in _lazy:
            _lazy[point.name] = point.value


def _resolve(name: str, path: str) -> FormatSpec:
    module_name, _, attribute = path.partition(":")
    try:
        spec = getattr(importlib.import_module(module_name), attribute or "FORMAT")
    except (ImportError, AttributeError) as exc:
        raise FormatError(f"format {name!r} is registered as {path!r} but cannot be loaded: {exc}") from exc
    if not isinstance(spec, FormatSpec):
        raise FormatError(f"format {name!r}: {path!r} is not a FormatSpec")
    return spec


def get(name: str) -> FormatSpec:
    """The format called ``name``; FormatError naming the known formats otherwise."""
    key = name.strip().lower()
    spec = _loaded.get(key)
    if spec is not None:
        return spec
    with _lock:
        return _get_slow(key, name)


def _get_slow(key: str, name: str) -> FormatSpec:
    if key in _loaded:
        return _loaded[key]
    _load_entry_points()
    if key in _broken:
        raise FormatError(_broken[key])
    if key in _lazy:
        try:
            spec = _resolve(key, _lazy[key])
        except FormatError as exc:
            _broken[key] = str(exc)
            del _lazy[key]
            raise
        del _lazy[key]
        _loaded[key] = spec
        return spec
    known = ", ".join(sorted({*_loaded, *_lazy}))
    raise FormatError(f"unknown format {name!r}; known formats: {known}")


def all_formats() -> list[FormatSpec]:
    """Every registered format that loads, by name; see :func:`broken_formats` for those that do not.

    A third-party plugin that fails to import must not stop feedmap from reading everything else.
    """
    with _lock:
        _load_entry_points()
        for name in list(_lazy):
            with contextlib.suppress(FormatError):
                get(name)
        return sorted(_loaded.values(), key=lambda spec: spec.name)


def broken_formats() -> dict[str, str]:
    """Registered formats that could not be loaded, each with the reason."""
    all_formats()
    return dict(_broken)


_URL_LINE = re.compile(rb"^\s*[A-Za-z][A-Za-z0-9+.-]*://\S", re.MULTILINE)


_SNIFF_WINDOW = 64 * 1024


def _head(stream: PeekableStream) -> bytes:
    """The first 64 KiB, or more while they are all blank: content after long blank lines is still seen
    (the XML reader removes blanks before the declaration however long they run)."""
    window = _SNIFF_WINDOW
    head = stream.peek(window)
    while len(head) == window and not head.removeprefix(b"\xef\xbb\xbf").lstrip():
        window *= 2
        head = stream.peek(window)
    return head


def sniff(stream: PeekableStream) -> Sniffed:
    """Look at the first bytes (already decompressed) and say what kind of content they are."""
    head = _head(stream)
    body = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not body:
        return Sniffed("empty")
    if guess_encoding(head) is not None:  # UTF-16/32, with a byte-order mark or without (XML 1.0 Appendix F)
        return Sniffed("xml", peek_root(stream))
    if body.startswith(b"<"):
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


def _by_extension(path: Path | None, formats: Iterable[FormatSpec]) -> FormatSpec | None:
    if path is None:
        return None
    suffixes = [suffix.lower() for suffix in path.suffixes if suffix.lower() not in (".gz", ".gzip")]
    if not suffixes:
        return None
    matches = [spec for spec in formats if suffixes[-1] in spec.extensions and spec.reader is not None]
    return max(matches, key=lambda spec: spec.priority) if matches else None


def detect(source: Source) -> FormatSpec:
    """The readable format of an opened input, by content first and file extension second."""
    sniffed = sniff(source.stream)
    readable = [spec for spec in all_formats() if spec.reader is not None]
    matching = [spec for spec in readable if spec.matches(sniffed)]
    if matching:
        return max(matching, key=lambda spec: spec.priority)
    by_extension = _by_extension(source.path, readable) if sniffed.kind not in ("xml", "empty") else None
    if by_extension is not None:
        return by_extension
    code = "unknown-format"
    if sniffed.kind == "empty":
        what = "is empty"
    elif sniffed.kind == "xml" and looks_like_html(source.stream.peek(4096), sniffed.root):
        what, code = "is an HTML page, not a sitemap or a feed", "html-page"
    elif sniffed.kind == "xml" and sniffed.root is not None:
        ns = f" in namespace {sniffed.root.namespace!r}" if sniffed.root.namespace else " (no namespace)"
        what = f"has root element <{sniffed.root.local}>{ns}, which no format reads"
    elif sniffed.kind == "xml":
        what = "starts like XML but has no readable root element"
    else:
        what = "is not XML, JSON lines or a list of URLs"
    names = ", ".join(spec.name for spec in readable)
    line = sniffed.root.line if sniffed.root is not None else 0
    raise UnknownFormatError(
        f"{source.name}: {what}; name the format (one of: {names})",
        what=what,
        source=source.name,
        line=line,
        code=code,
    )


_HTML_START = re.compile(rb"^(?:\s|<!--.*?-->|<\?xml[^>]*>)*<(?:!doctype\s+html|html)\b", re.IGNORECASE | re.DOTALL)


def looks_like_html(head: bytes, root: RootInfo | None) -> bool:
    """An HTML page (WHATWG HTML: a ``<!DOCTYPE html>`` or an ``<html>`` root, XHTML's namespace or none)."""
    if root is not None:
        return root.local.lower() == "html" and root.namespace in ("", "http://www.w3.org/1999/xhtml")
    return _HTML_START.match(head.removeprefix(b"\xef\xbb\xbf")) is not None
