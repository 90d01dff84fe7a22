"""The default cap on the bytes read from one input, and the protocol's limits on one file: the one place
reading, writing, splitting and ``validate`` take them from.

sitemaps.org 0.9 (https://www.sitemaps.org/protocol.html) limits a sitemap to 50,000 URLs and 52,428,800 bytes
uncompressed, an index to 50,000 sitemaps; Google's image extension
(https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps) to 1,000 images per
URL.  The default cap on what is read is above the size limit (100 MiB) and counts decompressed bytes, so a
decompression bomb stops at the cap.  It lives below every module that reads, so that
:mod:`feedmap._core.context` and :mod:`feedmap._io.sources` share it without importing each other.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_NEWS",
    "PROTOCOL_MAX_BYTES",
    "PROTOCOL_MAX_IMAGES",
    "PROTOCOL_MAX_SITEMAPS",
    "PROTOCOL_MAX_URLS",
]

#: Largest input read (after decompression), in bytes.
DEFAULT_MAX_BYTES = 100 * 1024 * 1024
#: sitemaps.org: at most 50,000 URLs and 52,428,800 bytes (uncompressed) in one sitemap (and one index).
PROTOCOL_MAX_URLS = 50_000
PROTOCOL_MAX_BYTES = 52_428_800
#: sitemaps.org: an index lists at most 50,000 sitemaps (and is never nested).
PROTOCOL_MAX_SITEMAPS = 50_000
#: The image extension: at most 1,000 <image:image> in one <url>.
PROTOCOL_MAX_IMAGES = 1_000
#: Google News sitemaps: at most 1,000 ``news:news`` in one sitemap.
MAX_NEWS = 1_000
