"""The IR fields a format cannot hold: their values read in one call, and the one line that says them dropped.

Every writer of every format (https://www.sitemaps.org/protocol.html for sitemaps; the feed and line formats
alike) writes only the fields its :class:`~feedmap.formats._registry.FormatSpec` holds.  The fields that an
entry has a value for and the format cannot hold are said once, after the last entry written, as one INFO
``field-dropped`` line: by ``feedmap._api``'s watch, the urlset's and the feeds' records
(:mod:`feedmap.converters._records`) and the text pass (:mod:`feedmap.converters._lines_pass`), in one wording.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Sequence

from feedmap._core.context import Context
from feedmap._core.model import ENTRY_FIELDS, Entry

__all__ = ["report_unheld", "values_of"]


def values_of(names: Sequence[str]) -> Callable[[Entry], tuple[object, ...]]:
    """A function returning the values of the fields ``names`` of an entry, as a tuple."""
    if len(names) == 1:
        (name,) = names
        return lambda entry: (getattr(entry, name),)
    if not names:
        return lambda entry: ()
    return operator.attrgetter(*names)


def report_unheld(found: Collection[str], format_name: str, ctx: Context) -> None:
    """INFO ``field-dropped`` for the IR fields ``found`` with a value format ``format_name`` cannot hold."""
    names = ", ".join(sorted(found, key=ENTRY_FIELDS.index))
    it = "it is" if len(found) == 1 else "they are"
    ctx.info("field-dropped", f"format {format_name!r} cannot hold {names}; {it} not written")
