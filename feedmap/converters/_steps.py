"""Conversion steps as public transforms: entries in, entries out, diagnostics reported.

:func:`feedmap.convert` and :func:`feedmap.write` run these between reader and writer (see
:func:`feedmap.converters._pipeline.plan`); a library user can run them on any stream of entries::

    with feedmap.read("feed.xml") as doc:
        entries = feedmap.converters._steps.merge_duplicates(doc.entries, on_diagnostic=print)
        feedmap.write(entries, "out.xml", format="sitemap")

Each public function takes an iterable of :class:`~feedmap._core.model.Entry` (or a
:class:`~feedmap._core.model.Document`: a Document comes back, same metadata, its diagnostics list extended) and
streams the result.  They are called as :func:`feedmap.read` is: ``f(entries, options=None, *,
on_diagnostic=None, reporter=None)``; diagnostics go to ``reporter`` or ``on_diagnostic``; ``options.strict``
raises :class:`~feedmap._core.errors.StrictError` at the first warning; :func:`resolve_relative` resolves against
``options.base_url``.

* :func:`resolve_relative`: a relative ``loc`` (RFC 3986 §4.2 relative reference) resolved against a base
  URL (RFC 3986 §5.2), INFO ``relative-url-resolved``; without a base, WARNING ``relative-url``, kept.
* :func:`keep_absolute`: entries whose loc is not an absolute URL left out (one WARNING
  ``relative-url-left-out`` with the count): sitemaps.org 0.9 and RSS 2.0 (``link``, permalink ``guid``)
  require absolute URLs.
* :func:`check_values`: the checks a reader makes, for entries built in code (``invalid-loc``,
  ``relative-url``, ``invalid-priority``: out of 0.0-1.0 or not a number, dropped).
* :func:`merge_duplicates`: each loc once, in first-seen order, the entry with the newest lastmod kept
  (sitemaps.org lists a URL once; RSS 2.0 guids identify an item); INFO ``duplicate-loc`` per repeated loc
  (count and the first occurrence's line) and INFO ``duplicates-merged`` with the total.
* :func:`report_duplicates`: the same ``duplicate-loc`` reports, entries passed on unchanged and in order.
* :func:`dedupe`: each loc once, in first-seen order, the entry ``options.dedupe`` says kept: ``first``
  (streamed), ``last`` or ``newest`` (by lastmod, ties to the first; the default); INFO ``duplicate-loc`` and
  ``duplicates-merged`` as :func:`merge_duplicates`.
* :func:`filter_entries`: the entries within ``options.since``/``options.until`` (by lastmod; both bounds
  inclusive over their whole period: a lastmod of ``2024-01-01`` is within ``since="2024-01-01T12:00:00Z"``;
  no zone means UTC), whose loc matches one of ``options.include`` and none of ``options.exclude``
  (:func:`re.search`); entries without a lastmod kept (one INFO ``no-lastmod-kept``) unless
  ``options.require_lastmod``; one INFO ``entries-filtered`` with what each filter left out.
* :func:`sort_entries`: the entries ordered by ``options.sort`` (``"loc"``, ``"lastmod"`` oldest first,
  ``"-lastmod"`` newest first), stably; lastmods compared by the instant their period starts (no zone is
  UTC), entries without one last; past 100,000 entries or 32 MiB sorted runs are pickled to temporary files
  and merged.
* :func:`limit_entries`: the first ``options.limit`` entries; the input is not read further (INFO
  ``limit-reached``).

Memory: :func:`merge_duplicates` holds the first 10,000 entries as they are (a few megabytes), pickles the
others into a temporary file (written and read back by the mebibyte) and keeps, per distinct URL, one ``int`` key
(the loc's hash) and one ``int`` offset: in a dict, about 120 bytes per URL on CPython 3.11, up to
250,000 distinct URLs (``feedmap._io.seen_keys.IN_MEMORY``: about 30 MB); past them the keys move to a
temporary SQLite database (a directory under :func:`tempfile.gettempdir`, removed when the output ends, fails
or is closed): about 41 bytes per URL on disk, and in memory 2 bytes per URL (a Bloom filter that spares
the database most lookups of new URLs) plus a page cache of 4 MiB and a batch of 20,000 keys.  Converting
1,000,000 URLs (900,000 distinct) to a sitemap peaks at 71 MiB of RSS for the whole process, in 18.7 s
(``dedupe`` ``newest`` to a text sitemap: 15.7 s, 71 MiB); with every key in memory (measured before the
spool was made faster) it took 152 MiB and about three quarters of the time.  It reports each repeated loc at
its first occurrence.
:func:`report_duplicates` and ``dedupe`` ``first`` keep the locs as written (their text, not a hash: two
locs are one URL only when their texts are), the same way: about 100 bytes and the URL's characters per URL
in memory, up to the cap or 16 MiB of text (``feedmap._io.seen_keys.IN_MEMORY_BYTES``), then on disk; they
report each repeated loc where it is first repeated.  Every policy keys on the URL as an XML output writes it
(an IRI and its URI are one URL; with ``keep_urls``, as read).  The merge keeps a hash per URL and confirms
each hash match by comparing the kept entry's loc: locs whose hashes collide (rare, or crafted: an ASCII
string and a UCS-2 one can hash alike under any seed) stay two URLs.  Big entries are bounded by bytes too:
the merge holds at most 8 MiB of entries as they are, ``sort_entries`` writes a run every 32 MiB, and the
writers write every MiB of output.
Reproduce the figures with ``python benchmarks/bench_scale.py
--compare-in-memory`` (``--urls N`` for fewer URLs).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Concatenate, ParamSpec, Protocol, cast, overload

from feedmap._core.context import Context, Options, reporter_for
from feedmap._core.entry_checks import (
    absolute_entries,
    checked_entries,
    relative_reference,
    resolve_entries,
    web_entries,
)
from feedmap._core.errors import Diagnostic, Reporter
from feedmap._core.model import Document, Entry
from feedmap._core.urls import is_absolute_url
from feedmap.converters._duplicates import deduped_entries, merged_entries, reported_entries
from feedmap.converters._filters import check_bounds, compile_patterns, filtered_entries, limited_entries
from feedmap.converters._sort import sorted_entries

__all__ = [
    "check_values",
    "dedupe",
    "filter_entries",
    "keep_absolute",
    "limit_entries",
    "merge_duplicates",
    "relative_reference",
    "report_duplicates",
    "resolve_relative",
    "sort_entries",
]

DiagnosticHandler = Callable[[Diagnostic], None]
_P = ParamSpec("_P")


# --- how every transform is called ------------------------------------------------------------------------


class _Transform(Protocol[_P]):
    """What each public transform is: a Document in gives a Document out (its metadata and diagnostics
    list kept), any other iterable of entries an iterator of entries; the other parameters are its own."""

    @overload
    def __call__(  # type: ignore[overload-overlap]  # a Document is also an iterable of entries
        self, source: Document, /, *args: _P.args, **kwargs: _P.kwargs
    ) -> Document: ...
    @overload
    def __call__(self, source: Iterable[Entry], /, *args: _P.args, **kwargs: _P.kwargs) -> Iterator[Entry]: ...


def _transform(
    function: Callable[Concatenate[Document | Iterable[Entry], _P], Document | Iterator[Entry]],
) -> _Transform[_P]:
    """Declare ``function`` a transform: its callers see the two forms of :class:`_Transform` (typing only;
    the function itself is returned unchanged)."""
    return cast("_Transform[_P]", function)


def _apply(
    source: Document | Iterable[Entry],
    step: Callable[[Iterable[Entry], Context], Iterator[Entry]],
    options: Options | None,
    on_diagnostic: DiagnosticHandler | None,
    reporter: Reporter | None,
) -> Document | Iterator[Entry]:
    """Run ``step`` as every transform does: the options' ``strict``, the diagnostics to ``reporter`` or
    ``on_diagnostic`` (for a Document, also appended to its own list)."""
    options = options or Options()
    if isinstance(source, Document):
        if reporter is None:
            reporter = reporter_for(options, None, on_diagnostic)
            reporter.diagnostics = source.diagnostics
        else:
            reporter = reporter_for(options, reporter, None)  # strict holds with the caller's reporter too
        entries = step(source.entries, Context(reporter=reporter, options=options))
        result = Document(source.meta, entries, diagnostics=reporter.diagnostics)
        result.format = source.format
        result.closers.append(source.close)
        return result
    return step(source, Context(reporter=reporter_for(options, reporter, on_diagnostic), options=options))


# --- the transforms -----------------------------------------------------------------------------------


@_transform
def resolve_relative(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """Each relative loc resolved against ``options.base_url`` (INFO ``relative-url-resolved``).

    For a Document, the base defaults to its channel link.  Without a base a relative loc is kept and
    reported (WARNING ``relative-url``); :func:`keep_absolute` leaves such entries out.
    """
    base = options.base_url if options is not None else None
    if base is None and isinstance(source, Document):
        base = source.meta.link if source.meta.link and is_absolute_url(source.meta.link) else None
    return _apply(source, lambda entries, ctx: resolve_entries(entries, ctx, base), options, on_diagnostic, reporter)


@_transform
def keep_absolute(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """The entries whose loc is an absolute URL; the others left out (one WARNING ``relative-url-left-out``)."""
    return _apply(source, absolute_entries, options, on_diagnostic, reporter)


@_transform
def check_values(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """The checks readers make, on entries built in code: ``invalid-loc``, ``relative-url`` (kept), and
    ``invalid-priority`` (outside 0.0-1.0 or not a number: dropped).

    :func:`feedmap.write` runs it on entries no feedmap reader produced.
    """
    return _apply(source, checked_entries, options, on_diagnostic, reporter)


@_transform
def merge_duplicates(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """Each loc once, in first-seen order, the entry with the newest lastmod kept.

    Reports INFO ``duplicate-loc`` per repeated loc (its count, at its first occurrence) and INFO
    ``duplicates-merged`` with the number merged.  Nothing comes out before the input is exhausted.
    """
    return _apply(source, merged_entries, options, on_diagnostic, reporter)


@_transform
def report_duplicates(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """The entries unchanged and streamed; INFO ``duplicate-loc`` per repeated loc at the end."""
    return _apply(source, reported_entries, options, on_diagnostic, reporter)


@_transform
def dedupe(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """Each loc once, in first-seen order, by ``options.dedupe``: ``"first"`` (streamed), ``"last"`` or
    ``"newest"`` (the default: newest lastmod, ties to the first; nothing comes out before the input ends).

    Reports INFO ``duplicate-loc`` per repeated loc and INFO ``duplicates-merged`` with the number merged.
    """
    return _apply(source, deduped_entries, options, on_diagnostic, reporter)


@_transform
def filter_entries(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """The entries ``options.since``, ``until``, ``require_lastmod``, ``include`` and ``exclude`` keep, streamed.

    INFO ``no-lastmod-kept`` (entries without a lastmod kept by a date bound) and INFO ``entries-filtered``
    (the count each filter left out) at the end.  An invalid regular expression is refused when the options
    are made (ValueError naming the field); a ``since`` after ``until`` (bounds the wrong way round) raises
    :class:`ValueError` here, before any entry is read.
    """
    if options is not None:
        _check_patterns(options)
    return _apply(source, filtered_entries, options, on_diagnostic, reporter)


@_transform
def limit_entries(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """The first ``options.limit`` entries (all when None); nothing past them is read (INFO ``limit-reached``)."""
    return _apply(source, limited_entries, options, on_diagnostic, reporter)


@_transform
def sort_entries(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """The entries ordered by ``options.sort`` (unchanged when None): ``"loc"`` (string order), ``"lastmod"``
    (oldest first) or ``"-lastmod"`` (newest first); stable; entries without a lastmod last in both directions.

    A lastmod is placed at the instant its period starts, no zone read as UTC.  Nothing comes out before
    the input ends; past :data:`feedmap.converters._sort.ENTRIES_IN_MEMORY` entries (or ``RUN_BYTES`` of them),
    sorted runs are pickled into temporary files (removed at the end) and merged.
    """
    return _apply(source, sorted_entries, options, on_diagnostic, reporter)


def _check_patterns(options: Options) -> None:
    """Compare the date bounds now (and compile the patterns, which ``Options`` checked), so that bounds the
    wrong way round fail at the call, not mid-stream."""
    compile_patterns(options.include + options.exclude)
    check_bounds(options.since, options.until)


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


@functools.cache
def web_step(xml: bool, parts: bool = True) -> Callable[[Document, Context], Document]:
    """Only http(s) URLs in an XML output; other URLs reported (and kept) in the others (``parts``: the output
    holds images and alternates): :func:`feedmap._core.entry_checks.web_entries`."""

    def step(doc: Document, ctx: Context) -> Document:
        return _step(doc, web_entries(doc.entries, ctx, xml=xml, parts=parts))

    step.__name__ = f"web_step(xml={xml!r}, parts={parts!r})"
    return step


def filter_step(doc: Document, ctx: Context) -> Document:
    """Entries left out by date and loc (``--since``, ``--until``, ``--require-lastmod``, ``--include``, ...)."""
    _check_patterns(ctx.options)
    return _step(doc, filtered_entries(doc.entries, ctx))


def sort_step(doc: Document, ctx: Context) -> Document:
    """The entries ordered by ``--sort``; only the first ``--limit`` kept (the limit step comes next)."""
    return _step(doc, sorted_entries(doc.entries, ctx, first=ctx.options.limit))


def limit_step(doc: Document, ctx: Context) -> Document:
    """The first ``--limit`` entries."""
    return _step(doc, limited_entries(doc.entries, ctx))


def filters_asked(options: Options) -> bool:
    """Whether the options ask :func:`filter_step` for anything."""
    return bool(
        options.since is not None
        or options.until is not None
        or options.require_lastmod
        or options.include
        or options.exclude
    )


def dedupe_step(doc: Document, ctx: Context) -> Document:
    """Each loc once by ``--dedupe`` (first, last or newest), whatever the target."""
    return _step(doc, deduped_entries(doc.entries, ctx))
