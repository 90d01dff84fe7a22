"""Entries as a table: one definition of the columns, shared by :func:`feedmap.to_dataframe`, the ``parquet``
format and :func:`feedmap.dask.to_dataframe`.

* :mod:`feedmap._table.columns`: the columns, their Apache Arrow types and pandas dtypes (the one definition);
* :mod:`feedmap._table.batches`: entries gathered into Arrow record batches of at most
  :data:`~feedmap._table.columns.ROWS` rows (what a Parquet row group holds);
* :mod:`feedmap._table.frames`: batches made a pandas DataFrame of those dtypes, and ``explode``;
* :mod:`feedmap._table.needs`: pandas and pyarrow, imported when first needed (the ``dataframe`` extra), with the
  message that says how to install them.

Nothing here is imported by ``import feedmap``; pandas and pyarrow are imported by the first call that needs them.
"""
