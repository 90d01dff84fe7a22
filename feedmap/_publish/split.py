"""Splitting one document into numbered files and the sitemap index that lists them, and what the split
tells of what it publishes.

Spec: https://www.sitemaps.org/protocol.html.  "Using Sitemap index files": a sitemap (XML or text) holds at
most 50,000 URLs and 52,428,800 bytes uncompressed; an index lists at most 50,000 sitemaps, each with its
``loc`` and the ``lastmod`` of the newest change it holds, and indexes are not nested; crawlers fetch what
the index names, so a file it named once and names no more is no longer read.  "Sitemap file location": a
sitemap served at ``https://example.com/catalog/`` may list only URLs that start with
``https://example.com/catalog/`` (same host, under that path) unless the site's robots.txt names it
("Sitemaps & Cross Submits"), as most sites do; crawlers that keep to the rule drop the others.

The format renders the document in parts (``FormatSpec.renderer`` of :mod:`feedmap.formats`: a header, one block per
entry, a footer); the blocks are written in order into ``sitemap-1.xml``, ``sitemap-2.xml``, ... (the name
pattern's ``{n}``, or ``{n:05d}`` zero-padded), each file cut before the block that would pass either limit,
measured on the UTF-8 bytes written uncompressed (header and footer included; extension elements are in the
blocks). A block larger than a file on its own is written alone in its file (``entry-too-large``). With gzip
each file is ``NAME.gz`` (a pattern ending in ``.gz``, in any case, asks for gzip too, its name kept), with
the same bytes for the same input (:func:`feedmap._io.sinks.gzipped`). Then the index (``sitemap_index.xml``,
uncompressed, by the ``sitemapindex`` writer) lists each file at the base URL the directory is served at,
with the newest lastmod among the file's entries (a feed file's ``atom:link rel="self"`` is its own URL
there). Past 50,000 files nothing is published (:class:`~feedmap._core.errors.LimitError`). Every file goes
through a :class:`~feedmap._publish.publish.Publisher`: the children first, the index last, then the files the
replaced index named that this run does not write are removed; an error leaves the directory as it was.
A name's ``#``, ``?``, ``%``, blanks and non-ASCII are percent-encoded in its URL (:func:`file_url`).
Only each file's name and newest lastmod are kept: memory does not grow with the number of entries.

Beside writing, the split tells what it publishes: the URLs outside the files' scope (once per file, by the
location rule above), and the files the index being replaced named (removed when this run does not write
them; left, and said so, when they were named at another URL).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import itertools
import os
import re
import unicodedata
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from types import TracebackType
from typing import BinaryIO
from urllib.parse import quote, unquote, urlsplit

from lxml import etree

from feedmap._core.context import NUMBER_FIELD, Context
from feedmap._core.dates import W3CDate
from feedmap._core.errors import Diagnostic, FormatError, Level, LimitError, Reporter, SourceError, WriteError
from feedmap._core.limits import PROTOCOL_MAX_BYTES, PROTOCOL_MAX_SITEMAPS, PROTOCOL_MAX_URLS
from feedmap._core.model import Document, Entry
from feedmap._core.urls import encode_url_checked, is_uri
from feedmap._core.wording import counted
from feedmap._io.files import open_regular
from feedmap._io.gzip import GZIP_MAGIC
from feedmap._io.sinks import gzipped
from feedmap._publish.lock import is_run_file
from feedmap._publish.publish import Publisher, PublishReport
from feedmap._publish.scope import ScopeCheck, report_outside
from feedmap._xml import escape_attribute, make_iterparse
from feedmap.formats import _registry as registry
from feedmap.formats._registry import FormatSpec, Rendered

__all__ = ["SplitReading", "listed_names", "published_base", "report_left", "report_removed", "shown"]


#: What a reader says of an input holding more than one file may (sitemaps.org: 50,000 URLs per sitemap).
_INPUT_LIMIT_CODES = frozenset({"too-many-entries"})


class SplitReading(Reporter):
    """The reporter of reading inputs that are split into files: a reader's warning that an input holds more
    URLs than one sitemap may (``too-many-entries``) is a note, as the files written keep the limit (the input
    is not published).  Every diagnostic goes on to ``target``, whose records these are."""

    def __init__(self, target: Reporter) -> None:
        super().__init__(strict=target.strict, handler=target.handler, keep=target.keep)
        self.diagnostics, self.counts, self.level_counts = target.diagnostics, target.counts, target.level_counts
        self._target = target

    def report(self, diagnostic: Diagnostic) -> None:
        if diagnostic.code in _INPUT_LIMIT_CODES and diagnostic.level == Level.WARNING:
            message = f"{diagnostic.message}; written into files within the limit"
            diagnostic = dataclasses.replace(diagnostic, level=Level.INFO, message=message)
        self._target.report(diagnostic)


def report_left(directory: str, index: str, base: str, written: frozenset[str], ctx: Context) -> None:
    """Warn of the files of the directory that the index being replaced names at another URL than ``base``
    (an earlier run's, served from another base URL) and this run does not write (``written`` are replaced,
    not left): no run removes them, no index names them any more."""
    found: dict[str, None] = {}  # in order, each once
    for loc in _previous_locs(os.path.join(directory, index)):
        name = _file_name(loc.rsplit("/", 1)[-1])
        if loc.startswith(base) or name is None or name in written:
            continue
        path = os.path.join(directory, name)
        if os.path.isfile(path) and not os.path.islink(path):
            found[name] = None
    left = list(found)
    if left:
        ctx.warning(
            "stale-files-left",
            f"{index}, being replaced, names {counted(len(left), 'file')} of this directory at another URL than "
            f"{base}: {shown(left)}; left in place, no longer named by the index: remove them if they are no "
            "longer to be served",
        )


def report_removed(index: str, removed: tuple[str, ...], leftovers: tuple[str, ...], ctx: Context) -> None:
    """One note naming the files removed as stale (the first few, then a count), one counting the temporary
    files of killed runs removed."""
    if removed:
        ctx.info(
            "stale-files-removed",
            f"removed {counted(len(removed), 'file')} that the replaced {index} named and this run does not "
            f"write: {shown(removed)}",
        )
    if leftovers:
        ctx.info("leftovers-removed", f"removed {counted(len(leftovers), 'temporary file')} left by a killed run")


#: File names shown in a message before the rest is counted.
_SHOWN = 5


def shown(names: list[str] | tuple[str, ...]) -> str:
    """The first few names, then how many more."""
    first = ", ".join(names[:_SHOWN])
    return first if len(names) <= _SHOWN else f"{first} and {len(names) - _SHOWN:,} more"


def listed_names(previous: BinaryIO, base: str) -> Iterator[str]:
    """The file names (under ``base``, no folder, percent-decoded) that the index being replaced lists: what
    :func:`feedmap._publish.split.file_url` gave for them.  None when it is no sitemap index feedmap can read."""
    for loc in itertools.islice(_locs(previous), _MOST_LISTED):
        name = _file_name(loc[len(base) :]) if loc.startswith(base) else None
        if name is not None:
            yield name


def _file_name(tail: str) -> str | None:
    """The file of the directory a loc's last part names (percent-decoded), or None when it names none there:
    empty, ``.``, ``..``, or holding a ``/`` or NUL once decoded (``..%2Fx``: a path out of the directory)."""
    name = unquote(tail)
    return name if name not in ("", ".", "..") and "/" not in name and "\0" not in name else None


def _previous_locs(index: str) -> list[str]:
    """The ``loc`` of each sitemap the index at path ``index`` lists, in its order; none when there is no
    index or it cannot be read."""
    file = open_regular(index)  # a link is no earlier index (nor a FIFO: no wait)
    if file is None:
        return []
    try:
        with file:
            return list(itertools.islice(_locs(file), _MOST_LISTED))
    except OSError:
        return []


#: The most sitemaps an index lists (sitemaps.org): what a longer one (not feedmap's) lists past it is not read.
_MOST_LISTED = PROTOCOL_MAX_URLS
_INDEX_ROOT = "{http://www.sitemaps.org/schemas/sitemap/0.9}sitemapindex"
_LOC = "{http://www.sitemaps.org/schemas/sitemap/0.9}loc"


def _locs(file: BinaryIO) -> Iterator[str]:
    """The ``loc`` of each sitemap of the sitemap index ``file`` (hardened parser: no DTD, entities or
    network); none when its root is not ``sitemapindex``, and none after the point where it is not
    well-formed.  A gzip index (``--index-name NAME.xml.gz``, RFC 1952) is read inflated, as it is written."""
    head = file.read(len(GZIP_MAGIC))
    file.seek(0)
    source: BinaryIO | gzip.GzipFile = gzip.GzipFile(fileobj=file, mode="rb") if head == GZIP_MAGIC else file
    events = make_iterparse(source, "*", ("start", "end"))  # type: ignore[arg-type]
    try:
        for event, element in events:
            if event == "start":
                if element.getparent() is None and element.tag != _INDEX_ROOT:
                    return
                continue
            if element.tag == _LOC:
                yield (element.text or "").strip()
            parent = element.getparent()
            if parent is not None and parent.getparent() is None:  # a whole <sitemap>: memory stays flat
                element.clear()
                while element.getprevious() is not None:
                    del parent[0]
    except (etree.LxmlError, OSError, EOFError, zlib.error):  # not XML, or a gzip stream cut or damaged
        return


def published_base(given: str, ctx: Context) -> str:
    """The base URL as the index writes it (hosts by UTS 46, the rest percent-encoded), reported once."""
    if is_uri(given):
        return given
    base, problem = encode_url_checked(given)
    if problem is not None:
        ctx.warning("host-not-encoded", f"the base URL {given}: {problem}")
    if base != given:
        ctx.info("url-encoded", f"the base URL {given} written as {base}")
    return base


__all__ = [
    "DEFAULT_NAMES",
    "MAX_FILES",
    "Layout",
    "SplitResult",
    "check_directory",
    "file_url",
    "layout",
    "split_document",
    "splittable",
]

#: An index lists at most this many sitemaps (and is never nested): more files are refused.
MAX_FILES = PROTOCOL_MAX_SITEMAPS
#: The file names of each format's parts (``{n}``: the file's number, from 1).
DEFAULT_NAMES = {
    "sitemap": "sitemap-{n}.xml",
    "text": "urls-{n}.txt",
    "rss": "feed-{n}.xml",
    "ror": "ror-{n}.xml",
    "atom": "atom-{n}.xml",
}
_BATCH = 512


@dataclass(frozen=True, slots=True)
class Layout:
    """Where and how a document is split: checked before anything is read or written."""

    spec: FormatSpec
    directory: str
    base_url: str
    pattern: str
    gzip: bool
    index: str
    max_urls: int
    max_bytes: int

    def name(self, number: int) -> str:
        def field(found: re.Match[str]) -> str:
            return format(number, f"0{found[1]}d") if found[1] else str(number)

        named = NUMBER_FIELD.sub(field, self.pattern)
        return named + ".gz" if self.gzip and not _gzip_named(self.pattern) else named


def _gzip_named(pattern: str) -> bool:
    """A pattern ending in ``.gz`` (in any case: ``.GZ`` too) names gzip files, as ``-o NAME.gz`` does; the
    name is kept as given (no second ``.gz``, no ``.GZ`` made ``.gz``)."""
    return pattern.lower().endswith(".gz")


#: The characters left as they are in a file's URL path segment (RFC 3986 ``pchar`` less ``&`` and ``'``);
#: every other one (``#``, ``?``, ``%``, blanks, non-ASCII as UTF-8) is percent-encoded, so that the URL
#: names the file (a web server decodes it back to the name).
_SEGMENT_SAFE = "-._~!$()*+,;=:@"


def file_url(base: str, name: str) -> str:
    """The URL of file ``name`` in the directory served at ``base`` (a URI ending in ``/``)."""
    return base + quote(name, safe=_SEGMENT_SAFE)


def _names_of(pattern: str) -> re.Pattern[str]:
    """The file names a pattern gives, gzipped or not: every ``{n}`` the same number from 1 (``{n:0Wd}``: W
    digits, zero-padded, or more digits without a leading zero past 10**W - 1); in any case, for a name in
    NFC (a file system may fold case and Unicode forms: ``S1.XML`` is then the file ``s1.xml``)."""
    found = NUMBER_FIELD.search(pattern)
    width = found[1] if found is not None else None
    number = f"(?!0{{{width}}})[0-9]{{{width}}}|[1-9][0-9]{{{width},}}" if width else "[1-9][0-9]*"
    pieces = NUMBER_FIELD.split(unicodedata.normalize("NFC", pattern))[::2]
    first, *rest = (re.escape(piece) for piece in pieces)
    regex = first + f"(?P<n>{number})" + "(?P=n)".join(rest) + r"(?:\.gz)?"
    return re.compile(regex, re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class SplitResult:
    """What a split wrote: the entries, the files in order, the index's name, and what changed on disk."""

    entries: int
    files: tuple[str, ...]
    index: str
    report: PublishReport


