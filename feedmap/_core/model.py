"""The intermediate representation (IR) every reader produces and every writer consumes.

One model for all formats: a :class:`Document` is document metadata plus a
one-shot stream of :class:`Entry` values.  A ``<url>`` of a sitemaps.org 0.9 urlset, a ``<sitemap>`` of a
sitemap index, an RSS ``<item>`` and a line of a text sitemap all become an :class:`Entry`.

Field semantics follow https://www.sitemaps.org/protocol.html (loc, lastmod, changefreq, priority), the Google image
extension (image:loc, caption, geo_location, title, license), hreflang ``xhtml:link`` alternates, the Google News
sitemap extension 0.9 (:class:`News`,
https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap) and the Google video sitemap
extension 1.1 (:class:`Video`, https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps).
``lastmod`` is a :class:`~feedmap._core.dates.W3CDate`, which keeps the text and precision as written.  Absent
values stay absent: a missing priority is ``None``, never 0.5.

``extras`` keeps what no IR field holds, so nothing is silently lost.  Two kinds of keys exist:

* ``"{namespace-uri}local"`` (Clark notation): the value is the serialized XML of that foreign element
  (or of several of them, concatenated), re-emitted verbatim by XML writers once it is checked to be just
  that (:mod:`feedmap.formats._extras`: a value that is not is dropped with ``invalid-extra``);
* ``"prefix:name"`` (for example ``"ror:sortOrder"``): the value is plain text.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import enum
import math
import numbers
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import NamedTuple

from feedmap._core.dates import W3CDate
from feedmap._core.errors import Diagnostic

__all__ = [
    "Alternate",
    "ChangeFreq",
    "DocKind",
    "DocMeta",
    "Document",
    "Entry",
    "Image",
    "News",
    "Position",
    "Video",
    "VideoPrice",
    "W3CDate",
]


class ChangeFreq(str, enum.Enum):
    """The seven ``changefreq`` values of sitemaps.org 0.9 (case-sensitive in the XSD)."""

    ALWAYS = "always"
    HOURLY = "hourly"
    DAILY = "daily"
    WEEKLY = "weekly"
    MONTHLY = "monthly"
    YEARLY = "yearly"
    NEVER = "never"

    def __str__(self) -> str:
        return self.value


class DocKind(str, enum.Enum):
    """What a document's entries are: page URLs (``urlset``), child sitemaps (``index``) or feed items."""

    URLSET = "urlset"
    INDEX = "index"
    FEED = "feed"

    def __str__(self) -> str:
        return self.value


class Position(NamedTuple):
    """Where something was read: a source name and a 1-based line (0 when unknown)."""

    source: str
    line: int = 0

    def __str__(self) -> str:
        return f"{self.source}:{self.line}" if self.line else self.source


@dataclass(slots=True, kw_only=True)
class Image:
    """One ``image:image`` of the Google image sitemap extension 1.1 (children in XSD order)."""

    loc: str
    caption: str | None = None
    geo_location: str | None = None
    title: str | None = None
    license: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Alternate:
    """One hreflang alternate: ``<xhtml:link rel="alternate" hreflang="de" href="..."/>``."""

    hreflang: str
    href: str


@dataclass(slots=True, kw_only=True)
class News:
    """One ``news:news`` of the Google News sitemap extension 0.9 (namespace
    ``http://www.google.com/schemas/sitemap-news/0.9``).

    Google requires the publication's name and language (ISO 639, ``zh-cn`` and ``zh-tw`` for Chinese), the
    publication date (W3C Datetime, kept as written) and the title; ``keywords``, ``genres`` (comma-separated),
    ``stock_tickers`` (comma-separated) and ``access`` (``Subscription``, ``Registration``) are the legacy
    elements Google no longer reads, kept as written.  A reader keeps what this type does not name (another
    child, a value it cannot hold) in ``extras``, as :attr:`Entry.extras` keeps foreign elements: under the Clark
    name ``"{namespace}local"``, the element's XML.
    """

    publication_name: str | None = None
    publication_language: str | None = None
    publication_date: W3CDate | None = None
    title: str | None = None
    keywords: str | None = None
    genres: str | None = None
    stock_tickers: str | None = None
    access: str | None = None
    extras: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """``publication_date`` may be given as W3C-DTF text or a datetime/date (as ``Entry.lastmod``); a value of
        another type raises :class:`TypeError`."""
        if self.publication_date is not None and type(self.publication_date) is not W3CDate:
            self.publication_date = _as_date(self.publication_date, "News.publication_date")
        _check_kinds(self, "News", _NEWS_KINDS)


