"""Return links across a whole validation: each page an alternate names must name that page back, in bounded memory.

Spec: Google's localized versions (https://developers.google.com/search/docs/specialty/international/
localized-versions): "If two pages don't both point to each other, the tags will be ignored" (return links,
bidirectional).  The two pages may be listed in different files: two children of an index, or two inputs given
together, read by the run or by its workers (``--jobs``, ``--dask``: what a worker finds comes back with its
child's findings, :mod:`feedmap._validate.partitions`).  So no file can check them; the run gathers every page
(:meth:`ReturnLinks.page`) and checks them once all are read (:meth:`ReturnLinks.finish`).

What is held, so that memory stays flat on millions of pages: the pages with alternates and each alternate
naming another page (keys; the URLs as written when they differ; the values, files and lines) go to a temporary
SQLite database (https://www.sqlite.org/, the standard library's :mod:`sqlite3`) in a scratch folder
(:func:`feedmap._io.scratch.scratch_folder`) in batches of :data:`BATCH`, with no journal and its sorts on disk.
The pages without alternates (most of a site without hreflang) are only text lines, in memory up to
:data:`PLAIN_IN_MEMORY` characters, then appended to a scratch file; they are looked at (and their keys made) only
when some page names an alternate: a run without alternates makes no database and no key.  The check is one
query on two indexes: each pair (page, named page) not named back, in the order the pages were read (the same
with and without workers); the first :data:`LISTED` of them are one ``alternate-no-return`` each (at the line of
the link that names the other, with the other's place), the rest counted in one more; the alternates naming pages
that are not in the input (another site, a page not listed) cannot be checked, which is said once
(``alternate-not-checked``, with a count).  URLs compare by the key repeated URLs are found by
(:func:`feedmap.converters._duplicates.url_key`).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from feedmap._core.errors import Diagnostic
from feedmap._core.rules import RULES
from feedmap._io.scratch import remove_scratch_folder, scratch_error, scratch_file, scratch_folder
from feedmap._validate.hreflang import Alternate

if TYPE_CHECKING:
    import sqlite3

__all__ = ["BATCH", "LISTED", "PLAIN_IN_MEMORY", "SENT", "PageBatch", "PageBatches", "Pages", "ReturnLinks"]

#: Characters of the pages without alternates held in memory before they go to a scratch file (about 40,000 URLs).
PLAIN_IN_MEMORY = 4 << 20

#: Rows of pages without alternates joined into one text.
_CHUNK = 1024

#: Pages with alternates (and their alternates) written to the database with one ``executemany``.
BATCH = 20_000

#: Missing return links reported one by one; the rest are counted in one more finding of the same code.
LISTED = 1_000

#: Pages a worker sends to the run at once (:class:`PageBatches`).
SENT = 2048

#: SQLite's page cache, in KiB.
CACHE_KIB = 4096

#: A page as a worker sends it: its URL, its key (None: not computed: it has no alternates), its line and
#: alternates.
SentPage = tuple[str, "str | None", int, tuple[Alternate, ...]]
#: What a worker sends for a batch of pages of one file (:meth:`ReturnLinks.take`): the file's name, its pages.
PageBatch = tuple[str, list[SentPage]]

_SCHEMA = (
    # every page: those with alternates as they come (named 1), those without at the end (named 0)
    "CREATE TABLE pages (key TEXT NOT NULL, file INTEGER NOT NULL, line INTEGER NOT NULL, named INTEGER NOT NULL)",
    # each alternate naming another page; loc and href as written when they differ from their keys
    "CREATE TABLE links (seq INTEGER PRIMARY KEY, page TEXT NOT NULL, target TEXT NOT NULL, file INTEGER NOT NULL, "
    "line INTEGER NOT NULL, hreflang TEXT NOT NULL, loc TEXT, href TEXT)",
)
#: Each pair (page, named page) not named back, at its first link, in reading order; where the named page is
#: listed first (file:line, none when it is not in the input), and whether it names any alternate.
_UNRETURNED = """
SELECT MIN(l.seq), l.file, l.line, COALESCE(l.loc, l.page), l.hreflang, COALESCE(l.href, l.target),
       (SELECT p.file || ':' || p.line FROM pages AS p WHERE p.key = l.target ORDER BY p.rowid LIMIT 1),
       (SELECT MAX(p.named) FROM pages AS p WHERE p.key = l.target)
