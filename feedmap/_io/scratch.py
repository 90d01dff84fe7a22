"""Scratch space on disk for the spills (dedupe, sort, diff, validate's repeats): where, and what went wrong.

One job: the temporary folder every spill uses and the errors said about it.  The folder is Python's
(:func:`tempfile.gettempdir`: ``TMPDIR``, then ``TEMP`` and ``TMP``, then the platform's), with one change:
an environment variable naming a folder that does not exist is an error naming it, where Python silently
falls back to the next candidate (``/tmp``), a disk the user did not choose.  An :class:`OSError` on the
way is said as what it is (POSIX ``errno`` values, IEEE Std 1003.1): no room (``ENOSPC``, ``EDQUOT``), too
many open files (``EMFILE``, ``ENFILE``), not allowed (``EACCES``, ``EPERM``, ``EROFS``), or anything else
with the system's own words.  Each is a :class:`~feedmap._core.errors.SourceError` (the CLI's exit 2).
:class:`ScratchSpool` is :class:`tempfile.SpooledTemporaryFile` with the same checks when it moves to disk.
:mod:`tempfile` (and with it :mod:`shutil`, :mod:`random`, :mod:`bz2`, :mod:`lzma`) is imported when a
temporary file or folder is first asked for, not when a run starts: most runs never spill.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from feedmap._core.errors import SourceError

__all__ = [
    "ScratchSpool",
    "remove_scratch_folder",
    "scratch_error",
    "scratch_file",
    "scratch_folder",
    "temporary_folder",
]

#: The environment variables Python reads for the temporary folder, in its order (:func:`tempfile.gettempdir`).
_VARIABLES = ("TMPDIR", "TEMP", "TMP")

_NO_ROOM = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
_TOO_MANY_FILES = frozenset({errno.EMFILE, errno.ENFILE})
_NOT_ALLOWED = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})


def temporary_folder(what: str = "file") -> str:
    """The folder temporary files go to; SourceError when the first of TMPDIR, TEMP, TMP that is set names
    no folder, or when Python finds none (naming the temporary ``what`` asked for)."""
    for name in _VARIABLES:
        value = os.environ.get(name)
        if value:
            if not os.path.isdir(value):
                raise SourceError(
                    f"{name} names {value}, which is not a folder; temporary files would go elsewhere: "
                    f"create it, or set {name} to a folder with room"
                )
            break
    import tempfile

    try:
        return tempfile.gettempdir()
    except OSError as exc:  # no candidate folder can be written at all
        raise scratch_error(what, _open_files_exhausted() or exc) from exc


def _open_files_exhausted() -> OSError | None:
    """EMFILE or ENFILE if no file can be opened now, else None: Python's search for a temporary folder says
    "No usable temporary directory" (ENOENT) whatever made each candidate fail."""
    try:
        os.close(os.open(os.curdir, os.O_RDONLY))
    except OSError as exc:
        return exc if exc.errno in _TOO_MANY_FILES else None
    return None


def scratch_error(what: str, exc: BaseException) -> SourceError:
    """The error of a temporary ``what`` that could not be made, written or read, said as what it is, naming
    the temporary folder (or "the temporary folder" when Python finds none).  A SourceError already said
    (an OSError too) is returned as it is."""
    if isinstance(exc, SourceError):
        return exc
    import tempfile

    try:
        where = tempfile.gettempdir()
    except OSError:
        where = "the temporary folder"
    number = getattr(exc, "errno", None) or getattr(exc, "sqlite_errorcode", None)
    reason = str(exc) or type(exc).__name__
    if number in _NO_ROOM or "database or disk is full" in reason:
        advice = "no room left; set TMPDIR to a folder with room"
    elif number in _TOO_MANY_FILES:
        advice = "too many open files; raise the limit (ulimit -n) or close other programs"
    elif number in _NOT_ALLOWED:
        advice = "not allowed to write there; set TMPDIR to a folder of yours"
    else:
        advice = "set TMPDIR to a folder that exists and has room"
    return SourceError(f"temporary {what} in {where}: {reason}; {advice}")


def scratch_folder(prefix: str, what: str) -> Path:
    """A new private folder in :func:`temporary_folder` (the caller removes it); errors as :func:`scratch_error`."""
    import tempfile

    folder = temporary_folder(what)
    try:
        return Path(tempfile.mkdtemp(prefix=prefix, dir=folder))
    except OSError as exc:
        raise scratch_error(what, exc) from exc


def remove_scratch_folder(folder: Path) -> None:
    """Remove a folder of :func:`scratch_folder` and what it holds, errors ignored (``shutil.rmtree``: imported
    here, when a folder made is removed, so that a run that spills nothing loads no ``shutil``, ``bz2``, ``lzma``)."""
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


def scratch_file(prefix: str, what: str) -> IO[bytes]:
    """A new temporary file in :func:`temporary_folder`, opened for reading and writing, removed when closed."""
    import tempfile

    folder = temporary_folder(what)
    try:
        return tempfile.NamedTemporaryFile(prefix=prefix, dir=folder)
    except OSError as exc:
        raise scratch_error(what, exc) from exc


if TYPE_CHECKING:
    from tempfile import SpooledTemporaryFile

    class ScratchSpool(SpooledTemporaryFile[bytes]):
        """Bytes in memory up to ``max_size``, then in a temporary file (see the class made at run time)."""

        what: str

        def __init__(self, max_size: int, what: str) -> None: ...

else:

    class ScratchSpool:
        """Bytes in memory up to ``max_size``, then in a temporary file of :func:`temporary_folder`: a TMPDIR
        naming no folder, a full disk or too many open files are said (:func:`scratch_error`) when it moves
        there or writes there, not fallen back from or raised raw.

        ``ScratchSpool(max_size, what)`` makes a :class:`tempfile.SpooledTemporaryFile` subclass that is also
        a ScratchSpool (:func:`_spool_type`, defined on first use so that importing this module imports no
        :mod:`tempfile`)."""

        __slots__ = ()

        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            made = _spool_type() if cls is ScratchSpool else cls
            return super(ScratchSpool, made).__new__(made)


_SPOOL_TYPE: list[type[Any]] = []


def _spool_type() -> type[Any]:
    """The SpooledTemporaryFile subclass a :class:`ScratchSpool` is, made once."""
    if _SPOOL_TYPE:
        return _SPOOL_TYPE[0]
    import tempfile

    class _Spool(ScratchSpool, tempfile.SpooledTemporaryFile):  # type: ignore[type-arg]
        def __init__(self, max_size: int, what: str) -> None:
            tempfile.SpooledTemporaryFile.__init__(self, max_size=max_size)
            self.what = what

        def rollover(self) -> None:
            temporary_folder(self.what)
            try:
                super().rollover()
            except OSError as exc:
                raise scratch_error(self.what, exc) from exc

        def write(self, data: bytes) -> int:  # type: ignore[override]
            try:
                return int(super().write(data))
            except OSError as exc:
                raise scratch_error(self.what, exc) from exc

    _Spool.__name__ = _Spool.__qualname__ = "ScratchSpool"
    _SPOOL_TYPE.append(_Spool)
    return _Spool
