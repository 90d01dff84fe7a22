"""The public steps of :mod:`feedmap.converters`: entries in, entries out, diagnostics reported.

:func:`feedmap.convert` and :func:`feedmap.write` run these between reader and writer (see
:func:`feedmap.converters._pipeline.plan`); a library user can run them on any stream of entries::

    with feedmap.read("feed.xml") as doc:
        entries = feedmap.converters.merge_duplicates(doc.entries, on_diagnostic=print)
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
* :func:`check_values`: the checks a reader makes, for entries built in code (``loc-not-absolute``,
  ``loc-not-escaped``, ``loc-too-long``, ``relative-url``, ``priority-invalid``: out of 0.0-1.0 or not a
  number, dropped).
* :func:`merge_duplicates`: each loc once, in first-seen order, the entry with the newest lastmod kept
  (sitemaps.org lists a URL once; RSS 2.0 guids identify an item); INFO ``loc-duplicate`` per repeated loc
  (count and the first occurrence's line) and INFO ``duplicates-merged`` with the total.
* :func:`report_duplicates`: the same ``loc-duplicate`` reports, entries passed on unchanged and in order.
* :func:`dedupe`: each loc once, in first-seen order, the entry ``options.dedupe`` says kept: ``first``
  (streamed), ``last`` or ``newest`` (by lastmod, ties to the first; the default); INFO ``loc-duplicate`` and
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
* :func:`set_fields`: ``options.set`` put on every entry (replacing the value read; an empty value clears the
  field) and ``options.set_missing`` on every entry without one (``--set type=Product``), the values checked as
  readers check what they read when the options are made; INFO ``fields-set`` at the end.

Memory: :func:`merge_duplicates` holds the first 10,000 entries as they are, pickles the
others into a temporary file (written and read back by the mebibyte) and keeps, per distinct URL, one ``int`` key
(the loc's hash) and one ``int`` offset: in a dict up to
250,000 distinct URLs (``feedmap._io.seen_keys.IN_MEMORY``); past them the keys move to a
temporary SQLite database (a directory under :func:`tempfile.gettempdir`, removed when the output ends, fails
or is closed), and in memory stay 16 bits per URL (a Bloom filter that spares
the database most lookups of new URLs) plus a page cache of 4 MiB and a batch of 20,000 keys.  Memory and time
for a million URLs, with and without the database, are in benchmarks/README.md (``bench_scale.py``).  It
reports each repeated loc at its first occurrence.
:func:`report_duplicates` and ``dedupe`` ``first`` keep the locs as written (their text, not a hash: two
locs are one URL only when their texts are), the same way, in memory up to the cap or 16 MiB of text
(``feedmap._io.seen_keys.IN_MEMORY_BYTES``), then on disk; they
report each repeated loc where it is first repeated.  Every policy keys on the URL as an XML output writes it
(an IRI and its URI are one URL; with ``keep_urls``, as read).  The merge keeps a hash per URL and confirms
each hash match by comparing the kept entry's loc: locs whose hashes collide (rare, or crafted: an ASCII
string and a UCS-2 one can hash alike under any seed) stay two URLs.  Big entries are bounded by bytes too:
the merge holds at most 8 MiB of entries as they are, ``sort_entries`` writes a run every 32 MiB, and the
writers write every MiB of output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Concatenate, ParamSpec, Protocol, cast, overload

from feedmap._core import entry_checks
from feedmap._core.call_fields import refuse_unused
from feedmap._core.context import Context, Options, reporter_for
from feedmap._core.entry_checks import relative_reference
from feedmap._core.errors import Diagnostic, Reporter
from feedmap._core.model import Document, Entry
from feedmap._core.urls import is_absolute_url
from feedmap._io.http import Shared
from feedmap.converters import _duplicates, _filters, _set, _sort

__all__ = [
    "check_values",
    "dedupe",
    "enrich",
    "filter_entries",
    "keep_absolute",
    "limit_entries",
    "merge_duplicates",
    "relative_reference",
    "report_duplicates",
    "resolve_relative",
    "set_fields",
    "sort_entries",
]

DiagnosticHandler = Callable[[Diagnostic], None]
_P = ParamSpec("_P")


# --- how every public step is called ------------------------------------------------------------------------


class _PublicStep(Protocol[_P]):
    """What each public step is: a Document in gives a Document out (its metadata and diagnostics
    list kept), any other iterable of entries an iterator of entries; the other parameters are its own."""

    @overload
    def __call__(  # type: ignore[overload-overlap]  # a Document is also an iterable of entries
        self, source: Document, /, *args: _P.args, **kwargs: _P.kwargs
    ) -> Document: ...
    @overload
    def __call__(self, source: Iterable[Entry], /, *args: _P.args, **kwargs: _P.kwargs) -> Iterator[Entry]: ...


def _public_step(
    function: Callable[Concatenate[Document | Iterable[Entry], _P], Document | Iterator[Entry]],
) -> _PublicStep[_P]:
    """Declare ``function`` a public step: its callers see the two forms of :class:`_PublicStep` (typing only;
    the function itself is returned unchanged)."""
    return cast("_PublicStep[_P]", function)


def _apply(
    source: Document | Iterable[Entry],
    step: Callable[[Iterable[Entry], Context], Iterator[Entry]],
    options: Options | None,
    on_diagnostic: DiagnosticHandler | None,
    reporter: Reporter | None,
) -> Document | Iterator[Entry]:
    """Run ``step`` as every public step does: the options' ``strict``, the diagnostics to ``reporter`` or
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


# --- the public steps -----------------------------------------------------------------------------------


