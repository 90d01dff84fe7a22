"""A Dask bag of entries as a ``dask.dataframe.DataFrame`` (:func:`feedmap.dask.to_dataframe`): one frame partition
per bag partition, with the columns and dtypes of :mod:`feedmap._table.columns` (its ``meta`` made from them).

The frame is lazy: each partition is made on the worker that computes it, from the bag partition's entries (the
bag's own ``map`` and ``filter`` applied), in record batches as :func:`feedmap.to_dataframe` makes its frame.  The
diagnostics of reading the partition (:class:`~feedmap._web.bag_parts.Read`, the side channel of
:mod:`feedmap.dask`) are applied there: no caller's reporter is reachable from a frame computed later, perhaps
several times, perhaps by ``to_parquet`` on the workers; so a partition whose reading failed raises its error there,
and under ``strict`` the first warning of its reading raises StrictError (the computation raises it); the
diagnostics themselves are :func:`feedmap.dask.diagnostics`'s, a lazy list computed with the frame.  The frame's
index is each partition's own RangeIndex.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from dask.delayed import delayed

from feedmap._core.errors import Diagnostic, FormatError, Level, Reporter
from feedmap._core.model import Entry
from feedmap._table.batches import record_batches
from feedmap._table.columns import columns
from feedmap._table.frames import empty_frame, frame_of
from feedmap._table.needs import pandas
from feedmap._web.bag_parts import Read, reraise

__all__ = ["bag_frame", "diagnostics_frame", "diagnostics_part", "frame_part"]

_CALL = "feedmap.dask.to_dataframe"


def _frames() -> Any:
    """Dask's dataframe module, or FormatError naming the extras."""
    try:
        return importlib.import_module("dask.dataframe")
    except ImportError as exc:
        raise FormatError(
            f"{_CALL} needs Dask's dataframe ({exc.name or 'dask.dataframe'} cannot be imported): "
            "pip install 'feedmap[dask,dataframe]' 'dask[dataframe]'"
        ) from None


def bag_frame(bag: Any, reads: Sequence[Any], explode: str | None, strict: bool) -> Any:
    """The lazy frame of ``bag``: partition ``i`` made from the bag's partition ``i`` and ``reads[i]`` (the
    delayed :class:`~feedmap._web.bag_parts.Read` without entries of that partition, None for a bag read by
    other means)."""
    columns(explode)  # ValueError for a column that cannot be exploded
    pandas(_CALL)
    frames = _frames()
    parts = bag.to_delayed(optimize_graph=False)
    made = [
        delayed(frame_part, pure=True)(part, read, explode, strict) for part, read in zip(parts, reads, strict=True)
    ]
    return frames.from_delayed(made, meta=empty_frame(explode, _CALL), verify_meta=False)


def frame_part(entries: list[Entry], read: Read | None, explode: str | None, strict: bool) -> Any:
    """A worker: one partition's frame; its reading's error raised, and under ``strict`` its first warning."""
    if read is not None:
        checking = Reporter(strict=strict, keep=0)
        for diagnostic in read.diagnostics:
            checking.report(diagnostic)
        reraise(read)
    return frame_of(record_batches(entries, _CALL), explode, _CALL)


def diagnostics_frame(said: Any) -> Any:
    """The diagnostics ``said`` (a delayed list of :class:`~feedmap._core.errors.Diagnostic`) as a lazy Dask frame
    of one partition, columns ``level`` (categorical: info < warning < error), ``code``, ``message``, ``source``,
    ``line`` and ``column``: a collection of the kind of :func:`bag_frame`'s, computed with it in one
    ``dask.compute`` (Dask warns when frames and delayed objects are computed together)."""
    pandas(_CALL)
    frames = _frames()
    return frames.from_delayed(
        [delayed(diagnostics_part, pure=True)(said)], meta=diagnostics_part([]), verify_meta=False
    )


def diagnostics_part(found: Sequence[Diagnostic]) -> Any:
    """The pandas frame of the diagnostics ``found``, in order."""
    pd = pandas(_CALL)
    levels = pd.CategoricalDtype([str(level) for level in Level], ordered=True)
    text = pd.StringDtype("pyarrow")
    return pd.DataFrame(
        {
            "level": pd.Series([str(one.level) for one in found], dtype=levels),
            "code": pd.Series([one.code for one in found], dtype=text),
            "message": pd.Series([one.message for one in found], dtype=text),
            "source": pd.Series([one.source for one in found], dtype=text),
            "line": pd.Series([one.line for one in found], dtype=pd.Int64Dtype()),
            "column": pd.Series([one.column for one in found], dtype=pd.Int64Dtype()),
        }
    )
