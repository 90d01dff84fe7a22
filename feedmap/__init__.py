"""feedmap: convert between XML sitemaps, sitemap indexes, text sitemaps, feeds and JSON lines.

One intermediate representation (:class:`Document` of :class:`Entry`) sits between pluggable readers and
writers (the plugin contract of :mod:`feedmap.formats`).  Reading streams: memory does not grow with the number of URLs.
The steps between them (relative URLs, repeated URLs, ...) are functions of :mod:`feedmap.converters`
(``feedmap.transforms``, their first name, is a deprecated alias kept for one release).
Everything a user may touch is exported here and described in the docs' library guide, docs/library.md (a test
keeps the two in step).

>>> import feedmap
>>> with feedmap.read("samples/sitemap/basic.xml") as doc:       # doctest: +SKIP
...     feedmap.write(doc, "out.txt", "text")
"""

import importlib
from typing import TYPE_CHECKING, Any

# A light import (issue 18): ``import feedmap`` loads none of the modules behind these names (HTTP client,
# HTML sanitizer, SQLite, validation, diff) until a name is first used; PEP 562 module ``__getattr__``.
# Type checkers read the imports below instead.
if TYPE_CHECKING:
    from feedmap import converters, formats
    from feedmap import transforms as transforms  # the deprecated alias: reachable, not in __all__
    from feedmap._api import SplitSummary, Summary, convert, read, split, write
    from feedmap._compiled import accelerated, compiled_parts
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
    from feedmap._core.model import (
        Alternate,
        ChangeFreq,
        DocKind,
        DocMeta,
        Document,
        Entry,
        Image,
        News,
        Position,
        Video,
        VideoPrice,
    )
    from feedmap._core.version import __version__ as __version__
    from feedmap._diff.diff import Change, Changes, diff
    from feedmap._frame import to_dataframe
    from feedmap._info import ChildInfo, Info, info
    from feedmap._report.run import ReportSummary, report
    from feedmap._validate.report import Report, validate
    from feedmap._web.discover import find_sitemaps
    from feedmap._web.sitemaptree import SitemapNode, sitemap_tree
    from feedmap.converters import enrich
    from feedmap.formats._registry import Detection, FormatSpec, Rendered, register
    from feedmap.formats.ext import Extension

#: Where each public name lives, imported when first asked for (``feedmap.read``, ``from feedmap import read``).
_PUBLIC_HOMES = {
    "converters": "feedmap.converters",
    "formats": "feedmap.formats",
    "transforms": "feedmap.transforms",
    "SplitSummary": "feedmap._api",
    "Summary": "feedmap._api",
    "convert": "feedmap._api",
    "read": "feedmap._api",
    "split": "feedmap._api",
    "write": "feedmap._api",
    "HttpSettings": "feedmap._core.context",
    "Options": "feedmap._core.context",
    "Precision": "feedmap._core.dates",
    "W3CDate": "feedmap._core.dates",
    "Diagnostic": "feedmap._core.errors",
    "FeedmapError": "feedmap._core.errors",
    "FetchError": "feedmap._core.errors",
    "FormatError": "feedmap._core.errors",
    "Level": "feedmap._core.errors",
    "LimitError": "feedmap._core.errors",
    "ReadError": "feedmap._core.errors",
    "Reporter": "feedmap._core.errors",
    "SourceError": "feedmap._core.errors",
    "StrictError": "feedmap._core.errors",
    "UnknownFormatError": "feedmap._core.errors",
    "WriteError": "feedmap._core.errors",
    "Alternate": "feedmap._core.model",
    "ChangeFreq": "feedmap._core.model",
    "DocKind": "feedmap._core.model",
    "DocMeta": "feedmap._core.model",
    "Document": "feedmap._core.model",
    "Entry": "feedmap._core.model",
    "Image": "feedmap._core.model",
    "News": "feedmap._core.model",
    "Position": "feedmap._core.model",
    "Video": "feedmap._core.model",
    "VideoPrice": "feedmap._core.model",
    "Change": "feedmap._diff.diff",
    "Changes": "feedmap._diff.diff",
    "diff": "feedmap._diff.diff",
    "to_dataframe": "feedmap._frame",
    "ChildInfo": "feedmap._info",
    "Info": "feedmap._info",
    "info": "feedmap._info",
    "ReportSummary": "feedmap._report.run",
    "report": "feedmap._report.run",
    "Report": "feedmap._validate.report",
    "validate": "feedmap._validate.report",
    "find_sitemaps": "feedmap._web.discover",
    "SitemapNode": "feedmap._web.sitemaptree",
    "sitemap_tree": "feedmap._web.sitemaptree",
    "enrich": "feedmap.converters",
    "Detection": "feedmap.formats._registry",
    "FormatSpec": "feedmap.formats._registry",
    "Rendered": "feedmap.formats._registry",
    "register": "feedmap.formats._registry",
    "Extension": "feedmap.formats.ext",
    "__version__": "feedmap._core.version",
    "accelerated": "feedmap._compiled",
    "compiled_parts": "feedmap._compiled",
}


if not TYPE_CHECKING:  # hidden from type checkers, for which a module __getattr__ would make any name Any

    def __getattr__(name: str) -> Any:
        home = _PUBLIC_HOMES.get(name)
        if home is None:
            raise AttributeError(f"module 'feedmap' has no attribute {name!r}")
        module = importlib.import_module(home)
        value = module if home == f"feedmap.{name}" else getattr(module, name)
        globals()[name] = value  # asked once: later uses are plain module attributes
        return value


def __dir__() -> list[str]:
    # the deprecated alias is not listed (nor in __all__): tools walking dir() or ``import *`` do not load it
    return sorted({*globals(), *_PUBLIC_HOMES} - ({"transforms"} - globals().keys()))


__all__ = [
    "Alternate",
    "Change",
    "ChangeFreq",
    "Changes",
    "ChildInfo",
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
    "Info",
    "Level",
    "LimitError",
    "News",
    "Options",
    "Position",
    "Precision",
    "ReadError",
    "Rendered",
    "Report",
    "ReportSummary",
    "Reporter",
    "SitemapNode",
    "SourceError",
    "SplitSummary",
    "StrictError",
    "Summary",
    "UnknownFormatError",
    "Video",
    "VideoPrice",
    "W3CDate",
    "WriteError",
    "__version__",
    "accelerated",
    "compiled_parts",
    "convert",
    "converters",
    "diff",
    "enrich",
    "find_sitemaps",
    "formats",
    "info",
    "read",
    "register",
    "report",
    "sitemap_tree",
    "split",
    "to_dataframe",
    "validate",
    "write",
]
