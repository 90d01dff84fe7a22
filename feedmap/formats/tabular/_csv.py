"""``csv``: entries as a CSV file (RFC 4180, https://www.rfc-editor.org/rfc/rfc4180), one row per entry under a
header, for spreadsheets and the tools analysts compare sitemaps with (pandas, advertools).

The columns are the names of ``feedmap.to_dataframe`` and of the Parquet format (``loc, lastmod, changefreq,
priority, title, description, keywords, type, images, alternates, news, videos, extras``), each cell text; lists,
news and extras as JSON in one cell (:mod:`feedmap.formats.tabular._csv_cells`); ``explode`` gives one row per item
of a list (``images``: ``image_loc, image_caption, ...`` in its place).  Every field has a column, so ``X -> csv ->
X`` keeps every field of every format X, as JSON lines does (an empty text and no text are one empty cell; document
metadata, a feed's channel, is not kept).  Writing: :mod:`feedmap.formats.tabular._csv_write`.

Reading streams: the lines are decoded one at a time (UTF-8, a byte order mark taken off; a line that is not UTF-8
is read as Windows-1252 with ``not-utf8``, as Excel writes CSV in the machine's code page) and given to the ``csv``
module's reader, which joins the lines of a quoted cell that holds line breaks; each diagnostic names the line its
row starts at.  The first line that is not blank is the header: it names a ``loc`` column (or ``url``; names in any
case, blanks around them ignored), its cells separated by commas, or by semicolons as Excel writes them where the
comma is the decimal separator (then a priority ``0,8`` is read as ``0.8``): the header is read with a comma,
then a semicolon, and the first that gives it a ``loc`` column is the file's separator, never guessed from
characters frequent in the data as ``csv.Sniffer`` guesses (a title's commas, a URL's semicolons).  A header without
one is an error
(``csv-invalid``), and so is one naming a column twice, or an item's parts without its key (``image_caption``
without ``image_loc``); a column feedmap does not know is said once (``unknown-column``) and ignored.  A header of
an item's parts (``image_loc``, ...) is a file written with ``explode``: consecutive rows with the same ``loc`` and
the same other cells, each naming an image, are one entry with those images in order (a row without image cells is
an entry without images).  Each value is checked as the other readers check it; a row that is not valid CSV (a
quote in the middle of a cell, a quoted cell never closed), one with more cells than the header names, or a JSON
cell of the wrong shape is said and skipped (``csv-row``, ``invalid-value``); an empty row is passed over.
``excel_safe`` takes back the ``'`` it wrote before a cell a spreadsheet would run as a formula.

A line longer than ``max_line_bytes`` is skipped (``line-too-long``), with the row it is in; a cell may be as long
as ``max_line_bytes`` characters (the ``csv`` module's limit of one cell, ``csv.field_size_limit``, is raised to it
for the process when it is lower: it is the module's one global setting).
"""

from __future__ import annotations

import csv
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from feedmap._core.context import Context
from feedmap._core.errors import ReadError
from feedmap._core.model import ENTRY_FIELDS, Alternate, DocKind, DocMeta, Document, Entry, Image
from feedmap._io.sources import Readable, Source
from feedmap.formats._detection import csv_delimiter, csv_names, is_csv
from feedmap.formats._registry import FormatSpec
from feedmap.formats.lines._common import bounded_line_blocks, too_long
from feedmap.formats.tabular._csv_cells import (
    ITEM_PARTS,
    Bad,
    column_names,
    entry_of,
    item_of,
    unescaped,
)
from feedmap.formats.tabular._csv_write import write

__all__ = ["FORMAT", "read"]

_BOM = b"\xef\xbb\xbf"
#: Every column name a CSV file of entries may hold (``url`` is read as ``loc``).
_KNOWN = frozenset(column_names()) | {part for parts in ITEM_PARTS.values() for part in parts}


class _TooLong(Exception):
    """A line longer than the cap, met by the ``csv`` reader (which passes the exception on)."""


