"""Validating an XML sitemap (``<urlset>``) or sitemap index (``<sitemapindex>``) as written, streaming.

Spec: the sitemaps.org protocol 0.9 (https://www.sitemaps.org/protocol.html) and its XSDs, the Google image
extension 1.1 (1,000 images a URL), Google's news and video extensions (:mod:`feedmap._validate.media`: 1,000
``news:news`` a file), XML 1.0 well-formedness (https://www.w3.org/TR/xml/).  The raw document is
parsed with lxml's ``iterparse`` under the settings :func:`feedmap._xml.make_iterparse` uses (no DTD, no
entities, no network: XXE and entity bombs are inert) but without feedmap's reading repairs, so that what a
lenient read repairs is reported here.  Each ``<url>``/``<sitemap>`` is checked when it ends and then
cleared: memory stays flat but for the duplicate store (:class:`~feedmap._io.seen_keys.SeenKeys`: a dict of
about 100-150 bytes a URL up to 250,000 URLs, then SQLite on disk) and, for an index, its child URLs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import BinaryIO

from lxml import etree

from feedmap._core.context import FollowPredicate
from feedmap._core.dates import parse_lenient
from feedmap._core.follow_rules import child_url, scope_refusal
from feedmap._core.limits import MAX_NEWS, PROTOCOL_MAX_BYTES, PROTOCOL_MAX_IMAGES, PROTOCOL_MAX_URLS
from feedmap._io.seen_keys import SeenKeys
from feedmap._validate.hreflang import LINK_TAG, check_links, page_key
from feedmap._validate.media import NEWS_TAG, VIDEO_TAG, check_news, check_video
from feedmap._validate.return_links import Pages
from feedmap._validate.rules import Findings
from feedmap._validate.values import (
    ScopeTally,
    check_changefreq,
    check_lastmod,
    check_priority,
    check_url,
    looks_like_page,
    looks_like_sitemap,
)
from feedmap._xml import (
    GOOGLE_084_NS,
    IMAGE_NS,
    SITEMAP_NAMESPACES,
    SITEMAP_NS,
    line_of,
    local_name,
    make_iterparse,
    parser_limit,
    unusable_declaration,
)

__all__ = ["Counted", "SitemapResult", "validate_sitemap"]

_ORDER = ("loc", "lastmod", "changefreq", "priority")
_MEDIA_TAGS = frozenset({NEWS_TAG, VIDEO_TAG})
_IMAGE_TAG = f"{{{IMAGE_NS}}}image"
_FIELDS = {
    "url": frozenset({"loc", "lastmod", "changefreq", "priority"}),
    "sitemap": frozenset({"loc", "lastmod"}),
}


class Counted:
    """A binary stream that counts the bytes read through it (the uncompressed size limit)."""

    def __init__(self, inner: BinaryIO) -> None:
        self.inner = inner
        self.total = 0

    def read(self, size: int = -1) -> bytes:
        data = self.inner.read(size)
        self.total += len(data)
        return data


class SitemapResult:
    """What one file held: its kind, entry count and, for an index, its children (loc, line)."""

    def __init__(self) -> None:
        self.kind = ""
        self.entries = 0
        self.children: list[tuple[str, int]] = []


#: Reports one finding: code, message, line.
_Find = Callable[[str, str, int], None]


class _Checker:
    """The state of one document's checks."""

    def __init__(
        self,
        find: Findings,
        base_url: str | None,
        now: dt.datetime,
        lifted: Callable[[], bool] | None,
        follow_child: FollowPredicate | None = None,
        pages: Pages | None = None,
        key: Callable[[str], str] = str,
    ) -> None:
        self.findings = find
        self.follow_child = follow_child
        self.pages = pages
        self.key = key
        #: The hreflang links (``xhtml:link``) of the entry being checked, and what its loc's check found.
        self.links: list[etree._Element] = []
        self.loc_problem: tuple[str, str] | None = None
        self.find: _Find = find
        self.base_url = base_url
        self.scope = ScopeTally(base_url, lifted) if base_url is not None else None
        self.now = now
        self.result = SitemapResult()
        self.namespace = ""
        self.root_line = 0
        self.seen = SeenKeys()
        self.news = 0  # the news:news read so far
        # whether every loc so far looks like a sitemap (a page): once not, they are not looked at again
        self.all_sitemaps = self.all_pages = True
        self.checks: dict[str, Callable[[str], tuple[str, str] | None]] = {
            "lastmod": lambda text: check_lastmod(text, self.now),
            "changefreq": check_changefreq,
            "priority": check_priority,
        }

    def root(self, element: etree._Element) -> None:
        tag = str(element.tag)
        namespace = tag[1 : tag.index("}")] if tag.startswith("{") else ""
        self.namespace = namespace
        self.root_line = line_of(element)
        self.result.kind = tag.rsplit("}", 1)[-1]
        if namespace == SITEMAP_NS:
            return
        if namespace in SITEMAP_NAMESPACES and namespace:
            old = " (Google's old 0.84 namespace)" if namespace == GOOGLE_084_NS else ""
            self.find("namespace-variant", f"namespace {namespace!r}{old}: write {SITEMAP_NS!r}", self.root_line)
        else:
            what = f"namespace {namespace!r}" if namespace else "no namespace"
            self.find("namespace-wrong", f'<{self.result.kind}> has {what}; write xmlns="{SITEMAP_NS}"', self.root_line)

    def ours(self, tag: str) -> str | None:
        """The local name of a tag in the document's sitemap namespace, or None."""
        if self.namespace:
            prefix = "{" + self.namespace + "}"
            return tag[len(prefix) :] if tag.startswith(prefix) else None
        return None if tag.startswith("{") else tag

    def entry(self, element: etree._Element) -> None:
        """Check one entry; its findings are given in line order (fields are checked in turn, not in order)."""
        pending: list[tuple[int, str, str]] = []
        self.find = lambda code, message, line: pending.append((line, code, message))
        try:
            self._entry(element)
        finally:
            self.find = self.findings
            pending.sort(key=lambda finding: finding[0])  # stable: the same line keeps its order
            for line, code, message in pending:
                self.findings(code, message, line)

    def _entry(self, element: etree._Element) -> None:
        kind = "url" if self.result.kind == "urlset" else "sitemap"
        line = line_of(element)
        name = self.ours(str(element.tag))
        if name != kind:
            if name is not None:
                self.find("unknown-element", f"<{name}> does not belong in <{self.result.kind}>", line)
            return
        self.result.entries += 1
        if self.result.entries == PROTOCOL_MAX_URLS + 1:
            self.find("too-many-entries", f"more than {PROTOCOL_MAX_URLS:,} <{kind}> in one file", line)
        self.links = []
        fields = self.children(element, kind)
        self.fields(kind, fields, line)
        if kind == "url":
            self.page(fields.get("loc", ("", 0))[0].strip(), line)

    def page(self, loc: str, line: int) -> None:
        """The page's alternates checked (:mod:`feedmap._validate.hreflang`), the page given to ``pages``."""
        links, self.links = self.links, []
        if not loc:
            return
        if not links:
            if self.pages is not None:
                self.pages.page(self.findings.name, loc, None, line)
            return
        own = page_key(loc, self.loc_problem, self.key)
        alternates = check_links(loc, own, line, links, self.key, self.find)
        if self.pages is not None:
            self.pages.page(self.findings.name, loc, own, line, alternates)

    def children(self, element: etree._Element, kind: str) -> dict[str, tuple[str, int]]:
        """The fields of one entry (text as written, line); unknown, repeated and misplaced ones reported."""
        fields: dict[str, tuple[str, int]] = {}
        images = news = 0
        last = -1  # the place in _ORDER of the last field; past the end after an extension element
        misplaced = False
        for child in element:
            tag = child.tag
            if tag == LINK_TAG:  # first: a page may name dozens of alternates
                last = len(_ORDER)
                if kind == "url":
                    self.links.append(child)
                continue
            if not isinstance(tag, str):
                continue
            child_name = self.ours(tag)
            if child_name is None:
                last = len(_ORDER)
                if tag == _IMAGE_TAG:
                    images += 1
                    self.image(child, images)
                elif tag in _MEDIA_TAGS:
                    news += tag == NEWS_TAG
                    self.media(child, kind, news)
            elif child_name not in _FIELDS[kind]:
                self.find("unknown-element", f"<{child_name}> does not belong in <{kind}>", line_of(child))
            elif child_name in fields:
                self.find("element-repeated", f"<{child_name}> is given twice in one <{kind}>", line_of(child))
            else:
                fields[child_name] = (self.text_only(child, child_name), line_of(child))
                place = _ORDER.index(child_name)
                if place < last and not misplaced:
                    misplaced = True
                    order = ", ".join(name for name in _ORDER if name in _FIELDS[kind])
                    self.find(
                        "element-order",
                        f"<{child_name}> is out of place: the XSD wants {order}, then other namespaces' elements",
                        line_of(child),
                    )
                last = max(last, place)
        return fields

    def text_only(self, field: etree._Element, name: str) -> str:
        """A field's text; none when it holds an element (lxml's ``.text`` stops there), as the readers say."""
        inner = next((node for node in field if isinstance(node.tag, str)), None)
        if inner is None:
            return field.text or ""
        message = f"<{local_name(inner.tag)}> inside <{name}> is not read: <{name}> must hold text only"
        self.find("unknown-element", f"{message}; its value is not used", line_of(inner))
        return ""

    def image(self, image: etree._Element, count: int) -> None:
        if count == PROTOCOL_MAX_IMAGES + 1:
            self.find("too-many-images", f"more than {PROTOCOL_MAX_IMAGES:,} images in one <url>", line_of(image))
        loc = image.find(f"{{{IMAGE_NS}}}loc")
        text = (loc.text or "").strip() if loc is not None else ""
        problem = check_url(text) if text else ("", "")
        if problem is not None:
            self.find("image-loc-invalid", f"image loc {text!r} is not an absolute http(s) URL", line_of(image))

    def media(self, child: etree._Element, kind: str, news: int) -> None:
        """Check a ``news:news`` or ``video:video`` (:mod:`feedmap._validate.media`) of a ``<url>`` (``kind``;
        ``news``: the news of this one so far); count the news of the file."""
        name = "news:news" if child.tag == NEWS_TAG else "video:video"
        if kind != "url":
            self.find("unknown-element", f"<{name}> does not belong in <{kind}>: it is a page's", line_of(child))
            return
        if child.tag == NEWS_TAG and news > 1:
            self.find("element-repeated", f"<{name}> is given twice in one <url> (Google reads one)", line_of(child))
            return
        if child.tag == NEWS_TAG:
            self.news += 1
            if self.news == MAX_NEWS + 1:
                self.find("news-too-many", f"more than {MAX_NEWS:,} <news:news> in one file", line_of(child))
            check_news(child, self.find, self.now)
        elif child.tag == VIDEO_TAG:
            check_video(child, self.find)

    def fields(self, kind: str, fields: dict[str, tuple[str, int]], line: int) -> None:
        """Check each field, in the order written."""
        if not fields.get("loc", ("", 0))[0].strip():
            self.find("loc-missing", f"<{kind}> has no <loc>", fields.get("loc", ("", line))[1])
        for name, (text, at) in fields.items():
            if name == "loc":
                loc = text.strip()  # xsd:anyURI collapses white space
                if loc:
                    self.loc(loc, at, kind, fields.get("lastmod", ("", 0))[0])
                continue
            check = self.checks.get(name)
            problem = check(text) if check is not None else None
            if problem is not None:
                self.find(*problem, at)

    def loc(self, loc: str, line: int, kind: str, lastmod: str = "") -> None:
        problem = self.loc_problem = check_url(loc)
        if problem is not None:
            self.find(*problem, line)
        elif kind == "url" and self.scope is not None:
            self.scope.check(loc, line)
        first = self.seen.get(loc)
        if first is not None:
            self.find("loc-duplicate", f"{loc} is also on line {first}", line)
        else:
            self.seen.add(loc, line)
        self.all_sitemaps = self.all_sitemaps and looks_like_sitemap(loc)
        self.all_pages = self.all_pages and looks_like_page(loc)
        if kind == "sitemap":
            self.child(loc, line, lastmod)

    def child(self, loc: str, line: int, lastmod: str = "") -> None:
        """An index's child, kept to be validated unless the rules of index following refuse it.

        The rules are :mod:`feedmap._core.follow_rules`' (those of ``convert``, ``info`` and ``discover --tree``): a
        child off the index's site is reported (``child-off-site``) and never read, a ``file:`` child of a
        remote index included; a loc that is no http(s) URL was reported by the loc check.
        """
        url = child_url(loc, self.base_url)
        if url is None:
            return  # relative, and no URL to resolve it against: loc-not-absolute said it
        if self.follow_child is not None:
            date, _problem = parse_lenient(lastmod.strip()) if lastmod.strip() else (None, None)
            if not self.follow_child(url, date):  # --since: as reading leaves the child out (its lastmod as read)
                written = f" (lastmod {date})" if date is not None else ""
                self.find(
                    "child-skipped", f"child sitemap {url}{written} is not read: the follow filter left it out", line
                )
                return
        refused = scope_refusal(url, self.base_url)
        if refused is None:
            self.result.children.append((url, line))
        elif refused[0] == "child-off-site":
            self.find("child-off-site", f"child sitemap {url} {refused[1]}", line)

    def finish_scope(self) -> None:
        """The one finding of the URLs outside the scope (line 0), also when the XML breaks off."""
        if self.scope is not None and (found := self.scope.finding()) is not None:
            self.find(*found, 0)
        self.scope = None

    def finish(self, total_bytes: int) -> None:
        """The findings about the whole file (line 0: they come after the entries, in line order)."""
        entries, kind, line = self.result.entries, self.result.kind, 0
        self.finish_scope()
        if total_bytes > PROTOCOL_MAX_BYTES:
            self.find("too-many-bytes", f"{total_bytes:,} bytes uncompressed; at most {PROTOCOL_MAX_BYTES:,}", line)
        if kind == "urlset" and not entries:
            self.find("urlset-empty", "the <urlset> lists no <url>", line)
        elif kind == "sitemapindex" and not entries:
            self.find("index-empty", "the <sitemapindex> lists no <sitemap>", line)
        elif kind == "urlset" and self.all_sitemaps:
            self.find("urlset-lists-sitemaps", "every loc looks like a sitemap: write a <sitemapindex>", line)
        elif kind == "sitemapindex" and self.all_pages:
            self.find("index-lists-pages", "every child looks like a page: write a <urlset>", line)


