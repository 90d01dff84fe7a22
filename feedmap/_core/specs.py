"""The specs feedmap's diagnostic codes cite (:mod:`feedmap._core.rules`), and where each is read.

One job: the names a :class:`~feedmap._core.rules.Rule` gives in its ``spec`` and their addresses, which
``feedmap codes`` and ``docs/reference/codes.md`` link to.  ``"feedmap"`` stands for feedmap's own behaviour
(splitting, publishing, filters, diff): no address.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["SPECS"]

#: The spec each rule cites -> where it is read.
SPECS: Mapping[str, str] = MappingProxyType(
    {
        "sitemaps.org 0.9": "https://www.sitemaps.org/protocol.html",
        "sitemaps.org XSD": "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd",
        "W3C Datetime": "https://www.w3.org/TR/NOTE-datetime",
        "RFC 3986": "https://www.rfc-editor.org/rfc/rfc3986",
        "RFC 3987": "https://www.rfc-editor.org/rfc/rfc3987",
        "XML 1.0": "https://www.w3.org/TR/xml/",
        "RSS 2.0": "https://www.rssboard.org/rss-specification",
        "RFC 4287": "https://www.rfc-editor.org/rfc/rfc4287",
        "W3C Feed Validator": "https://validator.w3.org/feed/docs/",
        "ROR": "http://rorweb.com/0.1/",
        "RFC 2822": "https://www.rfc-editor.org/rfc/rfc2822#section-3.3",
        "JSON Lines": "https://jsonlines.org/",
        "RFC 4180": "https://www.rfc-editor.org/rfc/rfc4180",
        "OWASP CSV Injection": "https://owasp.org/www-community/attacks/CSV_Injection",
        "Apache Parquet": "https://parquet.apache.org/docs/file-format/",
        "RFC 9309": "https://www.rfc-editor.org/rfc/rfc9309",
        "RFC 9110": "https://www.rfc-editor.org/rfc/rfc9110",
        "RFC 1952": "https://www.rfc-editor.org/rfc/rfc1952",
        "WHATWG Encoding": "https://encoding.spec.whatwg.org/",
        "HTML": "https://html.spec.whatwg.org/",
        "Google image sitemaps": "https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps",
        "Google News sitemaps": "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap",
        "Google video sitemaps": "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
        "Google localized versions": "https://developers.google.com/search/docs/specialty/international/localized-versions",
        "BCP 47": "https://www.rfc-editor.org/rfc/rfc5646",
        "Entry points": "https://packaging.python.org/en/latest/specifications/entry-points/",
        "feedmap": "",
    }
)
