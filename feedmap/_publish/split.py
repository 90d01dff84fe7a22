"""Splitting one document into numbered files and the sitemap index that lists them.

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

That is a fresh cut: the first run into a directory, a run with ``rebalance`` (``--rebalance``) or ``sort``, and
a run whose directory's previous run cannot be used.  When the directory holds a previous run of the set (its
index and files, read back by :mod:`feedmap._publish.previous`), each block goes into the file its URL was in
instead, new URLs after the last (:mod:`feedmap._publish.sticky`): only the files that change are rewritten.

What the split tells beside writing: the URLs outside the files' scope (:mod:`feedmap._publish.scope`), the
files of the index it replaces (:mod:`feedmap._publish.split_notes`).
"""

from __future__ import annotations

import contextlib
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from types import TracebackType
from typing import TYPE_CHECKING, BinaryIO, Protocol
from urllib.parse import quote, urlsplit

from feedmap._core.context import NUMBER_FIELD, Context
from feedmap._core.dates import W3CDate
from feedmap._core.errors import FormatError, LimitError, SourceError, WriteError
from feedmap._core.limits import PROTOCOL_MAX_BYTES, PROTOCOL_MAX_SITEMAPS, PROTOCOL_MAX_URLS
from feedmap._core.model import Document, Entry
from feedmap._io.sinks import gzipped
from feedmap._publish.lock import is_run_file
from feedmap._publish.publish import Publisher, PublishReport
from feedmap._publish.scope import ScopeCheck, report_outside
from feedmap._publish.split_notes import listed_names, published_base, report_left, report_removed
from feedmap._xml import escape_attribute
from feedmap.converters._duplicates import url_key
from feedmap.formats import _registry as registry
from feedmap.formats._registry import FormatSpec, Rendered

if TYPE_CHECKING:
    from feedmap._publish.previous import Previous

