"""``feedmap.validate``: every protocol rule an input breaks, with its line, as one :class:`Report`.

The sitemaps.org protocol 0.9 (https://www.sitemaps.org/protocol.html) and its XSDs for XML sitemaps, indexes
and text sitemaps (:mod:`feedmap._validate.sitemap`, :mod:`feedmap._validate.text`; the rule table is
:data:`feedmap._core.rules.RULES`); RSS 2.0 and ROR (https://www.rssboard.org/rss-specification,
http://rorweb.com/0.1/) by the feed rules module, looked up by name only for a feed, so that this module
works without it.  Unlike :func:`feedmap.read`, nothing is repaired and reading never stops at the first
problem: each finding is a :class:`~feedmap._core.errors.Diagnostic` (level, code, message, file, line, column).
An index's children are validated too (unless ``options.follow`` is False), each under its own name, by the
rules of index following (:mod:`feedmap._core.follow_rules`, sitemaps.org "Sitemap file location"): never one off
the index's site, see :class:`_Run`.  Google's rules for hreflang alternates
(https://developers.google.com/search/docs/specialty/international/localized-versions) are checked per page as
each sitemap is (:mod:`feedmap._validate.hreflang`), and the return links across every file of the run once all
are read (:mod:`feedmap._validate.return_links`: several inputs are one run with :class:`Validation`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from feedmap._core.call_fields import refuse_unused
from feedmap._core.context import Context, Options
from feedmap._core.errors import (
    Diagnostic,
    DiagnosticHandler,
    FeedmapError,
    FetchError,
    Level,
    LimitError,
    ReadError,
    Reporter,
    SourceError,
    StrictError,
    UnknownFormatError,
    reason_of,
)
from feedmap._core.follow_rules import loop_key, nesting_refusal, same_site_rule
from feedmap._core.options import asks_for_workers
from feedmap._core.rules import RULES, Rule, renamed_hint
from feedmap._core.urls import is_http_url, same_site
from feedmap._io.http import Shared
from feedmap._io.locate import MapEscapeError, is_mapped, local_path
from feedmap._io.sources import Source, SourceLike, is_url, open_source
from feedmap._validate.partitions import PAGES, ChildCheck, check_child
from feedmap._validate.return_links import Pages, ReturnLinks
from feedmap._validate.rules import Findings
from feedmap._validate.sitemap import validate_sitemap
from feedmap._validate.text import validate_text
from feedmap._web.discover import open_url, robots_sitemaps, site_root
from feedmap._web.partitions import WorkerDied, Workers, outcome, replay, worker_options, workers_for
from feedmap.converters._duplicates import url_key
from feedmap.formats import _registry as registry
from feedmap.formats._detection import sniff
from feedmap.formats.feeds._channel_checks import validate_feed

__all__ = ["FileFacts", "Report", "Validation", "all_rules", "validate"]

_XML_SITEMAP = frozenset({"sitemap", "sitemapindex"})
_FEEDS = frozenset({"rss", "ror", "atom"})


@dataclass
class Report:
    """What :func:`validate` found: its findings, the files checked (an index's children too), their entries.

    ``findings`` holds every finding when :func:`validate` was given no ``on_diagnostic`` or ``reporter``;
    with one, the findings go there as they come and are not kept (so that memory does not grow with them:
    a million bad URLs are a million findings), and only the counts are.
    """

    findings: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    entries: int = 0
    #: With strict, a warning makes the report not ``ok`` either.
    strict: bool = False
    #: Findings by level, kept or not.
    counts: Counter[Level] = field(default_factory=Counter)

    def add(self, finding: Diagnostic, *, keep: bool = True) -> None:
        self.counts[finding.level] += 1
        if keep:
            self.findings.append(finding)

    def count(self, level: Level) -> int:
        return self.counts[level]

    @property
    def errors(self) -> int:
        return self.count(Level.ERROR)

    @property
    def warnings(self) -> int:
        return self.count(Level.WARNING)

    @property
    def infos(self) -> int:
        return self.count(Level.INFO)

    @property
    def ok(self) -> bool:
        """No error (and, when strict, no warning)."""
        return not self.errors and not (self.strict and self.warnings)


@dataclass(frozen=True, slots=True)
class FileFacts:
    """One file :meth:`Validation.input` validated: its name (as findings name it), its kind (``urlset``,
    ``sitemapindex``, ``text``, ``rss``, ...; empty when not recognised), its entries and the bytes read from it
    (decompressed: its size, when it was read to the end)."""

    name: str
    kind: str
    entries: int
    bytes: int


#: Longest message kept whole: two locs of the protocol's 2,048 characters fit (a loc and its escaped form); a
#: longer one comes from a hostile value (a 10 MB text node) and is cut, so that findings stay the size of lines.
MAX_MESSAGE = 5000


def _cut(message: str) -> str:
    return f"{message[:MAX_MESSAGE]}... (cut: {len(message):,} characters)"


def all_rules() -> Mapping[str, Rule]:
    """Every code -> its :class:`~feedmap._core.rules.Rule` (the one table reading and validate share)."""
    return RULES


@dataclass
class _Index:
    """An index whose children are being validated: the children left, where its findings go, its URL."""

    children: Iterator[tuple[str, int]]
    find: Findings
    #: Where the index was found (after redirects), else the ``--base-url`` given: the scope of its children.
    url: str | None
    #: What identifies it for loop detection (:func:`~feedmap._core.follow_rules.loop_key`, or its resolved path).
    key: str
    #: The URLs of the indexes that led to it, itself last (a robots.txt naming one lifts the directory rule).
    lineage: tuple[str, ...]
    #: With ``jobs``: the next children, each with its validation by a worker when it is on disk.
    ahead: deque[tuple[str, int, Future[str] | None]] = field(default_factory=deque)


class _Run:
    """One call of :func:`validate`: the report, where findings go, the options, the run's shared fetcher.

    An index's children are validated by the rules of index following that ``convert``, ``info`` and
    ``discover --tree`` keep (:mod:`feedmap._core.follow_rules`): a child off the index's site is never read
    (a ``file:`` child of a remote index included), each redirect hop of a child is checked before it is
    requested, loops and nesting deeper than ``max_depth`` are not followed; each child is validated
    once.  The walk keeps an explicit stack of indexes, so a deep chain costs no Python stack.
    """

    def __init__(self, report: Report, options: Options, emit: Callable[[Diagnostic], None]) -> None:
        self.report = report
        self.options = options
        self.emit = emit
        self.shared = Shared()
        self.visited: set[str] = set()
        self.now = dt.datetime.now(dt.timezone.utc)
        self.robots: dict[str, frozenset[str]] = {}
        #: With ``jobs``: the workers validating children on disk ahead (:mod:`feedmap._validate.partitions`).
        self.workers: Workers | None = None
        #: Told of each file validated, when it was (:meth:`Validation.input`).
        self.on_file: Callable[[FileFacts], None] | None = None
        #: Given each page and its hreflang alternates, for the return links across files
        #: (:mod:`feedmap._validate.return_links`); the key URLs compare by (as repeated URLs are found).
        self.pages: Pages | None = None
        self.key = url_key(options)

    def walk(self, source: SourceLike, format: str | None) -> None:
        """Validate ``source`` and, when it is an index (and ``follow``), its children depth first."""
        root = self.root(source, format)
        stack = [root] if root is not None else []
        try:
            while stack:
                top = stack[-1]
                ancestors = tuple(index.key for index in stack)
                child = self._next(top, ancestors)
                if child is None:
                    stack.pop()
                    continue
                url, line, validated = child
                nested = self.child(url, line, top, ancestors, validated)
                if nested is not None:
                    stack.append(nested)
        finally:
            if self.workers is not None:
                self.workers.close()

    def _next(self, index: _Index, ancestors: tuple[str, ...]) -> tuple[str, int, Future[str] | None] | None:
        """The next child of ``index`` (with ``jobs``, the children on disk after it handed to the workers)."""
        workers = self.workers
        if workers is None:
            found = next(index.children, None)
            return None if found is None else (*found, None)
        while len(index.ahead) <= 2 * workers.count and (found := next(index.children, None)) is not None:
            index.ahead.append((*found, self._ahead(found[0], index, ancestors, workers)))
        return index.ahead.popleft() if index.ahead else None

    def _ahead(self, url: str, index: _Index, ancestors: tuple[str, ...], workers: Workers) -> Future[str] | None:
        """A child on disk, which the walk will validate as it stands now, handed to a worker; else None."""
        try:
            path = local_path(url, self.options.maps)
        except SourceError:
            return None
        if path is None or not path.is_file():
            return None
        key = str(path.resolve())
        if key in self.visited or nesting_refusal(key, ancestors, self.options.max_depth) is not None:
            return None
        options = dataclasses.replace(worker_options(self.options), strict=self.options.strict)
        return workers.submit(check_child, ChildCheck(url, index.url, key, index.lineage, options, self.now))

    def _replayed(self, validated: Future[str], url: str) -> bool:
        """A child's validation by a worker replayed here; False when it is an index (the walk validates it)."""
        values = _Values(self.pages)
        replayed = replay(outcome(validated, url), self.emit, values)
        try:
            while True:
                next(replayed)
        except StopIteration as stop:
            nested = bool(stop.value)
        finally:
            for files, entries, facts in values.counts:
                self.report.files += files
                self.report.entries += entries
                if self.on_file is not None:
                    for fact in facts:
                        self.on_file(fact)
        return not nested

    def root(self, source: SourceLike, format: str | None) -> _Index | None:
        try:
            return self._root(source, format)
        except LimitError as exc:  # a Content-Length over --max-bytes: the input cannot be read at all
            raise SourceError(str(exc)) from None

    def _root(self, source: SourceLike, format: str | None) -> _Index | None:
        remote = isinstance(source, str) and is_url(source) and not source.startswith("file:")
        with open_source(
            source,
            reporter=Reporter(handler=self.emit),
            max_bytes=self.options.max_bytes,
            fetcher=self.shared.fetcher(self.options.http) if remote else None,
            maps=self.options.maps,
        ) as opened:
            key = str(opened.path.resolve()) if opened.path is not None else loop_key(opened.url or opened.name)
            self.visited.add(key)
            return self.file(opened, format, key, (), self.options.base_url)

    def child(
        self, url: str, line: int, index: _Index, ancestors: tuple[str, ...], validated: Future[str] | None = None
    ) -> _Index | None:
        """Validate one child of ``index`` (named at ``line`` of it; ``validated``: by a worker, see
        :meth:`_next`); a nested index is returned, to be walked."""
        find = index.find
        try:
            path = local_path(url, self.options.maps)
        except MapEscapeError as exc:
            find("map-escape", str(exc), line)
            return None
        except SourceError as exc:  # a NUL in the path, not a regular file (a FIFO would block)
            find("child-unreadable", f"child sitemap {url} could not be read: {reason_of(exc, url)}", line)
            return None
        key = str(path.resolve()) if path is not None else loop_key(url)
        refused = nesting_refusal(key, ancestors, self.options.max_depth)
        if refused is not None:
            find(refused[0], f"child sitemap {url} {refused[1]}", line)
            return None
        if key in self.visited:
            return None  # validated already, as the child of another index
        self.visited.add(key)
        try:
            if validated is not None and self._replayed(validated, url):
                return None
            with open_url(
                url,
                self.options,
                self.shared,
                Reporter(handler=self.emit),
                self.options.max_bytes,
                same_site_rule(index.url),
            ) as opened:
                nested = self.file(opened, None, key, index.lineage)
        except FetchError as exc:
            if exc.code == "redirect-refused":
                find("child-off-site", f"child sitemap {url} {reason_of(exc, url)}; not read", line)
            else:
                find("child-unreadable", f"child sitemap {url} could not be read: {reason_of(exc, url)}", line)
            return None
        except (StrictError, WorkerDied):
            raise
        except FeedmapError as exc:  # SourceError, a size cap (Content-Length over --max-bytes)
            find("child-unreadable", f"child sitemap {url} could not be read: {reason_of(exc, url)}", line)
            return None
        if nested is not None:
            find("nested-index", f"child sitemap {url} is a sitemap index inside an index", line)
        return nested

    def file(
        self, opened: Source, format: str | None, key: str, lineage: tuple[str, ...], given: str | None = None
    ) -> _Index | None:
        """Validate one opened input; an index to follow is returned with its children.

        Its URL (the scope of its URLs and children) is where it was fetched from, or mapped to by
        ``--map``; else ``given`` (``--base-url``, for the input named on the command line only).
        """
        self.report.files += 1
        entries = self.report.entries
        find = Findings(self.emit, opened.name)
        fetched = opened.url if opened.url is not None and is_http_url(opened.url) else None
        base = fetched or given
        lineage = (*lineage, base) if base is not None else lineage
        kind, children = "", None
        try:
            # no network for a local input, nor for one read through --map unless its robots.txt is mapped too
            lifted = self._lifted(lineage, mapped=opened.path is not None) if fetched is not None else None
            kind, children = self._checked(opened, format, find, base, lifted)
        except UnknownFormatError as exc:
            find("unknown-format", exc.what, exc.line)
        except ReadError as exc:  # a size cap (--max-bytes) hit while reading
            find("unreadable", exc.bare_message, exc.line)
        if self.on_file is not None:
            self.on_file(FileFacts(opened.name, kind, self.report.entries - entries, opened.bytes_read or 0))
        if children is not None and self.options.follow:
            return _Index(iter(children), find, base, key, lineage)
        return None

    def _checked(
        self, opened: Source, format: str | None, find: Findings, base: str | None, lifted: Callable[[], bool] | None
    ) -> tuple[str, list[tuple[str, int]] | None]:
        """Check one input by the rules of its format: its kind (the format's name, or the root element's for a
        sitemap), and an index's children (to follow) or None."""
        kind = _format_of(opened, format, Reporter(handler=self.emit))
        if kind in _XML_SITEMAP:
            follow_child = self.options.follow_child if self.options.follow else None
            result = validate_sitemap(
                opened.stream,  # type: ignore[arg-type]
                find,
                base_url=base,
                now=self.now,
                lifted=lifted,
                follow_child=follow_child,
                pages=self.pages,
                key=self.key,
            )
            self.report.entries += result.entries
            return result.kind or kind, result.children if result.kind == "sitemapindex" else None
        if kind == "text":
            self.report.entries += validate_text(opened.stream, find, base_url=base, lifted=lifted, pages=self.pages)
            return kind, None
        if kind in _FEEDS:
            self.report.entries += validate_feed(opened.stream, opened.name, self.emit, base_url=base)  # type: ignore[arg-type]
            return kind, None
        find("no-rules", f"validate has no rules for {kind}; the input was only read")
        self._read_only(opened, kind)
        return kind, None

    def _lifted(self, lineage: tuple[str, ...], *, mapped: bool) -> Callable[[], bool]:
        """Whether the robots.txt of the sitemap's site names it or an index above it (read once per site,
        only when asked: when URLs of the site are outside the sitemap's directory)."""

        def lifted() -> bool:
            url = lineage[-1]
            site = site_root(url)
            if mapped and not is_mapped(site + "robots.txt", self.options.maps):
                return False
            if site not in self.robots:
                named = robots_sitemaps(site, self.options, self.shared)
                self.robots[site] = frozenset(loop_key(sitemap) for sitemap in named)
            return any(loop_key(above) in self.robots[site] for above in lineage if same_site(above, url))

        return lifted

    def _read_only(self, opened: Source, kind: str) -> None:
        spec = registry.get(kind)
        assert spec.reader is not None
        ctx = Context(reporter=Reporter(handler=self.emit), options=self.options, name=opened.name)
        doc = spec.reader(opened, ctx=ctx)
        self.report.entries += sum(1 for _ in doc.entries)


class _Values:
    """What a worker's spill holds beside its findings: its pages, given to the run's return links, and its
    counts (files, entries, the facts of each file)."""

    def __init__(self, pages: Pages | None) -> None:
        self.pages = pages
        self.counts: list[tuple[int, int, tuple[FileFacts, ...]]] = []

    def append(self, value: Any) -> None:
        if isinstance(value, tuple) and len(value) == 2 and value[0] == PAGES:
            if isinstance(self.pages, ReturnLinks):
                self.pages.take(value[1])
        else:
            self.counts.append(value)


def _format_of(opened: Source, format: str | None, reporter: Reporter) -> str:
    """The format to validate by: named, else the root element for XML, else what reading would recognise."""
    if format is not None:
        return registry.get(format).name
    sniffed = sniff(opened.stream)
    if sniffed.kind == "xml" and (sniffed.root is None or sniffed.root.local in _XML_SITEMAP):
        return "sitemap"  # malformed XML too: its line and column are reported
    return registry.detect(opened, reporter).name


def validate(
    source: SourceLike | Sequence[SourceLike],
    format: str | None = None,
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
    ignore: Collection[str] = (),
) -> Report:
    """Check ``source`` against every rule of its format; an index's children too.

    ``source`` is one input or a sequence of them, validated in turn as one run: the hreflang return links are
    checked across every file read (an index's children, the inputs), once all are read.
    ``format`` names the inputs' format (default: recognised from content).  Findings are collected in the
    returned :class:`Report`, or, when ``on_diagnostic`` or ``reporter`` is given, passed there as they come
    and only counted in the report (a strict reporter raises at the first warning; ``options.strict`` only
    makes warnings count against ``ok``).
    The findings of the codes in ``ignore`` are left out: neither passed on nor counted (ValueError for a
    code that is no rule's, see :func:`all_rules`).
    Raises :class:`~feedmap.SourceError` when an input cannot be opened at all.
    """
    unknown = sorted(set(ignore) - set(all_rules()))
    if unknown:
        raise ValueError(f"no such code: {', '.join(unknown)}{''.join(renamed_hint(code) for code in unknown)}")
    inputs = _inputs(source)
    options = options or Options()
    refuse_unused(options, "validate")
    report = Report(strict=options.strict)
    emit = _emitter(report, frozenset(ignore), reporter, on_diagnostic)
    links = ReturnLinks(url_key(options))
    try:
        for one in inputs:
            _validated(one, format, options, report, emit, links=links)
        links.finish(emit)
    finally:
        links.close()
    return report


def _inputs(sources: SourceLike | Sequence[SourceLike]) -> list[SourceLike]:
    single = isinstance(sources, (str, Path)) or hasattr(sources, "read") or hasattr(sources, "__fspath__")
    inputs: list[SourceLike] = [sources] if single else list(sources)  # type: ignore[list-item, arg-type]
    if not inputs:
        raise ValueError("nothing to validate: give at least one input")
    return inputs


class Validation:
    """Inputs validated one after another as one run (``feedmap validate A B``): each input's findings and counts
    in its own :class:`Report` (:meth:`input` raises :class:`~feedmap.SourceError` for an input that cannot be
    opened, and the next can be given), the return links across them all checked by :meth:`finish`.
    :meth:`close` always."""

    def __init__(
        self,
        options: Options,
        on_diagnostic: DiagnosticHandler,
        ignore: Collection[str] = (),
        links: ReturnLinks | None = None,
    ) -> None:
        refuse_unused(options, "validate")
        self.options = options
        self.on_diagnostic = on_diagnostic
        self.ignored = frozenset(ignore)
        self.links = links if links is not None else ReturnLinks(url_key(options))

    def input(
        self,
        source: SourceLike,
        format: str | None = None,
        *,
        now: dt.datetime | None = None,
        on_file: Callable[[FileFacts], None] | None = None,
    ) -> Report:
        """Validate one input: its findings to ``on_diagnostic`` (not kept), each file validated to ``on_file`` (an
        index's children too, also those validated by workers) once it was; a lastmod is in the future after
        ``now`` (default: when the input's validation starts)."""
        report = Report(strict=self.options.strict)
        emit = _emitter(report, self.ignored, None, self.on_diagnostic)
        return _validated(source, format, self.options, report, emit, now, on_file, self.links)

    def finish(self) -> Report:
        """The findings that span the inputs (the return links), counted in a report of their own."""
        report = Report(strict=self.options.strict)
        self.links.finish(_emitter(report, self.ignored, None, self.on_diagnostic))
        return report

    def close(self) -> None:
        self.links.close()


def _emitter(
    report: Report, ignored: frozenset[str], reporter: Reporter | None, on_diagnostic: DiagnosticHandler | None
) -> Callable[[Diagnostic], None]:
    """Where a run's findings go: counted in ``report`` (kept there when nobody else is given them), those of the
    ``ignored`` codes left out, a message too long cut."""
    keep = reporter is None and on_diagnostic is None

    def emit(finding: Diagnostic) -> None:
        if finding.code in ignored:
            return
        if len(finding.message) > MAX_MESSAGE:
            finding = dataclasses.replace(finding, message=_cut(finding.message))
        report.add(finding, keep=keep)
        if reporter is not None:
            reporter.report(finding)
        elif on_diagnostic is not None:
            on_diagnostic(finding)

    return emit


def _validated(
    source: SourceLike,
    format: str | None,
    options: Options,
    report: Report,
    emit: Callable[[Diagnostic], None],
    now: dt.datetime | None = None,
    on_file: Callable[[FileFacts], None] | None = None,
    links: ReturnLinks | None = None,
) -> Report:
    run = _Run(report, options, emit)
    if now is not None:
        run.now = now
    run.on_file = on_file
    run.pages = links
    if asks_for_workers(options) and options.follow:
        run.workers = workers_for(options)
    with contextlib.closing(run.shared):
        run.walk(source, format)
    return report
