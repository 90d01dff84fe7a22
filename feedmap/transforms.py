"""Conversion steps as public transforms: entries in, entries out, diagnostics reported.

:func:`feedmap.convert` and :func:`feedmap.write` run these between reader and writer (see
:func:`feedmap._converters.plan`); a library user can run them on any stream of entries::

    with feedmap.read("feed.xml") as doc:
        entries = feedmap.transforms.merge_duplicates(doc.entries, on_diagnostic=print)
        feedmap.write(entries, "out.xml", format="sitemap")

Each public function takes an iterable of :class:`~feedmap._model.Entry` (or a
:class:`~feedmap._model.Document`: a Document comes back, same metadata, its diagnostics list extended) and
streams the result.  Diagnostics go to ``reporter`` or ``on_diagnostic``; ``strict`` raises
:class:`~feedmap._errors.StrictError` at the first warning.

* :func:`resolve_relative`: a relative ``loc`` (RFC 3986 §4.2 relative reference) resolved against a base
  URL (RFC 3986 §5.2), INFO ``relative-url-resolved``; without a base, WARNING ``relative-url``, kept.
* :func:`keep_absolute`: entries whose loc is not an absolute URL left out (one WARNING
  ``relative-url-left-out`` with the count): sitemaps.org 0.9 and RSS 2.0 (``link``, permalink ``guid``)
  require absolute URLs.
* :func:`check_values`: the checks a reader makes, for entries built in code (``invalid-loc``,
  ``relative-url``, ``invalid-priority``: out of 0.0-1.0 clamped, not a number dropped).
* :func:`merge_duplicates`: each loc once, in first-seen order, the entry with the newest lastmod kept
  (sitemaps.org lists a URL once; RSS 2.0 guids identify an item); INFO ``duplicate-loc`` per repeated loc
  (count and the first occurrence's line) and INFO ``duplicates-merged`` with the total.
* :func:`report_duplicates`: the same ``duplicate-loc`` reports, entries passed on unchanged and in order.

Memory: :func:`merge_duplicates` holds the first 10,000 entries as they are (a few megabytes), pickles the
others into a spooled temporary file (in memory up to 4 MiB) and keeps, per distinct URL, one ``int`` key
(the loc's hash) and one ``int`` offset in a dict: about 150 bytes per URL on CPython 3.11 (a million URLs:
about 150 MB), whatever the size of the entries; it reports each repeated loc at its first occurrence.
:func:`report_duplicates` keeps only a set of the locs' hashes: about 70 bytes per URL (a million URLs:
about 70 MB), so it reports each repeated loc where it is first repeated.  Both keep the text of a loc only
once it repeats.  Hashes that collide are told apart by comparing the locs (the merge) or, in
:func:`report_duplicates`, count as a repeat (for a million URLs, about one chance in 3 x 10^7 that any
two collide).
"""

from __future__ import annotations

import functools
import math
import pickle
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import Any, overload
from urllib.parse import urljoin, urlsplit

from feedmap._dates import W3CDate
from feedmap._urls import check_loc, encode_url, is_absolute_url, is_uri
from feedmap._context import Context, Options
from feedmap._errors import Diagnostic, Reporter
from feedmap._model import Document, Entry, Position, new_entry

__all__ = [
    "check_values",
    "keep_absolute",
    "merge_duplicates",
    "relative_reference",
    "report_duplicates",
    "resolve_relative",
]

DiagnosticHandler = Callable[[Diagnostic], None]


# --- shared helpers -------------------------------------------------------------------------------------


def relative_reference(loc: str) -> bool:
    """True when ``loc`` is a relative reference (RFC 3986 §4.2: no scheme) a base URL can complete.

    ``/blog/post.html``, ``post.html``, ``//host/path``, ``?q=1`` are; an absolute URL, text with blanks
    (``not a url``) and an empty string are not.
    """
    if not loc or any(char.isspace() for char in loc):
        return False
    try:
        parts = urlsplit(loc)
    except ValueError:
        return False
    return not parts.scheme


def resolve(loc: str, base: str | None) -> str | None:
    """``loc`` resolved against ``base`` (RFC 3986 §5.2), or None when that gives no absolute URL."""
    if not base or not relative_reference(loc):
        return None
    try:
        resolved = urljoin(base, loc)
    except ValueError:
        return None
    return resolved if is_absolute_url(resolved) else None


def _where(entry: Entry, ctx: Context) -> tuple[str, int]:
    if entry.origin is not None:
        return entry.origin.source, entry.origin.line
    return ctx.name, 0


