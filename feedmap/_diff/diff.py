"""``feedmap.diff``: the URLs added, removed and changed between two inputs, in bounded memory.

One job: compare the entries of OLD and NEW by loc on the fields of sitemaps.org 0.9
(https://www.sitemaps.org/protocol.html: ``lastmod``, ``changefreq``, ``priority``), the Google image
extension 1.1 (``images``) and hreflang alternates (``alternates``).  Both inputs are read with
:func:`feedmap.read` (files, URLs, indexes followed per the options) and streamed into a temporary SQLite
database on disk (the standard library's :mod:`sqlite3`, deleted afterwards), one row per distinct URL, a
loc as written (an IRI and its URI, ``café`` and ``caf%C3%A9``, are one URL, as every conversion writes and
merges them; with ``options.keep_urls``, as read; a change shows the loc as read): a million URLs are never
held as Python objects.  A loc repeated within one input counts once, the entry with the newest ``lastmod``
kept (ties: the first), as :func:`feedmap.converters.merge_duplicates` and every conversion keep it; each
input's repeats are reported (INFO ``duplicates-merged``).

What the comparison can trust of each input (:class:`InputRead`, said once the input is read):

* an input read incompletely (an index's child that could not be read, XML or gzip that breaks off, a line
  of JSON lines or text skipped: the codes in :data:`INCOMPLETE_CODES`) would make the URLs it lost look
  removed (or added): ERROR ``input-incomplete`` says so, and :attr:`Changes.incomplete` names it;
* a format holds some fields only (``FormatSpec.fields`` of :mod:`feedmap.formats`: a text sitemap the loc
  alone, a sitemap index loc and lastmod): a field one input cannot hold is not compared, so that a text
  sitemap and an XML sitemap of the same URLs are the same (INFO ``fields-not-compared`` names them); an
  index whose children were read holds what its children's format holds, a sitemap's fields.

What each side is read from (a directory ``feedmap convert -o DIR/`` published, a side's own maps) and the
refusal of two sides read from the same files (ReadError ``same-files``) are :mod:`feedmap._diff.sides`.

A ``lastmod`` with a time compares as the instant it names (W3C Datetime,
https://www.w3.org/TR/NOTE-datetime: the zone applied, no zone read as UTC as the filters and ``--sort`` read
it, any precision of the time): ``2024-01-01T00:00:00Z``, ``2024-01-01T00:00:00+00:00`` and
``2024-01-01T01:00:00+01:00`` are the same, a regeneration that only respells them changes nothing.  A date
without a time (``2024``, ``2024-01``, ``2024-01-01``) names a period, not an instant: it compares as written,
so ``2024-01-01`` and ``2024-01-01T00:00:00Z`` differ.  A changed lastmod is shown as written.  The other
values compare as written (a priority as a number: ``0.5`` and ``0.50`` are the same); images and
alternates as sets (a reordering is no change), an alternate's hreflang without case (BCP 47 language tags
are case-insensitive, RFC 5646 §2.1.1: ``en-US`` and ``en-us`` are one tag).  Order of the changes: the
added and changed URLs in NEW's order (of first occurrence), then the removed ones in OLD's order.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import json
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal

from feedmap._api import read
from feedmap._core.call_fields import refuse_unused, used_by
from feedmap._core.context import Options, reporter_for
from feedmap._core.dates import W3CDate, known_date
from feedmap._core.errors import Diagnostic, DiagnosticHandler, FormatError, Reporter, SourceError
from feedmap._core.model import Alternate, ChangeFreq, DocKind, Document, Entry, Image
from feedmap._core.wording import counted
from feedmap._diff.sides import MapLike, Side, check_not_same, side_of
from feedmap._io.scratch import scratch_error, temporary_folder
from feedmap._io.sources import SourceLike, source_name
from feedmap.converters._duplicates import url_key
from feedmap.formats import _registry as registry

__all__ = ["COMPARED_FIELDS", "INCOMPLETE_CODES", "InputRead", "compared_fields", "read_input"]

#: The fields compared, in this order in :attr:`feedmap._diff.diff.Change.fields`.
COMPARED_FIELDS = ("lastmod", "changefreq", "priority", "images", "alternates")

#: Diagnostic codes saying that entries of an input were lost: a child sitemap not read, a stream cut short,
#: a line of JSON lines or text skipped.  (``xml-not-well-formed`` too when the XML breaks off; not when it reads on
#: past an undeclared prefix.)
INCOMPLETE_CODES = frozenset(
    {
        "child-unreadable",
        "child-off-site",
        "child-outside-directory",
        "child-not-read",
        "index-too-deep",
        "map-escape",
        "truncated-gzip",
        "corrupt-gzip",
        "invalid-json",
        "invalid-value",
        "line-too-long",
        "csv-line",
    }
)


@dataclass(frozen=True, slots=True)
class InputRead:
    """One input, read: its name, its format, whether nothing was lost, the compared fields it can hold."""

    name: str
    format: str
    complete: bool
    holds: frozenset[str]


def _loses_entries(diagnostic: Diagnostic) -> bool:
    if diagnostic.code == "xml-not-well-formed":
        return diagnostic.message.startswith("the XML breaks off")
    return diagnostic.code in INCOMPLETE_CODES


class _Watch:
    """Passes an input's diagnostics on to the caller's reporter, counting those that say entries were lost."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self.lost = 0

    def __call__(self, diagnostic: Diagnostic) -> None:
        if _loses_entries(diagnostic):
            self.lost += 1
        self.reporter.report(diagnostic)