@dataclass(frozen=True, slots=True, kw_only=True)
class VideoPrice:
    """One ``video:price``: the price as written (a decimal, or empty when ``type`` says rent or purchase), its
    ``currency`` (ISO 4217), ``type`` (``rent``, ``purchase``) and ``resolution`` (``HD``, ``SD``)."""

    value: str = ""
    currency: str | None = None
    type: str | None = None
    resolution: str | None = None


@dataclass(slots=True, kw_only=True)
class Video:
    """One ``video:video`` of the Google video sitemap extension 1.1 (namespace
    ``http://www.google.com/schemas/sitemap-video/1.1``); an entry holds several.

    Google requires ``thumbnail_loc``, ``title``, ``description`` and ``content_loc`` or ``player_loc``.
    ``player_allow_embed`` and ``player_autoplay`` are the legacy attributes of ``player_loc``; ``duration`` is in
    seconds, ``rating`` from 0.0 to 5.0, ``view_count`` a count; the dates are W3C Datetime as written; the yes/no
    elements (``family_friendly``, ``requires_subscription``, ``live``) are booleans; ``restriction`` (country
    codes, ISO 3166) and ``platform`` (``web``, ``mobile``, ``tv``) are lists, each with its ``relationship``
    (``allow``, ``deny``); ``uploader_info`` is the ``info`` attribute of ``uploader``.  What the type does not name
    (``category``, ``gallery_loc``, ``id``, ``tvshow``, ``content_segment_loc``, another child, a value it cannot
    hold) is kept in ``extras``, as :attr:`News.extras`.
    """

    thumbnail_loc: str | None = None
    title: str | None = None
    description: str | None = None
    content_loc: str | None = None
    player_loc: str | None = None
    player_allow_embed: bool | None = None
    player_autoplay: str | None = None
    duration: int | None = None
    expiration_date: W3CDate | None = None
    rating: float | None = None
    view_count: int | None = None
    publication_date: W3CDate | None = None
    tags: tuple[str, ...] = ()
    family_friendly: bool | None = None
    restriction: tuple[str, ...] = ()
    restriction_relationship: str | None = None
    prices: tuple[VideoPrice, ...] = ()
    requires_subscription: bool | None = None
    uploader: str | None = None
    uploader_info: str | None = None
    platform: tuple[str, ...] = ()
    platform_relationship: str | None = None
    live: bool | None = None
    extras: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """The dates may be given as W3C-DTF text or a datetime/date, the lists as any iterable of their items; a
        value of another type raises :class:`TypeError`, a count out of 0 to :data:`MAX_COUNT` or a rating that is
        no finite number :class:`ValueError`."""
        for name in ("expiration_date", "publication_date"):
            value = getattr(self, name)
            if value is not None and type(value) is not W3CDate:
                setattr(self, name, _as_date(value, f"Video.{name}"))
        for name in ("tags", "restriction", "platform", "prices"):
            value = getattr(self, name)
            if type(value) is not tuple:
                if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
                    raise TypeError(f"Video.{name} must be a tuple (or another iterable), not {type(value).__name__}")
                setattr(self, name, tuple(value))
        _check_kinds(self, "Video", _VIDEO_KINDS)


