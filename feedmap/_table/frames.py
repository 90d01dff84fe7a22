"""Record batches of entries made a pandas DataFrame with the dtypes of :mod:`feedmap._table.columns`, and
``explode`` (one row per item of a list column).

The frame is made from the batches (pyarrow's ``Table.to_pandas``: strings stay in Arrow memory), never from the
entries.  A categorical column gets its fixed categories, in their order, whatever values occur.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from feedmap._table.columns import columns, dtypes, schema
from feedmap._table.needs import arrays, arrow, pandas

__all__ = ["empty_frame", "exploded", "frame_of"]


def frame_of(batches: Iterable[Any], explode: str | None, what: str) -> Any:
    """The ``pandas.DataFrame`` of ``batches`` (record batches of :func:`~feedmap._table.columns.schema`, or
    tables), a RangeIndex from 0; ``explode``: as :func:`~feedmap._table.columns.columns`."""
    pd = pandas(what)
    pa = arrow(what)
    columns(explode)  # ValueError for a column that cannot be exploded, before anything is read
    table = pa.Table.from_batches(list(batches), schema=schema())
    if explode is not None:
        table = exploded(table, explode)
    frame = table.to_pandas(types_mapper=_mapper(pd, pa), split_blocks=True)
    return _typed(frame, dtypes(explode))


def empty_frame(explode: str | None, what: str) -> Any:
    """A frame with no row and every column of its dtype (``meta`` for Dask)."""
    arrow(what)
    return frame_of([], explode, what)


def _mapper(pd: Any, pa: Any) -> Any:
    """The pandas dtype of each Arrow type (None: pyarrow's own conversion: float64, datetime64, category)."""

    def mapped(kind: Any) -> Any:
        if kind == pa.string():
            return pd.StringDtype("pyarrow")
        if kind == pa.int64():
            return pd.Int64Dtype()
        if pa.types.is_list(kind) or pa.types.is_map(kind):
            return pd.ArrowDtype(kind)
        return None

    return mapped


def _typed(frame: Any, wanted: dict[str, Any]) -> Any:
    """``frame`` with each column of its dtype: categories fixed (a batch's dictionary may hold fewer or
    others), a timestamp in microseconds."""
    for name, dtype in wanted.items():
        if frame[name].dtype != dtype:
            frame[name] = frame[name].astype(dtype)
    return frame


def exploded(table: Any, name: str) -> Any:
    """``table`` with one row per item of its list column ``name`` (a row without items kept once, its item
    columns null), the items' parts as columns in its place, named as :func:`~feedmap._table.columns.columns`."""
    pa = arrow("explode")
    numpy = arrays("explode")
    position = table.schema.get_field_index(name)
    lists = table.column(name).combine_chunks()
    lengths = numpy.asarray(pa.compute.list_value_length(lists).fill_null(0), dtype=numpy.int64)
    counts = numpy.maximum(lengths, 1)
    rows = numpy.repeat(numpy.arange(len(lengths), dtype=numpy.int64), counts)
    starts = numpy.cumsum(counts) - counts
    within = numpy.arange(int(counts.sum()), dtype=numpy.int64) - numpy.repeat(starts, counts)
    present = within < numpy.repeat(lengths, counts)
    offsets = numpy.asarray(lists.offsets, dtype=numpy.int64)[:-1]
    items = lists.values.take(pa.array(numpy.repeat(offsets, counts) + within, mask=~present))
    rest = table.remove_column(position).take(pa.array(rows))
    parts = items.flatten() if pa.types.is_struct(items.type) else [items]
    made = [one for one in columns(name) if one.name not in table.column_names]
    for offset, (column, values) in enumerate(zip(made, parts, strict=True)):
        rest = rest.add_column(position + offset, pa.field(column.name, pa.string()), values)
    return rest