def _holds(doc: Document) -> frozenset[str]:
    """The compared fields ``doc``'s format can hold (all of them for a format that is not registered)."""
    name = "sitemap" if doc.format == "sitemapindex" and doc.meta.kind is DocKind.URLSET else doc.format
    try:
        fields = registry.get(name).fields if name else frozenset(COMPARED_FIELDS)
    except FormatError:  # pragma: no cover - a document is read by a registered format
        fields = frozenset(COMPARED_FIELDS)
    return frozenset(COMPARED_FIELDS) & fields


def read_input(
    source: SourceLike,
    format: str | None,
    options_for: Callable[[Reporter], Options],
    reporter: Reporter,
    *,
    lost_as: str,
    store: Callable[[Iterable[Entry], str], None],
) -> InputRead:
    """Read ``source`` with the options ``options_for`` gives for the reporter of its diagnostics, and hand
    its entries to ``store`` (with the input's name); ERROR ``input-incomplete`` when entries were lost
    (``lost_as``: how the comparison shows them, ``"removed"`` or ``"added"``)."""
    name = source_name(source)
    watch = _Watch(reporter)
    watched = Reporter(handler=watch, keep=0)
    with read(source, format, used_by(options_for(watched), "read"), reporter=watched) as doc:
        store(doc.entries, name)
        found = InputRead(name, doc.format or "", not watch.lost, _holds(doc))
    if watch.lost:
        reporter.error(
            "input-incomplete",
            f"not read completely ({counted(watch.lost, 'problem')} above lost entries): the URLs it lost are "
            f"listed as {lost_as}, which they may not be",
            name,
        )
    return found


def compared_fields(inputs: Iterable[InputRead], reporter: Reporter) -> tuple[str, ...]:
    """The fields every input can hold; INFO ``fields-not-compared`` for an input that cannot hold a field
    another one holds (two inputs of one format say nothing)."""
    inputs = list(inputs)
    for one in inputs:
        missing = [name for name in COMPARED_FIELDS if name not in one.holds and any(name in o.holds for o in inputs)]
        if missing:
            what = ", ".join(missing)
            reporter.info("fields-not-compared", f"{one.format} cannot hold {what}: not compared", one.name)
    return tuple(name for name in COMPARED_FIELDS if all(name in one.holds for one in inputs))


__all__ = ["COMPARED_FIELDS", "INCOMPLETE_CODES", "Change", "Changes", "diff", "item_key"]

_IMAGE_FIELDS = ("loc", "caption", "geo_location", "title", "license")
#: SQLite's page cache per database, in KiB (negative: a size, not a page count): bounded memory.
_CACHE_KIB = 32 * 1024
_BATCH = 5000
_WHAT = "database for comparing sitemaps"

