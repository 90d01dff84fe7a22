"""The settings of a call and the context a reader or writer is given: :class:`Options` and :class:`Context`.

:class:`Options` (``feedmap.Options``) holds every setting of :func:`feedmap.read`, ``write``, ``convert`` and
``split``, checked when made.  :class:`Context` (``feedmap.formats.Context``, the format contract: a
``Reader`` or ``Writer`` of :mod:`feedmap.formats` takes ``ctx``) is what a reader, writer or converter step
is told besides its input: the options, where diagnostics go (:func:`reporter_for`), the input's name, path
and URL, and the indexes being followed around it.  The fields a format does not need it ignores, so a new
option never changes the format contract.  A run's download threads and HTTP client are not here: the run
passes them (``feedmap._io.http.Shared``) to what fetches, and a format never fetches.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from feedmap._core.dates import W3CDate
from feedmap._core.errors import DiagnosticHandler, Reporter
from feedmap._core.follow_rules import loop_key
from feedmap._core.http_settings import DEADLINE_FACTOR, DEFAULT_USER_AGENT, HttpSettings
from feedmap._core.limits import DEFAULT_MAX_BYTES, PROTOCOL_MAX_BYTES, PROTOCOL_MAX_URLS
from feedmap._core.option_values import MAX_SIZE, check_number

__all__ = [
    "DEADLINE_FACTOR",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_PAGE_MAX_BYTES",
    "DEFAULT_USER_AGENT",
    "MAX_CONCURRENCY",
    "NUMBER_FIELD",
    "Context",
    "FollowPredicate",
    "HttpSettings",
    "Options",
    "name_pattern_problem",
    "reporter_for",
]

DEFAULT_MAX_DEPTH = 5
DEFAULT_CONCURRENCY = 16
#: The most index children (or pages) fetched at once that may be asked for: one thread each.
MAX_CONCURRENCY = 1000
#: Largest page read by enrichment (a page's head is at its start; 5 MiB is far beyond real pages).
DEFAULT_PAGE_MAX_BYTES = 5 * 1024 * 1024
#: Longest line of a line-based input (JSON lines, text sitemap) read: far beyond any real entry or URL.
DEFAULT_MAX_LINE_BYTES = 1024 * 1024

#: Decides whether an index child is read: sees the child's loc and lastmod.
FollowPredicate = Callable[[str, "W3CDate | None"], bool]


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """Settings shared by reading and writing (the CLI flags of ``feedmap convert``)."""

    strict: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    #: Longest line of JSON lines or a text sitemap: a longer one is skipped (``line-too-long``).
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    follow: bool = True
    #: With ``follow``: which index children to read (``--since`` builds one); None reads them all.
    follow_child: FollowPredicate | None = None
    max_depth: int = DEFAULT_MAX_DEPTH
    #: Index children fetched at once (and pages at once with ``--enrich``).
    concurrency: int = DEFAULT_CONCURRENCY
    http: HttpSettings = field(default_factory=HttpSettings)
    #: ``(url_prefix, directory)`` pairs: URLs under the prefix are read from the directory.
    maps: tuple[tuple[str, Path], ...] = ()
    #: The URL a relative loc is resolved against when the document's own URL is not known (a local file);
    #: a fetched (or ``--map``-ped) document's URL comes first.
    base_url: str | None = None
    schema_location: bool = False
    #: Write IRIs as URIs in every output, text included (``--encode-urls``).  XML outputs do it anyway
    #: unless ``keep_urls``; JSON lines never do (they keep what was read).
    encode_urls: bool = False
    #: ``--keep-urls``: XML outputs write URLs as read, not encoded (characters a URI cannot hold are
    #: reported, never passed on silently).
    keep_urls: bool = False
    #: Feed channel metadata for the rss and ror writers (default: the input's, else derived from the URLs).
    channel_title: str | None = None
    channel_link: str | None = None
    channel_description: str | None = None
    #: The written feed's own URL, for ``atom:link rel="self"``.
    self_url: str | None = None
    #: ``--enrich``: fill each entry's title, description and keywords from its page.
    enrich: bool = False
    #: ``--overwrite``: with ``enrich``, replace the values an entry already has.
    overwrite: bool = False
    #: With ``enrich``: the largest page read (the smaller of this and ``max_bytes``).
    page_max_bytes: int = DEFAULT_PAGE_MAX_BYTES
    #: ``--since`` / ``--until``: keep entries whose lastmod is within these bounds, each inclusive over its
    #: whole period (a W3CDate, or its text); entries without a lastmod are kept unless ``require_lastmod``.
    #: ``since`` also leaves out the index children whose lastmod is before it (as ``follow_child`` does).
    since: W3CDate | None = None
    until: W3CDate | None = None
    #: ``--require-lastmod``: leave out entries without a lastmod.
    require_lastmod: bool = False
    #: ``--include`` / ``--exclude``: regular expressions searched (``re.search``) in each loc; an entry is kept
    #: when it matches one of ``include`` (if any) and none of ``exclude``.
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    #: ``--limit``: write only the first N entries (after the filters); None writes them all.
    limit: int | None = None
    #: ``--dedupe``: which entry of a repeated URL is kept, in every output: ``"first"``, ``"last"`` or
    #: ``"newest"`` (by lastmod, ties to the first); None: each output's default (JSON lines keeps every
    #: entry, the others keep the newest).
    dedupe: str | None = None
    #: ``--sort``: the entries ordered by ``"loc"`` (string order), ``"lastmod"`` (oldest first) or
    #: ``"-lastmod"`` (newest first), stably, entries without a lastmod last; after the filters and
    #: deduplication, before ``limit``.  None keeps the input order.
    sort: str | None = None
    #: Writing into a directory (:func:`feedmap.split`): the most entries in one file (None: the protocol's
    #: 50,000, also the highest allowed), the most bytes in one file, uncompressed (None: the protocol's
    #: 52,428,800, also the highest allowed), the files' names (a pattern holding ``{n}``, the file's number
    #: from 1, or ``{n:0Wd}``, the same zero-padded to W digits; a pattern ending in ``.gz`` writes gzip; None:
    #: the format's, ``sitemap-{n}.xml``, ``urls-{n}.txt``, ...), whether each file is written
    #: gzip-compressed (``.gz`` appended to its name), and the name of the sitemap index listing them.
    max_urls: int | None = None
    max_file_bytes: int | None = None
    name: str | None = None
    gzip: bool = False
    index_name: str = "sitemap_index.xml"

    def __post_init__(self) -> None:
        # ``maps`` may be given as any sequence of (prefix, str or Path) pairs: kept as a tuple of Paths
        object.__setattr__(self, "maps", tuple((prefix, Path(directory)) for prefix, directory in self.maps))
        if self.dedupe not in (None, "first", "last", "newest"):
            raise ValueError(f"dedupe is 'first', 'last' or 'newest', not {self.dedupe!r}")
        if self.sort not in (None, "loc", "lastmod", "-lastmod"):
            raise ValueError(f"sort is 'loc', 'lastmod' or '-lastmod', not {self.sort!r}")
        _check_values(self)
        _check_split_options(self)
        # dates may be given as text, patterns as one string or any sequence of strings
        for name in ("since", "until"):
            value = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, W3CDate.parse(value))
            elif value is not None and not isinstance(value, W3CDate):
                raise ValueError(f"{name}: give a W3CDate or its text, not {value!r}")
        for name in ("include", "exclude"):
            object.__setattr__(self, name, _patterns(name, getattr(self, name)))


def _patterns(name: str, value: object) -> tuple[str, ...]:
    """``include`` / ``exclude`` as a tuple of regular expressions (one string or any iterable of strings);
    ValueError naming the field for anything else (bytes would compile, and fail on the first URL searched)."""
    if isinstance(value, str):
        patterns: tuple[object, ...] = (value,)
    elif isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray)):
        patterns = tuple(value)
    else:
        patterns = (value,)
    texts = [pattern for pattern in patterns if isinstance(pattern, str)]
    if len(texts) != len(patterns):
        raise ValueError(f"{name}: give a regular expression or a sequence of them, not {value!r}")
    return tuple(texts)  # compiled where they are used (re.error for one that does not compile)


def _check_values(options: Options) -> None:
    """ValueError for a size, count or limit that is no whole number in its range (see
    :mod:`feedmap._core.option_values`), or ``http`` that is no :class:`HttpSettings`.  URLs are checked where they
    are used (:func:`feedmap.split` raises FormatError for a base URL that is no http(s) URL)."""
    for name in ("max_bytes", "max_line_bytes", "page_max_bytes"):
        check_number(name, getattr(options, name), minimum=1, maximum=MAX_SIZE, integer=True)
    check_number("max_depth", options.max_depth, minimum=0, integer=True)
    check_number("concurrency", options.concurrency, minimum=1, maximum=MAX_CONCURRENCY, integer=True)
    if options.limit is not None:
        check_number("limit", options.limit, minimum=0, integer=True)
    if not isinstance(options.http, HttpSettings):
        raise ValueError(f"http: give an HttpSettings, not {options.http!r}")


def _check_split_options(options: Options) -> None:
    """ValueError for a file limit outside what the protocol allows, or a file name that is not one."""
    if options.max_urls is not None:
        check_number("max_urls", options.max_urls, minimum=1, maximum=PROTOCOL_MAX_URLS, integer=True)
    if options.max_file_bytes is not None:
        check_number("max_file_bytes", options.max_file_bytes, minimum=1, maximum=PROTOCOL_MAX_BYTES, integer=True)
    if options.name is not None and not isinstance(options.name, str):
        raise ValueError(f"name: give a file name pattern, not {options.name!r}")
    problem = name_pattern_problem(options.name) if options.name is not None else None
    if problem is not None:
        raise ValueError(f"name: {problem}")
    index = options.index_name
    if not isinstance(index, str) or not index or index in (".", "..") or _not_a_base_name(index):
        raise ValueError(f"index_name is a file name, not {index!r}")


def _not_a_base_name(name: str) -> bool:
    """Whether ``name`` holds a path separator or NUL (which no file name holds: open(2) refuses it)."""
    return any(char in name for char in ("/", os.sep, os.altsep or "/", "\0"))


#: The file's number in a name pattern (``Options.name``): ``{n}``, or ``{n:0Wd}`` zero-padded to W digits.
NUMBER_FIELD = re.compile(r"\{n(?::0([1-9])d)?\}")


def name_pattern_problem(name: str) -> str | None:
    """What is wrong with a file name pattern, or None: a base name holding ``{n}`` or ``{n:0Wd}`` (W from 1
    to 9), the same field wherever it is repeated."""
    fields = set(re.findall(r"\{n(?::[^{}]*)?\}", name))
    what = "a file name holding {n} or {n:0Wd} (the file's number, zero-padded to W digits: {n:05d})"
    if not fields or _not_a_base_name(name):
        return f"{name!r}: give {what}, without '/'"
    if any(NUMBER_FIELD.fullmatch(field) is None for field in fields) or len(fields) > 1:
        return f"{name!r}: give {what}, the same field each time it is repeated"
    return None


def reporter_for(options: Options, reporter: Reporter | None, on_diagnostic: DiagnosticHandler | None) -> Reporter:
    """Where the diagnostics of one library call go: ``reporter``, else a new one calling ``on_diagnostic``
    with each (and stopping at the first warning under ``options.strict``)."""
    if reporter is not None:
        return reporter
    return Reporter(strict=options.strict, handler=on_diagnostic)


@dataclass(slots=True, kw_only=True)
class Context:
    """What a reader, writer or converter step is told besides its input (see the module's docstring)."""

    reporter: Reporter
    options: Options = field(default_factory=Options)
    #: Name of the input being read (for diagnostics) and its path when it is a local file.
    name: str = ""
    path: Path | None = None
    #: The URL the input was read from (fetched, or mapped to a local file), for scope checks.
    url: str | None = None
    #: Locations of the index documents being followed, outermost first (loop and depth detection).
    chain: tuple[str, ...] = ()

    def key(self) -> str:
        """What identifies the current document for loop detection: its resolved path, else its URL."""
        if self.path is not None:
            return str(self.path.resolve())
        if self.url is not None:
            return loop_key(self.url)
        return self.name

    def child(self, name: str, path: Path | None, url: str | None = None) -> Context:
        """The context for reading a child document of the current one (an index's sitemap)."""
        return replace(self, name=name, path=path, url=url, chain=(*self.chain, self.key()))

    def warning(self, code: str, message: str, line: int = 0) -> None:
        self.reporter.warning(code, message, self.name, line)

    def info(self, code: str, message: str, line: int = 0) -> None:
        self.reporter.info(code, message, self.name, line)
