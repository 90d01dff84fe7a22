"""The text lane's split: a text sitemap's plain URLs written into ``sitemap`` files and their index in blocks.

Spec: https://www.sitemaps.org/protocol.html ("Using Sitemap index files": at most 50,000 URLs and 52,428,800 bytes
a file; "Sitemap file location": the scope).  :func:`split_text` is :func:`feedmap._publish.split.split_document`
run on the items of :mod:`feedmap._publish.text_lane`: a block of plain URLs (which the sitemap writer escapes
only in their ``&`` and ``'``) is written as one string of ``<url>`` elements when it fits the file, one element at
a time near a cut, as a fresh cut cuts, and one at a time into its file when the previous run's placement is kept
(:mod:`feedmap._publish.sticky`); every other URL is rendered by the sitemap renderer.  The writer's diagnostics,
and an error of writing, come after the merge's (the plan's merge reads every entry before the writer runs): held,
then said.
"""

from __future__ import annotations

from collections.abc import Iterator

from feedmap._core.context import Context
from feedmap._core.model import Document, Entry
from feedmap._publish.scope import ScopeCheck
from feedmap._publish.split import Layout, Sink, SplitResult, split_document
from feedmap._publish.text_lane import Lane, deferring
from feedmap.formats.lines._text import PlainBlock, TextEntries

__all__ = ["split_text"]


def split_text(reading: TextEntries, where: Layout, ctx: Context) -> SplitResult:
    """The text sitemap read by ``reading`` split into ``sitemap`` files as
    :func:`~feedmap._publish.split.split_document` splits it after the plan's steps."""
    late, held = deferring(ctx)
    lane = Lane(ctx, reading, xml=True)
    feed = _Feed()

    def fill(writer: Sink, items: Iterator[tuple[Entry, str]], inside: ScopeCheck) -> tuple[int, str]:
        held.holding = True  # the merge reads every entry before the writer writes: its diagnostics come later
        outside, first = 0, ""
        failure: Exception | None = None  # of writing: raised where the merge would have let the writer run
        for item in reading.lane_items():
            if type(item) is PlainBlock:
                if lane.passes(item):
                    out, out_first = inside.outside_of(item.locs, item.text)
                    outside, first = outside + out, first or out_first
                    if failure is None:
                        try:
                            _add_plain(writer, item.locs, item.text)
                        except Exception as exc:  # raised below, after what the merge says before it
                            failure = exc
                    continue
                entries: Iterator[Entry] = lane.entries(item)
            else:
                entries = iter((item,))  # type: ignore[arg-type]
            for entry in entries:
                if not lane.keeps(entry):
                    continue
                if not inside(entry.loc):
                    outside += 1
                    first = first or entry.loc
                if failure is None:
                    feed.entry = entry
                    try:
                        writer.add_block(entry.loc, next(items)[1])
                    except Exception as exc:  # the same
                        failure = exc
        lane.finish()
        held.replay()
        if failure is not None:
            raise failure
        return outside, first

    try:
        return split_document(Document(entries=feed), where, ctx, fill, late)
    finally:
        lane.close()
        held.close()


class _Feed:
    """The entries the renderer renders, one at a time: the one set before each block is asked for (so the
    renderer renders none ahead to learn the namespaces its root declares: ``one_at_a_time``)."""

    one_at_a_time = True

    def __init__(self) -> None:
        self.entry: Entry | None = None

    def __iter__(self) -> _Feed:
        return self

    def __next__(self) -> Entry:
        entry, self.entry = self.entry, None
        assert entry is not None  # set before each block is asked for
        return entry


#: The characters of a ``<url>`` block around its loc: ``<url><loc>``, ``</loc></url>`` and LF.
_AROUND = 23


def _url_blocks(text: str, amps: int, apostrophes: int) -> str:
    """The ``<url>`` blocks of URLs joined by LF, escaped as :func:`feedmap._xml.escape_text` escapes a plain
    URL (``&``, ``'``: the only characters of a plain URL it changes)."""
    blocks = "<url><loc>" + text.replace("\n", "</loc></url>\n<url><loc>") + "</loc></url>\n"
    if amps:
        blocks = blocks.replace("&", "&amp;")
    if apostrophes:
        blocks = blocks.replace("'", "&apos;")
    return blocks


def _add_plain(writer: Sink, locs: list[str], text: str) -> None:
    """Write the ``<url>`` blocks of plain URLs as :meth:`~feedmap._publish.split._Writer.add_all` writes them:
    all at once when they fit the file, else one by one."""
    amps, apostrophes = text.count("&"), text.count("'")
    length = len(text) + 1 + (_AROUND - 1) * len(locs) + 4 * amps + 5 * apostrophes
    if writer.fits(len(locs), length):
        writer.add_many(_url_blocks(text, amps, apostrophes), len(locs), length)
        return
    for loc in locs:
        writer.add_block(loc, _url_blocks(loc, loc.count("&"), loc.count("'")))
