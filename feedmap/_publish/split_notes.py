"""What a split tells beside writing, and what it reads of the index it replaces.

Spec: https://www.sitemaps.org/protocol.html.  "Using Sitemap index files": an index lists at most 50,000
sitemaps, each by its ``loc``; crawlers fetch what the index names, so a file it named once and names no more
is no longer read.  The split (:mod:`feedmap._publish.split`) tells the files the index being replaced named
(removed when this run does not write them; left, and said so, when they were named at another URL), and the
input's ``too-many-entries`` is a note when the input is split (:class:`SplitReading`).  A file's name is
percent-encoded in its URL (:func:`feedmap._publish.split.file_url`); :func:`listed_names` and
:func:`file_name` decode it back.
"""

from __future__ import annotations

import dataclasses
import gzip
import itertools
import os
import zlib
from collections.abc import Iterator
from typing import BinaryIO
from urllib.parse import unquote

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.errors import Diagnostic, Level, Reporter
from feedmap._core.limits import PROTOCOL_MAX_URLS
from feedmap._core.urls import encode_url_checked, is_uri
from feedmap._core.wording import counted
from feedmap._io.files import open_regular
from feedmap._io.gzip import GZIP_MAGIC
from feedmap._xml import make_iterparse

__all__ = [
    "SplitReading",
    "file_name",
    "listed_names",
    "published_base",
    "report_left",
    "report_removed",
    "shown",
]


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
        name = file_name(loc.rsplit("/", 1)[-1])
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
        name = file_name(loc[len(base) :]) if loc.startswith(base) else None
        if name is not None:
            yield name


def file_name(tail: str) -> str | None:
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
