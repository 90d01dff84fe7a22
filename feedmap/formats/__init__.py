"""The plugin contract of feedmap's formats, and the built-in formats, one subpackage per family.

What a third-party format or extension needs is exported here: :class:`FormatSpec` (a format's names, how
it is recognised, its reader, writer and renderer), :func:`register` and the read-only :func:`registry`,
:class:`Detection` (a lazy registration's recognition data), the :class:`Reader`, :class:`Writer` and
:class:`Renderer` protocols with :class:`Rendered`, the :class:`Source` a reader is given and the
:class:`Context` a reader or writer reports on, and :class:`Extension` with its hooks (:class:`ReadHook`,
:class:`WriteHook`, :class:`Fields`).  Third-party formats join through the entry-point group
``feedmap.formats``, extensions through ``feedmap.extensions`` (Python packaging's entry points
specification, https://packaging.python.org/en/latest/specifications/entry-points/).

The built-in formats live in :mod:`feedmap.formats.sitemap` (urlset, index), :mod:`feedmap.formats.feeds`
(RSS/Atom, ROR), :mod:`feedmap.formats.lines` (text, JSON lines) and :mod:`feedmap.formats.ext` (the
extensions of the XML formats: image, hreflang); a format module imports no other format.  The private
modules here (``_registry``, ``_detection``, ``_xmlwrite``, ``_output``, ...) are what they share.
"""

import importlib
from typing import TYPE_CHECKING, Any

from feedmap._core.context import Context
from feedmap._io.sources import Source
from feedmap.formats._detection import Accept
from feedmap.formats._registry import (
    ENTRY_POINT_GROUP,
    Detection,
    FormatSpec,
    Reader,
    Registry,
    Rendered,
    Renderer,
    Writer,
    register,
    registry,
)

# The extensions' hooks (lxml, their entry points) are imported when a name of theirs is first asked for, not
# by a run that reads no XML (PEP 562 module ``__getattr__``); type checkers read the imports below instead.
if TYPE_CHECKING:
    from feedmap.formats.ext import ENTRY_POINT_GROUP as EXTENSIONS_ENTRY_POINT_GROUP
    from feedmap.formats.ext import Extension, Fields, ReadHook, WriteHook

#: The names of :mod:`feedmap.formats.ext` exported here, by their name in that module.
_FROM_EXT = {
    "EXTENSIONS_ENTRY_POINT_GROUP": "ENTRY_POINT_GROUP",
    "Extension": "Extension",
    "Fields": "Fields",
    "ReadHook": "ReadHook",
    "WriteHook": "WriteHook",
}

if not TYPE_CHECKING:  # hidden from type checkers, for which a module __getattr__ would make any name Any

    def __getattr__(name: str) -> Any:
        home = _FROM_EXT.get(name)
        if home is None:
            raise AttributeError(f"module 'feedmap.formats' has no attribute {name!r}")
        value = getattr(importlib.import_module("feedmap.formats.ext"), home)
        globals()[name] = value  # asked once: later uses are plain module attributes
        return value


__all__ = [
    "ENTRY_POINT_GROUP",
    "EXTENSIONS_ENTRY_POINT_GROUP",
    "Accept",
    "Context",
    "Detection",
    "Extension",
    "Fields",
    "FormatSpec",
    "ReadHook",
    "Reader",
    "Registry",
    "Rendered",
    "Renderer",
    "Source",
    "WriteHook",
    "Writer",
    "register",
    "registry",
]
