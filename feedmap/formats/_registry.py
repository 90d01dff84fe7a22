"""The format registry: what each format is, how to find it by name, and how to recognise it by content.

Built-in formats are registered as lazy dotted paths (``"feedmap.formats.sitemap._urlset:FORMAT"``, as rdflib's
plugin registry does) together with what recognising them needs (:class:`Detection`: root elements,
required namespaces, content kind, file extensions, media types, priority), so detecting a format imports
no format module: only the one chosen is loaded.  The head of the input is parsed once: what
:func:`~feedmap._xml.peek_root` found is kept on the stream, so the reader's own look at it costs nothing.

Third-party formats join through the entry-point group ``feedmap.formats`` (Python packaging's entry points
specification); each entry point names a :class:`FormatSpec`, whose fields are its detection data (its
module is imported when an input is detected: keep it light).  :func:`register` takes a ``detection`` for a
lazy registration made in code.

Resolution order for an input: the explicit format name (or one of its media types), then the content
(gzip magic bytes are handled by :mod:`feedmap._io.sources`; here, by :mod:`feedmap.formats._detection`, the root
element and declared namespaces of XML, a JSON object per line, or lines of URLs), then the file
extension, then :class:`UnknownFormatError`.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import BinaryIO, Protocol

from feedmap._core.context import Context
from feedmap._core.errors import FormatError, UnknownFormatError
from feedmap._core.model import Document, Entry
from feedmap._io.sources import Source
from feedmap.formats._detection import BUILTINS, Detection, Sniffed, looks_like_html, sniff

__all__ = [
    "ENTRY_POINT_GROUP",
    "Detection",
    "FormatSpec",
    "Reader",
    "Rendered",
    "Renderer",
    "Sniffed",
    "Writer",
    "all_formats",
    "broken_formats",
    "detect",
    "get",
    "looks_like_html",
    "readable_names",
    "register",
    "sniff",
]

ENTRY_POINT_GROUP = "feedmap.formats"


class Reader(Protocol):
    def __call__(self, source: Source, *, ctx: Context) -> Document: ...


class Writer(Protocol):
    def __call__(self, doc: Document, sink: BinaryIO, *, ctx: Context) -> int: ...


@dataclass(frozen=True, slots=True)
class Rendered:
    """A document rendered in parts: what comes before the entries, one block of text per entry written
    (with the entry it came from; an entry the format cannot hold yields nothing), and what comes after.

    The header is final when the renderer returns it (a feed declares on its root the namespaces of its first
    items, rendered already); the same header and footer frame every file when the blocks are split among
    several files.  ``empty`` is the ``empty-document`` warning to give when no block was written.
    """

    header: str
    items: Iterator[tuple[Entry, str]]
    footer: str
    empty: str


class Renderer(Protocol):
    def __call__(self, doc: Document, *, ctx: Context) -> Rendered: ...


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
    #: Renders a document in parts (header, one block per entry, footer): what splitting an output into
    #: several files needs.  None: the format cannot be split.
    renderer: Renderer | None = None
    #: IR fields this format holds; converting into it drops the others with an INFO diagnostic.
    fields: frozenset[str] = frozenset()
    description: str = ""
    #: Media types that name this format too (``get("application/rss+xml")``).
    media_types: tuple[str, ...] = ()

    @property
    def detection(self) -> Detection:
        """The fields that recognise this format."""
        return Detection(
            extensions=self.extensions,
            roots=self.roots,
            requires_namespaces=self.requires_namespaces,
            content=self.content,
            priority=self.priority,
            media_types=self.media_types,
            readable=self.reader is not None,
        )

    def matches(self, sniffed: Sniffed) -> bool:
        return self.detection.matches(sniffed)


_loaded: dict[str, FormatSpec] = {}
_lazy: dict[str, str] = {name: path for name, (path, _) in BUILTINS.items()}
#: Detection data declared for lazy registrations (the built-ins, ``register(..., detection=)``).
_declared: dict[str, Detection] = {name: detection for name, (_, detection) in BUILTINS.items()}
_entry_points_loaded = False
#: Formats whose registration could not be loaded, with the reason (kept so the error stays the same).
_broken: dict[str, str] = {}
#: Guards the tables above: formats load lazily, and reading happens on several threads at once (index
#: children, ``feedmap discover --tree``).  Re-entrant: loading a plugin module may register formats.
_lock = threading.RLock()


def register(spec: FormatSpec | str, name: str | None = None, *, detection: Detection | None = None) -> None:
    """Register a format: a :class:`FormatSpec`, or a lazy ``"module:ATTRIBUTE"`` path with its name.

    A lazy registration with ``detection`` is recognised without importing its module; without, its module
    is imported the first time an input's format is detected.
    """
    with _lock:
        _register(spec, name, detection)


def _register(spec: FormatSpec | str, name: str | None, detection: Detection | None) -> None:
    if isinstance(spec, FormatSpec):
        _loaded[spec.name] = spec
        _lazy.pop(spec.name, None)
        _broken.pop(spec.name, None)
        _declared.pop(spec.name, None)
    else:
        if name is None:
            raise ValueError("a lazy registration needs the format name")
        _lazy[name] = spec
        _loaded.pop(name, None)
        _broken.pop(name, None)
        if detection is None:
            _declared.pop(name, None)
        else:
            _declared[name] = detection


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    try:
        points = entry_points(group=ENTRY_POINT_GROUP)
    except Exception as exc:  # an installed distribution's entry_points.txt that cannot be parsed
        _broken[ENTRY_POINT_GROUP] = f"the installed entry points cannot be read: {type(exc).__name__}: {exc}"
        return
    for point in points:
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
    if not isinstance(name, str):  # e.g. read(source, Options(...)): the options given where the format goes
        raise TypeError(
            f"a format is named by a string such as 'sitemap', not {type(name).__name__}; pass options as options=..."
        )
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
    if "/" in key:
        key = _by_media_type(key)
        if key in _loaded:
            return _loaded[key]
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


def _by_media_type(media_type: str) -> str:
    """The name of the format a media type names (``application/rss+xml``: rss), else the media type itself."""
    for name, detection in _detections():
        if media_type in detection.media_types:
            return name
    return media_type


def _detections() -> list[tuple[str, Detection]]:
    """Every registered format's name and detection data, by name; importing only the formats registered
    lazily without detection data (third-party entry points), as detecting them needs their FormatSpec."""
    with _lock:
        _load_entry_points()
        for name in [name for name in _lazy if name not in _declared]:
            with contextlib.suppress(FormatError):
                get(name)
        found = {name: spec.detection for name, spec in _loaded.items()}
        found.update((name, declared) for name, declared in _declared.items() if name in found or name in _lazy)
        return sorted(found.items())


def readable_names() -> list[str]:
    """The names of the formats that can be read, sorted (without importing the built-in formats)."""
    return [name for name, detection in _detections() if detection.readable]


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


def _by_extension(path: Path | None, formats: list[tuple[str, Detection]]) -> str | None:
    if path is None:
        return None
    suffixes = [suffix.lower() for suffix in path.suffixes if suffix.lower() not in (".gz", ".gzip")]
    if not suffixes:
        return None
    matches = [(name, found) for name, found in formats if suffixes[-1] in found.extensions]
    return max(matches, key=lambda match: match[1].priority)[0] if matches else None


def _chosen(sniffed: Sniffed, path: Path | None, readable: list[tuple[str, Detection]]) -> str | None:
    """The name of the format the content (else the file extension) says, or None."""
    matching = [(name, found) for name, found in readable if found.matches(sniffed)]
    if matching:
        return max(matching, key=lambda match: match[1].priority)[0]
    return _by_extension(path, readable) if sniffed.kind not in ("xml", "empty") else None


def detect(source: Source) -> FormatSpec:
    """The readable format of an opened input, by content first and file extension second.

    Only the chosen format's module is imported; a format that cannot be loaded is passed over.
    """
    sniffed = sniff(source.stream)
    readable = [(name, found) for name, found in _detections() if found.readable]
    while (name := _chosen(sniffed, source.path, readable)) is not None:
        try:
            return get(name)
        except FormatError:
            readable = [(other, found) for other, found in readable if other != name]
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
    line = sniffed.root.line if sniffed.root is not None else 0
    formats = [name for name, _ in readable]
    raise UnknownFormatError(what, source=source.name, line=line, code=code, formats=formats)
