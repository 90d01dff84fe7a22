"""The cells of a CSV file of entries, both ways: one job, each field as the text of one cell.

The columns are those of :mod:`feedmap._table.columns` (the names and the order of ``feedmap.to_dataframe`` and of
the Parquet format), less those a CSV cell does not need: ``lastmod_precision`` and ``lastmod_text`` (the lastmod
cell is its W3C Datetime text as written, its precision and offset kept), ``sitemap`` and ``line`` (where a row was
read: the CSV file holds what was read, not where).  So ``loc, lastmod, changefreq, priority, title, description,
keywords, type, images, alternates, extras``; ``explode`` puts one item of a list column per row, its parts as
columns in its place (``images``: ``image_loc, image_caption, image_geo_location, image_title, image_license``;
``alternates``: ``alternate_hreflang, alternate_href``; ``keywords``: ``keyword``), as ``to_dataframe`` does.

Each cell is text (RFC 4180 has no types): ``loc``, ``title``, ``description``, ``type`` as they are; ``lastmod``
the W3C Datetime as written; ``changefreq`` its word; ``priority`` an ``xsd:decimal`` (``0.5``, never an exponent);
``keywords``, ``images`` and ``alternates`` a JSON list (RFC 8259), its objects those of JSON lines (``{"loc": ...,
"caption": ...}``, ``{"hreflang": ..., "href": ...}``), ``extras`` a JSON object of strings (Google news and video
elements as their XML under ``{namespace}local``, other extensions as ``prefix:name`` text).  An empty cell is no
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
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from feedmap._core.context import Context
from feedmap._core.model import Alternate, Entry, Image, new_position
from feedmap._table.columns import COLUMNS, EXPLODABLE, IMAGE_PARTS, columns
from feedmap.formats._fields import read_changefreq, read_lastmod, read_loc, read_priority
from feedmap.formats._output import encoded_url
from feedmap.formats.lines._jsonl_values import (
    Bad,
    alternates_of,
    decode,
    extras_of,
    images_of,
    string_list,
)

__all__ = [
    "ITEM_PARTS",
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


def _json(value: Any) -> str:
    return _dumps(value) if value else ""


def priority_text(priority: float) -> str:
    """A priority as an ``xsd:decimal``: its shortest repr, written without an exponent (``1e-05``: ``0.00001``)."""
    text = repr(priority)
    return format(Decimal(text), "f") if "e" in text else text


def row_cells(entry: Entry, ctx: Context) -> dict[str, str]:
    """The cell of each column but an exploded one's parts; URLs encoded with ``encode_urls`` (reported)."""
    encode = ctx.options.encode_urls
    url = (lambda text: encoded_url(text, ctx, entry)) if encode else (lambda text: text)
    lastmod, changefreq, priority = entry.lastmod, entry.changefreq, entry.priority
    return {
        "loc": url(entry.loc),
        "lastmod": lastmod.text if lastmod is not None else "",
        "changefreq": changefreq.value if changefreq is not None else "",
        "priority": priority_text(priority) if priority is not None else "",
        "title": entry.title or "",
        "description": entry.description or "",
        "keywords": _json(list(entry.keywords)),
        "type": entry.type or "",
        "images": _json([_image_object(image, url) for image in entry.images]),
        "alternates": _json([{"hreflang": one.hreflang, "href": url(one.href)} for one in entry.alternates]),
        "extras": _json(dict(entry.extras)),
    }


def _image_object(image: Image, url: Any) -> dict[str, str]:
    found = {part: getattr(image, part) for part in IMAGE_PARTS if getattr(image, part) is not None}
    found["loc"] = url(image.loc)
    return found


def item_cells(entry: Entry, explode: str, ctx: Context) -> list[dict[str, str]]:
    """The cells of the parts of each item of the list ``explode`` (one row each; none: one row of empty parts)."""
    parts = ITEM_PARTS[explode]
    encode = ctx.options.encode_urls
    if explode == "keywords":
        return [{parts[0]: keyword} for keyword in entry.keywords] or [{parts[0]: ""}]
    if explode == "alternates":
        return [
            dict(zip(parts, (one.hreflang, encoded_url(one.href, ctx, entry) if encode else one.href), strict=True))
            for one in entry.alternates
        ] or [dict.fromkeys(parts, "")]
    rows = []
    for image in entry.images:
        cells = {f"image_{part}": getattr(image, part) or "" for part in IMAGE_PARTS}
        cells["image_loc"] = encoded_url(image.loc, ctx, entry) if encode else image.loc
        rows.append(cells)
    return rows or [dict.fromkeys(parts, "")]


#: A cell a spreadsheet would run as a formula, after any number of ``'`` (see the module's docstring).
_FORMULA = re.compile("'*[=+\\-@\t\r\0]")


def risky(cell: str) -> bool:
    """Whether a spreadsheet would run ``cell`` as a formula (its first character is one of ``=+-@``, tab, CR, NUL)."""
    return cell[:1] in _RISKY_FIRST


_RISKY_FIRST = frozenset("=+-@\t\r\0")


def escaped(cell: str) -> str:
    """``cell`` as ``excel_safe`` writes it: after a ``'`` when it is risky, or ``'`` characters then risky."""
    return "'" + cell if cell[:1] in _ESCAPED_FIRST and _FORMULA.match(cell) is not None else cell


_ESCAPED_FIRST = _RISKY_FIRST | {"'"}


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
    if text.lstrip().startswith("["):
        return string_list(_json_cell({"keywords": text}, "keywords"), "keywords")
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _text(cells: Mapping[str, str], name: str) -> str | None:
    return cells.get(name) or None


def entry_of(cells: Mapping[str, str], ctx: Context, line: int, *, decimal_comma: bool = False) -> Entry | None:
    """The entry of a row's cells (by column name), each value checked as the other readers check it; None when
    the row holds no entry (no loc, a JSON cell of the wrong shape: reported, the row skipped)."""
    try:
        keywords = _keywords(cells.get("keywords", ""))
        images = images_of(_json_cell(cells, "images"))
        alternates = alternates_of(_json_cell(cells, "alternates"))
        extras = _json_cell(cells, "extras")
    except Bad as exc:
        ctx.warning("invalid-value", f"{exc}; row skipped", line)
        return None
    loc = read_loc(cells.get("loc") or None, ctx, line)
    if loc is None:
        return None
    lastmod, changefreq = cells.get("lastmod", ""), cells.get("changefreq", "")
    return Entry(
        loc=loc,
        lastmod=read_lastmod(lastmod, ctx, line) if lastmod.strip() else None,
        changefreq=read_changefreq(changefreq, ctx, line) if changefreq.strip() else None,
        priority=_priority(cells.get("priority", ""), ctx, line, decimal_comma),
        title=_text(cells, "title"),
        description=_text(cells, "description"),
        keywords=keywords,
        type=_text(cells, "type"),
        images=images,
        alternates=alternates,
        extras=extras_of(extras, ctx, line) if extras is not None else {},
        origin=new_position(ctx.name, line),
    )


_DECIMAL_COMMA = re.compile(r"[0-9]*,[0-9]+")


def _priority(text: str, ctx: Context, line: int, decimal_comma: bool) -> float | None:
    """A priority cell; in a file of semicolons, a decimal comma (``0,8``, as such an Excel writes it) is a point."""
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
