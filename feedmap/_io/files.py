"""Opening a path feedmap did not necessarily write, without being led elsewhere by what stands there.

POSIX ``open(2)``: ``O_NOFOLLOW`` makes a symbolic link fail (ELOOP) instead of opening its target, and
``O_NONBLOCK`` makes a FIFO open at once instead of waiting for a writer; ``fstat(2)`` on the descriptor then
says what was opened, so there is no window between looking and opening.  Used for what a directory or a
cache holds from earlier runs: the index a split replaces, a file it compares, lock and temporary files, HTTP
cache records.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

__all__ = ["READ_NO_FOLLOW", "open_regular"]

#: Flags to read a path: no symbolic link followed, no wait on a FIFO, not inherited by child processes.
READ_NO_FOLLOW = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def open_regular(path: str | os.PathLike[str], *, single_link: bool = False) -> BinaryIO | None:
    """``path`` opened for reading when it is a regular file (no symbolic link, FIFO, device or folder; with
    ``single_link``, no hard link either: a file put in place by a rename has one), else None."""
    try:
        fd = os.open(path, READ_NO_FOLLOW)
    except OSError:  # missing, a symbolic link (ELOOP), unreadable
        return None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or (single_link and status.st_nlink != 1):
            os.close(fd)
            return None
        return os.fdopen(fd, "rb")
    except OSError:
        os.close(fd)
        return None
