"""The scratch file of key texts past the compiled key table's memory budget: appended, read back by offset.

One job: :class:`TextFile`, where :mod:`feedmap._io._keys_c` keeps the stored forms of text keys once the bytes it
holds in memory are spent.  The file lives in a private folder of the temporary folder
(:func:`feedmap._io.scratch.scratch_folder`); it is only appended to (POSIX ``write``, IEEE Std 1003.1) and read
at an offset (``pread``, or ``lseek`` and ``read`` where Python has no ``os.pread``) when a key's hash matches.
Every :class:`OSError` is said by :func:`feedmap._io.scratch.scratch_error`, as the database's are; the folder
is removed by :meth:`TextFile.close`.
"""

from __future__ import annotations

import os

from feedmap._io.scratch import remove_scratch_folder, scratch_error, scratch_folder

__all__ = ["TextFile"]

_NAME = "keys.bin"


class TextFile:
    """An append-only scratch file of bytes in a folder of its own; errors are SourceErrors about ``what``."""

    def __init__(self, what: str) -> None:
        self._what = what
        self.folder = scratch_folder("feedmap-dedupe-", what)
        try:
            flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND | getattr(os, "O_BINARY", 0)
            self._fd = os.open(self.folder / _NAME, flags, 0o600)
        except OSError as exc:
            remove_scratch_folder(self.folder)
            raise scratch_error(what, exc) from exc

    def write(self, data: bytes) -> None:
        """``data`` after every byte written before."""
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError as exc:
            raise scratch_error(self._what, exc) from exc

    def read(self, offset: int, size: int) -> bytes:
        """The ``size`` bytes written at ``offset`` (fewer only past the end)."""
        try:
            if hasattr(os, "pread"):
                return os.pread(self._fd, size, offset)
            os.lseek(self._fd, offset, os.SEEK_SET)  # writes append wherever the offset is (O_APPEND)
            return os.read(self._fd, size)
        except OSError as exc:
            raise scratch_error(self._what, exc) from exc

    def close(self) -> None:
        """Close the file and remove its folder."""
        try:
            os.close(self._fd)
        except OSError:
            pass
        finally:
            remove_scratch_folder(self.folder)
