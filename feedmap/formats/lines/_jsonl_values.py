"""The values of a JSON Lines entry (https://jsonlines.org/, JSON as RFC 8259) read into IR types.

One job: turn each JSON value of a :mod:`feedmap.formats.lines._jsonl` line into its field's type, raising
:class:`Bad` (its message names the key) for a value of the wrong JSON type; also :func:`decode`, the JSON
parser of every line.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from feedmap._core.context import Context
from feedmap._core.media import news_of, video_of
from feedmap._core.model import Alternate, Image, News, Video, blank_image
from feedmap.formats._extras import valid_extras

__all__ = [
    "IMAGE_KEYS",
    "Bad",
    "alternates_of",
    "decode",
    "extras_of",
    "images_of",
    "news_value",
    "priority_of",
    "string_list",
    "string_map",
    "text_of",
    "videos_value",
]

IMAGE_KEYS = ("loc", "caption", "geo_location", "title", "license")
IMAGE_KEY_SET = frozenset(IMAGE_KEYS)

_DECODER = json.JSONDecoder(parse_float=Decimal)
_RAW_DECODE = _DECODER.raw_decode


def decode(text: str) -> Any:
    """``json.loads(text, parse_float=Decimal)`` (fractions as Decimal, see :func:`priority`) with one decoder
    for every line: json.loads builds a new one for each call with an argument."""
    if text.startswith("\ufeff"):
        return json.loads(text, parse_float=Decimal)  # its own message for a byte order mark
    try:  # what decode() does, less its look for blanks around the value: a line read is stripped
        obj, end = _RAW_DECODE(text)
    except ValueError:
        end = -1
    if end != len(text):
        return _DECODER.decode(text)  # blanks around the value are fine; anything else raises decode()'s error
    return obj


class Bad(Exception):
    """A value of the wrong JSON type (message says which key)."""


def text_of(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise Bad(f"{key!r} must be a string, not {json_type(value)}")
    return value


def json_type(value: Any) -> str:
    return "float" if isinstance(value, Decimal) else type(value).__name__  # JSON fractions are read as Decimal


def string_list(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise Bad(f"{key!r} must be a list of strings")
    return tuple(value)


def string_map(value: Any, key: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise Bad(f"{key!r} must be an object of strings")
    return dict(value)


def extras_of(value: Any, ctx: Context, line: int) -> dict[str, str]:
    extras = string_map(value, "extras")
    if any(key.startswith("{") for key in extras):
        return valid_extras(extras, ctx, line)
    return extras


def images_of(value: Any) -> tuple[Image, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise Bad("'images' must be a list of objects")
    images = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("loc"), str):
            raise Bad("each image must be an object with a string 'loc'")
        if len(item) == 1:  # the common image: its "loc" alone, a string (checked above)
            image = blank_image()
            image.loc = item["loc"]
            images.append(image)
            continue
        if not item.keys() <= IMAGE_KEY_SET:
            raise Bad(f"unknown image keys: {', '.join(sorted(item.keys() - IMAGE_KEY_SET))}")
        for key in IMAGE_KEYS:
            if item.get(key) is not None and not isinstance(item[key], str):
                raise Bad(f"image {key!r} must be a string")
        image = blank_image()  # Image(...) without its keyword handling: every value is a str or None
        image.loc, image.caption, image.geo_location = item["loc"], item.get("caption"), item.get("geo_location")
        image.title, image.license = item.get("title"), item.get("license")
        images.append(image)
    return tuple(images)


def alternates_of(value: Any) -> tuple[Alternate, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise Bad("'alternates' must be a list of objects")
    out = []
    for item in value:
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("hreflang"), str)
            or not isinstance(item.get("href"), str)
        ):
            raise Bad("each alternate must be an object with string 'hreflang' and 'href'")
        out.append(Alternate(hreflang=item["hreflang"], href=item["href"]))
    return tuple(out)


def news_value(value: Any) -> News | None:
    """The ``news`` object (:mod:`feedmap._core.media`'s plain form) as a :class:`News`; :class:`Bad` for one
    that is not."""
    if value is None:
        return None
    try:
        return news_of(value)
    except ValueError as exc:
        raise Bad(str(exc)) from None


def videos_value(value: Any) -> tuple[Video, ...]:
    """The ``videos`` list (of :mod:`feedmap._core.media`'s plain forms) as :class:`Video` values; :class:`Bad`
    for one that is not."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise Bad("'videos' must be a list of objects")
    try:
        return tuple([video_of(item) for item in value])
    except ValueError as exc:
        raise Bad(str(exc)) from None


def priority_of(value: Any, ctx: Context, line: int) -> float | None:
    """A JSON number as a priority; JSON fractions arrive as Decimal (``parse_float``), so a value that a
    float cannot hold exactly (``0.12345678901234567890``, ``1e-400``) is reported, not rounded silently."""
    if value is None:
        return None
    if value.__class__ is Decimal:  # a JSON fraction: most files use a few, each checked once (_EXACT)
        number = _EXACT.get(value)
        if number is not None:
            return number
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)) or value != value:  # NaN
        raise Bad("'priority' must be a number")
    if value < 0 or value > 1:  # an invalid value, not a claim to the top (or bottom) priority
        ctx.warning("priority-invalid", f"priority {value} is outside 0.0-1.0; ignored", line)
        return None
    number = float(value)
    if isinstance(value, Decimal):
        if Decimal(repr(number)) != value:
            ctx.warning("priority-rounded", f"priority {value} is read as {number!r}, the nearest binary float", line)
        elif value.__class__ is Decimal and number and len(_EXACT) < _EXACT_MAX:  # 0 and -0: equal, two floats
            _EXACT[value] = number
    return number


#: JSON fractions met before that a float holds exactly, in range, with the float they are read as: the
#: same priority on every line is checked once.  ``0.5`` and ``0.50`` are equal Decimals, one float; a zero is
#: never kept (``0`` and ``-0`` are equal Decimals read as two floats, ``0.0`` and ``-0.0``).
_EXACT: dict[Decimal, float] = {}
_EXACT_MAX = 1024
