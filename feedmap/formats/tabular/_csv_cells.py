"""The cells of a CSV file of entries, both ways: one job, each field as the text of one cell.

The columns are those of :mod:`feedmap._table.columns` (the names and the order of ``feedmap.to_dataframe`` and of
the Parquet format), less those a CSV cell does not need: ``lastmod_precision`` and ``lastmod_text`` (the lastmod
cell is its W3C Datetime text as written, its precision and offset kept), ``sitemap`` and ``line`` (where a row was
read: the CSV file holds what was read, not where).  So ``loc, lastmod, changefreq, priority, title, description,
keywords, type, images, alternates, news, videos, extras``; ``explode`` puts one item of a list column per row, its
parts as columns in its place (``images``: ``image_loc, image_caption, image_geo_location, image_title,
image_license``; ``alternates``: ``alternate_hreflang, alternate_href``; ``keywords``: ``keyword``), as
``to_dataframe`` does.

Each cell is text (RFC 4180 has no types): ``loc``, ``title``, ``description``, ``type`` as they are; ``lastmod``
the W3C Datetime as written; ``changefreq`` its word; ``priority`` an ``xsd:decimal`` (``0.5``, never an exponent);
``keywords``, ``images`` and ``alternates`` a JSON list (RFC 8259), its objects those of JSON lines (``{"loc": ...,
"caption": ...}``, ``{"hreflang": ..., "href": ...}``), ``news`` a JSON object and ``videos`` a JSON list of objects
(those of JSON lines: :mod:`feedmap._core.media`'s plain forms), ``extras`` a JSON object of strings (elements of
other extensions as their XML under ``{namespace}local``, or as ``prefix:name`` text).  An empty cell is no
value: an empty title and no title are the same cell.  Read, ``keywords`` may also be comma-separated text
(``tea, green``), as a spreadsheet user types them; each value is checked as the other readers check it
(:mod:`feedmap.formats._fields`, the JSON values of :mod:`feedmap.formats.lines._jsonl_values`).

``excel_safe`` (OWASP, "CSV Injection", https://owasp.org/www-community/attacks/CSV_Injection): a spreadsheet runs a
cell whose first character is ``=``, ``+``, ``-`` or ``@`` (or a tab, a CR; NUL in OWASP ASVS 5.0 1.2.10) as a
formula, which can fetch URLs or start programs on the machine of whoever opens the file; such a cell is written
after a ``'``, which spreadsheets take as "this is text" and show without it.  So that reading it back is exact, a
cell of ``'`` characters before such a character gets one more ``'`` too (:data:`_FORMULA`), and reading with
``excel_safe`` takes one ``'`` off exactly those cells.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from functools import partial
from typing import Any

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate
from feedmap._core.media import plain_news, plain_video
from feedmap._core.model import Alternate, ChangeFreq, Entry, Image, Video, full_entry, new_position
from feedmap._core.urls import check_loc
from feedmap._table.columns import COLUMNS, EXPLODABLE, IMAGE_PARTS, columns
from feedmap.formats._fields import (
    _CHANGEFREQS,
    PLAIN_PRIORITIES,
    read_changefreq,
    read_lastmod,
    read_loc,
    read_priority,
)
from feedmap.formats._output import encoded_url
from feedmap.formats.lines._jsonl_values import (
    Bad,
    alternates_of,
    decode,
    extras_of,
    images_of,
    news_value,
    string_list,
    videos_value,
)

__all__ = [
    "ITEM_PARTS",
    "RISKY_FIRST",
    "Bad",
    "column_names",
    "entry_of",
    "escaped",
    "item_cells",
    "item_of",
    "risky",
    "row_cells",
    "unescaped",
]

#: The columns of :mod:`feedmap._table.columns` a CSV file does not hold (see the module's docstring).
_LEFT_OUT = frozenset({"lastmod_precision", "lastmod_text", "sitemap", "line"})
#: The list columns, each with the columns of one of its items when exploded (``columns(explode)``'s names).
ITEM_PARTS: dict[str, tuple[str, ...]] = {
    name: tuple(one.name for one in columns(name) if one.name not in {column.name for column in COLUMNS})
    for name in EXPLODABLE
}


def column_names(explode: str | None = None) -> tuple[str, ...]:
    """The header of a CSV file of entries, ``explode``'s list column replaced by the parts of one item."""
    return tuple(one.name for one in columns(explode) if one.name not in _LEFT_OUT)


# ------------------------------------------------------------------------------------------------ writing

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def priority_text(priority: float) -> str:
    """A priority as an ``xsd:decimal``: its shortest repr, written without an exponent (``1e-05``: ``0.00001``)."""
    text = _PRIORITY_TEXTS.get(priority)
    if text is None:
        text = repr(priority)
        if "e" in text:
            text = format(Decimal(text), "f")
    return text


