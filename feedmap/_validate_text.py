"""Validating a text sitemap as written: one absolute, escaped URL a line, UTF-8, within the limits.

Spec: the sitemaps.org protocol 0.9, "Text file" (https://www.sitemaps.org/protocol.html#otherformats): one
URL a line, nothing else, UTF-8, at most 50,000 URLs and 52,428,800 bytes.  Blank lines are tolerated (as
search engines do).  Streaming, line by line; repeated URLs are remembered in
:class:`~feedmap._seen_keys.SeenKeys` (in memory up to 250,000, then SQLite on disk).
"""

from __future__ import annotations

import io

from feedmap._limits import PROTOCOL_MAX_BYTES, PROTOCOL_MAX_URLS
from feedmap._seen_keys import SeenKeys
from feedmap._validate_rules import Findings
from feedmap._validate_values import check_url

__all__ = ["validate_text"]


def validate_text(stream: io.RawIOBase, find: Findings) -> int:
    """Check a text sitemap; returns the number of URLs."""
    seen = SeenKeys()
    entries = total = 0
    said_utf8 = False
    try:
        for number, raw in enumerate(io.BufferedReader(stream), 1):
            total += len(raw)
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
            first = seen.get(url)
            if first is not None:
                find("loc-duplicate", f"{url} is also on line {first}", number)
            else:
                seen.add(url, number)
    finally:
        seen.close()
    if total > PROTOCOL_MAX_BYTES:
        find("too-many-bytes", f"{total:,} bytes uncompressed; at most {PROTOCOL_MAX_BYTES:,}")
    return entries
