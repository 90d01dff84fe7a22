"""The columns of a table of entries, their Apache Arrow types and pandas dtypes: the one definition.

Used by :func:`feedmap.to_dataframe`, the ``parquet`` format (:mod:`feedmap.formats.tabular._parquet`) and
:func:`feedmap.dask.to_dataframe` (its ``meta``).  One row per :class:`~feedmap._core.model.Entry`:

================== ============================================ ====================================================
column             Arrow type (pandas dtype)                    value
================== ============================================ ====================================================
loc                string, not null (``string[pyarrow]``)       ``Entry.loc``
lastmod            timestamp[us, UTC] (``datetime64[us, UTC]``) the instant the lastmod starts at (W3C Datetime:
                                                                missing parts the earliest, a missing zone UTC, as
                                                                :meth:`~feedmap._core.dates.W3CDate.to_datetime`)
lastmod_precision  dictionary (ordered ``category``)            how much was written: year < month < day < minute <
                                                                second < fraction
lastmod_text       string                                       the lastmod as written (its zone offset kept)
changefreq         dictionary (``category``)                    one of the seven sitemaps.org 0.9 values
priority           double (``float64``, NaN when absent)        ``Entry.priority``
title, description string                                       ``Entry.title``, ``Entry.description``
keywords           list<string> (``ArrowDtype``)                ``Entry.keywords``
type               string                                       ``Entry.type``
images             list<struct<loc, caption, geo_location,      ``Entry.images`` (Google image sitemaps 1.1)
                   title, license>> (``ArrowDtype``)
alternates         list<struct<hreflang, href>> (``ArrowDtype``) ``Entry.alternates`` (hreflang links)
news               struct<publication_name, ..., extras>        ``Entry.news`` (Google News sitemaps 0.9): a part
                   (``ArrowDtype``)                             of each of :data:`feedmap._core.media.NEWS_PARTS`
videos             list<struct<thumbnail_loc, ..., extras>>     ``Entry.videos`` (Google video sitemaps 1.1): a part
                   (``ArrowDtype``)                             of each of :data:`feedmap._core.media.VIDEO_PARTS`
extras             map<string, string> (``ArrowDtype``)          ``Entry.extras``: every other extension element
                                                                as its XML, ``prefix:name`` text
sitemap            string                                       the file or URL the entry was read from
                                                                (``Entry.origin``; an index followed: the child)
line               int64 (``Int64``, NA when unknown)           its line there (``Entry.origin``)
================== ============================================ ====================================================

Absent values are null (NA), never a default: no priority 0.5, no empty title.  Lists are never null (an entry
without images has an empty list).  A part of ``news`` or of a video is typed by its kind
(:mod:`feedmap._core.media`): a text or a date (its W3C Datetime text as written) a string, a flag a bool, a
count an int64, a number a double, a list of texts a list of strings, prices a list of structs of strings, the
leftovers (``extras``) a map.  ``explode`` (:data:`EXPLODABLE`) puts one item of a list column per row, its
parts as columns of their own (``images``: ``image_loc``, ``image_caption``, ...).  The lists of a list
column are named ``element`` (the Parquet format's LIST layout), so a Parquet file read back has these types.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from feedmap._core.dates import Precision
from feedmap._core.media import NEWS_PARTS, PRICE_PARTS, VIDEO_PARTS
from feedmap._core.model import ChangeFreq
from feedmap._table.needs import arrow, pandas

__all__ = [
    "CHANGEFREQS",
    "COLUMNS",
    "EXPLODABLE",
    "IMAGE_PARTS",
    "PRECISIONS",
    "Column",
    "arrow_type",
    "columns",
    "dtypes",
    "schema",
]

#: The seven changefreq values, in the protocol's order (the categories of ``changefreq``).
CHANGEFREQS: tuple[str, ...] = tuple(member.value for member in ChangeFreq)
#: The precisions of a lastmod, coarsest first (the ordered categories of ``lastmod_precision``).
PRECISIONS: tuple[str, ...] = tuple(member.name.lower() for member in sorted(Precision))
#: The parts of an image (``feedmap.Image``'s fields, the children of ``image:image`` in XSD order).
IMAGE_PARTS: tuple[str, ...] = ("loc", "caption", "geo_location", "title", "license")
ALTERNATE_PARTS: tuple[str, ...] = ("hreflang", "href")


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its name and kind (``text``, ``instant``, ``category``, ``number``, ``count``, ``texts``,
    ``records``, ``pairs``, ``news``, ``videos``), its categories (``category``) or parts (``records``)."""

    name: str
    kind: str
    categories: tuple[str, ...] = ()
    ordered: bool = False
    parts: tuple[str, ...] = ()
    required: bool = False