FROM links AS l
WHERE NOT EXISTS (SELECT 1 FROM links AS b WHERE b.page = l.target AND b.target = l.page)
GROUP BY l.page, l.target
ORDER BY 1
"""
_WHAT = "database for hreflang return links"


class Pages(Protocol):
    """Where a file's checks give each page: the run's :class:`ReturnLinks`, or a worker's :class:`PageBatches`."""

    def page(self, source: str, loc: str, key: str | None, line: int, alternates: Sequence[Alternate] = ()) -> None:
        """A page of the file ``source`` (its ``<url>`` at ``line``), its key (None: it has no alternates, the key
        is made when needed) and its alternates (:func:`~feedmap._validate.hreflang.check_links`)."""


class PageBatches:
    """A worker's pages, given to ``send`` (its spill, :mod:`feedmap._validate.partitions`) in batches of
    :data:`SENT` for the run's :meth:`ReturnLinks.take`; :meth:`flush` sends the last one."""

    def __init__(self, send: Callable[[PageBatch], None]) -> None:
        self.send = send
        self._source = ""
        self._pages: list[SentPage] = []

    def page(self, source: str, loc: str, key: str | None, line: int, alternates: Sequence[Alternate] = ()) -> None:
        if source != self._source:
            self.flush()
            self._source = source
        self._pages.append((loc, key, line, tuple(alternates)))
        if len(self._pages) >= SENT:
            self.flush()

    def flush(self) -> None:
        if self._pages:
            self.send((self._source, self._pages))
            self._pages = []


class ReturnLinks:
    """The pages of one validation run and their alternates; :meth:`finish` checks the return links, :meth:`close`
    always (it removes the database and the scratch file)."""

    def __init__(self, key: Callable[[str], str]) -> None:
        self.key = key
        self._files: dict[str, int] = {}
        self._names: list[str] = []
        #: Pages without alternates not yet written (``file TAB line TAB URL``), as rows, then as texts of
        #: :data:`_CHUNK` rows, and the texts' characters.
        self._plain: list[str] = []
        self._chunks: list[str] = []
        self._plain_size = 0
        self._plain_file: IO[bytes] | None = None
        #: Pages with alternates, and their alternates that name another page, not yet written.
        self._named: list[tuple[str, int, int, int]] = []
        self._links: list[tuple[str, str, int, int, str, str | None, str | None]] = []
        self._db: _Database | None = None

    def page(self, source: str, loc: str, key: str | None, line: int, alternates: Sequence[Alternate] = ()) -> None:
        file = self._files.get(source)
        if file is None:
            file = self._files[source] = len(self._names)
            self._names.append(source)
        if not alternates:
            plain = self._plain
            plain.append(f"{file}\t{line}\t{loc}")
            if len(plain) >= _CHUNK:
                self._chunk()
            return
        own = key if key is not None else self.key(loc)
        self._named.append((own, file, line, 1))
        written = loc if loc != own else None
        for hreflang, href, target, at in alternates:
            if target != own:
                self._links.append((own, target, file, at, hreflang, written, href if href != target else None))
        if len(self._named) >= BATCH or len(self._links) >= BATCH:
            self._write()

    def take(self, batch: PageBatch) -> None:
        """The pages a worker found (:class:`PageBatches`), as :meth:`page` would have been given them."""
        source, pages = batch
        for loc, key, line, alternates in pages:
            self.page(source, loc, key, line, alternates)

    def finish(self, emit: Callable[[Diagnostic], None]) -> None:
        """Check the return links of every page given; the findings go to ``emit``."""
        if self._db is None and not self._named:
            return  # no page names an alternate
        self._write()
        self._load_plain()
        assert self._db is not None
        listed = more = unknown = 0
        for row in self._db.unreturned():
            _seq, file, line, loc, hreflang, href, where, names_any = row
            if where is None:
                unknown += 1
            elif listed < LISTED:
                listed += 1
                message = self._message(loc, hreflang, href, where, bool(names_any))
                emit(self._finding("alternate-no-return", message, file, line))
            else:
                more += 1
        if more:
            emit(
                self._finding(
                    "alternate-no-return",
                    f"and {more:,} more pages named as alternates that do not name back the page naming them "
                    f"(the first {LISTED:,} are listed)",
                )
            )
        if unknown:
            emit(
                self._finding(
                    "alternate-not-checked",
                    f"{unknown:,} alternates name pages that are not in the input (on other sites, or not listed "
                    "here): whether those pages name them back cannot be checked",
                )
            )

    def _message(self, loc: str, hreflang: str, href: str, where: str, names_any: bool) -> str:
        file, _, line = where.partition(":")
        place = f"{self._names[int(file)]} line {line}"
        back = "does not name it back" if names_any else "names no alternates"
        return f"{loc} names {href} as its {hreflang} alternate, but {href} ({place}) {back}"

    def _finding(self, code: str, message: str, file: int | None = None, line: int = 0) -> Diagnostic:
        source = self._names[file] if file is not None else ""
        return Diagnostic(RULES[code].level, code, message, source, line)

    def _write(self) -> None:
        """The pages with alternates and their alternates held, into the database (made at the first write)."""
        if self._db is None:
            self._db = _Database()
        named, self._named = self._named, []
        links, self._links = self._links, []
        self._db.write(named, links)

    def _chunk(self) -> None:
        """The pages without alternates held as rows, joined into one text (one object instead of a thousand);
        the texts to the scratch file past :data:`PLAIN_IN_MEMORY` characters."""
        if self._plain:
            chunk = "\n".join(self._plain) + "\n"
            self._plain = []
            self._chunks.append(chunk)
            self._plain_size += len(chunk)
        if self._plain_size >= PLAIN_IN_MEMORY:
            self._spill_plain()

    def _spill_plain(self) -> None:
        """The texts of the pages without alternates, to the scratch file (made at the first spill)."""
        if self._plain_file is None:
            self._plain_file = scratch_file("feedmap-hreflang-", _WHAT)
        try:
            for chunk in self._chunks:
                self._plain_file.write(chunk.encode("utf-8", "surrogatepass"))
        except OSError as exc:
            raise scratch_error(_WHAT, exc) from exc
        self._chunks, self._plain_size = [], 0

    def _load_plain(self) -> None:
        """The pages without alternates into the database, with their keys (only when some page names one)."""
        assert self._db is not None
        key = self.key
        self._chunk()
        lines: Iterator[str]
        if self._plain_file is not None:
            self._spill_plain()
            self._plain_file.seek(0)
            lines = (row.decode("utf-8", "surrogatepass").rstrip("\n") for row in self._plain_file)
        else:
            lines = (row for chunk in self._chunks for row in chunk.splitlines())
        rows = ((key(loc), int(file), int(line), 0) for file, line, loc in (row.split("\t", 2) for row in lines))
        while batch := list(itertools.islice(rows, BATCH)):
            self._db.write(batch, [])
        self._chunks = []

    def close(self) -> None:
        """Forget every page; remove the database and the scratch file."""
        self._plain, self._chunks, self._named, self._links = [], [], [], []
        if self._plain_file is not None:
            with contextlib.suppress(OSError):
                self._plain_file.close()
            self._plain_file = None
        if self._db is not None:
            self._db.close()
            self._db = None

    @property
    def folder(self) -> Path | None:
        """The database's folder, once pages went there (None while they are held in memory)."""
        return self._db.folder if self._db is not None else None

    @property
    def spilled(self) -> bool:
        """Whether pages without alternates went to the scratch file."""
        return self._plain_file is not None


