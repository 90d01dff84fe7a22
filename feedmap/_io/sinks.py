"""Opening outputs: standard output, a path, or a file object; regular files are replaced atomically.

What is at the path decides how it is written (POSIX ``rename(2)`` and ``open(2)``):

* a regular file, or nothing yet: the document goes to a temporary file in the same directory
  (``.NAME.xxxxxxxx.part``), which is renamed over the path only once everything was written and synced.
  A failed or interrupted run leaves the earlier file untouched and no temporary file behind.  The new
  file keeps the mode (and, where allowed, the owner) of the one it replaces; a new one gets ``0o666``
  less the umask, applied by the kernel when the file is created (the process umask is never changed).
  The temporary files of this output that runs killed outright left are removed
  (:mod:`feedmap._io.sink_leftovers`).
* a symbolic link is followed: its target is replaced as above and the link is kept (a dangling link
  gets its target created).
* a device, a FIFO, a socket's peer, or one of the process's own descriptors (``/dev/fd/N``,
  ``/dev/stdout``, a shell's ``>(...)``) is written straight through: no temporary file, no rename, as
  ``cat > PATH`` would.  Such an output cannot be atomic.

Every failure to open or write an output is a :class:`~feedmap._core.errors.SourceError` naming it and saying
what to do (a full disk included), except a broken pipe: that stays :class:`BrokenPipeError`, as the
reader going away is not an error of the document (the command line stops quietly).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import gzip
import io
import os
import stat
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, BinaryIO, Union

from feedmap._core.errors import SourceError
from feedmap._io.sink_leftovers import lock_temporary, remove_dead_temporaries

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["GuardedOutput", "SinkLike", "cannot_write", "gzip_named", "open_sink"]

SinkLike = Union[str, "os.PathLike[str]", BinaryIO, None]

_BUFFER = 64 * 1024
#: What to do about an error, by errno (after "cannot write (strerror)").
_ADVICE = {
    errno.ENOSPC: "the disk is full: free some space, or write elsewhere",
    errno.EDQUOT: "the disk quota is used up: free some space, or write elsewhere",
    errno.EFBIG: "the file would be larger than this system or `ulimit -f` allows",
    errno.EROFS: "the file system is read-only: write elsewhere",
    errno.EACCES: "check the permissions of the file and of its directory",
    errno.EPERM: "check the permissions of the file and of its directory",
    errno.ELOOP: "a symbolic link on the way points back to itself",
    errno.ENAMETOOLONG: "give a shorter name",
}


def cannot_write(name: str, exc: OSError, doing: str = "cannot write") -> SourceError:
    """``NAME: cannot write (strerror); what to do`` for an OSError met while opening or writing."""
    reason = exc.strerror or str(exc)
    advice = _ADVICE.get(exc.errno or 0)
    return SourceError(f"{name}: {doing} ({reason})" + (f"; {advice}" if advice else ""))


class GuardedOutput(io.RawIOBase):
    """The bytes of one output: OS errors become SourceError naming it; a broken pipe stays BrokenPipeError.

    ``write`` and ``flush`` hand the bytes on (``os.write`` on a descriptor, or another stream's methods);
    closing does not close what is below.  After :meth:`abandon` writes are dropped, so that closing the
    buffer above after a failure neither writes the rest of the document nor fails a second time.
    """

    def __init__(
        self,
        name: str,
        write: Callable[[ReadableBuffer], int | None],
        flush: Callable[[], object] = lambda: None,
        *,
        tty: bool = False,
    ) -> None:
        super().__init__()
        self.output_name = name
        self._write = write
        self._flush = flush
        self._tty = tty
        self._abandoned = False
        #: Whether writing or flushing failed (the output's fault, not the document's).
        self.failed = False

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._tty

    def write(self, data: ReadableBuffer) -> int | None:
        if self._abandoned:
            return memoryview(data).nbytes
        try:
            return self._write(data)
        except (BrokenPipeError, SourceError):  # SourceError: a guarded stream below named it already
            self.failed = True
            raise
        except OSError as exc:
            self.failed = True
            raise cannot_write(self.output_name, exc) from None

    def flush(self) -> None:
        if self._abandoned or self.closed:
            return
        try:
            self._flush()
        except (BrokenPipeError, SourceError):
            self.failed = True
            raise
        except OSError as exc:
            self.failed = True
            raise cannot_write(self.output_name, exc) from None

    def abandon(self) -> None:
        self._abandoned = True


@contextlib.contextmanager
def _buffered(raw: GuardedOutput, *, stream: bool = False) -> Iterator[BinaryIO]:
    """A buffered writer over ``raw``, flushed and closed at the end.

    After a failure the buffered rest is dropped, except on a ``stream`` (stdout) whose writing did not
    fail: what the writer wrote reaches it, as if it were not buffered here (a stream cannot be undone).
    """
    out = io.BufferedWriter(raw, buffer_size=_BUFFER)
    try:
        yield out
        out.close()  # writes what is buffered, then flushes raw (errors are raw's SourceError)
    except BaseException:
        if stream and not raw.failed:
            with contextlib.suppress(OSError, ValueError):
                out.flush()
        raw.abandon()
        with contextlib.suppress(OSError, ValueError):
            out.close()
        raise


@contextlib.contextmanager
def open_sink(target: SinkLike) -> Iterator[BinaryIO]:
    """Open an output: ``None`` or ``"-"`` for standard output, a path, or a binary file object.

    A path is written as the module documentation says: a regular file (or a new one) atomically, a
    device, FIFO or ``/dev/fd/N`` straight through.  Raises SourceError when it cannot be opened or
    written (an empty path, a directory, a missing directory, a full disk, ...).
    """
    if target is None or (isinstance(target, str) and target == "-"):
        stdout = sys.stdout.buffer
        raw = GuardedOutput("<stdout>", stdout.write, stdout.flush, tty=stdout.isatty())
        with _buffered(raw, stream=True) as out:
            yield out
        return
    if not isinstance(target, (str, os.PathLike)):
        yield target  # the caller's object: written as it is, errors and all
        return
    name = os.fspath(target)
    descriptor = _own_descriptor(name) if name else None
    if descriptor is not None:
        with _straight_through(name, _dup(name, descriptor)) as out:
            yield out
        return
    present = _existing(name)
    if present is not None and not stat.S_ISREG(present.st_mode):
        with _straight_through(name, _open_special(name, present)) as out:
            yield out
        return
    with _replacing(name, present) as out:
        yield out


def gzip_named(target: SinkLike) -> bool:
    """True for a path whose name ends in ``.gz``: what is written there is gzip-compressed."""
    return isinstance(target, (str, os.PathLike)) and os.fspath(target).lower().endswith(".gz")


@contextlib.contextmanager
def gzipped(out: BinaryIO) -> Iterator[BinaryIO]:
    """A gzip stream (RFC 1952) over ``out`` that is the same bytes for the same input: no file name and
    an mtime of 0 in the header (``gzip -n``), compression level 6 (gzip's own default)."""
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=6, mtime=0) as compressed:
        yield compressed  # type: ignore[misc]


# ------------------------------------------------------------------------------------ what is at the path


def _existing(name: str) -> os.stat_result | None:
    """What the path names after following symbolic links, None when nothing is there; SourceError
    for what can never be written (an empty path, a directory, a path through a file)."""
    if not name:
        raise SourceError("the output path is empty: give a file name, or '-' for standard output")
    try:
        found = os.stat(name)
    except FileNotFoundError:
        if name.endswith(("/", os.sep)):  # `-o new/` asks for a directory, which a file cannot be
            raise SourceError(f"{name}: no such directory; give the path of a file to write") from None
        return None
    except NotADirectoryError:
        raise SourceError(f"{name}: {_blocking_file(name)} is not a directory") from None
    except OSError as exc:
        raise cannot_write(name, exc, "cannot open") from None
    if stat.S_ISDIR(found.st_mode):
        raise SourceError(f"{name}: is a directory; give the path of a file to write in it")
    return found


def _blocking_file(name: str) -> str:
    """The first part of ``name`` that exists and is not a directory (``a/file`` in ``a/file/out.xml``)."""
    parts = os.path.normpath(name).split(os.sep)
    for end in range(1, len(parts)):
        prefix = os.sep.join(parts[:end]) or os.sep
        with contextlib.suppress(OSError):
            if not stat.S_ISDIR(os.stat(prefix).st_mode):
                return prefix
    return os.path.dirname(name)


def _own_descriptor(name: str) -> int | None:
    """N when ``name`` leads to this process's ``/proc/PID/fd/N``: ``/dev/fd/N``, ``/dev/stdout``, a
    shell's ``>(...)``.  Followed one link at a time, as the last link (``pipe:[...]``) names no file."""
    own = os.path.realpath("/proc/self/fd")
    if not os.path.isdir(own):
        return None
    current = os.path.abspath(name)
    for _ in range(40):  # the kernel's limit on links followed
        folder, leaf = os.path.split(current)
        if leaf.isascii() and leaf.isdigit() and os.path.realpath(folder) == own:  # "²".isdigit() too
            return int(leaf)
        try:
            link = os.readlink(current)
        except OSError:
            return None
        current = os.path.normpath(os.path.join(folder, link))
    return None


# ------------------------------------------------------------------------------------- straight through


def _dup(name: str, descriptor: int) -> int:
    """A copy of our descriptor ``N`` (writing goes on where the shell left it, appending if it appends)."""
    try:
        return os.dup(descriptor)
    except OSError as exc:
        raise cannot_write(name, exc, f"cannot write to descriptor {descriptor}") from None


def _open_special(name: str, found: os.stat_result) -> int:
    """Open a device or FIFO for writing, without creating or truncating anything (a FIFO waits for a reader)."""
    if stat.S_ISSOCK(found.st_mode):
        raise SourceError(f"{name}: is a socket; give a file, a FIFO or '-' for standard output")
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(name, flags)
    except OSError as exc:
        raise cannot_write(name, exc, "cannot open") from None


@contextlib.contextmanager
def _straight_through(name: str, fd: int) -> Iterator[BinaryIO]:
    try:
        with _buffered(GuardedOutput(name, functools.partial(os.write, fd)), stream=True) as out:
            yield out
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise
    _close(name, fd)


def _close(name: str, fd: int) -> None:
    """Close ``fd`` after a complete write: an error then (NFS reports some only now) is a SourceError."""
    try:
        os.close(fd)
    except OSError as exc:
        raise cannot_write(name, exc) from None


# ------------------------------------------------------------------------------------ atomic replacement


@contextlib.contextmanager
def _replacing(name: str, previous: os.stat_result | None) -> Iterator[BinaryIO]:
    """Write to a temporary file next to the final one (a link's target), renamed over it when complete."""
    final = _link_target(name)
    directory = os.path.dirname(final) or os.curdir
    if previous is None:
        _check_directory(name, directory)
    fd, temporary = _locked_temporary(name, directory, os.path.basename(final))
    keeper = -1
    try:
        remove_dead_temporaries(temporary)
        if previous is not None:
            _keep_metadata(fd, previous)
        with _buffered(GuardedOutput(name, functools.partial(os.write, fd))) as out:
            yield out
        try:
            os.fsync(fd)  # the data is on disk before the name points to it
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOTSUP):  # file systems that cannot sync
                raise cannot_write(name, exc) from None
        keeper = os.dup(fd)  # the lock stays held until the rename (flock(2) is the open file's, not the fd's)
        closing, fd = fd, -1
        _close(name, closing)
        try:
            os.replace(temporary, final)
        except OSError as exc:
            raise cannot_write(name, exc, "cannot replace") from None
    except BaseException:
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    finally:
        if keeper >= 0:
            with contextlib.suppress(OSError):
                os.close(keeper)


