"""The steps between reader and writer, under their first name (kept for one release).

This module is an alias of :mod:`feedmap.converters._steps`; every name it had is still here.
"""

from feedmap.converters._steps import *  # noqa: F403
from feedmap.converters._steps import __all__ as __all__
