"""pyarrow and pandas, imported when a table is first made: the optional ``dataframe`` extra.

Without them, :class:`~feedmap._core.errors.FormatError` says what to install (``pip install 'feedmap[dataframe]'``)
instead of an ImportError's traceback.  The modules are typed ``Any`` here (neither ships type information that
``mypy --strict`` reads without extra stub packages).
"""

from __future__ import annotations

import importlib
from typing import Any

from feedmap._core.errors import FormatError

__all__ = ["INSTALL", "arrays", "arrow", "pandas", "parquet"]

INSTALL = "pip install 'feedmap[dataframe]'"


def _imported(name: str, what: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing = exc.name or name
        raise FormatError(f"{what} needs pandas and pyarrow ({missing} is not installed): {INSTALL}") from None


def arrow(what: str) -> Any:
    """The ``pyarrow`` module; FormatError naming ``what`` needs it when it is not installed."""
    return _imported("pyarrow", what)


def parquet(what: str) -> Any:
    """The ``pyarrow.parquet`` module (as :func:`arrow`)."""
    return _imported("pyarrow.parquet", what)


def pandas(what: str) -> Any:
    """The ``pandas`` module (as :func:`arrow`); pyarrow too, which the dtypes of the frame need."""
    arrow(what)
    return _imported("pandas", what)


def arrays(what: str) -> Any:
    """The ``numpy`` module, which pandas and pyarrow bring (as :func:`arrow`)."""
    arrow(what)
    return _imported("numpy", what)