_SCHEMA = """
CREATE TABLE {table} (seq INTEGER PRIMARY KEY, url TEXT NOT NULL, loc TEXT NOT NULL, lastmod TEXT,
                      changefreq TEXT, priority REAL, images TEXT, alternates TEXT, lastmod_at TEXT,
                      alternates_by TEXT);
CREATE UNIQUE INDEX {table}_url ON {table}(url);
"""
_INSERT = """
INSERT INTO {table} (url, loc, lastmod, changefreq, priority, images, alternates, lastmod_at, alternates_by)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(url) DO UPDATE SET lastmod = excluded.lastmod, changefreq = excluded.changefreq,
    priority = excluded.priority, images = excluded.images, alternates = excluded.alternates,
    lastmod_at = excluded.lastmod_at, alternates_by = excluded.alternates_by
WHERE feedmap_repeat(excluded.lastmod, {table}.lastmod)
"""
_COLUMNS = "loc, lastmod, changefreq, priority, images, alternates, lastmod_at, alternates_by"
#: The column each compared field compares by (a lastmod by its instant, alternates by hreflang in lower
#: case; see the module).
_COMPARED_BY = {name: name for name in COMPARED_FIELDS} | {"lastmod": "lastmod_at", "alternates": "alternates_by"}
_ADDED_OR_CHANGED = f"""
SELECT o.url IS NULL, {", ".join("n." + c for c in _COLUMNS.split(", "))},
       {", ".join("o." + c for c in _COLUMNS.split(", "))}
FROM new n LEFT JOIN old o ON o.url = n.url WHERE o.url IS NULL OR {{differs}} ORDER BY n.seq
"""
_REMOVED = f"SELECT {_COLUMNS} FROM old o WHERE NOT EXISTS (SELECT 1 FROM new n WHERE n.url = o.url) ORDER BY o.seq"
_UNCHANGED = "SELECT count(*) FROM new n JOIN old o ON o.url = n.url WHERE NOT ({differs})"


def _differs(compared: tuple[str, ...]) -> str:
    """SQL: whether rows n and o differ in one of the ``compared`` fields."""
    return " OR ".join(f"n.{_COMPARED_BY[name]} IS NOT o.{_COMPARED_BY[name]}" for name in compared) or "0"


ChangeKind = Literal["added", "removed", "changed"]
_Row = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Change:
    """One URL that differs between OLD and NEW.

    ``kind`` is ``"added"`` (only in NEW), ``"removed"`` (only in OLD) or ``"changed"``; ``fields`` names the
    compared fields whose values differ (for ``"changed"``, in the order of :data:`COMPARED_FIELDS`).
    ``old`` and ``new`` are the entries as read (None where the URL is absent), holding the loc and the
    compared fields only (images and alternates in a canonical order).
    """

    kind: ChangeKind
    loc: str
    fields: tuple[str, ...] = ()
    old: Entry | None = None
    new: Entry | None = None

    def values(self) -> dict[str, tuple[Any, Any]]:
        """``{field: (old value, new value)}`` for each field in :attr:`fields`."""
        return {name: (getattr(self.old, name, None), getattr(self.new, name, None)) for name in self.fields}


def item_key(item: Image | Alternate) -> tuple[str | None, ...]:
    """What an image or an alternate compares by: its fields, an hreflang in lower case."""
    if isinstance(item, Alternate):
        return (item.hreflang.lower(), item.href)
    return tuple(getattr(item, name) for name in _IMAGE_FIELDS)


def _order(values: list[str | None]) -> list[tuple[bool, str]]:
    """A sort key for lists of optional texts (None first)."""
    return [(value is not None, value or "") for value in values]


def _json(values: list[list[str | None]]) -> str:
    return json.dumps(sorted(values, key=_order), ensure_ascii=False)


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def _instant(lastmod: W3CDate | None) -> str | None:
    """What a lastmod compares by: a time as its instant (microseconds since 1970 UTC), a date as written."""
    if lastmod is None:
        return None
    if not lastmod.has_time:
        return lastmod.text
    return f"@{(lastmod.to_datetime() - _EPOCH) // _dt.timedelta(microseconds=1)}"


def _row(entry: Entry, key: Callable[[str], str]) -> tuple[Any, ...]:
    """The stored form of an entry: the URL it is (its loc as written, ``key``: an IRI and its URI are one URL,
    as every conversion merges them), then its compared fields (text, a float, JSON of sorted images and
    alternates) and what the lastmod compares by."""
    images = _json([list(item_key(i)) for i in entry.images]) if entry.images else None
    alternates = _json([[a.hreflang, a.href] for a in entry.alternates]) if entry.alternates else None
    return (
        key(entry.loc),
        entry.loc,
        entry.lastmod.text if entry.lastmod is not None else None,
        entry.changefreq.value if entry.changefreq is not None else None,
        entry.priority,
        images,
        alternates,
        _instant(entry.lastmod),
        _json([list(item_key(a)) for a in entry.alternates]) if entry.alternates else None,
    )