@dataclass(slots=True, kw_only=True)
class Entry:
    """One resource: a sitemap ``<url>``, an index ``<sitemap>``, a feed item or a text line.

    ``origin`` records where the entry was read, for diagnostics; it takes no part in equality.
    Entries and images are values: treat them as immutable and derive changed copies with
    :func:`dataclasses.replace`.  They are not ``frozen`` because freezing made building them, once per
    URL read, several times slower (benchmarks/README.md, ``bench_micro.py`` ``entry``).
    """

    loc: str
    lastmod: W3CDate | None = None
    changefreq: ChangeFreq | None = None
    priority: float | None = None
    title: str | None = None
    description: str | None = None
    keywords: tuple[str, ...] = ()
    type: str | None = None
    images: tuple[Image, ...] = ()
    alternates: tuple[Alternate, ...] = ()
    news: News | None = None
    videos: tuple[Video, ...] = ()
    extras: Mapping[str, str] = field(default_factory=dict)
    origin: Position | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        """Coerce the obvious, refuse the rest (also on :func:`dataclasses.replace`).

        ``lastmod`` may be given as W3C-DTF text or a :class:`datetime.datetime`/:class:`datetime.date`,
        ``changefreq`` as one of its seven words, ``priority`` as any real number, ``keywords``,
        ``images``, ``alternates`` and ``videos`` as any iterable; a value of another type raises :class:`TypeError`, a
        text that is not a W3C datetime or a changefreq word :class:`ValueError`.  Values of the right type
        are not checked further here (``priority=2.0`` is kept): writers check them as readers do.
        """
        lastmod, changefreq, priority = self.lastmod, self.changefreq, self.priority
        if (
            type(self.loc) is str
            and (lastmod is None or type(lastmod) is W3CDate)
            and (changefreq is None or type(changefreq) is ChangeFreq)
            and (priority is None or type(priority) is float)
            and type(self.keywords) is tuple
            and type(self.images) is tuple
            and type(self.alternates) is tuple
            and self.news is None
            and type(self.videos) is tuple
        ):
            return  # the common case: one test per field, no call
        _coerce(self)


def _coerce(entry: Entry) -> None:
    if not isinstance(entry.loc, str):
        raise TypeError(f"Entry.loc must be a str, not {type(entry.loc).__name__}")
    entry.lastmod = _as_lastmod(entry.lastmod)
    entry.changefreq = _as_changefreq(entry.changefreq)
    entry.priority = _as_priority(entry.priority)
    if entry.news is not None and not isinstance(entry.news, News):
        raise TypeError(f"Entry.news must be a News or None, not {type(entry.news).__name__}")
    for name in ("keywords", "images", "alternates", "videos"):
        value = getattr(entry, name)
        if type(value) is not tuple:
            if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
                raise TypeError(f"Entry.{name} must be a tuple (or another iterable), not {type(value).__name__}")
            setattr(entry, name, tuple(value))


def _as_lastmod(value: object) -> W3CDate | None:
    return _as_date(value, "Entry.lastmod")


#: The largest count a video holds (``duration``, ``view_count``): an int64, as Parquet and pandas hold it.
MAX_COUNT = 2**63 - 1
_TEXT = "text"
_NEWS_KINDS = {name: _TEXT for name in ("publication_name", "publication_language", "title", "keywords", "genres")}
_NEWS_KINDS.update(stock_tickers=_TEXT, access=_TEXT)
_VIDEO_KINDS = {
    **{name: _TEXT for name in ("thumbnail_loc", "title", "description", "content_loc", "player_loc")},
    **{name: _TEXT for name in ("player_autoplay", "restriction_relationship", "uploader", "uploader_info")},
    **{name: "flag" for name in ("player_allow_embed", "family_friendly", "requires_subscription", "live")},
    "platform_relationship": _TEXT,
    "duration": "count",
    "view_count": "count",
    "rating": "number",
    "tags": "texts",
    "restriction": "texts",
    "platform": "texts",
    "prices": "prices",
}
_KIND_NAMES = {
    _TEXT: "a str",
    "flag": "a bool",
    "count": "an int",
    "number": "a number",
    "texts": "a tuple of str",
    "prices": "a tuple of VideoPrice",
}


