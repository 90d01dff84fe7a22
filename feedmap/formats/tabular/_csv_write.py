"""Writing entries as a CSV file (RFC 4180, https://www.rfc-editor.org/rfc/rfc4180, through Python's ``csv`` module).

UTF-8, a header of the column names first (:func:`~feedmap.formats.tabular._csv_cells.column_names`, written even
when no entry follows), then one row per entry (``explode``: one per item of that list), each record ending in CR LF
and a cell quoted only when it holds a comma, a quote (doubled inside) or a line break: the ``csv`` module's
``excel`` dialect, which is RFC 4180's.  ``excel_safe`` also writes a UTF-8 byte order mark first, by which Excel
knows the file is UTF-8 (without it, Excel reads a CSV file in the machine's code page), and writes the cells a
spreadsheet would run as formulas after a ``'`` (:func:`~feedmap.formats.tabular._csv_cells.escaped`); without it,
such cells are counted and said once (``csv-formula``).

Rows are gathered and written in batches of at most :data:`~feedmap.formats._output.BATCH_CHARACTERS`: memory
holds one batch whatever the number of entries.  A string UTF-8 cannot hold (a lone surrogate, from an entry built
in code) loses that character, reported (``character-dropped``).  The feed channel and the XML schema location are
not in a CSV file: asked for, they are refused (a FormatError), never silently ignored.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import replace
from typing import BinaryIO

from feedmap._core.context import Context, Options
from feedmap._core.errors import FormatError
from feedmap._core.model import Document, Entry
from feedmap.formats._extras import readable_extras
from feedmap.formats._output import BATCH_CHARACTERS
from feedmap.formats.tabular._csv_cells import RISKY_FIRST, column_names, escaped, item_cells, risky, row_cells

__all__ = ["BOM", "write"]

#: The UTF-8 byte order mark ``excel_safe`` writes first (and every CSV read takes off).
BOM = b"\xef\xbb\xbf"
#: The options no CSV file can honour.
_NOT_IN_CSV = (
    "schema_location",
    "channel_title",
    "channel_link",
    "channel_description",
    "channel_author",
    "channel_updated",
    "self_url",
)


def _refuse_unheld(options: Options) -> None:
    given = [name for name in _NOT_IN_CSV if getattr(options, name)]
    if given:
        raise FormatError(
            f"{', '.join(given)}: a CSV file has no XML schema location and no feed channel; leave them out"
        )


class _Parts(list[str]):
    """What the ``csv`` writer writes to: each record's text kept as a part (one ``write`` per record)."""

    def write(self, text: str) -> None:
        self.append(text)


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    """Write the header, then the rows of each entry, in batches; the number of entries written."""
    options = ctx.options
    _refuse_unheld(options)
    explode, safe = options.explode, options.excel_safe
    names = column_names(explode)
    parts = _Parts()
    records = csv.writer(parts, lineterminator="\r\n")
    records.writerow(names)
    if safe:
        sink.write(BOM)
    formulas = _Formulas(names)
    at = column_names().index(explode) if explode is not None else 0  # where an item's parts stand
    held: list[tuple[Entry, int]] = []  # each entry of the batch and the index of its first record in parts
    characters = count = 0
    for entry in doc.entries:
        entry = _writable(entry, ctx)
        rows = [row_cells(entry, ctx)]
        if explode is not None:
            base = rows[0]
            rows = [[*base[:at], *item, *base[at + 1 :]] for item in item_cells(entry, explode, ctx)]
        if safe:
            rows = [[escaped(cell) for cell in row] for row in rows]
        else:
            formulas.count(entry, rows)
        held.append((entry, len(parts)))
        records.writerows(rows)
        count += 1
        characters += sum(map(len, parts[held[-1][1] :]))
        if characters >= BATCH_CHARACTERS:
            sink.write(_encoded(parts, held, ctx))
            parts.clear()
            held.clear()
            characters = 0
    sink.write(_encoded(parts, held, ctx))
    formulas.say(ctx)
    return count


def _writable(entry: Entry, ctx: Context) -> Entry:
    """The entry as its cells can say it: a priority that is no number left out, XML extras a reader would refuse
    left out (each reported)."""
    if entry.extras and any(key.startswith("{") for key in entry.extras):
        entry = readable_extras(entry, ctx)
    if entry.priority is not None and not math.isfinite(entry.priority):
        ctx.warning("priority-invalid", f"priority {entry.priority} of {entry.loc} is not a number; not written")
        entry = replace(entry, priority=None)
    return entry


class _Formulas:
    """The cells written as they are that a spreadsheet would run as formulas: counted, the first kept to say."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.cells = 0
        self.first = ""

    def count(self, entry: Entry, rows: list[list[str]]) -> None:
        for row in rows:
            if RISKY_FIRST.isdisjoint([cell[:1] for cell in row]):
                continue  # nearly every row: no cell to look at again
            for name, cell in zip(self.names, row, strict=True):
                if risky(cell):
                    self.cells += 1
                    if not self.first:
                        shown = cell if len(cell) <= 40 else cell[:37] + "..."
                        self.first = f"{name} {shown!r} of {entry.loc}"

    def say(self, ctx: Context) -> None:
        if self.cells:
            cells = "a cell starts" if self.cells == 1 else f"{self.cells:,} cells start"
            ctx.info(
                "csv-formula",
                f"{cells} with =, +, -, @, a tab, CR or NUL (the first: {self.first}), which a spreadsheet may run "
                "as a formula; written as they are (excel_safe writes them as text)",
            )


_SURROGATE = re.compile("[\ud800-\udfff]")


def _encoded(parts: list[str], held: list[tuple[Entry, int]], ctx: Context) -> bytes:
    """The records as UTF-8; an entry's lone surrogates (which UTF-8 cannot hold) dropped, each entry reported."""
    text = "".join(parts)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    out = ["".join(parts[: held[0][1]])] if held else [text]  # the header (of the first batch)
    ends = [start for _, start in held[1:]] + [len(parts)]
    for (entry, start), end in zip(held, ends, strict=True):
        records = "".join(parts[start:end])
        found = _SURROGATE.findall(records)
        if found:
            shown = ", ".join(f"U+{ord(char):04X}" for char in dict.fromkeys(found))
            ctx.warning("character-dropped", f"{entry.loc!r}: {shown} cannot be written in UTF-8 and was dropped")
            records = _SURROGATE.sub("", records)
        out.append(records)
    return "".join(out).encode("utf-8")