def _entry(row: _Row) -> Entry:
    loc, lastmod, changefreq, priority, images, alternates, _at, _by = row
    return Entry(
        loc=loc,
        lastmod=W3CDate(lastmod) if lastmod is not None else None,
        changefreq=ChangeFreq(changefreq) if changefreq is not None else None,
        priority=priority,
        images=tuple(Image(**dict(zip(_IMAGE_FIELDS, values, strict=True))) for values in json.loads(images or "[]")),
        alternates=tuple(Alternate(hreflang=h, href=href) for h, href in json.loads(alternates or "[]")),
    )


class _Repeats:
    """The SQL function deciding which of two rows of one loc is kept; it counts the repeats it sees."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, candidate: str | None, current: str | None) -> bool:
        """True when ``candidate``'s lastmod is a later instant than ``current``'s (a missing one is oldest)."""
        self.count += 1
        if candidate is None:
            return False
        if current is None:
            return True
        return known_date(candidate) > known_date(current)  # lastmods read and validated before: the W3CDate order


class Changes(Iterator[Change]):
    """What :func:`diff` returns: the changes, one by one, and their counts.

    ``counts`` (``added``, ``removed``, ``changed``, ``unchanged``) is complete once the iterator is
    exhausted, and so is ``incomplete``: the names of the inputs read incompletely (see the module), whose
    lost URLs show as removed (OLD's: added); a caller should not act on such a diff.  Closing it (or leaving
    its ``with`` block) stops reading and deletes the temporary database.
    """

    def __init__(self, changes: Iterator[Change], counts: dict[str, int], incomplete: list[str]) -> None:
        self._changes = changes
        self.counts = counts
        self._incomplete = incomplete

    @property
    def incomplete(self) -> tuple[str, ...]:
        return tuple(self._incomplete)

    def __next__(self) -> Change:
        return next(self._changes)

    def close(self) -> None:
        close = getattr(self._changes, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> Changes:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def _store(
    db: sqlite3.Connection,
    table: str,
    entries: Iterable[Entry],
    name: str,
    *,
    reporter: Reporter,
    options: Options,
    record: Callable[[Iterable[Entry]], Iterable[Entry]],
) -> None:
    """Stream ``entries`` into ``table`` (through ``record``): one row per loc as written (newest lastmod kept);
    repeats reported."""
    repeats = _Repeats()
    db.create_function("feedmap_repeat", 2, repeats, deterministic=True)
    db.executescript(_SCHEMA.format(table=table))
    key = url_key(options)
    db.executemany(_INSERT.format(table=table), (_row(entry, key) for entry in record(entries)))
    if repeats.count:
        reporter.info(
            "duplicates-merged",
            f"{counted(repeats.count, 'repeated URL')} merged, the newest lastmod kept",
            name,
        )


#: Where, in a stored row, each compared field's comparison value is.
_COMPARED_AT = {name: _COLUMNS.split(", ").index(column) for name, column in _COMPARED_BY.items()}


def _differing(new: _Row, old: _Row, compared: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(name for name in compared if new[_COMPARED_AT[name]] != old[_COMPARED_AT[name]])


def _compare(db: sqlite3.Connection, counts: dict[str, int], compared: tuple[str, ...]) -> Iterator[Change]:
    width = len(_COLUMNS.split(", "))
    for row in db.execute(_ADDED_OR_CHANGED.format(differs=_differs(compared))):
        new_row, old_row = row[1 : 1 + width], row[1 + width :]
        new = _entry(new_row)
        if row[0]:
            counts["added"] += 1
            yield Change("added", new.loc, new=new)
        else:
            counts["changed"] += 1
            yield Change("changed", new.loc, _differing(new_row, old_row, compared), _entry(old_row), new)
    for row in db.execute(_REMOVED):
        counts["removed"] += 1
        yield Change("removed", row[0], old=_entry(row))
    (counts["unchanged"],) = db.execute(_UNCHANGED.format(differs=_differs(compared))).fetchone()


def _run(
    sides: tuple[Side, Side],
    format: str | None,
    reporter: Reporter,
    counts: dict[str, int],
    incomplete: list[str],
) -> Iterator[Change]:
    try:
        folder = tempfile.TemporaryDirectory(prefix="feedmap-diff-", dir=temporary_folder(_WHAT))
    except OSError as exc:
        raise _storage_error(exc) from exc
    with folder:
        try:
            db = sqlite3.connect(os.path.join(folder.name, "diff.sqlite3"), isolation_level=None)
        except sqlite3.Error as exc:
            raise _storage_error(exc) from exc
        try:
            db.execute(f"PRAGMA cache_size = -{_CACHE_KIB}")
            db.execute("PRAGMA journal_mode = OFF")
            db.execute("PRAGMA synchronous = OFF")
            db.execute("PRAGMA temp_store = FILE")
            # our own private file: holding its lock saves a lock and unlock per row (benchmarks/README.md, sqlite)
            db.execute("PRAGMA locking_mode = EXCLUSIVE")
            db.execute("BEGIN")
            inputs = []
            for table, side in zip(("old", "new"), sides, strict=True):
                store = functools.partial(
                    _store, db, table, reporter=reporter, options=side.options, record=side.recorded
                )
                lost_as = "removed" if table == "new" else "added"
                inputs.append(read_input(side.source, format, side.options_for, reporter, lost_as=lost_as, store=store))
            check_not_same(*sides)
            incomplete.extend(one.name for one in inputs if not one.complete)
            yield from _compare(db, counts, compared_fields(inputs, reporter))
        except sqlite3.Error as exc:  # SQLite's own trouble: the disk is full, the file cannot be written
            raise _storage_error(exc) from exc
        finally:
            with contextlib.suppress(sqlite3.Error):
                db.rollback()
            db.close()


def _storage_error(exc: Exception) -> SourceError:
    # scratch_error names the folder even when Python finds none (tempfile.gettempdir raising would escape here)
    return scratch_error(_WHAT, exc)


def diff(
    old: SourceLike,
    new: SourceLike,
    options: Options | None = None,
    *,
    source_format: str | None = None,
    old_maps: MapLike = (),
    new_maps: MapLike = (),
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Changes:
    """The URLs added, removed and changed from ``old`` to ``new`` (anything :func:`feedmap.read` takes).

    Iterate the result for :class:`Change` values: added and changed URLs in NEW's order, then removed
    ones in OLD's order; its ``counts`` (with ``unchanged``) are complete at the end.  Both inputs are read
    with ``options`` (an index is followed unless ``options.follow`` is False) into a temporary SQLite
    database on disk, deleted when the iteration ends or the result is closed; nothing is read before the
    first change is asked for.  Reading diagnostics go to ``reporter`` (or ``on_diagnostic``); an input
    that cannot be read raises the errors :func:`feedmap.read` raises; one read incompletely (a child of an
    index that could not be read) is reported (ERROR ``input-incomplete``) and named in ``incomplete``.
    ``source_format`` names the format of both inputs (default: recognised from each one's content).

    ``old`` or ``new`` may be a directory ``feedmap.convert`` published (``-o DIR/``): its sitemap index
    (``options.index_name``) is read with the children it names read from the directory by file name.
    ``old_maps`` and ``new_maps`` are ``(url_prefix, directory)`` pairs for one side only, looked up before
    ``options.maps`` (which serve both).  When both sides are read from the same local files (one file, or
    both indexes' children from one directory), :class:`~feedmap.ReadError` ``same-files`` is raised: the
    comparison would find nothing.
    ``options.since`` is refused (ValueError): it would skip an index's child in one input only, and so are
    maps of a side that is a directory (its children are read from it).
    """
    options = options or Options()
    refuse_unused(options, "diff")
    if options.since is not None:
        raise ValueError(
            "diff compares whole inputs: a since date skips an index's older children, which may be skipped in "
            "one input and read in the other (their lastmod moved), so that all their URLs look added or removed"
        )
    counts = {"added": 0, "removed": 0, "changed": 0, "unchanged": 0}
    reporter = reporter_for(options, reporter, on_diagnostic)
    incomplete: list[str] = []
    sides = (side_of(old, options, old_maps), side_of(new, options, new_maps))
    return Changes(_run(sides, source_format, reporter, counts, incomplete), counts, incomplete)
