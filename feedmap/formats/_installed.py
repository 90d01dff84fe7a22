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
    listed = _listing(root)
    if listed is None:
        return os.path.exists(root)  # a file (a zip archive): maybe; nothing there: no distribution
    if root.lower().endswith(".egg"):
        return True
    return any(_file_may_declare(path, wanted) for path in listed)


#: What one look found in a directory, kept for the next group asked (the formats' registry asks first, the
#: extensions next, in one run): the directory's identity and modification time, and the ``entry_points.txt``
#: paths of its metadata directories.  A distribution installed or removed since changes that time.
_listings: dict[str, tuple[tuple[int, int, int], list[str]]] = {}
#: Each ``entry_points.txt`` read: its identity, size and modification time, its bytes and whether a line of it
#: cannot be parsed (what does not depend on the group).
_files: dict[str, tuple[tuple[int, int, int, int], bytes, bool]] = {}


def _listing(root: str) -> list[str] | None:
    """The ``entry_points.txt`` paths of the metadata directories in ``root``; None when it is no directory."""
    try:
        status = os.stat(root)
    except OSError:
        return None
    stamp = (status.st_dev, status.st_ino, status.st_mtime_ns)
    known = _listings.get(root)
    if known is not None and known[0] == stamp:
        return known[1]
    try:
        names = os.listdir(root)
    except OSError:
        return None
    listed = [
        os.path.join(root, name, "entry_points.txt") for name in names if name.lower().endswith(_METADATA_DIRECTORIES)
    ]
    _listings[root] = (stamp, listed)
    return listed


def _file_may_declare(path: str, wanted: bytes) -> bool:
    """Whether one ``entry_points.txt`` may hold ``wanted`` or fail to parse (importlib.metadata reads it as
    UTF-8, each line not blank nor a comment a ``[section]`` or a ``name = value`` pair)."""
    try:
        status = os.stat(path)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return False  # what importlib.metadata reads as "no entry points" too
    except OSError:
        return True
    stamp = (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)
    known = _files.get(path)
    if known is None or known[0] != stamp:
        try:
            with open(path, "rb") as file:
                data = file.read()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError):
            return False
        except OSError:
            return True
        known = _files[path] = (stamp, data, _unparsable(data))
    return known[2] or wanted in known[1]


def _unparsable(data: bytes) -> bool:
    """Whether ``data`` is no UTF-8 or holds a line importlib.metadata cannot parse."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    for line in map(str.strip, text.splitlines()):
        if line and not line.startswith("#") and not (line.startswith("[") and line.endswith("]")) and "=" not in line:
            return True
    return False
