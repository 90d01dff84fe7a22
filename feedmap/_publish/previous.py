"""What the previous run left in a directory: which URL is in which file, read back from the files themselves.

Spec: https://www.sitemaps.org/protocol.html ("Using Sitemap index files": an index lists each sitemap by its
``loc``; a sitemap lists each URL by its ``loc``, a text sitemap one a line).  The previous run of a set is the
index at the set's index name in the directory and the files it names; nothing else is read (no state file:
the files are the record, whichever feedmap, or tool, wrote them, and a hand edit of them is what the next
run keeps).  :func:`read_previous` reads the index with feedmap's ``sitemapindex`` reader, then each file it
names with the reader of the format being written (gzip by its content, as every input), and keeps each URL
once, in the files' order (file by file): in a :class:`~feedmap._publish.spools.RecordSpool` (memory, then a
temporary file), with its place in that order in a :class:`~feedmap._io.seen_keys.SeenKeys` (a dict, then a
compact table, then SQLite on disk), so memory does not grow with the URLs; the place of each file's first URL
says which file holds a place.  A URL is keyed as the merge of repeated
URLs keys it (:func:`feedmap.converters._duplicates.url_key`: the URL an XML output writes for it).

The previous run is used when the index is a sitemap index read without an error, each ``loc`` it lists is
the base URL followed by a name of this set (the name pattern and gzip, exactly as this run would name file
``n``; each number once), and each of those files is a regular file that the format's reader reads without
an error, no URL in two of them.  Otherwise the files are cut afresh, and the reason is said:

* no index there, or one that names no file: nothing to keep (said nothing);
* a file at the index's name that is no sitemap index at all (the reader refuses it before any entry: the
  site's own file, say), or an index naming only files of another set (another base URL, name pattern, gzip
  or format): ``cut-afresh`` (INFO), the file replaced as every run replaces it;
* an index that cannot be read, or names files of this set beside others, or a number twice; a file named
  that is missing, not a regular file, not read without an error, or damaged (:data:`DAMAGE`: the reader
  reads on past what it says, but the file is not as it was written); a URL in two files:
  ``previous-run-unusable`` (WARNING) naming the file (and line) and why.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import stat
from collections.abc import Callable, Generator
from dataclasses import dataclass, field

from feedmap._core.context import Context, Options
from feedmap._core.errors import Diagnostic, FeedmapError, Level, Reporter
from feedmap._io.seen_keys import SeenKeys, compiled_keys
from feedmap._io.sources import open_source
from feedmap._publish.split import Layout, _names_of
from feedmap._publish.split_notes import file_name
from feedmap._publish.spools import RecordSpool
from feedmap.formats import _registry as registry

__all__ = ["DAMAGE", "Previous", "read_previous"]


@dataclass
class Previous:
    """The previous run: its files by number (ascending), each URL's key once in the files' order (file by file,
    each in its order), the place of each key in that order, and the place of each file's first key."""

    numbers: list[int]
    keys: RecordSpool = field(repr=False)
    places: SeenKeys = field(repr=False)
    starts: list[int] = field(repr=False)

    def number_at(self, place: int) -> int:
        """The number of the file holding the key at ``place``."""
        return self.numbers[bisect.bisect_right(self.starts, place) - 1]

    def close(self) -> None:
        self.places.close()
        self.keys.close()


#: What a reader says of a file whose bytes are damaged (cut off, not well-formed, bad gzip or UTF-8, past a
#: limit): a file no writer wrote so, unusable even though the reader reads on.  Other warnings (a value a hand
#: edit put there, a URL written as read with ``keep_urls``) leave the URLs read as they are, and the file usable.
DAMAGE = frozenset(
    {
        "xml-not-well-formed",
        "truncated-entry",
        "corrupt-gzip",
        "invalid-utf8",
        "missing-bom",
        "line-too-long",
        "xml-limit",
        "too-many-bytes",
        "malformed-feed",
    }
)


#: Keys of the previous run held in a dict before they move to the compiled table (where it is built).
_IN_DICT = 10_000


class _Unusable(Exception):
    """Why the previous run is not kept (the message of its diagnostic), and at what level it is said."""

    def __init__(
        self, message: str, level: Level = Level.WARNING, source: str = "", line: int = 0, *, refused: str = ""
    ) -> None:
        super().__init__(message)
        self.level, self.source, self.line = level, source, line
        self.refused = refused  #: why the reader refused the file before any entry: not of the format at all


