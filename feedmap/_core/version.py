"""The version of feedmap (``feedmap.__version__``), importable by every layer: a cluster's worker says its own."""

__all__ = ["__version__"]

__version__ = "0.1.0"
