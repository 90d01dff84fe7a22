"""feedmap: convert between XML sitemaps, sitemap indexes, text sitemaps, feeds and JSON lines.

One intermediate representation (:class:`Document` of :class:`Entry`) sits between pluggable readers and
writers (see :mod:`feedmap.formats._registry`).  Reading streams: memory does not grow with the number of URLs.
The steps between them (relative URLs, repeated URLs, ...) are functions of :mod:`feedmap.converters`
(``feedmap.transforms``, their first name, is a deprecated alias kept for one release).
Everything a user may touch is exported here and listed in the README's "Library API" section (a test
keeps the two in step).

>>> import feedmap
>>> with feedmap.read("samples/sitemap/basic.xml") as doc:       # doctest: +SKIP
...     feedmap.write(doc, "out.txt", "text")
"""

import importlib
from types import ModuleType

from feedmap._api import SplitSummary, Summary, convert, read, split, write
from feedmap._core.context import HttpSettings, Options
from feedmap._core.dates import Precision, W3CDate
from feedmap._core.errors import (
    Diagnostic,
    FeedmapError,
    FetchError,
    FormatError,
    Level,
    LimitError,
    ReadError,
    Reporter,
    SourceError,
    StrictError,
    UnknownFormatError,
    WriteError,
)
from feedmap._core.model import Alternate, ChangeFreq, DocKind, DocMeta, Document, Entry, Image, Position
from feedmap._diff.diff import Change, Changes, diff
from feedmap._validate.report import Report, validate
from feedmap._web.discover import find_sitemaps
from feedmap._web.sitemaptree import SitemapNode, sitemap_tree
from feedmap.converters import enrich
from feedmap.formats._registry import Detection, FormatSpec, Rendered, register
from feedmap.formats.ext import Extension

__version__ = "0.1.0"

__all__ = [
    "Alternate",
    "Change",
    "ChangeFreq",
    "Changes",
    "Detection",
    "Diagnostic",
    "DocKind",
    "DocMeta",
    "Document",
    "Entry",
    "Extension",
    "FeedmapError",
    "FetchError",
    "FormatError",
    "FormatSpec",
    "HttpSettings",
    "Image",
    "Level",
    "LimitError",
    "Options",
    "Position",
    "Precision",
    "ReadError",
    "Rendered",
    "Report",
    "Reporter",
    "SitemapNode",
    "SourceError",
    "SplitSummary",
    "StrictError",
    "Summary",
    "UnknownFormatError",
    "W3CDate",
    "WriteError",
    "__version__",
    "convert",
    "diff",
    "enrich",
    "find_sitemaps",
    "read",
    "register",
    "sitemap_tree",
    "split",
    "transforms",
    "validate",
    "write",
]


# --- feedmap.transforms: the deprecated alias of feedmap.converters, loaded when first read ------------------


def __getattr__(name: str) -> ModuleType:
    """``feedmap.transforms``, imported when first read (so ``import feedmap`` gives no warning): that import
    gives the DeprecationWarning naming ``feedmap.converters``."""
    if name != "transforms":
        raise AttributeError(f"module 'feedmap' has no attribute {name!r}")
    return importlib.import_module("feedmap.transforms")
