"""How one input of :func:`feedmap.diff` was read: completely or not, and which compared fields it can hold.

One job: read an input with :func:`feedmap.read` for the comparison and say what the comparison can trust.

* An input read incompletely (an index's child that could not be read, XML or gzip that breaks off, a line
  of JSON lines or text skipped: the diagnostic codes in :data:`INCOMPLETE_CODES`) would make the URLs it
  lost look removed (or added): ERROR ``input-incomplete`` says so after it is read.
* A format holds some fields only (:attr:`feedmap.formats._registry.FormatSpec.fields`: a text sitemap holds the loc
  alone, a sitemap index loc and lastmod): a field one of the inputs cannot hold is not compared, so that a
  text sitemap and an XML sitemap (sitemaps.org 0.9, https://www.sitemaps.org/protocol.html) of the same URLs
  are the same; INFO ``fields-not-compared`` names them.  An index whose children were read holds what its
  children's format holds: a sitemap's fields.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from feedmap._api import read
from feedmap._core.context import Options
from feedmap._core.errors import Diagnostic, FormatError, Reporter
from feedmap._core.model import DocKind, Document, Entry
from feedmap._core.wording import counted
from feedmap._io.sources import SourceLike, source_name
from feedmap.formats import _registry as registry

__all__ = ["COMPARED_FIELDS", "INCOMPLETE_CODES", "InputRead", "compared_fields", "read_input"]

#: The fields compared, in this order in :attr:`feedmap._diff.diff.Change.fields`.
COMPARED_FIELDS = ("lastmod", "changefreq", "priority", "images", "alternates")

#: Diagnostic codes saying that entries of an input were lost: a child sitemap not read, a stream cut short,
#: a line of JSON lines or text skipped.  (``malformed-xml`` too when the XML breaks off; not when it reads on
#: past an undeclared prefix.)
INCOMPLETE_CODES = frozenset(
    {
        "child-failed",
        "child-off-site",
        "child-outside-directory",
        "child-not-read",
        "index-too-deep",
        "map-escape",
        "truncated-gzip",
        "corrupt-gzip",
        "invalid-json",
        "invalid-value",
        "line-too-long",
        "csv-line",
    }
)


@dataclass(frozen=True, slots=True)
class InputRead:
    """One input, read: its name, its format, whether nothing was lost, the compared fields it can hold."""

    name: str
    format: str
    complete: bool
    holds: frozenset[str]


def _loses_entries(diagnostic: Diagnostic) -> bool:
    if diagnostic.code == "malformed-xml":
        return diagnostic.message.startswith("the XML breaks off")
    return diagnostic.code in INCOMPLETE_CODES


class _Watch:
    """Passes an input's diagnostics on to the caller's reporter, counting those that say entries were lost."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self.lost = 0

    def __call__(self, diagnostic: Diagnostic) -> None:
        if _loses_entries(diagnostic):
            self.lost += 1
        self.reporter.report(diagnostic)


def _holds(doc: Document) -> frozenset[str]:
    """The compared fields ``doc``'s format can hold (all of them for a format that is not registered)."""
    name = "sitemap" if doc.format == "sitemapindex" and doc.meta.kind is DocKind.URLSET else doc.format
    try:
        fields = registry.get(name).fields if name else frozenset(COMPARED_FIELDS)
    except FormatError:  # pragma: no cover - a document is read by a registered format
        fields = frozenset(COMPARED_FIELDS)
    return frozenset(COMPARED_FIELDS) & fields


def read_input(
    source: SourceLike,
    format: str | None,
    options_for: Callable[[Reporter], Options],
    reporter: Reporter,
    *,
    lost_as: str,
    store: Callable[[Iterable[Entry], str], None],
) -> InputRead:
    """Read ``source`` with the options ``options_for`` gives for the reporter of its diagnostics, and hand
    its entries to ``store`` (with the input's name); ERROR ``input-incomplete`` when entries were lost
    (``lost_as``: how the comparison shows them, ``"removed"`` or ``"added"``)."""
    name = source_name(source)
    watch = _Watch(reporter)
    watched = Reporter(handler=watch, keep=0)
    with read(source, format, options_for(watched), reporter=watched) as doc:
        store(doc.entries, name)
        found = InputRead(name, doc.format or "", not watch.lost, _holds(doc))
    if watch.lost:
        reporter.error(
            "input-incomplete",
            f"not read completely ({counted(watch.lost, 'problem')} above lost entries): the URLs it lost are "
            f"listed as {lost_as}, which they may not be",
            name,
        )
    return found


def compared_fields(inputs: Iterable[InputRead], reporter: Reporter) -> tuple[str, ...]:
    """The fields every input can hold; INFO ``fields-not-compared`` for an input that cannot hold a field
    another one holds (two inputs of one format say nothing)."""
    inputs = list(inputs)
    for one in inputs:
        missing = [name for name in COMPARED_FIELDS if name not in one.holds and any(name in o.holds for o in inputs)]
        if missing:
            what = ", ".join(missing)
            reporter.info("fields-not-compared", f"{one.format} cannot hold {what}: not compared", one.name)
    return tuple(name for name in COMPARED_FIELDS if all(name in one.holds for one in inputs))