class _Lines:
    """The lines of the input, decoded, each with a line end, as the ``csv`` reader reads a file opened with
    ``newline=""``; ``line`` is the number of the last one given.  Not a generator: raising :class:`_TooLong` for a
    line over the cap, it still gives the next one after."""

    def __init__(self, stream: Readable, ctx: Context) -> None:
        self._blocks = iter(bounded_line_blocks(stream, ctx.options.max_line_bytes))
        self._block: Iterator[bytes | None] = iter(())
        self._ctx = ctx
        self.line = 0

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        raw = next(self._block, self)
        while raw is self:
            self._block = iter(next(self._blocks))  # StopIteration at the end of the input
            raw = next(self._block, self)
        self.line += 1
        if raw is None:
            raise _TooLong
        assert isinstance(raw, bytes)
        if self.line == 1:
            raw = raw.removeprefix(_BOM)
        try:
            return raw.decode("utf-8") + "\n"
        except UnicodeDecodeError:
            self._ctx.warning("not-utf8", "line is not UTF-8; read as Windows-1252", self.line)
            return raw.decode("cp1252", errors="replace") + "\n"


@dataclass(slots=True)
class _Layout:
    """What the header says: the separator, each known column's name by its index, the list exploded."""

    delimiter: str
    width: int
    columns: list[tuple[int, str]] = field(default_factory=list)
    explode: str | None = None
    #: The name of each column in order, an unknown one's as "" (what no reader asks for).
    names: list[str] = field(default_factory=list)

    @property
    def base(self) -> list[tuple[int, str]]:
        """The columns but those of the exploded list's items (what rows of one entry share)."""
        parts = ITEM_PARTS[self.explode] if self.explode is not None else ()
        return [(index, name) for index, name in self.columns if name not in parts]


def _invalid(message: str, ctx: Context, line: int) -> ReadError:
    return ReadError(message, source=ctx.name, line=line, code="csv-invalid")


def _header(lines: _Lines, ctx: Context) -> _Layout | None:
    """The layout the first line that is not blank says (None: the input has no such line)."""
    for text in lines:
        if text.strip():
            break
    else:
        return None
    text = text.rstrip("\r\n")
    delimiter = csv_delimiter(text)
    if delimiter is None:
        shown = text if len(text) <= 80 else text[:77] + "..."
        raise _invalid(
            f"the first line {shown!r} is no header naming a loc (or url) column: a CSV file of entries starts with "
            f"its column names ({','.join(column_names())}); a list of URLs alone is a text sitemap",
            ctx,
            lines.line,
        )
    return _layout(csv_names(text, delimiter), delimiter, ctx, lines.line)


def _layout(names: list[str], delimiter: str, ctx: Context, line: int) -> _Layout:
    if "loc" not in names:
        names = ["loc" if name == "url" else name for name in names]
    layout = _Layout(delimiter, len(names))
    seen: dict[str, int] = {}
    unknown = []
    for index, name in enumerate(names):
        if name in seen:
            raise _invalid(f"the header names {name} twice (columns {seen[name] + 1} and {index + 1})", ctx, line)
        seen[name] = index
        layout.names.append(name if name in _KNOWN else "")
        if name in _KNOWN:
            layout.columns.append((index, name))
        else:
            unknown.append(name or f"(column {index + 1}, unnamed)")
    if unknown:
        ctx.warning("unknown-column", f"columns feedmap does not know ignored: {', '.join(unknown)}", line)
    layout.explode = _exploded(seen, ctx, line)
    return layout


def _exploded(names: dict[str, int], ctx: Context, line: int) -> str | None:
    """The list whose items' parts the header names (one at most, not with the list's own column), or None."""
    exploded = [name for name, parts in ITEM_PARTS.items() if any(part in names for part in parts)]
    if len(exploded) > 1:
        raise _invalid(f"the parts of the items of {' and '.join(exploded)}: a file explodes one list", ctx, line)
    if not exploded:
        return None
    (name,) = exploded
    if name in names:
        raise _invalid(f"both a {name} column and the parts of its items: give one of them", ctx, line)
    keys = {"images": ("image_loc",), "alternates": ("alternate_hreflang", "alternate_href")}.get(name, ())
    missing = [key for key in keys if key not in names]
    if missing:
        raise _invalid(f"the parts of {name} without {' and '.join(missing)}, which each item needs", ctx, line)
    return name