#: The usual priorities' text (0.0, 0.1, ... 1.0, and in hundredths): written without a call to repr.
_PRIORITY_TEXTS = {value: repr(value) for value in PLAIN_PRIORITIES.values()}


def row_cells(entry: Entry, ctx: Context) -> list[str]:
    """The cells of the columns of :func:`column_names` (no list exploded), in order; URLs encoded with
    ``encode_urls`` (each change reported)."""
    lastmod, changefreq, priority = entry.lastmod, entry.changefreq, entry.priority
    url: Callable[[str], str] = _as_it_is
    if ctx.options.encode_urls:
        url = partial(encoded_url, ctx=ctx, entry=entry)
    loc = url(entry.loc)
    keywords, images, alternates, extras = entry.keywords, entry.images, entry.alternates, entry.extras
    return [
        loc,
        lastmod.text if lastmod is not None else "",
        changefreq.value if changefreq is not None else "",
        priority_text(priority) if priority is not None else "",
        entry.title or "",
        entry.description or "",
        _dumps(list(keywords)) if keywords else "",
        entry.type or "",
        _dumps([_image_object(image, url) for image in images]) if images else "",
        _dumps([{"hreflang": one.hreflang, "href": url(one.href)} for one in alternates]) if alternates else "",
        _dumps(plain_news(entry.news)) if entry.news is not None else "",
        _dumps([_video_object(video, url) for video in entry.videos]) if entry.videos else "",
        _dumps(dict(extras)) if extras else "",
    ]


def _as_it_is(url: str) -> str:
    return url


def _image_object(image: Image, url: Callable[[str], str]) -> dict[str, str]:
    found = {part: getattr(image, part) for part in IMAGE_PARTS if getattr(image, part) is not None}
    found["loc"] = url(image.loc)
    return found


#: The parts of a video that are URLs, written as the XML writers write them (``encode_urls``).
_VIDEO_URLS = ("thumbnail_loc", "content_loc", "player_loc", "uploader_info")


def _video_object(video: Video, url: Callable[[str], str]) -> dict[str, Any]:
    found = plain_video(video)
    for part in _VIDEO_URLS:
        if part in found:
            found[part] = url(found[part])
    return found


def item_cells(entry: Entry, explode: str, ctx: Context) -> list[list[str]]:
    """The cells of the parts of each item of the list ``explode`` (a row each; none: one row of empty parts), in
    the order of ``ITEM_PARTS[explode]``."""
    url = partial(encoded_url, ctx=ctx, entry=entry) if ctx.options.encode_urls else _as_it_is
    if explode == "keywords":
        rows = [[keyword] for keyword in entry.keywords if keyword]
        if len(rows) < len(entry.keywords):  # an empty cell is no keyword: it would be read as a row of none
            ctx.warning("keyword-changed", f"an empty keyword of {entry.loc} has no row of its own; left out")
    elif explode == "alternates":
        rows = [[one.hreflang, url(one.href)] for one in entry.alternates]
    else:
        rows = [[url(image.loc), *(getattr(image, part) or "" for part in IMAGE_PARTS[1:])] for image in entry.images]
    return rows or [[""] * len(ITEM_PARTS[explode])]


#: A cell a spreadsheet would run as a formula, after any number of ``'`` (see the module's docstring).
_FORMULA = re.compile("'*[=+\\-@\t\r\0]")


#: The first characters of a cell that a spreadsheet runs as a formula.
RISKY_FIRST = frozenset("=+-@\t\r\0")


def risky(cell: str) -> bool:
    """Whether a spreadsheet would run ``cell`` as a formula (its first character is one of ``=+-@``, tab, CR, NUL)."""
    return cell[:1] in RISKY_FIRST


def escaped(cell: str) -> str:
    """``cell`` as ``excel_safe`` writes it: after a ``'`` when it is risky, or ``'`` characters then risky."""
    return "'" + cell if cell[:1] in _ESCAPED_FIRST and _FORMULA.match(cell) is not None else cell


_ESCAPED_FIRST = RISKY_FIRST | {"'"}


def unescaped(cell: str) -> str:
    """``cell`` as ``excel_safe`` reads it: one ``'`` taken off a cell :func:`escaped` gave one (the inverse)."""
    return cell[1:] if cell[:1] == "'" and _FORMULA.match(cell, 1) is not None else cell


# ------------------------------------------------------------------------------------------------ reading


