"""The library API: :func:`read`, :func:`write`, :func:`convert`, :func:`split` (``feedmap.read``, ...).

A run is: open the source and start its reader (:func:`feedmap._web.follow.start_document`: the input opened
by :mod:`feedmap._io.sources`, its format named or recognised by the registry of :mod:`feedmap.formats`), an
index made its children's entries (:func:`feedmap._web.follow.follow_index`), the steps of
:mod:`feedmap.converters` a conversion needs (:func:`feedmap.converters._pipeline.plan`), then a writer that
writes while entries arrive (or :mod:`feedmap._publish.split`, into a directory).  A run makes its download
threads and HTTP client (:class:`feedmap._io.http.Shared`), passes them to what fetches and closes them when it
ends.  Diagnostics go to a ``feedmap.Reporter``; pass ``on_diagnostic`` to see them as they come.  Nothing here
prints or exits.

One call style for every step: the data (a source, a document or entries, a sink) first, then the format
name (``format``: what is read by :func:`read`, what is written by :func:`write` and :func:`convert`,
whose input format is ``source_format``), then one ``feedmap.Options`` with every setting, then, by keyword,
where diagnostics go (``reporter=`` or ``on_diagnostic=``, as the steps of :mod:`feedmap.converters` take
them).  The library's other calls follow it without a format: ``feedmap.enrich``, ``feedmap.find_sitemaps``
and ``feedmap.sitemap_tree`` take ``(data, options=None, *, on_diagnostic=None, reporter=None)``.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from feedmap._core.call_fields import refuse_csv_options, refuse_splitting, refuse_unused
from feedmap._core.collector import spaced_collections
from feedmap._core.context import Context, Options, reporter_for
from feedmap._core.errors import DiagnosticHandler, FormatError, Reporter
from feedmap._core.model import ENTRY_FIELDS, DocKind, Document, Entry
from feedmap._core.options import asks_for_workers
from feedmap._core.summary import SplitSummary, Summary
from feedmap._io.http import Shared
from feedmap._io.sinks import gzip_named, gzipped
from feedmap._io.sources import (
    SinkLike,
    SourceLike,
    is_url,
    open_sink,
    source_name,
)
from feedmap._web.follow import follow_index, start_document
from feedmap.converters import _pipeline as converters
from feedmap.converters._kinds import report_kind_change
from feedmap.converters._unheld import report_unheld, values_of
from feedmap.formats import _registry as registry
from feedmap.formats._registry import FormatSpec

if TYPE_CHECKING:  # splitting and worker processes are imported by the runs that use them (a light `convert`)
    from concurrent.futures import Future

    from feedmap._publish.split import Layout, SplitResult

__all__ = ["SplitSummary", "Summary", "convert", "read", "split", "write"]


def _context(
    call: str,
    options: Options | None,
    reporter: Reporter | None,
    on_diagnostic: DiagnosticHandler | None,
    name: str,
) -> Context:
    """The context of one ``call``: its options (the defaults when None; ValueError naming those it cannot use,
    :func:`feedmap._core.call_fields.refuse_unused`) and where its diagnostics go (stopping at the first warning
    under ``options.strict``, whatever the reporter)."""
    options = options or Options()
    if not isinstance(options, Options):
        raise TypeError(f"options: give a feedmap.Options, not {options!r}")
    refuse_unused(options, call)
    ctx = Context(reporter=reporter_for(options, reporter, on_diagnostic), options=options, name=name)
    registry.report_refused(ctx)  # an installed format plugin named like another is not silently ignored
    return ctx


def _open_document(source: SourceLike, format: str | None, ctx: Context, shared: Shared) -> Document:
    """Open and start reading one source; the returned document's entries close it when exhausted."""
    doc, stack = start_document(source, format, ctx, shared)
    follow_index(doc, ctx, shared)  # an index becomes its children's entries unless --no-follow
    doc.entries = _closing(doc.entries, stack)
    doc.closers.append(stack.close)
    return doc


def _closing(entries: Iterable[Entry], stack: contextlib.ExitStack) -> Iterator[Entry]:
    with stack:
        yield from entries


