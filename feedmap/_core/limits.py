"""The default cap on the bytes read from one input, and the protocol's limits on one written file.

sitemaps.org 0.9 (https://www.sitemaps.org/protocol.html) limits a sitemap to 52,428,800 bytes
uncompressed; the default cap here is above that (100 MiB) and counts decompressed bytes, so a
decompression bomb stops at the cap.  It lives below every module that reads, so that
:mod:`feedmap._core.context` and :mod:`feedmap._io.sources` share it without importing each other.
"""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_BYTES", "PROTOCOL_MAX_BYTES", "PROTOCOL_MAX_URLS"]

#: Largest input read (after decompression), in bytes.
DEFAULT_MAX_BYTES = 100 * 1024 * 1024
#: sitemaps.org: at most 50,000 URLs and 52,428,800 bytes (uncompressed) in one sitemap (and one index).
PROTOCOL_MAX_URLS = 50_000
PROTOCOL_MAX_BYTES = 52_428_800