class _Database:
    """The pages and links tables of a database in a scratch folder; SQLite's errors are
    :class:`~feedmap._core.errors.SourceError` (no room, not allowed: said with the temporary folder)."""

    db: sqlite3.Connection

    def __init__(self) -> None:
        import sqlite3  # at the first write: a run without hreflang alternates never loads it

        self._error: type[Exception] = sqlite3.Error
        self.folder = scratch_folder("feedmap-hreflang-", _WHAT)
        self._indexed = False
        try:
            self.db = sqlite3.connect(self.folder / "links.sqlite3", isolation_level=None, check_same_thread=False)
            for pragma in ("journal_mode=OFF", "synchronous=OFF", f"cache_size=-{CACHE_KIB}", "temp_store=FILE"):
                self.db.execute(f"PRAGMA {pragma}")
            for statement in _SCHEMA:
                self.db.execute(statement)
        except BaseException as exc:
            self.close()
            if isinstance(exc, sqlite3.Error):
                raise scratch_error(_WHAT, exc) from exc
            raise

    def write(self, pages: Iterable[tuple[Any, ...]], links: Iterable[tuple[Any, ...]]) -> None:
        db = self.db
        try:
            db.execute("BEGIN")
            db.executemany("INSERT INTO pages (key, file, line, named) VALUES (?, ?, ?, ?)", pages)
            db.executemany(
                "INSERT INTO links (page, target, file, line, hreflang, loc, href) VALUES (?, ?, ?, ?, ?, ?, ?)", links
            )
            db.execute("COMMIT")
        except self._error as exc:
            raise scratch_error(_WHAT, exc) from exc

    def unreturned(self) -> Iterator[tuple[Any, ...]]:
        try:
            if not self._indexed:
                self.db.execute("CREATE INDEX pages_key ON pages (key)")
                self.db.execute("CREATE INDEX links_pair ON links (page, target)")
                self._indexed = True
            yield from self.db.execute(_UNRETURNED)
        except self._error as exc:
            raise scratch_error(_WHAT, exc) from exc

    def close(self) -> None:
        with contextlib.suppress(AttributeError, self._error):
            self.db.close()
        remove_scratch_folder(self.folder)
