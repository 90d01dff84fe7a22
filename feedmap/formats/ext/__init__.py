"""Extensions: elements of another namespace that the XML formats read into the IR and write back.

An :class:`Extension` claims elements of one namespace (Namespaces in XML 1.0,
https://www.w3.org/TR/xml-names/) and has a read hook (one element -> the IR field it fills) and a write
hook (an entry -> the elements, as text).  Every XML format (sitemap, index, RSS, ROR, Atom) reads and writes
through them; built in are Google image sitemaps (:mod:`._image`), hreflang alternates (:mod:`._hreflang`),
Google News sitemaps (:mod:`._news`) and Google video sitemaps (:mod:`._video`).
Where a format needs another element for the same field, the extension holds a *variant* for those formats
(hreflang: ``xhtml:link`` in sitemaps, ``atom:link`` in feeds, where the W3C Feed Validator calls
``xhtml:link`` misplaced); a variant may be *leading*: its elements open a feed item, before the item's own.
Third-party extensions join through the entry-point group ``feedmap.extensions`` (the entry points
specification, https://packaging.python.org/en/latest/specifications/entry-points/), each naming an
:class:`Extension`.
They are loaded once, on first use; one that cannot be loaded, or whose hook fails, is reported
(``extension-broken``, ``extension-failed``) and its elements are kept verbatim as XML extras, as without it.
An entry point whose name, or whose extension's name, is that of an extension loaded before it (a built-in
one, another distribution's) is not loaded either, and is reported (``extension-name-taken``).

A third-party extension fills ``Entry.extras`` under the text key ``prefix:element`` (``"ex:rating"``);
the XML writers leave those keys to its write hook.
"""

from __future__ import annotations

import dataclasses
import importlib
import threading
from dataclasses import dataclass, field
from typing import Literal, Protocol

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.errors import FeedmapError
from feedmap._core.model import Alternate, Entry, Image, News, Video
from feedmap._xml import NEWS_NS, SITEMAP_NS, VIDEO_NS, XSI_NS, line_of, local_name
from feedmap.formats._installed import may_declare

__all__ = [
    "BUILTIN_FIELDS",
    "ENTRY_POINT_GROUP",
    "FIELDS",
    "XML_FORMATS",
    "EntryFields",
    "Extension",
    "Fields",
    "Hooks",
    "ReadHook",
    "WriteHook",
    "WriteStep",
    "broken_extensions",
    "builtin_hook",
    "extensions",
    "hooks",
    "refused_extensions",
    "report_broken",
]

ENTRY_POINT_GROUP = "feedmap.extensions"
#: The formats whose readers and writers may use extensions.
XML_FORMATS = frozenset({"sitemap", "sitemapindex", "rss", "ror", "atom"})
_BUILTINS = (
    "feedmap.formats.ext._image:EXTENSION",
    "feedmap.formats.ext._hreflang:EXTENSION",
    "feedmap.formats.ext._news:EXTENSION",
    "feedmap.formats.ext._video:EXTENSION",
)
#: The Entry fields an extension may fill, and those the built-ins fill.
FIELDS = ("images", "alternates", "news", "videos", "extras")
BUILTIN_FIELDS = frozenset({"images", "alternates", "news", "videos"})
#: The formats whose writers place leading elements first in an entry (elsewhere they follow the others:
#: a sitemap's ``<url>`` starts with ``<loc>``, as its XSD's sequence has it).
_LEADING_FORMATS = frozenset({"rss", "ror"})


class Fields(Protocol):
    """What the read hooks fill while one entry is read: its images, alternates, news, videos and extras so far."""

    images: list[Image]
    alternates: list[Alternate]
    news: News | None
    videos: list[Video]
    extras: dict[str, str]


class EntryFields:
    """The plain :class:`Fields` a reader gathers one entry's extension values in."""

    __slots__ = ("alternates", "extras", "images", "news", "videos")

    def __init__(self) -> None:
        self.images: list[Image] = []
        self.alternates: list[Alternate] = []
        self.news: News | None = None
        self.videos: list[Video] = []
        self.extras: dict[str, str] = {}