@_public_step
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

    def resolve(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
        return entry_checks.resolve_relative(entries, ctx, base)

    return _apply(source, resolve, options, on_diagnostic, reporter)


@_public_step
def keep_absolute(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """The entries whose loc is an absolute URL; the others left out (one WARNING ``relative-url-left-out``)."""
    return _apply(source, entry_checks.keep_absolute, options, on_diagnostic, reporter)


@_public_step
def check_values(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """The checks readers make, on entries built in code: ``loc-not-absolute``, ``loc-not-escaped``,
    ``loc-too-long``, ``relative-url`` (all kept), and ``priority-invalid`` (outside 0.0-1.0 or not a number:
    dropped).

    :func:`feedmap.write` runs it on entries no feedmap reader produced.
    """
    return _apply(source, entry_checks.check_values, options, on_diagnostic, reporter)


@_public_step
def merge_duplicates(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """Each loc once, in first-seen order, the entry with the newest lastmod kept.

    Reports INFO ``loc-duplicate`` per repeated loc (its count, at its first occurrence) and INFO
    ``duplicates-merged`` with the number merged.  Nothing comes out before the input is exhausted.
    """
    return _apply(source, _duplicates.merge_duplicates, options, on_diagnostic, reporter)


@_public_step
def report_duplicates(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """The entries unchanged and streamed; INFO ``loc-duplicate`` per repeated loc at the end."""
    return _apply(source, _duplicates.report_duplicates, options, on_diagnostic, reporter)


@_public_step
def dedupe(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """Each loc once, in first-seen order, by ``options.dedupe``: ``"first"`` (streamed), ``"last"`` or
    ``"newest"`` (the default: newest lastmod, ties to the first; nothing comes out before the input ends).

    Reports INFO ``loc-duplicate`` per repeated loc and INFO ``duplicates-merged`` with the number merged.
    """
    return _apply(source, _duplicates.dedupe, options, on_diagnostic, reporter)


@_public_step
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
    return _apply(source, _filters.filter_entries, options, on_diagnostic, reporter)


@_public_step
def limit_entries(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """The first ``options.limit`` entries (all when None); nothing past them is read (INFO ``limit-reached``)."""
    return _apply(source, _filters.limit_entries, options, on_diagnostic, reporter)


@_public_step
def set_fields(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """The entries with ``options.set`` on each (``Options(set={"type": "Product"})``: replacing the value read,
    an empty value clearing the field) and ``options.set_missing`` on each without a value for the field, streamed.

    The values were checked when the options were made, as a reader checks a value it reads (a lastmod in W3C
    Datetime, a priority from 0.0 to 1.0, a changefreq word, ...: ``ValueError`` naming the field otherwise).
    INFO ``fields-set`` at the end: each field, and the values read it replaced.
    """
    return _apply(source, _set.set_fields, options, on_diagnostic, reporter)


@_public_step
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
    return _apply(source, _sort.sort_entries, options, on_diagnostic, reporter)


def _run(entries: Iterable[Entry], ctx: Context, shared: Shared) -> Iterator[Entry]:
    """Enriched entries, then the input closed and the run's threads and HTTP client released."""
    from feedmap.converters._enrich import enrich as enrich_pages  # page reading: loaded when it runs

    iterator = iter(entries)
    try:
        yield from enrich_pages(iterator, ctx, shared)
    finally:
        shared.close()
        close = getattr(iterator, "close", None)
        if callable(close):
            close()


@overload
def enrich(  # type: ignore[overload-overlap]  # a Document is also an iterable of entries
    source: Document,
    options: Options | None = ...,
    *,
    on_diagnostic: DiagnosticHandler | None = ...,
    reporter: Reporter | None = ...,
) -> Document: ...
@overload
def enrich(
    source: Iterable[Entry],
    options: Options | None = ...,
    *,
    on_diagnostic: DiagnosticHandler | None = ...,
    reporter: Reporter | None = ...,
) -> Iterator[Entry]: ...
def enrich(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """Fill the title, description and keywords of each entry from its page; streams, order kept.

    ``source`` is a :class:`~feedmap._core.model.Document` (a Document comes back, same metadata, and the
    enrichment diagnostics join its ``diagnostics`` list unless a ``reporter`` is given) or any iterable of
    entries (an iterator comes back).  The settings are those of ``--enrich`` in ``options``
    (:class:`~feedmap._core.context.Options`): ``concurrency`` pages are read at once; ``overwrite`` replaces
    values an entry already has; ``maps`` pairs ``(url_prefix, directory)`` read from disk instead of the
    network; ``http`` says how to fetch (user agent, timeouts, retries, ``host_delay``); ``page_max_bytes``
    (and ``max_bytes``, the smaller of the two) caps each page.  Failures are diagnostics
    (``enrich-failed``, ``not-html``, ``robots-disallowed``), the entry kept as it was; with ``strict`` the
    first one raises :class:`~feedmap._core.errors.StrictError`.  Once the entries are exhausted, one INFO
    ``enrich-summary`` says what was done (``195 enriched, 5 failed: 3 HTTP 404, 2 disallowed by robots.txt``).
    The HTTP client and threads are released when the result is exhausted or closed (``Document.close()``).
    """
    options = replace(options or Options(), enrich=True)
    refuse_unused(options, "enrich")
    if reporter is None:
        reporter = reporter_for(options, None, on_diagnostic)
        if isinstance(source, Document):
            reporter.diagnostics = source.diagnostics
    else:
        reporter = reporter_for(options, reporter, None)  # strict holds with the caller's reporter too
    ctx = Context(reporter=reporter, options=options)
    shared = Shared()
    if isinstance(source, Document):
        result = Document(source.meta, _run(source.entries, ctx, shared), diagnostics=reporter.diagnostics)
        result.format = source.format
        result.closers += [shared.close, source.close]  # also when closed before it was read
        return result
    return _run(source, ctx, shared)
