"""The one vocabulary of feedmap: every diagnostic code any command reports, its level, what it means, its spec.

One job: :data:`RULES`, the table reading, writing, following, splitting, ``diff`` and ``validate`` share (what
``feedmap codes`` lists, ``feedmap validate --explain CODE`` prints and ``docs/reference/codes.md`` is made
from), and :func:`rule`, which looks a code up.  Codes are stable slugs, named subject first, then what is wrong
with it (``loc-duplicate``, ``lastmod-invalid``, ``priority-invalid``): the codes of one field sort together.

A code has one meaning everywhere; its :attr:`Rule.level` is how ``feedmap validate`` (which repairs nothing)
reports it, or how the command that reports it does.  Reading repairs or leaves out what is wrong and goes on,
so it reports a few of ``validate``'s rules one level lower (:attr:`Rule.repaired`: ``loc-duplicate`` is a
warning in ``validate`` and an info when ``convert`` merges the duplicates).

The specs cited (:data:`SPECS`, in :mod:`feedmap._core.specs`): the sitemaps.org protocol 0.9 and its XSDs, W3C
Datetime, RFC 3986/3987 (URIs and IRIs), XML 1.0, RSS 2.0 with the W3C Feed Validator's reading, Atom (RFC 4287),
ROR, RFC 2822 dates, JSON Lines, robots.txt (RFC 9309), HTTP (RFC 9110), gzip (RFC 1952), the WHATWG Encoding and
HTML standards, Google's image, news, video and localized-versions sitemap extensions; feedmap's own behaviours
(splitting, publishing, filters, diff) cite "feedmap".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from feedmap._core.extension_rules import EXTENSION_RULES
from feedmap._core.renamed_codes import RENAMED, renamed_hint
from feedmap._core.rule import E, N, Rule, W
from feedmap._core.specs import SPECS

__all__ = ["RENAMED", "RULES", "SPECS", "Rule", "renamed_hint", "rule"]


_SITEMAPS, _XSD, _DATETIME, _URI, _IRI = "sitemaps.org 0.9", "sitemaps.org XSD", "W3C Datetime", "RFC 3986", "RFC 3987"
_XML, _RSS, _W3C, _ROR, _OWN = "XML 1.0", "RSS 2.0", "W3C Feed Validator", "ROR", "feedmap"

_TABLE: tuple[Rule, ...] = (
    # -- the input: opening, fetching, decompressing (RFC 9110, RFC 1952) --
    Rule("unreadable", E, "the input cannot be opened or read at all (missing file, HTTP error, size cap)", _OWN),
    Rule("file-missing", E, "a local file (or the path a URL is mapped to) that does not exist", _OWN),
    Rule(
        "too-large",
        E,
        "the input (or a response) is larger than the size cap (max_bytes); raise it for a trusted input",
        _OWN,
    ),
    Rule("http-NNN", E, "the server answered with HTTP status NNN (http-404, http-500, ...): not read", "RFC 9110"),
    Rule("fetch-failed", E, "the URL could not be fetched (connection refused, TLS, DNS)", "RFC 9110"),
    Rule("timeout", E, "the server did not answer (or send the body) within the timeout", "RFC 9110"),
    Rule("too-many-redirects", E, "more redirects than the limit allows: not followed further", "RFC 9110"),
    Rule("redirect-refused", E, "a redirect to a malformed URL, another scheme or off the allowed site", "RFC 9110"),
    Rule("invalid-url", E, "an input URL that is not a valid URL (a bad host, port or IPv6 literal)", _URI),
    Rule("bad-encoding", E, "a Content-Encoding feedmap cannot decode, or a damaged gzip content-encoding", "RFC 9110"),
    Rule(
        "truncated-gzip", W, "the gzip stream ends early: what it held before is read (validate: checked)", "RFC 1952"
    ),
    Rule("corrupt-gzip", W, "the gzip stream is damaged: what it held before is read (validate: checked)", "RFC 1952"),
    Rule(
        "map-escape",
        E,
        "an index child mapped to a local directory whose path leads outside it: not read",
        _OWN,
        repaired=W,
    ),
    # -- what the input is --
    Rule("unknown-format", E, "the input is not a sitemap, index, text sitemap or feed feedmap can read", _OWN),
    Rule(
        "html-page", E, "the input is an HTML page, not a sitemap or a feed (discover finds the site's sitemaps)", _OWN
    ),
    Rule("invalid-input", E, "the input cannot be read as the format it was given or detected as", _OWN),
    Rule("not-xml", E, "the input holds no XML root element", _XML),
    Rule("not-a-feed", E, "feedparser cannot read the input as RSS or Atom", _RSS),
    Rule("wrong-root", E, "a ROR document whose root element is not <rss>", _ROR),
    Rule(
        "csv-input",
        E,
        "a text sitemap that is a CSV file without a header (a URL then fields on each line): give one URL a line, "
        "or a header naming loc",
        _SITEMAPS,
    ),
    Rule("no-rules", N, "the format is read, but validate has no protocol rules for it", _OWN),
    Rule("read-as-index", N, "the input, given as a urlset, is a sitemap index and is read as one", _SITEMAPS),
    Rule("kind-changed", W, "the entries are an index's children, written to a format that holds pages", _OWN),
    # -- encodings and XML well-formedness (XML 1.0, WHATWG Encoding) --
    Rule(
        "unknown-encoding",
        E,
        "an encoding no reader uses (UTF-7), or UTF-16/32 declared on 8-bit bytes: read as UTF-8",
        "WHATWG Encoding",
        repaired=W,
    ),
    Rule(
        "not-utf8",
        E,
        "a text sitemap or CSV file (or one of its lines) that is not UTF-8: read as Windows-1252",
        _SITEMAPS,
        repaired=W,
    ),
    Rule("missing-bom", W, "a UTF-16/32 document without the byte-order mark XML 1.0 §4.3.3 requires", _XML),
    Rule(
        "encoding-error",
        W,
        "byte sequences that cannot be decoded in the declared encoding: replaced by U+FFFD",
        "WHATWG Encoding",
    ),
    Rule("invalid-utf8", W, "bytes that are not UTF-8 in a UTF-8 document: replaced by U+FFFD", "WHATWG Encoding"),
    Rule("invalid-character", W, "a character XML 1.0 does not allow (a control character): replaced by U+FFFD", _XML),
    Rule("invalid-char-ref", W, "a character reference to a character XML 1.0 does not allow: replaced", _XML),
    Rule("control-character", W, "control characters XML 1.0 does not allow: removed", _XML),
    Rule("bare-ampersand", W, "an '&' that starts no entity or character reference: read as '&amp;'", _XML),
    Rule("unresolved-entity", W, "an entity declared in the DOCTYPE, which is ignored: not expanded", _XML),
    Rule(
        "doctype-ignored",
        W,
        "the DOCTYPE is ignored (DTDs are never read); an info when it declares no entity",
        _XML,
        repaired=N,
    ),
    Rule(
        "leading-whitespace", W, "blank space before the XML declaration: removed (the declaration comes first)", _XML
    ),
    Rule(
        "xml-not-well-formed",
        E,
        "the XML breaks off or is malformed; validate stops, reading keeps what came before",
        _XML,
        repaired=W,
    ),
    Rule("xml-limit", E, "past a limit of the XML parser (one text of 10,000,000 characters, 256 levels)", _XML),
    Rule("truncated-entry", W, "the entry the XML broke off in, kept with the fields that were complete", _XML),
    Rule("more-repairs", W, "repairs past the first 100 of one kind, counted rather than listed one by one", _OWN),
    # -- sitemap documents (sitemaps.org 0.9 and its XSD) --
    Rule("namespace-wrong", E, "the root element has no namespace or another one than sitemaps.org 0.9's", _XSD),
    Rule(
        "namespace-variant",
        W,
        "a namespace variant readers accept (https, a trailing /, Google 0.84); the XSD does not",
        _XSD,
    ),
    Rule(
        "unknown-namespace",
        W,
        "the root element is in another namespace than sitemaps.org 0.9's: read as it",
        _SITEMAPS,
    ),
    Rule("entry-namespace", W, 'an entry in no namespace (xmlns="") inside a sitemap root: read as an entry', _XSD),
    Rule(
        "unknown-element",
        E,
        "an element not defined where it stands (of the sitemaps.org namespace; inside an image, news or video)",
        _XSD,
        repaired=W,
    ),
    Rule(
        "element-repeated",
        E,
        "a field given more than once where the XSD allows one (of <url>, <sitemap>, an image, news, video): the "
        "first is kept",
        _XSD,
        repaired=W,
    ),
    Rule(
        "element-order",
        E,
        "the fields of <url> are not in the XSD's order: loc, lastmod, changefreq, priority, others",
        _XSD,
    ),
    Rule(
        "loc-missing",
        E,
        "a <url> or <sitemap> (or item, image, JSON object) without a loc, or an empty one: skipped",
        _SITEMAPS,
        repaired=W,
    ),
    Rule("loc-as-text", W, "a URL written as the text of <url> without <loc>: read as its loc", _SITEMAPS),
    Rule(
        "loc-not-absolute",
        E,
        "a loc that is not an absolute http(s) URL, or whose host or port does not parse (reading takes any "
        "scheme://host: a text line skipped, a loc kept as written)",
        _SITEMAPS,
        repaired=W,
    ),
    Rule(
        "loc-not-escaped",
        E,
        'a URL with raw spaces, <>"{}|\\^`, non-ASCII or a lone %: write its escaped form (reading: blanks '
        "and characters no URI holds, kept as written; a text sitemap does not write a line break)",
        _SITEMAPS,
        repaired=W,
    ),
    Rule(
        "loc-too-long",
        E,
        "a URL of 2,048 characters or more (the protocol wants fewer than 2,048); reading keeps it as written",
        _SITEMAPS,
        repaired=W,
    ),
    Rule("loc-too-short", E, "a URL shorter than 12 characters (the XSD's minimum)", _XSD),
    Rule(
        "loc-out-of-scope",
        N,
        "URLs not under the sitemap's directory on its scheme, host and port, once a file "
        "(allowed when robots.txt names the sitemap)",
        _SITEMAPS,
    ),
    Rule(
        "outside-sitemap-scope",
        N,
        "URLs written not under the base URL the files are served from (allowed when robots.txt names the sitemap)",
        _SITEMAPS,
    ),
    Rule("loc-duplicate", W, "the same URL listed twice in one file (convert: merged, an info)", _SITEMAPS, repaired=N),
    Rule(
        "changefreq-invalid",
        E,
        "changefreq is not one of always hourly daily weekly monthly yearly never: ignored",
        _XSD,
        repaired=W,
    ),
    Rule(
        "changefreq-case", W, "a changefreq in another case than the lower case the XSD lists: read lower-cased", _XSD
    ),
    Rule(
        "priority-invalid",
        E,
        "priority is not an xsd:decimal (1.5e-1, high) or not between 0.0 and 1.0: ignored",
        _XSD,
        repaired=W,
    ),
    Rule("priority-normalised", N, "a priority written unusually (+.5, 0.50000000001): read as its number", _XSD),
    Rule("priority-rounded", W, "a priority with more decimal places than are written (or kept): rounded", _XSD),
    Rule("lastmod-invalid", E, "lastmod is not a W3C Datetime: ignored", _DATETIME, repaired=W),
    Rule("lastmod-repaired", W, "a lastmod that is almost a W3C Datetime, read as the instant it says", _DATETIME),
    Rule(
        "lastmod-not-xsd",
        W,
        "a W3C Datetime form the sitemaps XSD rejects (YYYY, YYYY-MM, hh:mm without seconds)",
        _XSD,
    ),
    Rule(
        "lastmod-seconds-added", N, "a lastmod written with :00 seconds, the same instant (the XSD wants seconds)", _XSD
    ),
    Rule("lastmod-no-zone", W, "an XSD form W3C Datetime rejects: a time without zone, or a date with one", _DATETIME),
    Rule("lastmod-future", W, "lastmod is more than a day in the future", _SITEMAPS),
    Rule("date-no-zone", W, "an RSS/Atom date without a time zone (or an unknown one): read as UTC", "RFC 2822"),
    Rule("whitespace-trimmed", N, "blank space around a value: removed", _XSD),
    Rule("too-many-entries", E, "more than 50,000 URLs (or sitemaps, or lines) in one file", _SITEMAPS, repaired=W),
    Rule("too-many-bytes", E, "more than 52,428,800 bytes once uncompressed", _SITEMAPS, repaired=W),
    *EXTENSION_RULES,
    Rule("urlset-empty", W, "a <urlset> without <url>: search engines accept it, the XSD does not", _XSD),
    Rule("index-empty", E, "a <sitemapindex> without <sitemap>", _XSD),
    Rule(
        "urlset-lists-sitemaps",
        W,
        "every loc of the urlset looks like a sitemap (.xml, .xml.gz): an index was meant",
        _SITEMAPS,
    ),
    Rule(
        "index-lists-pages",
        W,
        "every child of the index looks like a page (.html, .php, /): a urlset was meant",
        _SITEMAPS,
    ),
    Rule("not-a-sitemap", E, "a document discover found that is no sitemap, index or feed", _SITEMAPS),
    # -- following an index --
    Rule(
        "child-off-site",
        E,
        "an index child (or its redirect) on another scheme, host or port than the index: not read",
        _SITEMAPS,
        repaired=W,
    ),
    Rule(
        "child-not-read",
        W,
        "an index child that is no http(s) URL (nor a file: child of a local index): not read",
        _SITEMAPS,
    ),
    Rule("child-outside-directory", W, "a child of a local index that is not a file of its directory: not read", _OWN),
    Rule(
        "child-unreadable",
        E,
        "an index child that cannot be read (validate: an error; convert: a warning, the others are read)",
        _SITEMAPS,
        repaired=W,
    ),
    Rule("child-skipped", N, "an index child the follow filter (since) left out: not read", _OWN),
    Rule("nested-index", W, "an index child is itself an index (Google does not read nested indexes)", _SITEMAPS),
    Rule("index-loop", W, "an index child that is an index being read already (a loop): not followed", _OWN),
    Rule("index-too-deep", W, "an index child nested deeper than the depth limit (max_depth): not followed", _OWN),
    Rule("no-child-read", E, "no child of the index could be read: there is nothing to write", _OWN),
    Rule("relative-url", W, "a relative URL with no base URL to resolve it against: kept as written", _URI),
    Rule("relative-url-resolved", N, "a relative URL read as the absolute URL it stands for (RFC 3986 §5.2)", _URI),
    Rule(
        "relative-url-left-out",
        W,
        "entries without an absolute URL, left out of a format that requires them",
        _SITEMAPS,
    ),
    Rule("non-web-url", W, "a URL that is no http(s) URL (mailto:, javascript:, ftp:)", _SITEMAPS),
    # -- robots.txt (RFC 9309) --
    Rule("robots-unreadable", W, "robots.txt could not be read: its Sitemap: lines are not known", "RFC 9309"),
    Rule(
        "robots-bad-sitemap", W, "a Sitemap: line of robots.txt that is cut, not UTF-8 or no URL: ignored", "RFC 9309"
    ),
    Rule(
        "robots-relative-sitemap", N, "a Sitemap: line with a relative URL, read against robots.txt's URL", "RFC 9309"
    ),
    Rule("robots-truncated", N, "robots.txt is longer than the 500 KiB read: the rest is ignored", "RFC 9309"),
    Rule("robots-sitemaps", N, "discover: robots.txt names sitemaps (Sitemap: lines)", "RFC 9309"),
    Rule("robots-no-sitemaps", N, "discover: robots.txt names no sitemap; the usual locations are tried", "RFC 9309"),
    Rule("found", N, "discover: a usual location (/sitemap.xml, ...) holds a sitemap, index or feed", _SITEMAPS),
    Rule(
        "not-html",
        W,
        "a page enrichment wanted is not an HTML page (by its Content-Type or name): not enriched",
        "HTML",
    ),
    Rule("robots-disallowed", W, "robots.txt disallows fetching the page enrichment wanted: not fetched", "RFC 9309"),
    Rule(
        "enrich-failed", W, "a page enrichment wanted could not be fetched or read: the entry is kept as it was", _OWN
    ),
    Rule(
        "enrich-summary",
        N,
        "what enrichment did, said once at the end: pages enriched, unchanged, not fetched, failed by reason",
        _OWN,
    ),
    # -- feeds: RSS 2.0 (with the W3C Feed Validator's event names), ROR, Atom --
    Rule("feed-not-rss2", N, "an RSS 1.0 or Atom feed: only its well-formedness is checked by the RSS rules", _RSS),
    Rule(
        "rss-root",
        E,
        "the root element is not <rss> (nor RSS 1.0's rdf:RDF or Atom's feed) (W3C: UndefinedElement)",
        _W3C,
    ),
    Rule(
        "rss-version",
        E,
        '<rss> needs version="2.0" (0.91 and 0.92 are accepted) (W3C: MissingAttribute, InvalidRSSVersion)',
        _W3C,
    ),
    Rule("rss-channel", E, "<rss> holds exactly one <channel> (W3C: MissingElement, DuplicateElement)", _W3C),
    Rule(
        "rss-channel-title",
        E,
        "the channel has a non-empty <title> (W3C: MissingTitle; an empty one is its NotBlank)",
        _W3C,
    ),
    Rule("rss-channel-link", E, "the channel has a non-empty <link> (W3C: MissingLink)", _W3C),
    Rule("rss-channel-description", E, "the channel has a non-empty <description> (W3C: MissingDescription)", _W3C),
    Rule(
        "rss-item-title-or-description",
        E,
        "each item has a <title> or a <description> (W3C: ItemMustContainTitleOrDescription)",
        _W3C,
    ),
    Rule(
        "rss-date",
        E,
        "pubDate and lastBuildDate are RFC 822 dates that exist, with the right weekday (W3C: "
        "InvalidRFC2822Date, IncorrectDOW)",
        _W3C,
    ),
    Rule(
        "rss-date-form",
        W,
        "an RFC 822 date in a form RFC 2822 does not write (two-digit year, case, no zone) "
        "(W3C: ProblematicalRFC822Date)",
        _W3C,
    ),
    Rule(
        "rss-guid-permalink",
        E,
        'a <guid> without isPermaLink="false" is an absolute URL (W3C: InvalidHttpGUID, InvalidPermalink)',
        _W3C,
    ),
    Rule("rss-guid-ispermalink", E, 'isPermaLink is "true" or "false" (W3C: InvalidBooleanAttribute)', _W3C),
    Rule("rss-duplicate-guid", E, "two items have the same <guid> (W3C: DuplicateValue)", _W3C),
    Rule("rss-link", E, "an item or channel <link> is an absolute URL (W3C: InvalidFullLink, InvalidUriChar)", _W3C),
    Rule("rss-link-scheme", W, "an item or channel <link> is not http(s): sitemap readers skip it", _RSS),
    Rule(
        "rss-self-link",
        W,
        'an RSS 2.0 channel is advised to name its own URL in <atom:link rel="self"> (W3C: MissingAtomSelfLink)',
        _W3C,
    ),
    Rule(
        "rss-self-link-mismatch",
        W,
        "the channel's atom:link rel=\"self\" is not the feed's URL (W3C: SelfDoesntMatchLocation)",
        _W3C,
    ),
    Rule(
        "ror-namespace",
        W,
        "the ROR namespace is spelt http://rorweb.com/0.1/ (not https, www., or without the slash)",
        _ROR,
    ),
    Rule("no-ror-namespace", W, "a ROR document that does not declare the ROR namespace", _ROR),
    Rule("ror-update-period", E, "ror:updatePeriod is one of always hourly daily weekly monthly yearly never", _ROR),
    Rule("ror-empty-value", W, "an empty ror:updatePeriod or ror:type says nothing: leave it out", _ROR),
    Rule("ror-type-case", W, "a ror:type of the ROR vocabulary spelt in another case (SiteMap, not sitemap)", _ROR),
    Rule("ror-custom-type", N, "a ror:type the ROR vocabulary does not name (custom types are allowed)", _ROR),
    Rule("malformed-feed", W, "the feed is not well-formed XML: read leniently by feedparser", _XML),
    Rule("feed-recovered-url", W, "a URL feedparser's recovery of a malformed feed read, not in it as written", _XML),
    Rule("html-entity", W, "an HTML entity XML does not define (&nbsp;) in a feed: read as its character", _XML),
    Rule("double-escaped", W, "a value escaped twice (&amp;amp;): unescaped once", _RSS),
    Rule("channel-link-missing", W, "no channel link is known for the feed written: give one (channel_link)", _RSS),
    Rule("title-missing", N, "entries without a title or description: the item title written is their URL", _RSS),
    Rule(
        "updated-assumed",
        N,
        "an Atom entry without a lastmod has the feed's updated (Atom requires one); with none at all: the run's time",
        "RFC 4287",
    ),
    Rule(
        "lastmod-as-rfc3339",
        N,
        "a lastmod Atom's RFC 3339 updated cannot hold as written (a time without zone): the instant it starts at",
        "RFC 4287",
    ),
    Rule(
        "alternate-repeated",
        W,
        "an hreflang alternate whose language another of the entry has (or none): an Atom entry holds one, not written",
        "RFC 4287",
    ),
    Rule("html-sanitized", W, "markup an RSS description may not safely hold (scripts, handlers): removed", "HTML"),
    Rule("ampersand-escaped", N, "an '&' of a description that starts no character reference: written '&amp;'", "HTML"),
    Rule("markup-in-text", W, "HTML markup in a plain-text field: written as its text", _RSS),
    Rule("keyword-changed", W, "a keyword written trimmed, or an empty one left out", _RSS),
    # -- JSON lines and text sitemaps --
    Rule("invalid-json", W, "a line of JSON lines that is not a JSON object: skipped", "JSON Lines"),
    Rule(
        "invalid-value",
        W,
        "a JSON value (of JSON lines, or a CSV cell) of the wrong type, or a string holding a lone surrogate: skipped",
        "JSON Lines",
    ),
    Rule("unknown-key", W, "keys of a JSON lines object (or header) feedmap does not know: ignored", "JSON Lines"),
    Rule("unknown-column", W, "columns of a Parquet or CSV file feedmap does not know: ignored", "Apache Parquet"),
    Rule("parquet-invalid", E, "an input that is no readable Parquet file, or has no loc column", "Apache Parquet"),
    Rule("invalid-extra", W, "an extra field whose value cannot be written or read: dropped", "JSON Lines"),
    Rule("line-too-long", W, "a line longer than the line cap (max_line_bytes): skipped (in CSV, with its row)", _OWN),
    Rule(
        "csv-invalid",
        E,
        "a CSV file whose header names no loc (or url) column, a column twice, or an item's parts without its key",
        "RFC 4180",
    ),
    Rule(
        "csv-row",
        W,
        "a CSV row that is not valid CSV (a stray quote, a quote never closed) or has more cells than its header: "
        "skipped",
        "RFC 4180",
    ),
    Rule(
        "csv-formula",
        N,
        "CSV cells written as they are that a spreadsheet runs as formulas (=, +, -, @ first): excel_safe writes them",
        "OWASP CSV Injection",
    ),
    Rule("csv-line", W, "a text sitemap line that is a URL followed by comma-separated fields: skipped", _SITEMAPS),
    # -- writing --
    Rule("url-not-encoded", W, "a URL written as read although no URI holds it as it is (keep_urls)", _IRI),
    Rule("url-encoded", N, "a URL written in its escaped form (RFC 3987 §3.1: an IRI mapped to a URI)", _IRI),
    Rule("host-not-encoded", W, "a host name that cannot be written in IDNA (punycode) form: written as read", _IRI),
    Rule("character-dropped", W, "a character the output cannot hold (XML 1.0, UTF-8): dropped", _XML),
    Rule("field-dropped", N, "a field the output format cannot hold: not written", _OWN),
    Rule("extra-dropped", N, "an extra field with no place (or no valid name) in the output: not written", _OWN),
    Rule("empty-document", W, "nothing to write: the output is an empty document", _OWN),
    Rule("extension-broken", W, "a sitemap extension that cannot be loaded: its elements are kept as XML extras", _OWN),
    Rule(
        "extension-failed",
        W,
        "a sitemap extension failed: the element read is kept as it is, the entry's extension not written",
        _OWN,
    ),
    Rule(
        "extension-name-taken",
        W,
        "a feedmap.extensions entry point named like a built-in or an earlier extension: not loaded",
        "Entry points",
    ),
    Rule(
        "format-name-taken",
        W,
        "a feedmap.formats entry point named like a format registered before it: not loaded",
        "Entry points",
    ),
    Rule("format-accept-failed", W, "a format's accept(head) raised: that format was passed over", _OWN),
    # -- converters (filters, duplicates), splitting and publishing --
    Rule("duplicates-merged", N, "repeated URLs merged into one entry, the newest lastmod kept", _SITEMAPS),
    Rule("more-duplicates", N, "repeated URLs past those listed one by one, counted", _OWN),
    Rule("entries-filtered", N, "entries the filters (include, exclude, since) left out", _OWN),
    Rule("fields-set", N, "a value set on every entry (set, set_missing): the values read it replaced", _OWN),
    Rule("no-lastmod-kept", N, "entries without a lastmod kept by since: require_lastmod leaves them out", _OWN),
    Rule("limit-reached", N, "the limit of entries was written: the rest is not read", _OWN),
    Rule("entry-too-large", W, "one entry larger than a split file may be: written alone in a file", _SITEMAPS),
    Rule("too-many-files", E, "splitting would write more files than an index may list (50,000)", _SITEMAPS),
    Rule("base-url-names-a-file", W, "the base URL looks like a file's URL: taken as its directory's", _OWN),
    Rule("stale-files-left", W, "files the replaced index named at another URL: left in place", _OWN),
    Rule("stale-files-removed", N, "files the replaced index named and this run does not write: removed", _OWN),
    Rule("leftovers-removed", N, "temporary files a killed run left: removed", _OWN),
    Rule(
        "cut-afresh",
        N,
        "the file at the index's name is no index of this set (another set's, or no index): cut afresh",
        _OWN,
    ),
    Rule(
        "previous-run-unusable",
        W,
        "the directory's previous run cannot be read back (a file missing, broken or edited): cut afresh",
        _OWN,
    ),
    # -- diff --
    Rule("same-files", E, "diff was given the same file (or directory) as both sides", _OWN),
    Rule("input-incomplete", E, "a diff side not read completely: the URLs it lost are not compared as removed", _OWN),
    Rule("fields-not-compared", N, "fields one side's format cannot hold: not compared", _OWN),
)

#: code -> its :class:`Rule`, every code feedmap reports.
RULES: Mapping[str, Rule] = MappingProxyType({entry.code: entry for entry in _TABLE})

_HTTP_STATUS = re.compile(r"http-[0-9]{3}")


def rule(code: str) -> Rule | None:
    """The rule of ``code`` (``http-404`` is ``http-NNN``'s), or None for a code feedmap does not report."""
    return RULES.get("http-NNN" if _HTTP_STATUS.fullmatch(code) else code)
