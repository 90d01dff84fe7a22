"""``feedmap.to_dataframe``: the entries of a sitemap, index, feed or any input read as a pandas DataFrame.

The columns and dtypes are those of :mod:`feedmap._table.columns` (the parquet format and
``feedmap.dask.to_dataframe`` share them): ``loc``, ``lastmod`` (UTC, with ``lastmod_precision`` and
``lastmod_text`` as written), ``changefreq`` (categorical), ``priority`` (float, NaN when absent), ``title``,
``description``, ``keywords``, ``type``, ``images``, ``alternates`` (nested Arrow columns), ``extras`` (a map:
news, video, every other extension element), ``sitemap`` (the file or URL each entry was read from: an index
followed, its child) and ``line``.  The input is read as :func:`feedmap.read` reads it (an index followed into its
children, the options' selection applied, diagnostics reported as there); the entries are gathered in Arrow record
batches of at most 65,536 rows, then made one frame: never a list of every entry.  Needs pandas and pyarrow
(``pip install 'feedmap[dataframe]'``).
"""

from __future__ import annotations

from typing import Any

from feedmap._api import read
from feedmap._core.call_fields import refuse_unused
from feedmap._core.context import Options
from feedmap._core.errors import DiagnosticHandler, Reporter
from feedmap._core.model import Document
from feedmap._io.sources import SourceLike
from feedmap._table.batches import record_batches
from feedmap._table.columns import columns
from feedmap._table.frames import frame_of
from feedmap._table.needs import pandas

__all__ = ["to_dataframe"]

_CALL = "feedmap.to_dataframe"


def to_dataframe(
    source: SourceLike | Document,
    options: Options | None = None,
    *,
    format: str | None = None,
    explode: str | None = None,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Any:
    """The entries of ``source`` as a ``pandas.DataFrame``, one row per entry (see the module's columns).

    ``source`` is what :func:`feedmap.read` takes (a path, ``"-"``, an http(s) URL, a binary file object; an
    index is followed into its children with ``options``), read in ``format`` (else recognised by content), or
    a :class:`~feedmap._core.model.Document` read already (its entries are consumed).  ``options`` are those of
    :func:`feedmap.read` (``follow``, ``maps``, ``since``, ``dedupe``, ``strict``, ...); diagnostics go to
    ``reporter``, else to ``on_diagnostic``, as they come (a Document takes none of them: they were given to
    the call that read it).  ``explode``: ``"images"``, ``"alternates"`` or
    ``"keywords"`` gives one row per item of that list column, its parts as columns of their own
    (``image_loc``, ``image_caption``, ...; an entry without any keeps one row, those columns NA).

    Without pandas or pyarrow, :class:`~feedmap._core.errors.FormatError` says to
    ``pip install 'feedmap[dataframe]'``.  The index is a RangeIndex from 0.
    """
    columns(explode)  # ValueError for a column that cannot be exploded, before anything is read
    pandas(_CALL)  # FormatError naming the extra, before anything is read
    if isinstance(source, Document):
        if options is not None or on_diagnostic is not None or reporter is not None:
            raise ValueError(
                "to_dataframe(document): the document was read already, with its options and reporter: give them "
                "to feedmap.read, or give to_dataframe the source"
            )
        with source as doc:
            return frame_of(record_batches(doc.entries, _CALL), explode, _CALL)
    if options is not None and not isinstance(options, Options):
        raise TypeError(f"options: give a feedmap.Options, not {options!r}")
    refuse_unused(options or Options(), "to_dataframe")
    with read(source, format, options, on_diagnostic=on_diagnostic, reporter=reporter) as doc:
        return frame_of(record_batches(doc.entries, _CALL), explode, _CALL)
