"""Validating a text sitemap as written: one absolute, escaped URL a line, UTF-8, within the limits.

Spec: the sitemaps.org protocol 0.9, "Text file" (https://www.sitemaps.org/protocol.html#otherformats): one
URL a line, nothing else, UTF-8, at most 50,000 URLs and 52,428,800 bytes.  Blank lines are tolerated (as
search engines do).  A line ends at LF, CR LF or a lone CR, as the reader (:mod:`feedmap.formats.lines._text`)
and XML 1.0 §2.11 end-of-line handling have it: a CR is never part of a URL, and lines are numbered alike
here and there.  Streaming, line by line (a line longer than :data:`MAX_LINE_BYTES` is not held: it is too
long for a URL); repeated URLs are remembered in :class:`~feedmap._io.seen_keys.SeenKeys` (in memory up to
250,000, then SQLite on disk).  With the file's URL known, URLs outside its scope are counted
(:class:`~feedmap._validate.values.ScopeTally`).
"""

from __future__ import annotations

import io
from collections.abc import Callable

from feedmap._core.limits import PROTOCOL_MAX_BYTES, PROTOCOL_MAX_URLS
from feedmap._io.seen_keys import SeenKeys
from feedmap._validate.return_links import Pages
from feedmap._validate.rules import Findings
from feedmap._validate.values import ScopeTally, check_url
from feedmap.formats.lines._common import bounded_lines

__all__ = ["MAX_LINE_BYTES", "validate_text"]

#: The longest line held: 32 times the longest URL the protocol allows.
MAX_LINE_BYTES = 1 << 16


class _Counted:
    """A binary stream that counts the bytes read through it (the uncompressed size limit)."""

    def __init__(self, inner: io.RawIOBase) -> None:
        self.inner = inner
        self.total = 0

    def read(self, size: int = -1, /) -> bytes:
        data = self.inner.read(size) or b""
        self.total += len(data)
        return data


def validate_text(
    stream: io.RawIOBase,
    find: Findings,
    *,
    base_url: str | None = None,
    lifted: Callable[[], bool] | None = None,
    pages: Pages | None = None,
) -> int:
    """Check a text sitemap; returns the number of URLs.  ``base_url``, ``lifted`` and ``pages`` (given each URL,
    a page without alternates): see :func:`feedmap._validate.sitemap.validate_sitemap`."""
    seen = SeenKeys()
    scope = ScopeTally(base_url, lifted) if base_url is not None else None
    counted = _Counted(stream)
    entries = 0
    said_utf8 = False
    try:
        for number, raw in enumerate(bounded_lines(counted, MAX_LINE_BYTES, any_newline=True), 1):
            if raw is None:
                entries += 1
                find("loc-too-long", f"the line is longer than {MAX_LINE_BYTES:,} bytes; no URL is that long", number)
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                if not said_utf8:
                    find("not-utf8", "the line is not UTF-8 (the protocol wants UTF-8 text)", number)
                    said_utf8 = True
                line = raw.decode("utf-8", "replace")
            url = line.strip().removeprefix("\ufeff") if number == 1 else line.strip()
            if not url:
                continue
            entries += 1
            if entries == PROTOCOL_MAX_URLS + 1:
                find("too-many-entries", f"more than {PROTOCOL_MAX_URLS:,} URLs in one file", number)
            problem = check_url(url)
            if problem is not None:
                find(*problem, number)
            elif scope is not None:
                scope.check(url, number)
            first = seen.get(url)
            if first is not None:
                find("loc-duplicate", f"{url} is also on line {first}", number)
            else:
                seen.add(url, number)
            if pages is not None:
                pages.page(find.name, url, None, number)
    finally:
        seen.close()
    if scope is not None and (found := scope.finding()) is not None:
        find(*found)
    if counted.total > PROTOCOL_MAX_BYTES:
        find("too-many-bytes", f"{counted.total:,} bytes uncompressed; at most {PROTOCOL_MAX_BYTES:,}")
    return entries