def _json_cell(cells: Mapping[str, str], name: str) -> Any:
    """The JSON value of a cell, or None when it is empty; :class:`Bad` when it is no JSON."""
    text = cells.get(name, "")
    if not text.strip():
        return None
    try:
        return decode(text.strip())
    except (ValueError, RecursionError) as exc:
        raise Bad(f"the {name} cell is not JSON ({exc})") from None


def _keywords(text: str) -> tuple[str, ...]:
    """A JSON list of keywords, else comma-separated keywords (``tea, green``), each trimmed."""
    if not text:
        return ()
    if text.lstrip().startswith("["):
        return string_list(_json_cell({"keywords": text}, "keywords"), "keywords")
    return tuple(part.strip() for part in text.split(",") if part.strip())


def entry_of(cells: Mapping[str, str], ctx: Context, line: int, *, decimal_comma: bool = False) -> Entry | None:
    """The entry of a row's cells (by column name), each value checked as the other readers check it; None when
    the row holds no entry (no loc, a JSON cell of the wrong shape: reported, the row skipped)."""
    get = cells.get
    try:  # each JSON cell looked at only when it holds something (nearly every row: none)
        keywords = _keywords(get("keywords") or "")
        images = images_of(_json_cell(cells, "images")) if get("images") else ()
        alternates = alternates_of(_json_cell(cells, "alternates")) if get("alternates") else ()
        news = news_value(_json_cell(cells, "news")) if get("news") else None
        videos = videos_value(_json_cell(cells, "videos")) if get("videos") else ()
        extras = _json_cell(cells, "extras") if get("extras") else None
    except Bad as exc:
        ctx.warning("invalid-value", f"{exc}; row skipped", line)
        return None
    loc = get("loc")
    if not loc or check_loc(loc) is not None:  # what read_loc reports or resolves; else it gives the loc as it is
        loc = read_loc(loc or None, ctx, line)
        if loc is None:
            return None
    entry = full_entry(
        loc,
        _lastmod(get("lastmod"), ctx, line),
        _changefreq(get("changefreq"), ctx, line),
        _priority(get("priority"), ctx, line, decimal_comma),
        get("title") or None,
        get("description") or None,
        keywords,
        get("type") or None,
        images,
        alternates,
        extras_of(extras, ctx, line) if extras is not None else {},
        new_position(ctx.name, line),
    )
    entry.news, entry.videos = news, videos
    return entry


def _lastmod(text: str | None, ctx: Context, line: int) -> W3CDate | None:
    if not text or not text.strip():
        return None
    try:
        return W3CDate(text)  # what read_lastmod tries first, without its call
    except ValueError:
        return read_lastmod(text, ctx, line)


def _changefreq(text: str | None, ctx: Context, line: int) -> ChangeFreq | None:
    if not text or not text.strip():
        return None
    return _CHANGEFREQS.get(text) or read_changefreq(text, ctx, line)


_DECIMAL_COMMA = re.compile(r"[0-9]*,[0-9]+")


def _priority(text: str | None, ctx: Context, line: int, decimal_comma: bool) -> float | None:
    """A priority cell; in a file of semicolons, a decimal comma (``0,8``, as such an Excel writes it) is a point."""
    if not text:
        return None
    plain = PLAIN_PRIORITIES.get(text)
    if plain is not None:  # the usual ones, as read_priority reads them first
        return plain
    if not text.strip():
        return None
    if decimal_comma and _DECIMAL_COMMA.fullmatch(text.strip()) is not None:
        value = read_priority(text.strip().replace(",", "."), ctx, line)
        ctx.info("priority-normalised", f"priority {text.strip()} (a decimal comma) read as {value!r}", line)
        return value
    return read_priority(text, ctx, line)


def item_of(cells: Mapping[str, str], explode: str) -> Image | Alternate | str | None:
    """The item of the list ``explode`` a row of that layout names (None: its part cells are empty); :class:`Bad`
    for parts without the one an item needs (an image without ``image_loc``, an alternate without both)."""
    parts = {part: cells.get(part, "") for part in ITEM_PARTS[explode]}
    if not any(parts.values()):
        return None
    if explode == "keywords":
        return parts["keyword"]
    if explode == "alternates":
        if not parts["alternate_hreflang"] or not parts["alternate_href"]:
            raise Bad("an alternate needs both its alternate_hreflang and alternate_href cells")
        return Alternate(hreflang=parts["alternate_hreflang"], href=parts["alternate_href"])
    if not parts["image_loc"]:
        raise Bad("an image's cells without its image_loc")
    return Image(**{part: parts[f"image_{part}"] or None for part in IMAGE_PARTS})  # type: ignore[arg-type]