def _kind_holds(kind: str, value: object) -> bool:
    if kind == _TEXT:
        return isinstance(value, str)
    if kind == "flag":
        return isinstance(value, bool)
    if kind == "count":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    item = str if kind == "texts" else VideoPrice
    return all(isinstance(one, item) for one in value)  # type: ignore[attr-defined]


def _check_kinds(value: object, what: str, kinds: Mapping[str, str]) -> None:
    """TypeError for a part of a news entry or a video (``what``) holding a value of another kind than its own (a
    count given ``12.7`` is not cut to 12, a flag given ``"no"`` is not true); ValueError for a count or rating out
    of its range.  ``extras`` must be a mapping of strings."""
    for name, kind in kinds.items():
        held = getattr(value, name)
        if held is None or (kind in ("texts", "prices") and held == ()):
            continue
        if not _kind_holds(kind, held):
            raise TypeError(f"{what}.{name} must be {_KIND_NAMES[kind]}, not {type(held).__name__}")
        if kind == "count" and not 0 <= held <= MAX_COUNT:
            raise ValueError(f"{what}.{name} must be from 0 to {MAX_COUNT:,}, not {held}")
        if kind == "number" and not math.isfinite(held):
            raise ValueError(f"{what}.{name} must be a finite number, not {held}")
    extras = getattr(value, "extras")  # noqa: B009  (both types have it)
    if not isinstance(extras, Mapping) or not all(isinstance(one, str) for one in extras.values()):
        raise TypeError(f"{what}.extras must be a mapping of str to str (elements as XML text)")


def _as_date(value: object, what: str) -> W3CDate | None:
    if value is None or isinstance(value, W3CDate):
        return value
    if isinstance(value, str):
        try:
            return W3CDate.parse(value)
        except ValueError:
            shape = "YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ"
            raise ValueError(f"{what} {value!r} is not a W3C datetime ({shape})") from None
    if isinstance(value, (_dt.datetime, _dt.date)):
        return W3CDate.from_datetime(value)
    raise TypeError(f"{what} must be a W3CDate, W3C-DTF text, a datetime or a date, not {type(value).__name__}")


def _as_changefreq(value: object) -> ChangeFreq | None:
    if value is None or isinstance(value, ChangeFreq):
        return value
    if isinstance(value, str):
        try:
            return ChangeFreq(value.strip().lower())
        except ValueError:
            allowed = ", ".join(member.value for member in ChangeFreq)
            raise ValueError(f"Entry.changefreq {value!r} is not one of {allowed}") from None
    raise TypeError(f"Entry.changefreq must be a ChangeFreq or one of its words, not {type(value).__name__}")


def _as_priority(value: object) -> float | None:
    if value is None or type(value) is float:
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, decimal.Decimal):
        return float(value)
    raise TypeError(f"Entry.priority must be a number, not {type(value).__name__}")


def new_entry(
    loc: str,
    lastmod: W3CDate | None,
    changefreq: ChangeFreq | None,
    priority: float | None,
    images: tuple[Image, ...],
    alternates: tuple[Alternate, ...],
    extras: dict[str, str],
    origin: Position | None,
) -> Entry:
    """``Entry(...)`` for readers' hot paths: positional, the other fields empty, no keyword handling.

    Equivalent to the keyword constructor (a test checks it); about twice as fast, which counts when it
    runs once per URL.
    """
    entry = _new_object(Entry)
    entry.loc = loc
    entry.lastmod = lastmod
    entry.changefreq = changefreq
    entry.priority = priority
    entry.title = None
    entry.description = None
    entry.keywords = ()
    entry.type = None
    entry.images = images
    entry.alternates = alternates
    entry.news = None
    entry.videos = ()
    entry.extras = extras
    entry.origin = origin
    return entry