def _context(reporter: Reporter | None, on_diagnostic: DiagnosticHandler | None, strict: bool) -> Context:
    return Context(reporter=reporter or Reporter(strict=strict, handler=on_diagnostic), options=Options(strict=strict))


def _apply(
    source: Document | Iterable[Entry],
    step: Callable[[Iterable[Entry], Context], Iterator[Entry]],
    reporter: Reporter | None,
    on_diagnostic: DiagnosticHandler | None,
    strict: bool,
) -> Document | Iterator[Entry]:
    if isinstance(source, Document):
        if reporter is None:
            reporter = Reporter(strict=strict, handler=on_diagnostic)
            reporter.diagnostics = source.diagnostics
        entries = step(source.entries, _context(reporter, None, strict))
        result = Document(source.meta, entries, diagnostics=reporter.diagnostics)
        result.format = source.format
        result.closers.append(source.close)
        return result
    return step(source, _context(reporter, on_diagnostic, strict))


# --- relative URLs --------------------------------------------------------------------------------------


def resolve_entries(entries: Iterable[Entry], ctx: Context, base: str | None) -> Iterator[Entry]:
    """:func:`resolve_relative` with a context (the step form)."""
    for entry in entries:
        loc = entry.loc
        if is_absolute_url(loc):
            yield entry
            continue
        resolved = resolve(loc, base)
        source, line = _where(entry, ctx)
        if resolved is not None:
            ctx.reporter.info("relative-url-resolved", f"relative URL {loc} read as {resolved}", source, line)
            entry = _with_loc(entry, resolved)
        elif relative_reference(loc):
            message = f"relative URL {loc} has no base URL to resolve it against"
            ctx.reporter.warning("relative-url", message, source, line)
        yield entry


def _with_loc(entry: Entry, loc: str) -> Entry:
    """A copy of ``entry`` with another loc (no re-check of the other fields: they are the entry's own)."""
    copy = new_entry(
        loc, entry.lastmod, entry.changefreq, entry.priority, entry.images, entry.alternates, dict(entry.extras),
        entry.origin,
    )
    copy.title, copy.description, copy.keywords, copy.type = entry.title, entry.description, entry.keywords, entry.type
    return copy


@overload
def resolve_relative(  # type: ignore[overload-overlap]  # a Document is also an iterable of entries
    source: Document,
    base: str | None = ...,
    *,
    reporter: Reporter | None = ...,
    on_diagnostic: DiagnosticHandler | None = ...,
    strict: bool = ...,
) -> Document: ...
@overload
def resolve_relative(
    source: Iterable[Entry],
    base: str | None = ...,
    *,
    reporter: Reporter | None = ...,
    on_diagnostic: DiagnosticHandler | None = ...,
    strict: bool = ...,
) -> Iterator[Entry]: ...
def resolve_relative(
    source: Document | Iterable[Entry],
    base: str | None = None,
    *,
    reporter: Reporter | None = None,
    on_diagnostic: DiagnosticHandler | None = None,
    strict: bool = False,
) -> Document | Iterator[Entry]:
    """Each relative loc resolved against ``base`` (INFO ``relative-url-resolved``).

    For a Document, ``base`` defaults to its channel link.  Without a base a relative loc is kept and
    reported (WARNING ``relative-url``); :func:`keep_absolute` leaves such entries out.
    """
    if base is None and isinstance(source, Document):
        base = source.meta.link if source.meta.link and is_absolute_url(source.meta.link) else None
    return _apply(source, lambda entries, ctx: resolve_entries(entries, ctx, base), reporter, on_diagnostic, strict)


def absolute_entries(entries: Iterable[Entry], ctx: Context, target: str = "") -> Iterator[Entry]:
    """:func:`keep_absolute` with a context (the step form)."""
    left_out = 0
    first: tuple[str, str, int] | None = None
    for entry in entries:
        if is_absolute_url(entry.loc):
            yield entry
            continue
        left_out += 1
        if first is None:
            first = (entry.loc, *_where(entry, ctx))
    if first is not None:
        loc, source, line = first
        what = f"format {target!r}" if target else "the output"
        ctx.reporter.warning(
            "relative-url-left-out",
            f"{left_out} entries without an absolute URL left out ({what} requires absolute URLs; the first: {loc!r})",
            source,
            line,
        )


