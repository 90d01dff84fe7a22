"""``parquet``: entries as an Apache Parquet file (https://parquet.apache.org/docs/file-format/), one row each.

The columns and their types are those of :mod:`feedmap._table.columns` (``loc``, ``lastmod`` as a UTC timestamp
with ``lastmod_precision`` and the ``lastmod_text`` as written, ``changefreq``, ``priority``, ... ``images`` as a
list of structs, ``news`` as a struct and ``videos`` as a list of structs of typed parts, ``extras`` as a map,
``sitemap`` and ``line``).  Writing streams: the entries are gathered in
record batches of at most :data:`~feedmap._table.batches.ROWS` rows, each written as one row group by
``pyarrow.parquet.ParquetWriter`` as soon as it is full, so one row group is in memory at a time; the file is
complete (its footer written) when the last entry was.  The output is made atomic as every output is
(:mod:`feedmap._io.sinks`: a temporary file renamed).  A Parquet file is binary: it is not written to a terminal.

Reading takes a Parquet file with (at least) a ``loc`` column, a row group at a time (``iter_batches``): every
value checked as a reader checks what it reads; ``lastmod_text`` is the lastmod read (else the ``lastmod``
timestamp, written as UTC); the ``sitemap`` and ``line`` of a row are where it was read from before: an entry read
back is at the Parquet file and its row's number (as a JSON lines file gives its own lines).  A column feedmap
does not know is reported once (``unknown-column``) and ignored.  The footer is at the end of a Parquet file: an
input that is no local uncompressed file (standard input, a URL, gzip) is first copied to a temporary file.
Needs pyarrow (``pip install 'feedmap[dataframe]'``); without it, reading or writing is a FormatError saying so.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import math
import shutil
from collections.abc import Iterator, Mapping
from typing import Any, BinaryIO

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate
from feedmap._core.errors import ReadError, WriteError
from feedmap._core.media import NEWS_PARTS, VIDEO_PARTS, news_of, video_of
from feedmap._core.model import (
    ENTRY_FIELDS,
    Alternate,
    DocMeta,
    Document,
    Entry,
    Image,
    News,
    Video,
    full_entry,
    new_position,
)
from feedmap._io.scratch import scratch_error, scratch_file
from feedmap._io.sources import Source
from feedmap._table.batches import ROWS, plain_of_struct, record_batches
from feedmap._table.columns import COLUMNS, IMAGE_PARTS, schema
from feedmap._table.needs import arrow, parquet
from feedmap.formats._detection import is_parquet
from feedmap.formats._extras import extra_problem
from feedmap.formats._fields import read_changefreq, read_lastmod, read_loc
from feedmap.formats._registry import FormatSpec

__all__ = ["FORMAT", "read", "write"]

_WRITING = "writing Parquet (-t parquet)"
_READING = "reading Parquet"
_KNOWN = frozenset(column.name for column in COLUMNS)
#: The columns whose values make an entry (``sitemap`` and ``line`` say where a row was read before).
_READ = tuple(column.name for column in COLUMNS if column.name not in ("sitemap", "line"))


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    """Write the entries as one Parquet file, a row group per batch of entries, as they come."""
    pq = parquet(_WRITING)
    if sink.isatty():
        raise WriteError("a Parquet file is binary and is not written to a terminal: give -o FILE.parquet")
    count = 0
    writer = pq.ParquetWriter(sink, schema())
    try:
        for batch in record_batches(doc.entries, _WRITING):
            writer.write_batch(batch)
            count += batch.num_rows
    finally:
        writer.close()  # the footer (an error goes on up: the sink's temporary file is removed)
    return count


# ------------------------------------------------------------------------------------------------ reading


def read(source: Source, *, ctx: Context) -> Document:
    """A Parquet file's rows as entries, a row group at a time."""
    pq = parquet(_READING)
    return Document(DocMeta(), _entries(source, pq, ctx))


def _entries(source: Source, pq: Any, ctx: Context) -> Iterator[Entry]:
    pa = arrow(_READING)
    with _seekable(source) as where:
        try:
            file = pq.ParquetFile(where)
        except (pa.ArrowException, OSError) as exc:
            message = f"not a Parquet file that can be read ({exc})"
            raise ReadError(message, source=ctx.name, code="parquet-invalid") from None
        names = file.schema_arrow.names
        if "loc" not in names:
            message = "a Parquet file without a loc column: no entry to read"
            raise ReadError(message, source=ctx.name, code="parquet-invalid")
        unknown = [name for name in names if name not in _KNOWN]
        if unknown:
            ctx.warning("unknown-column", f"columns feedmap does not know ignored: {', '.join(unknown)}")
        row = 0
        for batch in file.iter_batches(batch_size=ROWS, columns=[name for name in _READ if name in names]):
            for values in batch.to_pylist():
                row += 1
                entry = _entry(values, ctx, row)
                if entry is not None:
                    yield entry


