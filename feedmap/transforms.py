"""Deprecated: the first name of :mod:`feedmap.converters`, kept for one release (0.1) as its alias.

Every name of :mod:`feedmap.converters` is here, the same objects.  Importing this module (``import
feedmap.transforms``, or reading ``feedmap.transforms`` the first time: ``import feedmap`` loads it only then)
gives a :class:`DeprecationWarning` naming ``feedmap.converters``, at the line that asked for it; import that
instead.
This module goes in the next release.
"""

import importlib
import inspect
import os
import warnings
from types import FrameType

from feedmap.converters import *  # noqa: F403
from feedmap.converters import __all__ as __all__

#: What the warning says.
DEPRECATION = "feedmap.transforms is deprecated and goes in the next release: use feedmap.converters (the same names)"


def _importer_level() -> int:
    """The ``stacklevel`` of the code that imports this module: past the import system's frames, and past
    ``feedmap.__getattr__``, which imports it when ``feedmap.transforms`` is read (:func:`warnings.warn`
    itself does not count the frames of ``importlib._bootstrap``)."""
    machinery = os.path.dirname(importlib.__file__) + os.sep
    package = os.path.join(os.path.dirname(__file__), "__init__.py")
    level = 2  # 1: this module's body
    here = inspect.currentframe()  # this function; its caller is the module body, then the importer
    frame: FrameType | None = here.f_back.f_back if here is not None and here.f_back is not None else None
    while frame is not None:
        name = frame.f_code.co_filename
        if not ("importlib" in name and "_bootstrap" in name):  # those frames warnings.warn does not count
            if not (name.startswith(machinery) or name == package):
                break
            level += 1
        frame = frame.f_back
    return level


warnings.warn(DEPRECATION, DeprecationWarning, stacklevel=_importer_level())