@overload
def keep_absolute(  # type: ignore[overload-overlap]
    source: Document,
    *,
    reporter: Reporter | None = ...,
    on_diagnostic: DiagnosticHandler | None = ...,
    strict: bool = ...,
) -> Document: ...
@overload
def keep_absolute(
    source: Iterable[Entry],
    *,
    reporter: Reporter | None = ...,
    on_diagnostic: DiagnosticHandler | None = ...,
    strict: bool = ...,
) -> Iterator[Entry]: ...
def keep_absolute(
    source: Document | Iterable[Entry],
    *,
    reporter: Reporter | None = None,
    on_diagnostic: DiagnosticHandler | None = None,
    strict: bool = False,
) -> Document | Iterator[Entry]:
    """The entries whose loc is an absolute URL; the others left out (one WARNING ``relative-url-left-out``)."""
    return _apply(source, absolute_entries, reporter, on_diagnostic, strict)


# --- values built in code -------------------------------------------------------------------------------


def checked_entries(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """:func:`check_values` with a context (the step form)."""
    for entry in entries:
        loc = entry.loc
        problem = check_loc(loc)
        if problem is not None:
            source, line = _where(entry, ctx)
            if relative_reference(loc):
                message = f"relative URL {loc} has no base URL to resolve it against"
                ctx.reporter.warning("relative-url", message, source, line)
            else:
                ctx.reporter.warning("invalid-loc", f"{problem}; kept as written", source, line)
        priority = entry.priority
        if priority is not None and not 0.0 <= priority <= 1.0:  # also NaN
            entry = _with_priority(entry, priority, ctx)
        yield entry


def _with_priority(entry: Entry, priority: float, ctx: Context) -> Entry:
    source, line = _where(entry, ctx)
    fixed: float | None
    if not math.isfinite(priority):
        fixed = None
        message = f"priority {priority} of {entry.loc} is not a number; ignored"
    else:
        fixed = min(max(priority, 0.0), 1.0)
        message = f"priority {priority} of {entry.loc} is outside 0.0-1.0; read as {fixed}"
    ctx.reporter.warning("invalid-priority", message, source, line)
    copy = _with_loc(entry, entry.loc)
    copy.priority = fixed
    return copy


@overload
def check_values(  # type: ignore[overload-overlap]
    source: Document,
    *,
    reporter: Reporter | None = ...,
    on_diagnostic: DiagnosticHandler | None = ...,
    strict: bool = ...,
) -> Document: ...
@overload
def check_values(
    source: Iterable[Entry],
    *,
    reporter: Reporter | None = ...,
    on_diagnostic: DiagnosticHandler | None = ...,
    strict: bool = ...,
) -> Iterator[Entry]: ...
def check_values(
    source: Document | Iterable[Entry],
    *,
    reporter: Reporter | None = None,
    on_diagnostic: DiagnosticHandler | None = None,
    strict: bool = False,
) -> Document | Iterator[Entry]:
    """The checks readers make, on entries built in code: ``invalid-loc``, ``relative-url`` (kept), and
    ``invalid-priority`` (outside 0.0-1.0: clamped; not a number: dropped).

    :func:`feedmap.write` runs it on entries no feedmap reader produced.
    """
    return _apply(source, checked_entries, reporter, on_diagnostic, strict)


# --- duplicates -----------------------------------------------------------------------------------------

#: Entries kept as they are before the spool pickles them: most documents merge without pickling (8 us an
#: entry, written and read back) at the cost of a few megabytes.
_ENTRIES_IN_MEMORY = 10_000
_SPOOL_IN_MEMORY = 4 << 20  # bytes of pickled entries held in memory before they go to a temporary file

#: An entry as pickled: its fields, the lastmod as its text and the origin as (source, line) (plain values
#: pickle twice as fast as the dataclass).
_Frozen = tuple[Any, ...]


def _freeze(entry: Entry) -> _Frozen:
    lastmod = entry.lastmod.text if entry.lastmod is not None else None
    origin = tuple(entry.origin) if entry.origin is not None else None
    return (
        entry.loc,
        lastmod,
        entry.changefreq,
        entry.priority,
        entry.title,
        entry.description,
        entry.keywords,
        entry.type,
        entry.images,
        entry.alternates,
        entry.extras,
        origin,
    )


def _thaw(frozen: _Frozen) -> Entry:
    loc, lastmod, changefreq, priority, title, description, keywords, kind, images, alternates, extras, origin = frozen
    entry = new_entry(
        loc,
        W3CDate(lastmod) if lastmod is not None else None,
        changefreq,
        priority,
        images,
        alternates,
        extras,
        Position(*origin) if origin is not None else None,
    )
    entry.title, entry.description, entry.keywords, entry.type = title, description, keywords, kind
    return entry


class _Spool:
    """Entries kept by offset: the first :data:`_ENTRIES_IN_MEMORY` in a list (offsets below 0), the others
    pickled one after another into a spooled temporary file."""

    def __init__(self) -> None:
        self._file = tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY)  # noqa: SIM115 (closed by close)
        self._end = 0
        self._at_end = True  # no seek before appending unless a get moved away (a seek flushes the buffer)
        self._held: list[Entry] = []

    def add(self, entry: Entry) -> int:
        """Append ``entry``; its offset."""
        if len(self._held) < _ENTRIES_IN_MEMORY:
            self._held.append(entry)
            return -len(self._held)
        offset = self._end
        if not self._at_end:
            self._file.seek(offset)
            self._at_end = True
        pickle.dump(_freeze(entry), self._file, protocol=pickle.HIGHEST_PROTOCOL)
        self._end = self._file.tell()
        return offset

    def get(self, offset: int) -> Entry:
        if offset < 0:
            return self._held[-offset - 1]
        self._at_end = False
        self._file.seek(offset)
        return _thaw(pickle.load(self._file))  # our own temporary file, written by add

    def close(self) -> None:
        self._held.clear()
        self._file.close()