def _locked_temporary(name: str, directory: str, base: str) -> tuple[int, str]:
    """A new temporary file (:func:`_temporary`), locked while it is written (:mod:`feedmap._io.sink_leftovers`)."""
    for _ in range(100):
        fd, temporary = _temporary(name, directory, base)
        if lock_temporary(fd, temporary):
            return fd, temporary
        os.close(fd)  # another run took it for a dead one's and removed it: make another
    raise SourceError(f"{name}: cannot create a temporary file in {directory}: each one made was removed")


def _link_target(name: str) -> str:
    """The file a chain of symbolic links at ``name`` ends at (``name`` itself when it is no link).

    Only the last component is followed: directories on the way may be links, the rename happens in
    whichever directory they lead to.  A relative path stays relative (no parent needs to be enterable).
    """
    final = name
    for _ in range(40):  # the kernel's limit on links followed
        try:
            link = os.readlink(final)
        except OSError:  # not a link (or nothing there)
            return final
        final = os.path.join(os.path.dirname(final), link)
    raise SourceError(f"{name}: too many levels of symbolic links; a symbolic link on the way points back to itself")


def _check_directory(name: str, directory: str) -> None:
    try:
        found = os.stat(directory)
    except FileNotFoundError:
        raise SourceError(f"{name}: directory {directory} does not exist; create it first") from None
    except NotADirectoryError:
        raise SourceError(f"{name}: {_blocking_file(directory)} is not a directory") from None
    except OSError as exc:
        raise cannot_write(name, exc, "cannot open") from None
    if not stat.S_ISDIR(found.st_mode):
        raise SourceError(f"{name}: {directory} is not a directory")


def _temporary(name: str, directory: str, base: str) -> tuple[int, str]:
    """Create ``.BASE.xxxxxxxx.part`` in ``directory``, mode 0o666 less the umask (applied by the kernel)."""
    if len(os.fsencode(base)) > 200:  # the name must stay within NAME_MAX (255 bytes) with its additions
        base = base[:50]
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = os.path.join(directory, f".{base}.{os.urandom(4).hex()}.part")
        try:
            return os.open(path, flags, 0o666), path
        except FileExistsError:
            continue
        except OSError as exc:
            raise cannot_write(name, exc, f"cannot create a temporary file in {directory}") from None
    raise SourceError(f"{name}: cannot create a temporary file in {directory}: every name tried exists")


def _keep_metadata(fd: int, previous: os.stat_result) -> None:
    """Give the new file the owner (where allowed) and permission bits of the one it replaces."""
    if hasattr(os, "fchown"):
        with contextlib.suppress(OSError):
            os.fchown(fd, previous.st_uid, previous.st_gid)
    if hasattr(os, "fchmod"):
        with contextlib.suppress(OSError):
            os.fchmod(fd, stat.S_IMODE(previous.st_mode) & 0o777)
