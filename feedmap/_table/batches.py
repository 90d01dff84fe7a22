"""Entries gathered into Apache Arrow record batches with the columns of :mod:`feedmap._table.columns`.

A batch holds at most :data:`ROWS` entries, fewer when their text passes :data:`CHARACTERS` (entries with long
descriptions or many images): memory holds one batch of entries and its arrays at a time, whatever the number
of entries.  A batch is what the ``parquet`` writer writes as one row group.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from feedmap._core.dates import W3CDate
from feedmap._core.errors import WriteError
from feedmap._core.media import NEWS_PARTS, PRICE_PARTS, VIDEO_PARTS, plain_news, plain_video
from feedmap._core.model import Entry
from feedmap._table.columns import CHANGEFREQS, IMAGE_PARTS, PRECISIONS, schema
from feedmap._table.needs import arrow

__all__ = ["CHARACTERS", "ROWS", "batch_of", "plain_of_struct", "record_batches"]

#: The most entries in one batch (one Parquet row group).
ROWS = 65_536
#: Characters of text (locs, titles, descriptions, extras) past which a batch is cut before :data:`ROWS`.
CHARACTERS = 1 << 26

_CHANGEFREQ_INDEX = {value: index for index, value in enumerate(CHANGEFREQS)}
_PRECISION_INDEX = {index + 1: index for index in range(len(PRECISIONS))}  # Precision.YEAR (1) is category 0


def record_batches(entries: Iterable[Entry], what: str) -> Iterator[Any]:
    """The entries as ``pyarrow.RecordBatch`` values of the table's schema, in order, each of at most
    :data:`ROWS` rows (``what`` names the caller in the message when pyarrow is missing)."""
    arrow(what)
    held: list[Entry] = []
    size = 0
    for entry in entries:
        held.append(entry)
        size += _size(entry)
        if len(held) >= ROWS or size >= CHARACTERS:
            yield batch_of(held)
            held, size = [], 0
    if held:
        yield batch_of(held)


def _size(entry: Entry) -> int:
    size = len(entry.loc) + len(entry.title or "") + len(entry.description or "")
    if entry.extras:
        size += sum(len(value) for value in entry.extras.values())
    if entry.images:
        size += 100 * len(entry.images)
    if entry.news is not None:
        size += 200
    for video in entry.videos:
        size += 400 + len(video.description or "")
    return size


def batch_of(entries: Sequence[Entry]) -> Any:
    """One ``pyarrow.RecordBatch`` of ``entries`` (the table's schema, without explode); WriteError for a string
    no UTF-8 column can hold (a lone surrogate, from an entry built in code: no reader makes one)."""
    try:
        return _batch(entries)
    except UnicodeEncodeError:
        raise _unwritable(entries) from None


def _unwritable(entries: Sequence[Entry]) -> WriteError:
    for entry in entries:
        texts = [entry.loc, entry.title, entry.description, entry.type, *entry.keywords, *entry.extras.keys()]
        texts += [*entry.extras.values(), *(getattr(image, part) for image in entry.images for part in IMAGE_PARTS)]
        texts += [text for one in entry.alternates for text in (one.hreflang, one.href)]
        texts += [text for one in _media(entry) for text in _texts_of(one)]
        for text in texts:
            found = _SURROGATE.search(text) if text is not None else None
            if found is not None:
                char = found.group()
                return WriteError(
                    f"{entry.loc!r}: U+{ord(char):04X} (a lone surrogate) cannot be written in UTF-8; remove it"
                )
    return WriteError("a string of the entries cannot be written in UTF-8")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _batch(entries: Sequence[Entry]) -> Any:
    pa = arrow("a table of entries")
    table = schema()
    instants, precisions, texts = _dates([entry.lastmod for entry in entries])
    origins = [entry.origin for entry in entries]
    arrays = [
        pa.array([entry.loc for entry in entries], pa.string()),
        pa.array(instants, table.field("lastmod").type),
        _dictionary(pa, precisions, PRECISIONS, ordered=True),
        pa.array(texts, pa.string()),
        _dictionary(pa, [_changefreq(entry) for entry in entries], CHANGEFREQS, ordered=False),
        pa.array([entry.priority for entry in entries], pa.float64()),
        pa.array([entry.title for entry in entries], pa.string()),
        pa.array([entry.description for entry in entries], pa.string()),
        pa.array([list(entry.keywords) for entry in entries], table.field("keywords").type),
        pa.array([entry.type for entry in entries], pa.string()),
        pa.array([_images(entry) for entry in entries], table.field("images").type),
        pa.array([_alternates(entry) for entry in entries], table.field("alternates").type),
        pa.array([_news(entry) for entry in entries], table.field("news").type),
        pa.array([_videos(entry) for entry in entries], table.field("videos").type),
        pa.array([list(entry.extras.items()) for entry in entries], table.field("extras").type),
        pa.array([origin.source if origin is not None else None for origin in origins], pa.string()),
        pa.array([origin.line if origin is not None and origin.line else None for origin in origins], pa.int64()),
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=table)


def _dates(
    lastmods: list[W3CDate | None],
) -> tuple[list[Any], list[int | None], list[str | None]]:
    """The instant, precision (category number) and text of each lastmod; each text worked out once (a
    sitemap's lastmods repeat)."""
    instants: list[Any] = []
    precisions: list[int | None] = []
    texts: list[str | None] = []
    known: dict[str, tuple[Any, int]] = {}
    for lastmod in lastmods:
        if lastmod is None:
            instants.append(None)
            precisions.append(None)
            texts.append(None)
            continue
        text = lastmod.text
        found = known.get(text)
        if found is None:
            found = known[text] = (lastmod.to_datetime(), _PRECISION_INDEX[int(lastmod.precision)])
        instants.append(found[0])
        precisions.append(found[1])
        texts.append(text)
    return instants, precisions, texts


def _changefreq(entry: Entry) -> int | None:
    changefreq = entry.changefreq
    return None if changefreq is None else _CHANGEFREQ_INDEX[changefreq.value]


def _dictionary(pa: Any, indices: list[int | None], values: tuple[str, ...], *, ordered: bool) -> Any:
    """A dictionary array of ``indices`` into every one of ``values`` (the same dictionary in every batch)."""
    return pa.DictionaryArray.from_arrays(pa.array(indices, pa.int8()), pa.array(values, pa.string()), ordered=ordered)


def _images(entry: Entry) -> list[dict[str, str | None]]:
    return [{part: getattr(image, part) for part in IMAGE_PARTS} for image in entry.images]


def _alternates(entry: Entry) -> list[dict[str, str]]:
    return [{"hreflang": one.hreflang, "href": one.href} for one in entry.alternates]


def _arrow_parts(plain: dict[str, Any], parts: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """A plain news entry or video (:mod:`feedmap._core.media`) as its Arrow struct's value: every part, null
    where absent, lists empty; the leftovers as key, value pairs; each price with all its parts."""
    value: dict[str, Any] = {}
    for name, kind in parts:
        part = plain.get(name)
        if kind == "pairs":
            value[name] = list(part.items()) if part else []
        elif kind == "prices":
            value[name] = [{key: price.get(key) for key in PRICE_PARTS} for price in part or ()]
        elif kind == "texts":
            value[name] = part or []
        else:
            value[name] = part
    return value


def _news(entry: Entry) -> dict[str, Any] | None:
    return None if entry.news is None else _arrow_parts(plain_news(entry.news), NEWS_PARTS)


def _videos(entry: Entry) -> list[dict[str, Any]]:
    return [_arrow_parts(plain_video(video), VIDEO_PARTS) for video in entry.videos]


def _media(entry: Entry) -> list[dict[str, Any]]:
    """The plain forms of the entry's news and videos (for the search of a string UTF-8 cannot hold)."""
    found = [plain_news(entry.news)] if entry.news is not None else []
    return found + [plain_video(video) for video in entry.videos]


def _texts_of(value: Any) -> Iterator[str]:
    """Every string in a plain value (keys of objects too)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _texts_of(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts_of(item)


def plain_of_struct(value: Mapping[str, Any], parts: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """The plain form (:mod:`feedmap._core.media`) of a news entry's or a video's Arrow struct value as pyarrow
    gives it back (``to_pylist``): the inverse of what is written."""
    plain: dict[str, Any] = {}
    for name, kind in parts:
        part = value.get(name)
        if part is None or (kind in ("texts", "prices", "pairs") and not part):
            continue
        if kind == "pairs":
            plain[name] = dict(part)
        elif kind == "prices":
            plain[name] = [{key: text for key, text in (price or {}).items() if text is not None} for price in part]
        else:
            plain[name] = part
    return plain