@contextlib.contextmanager
def _seekable(source: Source) -> Iterator[Any]:
    """What pyarrow can seek in: the local file's path, else a temporary copy of the input (the footer, which
    says where everything is, comes last)."""
    if source.path is not None and not source.compressed:
        yield str(source.path)
        return
    what = "copy of a Parquet input"
    copy = scratch_file("feedmap-parquet-", what)
    with copy:
        try:
            shutil.copyfileobj(source.stream, copy, 1 << 20)
            copy.flush()
            copy.seek(0)
        except OSError as exc:
            raise scratch_error(what, exc) from exc
        yield copy


def _entry(values: Mapping[str, Any], ctx: Context, row: int) -> Entry | None:
    loc = read_loc(_text(values.get("loc")), ctx, row)
    if loc is None:
        return None
    changefreq = values.get("changefreq")
    entry = full_entry(
        loc,
        _lastmod(values, ctx, row),
        read_changefreq(str(changefreq), ctx, row) if changefreq is not None else None,
        _priority(values.get("priority"), ctx, row),
        _text(values.get("title")),
        _text(values.get("description")),
        tuple(str(one) for one in values.get("keywords") or () if one is not None),
        _text(values.get("type")),
        _images(values.get("images")),
        _alternates(values.get("alternates")),
        _extras(values.get("extras"), ctx, row),
        new_position(ctx.name, row),
    )
    entry.news, entry.videos = _news(values.get("news"), ctx, row), _videos(values.get("videos"), ctx, row)
    return entry


def _news(value: Any, ctx: Context, row: int) -> News | None:
    if value is None:
        return None
    try:
        return news_of(plain_of_struct(value, NEWS_PARTS))
    except ValueError as exc:
        ctx.warning("invalid-value", f"{exc}; the news is not read", row)
        return None


def _videos(value: Any, ctx: Context, row: int) -> tuple[Video, ...]:
    videos = []
    for one in value or ():
        try:
            videos.append(video_of(plain_of_struct(one or {}, VIDEO_PARTS)))
        except ValueError as exc:
            ctx.warning("invalid-value", f"{exc}; the video is not read", row)
    return tuple(videos)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _lastmod(values: Mapping[str, Any], ctx: Context, row: int) -> W3CDate | None:
    text = values.get("lastmod_text")
    if text is not None:
        return read_lastmod(str(text), ctx, row)
    instant = values.get("lastmod")
    if isinstance(instant, _dt.datetime):
        aware = instant if instant.tzinfo is not None else instant.replace(tzinfo=_dt.timezone.utc)
        return W3CDate.from_datetime(aware)
    return None


def _priority(value: Any, ctx: Context, row: int) -> float | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
        if not math.isnan(number) and 0.0 <= number <= 1.0:
            return number
    ctx.warning("priority-invalid", f"priority {value!r} is not a number from 0.0 to 1.0; ignored", row)
    return None


def _images(value: Any) -> tuple[Image, ...]:
    return tuple(
        Image(**{part: _text(one.get(part)) for part in IMAGE_PARTS})  # type: ignore[arg-type]
        for one in value or ()
        if one is not None and one.get("loc") is not None
    )


def _alternates(value: Any) -> tuple[Alternate, ...]:
    return tuple(
        Alternate(hreflang=str(one["hreflang"]), href=str(one["href"]))
        for one in value or ()
        if one is not None and one.get("hreflang") is not None and one.get("href") is not None
    )


def _extras(value: Any, ctx: Context, row: int) -> dict[str, str]:
    """The extras of a row (a map read as key, value pairs); an XML extra that is not just its element is
    dropped (``invalid-extra``), as the JSON lines reader drops it."""
    extras: dict[str, str] = {}
    for key, text in value or ():
        if text is None:
            continue
        problem = extra_problem(key, text) if key.startswith("{") else None
        if problem is not None:
            ctx.warning("invalid-extra", f"extra {key!r} {problem}; not read", row)
            continue
        extras[key] = text
    return extras


FORMAT = FormatSpec(
    name="parquet",
    title="Apache Parquet",
    extensions=(".parquet",),
    media_types=("application/vnd.apache.parquet",),
    accept=is_parquet,
    reader=read,
    writer=write,
    fields=frozenset(ENTRY_FIELDS),
    description="entries as rows of typed columns (pandas, pyarrow, DuckDB, Spark read them); needs "
    "pip install 'feedmap[dataframe]'",
)
