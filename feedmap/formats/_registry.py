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

Resolution order for an input (gzip magic bytes are handled first, by :mod:`feedmap._io.sources`):

1. the explicit format name (or one of its media types): that format, nothing is detected;
2. the content, by :mod:`feedmap.formats._detection`: a format that gives ``accept`` (Pillow's idea) is asked
   with the head of the input and claims it when ``accept`` returns True; a format without ``accept`` claims
   it by its declared root elements and namespaces (XML), or its content kind (``"json"``: a JSON object per
   line, ``"text"``: lines of URLs).  Of the formats that claim it, the highest ``priority`` wins (the
   built-ins: ror 20, sitemap and sitemapindex 10, rss 5, text and jsonl 0); on a tie, one that claimed it by
   ``accept`` wins over one that only declared it, then the first by name;
3. the file extension, for content no format claims (never for XML or an empty input), among the formats
   whose ``accept``, if any, did not refuse it;
4. :class:`UnknownFormatError`.

A name (or media type) names one format: :func:`register` refuses one already taken, built-in or not, unless
``replace=True``; an entry point named like a format registered before it (a built-in one, another
distribution's entry point) is not loaded and is reported (``format-name-taken``, and in ``feedmap
formats``).  :func:`registry` is the read-only view of what is registered.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol

from feedmap._core.context import Context
from feedmap._core.errors import FormatError, Reporter, UnknownFormatError
from feedmap._core.model import Document, Entry
from feedmap._io.sources import Source
from feedmap.formats._detection import BUILTINS, Accept, Detection, Sniffed, head_of, looks_like_html, sniff
from feedmap.formats._installed import may_declare

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = [
    "ENTRY_POINT_GROUP",
    "Accept",
    "Detection",
    "FormatSpec",
    "Reader",
    "Registry",
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
    "refused_entry_points",
    "register",
    "registry",
    "report_refused",
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
    #: The format's own test of the content: called with the head of the input (its decompressed first
    #: bytes, 64 KiB or all of a shorter input), True claims it.  When given, it alone recognises the
    #: content (``roots``, ``requires_namespaces`` and ``content`` are not used for that); ``priority``
    #: orders it among the other formats that claim the same input.  It must not raise (one that does is
    #: passed over, ``format-accept-failed``) and should be quick: it is asked about every input read.
    accept: Accept | None = None

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
            accept=self.accept,
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
#: Entry points not registered because their name was taken (``format-name-taken``): (name, reason).
_refused: list[tuple[str, str]] = []
#: What registered each name, for the error that refuses it again.
_origin: dict[str, str] = dict.fromkeys(BUILTINS, "the built-in format")
#: Media types given to another format by ``register(..., replace=True)``: media type -> format name.
_media_claims: dict[str, str] = {}
#: Guards the tables above: formats load lazily, and reading happens on several threads at once (index
#: children, ``feedmap discover --tree``).  Re-entrant: loading a plugin module may register formats.
_lock = threading.RLock()

#: A format name: lower case (names are looked up lower-cased), no "/" (that is a media type's).
_NAME = re.compile(r"[a-z0-9][a-z0-9._+-]*")
#: A media type as RFC 6838 section 4.2 restricts its names, in lower case (looked up lower-cased).
_MEDIA_TYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*")


def register(
    spec: FormatSpec | str, name: str | None = None, *, detection: Detection | None = None, replace: bool = False
) -> None:
    """Register a format: a :class:`FormatSpec`, or a lazy ``"module:ATTRIBUTE"`` path with its name.

    A name, and each media type, names one format: one already taken (a built-in format, one registered
    before, an installed entry point of the ``feedmap.formats`` group) is refused with a ``ValueError``
    unless ``replace=True``, which replaces that format (and gives the media types to this one).
    Registering the same spec (or path) again under its name changes nothing.  A lazy registration with
    ``detection`` is recognised without importing its module; without, its module is imported the first
    time an input's format is detected.
    """
    with _lock:
        _load_entry_points()
        key, media_types = _name_and_media_types(spec, name, detection)
        if _registered_as(key, spec, detection):
            return
        if not replace:
            _refuse_taken(key, media_types)
        _register(spec, key, detection)
        for stale in [claimed for claimed, owner in _media_claims.items() if owner == key]:
            del _media_claims[stale]  # what an earlier registration of this name took over
        _media_claims.update(dict.fromkeys(media_types, key) if replace else {})
        _origin[key] = "a format registered before"


def _registered_as(name: str, spec: FormatSpec | str, detection: Detection | None) -> bool:
    """Whether ``name`` is registered as exactly this already (registering it again changes nothing)."""
    if isinstance(spec, FormatSpec):
        return _loaded.get(name) == spec
    return _lazy.get(name) == spec and _declared.get(name) == detection


def _name_and_media_types(
    spec: FormatSpec | str, name: str | None, detection: Detection | None
) -> tuple[str, tuple[str, ...]]:
    """The name a registration is for and the media types it declares, each checked for its spelling."""
    if isinstance(spec, FormatSpec):
        if name is not None and name != spec.name:
            raise ValueError(f"a FormatSpec is registered under its own name {spec.name!r}, not {name!r}")
        name, media_types = spec.name, spec.media_types
    elif name is None:
        raise ValueError("a lazy registration needs the format name")
    else:
        media_types = detection.media_types if detection is not None else ()
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise ValueError(f"format name {name!r}: lower-case letters, digits and . _ + - only, no space or '/'")
    for media_type in media_types:
        if _MEDIA_TYPE.fullmatch(media_type) is None:
            raise ValueError(f"format {name!r}: media type {media_type!r} is not a lower-case type/subtype")
    return name, media_types


def _refuse_taken(name: str, media_types: tuple[str, ...]) -> None:
    if name in _loaded or name in _lazy or name in _broken:
        origin = _origin.get(name, "a format registered before")
        raise ValueError(f"format name {name!r} is taken by {origin}; pass replace=True to replace it")
    for media_type in media_types:
        owner = _media_owner(media_type)
        if owner is not None:
            raise ValueError(
                f"format {name!r}: media type {media_type!r} names the format {owner!r}; "
                "pass replace=True to take it over, or leave it out"
            )


def _media_owner(media_type: str, among: list[tuple[str, Detection]] | None = None) -> str | None:
    """The format a media type names, among the given detections (else those known without importing)."""
    claimed = _media_claims.get(media_type)
    if claimed is not None and (claimed in _loaded or claimed in _lazy):
        return claimed
    if among is None:
        among = _detections_known()
    return next((name for name, detection in sorted(among) if media_type in detection.media_types), None)


def _register(spec: FormatSpec | str, name: str, detection: Detection | None) -> None:
    _broken.pop(name, None)
    if isinstance(spec, FormatSpec):
        _loaded[name] = spec
        _lazy.pop(name, None)
        _declared.pop(name, None)
    else:
        _lazy[name] = spec
        _loaded.pop(name, None)
        if detection is None:
            _declared.pop(name, None)
        else:
            _declared[name] = detection


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    if not may_declare(ENTRY_POINT_GROUP):  # no distribution can declare one: importlib.metadata is not imported
        return
    try:
        from importlib.metadata import entry_points

        points = entry_points(group=ENTRY_POINT_GROUP)
    except Exception as exc:  # an installed distribution's entry_points.txt that cannot be parsed
        _broken[ENTRY_POINT_GROUP] = f"the installed entry points cannot be read: {type(exc).__name__}: {exc}"
        return
    for point in points:
        what = f"the entry point {point.name} = {point.value}{_distribution(point)}"
        if _NAME.fullmatch(point.name) is None:  # no lookup would find it (get() lower-cases, "/" is a media type)
            _refused.append((point.name, f"{what} is not loaded: {point.name!r} is not a lower-case format name"))
            continue
        if point.name in _loaded or point.name in _lazy or point.name in _broken:
            taken = _origin.get(point.name, "a format registered before")
            _refused.append((point.name, f"{what} is not loaded: the name {point.name!r} is taken by {taken}"))
            continue
        _lazy[point.name] = point.value
        _origin[point.name] = what


def _distribution(point: EntryPoint) -> str:
    dist = getattr(point, "dist", None)
    return f" (distribution {dist.name} {dist.version})" if dist is not None else ""


def refused_entry_points() -> list[tuple[str, str]]:
    """The entry points of the ``feedmap.formats`` group not loaded because their name was taken: (name, why)."""
    with _lock:
        _load_entry_points()
        return list(_refused)


def report_refused(ctx: Context) -> None:
    """Report each entry point not loaded because its name was taken (``format-name-taken``)."""
    for _, reason in refused_entry_points():
        ctx.warning("format-name-taken", f"{reason}; rename it (or register it with replace=True)")


def _resolve(name: str, path: str) -> FormatSpec:
    module_name, _, attribute = path.partition(":")
    try:
        spec = getattr(importlib.import_module(module_name), attribute or "FORMAT")
    except Exception as exc:  # a plugin's import may fail in any way: it must not stop reading other formats
        what = f"{type(exc).__name__}: {exc}" if not isinstance(exc, ImportError | AttributeError) else str(exc)
        raise FormatError(f"format {name!r} is registered as {path!r} but cannot be loaded: {what}") from exc
    if not isinstance(spec, FormatSpec):
        raise FormatError(f"format {name!r}: {path!r} is not a FormatSpec")
    if spec.name != name:
        raise FormatError(f"format {name!r}: {path!r} is a FormatSpec named {spec.name!r}, not {name!r}")
    others = [(other, found) for other, found in _detections_known() if other != name]
    for media_type in spec.media_types:
        if media_type in _media_claims:  # settled when a format took it over (register(..., replace=True))
            continue
        owner = _media_owner(media_type, others)
        if owner is not None:
            raise FormatError(f"format {name!r}: its media type {media_type!r} names the format {owner!r}")
    return spec


def _detections_known() -> list[tuple[str, Detection]]:
    """The detection data known without importing anything, by name: a loaded format's spec, else what its
    lazy registration declared."""
    found = {name: spec.detection for name, spec in _loaded.items()}
    found.update((name, declared) for name, declared in _declared.items() if name in found or name in _lazy)
    return sorted(found.items())


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
    return _media_owner(media_type, _detections()) or media_type


def _detections() -> list[tuple[str, Detection]]:
    """Every registered format's name and detection data, by name; importing only the formats registered
    lazily without detection data (third-party entry points), as detecting them needs their FormatSpec."""
    with _lock:
        _load_entry_points()
        for name in [name for name in _lazy if name not in _declared]:
            with contextlib.suppress(FormatError):
                get(name)
        return _detections_known()


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


class Registry(Mapping[str, FormatSpec]):
    """The registered formats as a read-only mapping, name -> :class:`FormatSpec`, live (what is registered
    later shows).  Looking a name up loads that format only; iterating (or ``len``) loads every format,
    leaving out those that cannot be loaded (:func:`broken_formats` says why).  Keys are the exact names:
    :func:`get` is what also takes a media type or another spelling."""

    __slots__ = ()

    def __getitem__(self, name: str) -> FormatSpec:
        with _lock:
            _load_entry_points()
            if not isinstance(name, str) or (name not in _loaded and name not in _lazy):
                raise KeyError(name)
            try:
                return get(name)
            except FormatError as exc:
                raise KeyError(name) from exc

    def __iter__(self) -> Iterator[str]:
        return iter([spec.name for spec in all_formats()])

    def __len__(self) -> int:
        return len(all_formats())

    def __repr__(self) -> str:
        return f"<feedmap format registry: {', '.join(self)}>"


_VIEW = Registry()


def registry() -> Registry:
    """The read-only view of the registered formats (see :class:`Registry`); change it with :func:`register`."""
    return _VIEW


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


def _accepted(source: Source, readable: list[tuple[str, Detection]], reporter: Reporter | None) -> dict[str, bool]:
    """What each format that gives ``accept`` answers for this input's head (False for one that raised)."""
    head = head_of(source.stream)
    answers: dict[str, bool] = {}
    for name, found in readable:
        if found.accept is None:
            continue
        try:
            answers[name] = bool(found.accept(head))
        except Exception as exc:  # a plugin's bug must not stop every read: it is passed over
            answers[name] = False
            if reporter is not None:
                message = f"format {name!r} failed to recognise the input ({type(exc).__name__}: {exc}); passed over"
                reporter.warning("format-accept-failed", message, source.name)
    return answers


def _chosen(
    sniffed: Sniffed, path: Path | None, readable: list[tuple[str, Detection]], accepted: dict[str, bool]
) -> str | None:
    """The name of the format the content (else the file extension) says, or None (see the module's order)."""
    claiming = [
        (name, found)
        for name, found in readable
        if accepted.get(name, False) or (found.accept is None and found.matches(sniffed))
    ]
    if claiming:  # the highest priority; on a tie, a claim by accept; then the first by name
        return max(claiming, key=lambda claim: (claim[1].priority, claim[0] in accepted))[0]
    if sniffed.kind in ("xml", "empty"):
        return None
    return _by_extension(path, [(name, found) for name, found in readable if found.accept is None])


def detect(source: Source, reporter: Reporter | None = None) -> FormatSpec:
    """The readable format of an opened input, by content first and file extension second (the order is
    the module's); a format whose ``accept`` fails is passed over, reported on ``reporter`` when given.

    Only the chosen format's module is imported; a format that cannot be loaded is passed over.
    """
    sniffed = sniff(source.stream)
    readable = [(name, found) for name, found in _detections() if found.readable]
    accepted = _accepted(source, readable, reporter) if sniffed.kind != "empty" else {}
    while (name := _chosen(sniffed, source.path, readable, accepted)) is not None:
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
