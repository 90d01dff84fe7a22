"""The tabular formats: entries as rows of the columns of :mod:`feedmap._table.columns`.

* ``parquet`` (:mod:`feedmap.formats.tabular._parquet`): Apache Parquet, written in row groups as the entries
  stream, read back a row group at a time (pyarrow, the ``dataframe`` extra).

Each format module exposes ``FORMAT`` (a ``FormatSpec`` of :mod:`feedmap.formats`) and imports no other format.
"""