def newer(candidate: Entry, current: Entry) -> bool:
    """True when ``candidate``'s lastmod is a later instant than ``current``'s (a missing one is oldest)."""
    if candidate.lastmod is None:
        return False
    if current.lastmod is None:
        return True
    return candidate.lastmod.sort_key() > current.lastmod.sort_key()


#: How many repeated locs are reported one by one (``duplicate-loc``); the rest are counted.
LISTED_REPEATS = 100


class _Repeats:
    """The locs seen more than once: how often, and where each was first seen.

    The first :data:`LISTED_REPEATS` repeated locs are listed one by one; repeats of the others are only
    counted (``more-duplicates``), so an input that repeats every URL neither holds a record per URL here nor
    prints a line per URL.
    """

    def __init__(self, where: str) -> None:
        self.seen: dict[str, list[Any]] = {}  # loc -> [count, source, line], for the listed locs only
        self.total = 0
        self.unlisted = 0  # repeats of locs past the listed ones
        self.where = where  # what the line reported is: the first occurrence, or the first repeat

    def add(self, loc: str, first: Callable[[], tuple[str, int]]) -> None:
        self.total += 1
        record = self.seen.get(loc)
        if record is not None:
            record[0] += 1
        elif len(self.seen) < LISTED_REPEATS:
            self.seen[loc] = [2, *first()]
        else:
            self.unlisted += 1

    def report(self, ctx: Context, merged: str) -> None:
        """Report each listed repeated loc, then the rest and the total; ``merged`` says what became of them."""
        what = f"merged, {merged}" if merged else "every one kept"
        for loc, (count, source, line) in self.seen.items():
            ctx.reporter.info("duplicate-loc", f"{loc} appears {count} times ({self.where}); {what}", source, line)
        if self.unlisted:
            ctx.info("more-duplicates", f"{self.unlisted} more repeats of other URLs, not listed one by one; {what}")
        if merged and self.total:
            ctx.info("duplicates-merged", f"{self.total} repeated URLs merged, {merged}")


def _as_written(ctx: Context) -> Callable[[str], str]:
    """The URL an XML output writes for a loc: two spellings of one URL (an IRI and its URI) are one guid."""
    if ctx.options.keep_urls and not ctx.options.encode_urls:
        return lambda loc: loc
    return lambda loc: loc if is_uri(loc) else encode_url(loc)


