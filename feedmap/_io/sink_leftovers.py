"""The temporary file of a single-file output, locked while it is written, and those killed runs left.

An output file is written to ``.NAME.xxxxxxxx.part`` beside it (:mod:`feedmap._io.sinks`), renamed over NAME when
complete; a run killed outright (SIGKILL, power loss) leaves it behind.  The writing run holds an exclusive
``flock(2)`` on its temporary file until the rename; the kernel releases the lock when the holder dies.  So the
next run writing NAME removes the ``.NAME.xxxxxxxx.part`` files whose lock it can take (their writers are gone)
and leaves those of a run still writing; no other file is touched.  Without ``flock(2)`` nothing is removed.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat

from feedmap._io.files import READ_NO_FOLLOW

try:
    import fcntl
except ImportError:  # not POSIX: no locks, nothing removed
    fcntl = None  # type: ignore[assignment]

__all__ = ["lock_temporary", "remove_dead_temporaries"]


def lock_temporary(fd: int, path: str) -> bool:
    """Lock our new temporary file ``path`` (open as ``fd``); False when another run removed it before we
    locked it (taking it for a dead run's): make another."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:
        return True  # no locks here: no run removes it either
    try:
        return os.fstat(fd).st_ino == os.lstat(path).st_ino
    except OSError:
        return False


def remove_dead_temporaries(own: str) -> None:
    """Remove the temporary files of the same output as ``own`` (``.NAME.xxxxxxxx.part`` in its directory)
    whose writer is gone: nobody holds their lock."""
    if fcntl is None:
        return
    directory, leaf = os.path.split(own)
    same_output = re.compile(re.escape(leaf[:-14]) + r"\.[0-9a-f]{8}\.part", re.DOTALL)  # leaf: .NAME.HEX8.part
    try:
        with os.scandir(directory or os.curdir) as found:
            names = [entry.name for entry in found if entry.name != leaf and same_output.fullmatch(entry.name)]
    except OSError:
        return
    for name in names:
        with contextlib.suppress(OSError):
            _remove_if_dead(os.path.join(directory, name))


def _remove_if_dead(path: str) -> None:
    assert fcntl is not None
    fd = os.open(path, READ_NO_FOLLOW)
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # held: its run is still writing
        if os.lstat(path).st_ino == found.st_ino:
            os.unlink(path)
    finally:
        os.close(fd)