def splittable() -> list[str]:
    """The names of the formats that can be split into files (those with a renderer)."""
    return [spec.name for spec in registry.all_formats() if spec.renderer is not None]


def check_directory(directory: str) -> None:
    """SourceError when ``directory`` (or a folder on the way to it) is something other than a directory."""
    path = os.path.abspath(directory)
    while not os.path.lexists(path):
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent
    if not os.path.isdir(path):
        raise SourceError(f"{directory}: {path} is not a directory")


def layout(format: str, directory: str | os.PathLike[str], ctx: Context) -> Layout:
    """The layout ``ctx.options`` asks for; FormatError for a format that cannot be split, a base URL that
    is missing or no absolute http(s) URL, or an index name the file names could take."""
    check_directory(os.fspath(directory))
    spec = registry.get(format)
    if spec.renderer is None:
        raise FormatError(
            f"format {spec.name!r} cannot be split into files; the formats that can: {', '.join(splittable())}"
        )
    options = ctx.options
    pattern = options.name or DEFAULT_NAMES.get(spec.name) or f"{spec.name}-{{n}}{(spec.extensions or ('',))[0]}"
    found = Layout(
        spec=spec,
        directory=os.fspath(directory),
        base_url=_base_url(options.base_url),
        pattern=pattern,
        gzip=options.gzip or _gzip_named(pattern),
        index=options.index_name,
        max_urls=options.max_urls or PROTOCOL_MAX_URLS,
        max_bytes=options.max_file_bytes or PROTOCOL_MAX_BYTES,
    )
    for what, name in (("file name pattern", pattern), ("index name", found.index)):
        if not _nameable(name):
            raise FormatError(f"the {what} {name!r} holds a control character or is not UTF-8: give another name")
    if any(is_run_file(name) for name in (found.name(1), found.name(12_345_678), found.index)):
        raise FormatError(f"{pattern!r} or {found.index!r} names feedmap's temporary files: name them otherwise")
    if _names_of(pattern).fullmatch(unicodedata.normalize("NFC", found.index)):
        raise FormatError(f"the index name {found.index!r} is one of the file names {pattern!r}: name it otherwise")
    given = options.base_url or ""
    if _FILE_LIKE.search(urlsplit(given).path) and not given.endswith("/"):
        ctx.warning(
            "base-url-names-a-file",
            f"the base URL {given} looks like a file's URL; it is taken as the directory's, the files listed as "
            f"{found.base_url}{found.name(1)}, ...: give the URL of the directory the files are served from",
        )
    return found