class ReadHook(Protocol):
    """Read one claimed element into ``into``; False leaves it to the reader (kept verbatim as an extra).

    ``offset`` is added to ``element.sourceline`` for the line in the input (for diagnostics on ``ctx``).
    """

    def __call__(self, element: etree._Element, into: Fields, ctx: Context, offset: int) -> bool: ...


class WriteHook(Protocol):
    """The entry's elements of this extension as XML text pieces (joined by the writer), each start tag with
    ``xmlns`` added (the declaration, when the namespace is not declared on the root; else "")."""

    def __call__(self, entry: Entry, ctx: Context, xmlns: str) -> list[str]: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Extension:
    """One extension: the elements it claims, its hooks, and the formats that use it."""

    name: str
    namespace: str
    #: The prefix the writers declare for ``namespace`` (and that text extras' keys use).
    prefix: str
    #: Local names of the elements it claims in ``namespace``.
    elements: frozenset[str]
    #: The Entry field its hooks fill and write (the write hook runs for an entry where it is not empty).
    field: Literal["images", "alternates", "news", "videos", "extras"]
    read: ReadHook | None = None
    write: WriteHook | None = None
    formats: frozenset[str] = XML_FORMATS
    #: Its elements come first in an entry, before the format's own (feeds only; see :data:`_LEADING_FORMATS`).
    leading: bool = False
    #: The same field in other elements for other formats (each an extension of its own namespace).
    variants: tuple[Extension, ...] = ()

    @property
    def parts(self) -> tuple[Extension, ...]:
        """The extension and its variants."""
        return (self, *self.variants)

    @property
    def tags(self) -> frozenset[str]:
        """The claimed elements in Clark notation (``{namespace}local``)."""
        return frozenset(f"{{{self.namespace}}}{local}" for local in self.elements)

    @property
    def keys(self) -> frozenset[str]:
        """The text extras it writes (``prefix:local``), when it fills ``extras``."""
        if self.field != "extras":
            return frozenset()
        return frozenset(f"{self.prefix}:{local}" for local in self.elements)


@dataclass(frozen=True, slots=True)
class WriteStep:
    """One write hook as a writer that declares namespaces where they are used (the feeds) runs it."""

    #: The Entry field it writes (run only where the entry's is not empty).
    field: str
    #: The prefix its elements use (the declaration it is given is for this one).
    prefix: str
    hook: WriteHook


@dataclass(frozen=True, slots=True)
class Hooks:
    """The extensions of one format, as its reader and writer use them."""

    #: Read hook by claimed Clark tag.
    read: dict[str, ReadHook] = field(default_factory=dict)
    #: (Entry field, write hook), built-ins first.
    write: tuple[tuple[str, WriteHook], ...] = ()
    #: Prefix -> namespace of every extension the format uses (but a variant that only reads).
    namespaces: dict[str, str] = field(default_factory=dict)
    #: Text extras the write hooks write.
    keys: frozenset[str] = frozenset()
    #: The write hooks whose elements open an entry (leading), then the others, with their prefixes.
    lead: tuple[WriteStep, ...] = ()
    tail: tuple[WriteStep, ...] = ()


class _Registry:
    def __init__(self) -> None:
        self.lock = threading.RLock()  # a plugin that asks for the extensions while it loads must not hang
        self.loaded: list[Extension] | None = None
        self.broken: dict[str, str] = {}
        #: Entry points not loaded because their name was taken (``extension-name-taken``): (name, why).
        self.refused: list[tuple[str, str]] = []
        self.tables: dict[str, Hooks] = {}
        #: The write hooks of the built-in extensions (see :func:`builtin_hook`), found once.
        self.builtin_hooks: frozenset[WriteHook] | None = None


_registry = _Registry()


def extensions() -> list[Extension]:
    """Every extension that loads, built-ins first, then entry points by name (loaded once)."""
    loaded = _registry.loaded
    if loaded is not None:
        return loaded
    with _registry.lock:
        if _registry.loaded is None:
            _registry.loaded = _load_all(_registry.broken, _registry.refused)
        return _registry.loaded


