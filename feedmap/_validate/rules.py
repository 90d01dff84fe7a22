"""The rules of ``feedmap validate``: each finding's stable code, its level and a one-line explanation.

One job: :data:`RULES` (what ``feedmap validate --explain CODE`` prints) and :class:`Findings`, which turns a
code and a message into a :class:`~feedmap._core.errors.Diagnostic` at the code's level, so that no rule can be
reported without an entry in the table.  The rules come from the sitemaps.org protocol 0.9
(https://www.sitemaps.org/protocol.html) and its XSDs, the W3C Datetime note
(https://www.w3.org/TR/NOTE-datetime) and RFC 3986 (URIs).  The RSS/ROR rules live with the feed checks.
"""

from __future__ import annotations

from collections.abc import Callable

from feedmap._core.errors import Diagnostic, Level

__all__ = ["RULES", "Findings"]

E, W, N = Level.ERROR, Level.WARNING, Level.INFO

#: code -> (level, one-line explanation).
RULES: dict[str, tuple[Level, str]] = {
    "unreadable": (E, "the input cannot be opened or read at all (missing file, HTTP error, size cap)"),
    "unknown-format": (E, "the input is not a sitemap, index, text sitemap or feed feedmap can validate"),
    "no-rules": (N, "the format is read, but validate has no protocol rules for it"),
    "truncated-gzip": (W, "the gzip stream ends early: what it held before is checked"),
    "corrupt-gzip": (W, "the gzip stream is damaged: what it held before is checked"),
    "unknown-encoding": (E, "an encoding no reader uses (UTF-7), or UTF-16/32 declared on 8-bit bytes: read as UTF-8"),
    "xml-not-well-formed": (E, "the XML breaks off or is malformed (XML 1.0 well-formedness); checking stops"),
    "xml-limit": (E, "past a limit of the XML parser (one text of 10,000,000 characters, 256 levels); checking stops"),
    "namespace-wrong": (E, "the root element has no namespace or another one than sitemaps.org 0.9's"),
    "namespace-variant": (W, "a namespace variant readers accept (https, a trailing /, Google 0.84); the XSD does not"),
    "unknown-element": (E, "an element of the sitemaps.org namespace that the protocol does not define here"),
    "element-repeated": (E, "a field of <url> or <sitemap> given more than once (the XSD allows one)"),
    "element-order": (E, "the fields of <url> are not in the XSD's order: loc, lastmod, changefreq, priority, others"),
    "loc-missing": (E, "a <url> or <sitemap> without a <loc>, or with an empty one"),
    "loc-not-absolute": (E, "a loc (or text line) that is not an absolute http(s) URL"),
    "loc-not-escaped": (E, 'a URL with raw spaces, <>"{}|\\^`, non-ASCII or a lone %: write its escaped form'),
    "loc-too-long": (E, "a URL of 2,048 characters or more (the protocol wants fewer than 2,048)"),
    "loc-too-short": (E, "a URL shorter than 12 characters (the XSD's minimum)"),
    "loc-out-of-scope": (
        N,
        "URLs not under the sitemap's directory on its scheme, host and port, once a file with a count "
        "(allowed when the site's robots.txt names the sitemap or its index; convert says it as an INFO too)",
    ),
    "loc-duplicate": (W, "the same URL listed twice in one file"),
    "changefreq-invalid": (E, "changefreq is not one of always hourly daily weekly monthly yearly never"),
    "priority-invalid": (E, "priority is not an xsd:decimal (1.5e-1, high) or not between 0.0 and 1.0"),
    "lastmod-invalid": (E, "lastmod is not a W3C Datetime"),
    "lastmod-not-xsd": (W, "a W3C Datetime form the sitemaps XSD rejects (YYYY, YYYY-MM, hh:mm without seconds)"),
    "lastmod-no-zone": (W, "an XSD form W3C Datetime rejects: a time without zone, or a date with one"),
    "lastmod-future": (W, "lastmod is more than a day in the future"),
    "too-many-entries": (E, "more than 50,000 URLs (or sitemaps, or lines) in one file"),
    "too-many-bytes": (E, "more than 52,428,800 bytes once uncompressed"),
    "too-many-images": (E, "more than 1,000 <image:image> in one <url>"),
    "image-loc-invalid": (E, "an <image:image> without a <image:loc> that is an absolute http(s) URL"),
    "urlset-empty": (W, "a <urlset> without <url>: search engines accept it, the XSD does not"),
    "index-empty": (E, "a <sitemapindex> without <sitemap>"),
    "child-off-site": (E, "an index child (or its redirect) on another scheme, host or port than the index: not read"),
    "urlset-lists-sitemaps": (W, "every loc of the urlset looks like a sitemap (.xml, .xml.gz): an index was meant"),
    "index-lists-pages": (W, "every child of the index looks like a page (.html, .php, /): a urlset was meant"),
    "nested-index": (W, "an index child is itself an index (Google does not read nested indexes)"),
    "child-unreadable": (E, "an index child that cannot be read"),
    "index-loop": (W, "an index child that is an index being validated already (a loop): not followed"),
    "index-too-deep": (W, "an index child nested deeper than the depth limit allows (max_depth): not followed"),
    "map-escape": (E, "an index child mapped to a local directory whose path leads outside it: not read"),
    "not-utf8": (E, "a text sitemap that is not UTF-8"),
}


class Findings:
    """Reports findings of one file by code; the level comes from :data:`RULES`."""

    def __init__(self, report: Callable[[Diagnostic], None], name: str) -> None:
        self.report = report
        self.name = name

    def __call__(self, code: str, message: str, line: int = 0, column: int = 0) -> None:
        level = RULES[code][0]
        self.report(Diagnostic(level, code, message, self.name, line, column))