def _nameable(name: str) -> bool:
    """Whether a file name can be published: UTF-8 (a URL names it by its UTF-8 bytes, not a lone surrogate
    of undecodable bytes) without control characters (C0, DEL, C1)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return not any(ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0 for char in name)


#: The end of a URL path that names a sitemap or feed file rather than a directory.
_FILE_LIKE = re.compile(r"\.(?:xml|txt|rss|atom|gz)$", re.IGNORECASE)


def _base_url(url: str | None) -> str:
    """The URL the directory is served at, ending in ``/``; FormatError when missing or not absolute http(s)."""
    if not url:
        raise FormatError("writing into a directory needs the URL the directory is served at (the base URL)")
    try:
        parts = urlsplit(url)
    except ValueError:
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise FormatError(f"the base URL {url!r} is not an absolute http(s) URL (the directory's URL is)")
    try:
        parts.port  # noqa: B018 (a port out of range is a ValueError)
    except ValueError:
        raise FormatError(f"the base URL {url!r} has no valid port") from None
    if parts.username is not None or parts.password is not None:
        raise FormatError(f"the base URL {url!r} holds a user name or password, which the index would publish")
    if parts.query or parts.fragment:
        raise FormatError(f"the base URL {url!r} holds a query or a fragment; give the directory's URL")
    return url if url.endswith("/") else url + "/"


@dataclass(slots=True)
class _Part:
    """One file: its name and the newest lastmod among its entries."""

    name: str
    newest: W3CDate | None = None


class _Writer:
    """Writes blocks into numbered files, cutting before the block that would pass a limit."""

    def __init__(self, where: Layout, rendered: Rendered, publisher: Publisher, ctx: Context) -> None:
        self.where = where
        self.ctx = ctx
        self.publisher = publisher
        self.header = rendered.header
        self.footer = rendered.footer.encode("utf-8")
        self.room = self._room(self._header(where.name(1)))
        self.parts: list[_Part] = []
        self.total = 0
        self.count = 0
        self.size = 0
        self.pending: list[str] = []
        self.stack = contextlib.ExitStack()
        self.out: BinaryIO | None = None

    def start(self) -> None:
        number = len(self.parts) + 1
        if number > MAX_FILES:
            raise LimitError(
                f"the entries need more than {MAX_FILES:,} files, and a sitemap index lists at most "
                f"{MAX_FILES:,} (indexes are not nested): allow more entries or bytes per file, or write fewer "
                "entries; nothing was written",
                source=self.where.directory,
                code="too-many-files",
            )
        part = _Part(self.where.name(number))
        header = self._header(part.name)
        self.room = self._room(header)
        out = self.stack.enter_context(self.publisher.file(part.name))
        if self.where.gzip:
            out = self.stack.enter_context(gzipped(out))
        out.write(header)
        self.parts.append(part)
        self.out, self.count, self.size = out, 0, 0

    def _header(self, name: str) -> bytes:
        """The header of file ``name``: the feed's self link (:data:`_SELF`) made the file's own URL."""
        return _own_self_link(self.header, name).encode("utf-8")

    def _room(self, header: bytes) -> int:
        """The bytes a file with ``header`` has for its entries; WriteError when none."""
        room = self.where.max_bytes - len(header) - len(self.footer)
        if room <= 0:
            raise WriteError(
                f"a file may hold at most {self.where.max_bytes:,} bytes, less than its own start and end take "
                f"({len(header) + len(self.footer):,} bytes): allow larger files"
            )
        return room

    def finish(self) -> None:
        self.flush()
        assert self.out is not None
        self.out.write(self.footer)
        self.out = None
        self.stack.close()

    def flush(self) -> None:
        if self.pending:
            assert self.out is not None
            self.out.write("".join(self.pending).encode("utf-8"))
            self.pending.clear()

    def add_all(self, items: Iterable[tuple[Entry, str]], inside: ScopeCheck) -> tuple[int, str]:
        """Write every block in turn, a file cut before the block that would pass a limit; how many
        entries' URLs are not ``inside`` the files' scope, and the first of them."""
        max_urls = self.where.max_urls
        pending = self.pending
        count, size, room, total = self.count, self.size, self.room, self.total
        outside = 0
        first = ""
        for entry, block in items:
            loc = entry.loc
            if not inside(loc):
                outside += 1
                first = first or loc
            length = len(block) if block.isascii() else len(block.encode("utf-8"))
            if count and (count >= max_urls or size + length > room):
                self.finish()
                self.start()
                count, size, room = 0, 0, self.room
            if length > room:
                self._too_large(loc, length)
            pending.append(block)
            if len(pending) >= _BATCH:
                self.flush()
            count += 1
            size += length
            total += 1
            lastmod = entry.lastmod
            if lastmod is not None:
                part = self.parts[-1]
                if part.newest is None or _newer(lastmod, part.newest):
                    part.newest = lastmod
        self.count, self.size, self.total = count, size, total
        return outside, first

    def _too_large(self, loc: str, length: int) -> None:
        limit = self.where.max_bytes
        self.ctx.warning(
            "entry-too-large",
            f"{loc}: written as {length:,} bytes, more than a file of at most {limit:,} bytes holds with its "
            f"start and end; written alone in {self.parts[-1].name}",
        )

    def __enter__(self) -> _Writer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stack.__exit__(kind, value, traceback)  # the open file learns of an error: it is not kept


def _newer(lastmod: W3CDate, newest: W3CDate) -> bool:
    """Whether ``lastmod`` is later than ``newest`` in the order of :class:`W3CDate` (a tie keeps the first)."""
    return lastmod > newest


#: The last segment of the self URL a feed is rendered with (``atom:link rel="self"``, an Atom feed's ``id``): each
#: file's header has it replaced by the file's name, so that each file names its own URL.
_SELF = "feedmap-split-file-name"


def _own_self_link(header: str, name: str) -> str:
    """``header`` with the self link rendered for :data:`_SELF` made the URL of file ``name`` (its last
    occurrence: the channel's text, from the input, comes before it), and an Atom feed's ``<id>`` too when it is
    the self URL (the one occurrence inside the last ``<id>`` element before it)."""
    own = escape_attribute(quote(name, safe=_SEGMENT_SAFE))
    at = header.rfind(_SELF)
    if at < 0:
        return header
    header = header[:at] + own + header[at + len(_SELF) :]
    start = header.rfind("<id>", 0, at)  # an element's start tag: text holding "<id>" is escaped
    end = header.find("</id>", start) if start >= 0 else -1
    inside = header.find(_SELF, start, end) if end >= 0 else -1
    if inside >= 0:
        header = header[:inside] + own + header[inside + len(_SELF) :]
    return header


#: How the blocks are written into the files (:meth:`_Writer.add_all`, or the text lane's): how many URLs are
#: outside the files' scope, and the first of them.
Fill = Callable[["_Writer", Iterator[tuple[Entry, str]], ScopeCheck], tuple[int, str]]


def split_document(
    doc: Document, where: Layout, ctx: Context, fill: Fill | None = None, late: Context | None = None
) -> SplitResult:
    """Write ``doc`` as :mod:`this module <feedmap._publish.split>` says; returns what was written.  ``fill``
    writes the rendered blocks instead of :meth:`_Writer.add_all`; ``late``: the context of the writer's own
    diagnostics (the renderer's and the files'), ``ctx`` by default."""
    assert where.spec.renderer is not None
    late = late or ctx
    feed_ctx = replace(late, options=replace(ctx.options, self_url=where.base_url + _SELF))  # each file's own
    rendered = where.spec.renderer(doc, ctx=feed_ctx)
    base = published_base(where.base_url, ctx)
    with Publisher(where.directory, lambda previous: listed_names(previous, base)) as publisher:
        with _Writer(where, rendered, publisher, late) as writer:
            writer.start()
            outside, first = (fill or _Writer.add_all)(writer, iter(rendered.items), ScopeCheck(where.base_url))
            report_outside(outside, first, where.base_url, ctx)
            writer.finish()
        if writer.total == 0:
            ctx.warning("empty-document", rendered.empty)
        _write_index(writer.parts, where, base, publisher, ctx)
        report_left(where.directory, where.index, base, frozenset(part.name for part in writer.parts), ctx)
        report = publisher.commit(index=where.index)
    report_removed(where.index, report.removed, report.leftovers, ctx)
    return SplitResult(writer.total, tuple(part.name for part in writer.parts), where.index, report)


def _write_index(parts: list[_Part], where: Layout, base: str, publisher: Publisher, ctx: Context) -> None:
    writer = registry.get("sitemapindex").writer
    assert writer is not None  # the index format writes
    entries = [Entry(loc=file_url(base, part.name), lastmod=part.newest) for part in parts]
    with publisher.file(where.index) as out:
        if _gzip_named(where.index):  # --index-name NAME.xml.gz: gzip, as its name says (sitemaps.org allows it)
            with gzipped(out) as compressed:
                writer(Document(entries=entries), compressed, ctx=ctx)
        else:
            writer(Document(entries=entries), out, ctx=ctx)
