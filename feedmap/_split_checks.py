"""What a split tells of what it publishes beside writing it: the URLs outside the files' scope, the files
an earlier run left under another naming.

Spec: https://www.sitemaps.org/protocol.html, "Sitemap file location": a sitemap served at
``https://example.com/catalog/`` may list only URLs that start with ``https://example.com/catalog/`` (on the
same host and under that path), unless the site's robots.txt names it ("Sitemaps & Cross Submits"), as
most sites do; crawlers that keep to the rule drop the others.  And "Using Sitemap index files": crawlers
fetch what the index names, so a file it named once and names no more is no longer read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO
from urllib.parse import unquote

from lxml import etree

from feedmap._context import Context
from feedmap._model import Entry
from feedmap._urls import scope_check
from feedmap._wording import counted

__all__ = ["report_left", "scoped"]


def scoped(items: Iterable[tuple[Entry, str]], base_url: str, ctx: Context) -> Iterator[tuple[Entry, str]]:
    """``items`` as they are; at the end one INFO ``outside-sitemap-scope`` counting the entries whose URL is
    not under ``base_url``: the same site and, in their normal form, a path under the base URL's
    (:func:`feedmap._urls.scope_check`: ``/maps/../x`` and ``/maps/%2e%2e/x`` are not under ``/maps/``)."""
    inside = scope_check(base_url)
    outside = 0
    first = ""
    for entry, block in items:
        loc = entry.loc
        if not inside(loc):
            outside += 1
            first = first or loc
        yield entry, block
    if outside:
        ctx.info(
            "outside-sitemap-scope",
            f"{counted(outside, 'URL')} not under {base_url}, where the files are served (first: {first}): "
            "sitemaps.org lets a sitemap list only URLs under its own location unless the site's robots.txt "
            "names it; add a 'Sitemap:' line naming the index to the robots.txt of the host of those URLs",
        )


def report_left(
    directory: str, index: str, base_url: str, produced: set[str], owned: Callable[[str], bool], ctx: Context
) -> None:
    """Warn of the files the index being replaced names in the directory that this run neither writes nor
    removes (an earlier run's, under another name pattern or format): they stay, no index names them."""
    left = []
    for name in _previously_named(os.path.join(directory, index), base_url):
        path = os.path.join(directory, name)
        if name not in produced and not owned(name) and os.path.isfile(path) and not os.path.islink(path):
            left.append(name)
    if left:
        ctx.warning(
            "stale-files-left",
            f"{index}, being replaced, named {counted(len(left), 'file')} this run does not write: "
            f"{', '.join(left)}; left in place (not of this run's naming), no longer named by the index: remove "
            "them if they are no longer to be served, or list them elsewhere",
        )


def _previously_named(index: str, base_url: str) -> list[str]:
    """The file names (under the base URL, no folder) that the index at path ``index`` lists, in its order;
    none when there is no index or it cannot be read."""
    names: dict[str, None] = {}  # in order, each once
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        with open(os.open(index, flags), "rb") as file:  # a link is no earlier index (nor a FIFO: no wait)
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                return []
            _read_locs(file, base_url, names)
    except (OSError, etree.LxmlError):
        pass  # no index, or not one feedmap can read: nothing to report
    return list(names)


def _read_locs(file: BinaryIO, base_url: str, names: dict[str, None]) -> None:
    """Add to ``names`` the file name of each ``loc`` under ``base_url`` (hardened parser: no DTD, entities
    or network)."""
    locs = etree.iterparse(file, tag="{*}loc", resolve_entities=False, no_network=True, load_dtd=False)
    for _event, element in locs:
        loc = (element.text or "").strip()
        element.clear()
        name = unquote(loc[len(base_url) :]) if loc.startswith(base_url) else ""
        if name and "/" not in name:
            names[name] = None