def broken_extensions() -> dict[str, str]:
    """Entry points of the ``feedmap.extensions`` group that could not be loaded, each with the reason."""
    extensions()
    return dict(_registry.broken)


def refused_extensions() -> list[tuple[str, str]]:
    """Entry points of the ``feedmap.extensions`` group not loaded because their name was taken: (name, why)."""
    extensions()
    return list(_registry.refused)


def hooks(fmt: str) -> Hooks:
    """The hooks format ``fmt`` reads and writes through (computed once per format)."""
    table = _registry.tables.get(fmt)
    if table is None:
        loaded = extensions()
        table = _table(fmt, [part for ext in loaded for part in ext.parts if fmt in part.formats], loaded)
        _registry.tables[fmt] = table
    return table


def _table(fmt: str, chosen: list[Extension], loaded: list[Extension]) -> Hooks:
    """The hooks of the ``chosen`` extensions and variants (those of ``loaded`` that serve ``fmt``)."""
    writers = [(ext, WriteStep(ext.field, ext.prefix, ext.write)) for ext in chosen if ext.write is not None]
    leads = fmt in _LEADING_FORMATS
    bases = {id(ext) for ext in loaded}
    return Hooks(
        read={tag: ext.read for ext in chosen if ext.read is not None for tag in ext.tags},
        write=tuple((step.field, step.hook) for _, step in writers),
        # a variant that only reads (hreflang's xhtml:link in feeds) has nothing to declare
        namespaces={ext.prefix: ext.namespace for ext in chosen if id(ext) in bases or ext.write is not None},
        keys=frozenset(key for ext in chosen for key in ext.keys),
        lead=tuple(step for ext, step in writers if leads and ext.leading),
        tail=tuple(step for ext, step in writers if not (leads and ext.leading)),
    )


def builtin_hook(hook: WriteHook) -> bool:
    """Whether ``hook`` is the write hook of a built-in extension (or of one of its variants): one that keeps no
    state between entries and puts the declaration it is given on its elements' start tags, so that a writer may
    render entries out of their output order (the writers that merge rendered records)."""
    return hook in _builtin_hooks()


def _builtin_hooks() -> frozenset[WriteHook]:
    found = _registry.builtin_hooks
    if found is None:
        builtins = [_builtin(path) for path in _BUILTINS]
        found = _registry.builtin_hooks = frozenset(
            part.write for ext in builtins for part in ext.parts if part.write is not None
        )
    return found


def report_broken(ctx: Context) -> None:
    """Report each extension that could not be loaded (``extension-broken``) or whose name was taken
    (``extension-name-taken``); nothing when all load."""
    extensions()
    for name, reason in _registry.broken.items():
        ctx.warning("extension-broken", f"extension {name!r} {reason}; its elements are kept as XML extras")
    for name, reason in _registry.refused:
        ctx.warning("extension-name-taken", f"extension {name!r} {reason}; rename it")


def _load_all(broken: dict[str, str], refused: list[tuple[str, str]]) -> list[Extension]:
    loaded = [_builtin(path) for path in _BUILTINS]
    if not may_declare(ENTRY_POINT_GROUP):  # no distribution can declare one: importlib.metadata is not imported
        return loaded
    try:
        from importlib.metadata import entry_points

        points = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name)
    except Exception as exc:  # an installed distribution's entry_points.txt that cannot be parsed
        broken[ENTRY_POINT_GROUP] = f"(the installed entry points) cannot be read: {type(exc).__name__}: {exc}"
        return loaded
    #: Each name taken, by whom: the built-ins', then each entry point's and its extension's.
    names = {ext.name: f"the built-in extension {ext.name!r}" for ext in loaded}
    for point in points:
        if point.name in names:
            refused.append((point.name, f"({point.value}) is not loaded: the name is taken by {names[point.name]}"))
            continue
        try:
            candidate = point.load()
        except Exception as exc:  # a plugin's import may fail in any way: it must not stop feedmap
            broken[point.name] = f"({point.value}) cannot be loaded: {type(exc).__name__}: {exc}"
            continue
        if isinstance(candidate, Extension) and candidate.name in names:
            taken = f"its extension's name {candidate.name!r} is taken by {names[candidate.name]}"
            refused.append((point.name, f"({point.value}) is not loaded: {taken}"))
            continue
        problem = _problem(candidate, loaded)
        if problem is not None:
            broken[point.name] = f"({point.value}) {problem}"
            continue
        loaded.append(_guarded(candidate))
        for name in (point.name, candidate.name):
            names.setdefault(name, f"the entry point {point.name!r}")
    return loaded


