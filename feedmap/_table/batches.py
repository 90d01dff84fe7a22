"""Entries gathered into Apache Arrow record batches with the columns of :mod:`feedmap._table.columns`.

A batch holds at most :data:`ROWS` entries, fewer when their text passes :data:`CHARACTERS` (entries with long
descriptions or many images): memory holds one batch of entries and its arrays at a time, whatever the number
of entries.  A batch is what the ``parquet`` writer writes as one row group.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from feedmap._core.dates import W3CDate
from feedmap._core.errors import WriteError
from feedmap._core.model import Entry
from feedmap._table.columns import CHANGEFREQS, IMAGE_PARTS, PRECISIONS, schema
from feedmap._table.needs import arrow

__all__ = ["CHARACTERS", "ROWS", "batch_of", "record_batches"]

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
