"""Publishing a set of files into a directory: every file staged first, then renamed in place, the index last.

A crawler reading the directory while it is rewritten must never see an index naming a file that is not
there yet (sitemaps.org, "Using Sitemap index files": the index lists the sitemaps to fetch).  So each file
is written to a temporary file in the same directory (``.NAME.xxxxxxxx.part``), and :meth:`Publisher.commit`
renames the children over their names (POSIX ``rename(2)``, atomic per file), then the index, then removes
the files of an earlier run that this one no longer produces (only those its ``owned`` predicate claims).
Leaving the ``with`` block by an exception, or without committing, removes the staged files: the directory
is as it was.

This is the minimal version: every committed file is reported as written.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import BinaryIO

from feedmap._errors import SourceError
from feedmap._sinks import GuardedOutput, cannot_write

__all__ = ["PublishReport", "Publisher"]


@dataclass(frozen=True)
class PublishReport:
    """What a commit did, by base name: files written, files left as they were, stale files removed."""

    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]


class Publisher:
    """Stages files into ``directory`` (made if missing) and publishes them together with :meth:`commit`.

    ``owned(name)``: whether a file name is one this run's naming produces; only such files are removed as
    stale.  Use as a context manager: an exception inside it (or no commit) leaves the directory as before.
    """

    def __init__(self, directory: str | os.PathLike[str], owned: Callable[[str], bool]) -> None:
        self.directory = os.fspath(directory)
        self.owned = owned
        self._staged: dict[str, str] = {}
        self._committed = False
        self._created = not os.path.isdir(self.directory)
        try:
            os.makedirs(self.directory, exist_ok=True)
        except FileExistsError:
            raise SourceError(f"{self.directory}: is not a directory") from None
        except OSError as exc:
            raise cannot_write(self.directory, exc, "cannot make the directory") from None

    def __enter__(self) -> Publisher:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if not self._committed:
            self.abort()

    @contextlib.contextmanager
    def file(self, name: str) -> Iterator[BinaryIO]:
        """Stage the bytes of the file ``name`` (a base name); published by :meth:`commit`."""
        if not name or os.path.basename(name) != name or name in (".", ".."):
            raise ValueError(f"{name!r} is not a file name")
        path = self._temporary(name)
        try:
            with open(path, "wb", buffering=0) as raw:
                guarded = GuardedOutput(os.path.join(self.directory, name), raw.write)
                out = io.BufferedWriter(guarded, 1 << 16)
                try:
                    yield out
                    out.close()  # writes what is buffered: an error is GuardedOutput's SourceError
                except BaseException:
                    guarded.abandon()
                    with contextlib.suppress(OSError, ValueError):
                        out.close()
                    raise
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(path)
            raise
        previous = self._staged.pop(name, None)
        if previous is not None:
            with contextlib.suppress(OSError):
                os.unlink(previous)
        self._staged[name] = path

    def commit(self, index: str | None = None) -> PublishReport:
        """Publish the staged files: the children, then ``index``, then stale owned files removed."""
        names = [name for name in self._staged if name != index]
        if index is not None:
            if index not in self._staged:
                raise ValueError(f"the index {index!r} was not staged")
            names.append(index)
        for name in names:
            try:
                os.replace(self._staged[name], os.path.join(self.directory, name))
            except OSError as exc:
                self.abort()
                raise cannot_write(os.path.join(self.directory, name), exc, "cannot replace") from None
            del self._staged[name]
        self._committed = True
        removed = self._remove_stale(set(names))
        return PublishReport(tuple(names), (), tuple(removed))

    def abort(self) -> None:
        """Remove every staged file (and the directory when this publisher made it and it is empty)."""
        for path in self._staged.values():
            with contextlib.suppress(OSError):
                os.unlink(path)
        self._staged.clear()
        if self._created:
            with contextlib.suppress(OSError):
                os.rmdir(self.directory)

    def _remove_stale(self, kept: set[str]) -> list[str]:
        removed: list[str] = []
        for name in sorted(os.listdir(self.directory)):
            if name in kept or not self.owned(name):
                continue
            path = os.path.join(self.directory, name)
            if os.path.isfile(path) and not os.path.islink(path):
                try:
                    os.unlink(path)
                except OSError as exc:
                    raise cannot_write(path, exc, "cannot remove") from None
                removed.append(name)
        return removed

    def _temporary(self, name: str) -> str:
        """Create ``.NAME.xxxxxxxx.part`` in the directory, mode 0o666 less the umask."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
        base = name if len(os.fsencode(name)) <= 200 else name[:50]
        for _ in range(100):
            path = os.path.join(self.directory, f".{base}.{os.urandom(4).hex()}.part")
            try:
                os.close(os.open(path, flags, 0o666))
            except FileExistsError:
                continue
            except OSError as exc:
                raise cannot_write(name, exc, f"cannot create a temporary file in {self.directory}") from None
            return path
        raise SourceError(f"{name}: cannot create a temporary file in {self.directory}: every name tried exists")