def full_entry(
    loc: str,
    lastmod: W3CDate | None,
    changefreq: ChangeFreq | None,
    priority: float | None,
    title: str | None,
    description: str | None,
    keywords: tuple[str, ...],
    type: str | None,
    images: tuple[Image, ...],
    alternates: tuple[Alternate, ...],
    extras: Mapping[str, str],
    origin: Position | None,
) -> Entry:
    """:func:`new_entry` with every field but ``news`` and ``videos`` (None and empty: set them after): for readers
    that give each one (values already of their type)."""
    entry = _new_object(Entry)
    entry.loc = loc
    entry.lastmod = lastmod
    entry.changefreq = changefreq
    entry.priority = priority
    entry.images = images
    entry.alternates = alternates
    entry.news = None
    entry.videos = ()
    entry.extras = extras
    entry.origin = origin
    entry.title = title
    entry.description = description
    entry.keywords = keywords
    entry.type = type
    return entry


def blank_image() -> Image:
    """``Image(loc="")`` for readers' hot paths, to be filled in attribute by attribute."""
    image = _new_object(Image)
    image.loc = ""
    image.caption = None
    image.geo_location = None
    image.title = None
    image.license = None
    return image


def new_position(source: str, line: int) -> Position:
    """``Position(source, line)`` without the Python-level ``__new__`` of a NamedTuple (hot path)."""
    return _new_tuple(Position, (source, line))


_new_object = object.__new__
_new_tuple = tuple.__new__


#: IR field names, in the order writers use; a FormatSpec's ``fields`` is a subset of these.
ENTRY_FIELDS: tuple[str, ...] = (
    "loc",
    "lastmod",
    "changefreq",
    "priority",
    "title",
    "description",
    "keywords",
    "type",
    "images",
    "alternates",
    "news",
    "videos",
    "extras",
)


@dataclass(slots=True, kw_only=True)
class DocMeta:
    """Document-level metadata: the kind, and a feed channel's title, link, description and last update
    (RSS ``lastBuildDate``, Atom feed ``updated``)."""

    kind: DocKind = DocKind.URLSET
    title: str | None = None
    link: str | None = None
    description: str | None = None
    extras: dict[str, str] = field(default_factory=dict)
    updated: W3CDate | None = None

    def as_kind(self, kind: DocKind) -> DocMeta:
        """A copy of this metadata for a document of another kind (a feed turned into a urlset, ...)."""
        return DocMeta(
            kind=kind,
            title=self.title,
            link=self.link,
            description=self.description,
            extras=dict(self.extras),
            updated=self.updated,
        )

    def is_empty(self) -> bool:
        """True when nothing but the kind is set."""
        return not (self.title or self.link or self.description or self.extras or self.updated)


class Document:
    """Document metadata plus a one-shot stream of entries.

    ``entries`` is consumed once: iterate it (or the document itself) a single time.  A document read
    from a file holds that file open until its entries are exhausted or :meth:`close` is called; use it
    as a context manager to be sure.  ``diagnostics`` is filled while the entries are read.
    """

    __slots__ = ("closers", "diagnostics", "entries", "format", "meta")

    def __init__(
        self,
        meta: DocMeta | None = None,
        entries: Iterable[Entry] = (),
        *,
        diagnostics: list[Diagnostic] | None = None,
    ) -> None:
        self.meta = meta if meta is not None else DocMeta()
        self.entries: Iterable[Entry] = entries
        self.diagnostics: list[Diagnostic] = diagnostics if diagnostics is not None else []
        #: Name of the format the document was read from (set by :func:`feedmap.read`), if any.
        self.format: str | None = None
        #: Called once by :meth:`close`, after the entries: what releases the input (files, HTTP client).
        self.closers: list[Callable[[], None]] = []

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def close(self) -> None:
        """Release the source behind a streaming document (closes an unfinished entry generator).

        Also when the entries were never started: a generator that never ran skips its own ``finally``
        on close, so what holds the input open is released through :attr:`closers` as well.
        """
        close = getattr(self.entries, "close", None)
        if callable(close):
            close()
        while self.closers:
            self.closers.pop(0)()

    def __enter__(self) -> Document:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Document(meta={self.meta!r})"
