"""``feedmap.validate``: every protocol rule an input breaks, with its line, as one :class:`Report`.

The sitemaps.org protocol 0.9 (https://www.sitemaps.org/protocol.html) and its XSDs for XML sitemaps, indexes
and text sitemaps (:mod:`feedmap._validate_sitemap`, :mod:`feedmap._validate_text`; the rule table is
:data:`feedmap._validate_rules.RULES`); RSS 2.0 and ROR (https://www.rssboard.org/rss-specification,
http://rorweb.com/0.1/) by the feed rules module, looked up by name only for a feed, so that this module
works without it.  Unlike :func:`feedmap.read`, nothing is repaired and reading never stops at the first
problem: each finding is a :class:`~feedmap._errors.Diagnostic` (level, code, message, file, line, column).
An index's children are validated too (unless ``options.follow`` is False), each under its own name.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from feedmap import _registry as registry
from feedmap._context import Context, Options, Shared
from feedmap._detection import sniff
from feedmap._errors import (
    Diagnostic,
    DiagnosticHandler,
    Level,
    ReadError,
    Reporter,
    SourceError,
    UnknownFormatError,
)
from feedmap._http import shared_fetcher
from feedmap._sources import Source, SourceLike, is_url, open_source
from feedmap._validate_feed import FEED_RULES, validate_feed
from feedmap._validate_rules import RULES, Findings
from feedmap._validate_sitemap import validate_sitemap
from feedmap._validate_text import validate_text

__all__ = ["Report", "all_rules", "validate"]

_XML_SITEMAP = frozenset({"sitemap", "sitemapindex"})
_FEEDS = frozenset({"rss", "ror"})


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


#: Longest message kept whole: two locs of the protocol's 2,048 characters fit (a loc and its escaped form); a
#: longer one comes from a hostile value (a 10 MB text node) and is cut, so that findings stay the size of lines.
MAX_MESSAGE = 5000


def _cut(message: str) -> str:
    return f"{message[:MAX_MESSAGE]}... (cut: {len(message):,} characters)"


def all_rules() -> dict[str, tuple[Level, str]]:
    """Every rule's code -> (level, one-line explanation): the sitemap rules and the feed rules."""
    return {**RULES, **FEED_RULES}


class _Run:
    """One call of :func:`validate`: the report, where findings go, the options, the run's shared fetcher."""

    def __init__(self, report: Report, options: Options, emit: Callable[[Diagnostic], None]) -> None:
        self.report = report
        self.options = options
        self.emit = emit
        self.shared = Shared()
        self.visited: set[str] = set()
        self.now = dt.datetime.now(dt.timezone.utc)

    def file(self, source: SourceLike, format: str | None, depth: int, name: str | None = None) -> str:
        """Validate one input; returns the kind found (``urlset``, ``sitemapindex``, a format name)."""
        remote = isinstance(source, str) and is_url(source) and not source.startswith("file:")
        with open_source(
            source,
            reporter=Reporter(handler=self.emit),
            max_bytes=self.options.max_bytes,
            name=name,
            fetcher=shared_fetcher(self.shared, self.options.http) if remote else None,
            maps=self.options.maps,
        ) as opened:
            self.report.files += 1
            find = Findings(self.emit, opened.name)
            try:
                return self._checked(opened, format, find, depth)
            except UnknownFormatError as exc:
                find("unknown-format", exc.what, exc.line)
            except ReadError as exc:  # a size cap (--max-bytes) hit while reading
                find("unreadable", exc.bare_message, exc.line)
        return ""

    def _checked(self, opened: Source, format: str | None, find: Findings, depth: int) -> str:
        kind = _format_of(opened, format)
        base = opened.url or self.options.base_url
        if kind in _XML_SITEMAP:
            result = validate_sitemap(opened.stream, find, base_url=base, now=self.now)  # type: ignore[arg-type]
            self.report.entries += result.entries
            if result.kind == "sitemapindex" and self.options.follow:
                self._follow(result.children, find, depth)
            return result.kind
        if kind == "text":
            self.report.entries += validate_text(opened.stream, find)
            return kind
        if kind in _FEEDS:
            self.report.entries += validate_feed(opened.stream, opened.name, self.emit, base_url=base)  # type: ignore[arg-type]
            return kind
        find("no-rules", f"validate has no rules for {kind}; the input was only read")
        self._read_only(opened, kind)
        return kind

    def _read_only(self, opened: Source, kind: str) -> None:
        spec = registry.get(kind)
        assert spec.reader is not None
        ctx = Context(reporter=Reporter(handler=self.emit), options=self.options, name=opened.name)
        doc = spec.reader(opened, ctx=ctx)
        self.report.entries += sum(1 for _ in doc.entries)

    def _follow(self, children: list[tuple[str, int]], find: Findings, depth: int) -> None:
        """Validate each child of an index, once; a nested index is said at its line in the parent."""
        for loc, line in children:
            if loc in self.visited or not is_url(loc):
                continue
            self.visited.add(loc)
            if depth + 1 > self.options.max_depth:
                find("nested-index", f"{loc} is not followed: indexes nested more than {depth + 1} deep", line)
                continue
            try:
                kind = self.file(loc, None, depth + 1, name=loc)
            except SourceError as exc:
                find("child-unreadable", f"{loc}: {exc}", line)
                continue
            if kind == "sitemapindex":
                find("nested-index", f"{loc} is a sitemap index inside an index", line)


def _format_of(opened: Source, format: str | None) -> str:
    """The format to validate by: named, else the root element for XML, else what reading would recognise."""
    if format is not None:
        return registry.get(format).name
    sniffed = sniff(opened.stream)
    if sniffed.kind == "xml" and (sniffed.root is None or sniffed.root.local in _XML_SITEMAP):
        return "sitemap"  # malformed XML too: its line and column are reported
    return registry.detect(opened).name


def validate(
    source: SourceLike,
    format: str | None = None,
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Report:
    """Check ``source`` against every rule of its format; an index's children too.

    ``format`` names the input's format (default: recognised from content).  Findings are collected in the
    returned :class:`Report`, or, when ``on_diagnostic`` or ``reporter`` is given, passed there as they come
    and only counted in the report (a strict reporter raises at the first warning; ``options.strict`` only
    makes warnings count against ``ok``).
    Raises :class:`~feedmap.SourceError` when the input cannot be opened at all.
    """
    options = options or Options()
    report = Report(strict=options.strict)

    keep = reporter is None and on_diagnostic is None

    def emit(finding: Diagnostic) -> None:
        if len(finding.message) > MAX_MESSAGE:
            finding = dataclasses.replace(finding, message=_cut(finding.message))
        report.add(finding, keep=keep)
        if reporter is not None:
            reporter.report(finding)
        elif on_diagnostic is not None:
            on_diagnostic(finding)

    run = _Run(report, options, emit)
    with contextlib.closing(run.shared):
        if isinstance(source, str):
            run.visited.add(source)
        run.file(source, format, 0)
    return report
