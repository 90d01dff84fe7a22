"""A publishing run's locks in its directory, and the temporary files that killed runs left there.

The commits of runs into one directory follow each other (:func:`commit_lock`, on the directory itself).

A run (:class:`feedmap._publish.publish.Publisher`) stages each file as a hidden temporary file in the directory,
``.NAME.TOKEN.xxxxxxxx.part`` (TOKEN: 8 hex digits, the run's), and holds an exclusive ``flock(2)`` on its
lock file ``.feedmap-TOKEN.lock`` there all the while: the lock file is made (and locked) before the run's
first temporary file and removed after its last one is gone.  The kernel releases a lock when its holder
dies, so a run killed outright (SIGKILL, power loss) leaves temporary files whose lock nobody holds, however
old; a live run's lock is held, however long it has been writing.  Each new run removes, before it stages
anything, the temporary files (and the lock file) of every TOKEN whose lock file is there and whose lock it
can take: the leftovers of runs that are over, never a file of a run still writing, never a file of another
naming (nor one of the temporary naming without its lock file).

Without ``flock(2)`` (not POSIX, or a file system refusing locks) or when the lock file cannot be made, a run
takes no lock, names its temporary files ``.NAME.xxxxxxxx.part`` (as :mod:`feedmap._io.sinks` does; no run
removes those) and removes nothing.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Iterator

from feedmap._io.files import READ_NO_FOLLOW
from feedmap._io.sinks import cannot_write

try:
    import fcntl
except ImportError:  # not POSIX: no run locks
    fcntl = None  # type: ignore[assignment]

__all__ = ["RunLock", "commit_lock", "is_run_file"]

#: A run's temporary file: ``.NAME.TOKEN.xxxxxxxx.part``.
_PART = re.compile(r"\..*\.(?P<token>[0-9a-f]{8})\.[0-9a-f]{8}\.part", re.DOTALL)
#: A run's lock file: ``.feedmap-TOKEN.lock``.
_LOCK = re.compile(r"\.feedmap-(?P<token>[0-9a-f]{8})\.lock")
#: Longest name (UTF-8 bytes) kept whole in a temporary file's name (NAME_MAX is 255 with the additions).
_LONGEST = 150


def is_run_file(name: str) -> bool:
    """Whether ``name`` is a run's temporary or lock file (which no index names and no run publishes)."""
    return _PART.fullmatch(name) is not None or _LOCK.fullmatch(name) is not None


@contextlib.contextmanager
def commit_lock(directory: str) -> Iterator[None]:
    """An exclusive flock(2) on ``directory`` while a run commits: the commits of two runs into one directory
    follow each other, so the set left is the last run's whole.  Where the file system has no locks, none is
    taken."""
    if fcntl is None:
        yield
        return
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise cannot_write(directory, exc, "cannot open the directory") from None
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _lock_name(token: str) -> str:
    return f".feedmap-{token}.lock"


class RunLock:
    """The lock of one run in ``directory`` (:meth:`take`), released by :meth:`release`."""

    def __init__(self, directory: str, token: str = "", fd: int = -1) -> None:
        self.directory = directory
        #: The run's token ("" when no lock is held).
        self.token = token
        self._fd = fd

    @classmethod
    def take(cls, directory: str) -> RunLock:
        """A new run's lock in ``directory``; without a lock when flock(2) or the lock file is unavailable."""
        if fcntl is None:
            return cls(directory)
        for _ in range(100):
            token = os.urandom(4).hex()
            path = os.path.join(directory, _lock_name(token))
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
            try:
                fd = os.open(path, flags, 0o666)
            except FileExistsError:
                continue
            except OSError:
                return cls(directory)  # staging says what is wrong with the directory
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                kept = os.fstat(fd).st_ino == os.lstat(path).st_ino
            except OSError:  # no locks here (or the file went): no run lock
                kept = False
                with contextlib.suppress(OSError):
                    _unlink_if_same(path, fd)
                os.close(fd)
                return cls(directory)
            if kept:
                return cls(directory, token, fd)
            os.close(fd)  # a new run took it for a dead one's and removed it before it was locked: again
        return cls(directory)

    def temporary_base(self, name: str) -> str:
        """What the temporary file of ``name`` is named after (``NAME.TOKEN``; the name cut when long)."""
        if len(os.fsencode(name)) > _LONGEST:
            name = name[:30]
        return f"{name}.{self.token}" if self.token else name

    def remove_leftovers(self) -> tuple[str, ...]:
        """Remove the temporary and lock files of the runs that are over (see the module documentation);
        their names.  Nothing is removed without a lock of our own, nor when the directory cannot be listed."""
        if not self.token:
            return ()
        runs: dict[str, list[str]] = {}
        try:
            with os.scandir(self.directory) as found:
                for entry in found:
                    match = _PART.fullmatch(entry.name) or _LOCK.fullmatch(entry.name)
                    if match is not None and match["token"] != self.token:
                        runs.setdefault(match["token"], []).append(entry.name)
        except OSError:
            return ()
        removed: list[str] = []
        for token, names in sorted(runs.items()):
            removed.extend(self._remove_run(token, sorted(names)))
        return tuple(removed)

    def _remove_run(self, token: str, names: list[str]) -> list[str]:
        """Remove ``names`` (one run's files) when nobody holds the run's lock; the names removed."""
        lock = os.path.join(self.directory, _lock_name(token))
        try:
            fd = os.open(lock, READ_NO_FOLLOW)
        except OSError:  # no lock file: not a run's (a run's lock outlives its temporary files), or unreadable
            return []
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return []
            assert fcntl is not None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return []  # held: the run is still writing (or no locks here)
            if os.fstat(fd).st_ino != _inode(lock):
                return []
            removed = _unlink_parts(self.directory, [name for name in names if _PART.fullmatch(name)])
            with contextlib.suppress(OSError):
                _unlink_if_same(lock, fd)
                removed.append(_lock_name(token))
            return removed
        except OSError:
            return []
        finally:
            os.close(fd)

    def release(self) -> None:
        """Remove the lock file and release the lock (after the run's last temporary file is gone)."""
        if self._fd < 0:
            return
        with contextlib.suppress(OSError):
            _unlink_if_same(os.path.join(self.directory, _lock_name(self.token)), self._fd)
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = -1


def _inode(path: str) -> int:
    try:
        return os.lstat(path).st_ino
    except OSError:
        return -1


def _unlink_if_same(path: str, fd: int) -> None:
    """Unlink ``path`` when it is still the file open as ``fd``."""
    if os.fstat(fd).st_ino == _inode(path):
        os.unlink(path)


def _unlink_parts(directory: str, names: list[str]) -> list[str]:
    """Unlink the regular files among ``names`` (temporary files); the names removed."""
    removed = []
    for name in names:
        path = os.path.join(directory, name)
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)
                removed.append(name)
    return removed
