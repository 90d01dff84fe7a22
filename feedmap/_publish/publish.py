"""Publishing a set of files into a directory without churn: its one job.

A split sitemap is numbered files plus an index naming them (sitemaps.org protocol, "Using Sitemap index
files" and "Sitemap file location": https://www.sitemaps.org/protocol.html#index).  Crawlers fetch the index
and then every file it names, and use the files' ``lastmod`` and HTTP validators (an unchanged file is not
fetched again); a regenerated set should therefore change only what changed, and at no moment should the
index name a file that is not there.  :class:`Publisher` does that with POSIX ``rename(2)``, which replaces
a name atomically within one directory:

1. every file is staged into a hidden temporary file in the directory (``.NAME.xxxxxxxx.part``, as
   :mod:`feedmap._io.sinks` does), synced; nothing visible changes yet;
2. on :meth:`Publisher.commit` (holding an exclusive ``flock(2)`` on the directory, so that the commits of runs
   writing into one directory at once follow each other and the last one's set is left whole), every staged file
   is compared with the one at its name (size first, then in chunks: no file is ever held in memory); one with
   the same bytes is left as it is (bytes, inode and modification time) and its temporary dropped. Then the
   changed children are renamed over their names and the directory synced;
3. then the index, last: a crawler reading the old index finds every file it names, one reading the new
   index finds every new file.  When a rename fails, the files renamed so far stay (each is complete) and
   the error names them; the index is not replaced unless every child is in place;
4. then the files that the index being replaced (the one at the index's name, read before anything moved)
   named and that this run does not write are removed: never a file no index of this name named (another
   set's, one feedmap never wrote, one listed only in another case or form); then the directory is synced.

A run killed outright (SIGKILL, power loss) may leave temporary files: the next run removes them, and only
them (:mod:`feedmap._publish.lock`: each run holds a lock while it writes).

What is at a name decides what happens to it:

* nothing, or a regular file: written as above.  A new file gets ``0o666`` less the umask (applied by the
  kernel; the process umask is never changed); a replaced file keeps the mode (and, where allowed, the
  owner) of the one it replaces.
* a symbolic link is a name like any other: it is replaced by a plain file (never followed, its target is
  left alone) and, when stale, the link itself is removed.  A link is never "unchanged".
* a directory, FIFO, socket or device is never opened, replaced or removed: a produced name that is one
  is a :class:`~feedmap._core.errors.SourceError` before anything changes; a stale one is left in place.

Every failure is a :class:`~feedmap._core.errors.SourceError` naming the path and saying what to do; after a
failure no temporary file is left.  Leaving the ``with`` block by an exception (or without a commit) leaves
the directory as it was (a directory created for the run is removed again when it is still empty).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from feedmap._core.errors import SourceError
from feedmap._io.files import READ_NO_FOLLOW, open_regular
from feedmap._io.sinks import GuardedOutput, _blocking_file, _buffered, _keep_metadata, _temporary, cannot_write
from feedmap._publish.lock import RunLock, commit_lock, is_run_file

__all__ = ["PublishReport", "Publisher"]

#: Bytes read at a time from each file when comparing.
_CHUNK = 1 << 20
#: fsync errors of file systems that cannot sync (the data is then as safe as they make it).
_CANNOT_SYNC = (errno.EINVAL, errno.ENOTSUP, errno.EBADF)


@dataclass(frozen=True)
class PublishReport:
    """What a commit did, by file name (basenames)."""

    written: tuple[str, ...]  #: (re)written this run, children then the index, in write order
    unchanged: tuple[str, ...]  #: the existing file had the same bytes: left as it was (bytes and mtime)
    removed: tuple[str, ...]  #: stale: named by the index replaced, not produced this run (in its order)
    leftovers: tuple[str, ...] = ()  #: temporary files of killed runs, removed (:mod:`feedmap._publish.lock`)


@dataclass
class _Staged:
    name: str
    temporary: str
    size: int


class Publisher:
    """Stage files into ``directory``, then :meth:`commit` them without churn (see the module documentation).

    ``directory`` is created (with its parents) when missing; ``listed(file)`` reads the index being replaced
    (an open regular file) and gives the file names it lists: only such files are ever removed, and only
    when an index is committed.  The temporary files killed runs left are removed first (``leftovers``).
    """

    def __init__(
        self, directory: str | os.PathLike[str], listed: Callable[[BinaryIO], Iterable[str]] | None = None
    ) -> None:
        self.directory = os.fspath(directory)
        self._listed = listed
        self._staged: dict[str, _Staged | None] = {}  # None: being staged
        self._done = False
        self._created = _make_directory(self.directory)
        self._run = RunLock.take(self.directory)
        #: The temporary files of killed runs removed before this run staged anything.
        self.leftovers = self._run.remove_leftovers()

    def __enter__(self) -> Publisher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._abandon()

    def _path(self, name: str) -> str:
        return os.path.join(self.directory, name)

    @contextlib.contextmanager
    def file(self, name: str) -> Iterator[BinaryIO]:
        """The bytes of file ``name`` (a basename), staged into a synced temporary file; nothing visible changes.

        The same name twice in one run is a ValueError.  A name that is a directory, FIFO, socket or device
        is a SourceError.
        """
        _check_name(name)
        if self._done:
            raise ValueError("this Publisher was committed or abandoned already")
        if name in self._staged:
            raise ValueError(f"{name}: staged twice in one run")
        path = self._path(name)
        previous = _regular_or_nothing(path)
        self._staged[name] = None
        try:
            fd, temporary = _temporary(path, self.directory, self._run.temporary_base(name))
        except BaseException:
            del self._staged[name]
            raise
        try:
            if previous is not None and stat.S_ISREG(previous.st_mode):
                _keep_metadata(fd, previous)
            with _buffered(GuardedOutput(path, functools.partial(os.write, fd))) as out:
                yield out
            size = _sync_and_close(path, fd)
        except BaseException:
            del self._staged[name]
            with contextlib.suppress(OSError):
                os.close(fd)
            _unlink_quietly(temporary)
            raise
        self._staged[name] = _Staged(name, temporary, size)

    def commit(self, index: str | None = None) -> PublishReport:
        """Put the staged files in place: children, then ``index``, then remove stale owned files; sync.

        ``index`` must have been staged.  On a failure the files not yet in place are dropped, the message
        says which are in place, and the index is not replaced unless every child is.
        """
        if self._done:
            raise ValueError("this Publisher was committed or abandoned already")
        if None in self._staged.values():
            raise ValueError("commit() while a file is still being written")
        if index is not None and index not in self._staged:
            raise ValueError(f"{index}: the index was not staged")
        self._done = True
        try:
            with commit_lock(self.directory):
                return self._commit(index)
        finally:
            self._drop_temporaries()
            self._run.release()

    def _commit(self, index: str | None) -> PublishReport:
        staged = [entry for entry in self._staged.values() if entry is not None]
        for entry in staged:  # nothing changes when a name became a directory or FIFO since it was staged
            _regular_or_nothing(self._path(entry.name))
        stale = self._stale(index)  # read before the index is replaced
        ordered = [entry for entry in staged if entry.name != index] + [e for e in staged if e.name == index]
        # compare everything first: the renames then follow each other closely
        changed: list[_Staged] = []
        unchanged: list[str] = []
        for entry in ordered:
            if self._drop_if_unchanged(entry):
                unchanged.append(entry.name)
            else:
                changed.append(entry)
        children = [entry for entry in changed if entry.name != index]
        written: list[str] = []
        later = f"the index {index} was not replaced" if index is not None else "no stale file was removed"
        self._put_in_place(children, written, later)
        if len(children) < len(changed):
            self._sync_directory()  # the children's names are on disk before the index names them
            self._put_in_place(changed[-1:], written, "the previous index is kept; no stale file was removed")
        removed = self._remove_stale(stale)
        self._sync_directory()
        return PublishReport(tuple(written), tuple(unchanged), tuple(removed), self.leftovers)

    def _stale(self, index: str | None) -> list[str]:
        """The names the index being replaced lists that this run does not write, in its order, each once
        (none without an index, a reader, or a regular file at the index's name)."""
        if index is None or self._listed is None:
            return []
        previous = open_regular(self._path(index))  # a link or FIFO: no index
        if previous is None:
            return []
        try:
            with previous:
                listed = dict.fromkeys(self._listed(previous))
        except OSError:
            return []
        return [name for name in listed if name not in self._staged and _is_basename(name) and not is_run_file(name)]

    def _drop_if_unchanged(self, entry: _Staged) -> bool:
        """Whether the file at the entry's name has its bytes already (its temporary is then removed)."""
        if not _same_bytes(self._path(entry.name), entry.temporary, entry.size):
            return False
        _unlink_quietly(entry.temporary)
        entry.temporary = ""
        return True

    def _put_in_place(self, entries: list[_Staged], written: list[str], later: str) -> None:
        """Rename each staged file over its name; ``later`` says what is not done when a rename fails."""
        for entry in entries:
            path = self._path(entry.name)
            try:
                os.replace(entry.temporary, path)
            except OSError as exc:
                error = cannot_write(path, exc, "cannot replace")
                done = ", ".join(written) if written else "none"
                raise SourceError(f"{error}; rewritten files already in place: {done}; {later}") from None
            entry.temporary = ""
            written.append(entry.name)

    def _remove_stale(self, stale: list[str]) -> list[str]:
        removed: list[str] = []
        present = _listed_exactly(self.directory, set(stale)) if stale else set()
        for name in stale:
            if name not in present:  # not there, or there under another spelling only (see _listed_exactly)
                continue
            path = self._path(name)
            try:
                kind = os.lstat(path).st_mode
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise self._stale_failed(path, exc, removed) from None
            if not (stat.S_ISREG(kind) or stat.S_ISLNK(kind)):
                continue  # a directory, FIFO, socket or device was not made by a run: left alone
            try:
                os.unlink(path)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise self._stale_failed(path, exc, removed) from None
            removed.append(name)
        return removed

    def _stale_failed(self, path: str, exc: OSError, removed: list[str]) -> SourceError:
        error = cannot_write(path, exc, "cannot remove the stale file")
        done = ", ".join(removed) if removed else "none"
        return SourceError(f"{error}; every new file and the index are in place; stale files removed: {done}")

    def _sync_directory(self) -> None:
        """fsync(2) the directory, so that the renames made so far survive a crash."""
        try:
            fd = os.open(self.directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise cannot_write(self.directory, exc, "cannot open the directory to sync it") from None
        try:
            os.fsync(fd)
        except OSError as exc:
            if exc.errno not in _CANNOT_SYNC:
                raise cannot_write(self.directory, exc, "cannot sync the directory") from None
        finally:
            os.close(fd)

    def _drop_temporaries(self) -> None:
        for entry in self._staged.values():
            if entry is not None and entry.temporary:
                _unlink_quietly(entry.temporary)
                entry.temporary = ""

    def _abandon(self) -> None:
        if self._done:
            return
        self._done = True
        self._drop_temporaries()
        self._run.release()
        for folder in reversed(self._created):  # only when still empty: rmdir(2) removes nothing else
            with contextlib.suppress(OSError):
                os.rmdir(folder)


# ------------------------------------------------------------------------------------------ helpers


def _is_basename(name: object) -> bool:
    """Whether ``name`` is a basename: no separator or NUL, not empty, not ``.`` or ``..``."""
    separators = {os.sep, os.altsep or os.sep, "\0"}
    return isinstance(name, str) and name not in ("", ".", "..") and not any(s in name for s in separators)


def _check_name(name: str) -> None:
    """A basename (a programming error otherwise)."""
    if not _is_basename(name):
        raise ValueError(f"{name!r}: not a file name (a basename without separators)")


def _make_directory(directory: str) -> list[str]:
    """Create ``directory`` and its missing parents; the folders created, outermost first."""
    missing: list[str] = []
    current = os.path.abspath(directory)
    while not os.path.lexists(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    try:
        os.makedirs(directory, exist_ok=True)
    except FileExistsError:
        raise SourceError(f"{directory}: is not a directory; give a directory to write the files in") from None
    except NotADirectoryError:
        blocking = _blocking_file(directory)
        message = f"{directory}: {blocking} is a file, not a directory; move it away or write elsewhere"
        raise SourceError(message) from None
    except OSError as exc:
        raise cannot_write(directory, exc, "cannot create the directory") from None
    if not os.path.isdir(directory):
        raise SourceError(f"{directory}: is not a directory; give a directory to write the files in")
    return list(reversed(missing))


_KINDS = {stat.S_IFDIR: "a directory", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket"}


def _regular_or_nothing(path: str) -> os.stat_result | None:
    """What is at ``path`` (not following a link): None, a regular file or a link; SourceError otherwise."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise cannot_write(path, exc, "cannot open") from None
    if stat.S_ISREG(found.st_mode) or stat.S_ISLNK(found.st_mode):
        return found
    kind = _KINDS.get(stat.S_IFMT(found.st_mode), "a device")
    raise SourceError(f"{path}: is {kind}, not a regular file; move it away or write the files elsewhere")


def _sync_and_close(path: str, fd: int) -> int:
    """fsync(2) and close the staged file; its size."""
    try:
        size = os.fstat(fd).st_size
        try:
            os.fsync(fd)
        except OSError as exc:
            if exc.errno not in _CANNOT_SYNC:
                raise
    except OSError as exc:
        raise cannot_write(path, exc) from None
    try:
        os.close(fd)
    except OSError as exc:
        raise cannot_write(path, exc) from None
    return size


def _same_bytes(path: str, temporary: str, size: int) -> bool:
    """Whether the regular file at ``path`` (a link never is one) holds the staged bytes: size, then chunks."""
    try:
        fd = os.open(path, READ_NO_FOLLOW)  # O_NONBLOCK: a FIFO put there meanwhile does not wait for a writer
    except OSError:
        return False  # nothing there, a link, or unreadable: replaced
    with open(fd, "rb") as existing:
        try:
            found = os.fstat(fd)
            if not stat.S_ISREG(found.st_mode) or found.st_size != size:
                return False
            with open(temporary, "rb") as staged:
                return _same_chunks(existing, staged)
        except OSError:
            return False


def _same_chunks(first: BinaryIO, second: BinaryIO) -> bool:
    while True:
        one, other = first.read(_CHUNK), second.read(_CHUNK)
        if one != other:
            return False
        if not one:
            return True


def _listed_exactly(directory: str, names: set[str]) -> set[str]:
    """Those of ``names`` the directory lists as stored (none when it cannot be listed): where a file system
    folds case or Unicode forms (macOS, casefolded ext4), only a name listed exactly is the stale file itself."""
    try:
        with os.scandir(directory) as found:
            return {entry.name for entry in found if entry.name in names}
    except OSError:
        return set()


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
