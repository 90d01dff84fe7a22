"""The tabular formats: entries as rows of the columns of :mod:`feedmap._table.columns`.

* ``parquet`` (:mod:`feedmap.formats.tabular._parquet`): Apache Parquet, written in row groups as the entries
  stream, read back a row group at a time (pyarrow, the ``dataframe`` extra);
* ``csv`` (:mod:`feedmap.formats.tabular._csv`): RFC 4180 text, the same columns as cells of text (lists and extras
  as JSON), for spreadsheets; written by :mod:`~feedmap.formats.tabular._csv_write`, its cells both ways in
  :mod:`~feedmap.formats.tabular._csv_cells`.

Each format module exposes ``FORMAT`` (a ``FormatSpec`` of :mod:`feedmap.formats`) and imports no other format.
"""