COLUMNS: tuple[Column, ...] = (
    Column("loc", "text", required=True),
    Column("lastmod", "instant"),
    Column("lastmod_precision", "category", PRECISIONS, ordered=True),
    Column("lastmod_text", "text"),
    Column("changefreq", "category", CHANGEFREQS),
    Column("priority", "number"),
    Column("title", "text"),
    Column("description", "text"),
    Column("keywords", "texts"),
    Column("type", "text"),
    Column("images", "records", parts=IMAGE_PARTS),
    Column("alternates", "records", parts=ALTERNATE_PARTS),
    Column("news", "news"),
    Column("videos", "videos"),
    Column("extras", "pairs"),
    Column("sitemap", "text"),
    Column("line", "count"),
)

#: The list columns ``explode`` takes, and the prefix of the columns their items become.
EXPLODABLE: dict[str, str] = {"images": "image", "alternates": "alternate", "keywords": "keyword"}

_WHAT = "a table of entries"


def columns(explode: str | None = None) -> tuple[Column, ...]:
    """The columns of a table, ``explode``'s list column replaced by the columns of one item (ValueError for a
    column that cannot be exploded)."""
    if explode is None:
        return COLUMNS
    if explode not in EXPLODABLE:
        raise ValueError(f"explode={explode!r}: give one of {', '.join(map(repr, EXPLODABLE))}, or None")
    prefix = EXPLODABLE[explode]
    made: list[Column] = []
    for column in COLUMNS:
        if column.name != explode:
            made.append(column)
        elif column.parts:
            made.extend(Column(f"{prefix}_{part}", "text") for part in column.parts)
        else:
            made.append(Column(prefix, "text"))
    return tuple(made)


def arrow_type(column: Column) -> Any:
    """The Arrow type of ``column``."""
    pa = arrow(_WHAT)
    kind = column.kind
    if kind == "text":
        return pa.string()
    if kind == "instant":
        return pa.timestamp("us", tz="UTC")
    if kind == "category":
        return pa.dictionary(pa.int8(), pa.string(), ordered=column.ordered)
    if kind == "number":
        return pa.float64()
    if kind == "count":
        return pa.int64()
    if kind == "texts":
        return pa.list_(pa.field("element", pa.string()))
    if kind == "records":
        return pa.list_(pa.field("element", pa.struct([(part, pa.string()) for part in column.parts])))
    if kind == "news":
        return _struct(pa, NEWS_PARTS)
    if kind == "videos":
        return pa.list_(pa.field("element", _struct(pa, VIDEO_PARTS)))
    assert kind == "pairs", kind
    return pa.map_(pa.string(), pa.string())


def _struct(pa: Any, parts: tuple[tuple[str, str], ...]) -> Any:
    """The Arrow struct of a news entry's or a video's parts (:mod:`feedmap._core.media`), each by its kind."""
    price = pa.struct([(part, pa.string()) for part in PRICE_PARTS])
    types = {
        "text": pa.string(),
        "date": pa.string(),
        "flag": pa.bool_(),
        "count": pa.int64(),
        "number": pa.float64(),
        "texts": pa.list_(pa.field("element", pa.string())),
        "prices": pa.list_(pa.field("element", price)),
        "pairs": pa.map_(pa.string(), pa.string()),
    }
    return pa.struct([(name, types[kind]) for name, kind in parts])


@functools.lru_cache(maxsize=8)
def schema(explode: str | None = None) -> Any:
    """The Arrow schema of a table of entries (``explode``: as :func:`columns`)."""
    pa = arrow(_WHAT)
    return pa.schema([pa.field(one.name, arrow_type(one), nullable=not one.required) for one in columns(explode)])


def dtype(column: Column) -> Any:
    """The pandas dtype of ``column``."""
    pd = pandas(_WHAT)
    kind = column.kind
    if kind == "text":
        return pd.StringDtype("pyarrow")
    if kind == "instant":
        return pd.DatetimeTZDtype(unit="us", tz="UTC")
    if kind == "category":
        return pd.CategoricalDtype(list(column.categories), ordered=column.ordered)
    if kind == "number":
        return pd.api.types.pandas_dtype("float64")
    if kind == "count":
        return pd.Int64Dtype()
    return pd.ArrowDtype(arrow_type(column))


def dtypes(explode: str | None = None) -> dict[str, Any]:
    """The pandas dtype of each column, by name, in order."""
    return {one.name: dtype(one) for one in columns(explode)}
