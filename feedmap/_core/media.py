"""News and videos as plain values: what JSON lines, CSV cells, Arrow columns and ``--jobs`` spill files hold.

One table of the parts of :class:`~feedmap._core.model.News` (Google News sitemaps 0.9,
https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap) and
:class:`~feedmap._core.model.Video` (Google video sitemaps 1.1,
https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps), each with its kind, and the
two ways between a value and its plain form: a dict of JSON types (RFC 8259), keys in the parts' order, absent
and empty parts left out.  A date is its W3C Datetime text as written; a list a JSON list; a price an object of
its parts; ``extras`` an object of strings.  :func:`news_of` and :func:`video_of` read a plain form back and
raise :class:`ValueError` (its message names the part) for a value of the wrong type, a date that is no W3C
Datetime or a part the type does not have.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from feedmap._core.dates import W3CDate
from feedmap._core.model import News, Video, VideoPrice

__all__ = ["NEWS_PARTS", "PRICE_PARTS", "VIDEO_PARTS", "news_of", "plain_news", "plain_video", "video_of"]

#: The parts of a news entry, in the IR's order, with their kind: ``text``, ``date`` (W3C Datetime), ``pairs``
#: (the leftovers: an object of strings).
NEWS_PARTS: tuple[tuple[str, str], ...] = (
    ("publication_name", "text"),
    ("publication_language", "text"),
    ("publication_date", "date"),
    ("title", "text"),
    ("keywords", "text"),
    ("genres", "text"),
    ("stock_tickers", "text"),
    ("access", "text"),
    ("extras", "pairs"),
)
#: The parts of a video, with their kind: also ``flag`` (a boolean), ``count`` (an integer), ``number`` (a
#: float), ``texts`` (a list of strings) and ``prices`` (a list of :data:`PRICE_PARTS` objects).
VIDEO_PARTS: tuple[tuple[str, str], ...] = (
    ("thumbnail_loc", "text"),
    ("title", "text"),
    ("description", "text"),
    ("content_loc", "text"),
    ("player_loc", "text"),
    ("player_allow_embed", "flag"),
    ("player_autoplay", "text"),
    ("duration", "count"),
    ("expiration_date", "date"),
    ("rating", "number"),
    ("view_count", "count"),
    ("publication_date", "date"),
    ("tags", "texts"),
    ("family_friendly", "flag"),
    ("restriction", "texts"),
    ("restriction_relationship", "text"),
    ("prices", "prices"),
    ("requires_subscription", "flag"),
    ("uploader", "text"),
    ("uploader_info", "text"),
    ("platform", "texts"),
    ("platform_relationship", "text"),
    ("live", "flag"),
    ("extras", "pairs"),
)
#: The parts of a price (all text; ``value`` is "" for a price of no amount).
PRICE_PARTS: tuple[str, ...] = ("value", "currency", "type", "resolution")


def _plain(value: object, parts: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, kind in parts:
        part = getattr(value, name)
        if part is None or (kind in ("texts", "prices", "pairs") and not part):
            continue
        if kind == "date":
            out[name] = part.text
        elif kind == "texts":
            out[name] = list(part)
        elif kind == "prices":
            out[name] = [
                {key: getattr(price, key) for key in PRICE_PARTS if getattr(price, key) is not None} for price in part
            ]
        elif kind == "pairs":
            out[name] = dict(part)
        else:
            out[name] = part
    return out


def plain_news(news: News) -> dict[str, Any]:
    """The plain form of a news entry (see the module's docstring)."""
    return _plain(news, NEWS_PARTS)


def plain_video(video: Video) -> dict[str, Any]:
    """The plain form of a video (see the module's docstring)."""
    return _plain(video, VIDEO_PARTS)


def _type_name(value: Any) -> str:
    return "float" if isinstance(value, Decimal) else type(value).__name__


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string, not {_type_name(value)}")
    return value


def _date(value: Any, what: str) -> W3CDate:
    text = _text(value, what)
    try:
        return W3CDate(text)
    except ValueError:
        raise ValueError(f"{what} must be a W3C Datetime, not {text[:40]!r}") from None


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, not {_type_name(value)}")
    return value


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise ValueError(f"{what} must be a number, not {_type_name(value)}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{what} must be a finite number")
    return number


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{what} must be true or false, not {_type_name(value)}")
    return value


def _texts(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{what} must be a list of strings")
    return tuple(value)


def _prices(value: Any, what: str) -> tuple[VideoPrice, ...]:
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list of objects")
    prices = []
    for item in value:
        if not isinstance(item, dict) or not item.keys() <= set(PRICE_PARTS):
            raise ValueError(f"each of {what} must be an object of {', '.join(PRICE_PARTS)}")
        parts = {key: _text(item[key], f"{what} {key}") for key in PRICE_PARTS if item.get(key) is not None}
        prices.append(VideoPrice(**parts))
    return tuple(prices)


def _pairs(value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise ValueError(f"{what} must be an object of strings")
    return dict(value)


_READERS = {
    "text": _text,
    "date": _date,
    "count": _count,
    "number": _number,
    "flag": _flag,
    "texts": _texts,
    "prices": _prices,
    "pairs": _pairs,
}


def _values(value: Any, parts: tuple[tuple[str, str], ...], what: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{what!r} must be an object, not {_type_name(value)}")
    kinds = dict(parts)
    unknown = sorted(key for key in value if key not in kinds)
    if unknown:
        raise ValueError(f"unknown {what} keys: {', '.join(map(str, unknown))}")
    return {key: _READERS[kinds[key]](item, f"{what} {key!r}") for key, item in value.items() if item is not None}


def news_of(value: Any) -> News:
    """The news entry of a plain form; ValueError (naming the part) for one that is not (see the module's
    docstring)."""
    return News(**_values(value, NEWS_PARTS, "news"))


def video_of(value: Any) -> Video:
    """The video of a plain form; ValueError (naming the part) for one that is not."""
    return Video(**_values(value, VIDEO_PARTS, "video"))
