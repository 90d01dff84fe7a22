"""``text``: the sitemaps.org text sitemap, one absolute URL per line.

Spec: https://www.sitemaps.org/protocol.html#otherformats — UTF-8, one URL per line, nothing else, at most
50,000 URLs and 50 MiB.  Reading tolerates a BOM, CRLF or CR line ends, blank lines and blanks around a
URL; a line that is not an absolute URL is skipped with a warning naming its line.  Input that is not
UTF-8 is read as Windows-1252 with a warning (never silently).  Only ``loc`` survives in this format.

CSV without a header is not a text sitemap (a CSV file with a header naming ``loc`` or ``url`` is the ``csv``
format's, recognised before this one): a line holding a URL followed by comma-separated fields
(``https://e.com/a,2024-01-01``: a date, another URL or a changefreq after a comma; a number or a quoted
text after a comma and a blank) is not read as one URL with a comma in it.  When such a line comes
before any URL, the input is a CSV file: reading stops with a :class:`~feedmap._core.errors.ReadError`
(``csv-input``, exit 1) saying so; after URLs, the line is skipped with a ``csv-line`` warning.  A URL
that really holds such a comma can write it as ``%2C``.

A part of a big file is read as the file's own lines (:func:`window_items`): told the number of the line before
it and whether a URL came before it (:func:`first_url`), it gives the lines, entries and diagnostics the whole
file gives there; the URL cap is said once the file's URLs are counted (:func:`say_urls`).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Generator, Iterator
from typing import Any, BinaryIO, NamedTuple

from feedmap._core.context import Context
from feedmap._core.errors import ReadError
from feedmap._core.model import DocKind, DocMeta, Document, Entry, new_entry, new_position
from feedmap._core.urls import MAX_LOC_LENGTH, check_loc, is_absolute_url
from feedmap._io.sources import Readable, Source
from feedmap.formats._output import MAX_BYTES, MAX_URLS, BlockBatches, SizeWatch, encoded_url, write_blocks
from feedmap.formats._registry import FormatSpec, Rendered
from feedmap.formats.lines._common import Block, bounded_line_blocks, too_long

__all__ = [
    "EMPTY",
    "FORMAT",
    "LINE_BATCH",
    "LaneItem",
    "PlainBlock",
    "TextEntries",
    "finish_lines",
    "first_url",
    "lane_entries",
    "lane_reading",
    "line_batches",
    "line_of",
    "read",
    "render",
    "say_urls",
    "window_items",
    "write",
    "write_lines",
]


def _decode(raw: bytes, ctx: Context, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        ctx.warning("not-utf8", "line is not UTF-8; read as Windows-1252", line)
        return raw.decode("cp1252", errors="replace")


#: A comma-separated field after a URL: a date, another URL or a changefreq; after a comma and a blank
#: (which no URL holds), also a number or a quoted text.  A comma and a number alone (``/page,2``,
#: ``@52.5,13.4``) is a URL.
_CSV_FIELD = re.compile(
    r",(?:[ \t]*(?:\d{4}-\d\d-\d\d(?:[T ][0-9:.]+(?:Z|[+-]\d\d:?\d\d)?)?|[A-Za-z][A-Za-z0-9+.-]*://[^,\s]*"
    r'|always|hourly|daily|weekly|monthly|yearly|never)|[ \t]+(?:"[^"]*"|[+-]?\d+(?:\.\d+)?))[ \t]*(?=,|$)',
    re.IGNORECASE,
)


def csv_tail(text: str) -> str | None:
    """The comma-separated fields after the URL a line starts with (a CSV row), or None."""
    match = _CSV_FIELD.search(text)
    if match is None or not is_absolute_url(text[: match.start()]):
        return None
    return text[match.start() :]


def _refuse_csv(text: str, tail: str, ctx: Context, line: int) -> None:
    shown = tail if len(tail) <= 40 else tail[:37] + "..."
    raise ReadError(
        f"this looks like a CSV file, not a text sitemap: the line holds {text[: len(text) - len(tail)]!r} "
        f"then comma-separated fields {shown!r}; a text sitemap has one URL per line (keep the URL column only), "
        "and a CSV file starts with a header naming its columns (loc,lastmod,...)",
        source=ctx.name,
        line=line,
        code="csv-input",
    )


class PlainBlock(NamedTuple):
    """Lines of a text sitemap that are each a plain URL (:data:`_PLAIN_URL`): nothing to report of any of them.
    ``line``: the number of the line before the first; ``locs``: the URLs in order; ``text``: them joined by LF."""

    line: int
    locs: list[str]
    text: str


#: What :meth:`TextEntries.lane_items` yields: a block of plain URLs, or the entry of a line that is not one.
LaneItem = PlainBlock | Entry


class TextEntries:
    """The entries of a text sitemap, iterated once as entries, or (:meth:`lane_items`) as blocks of plain URLs
    between the entries of the other lines, for a conversion that carries such blocks to the writer
    (:mod:`feedmap._publish.text_lane`).  The same lines, diagnostics and order either way."""

    def __init__(self, source: Source, ctx: Context) -> None:
        self._source = source
        self._ctx = ctx
        self._items: Iterator[LaneItem] | None = None
        self.meta: DocMeta | None = None  # the document's, set by read

    @property
    def name(self) -> str:
        """The name the entries are reported at (their origin's source)."""
        return self._ctx.name

    def lane_items(self) -> Iterator[LaneItem]:
        """The document as blocks of plain URLs and entries (iterated once, instead of the entries)."""
        if self._items is None:
            self._items = _lane_items(self._source, self._ctx)
        return self._items

    def __iter__(self) -> Iterator[Entry]:
        return lane_entries(self.lane_items(), self._ctx.name)

    def close(self) -> None:
        """Stop reading (the generator's own ``finally`` clauses run); not started, nothing is read any more."""
        if self._items is None:
            self._items = iter(())
        else:
            self._items.close()  # type: ignore[attr-defined]


#: The text sitemaps being read, by the identity of their document's metadata: what
#: :func:`lane_reading` finds for the conversion of a document read from a text sitemap.
_READING: weakref.WeakValueDictionary[int, TextEntries] = weakref.WeakValueDictionary()


def lane_reading(doc: Document) -> TextEntries | None:
    """The entries of text sitemap ``doc`` (a document this reader returned, its entries not started, or one
    made of them with its metadata: a conversion of one input), or None."""
    found = _READING.get(id(doc.meta))
    return found if found is not None and found.meta is doc.meta else None


def lane_entries(items: Iterator[LaneItem], name: str) -> Iterator[Entry]:
    """The entries of the items of :meth:`TextEntries.lane_items` (or :func:`window_items`) read from ``name``."""
    for item in items:
        if type(item) is PlainBlock:
            line = item.line
            for text in item.locs:
                line += 1
                yield new_entry(text, None, None, None, (), (), {}, new_position(name, line))
        else:
            yield item  # type: ignore[misc]


def _lane_items(source: Source, ctx: Context) -> Iterator[LaneItem]:
    count = yield from window_items(source.stream, ctx)
    say_urls(count, ctx)


def window_items(
    stream: Readable, ctx: Context, line: int = 0, after_first: bool = False
) -> Generator[LaneItem, None, int]:
    """The items of the lines of ``stream`` (all of a file, or the lines of a part of one), the first line
    numbered ``line + 1`` (a BOM is taken off only the file's first, line 1); ``after_first``: a URL came
    before them (a CSV row is then a ``csv-line``, not ``csv-input``).  Returns the number of URLs read."""
    limit = ctx.options.max_line_bytes
    name = ctx.name
    count = 0
    before = 1 if after_first else 0
    # a lone CR also ends a line (old Mac files)
    for block in bounded_line_blocks(stream, limit, any_newline=True):
        if line == 0 and block[0] is not None and block[0].startswith(_BOM):
            block = [block[0][len(_BOM) :], *block[1:]]
        plain = _plain_urls(block)
        if plain is not None:  # nearly every block: no line to report, every line one URL as it is
            texts, text = plain
            yield PlainBlock(line, texts, text)
            line += len(texts)
            count += len(texts)
            continue
        for raw in block:
            line += 1
            url = _line_url(raw, ctx, line, count + before)
            if url is not None:
                count += 1
                yield new_entry(url, None, None, None, (), (), {}, new_position(name, line))
    return count


def say_urls(count: int, ctx: Context) -> None:
    """What the protocol's cap says of a text sitemap of ``count`` URLs, said when it was read to its end."""
    if count > MAX_URLS:
        ctx.warning("too-many-entries", f"{count:,} URLs; the protocol allows {MAX_URLS:,} per file")


def first_url(stream: Readable, ctx: Context) -> int:
    """The line of the first URL of the text sitemap ``stream`` (read as far as it), 0 when it has none before
    its end or a CSV row (``csv-input``): what decides whether a later CSV row stops reading."""
    try:
        for item in window_items(stream, ctx):
            if isinstance(item, PlainBlock):
                return item.line + 1
            return item.origin.line if item.origin is not None else 0
    except ReadError as exc:
        if exc.code != "csv-input":
            raise
    return 0


_BOM = b"\xef\xbb\xbf"
#: A line that is a URL as it is, that no check has anything to say of: an absolute URL (RFC 3986 scheme,
#: host, port of at most four digits, then a path, query or fragment) of URI characters only, no blank (the
#: line needs no strip), no comma (no CSV field can follow).  A strict subset of what
#: :func:`~feedmap._core.urls.check_loc` passes; any other line takes :func:`_line_url`.
_PLAIN_URL = (
    r"[A-Za-z][A-Za-z0-9+.-]*://[A-Za-z0-9._~!$&'()*+;=%-]+(?::[0-9]{0,4})?"  # scheme, host, port
    r"(?:[/?#][A-Za-z0-9._~!$&'()*+;=%:@/?#-]*)?"  # path, query, fragment
)
_PLAIN_URLS = re.compile(f"{_PLAIN_URL}(?:\n{_PLAIN_URL})*")


def _plain_urls(block: Block) -> tuple[list[str], str] | None:
    """The lines of ``block`` as text (and joined by LF) when every one is a plain URL (:data:`_PLAIN_URL`)
    shorter than :data:`~feedmap._core.urls.MAX_LOC_LENGTH`; None when one is not (or is too long to read)."""
    if None in block:
        return None
    joined = b"\n".join(block)  # type: ignore[arg-type]  # no None in it
    if not joined.isascii() or max(map(len, block)) >= MAX_LOC_LENGTH:  # type: ignore[arg-type]
        return None
    text = joined.decode("ascii")
    return (text.split("\n"), text) if _PLAIN_URLS.fullmatch(text) is not None else None


def _line_url(raw: bytes | None, ctx: Context, line: int, count: int) -> str | None:
    """The URL line ``line`` holds (``count`` URLs before it), or None when it holds none: blank, too long,
    not a URL (each reported); a CSV row before any URL is a ReadError."""
    if raw is None:
        ctx.warning("line-too-long", too_long(ctx.options.max_line_bytes), line)
        return None
    text = _decode(raw, ctx, line).strip()
    if not text:
        return None
    tail = csv_tail(text)
    if tail is not None:
        if count == 0:
            _refuse_csv(text, tail, ctx, line)
        ctx.warning(
            "csv-line",
            f"{text!r} is a URL followed by comma-separated fields ({tail!r}), not one URL; line skipped "
            "(write a comma that belongs to the URL as %2C)",
            line,
        )
        return None
    if not is_absolute_url(text):
        shown = text if len(text) <= 80 else text[:77] + "..."
        ctx.warning("loc-not-absolute", f"{shown!r} is not an absolute URL; line skipped", line)
        return None
    problem = check_loc(text)
    if problem is not None:
        ctx.warning(problem[0], f"{problem[1]}; kept as written", line)
    return text


def read(source: Source, *, ctx: Context) -> Document:
    entries = TextEntries(source, ctx)
    doc = Document(DocMeta(kind=DocKind.URLSET), entries, diagnostics=ctx.reporter.diagnostics)
    entries.meta = doc.meta
    _READING[id(doc.meta)] = entries
    return doc


def _blocks(doc: Document, ctx: Context) -> Iterator[tuple[Entry, str]]:
    """One line per entry (:func:`line_of`)."""
    encode = ctx.options.encode_urls
    for entry in doc.entries:
        loc = entry.loc
        if not encode and loc.isascii() and "\n" not in loc and "\r" not in loc:  # line_of's plain case, inline
            yield entry, loc + "\n"
            continue
        line = line_of(entry, ctx, encode)
        if line is not None:
            yield entry, line


def line_of(entry: Entry, ctx: Context, encode: bool) -> str | None:
    """The line of ``entry``: the loc (encoded with ``encode``, ``encode_urls``) and LF; a loc holding a line
    break is skipped (``loc-not-escaped``: None), a lone surrogate (from an entry built in Python) is dropped
    (``character-dropped``)."""
    loc = encoded_url(entry.loc, ctx, entry) if encode else entry.loc
    if "\n" in loc or "\r" in loc:
        ctx.warning("loc-not-escaped", f"{loc!r} contains a line break; not written to a text sitemap")
        return None
    if loc.isascii():  # nearly every URL: nothing to drop
        return loc + "\n"
    return _without_surrogates(loc, ctx) + "\n"


#: The ``empty-document`` warning of a text sitemap without a line.
EMPTY = "no entries: wrote an empty text sitemap"


def render(doc: Document, *, ctx: Context) -> Rendered:
    """The text sitemap in parts: no header or footer, one line per entry."""
    return Rendered("", _blocks(doc, ctx), "", EMPTY)


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    return write_lines(_blocks(doc, ctx), sink, ctx)


def write_lines(lines: Iterator[tuple[Any, str]], sink: BinaryIO, ctx: Context) -> int:
    """Write the lines of a text sitemap (each with the entry it came from, or None) to ``sink`` in batches,
    then say what the protocol's caps say of them; the number of lines written."""
    watch = SizeWatch(ctx, "URLs", warn=False)
    count = write_blocks(sink, Rendered("", lines, "", EMPTY), watch, batch=LINE_BATCH)
    _say_caps(count, watch.size, ctx)
    return count


#: Lines of a text sitemap written in one batch (or :data:`~feedmap.formats._output.BATCH_CHARACTERS` of them).
LINE_BATCH = 4096


def line_batches(sink: BinaryIO, ctx: Context) -> BlockBatches:
    """The output of a text sitemap to ``sink`` for a writer that hands over lines itself (one by one, or runs
    of plain locs): the writes of :func:`write_lines`; end it with :func:`finish_lines`."""
    return BlockBatches(sink, SizeWatch(ctx, "URLs", warn=False), LINE_BATCH)


def finish_lines(out: BlockBatches, ctx: Context) -> int:
    """The end of :func:`line_batches`' output as :func:`write_lines` ends: the last batch, ``empty-document``
    when no line was written, what the protocol's caps say; the number of lines written."""
    count = out.finish("", EMPTY)
    _say_caps(count, out.watch.size, ctx)
    return count


def _say_caps(count: int, size: int, ctx: Context) -> None:
    if count > MAX_URLS:
        ctx.warning("too-many-entries", f"{count:,} URLs in one text sitemap; the protocol allows {MAX_URLS:,}")
    if size > MAX_BYTES:
        ctx.warning("too-many-bytes", f"{size:,} bytes in one text sitemap; the protocol allows {MAX_BYTES:,}")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_surrogates(loc: str, ctx: Context) -> str:
    """The loc without the lone surrogates UTF-8 cannot hold (each reported)."""
    found = _SURROGATE.findall(loc)
    if not found:
        return loc
    shown = ", ".join(f"U+{ord(char):04X}" for char in dict.fromkeys(found))
    ctx.warning("character-dropped", f"loc {loc!r}: {shown} cannot be written in UTF-8 and was dropped")
    return _SURROGATE.sub("", loc)


FORMAT = FormatSpec(
    name="text",
    title="text sitemap (one URL per line)",
    extensions=(".txt",),
    media_types=("text/plain",),
    content="text",
    priority=0,
    reader=read,
    writer=write,
    renderer=render,
    fields=frozenset({"loc"}),
    description="BOM, CRLF, blank lines tolerated; non-URL lines skipped with a warning",
)