__all__ = [
    "DEFAULT_NAMES",
    "MAX_FILES",
    "Fill",
    "Layout",
    "Sink",
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
        self.next_number = 1
        self.total = 0
        self.count = 0
        self.size = 0
        self.pending: list[str] = []
        self.stack = contextlib.ExitStack()
        self.out: BinaryIO | None = None

    def start(self, number: int | None = None) -> None:
        """Open file ``number`` (by default the one after the last opened: 1 first)."""
        number = self.next_number if number is None else number
        self.next_number = number + 1
        if len(self.parts) >= MAX_FILES:
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

    def room_of(self, number: int) -> int:
        """The bytes file ``number`` has for its entries (its header names it in a feed's self link)."""
        return self._room(self._header(self.where.name(number)))

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

    def copy(self, chunks: Iterable[bytes]) -> None:
        """Bytes of blocks, encoded already, written into the open file as they are (not counted)."""
        self.flush()
        assert self.out is not None
        for chunk in chunks:
            self.out.write(chunk)

    def put(self, loc: str, block: str, length: int, lastmod: W3CDate | None) -> None:
        """One block of ``length`` bytes into the open file, without a cut: counted, its lastmod the file's
        newest when newer (a block larger than a file on its own: ``entry-too-large``)."""
        if length > self.room:
            self.too_large(loc, length)
        self.pending.append(block)
        if len(self.pending) >= _BATCH:
            self.flush()
        self.count += 1
        self.size += length
        self.total += 1
        if lastmod is not None:
            part = self.parts[-1]
            if part.newest is None or _newer(lastmod, part.newest):
                part.newest = lastmod

    def add_block(self, loc: str, block: str, lastmod: W3CDate | None = None) -> None:
        """One block, as :meth:`add_all` writes it: a file cut (or the first opened) before it when it would
        pass a limit."""
        length = len(block) if block.isascii() else len(block.encode("utf-8"))
        if self.out is None:
            self.start()
        elif self.count and (self.count >= self.where.max_urls or self.size + length > self.room):
            self.finish()
            self.start()
        self.put(loc, block, length, lastmod)

    def fits(self, count: int, length: int) -> bool:
        """Whether ``count`` more entries of ``length`` bytes in all fit the open file."""
        return self.count + count <= self.where.max_urls and self.size + length <= self.room

    def add_many(self, blocks: str, count: int, length: int) -> None:
        """The blocks of ``count`` entries without a lastmod (``length`` bytes, joined) written at once: they
        :meth:`fits` the open file."""
        self.pending.append(blocks)
        if len(self.pending) >= _BATCH:
            self.flush()
        self.count += count
        self.size += length
        self.total += count

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
                self.too_large(loc, length)
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

    def too_large(self, loc: str, length: int, name: str | None = None) -> None:
        """``entry-too-large`` for a block written alone in file ``name`` (by default the open one)."""
        limit = self.where.max_bytes
        self.ctx.warning(
            "entry-too-large",
            f"{loc}: written as {length:,} bytes, more than a file of at most {limit:,} bytes holds with its "
            f"start and end; written alone in {name or self.parts[-1].name}",
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


class Sink(Protocol):
    """Where the rendered blocks go: the files in order (:class:`_Writer`), or each URL's own file
    (:class:`feedmap._publish.sticky.Placement`); :meth:`finish` writes what is left, no file left open."""

    def finish(self) -> None: ...

    def add_all(self, items: Iterator[tuple[Entry, str]], inside: ScopeCheck) -> tuple[int, str]: ...

    def add_block(self, loc: str, block: str, lastmod: W3CDate | None = None) -> None: ...

    def fits(self, count: int, length: int) -> bool: ...

    def add_many(self, blocks: str, count: int, length: int) -> None: ...


#: How the blocks are written into the files (the sink's ``add_all``, or the text lane's): how many URLs are
#: outside the files' scope, and the first of them.
Fill = Callable[[Sink, Iterator[tuple[Entry, str]], ScopeCheck], tuple[int, str]]


def split_document(
    doc: Document, where: Layout, ctx: Context, fill: Fill | None = None, late: Context | None = None
) -> SplitResult:
    """Write ``doc`` as :mod:`this module <feedmap._publish.split>` says (each URL kept in its file of the
    previous run as :mod:`feedmap._publish.sticky` says, when there is one to keep); returns what was written.
    ``fill`` writes the rendered blocks instead of the sink's ``add_all``; ``late``: the context of the
    writer's own diagnostics (the renderer's and the files'), ``ctx`` by default."""
    assert where.spec.renderer is not None
    late = late or ctx
    base = published_base(where.base_url, ctx)
    previous = _previous(where, base, ctx)
    feed_ctx = replace(late, options=replace(ctx.options, self_url=where.base_url + _SELF))  # each file's own
    with contextlib.ExitStack() as held:
        if previous is not None:
            held.callback(previous.close)
        rendered = where.spec.renderer(doc, ctx=feed_ctx)
        with Publisher(where.directory, lambda listed: listed_names(listed, base)) as publisher:
            with _Writer(where, rendered, publisher, late) as writer:
                sink = _sink(writer, previous, held)
                outside, first = (fill or type(sink).add_all)(sink, iter(rendered.items), ScopeCheck(where.base_url))
                report_outside(outside, first, where.base_url, ctx)
                sink.finish()
            if writer.total == 0:
                ctx.warning("empty-document", rendered.empty)
            _write_index(writer.parts, where, base, publisher, ctx)
            report_left(where.directory, where.index, base, frozenset(part.name for part in writer.parts), ctx)
            report = publisher.commit(index=where.index)
    report_removed(where.index, report.removed, report.leftovers, ctx)
    return SplitResult(writer.total, tuple(part.name for part in writer.parts), where.index, report)


def _previous(where: Layout, base: str, ctx: Context) -> Previous | None:
    """The previous run to keep the URLs' files of (:mod:`feedmap._publish.previous`); none when the options
    ask for a fresh cut: ``rebalance``, or ``sort`` (an order across the files, which kept files would break)."""
    options = ctx.options
    if options.rebalance or options.sort is not None:
        return None
    from feedmap._publish.previous import read_previous  # only a run into a directory holding a set reads it

    return read_previous(where, base, url_key(options), ctx)


def _sink(writer: _Writer, previous: Previous | None, held: contextlib.ExitStack) -> Sink:
    """Where the blocks go: ``writer``'s files in order (the first opened), or the previous run's files."""
    if previous is None:
        writer.start()
        return writer
    from feedmap._publish.sticky import Placement

    placement = Placement(writer, previous, url_key(writer.ctx.options))
    held.callback(placement.close)
    return placement


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