def read(
    source: SourceLike,
    format: str | None = None,
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document:
    """Read a sitemap, index, text sitemap, feed, JSON lines file (or any registered format).

    ``source`` is a path, ``"-"`` for stdin, an http(s) URL, or a binary file object; gzip is recognised
    by content.  The format is recognised by content unless ``format`` names it.  Entries stream: iterate
    ``doc.entries`` once, and use the document as a context manager (or exhaust it) to close the input.

    ``options`` (:class:`~feedmap._core.context.Options`) holds the settings: for a sitemap index, ``follow``
    (False: the index's own entries) and ``follow_child``, a predicate ``(loc, lastmod) -> bool`` choosing
    the children to read, ``concurrency`` children fetched at once, ``max_depth``; ``maps`` pairs
    ``(url_prefix, directory)``: URLs under a prefix are read from the directory instead of the network;
    ``max_bytes``, ``max_line_bytes`` (a longer line of JSON lines or of a text sitemap is skipped with a
    ``line-too-long`` warning), ``http``, ``strict`` (with any ``reporter``).  The entries are those the
    options select, as :func:`convert` selects them: ``since``, ``until``, ``require_lastmod``, ``include``,
    ``exclude``, then ``dedupe``, ``sort`` and ``limit``; with ``enrich`` each page's title and description
    are filled in.  Options of writing or splitting (``channel_title``, ``max_urls``, ...) raise ValueError
    naming them: reading cannot use them.  Diagnostics go to ``reporter``, else to a new one calling
    ``on_diagnostic`` with each.

    A relative URL is resolved against the document's ``xml:base``, its own URL (fetched or mapped), else
    ``options.base_url``, else (a feed) its channel link: INFO ``relative-url-resolved``; with no base it is
    kept and reported (WARNING ``relative-url``), and the writers of XML formats leave it out.
    """
    ctx = _context("read", options, reporter, on_diagnostic, source_name(source))
    shared = Shared()
    try:
        doc = _open_document(source, format, ctx, shared)
        if ctx.options.excel_safe:
            _refuse_csv_options(doc, ctx, None)
        for step in converters.selection(ctx.options, shared):
            selected = step(doc, ctx)
            selected.closers.append(doc.close)
            doc = selected
    except BaseException:
        shared.close()
        raise
    doc.entries = _then_close(doc.entries, shared)
    doc.closers.append(shared.close)
    return doc


def _refuse_csv_options(doc: Document, ctx: Context, written: str | None) -> None:
    """:func:`~feedmap._core.call_fields.refuse_csv_options` for a document read (closed when they are refused)."""
    try:
        refuse_csv_options(ctx.options, written, doc.format)
    except FormatError:
        doc.close()
        raise


def _then_close(entries: Iterable[Entry], shared: Shared) -> Iterator[Entry]:
    """The entries, then the run's shared resources (HTTP client, download threads) closed."""
    try:
        yield from entries
    finally:
        shared.close()


def _watch_dropped(entries: Iterable[Entry], spec: FormatSpec, ctx: Context) -> Iterator[Entry]:
    """Report the IR fields with a value the target format cannot hold, in one INFO field-dropped line at the
    end (or as soon as every such field was found)."""
    unheld = [name for name in ENTRY_FIELDS if name not in spec.fields]
    if not unheld:
        yield from entries
        return
    found: list[str] = []
    values = values_of(unheld)
    iterator = iter(entries)
    for entry in iterator:
        if any(values(entry)):  # one C call per entry while nothing new is found
            for name in [name for name in unheld if getattr(entry, name)]:
                unheld.remove(name)
                found.append(name)
            values = values_of(unheld)
        yield entry
        if not unheld:
            break
    yield from iterator  # every field found: no more per-entry work
    if found:
        report_unheld(found, spec.name, ctx)


def _sink_name(sink: SinkLike) -> str:
    return "<stdout>" if sink is None or sink == "-" else source_name(sink)


def _writer_spec(format: str) -> FormatSpec:
    spec = registry.get(format)
    if spec.writer is None:
        raise FormatError(f"format {spec.name!r} cannot be written")
    return spec


def _write(doc: Document, sink: SinkLike, spec: FormatSpec, ctx: Context) -> int:
    assert spec.writer is not None
    writer = _merged_records(doc, spec, ctx)
    staged = _watched(doc, spec, ctx) if writer is None else doc
    writer = writer or spec.writer
    with open_sink(sink) as out:
        if gzip_named(sink):  # -o sitemap.xml.gz: the format is the name's without .gz, the bytes are gzip
            with gzipped(out) as compressed:
                return writer(staged, compressed, ctx=ctx)
        return writer(staged, out, ctx=ctx)


def _merged_records(doc: Document, spec: FormatSpec, ctx: Context) -> Callable[..., int] | None:
    """The writer that runs the merge of repeated URLs itself, keeping each URL's rendered record instead of
    its entry, when the last step is that merge and the target renders records so
    (:mod:`feedmap.converters._records`; it says the fields the target cannot hold as :func:`_watched` does);
    else None: ``spec.writer`` writes the watched entries."""
    from feedmap.converters._records import records_writer

    return records_writer(doc, spec.name, ctx)


def _watched(doc: Document, spec: FormatSpec, ctx: Context) -> Document:
    """The document as written: the fields the format cannot hold reported (:func:`_watch_dropped`)."""
    return Document(doc.meta, _watch_dropped(doc.entries, spec, ctx), diagnostics=doc.diagnostics)


def _layout(format: str, directory: str | os.PathLike[str], ctx: Context) -> Layout:
    """:func:`feedmap._publish.split.layout`, splitting's machinery imported only by a run that splits."""
    from feedmap._publish.split import layout

    return layout(format, directory, ctx)


def _split(doc: Document, where: Layout, ctx: Context) -> SplitSummary:
    from feedmap._publish.split import split_document

    return _split_summary(split_document(_watched(doc, where.spec, ctx), where, ctx), where, ctx)


def _split_summary(result: SplitResult, where: Layout, ctx: Context) -> SplitSummary:
    report = result.report
    return SplitSummary(
        result.entries,
        ctx.reporter,
        where.spec.name,
        files=result.files,
        index=result.index,
        written=report.written,
        unchanged=report.unchanged,
        removed=report.removed,
    )


def directory_of(sink: SinkLike) -> str | None:
    """The directory an output names to split the output into (an existing directory, or a path ending with
    a separator: ``out/``), else None."""
    if not isinstance(sink, (str, os.PathLike)) or sink == "-":  # "-": standard output, even beside a folder "-"
        return None
    name = os.fspath(sink)
    return name if name.endswith(("/", os.sep)) or (name and os.path.isdir(name)) else None


def write(
    doc: Document | Iterable[Entry],
    sink: SinkLike,
    format: str,
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Summary:
    """Write a document (or any iterable of entries) to a path, ``"-"``/None for stdout, or a binary file.

    The document goes through the same steps as in :func:`convert` (see :func:`feedmap.converters._pipeline.plan`):
    entries without an absolute URL are left out of XML formats, repeated URLs are reported and, for every
    format but JSON lines, merged (newest lastmod kept), a feed written as a sitemap becomes a urlset.
    Entries no feedmap reader produced (an iterable, or a Document built in code) are first checked as a
    reader checks what it reads (:func:`feedmap.converters.check_values`).  ``options`` is honoured as
    :func:`convert` honours it: the entry selection (``since``, ``until``, ``require_lastmod``, ``include``,
    ``exclude``, ``dedupe``, ``sort``, ``limit``), ``enrich``, ``strict`` (with any ``reporter``) and those of
    writing: ``schema_location``, ``encode_urls``, ``keep_urls`` and the feed channel (``channel_title``,
    ...).  Options of reading (``follow``, ``max_depth``, ...) or of splitting (``max_urls``, ...) raise
    ValueError naming them: :func:`read` and :func:`split` use them.

    A regular file (or a new path) is written atomically: to a temporary file renamed over it when
    everything was written; a symbolic link's target is replaced; a device, a FIFO or ``/dev/fd/N`` is
    written straight through (see :mod:`feedmap._io.sinks`).  An output that cannot be opened or written (a
    directory, a full disk) raises :class:`~feedmap._core.errors.SourceError`.
    """
    spec = _writer_spec(format)
    document = doc if isinstance(doc, Document) else Document(entries=doc)
    ctx = _context("write", options, reporter, on_diagnostic, _sink_name(sink))
    refuse_csv_options(ctx.options, spec.name)  # explode, excel_safe: for a CSV output only
    staged = document
    shared = Shared()  # enrichment's threads and fetcher, made only if it runs
    try:
        with spaced_collections():
            for step in converters.fused(_steps_of(document, spec.name, ctx, shared), spec.name):
                staged = step(staged, ctx)
            count = _write(staged, sink, spec, ctx)
    finally:
        if staged is not document:
            staged.close()  # a step that stopped early (an error) releases what it holds (a spool)
        shared.close()
    return Summary(count, ctx.reporter)


def _steps_of(document: Document, target: str, ctx: Context, shared: Shared) -> list[converters.Step]:
    """The steps :func:`write` and :func:`split` run, those of :func:`convert` (the readers' checks first for
    a document no reader produced); enrichment runs on ``shared``, the call's threads and fetcher."""
    options = ctx.options
    return converters.plan(
        document, target, enrich=options.enrich, check=document.format is None, options=options, shared=shared
    )


def split(
    data: Document | Iterable[Entry],
    directory: str | os.PathLike[str],
    format: str = "sitemap",
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> SplitSummary:
    """Write a document (or any iterable of entries) into ``directory`` as numbered files and a sitemap index.

    Each file holds at most ``options.max_urls`` entries (at most and by default 50,000) and
    ``options.max_file_bytes`` bytes uncompressed (at most and by default 52,428,800); the files are named by
    ``options.name`` (a pattern with ``{n}`` or ``{n:0Wd}``, zero-padded; ending in ``.gz``: gzip; default
    ``sitemap-{n}.xml``, ``urls-{n}.txt`` for text, ``feed-{n}.xml`` for rss, ``ror-{n}.xml`` for ror), each
    gzip-compressed (``.gz`` appended) with ``options.gzip``. The index, ``options.index_name``
    (``sitemap_index.xml``), lists each file at ``options.base_url`` (required: the absolute http(s) URL the
    directory is served at) with the newest lastmod of its entries. The entries go through the same steps as
    in :func:`write` (the options honoured as there, and those of splitting). The directory is made if
    missing; changed files are replaced, the index last, and the files the replaced index named that this run
    no longer writes are removed; an error leaves the directory as it was.
    A format without a renderer (``jsonl``, ``sitemapindex``) raises :class:`~feedmap._core.errors.FormatError`;
    more than 50,000 files, :class:`~feedmap._core.errors.LimitError` (see :mod:`feedmap._publish.split`).
    """
    document = data if isinstance(data, Document) else Document(entries=data)
    ctx = _context("split", options, reporter, on_diagnostic, os.fspath(directory))
    where = _layout(format, directory, ctx)
    staged = document
    shared = Shared()  # enrichment's threads and fetcher, made only if it runs
    try:
        with spaced_collections():
            for step in _steps_of(document, where.spec.name, ctx, shared):
                staged = step(staged, ctx)
            return _split(staged, where, ctx)
    finally:
        if staged is not document:
            staged.close()
        shared.close()


def _concatenated(
    sources: Sequence[SourceLike], format: str | None, ctx: Context, reporter: Reporter, shared: Shared
) -> Document:
    """One document whose entries are those of each source in turn, read reporting to ``reporter``; metadata
    from the first.  With ``options.jobs``, the inputs after the first that are local files are read by worker
    processes ahead of their turn, their entries and diagnostics replayed in it (:mod:`feedmap._web.partitions`;
    an input that is an index to follow is read here, its children by the workers)."""

    def context_for(source: SourceLike) -> Context:
        return Context(reporter=reporter, options=ctx.options, name=source_name(source))

    first = _open_document(sources[0], format, context_for(sources[0]), shared)
    workers = None
    if asks_for_workers(ctx.options) and len(sources) > 1:
        from feedmap._web.partitions import outcome, replay, workers_for

        workers = workers_for(ctx.options)
    ahead: deque[Future[str] | None] = deque()

    def read_ahead(rest: Iterator[SourceLike]) -> None:
        """Up to one input more than there are workers handed to them (a local file; others are read here)."""
        assert workers is not None
        while len(ahead) <= workers.count and (source := next(rest, None)) is not None:
            path = os.fspath(source) if isinstance(source, (str, Path)) else None
            local = path is not None and path != "-" and not is_url(path)
            ahead.append(workers.read(path, context_for(source), format) if path is not None and local else None)

    def entries() -> Iterator[Entry]:
        rest = iter(sources[1:])
        try:
            if workers is not None:
                read_ahead(rest)  # the next inputs read while the first is
            yield from first.entries
            for source in sources[1:]:
                if workers is not None:
                    read_ahead(rest)
                    parsed = ahead.popleft()
                    if parsed is not None:
                        index = yield from replay(outcome(parsed, source_name(source)), reporter.report)
                        if not index:
                            continue
                yield from _open_document(source, format, context_for(source), shared).entries
        finally:
            if workers is not None:
                workers.close()

    # one input read here: its own entries, without a layer per entry (closing them closes the same generator)
    combined = Document(
        first.meta, entries() if len(sources) > 1 else first.entries, diagnostics=ctx.reporter.diagnostics
    )
    combined.format = first.format
    return combined


def _split_into(sink: SinkLike, split: bool | None) -> str | None:
    """The directory :func:`convert` splits into: ``sink`` with ``split=True``, none with False, else the
    directory ``sink`` names (:func:`directory_of`)."""
    if split is None:
        return directory_of(sink)
    if not split:
        return None
    if not isinstance(sink, (str, os.PathLike)) or sink == "-" or not isinstance(os.fspath(sink), str):
        raise TypeError(f"convert(split=True): give the directory to write into as a path, not {sink!r}")
    return os.fspath(sink)


#: The last step of :func:`convert` (``wrap=``): the entry stream in, the entries written out.
Wrap = Callable[[Iterable[Entry]], Iterable[Entry]]


@overload
def convert(
    sources: SourceLike | Sequence[SourceLike],
    sink: str | os.PathLike[str],
    format: str | Callable[[DocKind], str],
    options: Options | None = None,
    *,
    split: Literal[True],
    source_format: str | None = None,
    wrap: Wrap | None = None,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> SplitSummary: ...


@overload
def convert(
    sources: SourceLike | Sequence[SourceLike],
    sink: SinkLike,
    format: str | Callable[[DocKind], str],
    options: Options | None = None,
    *,
    split: Literal[False] | None = None,
    source_format: str | None = None,
    wrap: Wrap | None = None,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Summary: ...


def convert(
    sources: SourceLike | Sequence[SourceLike],
    sink: SinkLike,
    format: str | Callable[[DocKind], str],
    options: Options | None = None,
    *,
    split: bool | None = None,
    source_format: str | None = None,
    wrap: Wrap | None = None,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Summary:
    """Read ``sources`` (one source or several, concatenated) and write them to ``sink`` in ``format``.

    As :func:`read` (with ``source_format`` as its ``format``) then :func:`write`, with one ``options``.
    Between reader and writer run the steps of :func:`feedmap.converters._pipeline.plan` (the steps of
    :mod:`feedmap.converters`: relative URLs left out of XML formats, repeated URLs merged, a feed made a
    urlset, pages enriched with ``options.enrich``, ROR channel derived).  ``wrap``, if given, is a last
    step: a function from the entry stream to an entry stream, applied after those steps and before the
    writer (a filter, a transform, a progress counter); the entries it yields are written as they are.
    ``format`` names the format written, or is a function choosing it from the kind of entries read
    (:func:`feedmap.converters._kinds.xml_for_kind`).  Writing entries as another kind (an index's own
    entries as pages, pages as an index) is reported (``kind-changed``).

    ``split=True``: ``sink`` is the directory written as :func:`split` writes it (made if missing), and the
    result is typed :class:`~feedmap._core.summary.SplitSummary`.  ``split=False``: ``sink`` is one output (a
    directory cannot be opened as one: :class:`~feedmap._core.errors.SourceError`).  None (the default): a
    ``sink`` that is a directory (one that exists, or a path ending with ``/``) is split as with ``True``, the
    result a SplitSummary typed as the Summary it is.  Every field of ``options`` is honoured; ``strict``
    with any ``reporter``.
    """
    spec = _writer_spec(format) if isinstance(format, str) else None
    inputs: Sequence[SourceLike] = (
        [sources] if isinstance(sources, (str, Path)) or hasattr(sources, "read") else list(sources)  # type: ignore[list-item, arg-type]
    )
    if not inputs:
        raise FormatError("nothing to convert: no input given")
    ctx = _context("convert", options, reporter, on_diagnostic, _sink_name(sink))
    directory = _split_into(sink, split)
    if directory is None:
        refuse_splitting(ctx.options, "convert")  # max_urls, gzip, ... given for one output: not ignored
    where = _layout(spec.name, directory, ctx) if spec is not None and directory is not None else None
    shared = Shared()
    with contextlib.ExitStack() as cleanup:
        cleanup.callback(shared.close)  # last: the HTTP client and threads, also when opening fails
        cleanup.enter_context(spaced_collections())
        reading = ctx.reporter
        if directory is not None:
            from feedmap._publish.split_notes import SplitReading

            reading = SplitReading(ctx.reporter)
        doc = source_doc = _concatenated(inputs, source_format, ctx, reading, shared)
        cleanup.callback(source_doc.close)
        if spec is None:
            assert not isinstance(format, str)
            spec = _writer_spec(format(doc.meta.kind))
            where = _layout(spec.name, directory, ctx) if directory is not None else None
        refuse_csv_options(ctx.options, spec.name, doc.format)  # for a CSV output (or input: excel_safe)
        report_kind_change(doc.meta.kind, spec.name, ctx)
        steps = converters.plan(doc, spec.name, enrich=ctx.options.enrich, options=ctx.options, shared=shared)
        laned = _text_lane(doc, steps, len(inputs), wrap, sink, spec, where, ctx)
        if laned is None:
            laned = _jobs_lane(doc, steps, len(inputs), wrap, sink, spec, where, ctx)
        if laned is not None:
            return laned
        for step in converters.fused(steps, spec.name) if _passes_through(wrap) else steps:
            doc = step(doc, ctx)
        if wrap is not None:
            doc = Document(doc.meta, wrap(doc.entries), diagnostics=doc.diagnostics)
        cleanup.callback(doc.close)
        if where is not None:
            return _split(doc, where, ctx)
        count = _write(doc, sink, spec, ctx)
    return Summary(count, ctx.reporter, spec.name)


def _passes_through(wrap: Wrap | None) -> bool:
    """Whether ``wrap`` leaves the entries as they are, so a lane may take them: none, or one bound to an object
    switched off (the progress line of a run whose stderr is no terminal: ``enabled`` False)."""
    return wrap is None or getattr(getattr(wrap, "__self__", None), "enabled", True) is False


def _text_lane(
    doc: Document,
    steps: list[converters.Step],
    inputs: int,
    wrap: Wrap | None,
    sink: SinkLike,
    spec: FormatSpec,
    where: Layout | None,
    ctx: Context,
) -> Summary | None:
    """The conversion run by the text lane (:mod:`feedmap._publish.text_lane`: one text sitemap, its plain URLs
    in blocks) when it can run ``steps`` and ``wrap`` passes the entries through (:func:`_passes_through`); None:
    they run."""
    if inputs != 1 or not _passes_through(wrap):
        return None
    from feedmap._publish import text_lane

    reading = text_lane.lane_for(doc, steps, spec.name, where is not None)
    if reading is None:
        return None
    try:
        if where is not None:
            from feedmap._publish.text_split import split_text

            return _split_summary(split_text(reading, where, ctx), where, ctx)
        with open_sink(sink) as out, gzipped(out) if gzip_named(sink) else contextlib.nullcontext(out) as to:
            return Summary(text_lane.write_text(reading, to, ctx), ctx.reporter, spec.name)
    finally:
        reading.close()
        for _ in doc.entries:  # none left: the input is closed as the end of its entries closes it
            pass


def _jobs_lane(
    doc: Document,
    steps: list[converters.Step],
    inputs: int,
    wrap: Wrap | None,
    sink: SinkLike,
    spec: FormatSpec,
    where: Layout | None,
    ctx: Context,
) -> Summary | None:
    """The conversion run by the workers' text lane (:mod:`feedmap._web.text_jobs`: an index whose children
    worker processes read and check, written as one text sitemap) when it can run ``steps``; None: they run.
    ``wrap``: as :func:`_passes_through` says."""
    if inputs != 1 or not asks_for_workers(ctx.options) or not _passes_through(wrap):  # no pool modules loaded
        return None
    from feedmap._web import text_jobs

    lane = text_jobs.lane_for(doc, steps, spec.name, where is not None, ctx)
    if lane is None:
        return None
    try:
        with open_sink(sink) as out, gzipped(out) if gzip_named(sink) else contextlib.nullcontext(out) as to:
            return Summary(text_jobs.write_text(doc, lane, to, ctx), ctx.reporter, spec.name)
    finally:
        doc.close()  # the input closed, never drained: a run that stopped reads no child after (nor before)