def merged_entries(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """:func:`merge_duplicates` with a context (the step form).

    Only each loc's hash and offset in the spool stay in memory; a repeated loc reads the kept entry back.
    """
    # hash(loc) -> offset of the kept entry, in first-seen order; a loc whose hash another loc has (rare) is
    # keyed by itself (a str never equals an int), so it keeps its place in that order too
    kept: dict[int | str, int] = {}
    repeats = _Repeats("first here")
    spool = _Spool()
    written = _as_written(ctx)
    try:
        for entry in entries:
            loc = written(entry.loc)
            key: int | str = hash(loc)
            offset = kept.get(key)
            if offset is not None:
                current = spool.get(offset)
                if written(current.loc) != loc:
                    key = loc
                    offset = kept.get(loc)
                    current = spool.get(offset) if offset is not None else current
            if offset is None:
                kept[key] = spool.add(entry)
                continue
            repeats.add(loc, lambda: _where(current, ctx))  # noqa: B023 (called at once)
            if newer(entry, current):
                kept[key] = spool.add(entry)  # an existing key keeps its place in the dict
        repeats.report(ctx, merged="the newest lastmod kept")
        for offset in list(kept.values()):
            yield spool.get(offset)
    finally:
        spool.close()


def reported_entries(entries: Iterable[Entry], ctx: Context, *, drop: bool = False) -> Iterator[Entry]:
    """:func:`report_duplicates` with a context (the step form); ``drop``: repeats are left out as well.

    Dropping is right where only the loc is written (a text sitemap): the output is that of
    :func:`merged_entries`, streamed.  Only a set of the locs' hashes grows with the input.
    """
    seen: set[int] = set()
    repeats = _Repeats("first repeated here")
    for entry in entries:
        key = hash(entry.loc)
        if key in seen:
            repeats.add(entry.loc, lambda: _where(entry, ctx))  # noqa: B023 (called at once)
            if drop:
                continue
        else:
            seen.add(key)
        yield entry
    repeats.report(ctx, merged="the URL written once" if drop else "")


@overload
def merge_duplicates(  # type: ignore[overload-overlap]
    source: Document,
    *,
    reporter: Reporter | None = ...,
    on_diagnostic: DiagnosticHandler | None = ...,
    strict: bool = ...,
) -> Document: ...
@overload
def merge_duplicates(
    source: Iterable[Entry],
    *,
    reporter: Reporter | None = ...,
    on_diagnostic: DiagnosticHandler | None = ...,
    strict: bool = ...,
) -> Iterator[Entry]: ...
def merge_duplicates(
    source: Document | Iterable[Entry],
    *,
    reporter: Reporter | None = None,
    on_diagnostic: DiagnosticHandler | None = None,
    strict: bool = False,
) -> Document | Iterator[Entry]:
    """Each loc once, in first-seen order, the entry with the newest lastmod kept.

    Reports INFO ``duplicate-loc`` per repeated loc (its count, at its first occurrence) and INFO
    ``duplicates-merged`` with the number merged.  Nothing comes out before the input is exhausted.
    """
    return _apply(source, merged_entries, reporter, on_diagnostic, strict)


@overload
def report_duplicates(  # type: ignore[overload-overlap]
    source: Document,
    *,
    reporter: Reporter | None = ...,
    on_diagnostic: DiagnosticHandler | None = ...,
    strict: bool = ...,
) -> Document: ...
@overload
def report_duplicates(
    source: Iterable[Entry],
    *,
    reporter: Reporter | None = ...,
    on_diagnostic: DiagnosticHandler | None = ...,
    strict: bool = ...,
) -> Iterator[Entry]: ...
def report_duplicates(
    source: Document | Iterable[Entry],
    *,
    reporter: Reporter | None = None,
    on_diagnostic: DiagnosticHandler | None = None,
    strict: bool = False,
) -> Document | Iterator[Entry]:
    """The entries unchanged and streamed; INFO ``duplicate-loc`` per repeated loc at the end."""
    return _apply(source, reported_entries, reporter, on_diagnostic, strict)


# --- the same, as conversion steps (Document, Context) -> Document ----------------------------------------


def _step(doc: Document, entries: Iterator[Entry]) -> Document:
    result = Document(doc.meta, entries, diagnostics=doc.diagnostics)
    result.format = doc.format
    return result


def merge_step(doc: Document, ctx: Context) -> Document:
    """Each loc once, newest lastmod kept (targets that hold more than the loc)."""
    return _step(doc, merged_entries(doc.entries, ctx))


def unique_step(doc: Document, ctx: Context) -> Document:
    """Each loc once, streamed (a target that holds only the loc)."""
    return _step(doc, reported_entries(doc.entries, ctx, drop=True))


def report_step(doc: Document, ctx: Context) -> Document:
    """Repeated locs reported, every entry kept (JSON lines keeps what was read)."""
    return _step(doc, reported_entries(doc.entries, ctx))


def check_step(doc: Document, ctx: Context) -> Document:
    """The readers' checks, for a document no reader produced (see :func:`feedmap.write`)."""
    return _step(doc, checked_entries(doc.entries, ctx))


@functools.cache
def absolute_step(target: str) -> Callable[[Document, Context], Document]:
    """Entries without an absolute URL left out, for ``target`` (one function per target)."""

    def step(doc: Document, ctx: Context) -> Document:
        return _step(doc, absolute_entries(doc.entries, ctx, target))

    step.__name__ = f"absolute_step({target!r})"
    return step
