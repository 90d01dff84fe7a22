"""feedmap: convert between XML sitemaps, sitemap indexes, text sitemaps, feeds and JSON lines.

One intermediate representation (:class:`Document` of :class:`Entry`) sits between pluggable readers and
writers (see :mod:`feedmap._registry`).  Reading streams: memory does not grow with the number of URLs.
The steps between them (relative URLs, repeated URLs, ...) are functions of :mod:`feedmap.transforms`.

>>> import feedmap
>>> with feedmap.read("samples/sitemap/basic.xml") as doc:       # doctest: +SKIP
...     feedmap.write(doc, "out.txt", format="text")
"""

from feedmap import transforms
from feedmap._dates import Precision, W3CDate
from feedmap._api import Summary, convert, read, write
from feedmap._context import HttpSettings, Options
from feedmap._errors import (
    Diagnostic,
    FeedmapError,
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
from feedmap._model import Alternate, ChangeFreq, DocKind, DocMeta, Document, Entry, Image, Position
from feedmap._registry import FormatSpec, register

__version__ = "0.1.0"

__all__ = [
    "Alternate",
    "ChangeFreq",
    "Diagnostic",
    "DocKind",
    "DocMeta",
    "Document",
    "Entry",
    "FeedmapError",
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
    "Reporter",
    "SourceError",
    "StrictError",
    "Summary",
    "UnknownFormatError",
    "W3CDate",
    "WriteError",
    "__version__",
    "convert",
    "read",
    "register",
    "transforms",
    "write",
]
