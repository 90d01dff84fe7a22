"""``feedmap.report``: read inputs, count their URLs, validate them, write one HTML page.

The call (the house style of :mod:`feedmap._api`: the data, then one ``feedmap.Options``, then by keyword) makes
two passes over each input, one after the other, each streaming:

* **reading** (:func:`feedmap.read`, an index followed into its children as ``convert`` follows it, with
  ``jobs`` or ``dask`` as given) gives the entries the page counts (:class:`~feedmap._report.tally.Tally`: what
  each entry's ``origin`` names is its child sitemap); its diagnostics go to ``reporter`` / ``on_diagnostic``
  and to the page's "Reading notes";
* **validation** (:func:`feedmap.validate`'s walk, :class:`feedmap._validate.report.Validation`) gives the
  findings by code with their first examples (:class:`~feedmap._report.findings.FindingsByCode`), and the
  bytes and kind of every file it read.

Two passes rather than one because the two read different things: validation checks the bytes as written
(element order, escaping, namespaces, what reading repairs) with its own walkers for sitemaps, text sitemaps and
feeds, and reading gives the entries as :func:`feedmap.read` does (repaired, relative URLs resolved, the
children's entries as ``convert`` writes them).  Teaching each validation walker to also build entries would be a
second reader; the cost is each file read twice (fetched twice when it is on the web: ``--cache`` makes the
second a conditional request).  ``validate=False`` makes one pass (no findings, no sizes).

The page is rendered once both are done (its size is bounded: every table is capped) and written atomically
(:func:`feedmap._io.sinks.open_sink`: a temporary file renamed), never to a terminal.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import io
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from feedmap._core.call_fields import refuse_unused
from feedmap._core.context import Options, reporter_for
from feedmap._core.dates import W3CDate
from feedmap._core.errors import (
    Diagnostic,
    DiagnosticHandler,
    Level,
    LimitError,
    ReadError,
    Reporter,
    UnknownFormatError,
    WriteError,
)
from feedmap._core.version import __version__
from feedmap._io.scratch import scratch_file
from feedmap._io.sinks import SinkLike, open_sink
from feedmap._io.sources import SourceLike, source_name
from feedmap._report import charts
from feedmap._report.findings import FindingsByCode
from feedmap._report.page import PageData, render
from feedmap._report.tally import KEPT_FILES, Tally
from feedmap._validate.report import FileFacts, Validation

__all__ = ["ReportSummary", "report"]

#: What ``now`` may be given as: an instant (a naive one is UTC), a day, a W3C date or its text.
NowLike = dt.datetime | dt.date | W3CDate | str


@dataclass
class ReportSummary:
    """What :func:`report` found and wrote: the counts the page shows first, and whether validation passed."""

    #: The entries read (URLs, or an index's children with ``follow=False``), and those not repeating one before.
    urls: int
    distinct: int
    #: The files validation read (an index and its children), and their bytes, decompressed.
    files: int
    bytes: int
    #: The validation findings by level, and by code.
    errors: int
    warnings: int
    notes: int
    codes: dict[str, int] = field(default_factory=dict)
    #: The reading diagnostics (as :func:`feedmap.read` reports them).
    reporter: Reporter = field(default_factory=Reporter, repr=False)
    #: Whether the page has charts (matplotlib installed: ``pip install 'feedmap[report]'``).
    charts: bool = False
    #: The instant the ages ("changed in the last 7 days") were counted against.
    now: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.timezone.utc))
    strict: bool = False

    @property
    def ok(self) -> bool:
        """No validation error (and, with ``strict``, no warning): what ``feedmap report`` exits 0 for."""
        return not self.errors and not (self.strict and self.warnings)


def report(
    sources: SourceLike | Sequence[SourceLike],
    output: SinkLike,
    options: Options | None = None,
    *,
    source_format: str | None = None,
    title: str | None = None,
    now: NowLike | None = None,
    validate: bool = True,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> ReportSummary:
    """Write one self-contained HTML page about ``sources`` (what :func:`feedmap.read` takes) to ``output``.

    The page (no script, nothing fetched: it works offline and can be mailed) has the totals; a table of the
    files read (an index's child sitemaps: URLs, images, size, lastmod range, problems); lastmod by month and
    the URLs changed in the last 7, 30 and 365 days before ``now``; URLs per host and per top path section;
    changefreq and priority; repeated URLs; the validation findings by code with their first examples and
    lines; hreflang coverage; images per URL.  Charts are drawn when matplotlib is installed (``pip install
    'feedmap[report]'``); without it the page has the same tables, and says so.

    Memory stays flat in the number of URLs (every table is capped, the repeated URLs are remembered as
    :func:`feedmap.converters.dedupe` remembers them, on disk past a quarter of a million).  ``output`` is a path
    (written to a temporary file renamed over it), ``"-"`` or None for standard output (refused when it is a
    terminal), or a binary file object.  ``options`` are those of reading (``follow``, ``follow_child``,
    ``maps``, ``jobs``, ``dask``, ``http``, ``base_url``, ``max_bytes``, ...); ``strict`` makes a validation
    warning count against :attr:`ReportSummary.ok` (reading never stops: the report is written).  ``now`` (an
    aware datetime, a naive one read as UTC, a date, a :class:`~feedmap.W3CDate` or its text; default: today,
    midnight UTC) is the instant the ages are counted against and lastmods in the future are found after: the
    same inputs and ``now`` give the same bytes.  ``validate=False`` leaves validation out (one pass: no
    findings, no file sizes).  ``title`` is the page's title (default: names the first input).

    Reading diagnostics go to ``reporter`` (or a new one calling ``on_diagnostic``), as :func:`feedmap.read`
    reports them; an input that is not a sitemap or feed, or whose index had no readable child, is reported
    there (an error) and in the page, and the page is still written.  Raises :class:`~feedmap.SourceError` when
    an input cannot be opened at all or the output cannot be written, :class:`~feedmap.WriteError` for a terminal.
    """
    inputs = _inputs(sources)
    options = options or Options()
    if not isinstance(options, Options):
        raise TypeError(f"options: give a feedmap.Options, not {options!r}")
    refuse_unused(options, "report")
    instant = _instant(now)
    reading_options = dataclasses.replace(options, strict=False)
    reading = FindingsByCode()
    caller = reporter_for(reading_options, reporter, on_diagnostic)

    def both(diagnostic: Diagnostic) -> None:
        reading(diagnostic)
        caller.report(diagnostic)

    tee = Reporter(handler=both, keep=0)
    tally = Tally(now=instant)
    findings = FindingsByCode()
    files = _Files()
    validation = Validation(options, findings)  # the hreflang return links span the inputs
    try:
        for source in inputs:
            with _twice(source, options.max_bytes if validate else None) as again:
                _count(again(), source_format, reading_options, tally, tee)
                if validate:
                    validation.input(again(), source_format, now=instant, on_file=files.add)
        if validate:
            validation.finish()
        names = [source_name(source) for source in inputs]
        data = PageData(
            title=title if title is not None else _title(names),
            inputs=names,
            now=instant,
            tally=tally,
            findings=findings,
            reading=reading,
            files=files.kept,
            other_files=(files.others, files.other_bytes),
            validated=validate,
            version=__version__,
        )
        page = render(data).encode("utf-8")
    finally:
        validation.close()
        tally.close()
    _write(page, output)
    return ReportSummary(
        urls=tally.urls,
        distinct=tally.distinct,
        files=len(files.kept) + files.others,
        bytes=files.total,
        errors=findings.count(Level.ERROR),
        warnings=findings.count(Level.WARNING),
        notes=findings.count(Level.INFO),
        codes={code: found.count for code, found in findings.codes.items()},
        reporter=caller,
        charts=charts.available(),
        now=instant,
        strict=options.strict,
    )


def _inputs(sources: SourceLike | Sequence[SourceLike]) -> list[SourceLike]:
    single = isinstance(sources, (str, Path)) or hasattr(sources, "read")
    inputs: list[SourceLike] = [sources] if single else list(sources)  # type: ignore[list-item, arg-type]
    if not inputs:
        raise ValueError("nothing to report on: give at least one input")
    return inputs


def _instant(now: NowLike | None) -> dt.datetime:
    """``now`` as an aware datetime (see :func:`report`); ValueError for what is none."""
    if now is None:
        today = dt.datetime.now(dt.timezone.utc).date()
        return dt.datetime(today.year, today.month, today.day, tzinfo=dt.timezone.utc)
    if isinstance(now, str):
        try:
            now = W3CDate.parse(now)
        except ValueError as exc:
            raise ValueError(f"now: {exc}") from None
    if isinstance(now, W3CDate):
        now = now.to_datetime()
    if isinstance(now, dt.datetime):
        return now if now.tzinfo is not None else now.replace(tzinfo=dt.timezone.utc)
    if isinstance(now, dt.date):
        return dt.datetime(now.year, now.month, now.day, tzinfo=dt.timezone.utc)
    raise ValueError(f"now: give a datetime, a date, a W3CDate or its text, not {now!r}")


@contextlib.contextmanager
def _twice(source: SourceLike, max_bytes: int | None) -> Iterator[Callable[[], SourceLike]]:
    """What gives ``source`` for each pass: itself, unless it is a stream read once (standard input, a file object)
    and ``max_bytes`` says it is read twice: then a copy of it in a scratch file (at most ``max_bytes``, the
    cap of reading), each pass reading the copy from its start under the stream's name."""
    stream = sys.stdin.buffer if isinstance(source, str) and source == "-" else source
    if max_bytes is None or not hasattr(stream, "read"):
        yield lambda: source
        return
    name = source_name(source)
    with scratch_file("feedmap-report-", "copy of an input read twice") as copy:
        copied = 0
        while chunk := stream.read(1 << 16):
            copied += len(chunk)
            if copied > max_bytes:
                raise LimitError(f"input is larger than {max_bytes:,} bytes", source=name, code="too-large")
            copy.write(chunk)
        copy.flush()
        opened: list[io.FileIO] = []

        def again() -> SourceLike:
            reader = io.FileIO(copy.name, "r")
            reader.name = name
            opened.append(reader)
            return reader

        try:
            yield again
        finally:
            for reader in opened:
                reader.close()


def _title(names: Sequence[str]) -> str:
    more = f" and {len(names) - 1:,} more" if len(names) > 1 else ""
    return f"Sitemap report: {names[0]}{more}"


def _count(source: SourceLike, source_format: str | None, options: Options, tally: Tally, tee: Reporter) -> None:
    """Read one input, counting its entries; an input that cannot be used is reported (an error) instead."""
    from feedmap._api import read  # the reading machinery, loaded when a report runs

    name = source_name(source)
    try:
        with read(source, source_format, options, reporter=tee) as doc:
            for entry in doc.entries:
                tally.add(entry, name)
    except (ReadError, UnknownFormatError) as exc:
        where = getattr(exc, "source", "") or name
        message = exc.bare_message if isinstance(exc, ReadError) else exc.what
        tee.report(Diagnostic(Level.ERROR, exc.code, message, where, exc.line))


@dataclass
class _Files:
    """The files validation read: the first :data:`~feedmap._report.tally.KEPT_FILES` by name, the rest counted."""

    kept: dict[str, tuple[str, int]] = field(default_factory=dict)
    others: int = 0
    other_bytes: int = 0
    total: int = 0

    def add(self, facts: FileFacts) -> None:
        self.total += facts.bytes
        if facts.name in self.kept:  # read again (a child named by two indexes is validated once: not here)
            kind, size = self.kept[facts.name]
            self.kept[facts.name] = (kind or facts.kind, max(size, facts.bytes))
        elif len(self.kept) < KEPT_FILES:
            self.kept[facts.name] = (facts.kind, facts.bytes)
        else:
            self.others += 1
            self.other_bytes += facts.bytes


def _write(page: bytes, output: SinkLike) -> None:
    with open_sink(output) as out:
        if out.isatty():
            raise WriteError("an HTML report is not written to a terminal: give -o report.html (or pipe it)")
        out.write(page)
