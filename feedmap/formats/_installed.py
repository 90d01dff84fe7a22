"""Whether an installed distribution may declare entry points of a group, told without importing
:mod:`importlib.metadata` (whose import, with ``email``, ``zipfile`` and ``importlib.resources``, costs a
light run as much as the rest of its start-up).

Python packaging's entry points specification
(https://packaging.python.org/en/latest/specifications/entry-points/) puts a distribution's entry points in
the ``entry_points.txt`` of its ``.dist-info`` (or ``.egg-info``) directory; :mod:`importlib.metadata` finds
those directories in each ``sys.path`` entry (its path finder) and asks every other meta path finder that
has ``find_distributions``.  :func:`may_declare` answers True ("maybe: ask importlib.metadata") whenever the
plain look below cannot be sure, and False only when none of those files can hold the group or make
``importlib.metadata.entry_points`` fail: then asking it would find no entry point of the group and raise
nothing, so not asking changes nothing.
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import PathFinder

__all__ = ["may_declare"]

#: The metadata directories :mod:`importlib.metadata` reads, by how their names end (compared in lower case).
_METADATA_DIRECTORIES = (".dist-info", ".egg-info")


def may_declare(group: str) -> bool:
    """False when no installed distribution can declare an entry point of ``group``; True when one may."""
    if any(_finds_distributions(finder) for finder in sys.meta_path):
        return True
    wanted = group.encode("utf-8")
    return any(_entry_may_declare(entry, wanted) for entry in sys.path)


def _finds_distributions(finder: object) -> bool:
    """A meta path finder other than the standard path finder that finds distributions its own way."""
    return finder is not PathFinder and getattr(finder, "find_distributions", None) is not None


def _entry_may_declare(entry: object, wanted: bytes) -> bool:
    """One ``sys.path`` entry: a directory is looked into; anything else that exists (a zip file, a name that
    is not a string) is a maybe."""
    if not isinstance(entry, str):
        return True
    root = entry or os.getcwd()  # "" is the current directory, as importlib.metadata reads it
    try:
        names = os.listdir(root)
    except OSError:
        return os.path.exists(root)  # a file (a zip archive): maybe; nothing there: no distribution
    if root.lower().endswith(".egg"):
        return True
    return any(
        _file_may_declare(os.path.join(root, name, "entry_points.txt"), wanted)
        for name in names
        if name.lower().endswith(_METADATA_DIRECTORIES)
    )


def _file_may_declare(path: str, wanted: bytes) -> bool:
    """Whether one ``entry_points.txt`` may hold ``wanted`` or fail to parse (importlib.metadata reads it as
    UTF-8, each line not blank nor a comment a ``[section]`` or a ``name = value`` pair)."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError):
        return False  # what importlib.metadata reads as "no entry points" too
    except OSError:
        return True
    if wanted in data:
        return True
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    for line in map(str.strip, text.splitlines()):
        if line and not line.startswith("#") and not (line.startswith("[") and line.endswith("]")) and "=" not in line:
            return True
    return False