def read_previous(where: Layout, base: str, key: Callable[[str], str], ctx: Context) -> Previous | None:
    """The previous run of the set ``where`` names, its index listing the files at ``base`` (as the index
    writes it); None when there is none to keep, said as the module says."""
    index = os.path.join(where.directory, where.index)
    if not _regular(index):  # none: a first run (a link or FIFO is no index of a run either)
        return None
    try:
        files = _named_files(index, where, base)
        if not files:
            return None
        return _places(files, where, key)
    except _Unusable as why:
        fresh = "the files are cut afresh"
        code = "previous-run-unusable" if why.level == Level.WARNING else "cut-afresh"
        ctx.reporter.report(Diagnostic(why.level, code, f"{why}: {fresh}", why.source or index, why.line))
        return None


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _named_files(index: str, where: Layout, base: str) -> list[tuple[int, str]]:
    """The number and name of each file the index names, by number; _Unusable as the module says."""
    found: dict[int, str] = {}
    others: list[str] = []
    try:
        _sort_named(index, where, base, found, others)
    except _Unusable as why:
        if not why.refused:
            raise
        name = os.path.basename(index)  # the site's own file there, say: replaced as before
        raise _Unusable(f"{name} is no sitemap index of a set ({why.refused})", Level.INFO, index) from None
    if others and not found:
        this = f"{where.name(1)}, {where.name(2)}, ... at {base}"
        raise _Unusable(f"names {others[0]}, a file of another set than this run's ({this})", Level.INFO, index)
    if others:
        raise _Unusable(f"names {others[0]} beside files of this run's set ({found[min(found)]}, ...)", source=index)
    return sorted(found.items())


def _sort_named(index: str, where: Layout, base: str, found: dict[int, str], others: list[str]) -> None:
    """Each file the index names into ``found`` by number (a name of this set) or ``others`` (its loc)."""
    names = _names_of(where.pattern)
    with contextlib.closing(_read_locs(index, "sitemapindex")) as locs:
        for loc in locs:
            name = file_name(loc[len(base) :]) if loc.startswith(base) else None
            match = names.fullmatch(name) if name is not None else None
            number = int(match["n"]) if match is not None else 0
            if name is None or not number or where.name(number) != name:
                others.append(loc)
                continue
            if number in found:
                twice = f"{name} twice" if found[number] == name else f"{found[number]} and {name}, one number twice"
                raise _Unusable(f"names {twice}", source=index)
            found[number] = name


def _places(files: list[tuple[int, str]], where: Layout, key: Callable[[str], str]) -> Previous:
    """The keys of the files' URLs, in order, and the place of each; _Unusable for a file that cannot be read
    or a URL in two."""
    # the compiled table holds a key in about 43 bytes, the dict in about 150: this map goes there early
    places = SeenKeys(in_memory=_IN_DICT) if compiled_keys() else SeenKeys()
    previous = Previous([number for number, _ in files], RecordSpool(), places, [])
    try:
        for number, name in files:
            path = os.path.join(where.directory, name)
            if not _regular(path):
                what = "missing" if not os.path.lexists(path) else "not a regular file"
                raise _Unusable(f"names {name}, which is {what}", source=os.path.join(where.directory, where.index))
            previous.starts.append(previous.keys.count)
            _read_file(path, number, where, key, previous)
    except BaseException:
        previous.close()
        raise
    return previous


def _read_file(path: str, number: int, where: Layout, key: Callable[[str], str], previous: Previous) -> None:
    """The keys of file ``number``'s URLs after those of the files before it (a key it repeats once)."""
    keys, places = previous.keys, previous.places
    with contextlib.closing(_read_locs(path, where.spec.name)) as locs:
        for loc in locs:
            url = key(loc)
            if places.add_new(url, keys.count):
                keys.add(url, len(url))
                continue
            other = previous.number_at(places.get(url) or 0)
            if other != number:
                raise _Unusable(f"{url} is in {where.name(other)} too", source=path)


def _read_locs(path: str, format: str) -> Generator[str, None, None]:
    """The loc of each entry of the file at ``path`` read as ``format`` by feedmap's reader; _Unusable at the
    first error or :data:`DAMAGE` it reports, or an error it raises."""
    errors: list[Diagnostic] = []

    def first_error(diagnostic: Diagnostic) -> None:
        if (diagnostic.level >= Level.ERROR or diagnostic.code in DAMAGE) and not errors:
            errors.append(diagnostic)

    reporter = Reporter(handler=first_error, keep=0)
    ctx = Context(reporter=reporter, options=Options(follow=False), name=path)
    spec = registry.get(format)
    assert spec.reader is not None
    read = 0
    try:
        with (
            open_source(path, reporter=reporter, max_bytes=ctx.options.max_bytes, name=path) as source,
            spec.reader(source, ctx=ctx) as doc,
        ):
            for entry in doc.entries:
                if errors:
                    break
                read += 1
                yield entry.loc
    except FeedmapError as exc:
        name = os.path.basename(path)
        refused = "" if read or errors else str(exc)
        raise _Unusable(f"{name} cannot be read back ({exc})", source=path, refused=refused) from None
    if errors:
        error = errors[0]
        said = f"{error.level}[{error.code}] {error.message}"
        name = os.path.basename(path)
        raise _Unusable(f"{name} does not read back as written ({said})", source=error.source or path, line=error.line)