def _builtin(path: str) -> Extension:
    module, _, attribute = path.partition(":")
    extension: Extension = getattr(importlib.import_module(module), attribute)
    return extension


#: Prefixes feedmap's writers declare themselves (sitemap roots, feed items), with their namespaces: an
#: extension may use one only for the same namespace.
_WRITER_PREFIXES = {
    "xsi": XSI_NS,
    "news": NEWS_NS,
    "video": VIDEO_NS,
    "sitemap": SITEMAP_NS,
    "atom": "http://www.w3.org/2005/Atom",
    "dc": "http://purl.org/dc/elements/1.1/",
    "ror": "http://rorweb.com/0.1/",
}


def _problem(candidate: object, loaded: list[Extension]) -> str | None:
    """Why a third-party candidate cannot be used beside the ``loaded`` extensions, or None."""
    if not isinstance(candidate, Extension):
        return f"is not a feedmap Extension but {type(candidate).__name__}"
    for part in candidate.parts:
        if part.field not in FIELDS:
            return f"fills the unknown field {part.field!r}"
        if _WRITER_PREFIXES.get(part.prefix, part.namespace) != part.namespace:
            return f"uses the prefix {part.prefix!r}, which feedmap writes for {_WRITER_PREFIXES[part.prefix]}"
    for other in loaded:
        for mine in candidate.parts:
            problem = _clash(mine, other)
            if problem is not None:
                return problem
    return None


def _clash(part: Extension, other: Extension) -> str | None:
    """How ``part`` (of a candidate) clashes with the loaded extension ``other`` or its variants, or None."""
    for theirs in other.parts:
        if theirs.prefix == part.prefix and theirs.namespace != part.namespace:
            return f"uses the prefix {part.prefix!r} of the extension {other.name!r}"
        if theirs.tags & part.tags:
            return f"claims elements of the extension {other.name!r}"
    return None


def _guarded(extension: Extension) -> Extension:
    """The extension with hooks that report their failures (``extension-failed``) instead of raising."""
    read, write = extension.read, extension.write
    return dataclasses.replace(
        extension,
        read=None if read is None else _safe_read(extension, read),
        write=None if write is None else _safe_write(extension, write),
        variants=tuple(_guarded(variant) for variant in extension.variants),
    )


def _safe_read(extension: Extension, read: ReadHook) -> ReadHook:
    def safe(element: etree._Element, into: Fields, ctx: Context, offset: int) -> bool:
        try:
            return bool(read(element, into, ctx, offset))
        except FeedmapError:  # a diagnostic it reported under strict=True: feedmap's own, not a failure
            raise
        except Exception as exc:  # a plugin's bug is reported where it struck, and reading goes on
            what = f"<{extension.prefix}:{local_name(str(element.tag))}>"
            message = f"extension {extension.name!r} failed on {what} ({type(exc).__name__}: {exc}); kept as it is"
            ctx.warning("extension-failed", message, line_of(element) + offset)
            return False

    return safe


def _safe_write(extension: Extension, write: WriteHook) -> WriteHook:
    def safe(entry: Entry, ctx: Context, xmlns: str) -> list[str]:
        try:
            parts = write(entry, ctx, xmlns)
            if not isinstance(parts, list) or not all(isinstance(part, str) for part in parts):
                raise TypeError(f"the write hook returned {type(parts).__name__}, not a list of str")
        except FeedmapError:
            raise
        except Exception as exc:  # a plugin's bug is reported and the entry written without its elements
            message = f"extension {extension.name!r} failed on {entry.loc} ({type(exc).__name__}: {exc}); not written"
            ctx.warning("extension-failed", message)
            return []
        return parts

    return safe
