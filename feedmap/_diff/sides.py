"""The two sides of ``feedmap.diff``: what each is read from, and whether both are read from the same files.

* **A published directory** (``feedmap convert ... -o DIR/ --base-url URL`` writes numbered files and
  ``DIR/sitemap_index.xml`` naming each as URL + its file name, the sitemaps.org index of
  https://www.sitemaps.org/protocol.html#index): the side is the index in DIR (``Options.index_name``),
  its children read from DIR by file name.  The base URL is that of the index's first child (its URL up
  to the last ``/``); a child that is not base URL + a file name is not read from anywhere (WARNING
  ``child-outside-directory``: the side is then incomplete), so that nothing of another directory or of
  the network takes its place; nor is an index that is a symbolic link out of DIR.
* **Any other source** is read with the maps of ``Options.maps`` and the side's own (``old_maps``,
  ``new_maps``: ``--old-map`` and ``--new-map``, looked up first).
* **The same files**: when every entry of both sides was read from the same local files (one file, one
  ``--map`` directory serving both indexes' children), the comparison would find nothing however the
  sites differ: ReadError ``same-files``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

from feedmap._api import read
from feedmap._core.call_fields import used_by
from feedmap._core.context import FollowPredicate, Options
from feedmap._core.dates import W3CDate
from feedmap._core.errors import FeedmapError, ReadError, Reporter, SourceError
from feedmap._core.model import Entry
from feedmap._core.urls import is_http_url
from feedmap._io.sources import SourceLike, is_url, source_name

__all__ = ["MapLike", "Side", "check_not_same", "is_directory", "side_of"]

MapLike = Sequence[tuple[str, "str | os.PathLike[str]"]]


@dataclass(slots=True)
class Side:
    """One side of a comparison: the source read, the options it is read with (:meth:`options_for`), and
    the files its entries came from (:meth:`recorded`)."""

    source: SourceLike
    options: Options
    #: The published directory the side is (None for any other source), and its children's base URL.
    directory: Path | None = None
    base: str | None = None
    origins: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        return source_name(self.source)

    def options_for(self, reporter: Reporter) -> Options:
        """The options the side is read with, a directory's children limited to it (reported to ``reporter``);
        for a directory, its index is looked at first (SourceError when there is none)."""
        if self.directory is None:
            return self.options
        if not os.path.isfile(self.name):  # a directory's source is its index's path
            raise SourceError(
                f"{self.directory}: holds no {self.options.index_name}: a directory is compared by the sitemap "
                "index `feedmap convert -o DIR/` writes into it (is its index named otherwise? give its index name)"
            )
        index = Path(self.name)
        if not index.resolve().is_relative_to(self.directory.resolve()):  # as its children: nothing from elsewhere
            raise SourceError(
                f"{index} is a symbolic link out of {self.directory}; a directory is compared by its own files "
                "(give the index's own path to compare it)"
            )
        self.base = _base_url(index, self.options)
        in_directory = _InDirectory(self.base, self.directory, self.name, reporter, self.options.follow_child)
        maps = ((self.base, self.directory),) if self.base is not None else ()
        return replace(self.options, maps=maps, follow_child=in_directory)

    def recorded(self, entries: Iterable[Entry]) -> Iterator[Entry]:
        """``entries``, the name of each file they came from kept (a few names: one per file read)."""
        last = None
        for entry in entries:
            origin = entry.origin
            if origin is not None and origin.source is not last:
                last = origin.source
                self.origins.add(last)
            yield entry


def is_directory(source: SourceLike) -> bool:
    """Whether ``source`` names a directory (a published one, see the module)."""
    if not isinstance(source, (str, os.PathLike)):
        return False
    name = os.fspath(source)
    return name != "-" and not is_url(name) and os.path.isdir(name)


def side_of(source: SourceLike, options: Options, maps: MapLike) -> Side:
    """The side ``source`` is: a published directory (see the module) or a source read with ``maps`` first."""
    if not isinstance(source, (str, os.PathLike)) or not is_directory(source):
        own = tuple((prefix, Path(directory)) for prefix, directory in maps)
        return Side(source, replace(options, maps=(*own, *options.maps)) if own else options)
    directory = Path(os.fspath(source))
    if maps:
        raise ValueError(f"{directory} is a directory, whose children are read from it: its own maps do not apply")
    return Side(directory / options.index_name, options, directory=directory)


def _base_url(index: Path, options: Options) -> str | None:
    """The URL the index's first child is under (up to its last ``/``); None when it names no http(s) URL.
    Read quietly: reading the side reports what is wrong with the index."""
    quiet = used_by(replace(options, follow=False, strict=False, follow_child=None), "read")
    first = None
    with contextlib.suppress(FeedmapError), read(index, None, quiet, reporter=Reporter(keep=0)) as doc:
        first = next(iter(doc.entries), None)
    if first is None or not is_http_url(first.loc) or "/" not in urlsplit(first.loc).path:
        return None
    return first.loc[: first.loc.rindex("/") + 1]


class _InDirectory:
    """The follow filter of a published directory: a child is read when it is its base URL + a file name."""

    def __init__(
        self, base: str | None, directory: Path, index: str, reporter: Reporter, also: FollowPredicate | None
    ) -> None:
        self.base = base
        self.directory = directory
        self.index = index
        self.reporter = reporter
        self.also = also

    def _by_name(self, loc: str) -> bool:
        if self.base is None or not loc.startswith(self.base):
            return False
        name = unquote(urlsplit(loc[len(self.base) :]).path)
        return name not in ("", ".", "..") and "/" not in name and "\0" not in name

    def __call__(self, loc: str, lastmod: W3CDate | None) -> bool:
        if not self._by_name(loc):
            under = f"{self.base} + a file name" if self.base is not None else "the index's first child's base + a name"
            self.reporter.warning(
                "child-outside-directory",
                f"child sitemap {loc} is not {under}, a file of {self.directory}; not read",
                self.index,
            )
            return False
        return self.also is None or self.also(loc, lastmod)


def _file_key(name: str) -> tuple[int, int] | None:
    """What identifies a local file (device and inode: two spellings of one path are one file)."""
    if is_url(name) and not name.startswith("file:"):
        return None
    try:
        found = os.stat(name)
    except (OSError, ValueError):
        return None
    return (found.st_dev, found.st_ino)


def _files(names: Iterable[str]) -> frozenset[tuple[int, int]] | None:
    keys = set()
    for name in names:
        key = _file_key(name)
        if key is None:  # a URL, standard input: not known to be one file
            return None
        keys.add(key)
    return frozenset(keys) or None


def check_not_same(old: Side, new: Side) -> None:
    """ReadError ``same-files`` when both sides were read from the same local files (see the module)."""
    tops = [_files([side.name]) if isinstance(side.source, (str, os.PathLike)) else None for side in (old, new)]
    same_top = tops[0] is not None and tops[0] == tops[1]
    old_files, new_files = _files(old.origins), _files(new.origins)
    if not same_top and (old_files is None or old_files != new_files):
        return
    shown = sorted(new.origins or {new.name})
    more = f" and {len(shown) - 3:,} more" if len(shown) > 3 else ""
    raise ReadError(
        f"{old.name} and {new.name} are read from the same files ({', '.join(shown[:3])}{more}): comparing "
        f"them would find no change whatever the sites hold; give each side its own files",
        source=new.name,
        code="same-files",
    )