def validate_sitemap(
    stream: BinaryIO,
    find: Findings,
    *,
    base_url: str | None = None,
    now: dt.datetime | None = None,
    lifted: Callable[[], bool] | None = None,
    follow_child: FollowPredicate | None = None,
    pages: Pages | None = None,
    key: Callable[[str], str] = str,
) -> SitemapResult:
    """Check one ``<urlset>`` or ``<sitemapindex>`` document; findings go to ``find``.

    ``base_url`` is the document's URL (the scope of its URLs and children); ``lifted`` says whether the
    site's robots.txt names it (then URLs of its site outside its directory are allowed); ``follow_child``
    (``Options.follow_child``, which ``--since`` makes) leaves out the children it refuses (``child-skipped``).
    Each page (``<url>``) is given to ``pages`` with its hreflang alternates, for the return links across files;
    ``key`` is what URLs compare by (two spellings of one URL: one page).
    """
    peek = getattr(stream, "peek", None)
    problem = unusable_declaration(peek(1024)) if peek is not None else None
    if problem is not None:  # read as the reader reads it: as UTF-8 (a UTF-7 "+ADw-" is no "<")
        find("unknown-encoding", f"{problem}, as feedmap reads it (the protocol wants UTF-8)", 1)
    counted = Counted(stream)
    checker = _Checker(find, base_url, now or dt.datetime.now(dt.timezone.utc), lifted, follow_child, pages, key)
    context = make_iterparse(counted, "*", encoding="utf-8" if problem is not None else None)  # type: ignore[arg-type]
    root: etree._Element | None = None
    try:
        for _event, element in context:  # "end" events only: half as many as with "start"
            parent = element.getparent()
            if root is None:
                root = element if parent is None else element.getroottree().getroot()
                checker.root(root)
            if parent is not root or parent is None:  # a field inside an entry, or the root itself
                continue
            checker.entry(element)
            element.clear(keep_tail=False)
            while element.getprevious() is not None:
                del parent[0]
        checker.finish(counted.total)
    except etree.XMLSyntaxError as exc:
        line, column = exc.position
        limit = parser_limit(exc.msg or "")
        if limit is not None:  # in the words convert uses for it
            find("xml-limit", f"{limit}; checking stops here", line, column)
        else:
            find("xml-not-well-formed", f"{exc.msg}; checking stops here", line, column)
        checker.finish_scope()
    finally:
        checker.seen.close()
    return checker.result