def read(source: Source, *, ctx: Context) -> Document:
    """The entries of a CSV file, its header read now (an error at once for a header that says no entry)."""
    _allow_cells_of(ctx.options.max_line_bytes)
    lines = _Lines(source.stream, ctx)
    try:
        layout = _header(lines, ctx)
    except _TooLong:
        raise _invalid(f"the header line is {too_long(ctx.options.max_line_bytes)}", ctx, lines.line) from None
    entries = _entries(lines, layout, ctx) if layout is not None else iter(())
    return Document(DocMeta(kind=DocKind.URLSET), entries, diagnostics=ctx.reporter.diagnostics)


_LIMIT_LOCK = threading.Lock()


def _allow_cells_of(size: int) -> None:
    """The ``csv`` module's cell limit raised to ``size`` characters when it is lower (never lowered)."""
    with _LIMIT_LOCK:
        if csv.field_size_limit() < size:
            csv.field_size_limit(size)


def _rows(lines: _Lines, layout: _Layout, ctx: Context) -> Iterator[tuple[list[str], int]]:
    """Each row the ``csv`` reader reads, with the line it starts at; a row it cannot read said and skipped."""
    reader = csv.reader(lines, delimiter=layout.delimiter, strict=True)
    end = lines.line
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except _TooLong:
            inside = f" (inside the row from line {end + 1})" if lines.line > end + 1 else ""
            ctx.warning("line-too-long", f"{too_long(ctx.options.max_line_bytes)}{inside}", lines.line)
        except csv.Error as exc:
            ctx.warning("csv-row", f"a row that is not valid CSV ({exc}); skipped", end + 1)
        else:
            yield row, end + 1
        end = lines.line


def _cells(row: list[str], layout: _Layout, ctx: Context, line: int) -> dict[str, str] | None:
    """The cells of a row by column name; None for an empty row, or one of more cells than the header (said)."""
    if not any(cell.strip() for cell in row):
        return None
    width = layout.width
    if len(row) > width and any(cell.strip() for cell in row[width:]):
        ctx.warning("csv-row", f"a row of {len(row)} cells, and the header names {width}; skipped", line)
        return None
    cells = dict(zip(layout.names, row, strict=False))  # a missing cell: absent, read as empty
    if ctx.options.excel_safe:
        cells = {name: unescaped(cell) for name, cell in cells.items()}
    return cells


def _entries(lines: _Lines, layout: _Layout, ctx: Context) -> Iterator[Entry]:
    decimal_comma = layout.delimiter == ";"
    explode = layout.explode
    group: _Group | None = None
    for row, line in _rows(lines, layout, ctx):
        cells = _cells(row, layout, ctx, line)
        if cells is None:
            continue
        if explode is None:
            entry = entry_of(cells, ctx, line, decimal_comma=decimal_comma)
            if entry is not None:
                yield entry
            continue
        try:
            item = item_of(cells, explode)
        except Bad as exc:
            ctx.warning("invalid-value", f"{exc}; row skipped", line)
            continue
        key = tuple(row[index] if index < len(row) else "" for index, _ in layout.base)
        if group is not None and group.takes(key, item):
            group.items.append(item)  # type: ignore[arg-type]  # item is not None: takes() says so
            continue
        if group is not None:
            yield group.entry(explode)
        entry = entry_of(cells, ctx, line, decimal_comma=decimal_comma)
        group = _Group(key, entry, [item] if item is not None else []) if entry is not None else None
    if group is not None:
        assert explode is not None  # a group is an exploded file's
        yield group.entry(explode)


@dataclass(slots=True)
class _Group:
    """The rows of one entry of an exploded file: the cells they share, the entry of the first, the items."""

    key: tuple[str, ...]
    first: Entry
    items: list[Image | Alternate | str]

    def takes(self, key: tuple[str, ...], item: Image | Alternate | str | None) -> bool:
        """Whether a row of ``key`` naming ``item`` is one more item of this entry."""
        return item is not None and bool(self.items) and key == self.key

    def entry(self, explode: str) -> Entry:
        return replace(self.first, **{explode: tuple(self.items)})  # type: ignore[arg-type]


FORMAT = FormatSpec(
    name="csv",
    title="CSV (a header, then one row per entry)",
    extensions=(".csv",),
    media_types=("text/csv",),
    accept=is_csv,
    reader=read,
    writer=write,
    fields=frozenset(ENTRY_FIELDS),
    description="RFC 4180; the columns of to_dataframe, lists and extras as JSON in one cell (lossless); "
    "--explode images (alternates, keywords): a row per item; --excel-safe: formula cells written as text",
)
