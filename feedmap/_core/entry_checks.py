"""Entry checks: relative locs resolved or left out, only web URLs in XML outputs, values built in code checked.

One job: the per-entry URL and value rules, as steps over a stream of entries with a
:class:`~feedmap._core.context.Context`: the implementations of :func:`feedmap.converters.resolve_relative`,
:func:`feedmap.converters.keep_absolute` and :func:`feedmap.converters.check_values` under the same names, and
``check_web_urls``, a step of every conversion; the readers and writers share the URL rules below:

* a relative ``loc`` (RFC 3986 §4.2 relative reference, https://www.rfc-editor.org/rfc/rfc3986#section-4.2)
  resolved against a base URL (RFC 3986 §5.2), else reported and kept (:func:`resolve_relative`);
* entries whose loc is not an absolute URL left out (:func:`keep_absolute`): sitemaps.org 0.9
  (https://www.sitemaps.org/protocol.html, ``<loc>``) and RSS 2.0 (https://www.rssboard.org/rss-specification,
  ``link`` and a permalink ``guid``) require absolute URLs;
* what a reader checks, for entries built in code (:func:`check_values`): the loc, and a ``priority``
  in 0.0-1.0 (sitemaps.org ``<priority>``);
* only web URLs in XML outputs (:func:`check_web_urls`): a sitemap's ``loc`` is a page's URL, and sitemaps.org
  ("Sitemap file location", "Using Sitemap index files") and Google (image sitemaps, ``hreflang``
  alternates) speak only of http(s) ones; an RSS 2.0 ``link`` is "The URL of the item" a reader opens, so
  a ``javascript:``, ``data:``, ``vbscript:``, ``ftp:`` or ``gopher:`` URL has no place in any of them.  Such
  a loc, image or alternate is left out of the XML outputs, reported (WARNING ``non-web-url``, with its
  line), and kept with the same warning in the outputs that hold any URL (text, JSON lines).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import replace
from urllib.parse import urljoin, urlsplit

from feedmap._core.context import Context
from feedmap._core.model import Alternate, Entry, Image, new_entry
from feedmap._core.urls import check_loc, has_scheme, is_absolute_url, is_http_url
from feedmap._core.wording import counted

__all__ = [
    "LeftOut",
    "check_values",
    "check_web_urls",
    "keep_absolute",
    "non_web_url",
    "relative_reference",
    "resolve",
    "resolve_relative",
    "values_checked",
    "web_checked",
    "where",
]


def relative_reference(loc: str) -> bool:
    """True when ``loc`` is a relative reference (RFC 3986 §4.2: no scheme) a base URL can complete.

    ``/blog/post.html``, ``post.html``, ``//host/path``, ``?q=1`` are; an absolute URL, text with blanks
    (``not a url``) and an empty string are not.
    """
    if not loc or any(char.isspace() for char in loc):
        return False
    try:
        parts = urlsplit(loc)
    except ValueError:
        return False
    return not parts.scheme


def resolve(loc: str, base: str | None) -> str | None:
    """``loc`` resolved against ``base`` (RFC 3986 §5.2), or None when that gives no absolute URL."""
    if not base or not relative_reference(loc):
        return None
    try:
        resolved = urljoin(base, loc)
    except ValueError:
        return None
    return resolved if is_absolute_url(resolved) else None


def where(entry: Entry, ctx: Context) -> tuple[str, int]:
    """The source and line ``entry`` is reported at: where it was read, else the document."""
    if entry.origin is not None:
        return entry.origin.source, entry.origin.line
    return ctx.name, 0


def resolve_relative(entries: Iterable[Entry], ctx: Context, base: str | None) -> Iterator[Entry]:
    """:func:`resolve_relative` with a context (the step form)."""
    for entry in entries:
        loc = entry.loc
        if is_absolute_url(loc):
            yield entry
            continue
        resolved = resolve(loc, base)
        source, line = where(entry, ctx)
        if resolved is not None:
            ctx.reporter.info("relative-url-resolved", f"relative URL {loc} read as {resolved}", source, line)
            entry = _with_loc(entry, resolved)
        elif relative_reference(loc):
            message = f"relative URL {loc} has no base URL to resolve it against"
            ctx.reporter.warning("relative-url", message, source, line)
        yield entry


def _with_loc(entry: Entry, loc: str) -> Entry:
    """A copy of ``entry`` with another loc (no re-check of the other fields: they are the entry's own)."""
    copy = new_entry(
        loc,
        entry.lastmod,
        entry.changefreq,
        entry.priority,
        entry.images,
        entry.alternates,
        dict(entry.extras),
        entry.origin,
    )
    copy.title, copy.description, copy.keywords, copy.type = entry.title, entry.description, entry.keywords, entry.type
    copy.news, copy.videos = entry.news, entry.videos
    return copy


class LeftOut:
    """The entries :func:`keep_absolute` leaves out: how many, and the first one's loc and place, said once at
    the end (WARNING ``relative-url-left-out``)."""

    __slots__ = ("count", "first")

    def __init__(self) -> None:
        self.count = 0
        self.first: tuple[str, str, int] | None = None

    def add(self, entry: Entry, ctx: Context) -> None:
        self.count += 1
        if self.first is None:
            self.first = (entry.loc, *where(entry, ctx))

    def report(self, ctx: Context, target: str) -> None:
        if self.first is None:
            return
        loc, source, line = self.first
        what = f"format {target!r}" if target else "the output"
        ctx.reporter.warning(
            "relative-url-left-out",
            f"{counted(self.count, 'entry')} without an absolute URL left out ({what} requires absolute URLs; "
            f"the first: {loc!r})",
            source,
            line,
        )


def keep_absolute(entries: Iterable[Entry], ctx: Context, target: str = "") -> Iterator[Entry]:
    """:func:`keep_absolute` with a context (the step form)."""
    left_out = LeftOut()
    for entry in entries:
        if is_absolute_url(entry.loc):
            yield entry
            continue
        left_out.add(entry, ctx)
    left_out.report(ctx, target)


def check_values(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """:func:`check_values` with a context (the step form)."""
    for entry in entries:
        priority = entry.priority
        if check_loc(entry.loc) is None and (priority is None or 0.0 <= priority <= 1.0):
            yield entry  # nearly every entry: nothing to say
        else:
            yield values_checked(entry, ctx)


def values_checked(entry: Entry, ctx: Context) -> Entry:
    """One entry through :func:`check_values`: its loc's problem reported, an invalid priority reported and
    dropped (a copy)."""
    loc = entry.loc
    problem = check_loc(loc)
    if problem is not None:
        source, line = where(entry, ctx)
        if relative_reference(loc):
            message = f"relative URL {loc} has no base URL to resolve it against"
            ctx.reporter.warning("relative-url", message, source, line)
        else:
            ctx.reporter.warning(problem[0], f"{problem[1]}; kept as written", source, line)
    priority = entry.priority
    if priority is not None and not 0.0 <= priority <= 1.0:  # also NaN
        entry = _with_priority(entry, priority, ctx)
    return entry


def _with_priority(entry: Entry, priority: float, ctx: Context) -> Entry:
    source, line = where(entry, ctx)
    what = "is not a number" if not math.isfinite(priority) else "is outside 0.0-1.0"
    ctx.reporter.warning("priority-invalid", f"priority {priority} of {entry.loc} {what}; ignored", source, line)
    copy = _with_loc(entry, entry.loc)
    copy.priority = None  # never clamped: an invalid value is no claim to the top (or bottom) priority
    return copy


def non_web_url(url: str, what: str, ctx: Context, *, kept: bool, at: Entry | None = None) -> None:
    """Report (WARNING ``non-web-url``) that ``url``, the ``what`` of ``at`` (or of the document), is no
    http(s) URL: ``kept`` says whether it is written all the same or left out."""
    source, line = where(at, ctx) if at is not None else (ctx.name, 0)
    done = "written as read (this output holds any URL)" if kept else "left out (XML outputs take http(s) URLs only)"
    ctx.reporter.warning("non-web-url", f"{url!r} ({what}) is no http(s) URL; {done}", source, line)


def _other_scheme(url: str) -> bool:
    """Whether ``url`` has a scheme (RFC 3986 §3.1) other than http(s); a relative reference has none (it is
    :func:`keep_absolute`' business)."""
    return not is_http_url(url) and has_scheme(url)


#: The usual spellings of a web URL's start: :func:`feedmap._core.urls.is_http_url` is tested only when neither is.
_WEB = ("https://", "http://")


def _web_parts_only(entry: Entry) -> bool:
    """Whether every image's loc (and license, if any) and every alternate of ``entry`` is an http(s) URL:
    what :func:`_web_parts` returns as it is, saying nothing."""
    for image in entry.images:
        loc, license_url = image.loc, image.license
        if not (loc.startswith(_WEB) or is_http_url(loc)):
            return False
        if license_url is not None and not (license_url.startswith(_WEB) or is_http_url(license_url)):
            return False
    alternates = entry.alternates  # most entries have none: no generator made
    return not alternates or all(link.href.startswith(_WEB) or is_http_url(link.href) for link in alternates)


def check_web_urls(entries: Iterable[Entry], ctx: Context, *, xml: bool, parts: bool = True) -> Iterator[Entry]:
    """The entries with only http(s) URLs (:func:`feedmap._core.urls.is_http_url`) in their loc, images (loc and
    license) and alternates.  ``xml``: the output is an XML one; an entry whose loc has another scheme is
    left out, as are such an image, image license or alternate; else they are kept.  Each is reported
    (``non-web-url``); a relative reference is left to :func:`keep_absolute`.  ``parts``: the output holds images and
    alternates (else only the loc is looked at).
    """
    for entry in entries:
        loc = entry.loc
        if loc.startswith(_WEB) or is_http_url(loc):  # is_http_url: the common spelling first, without a call
            if not parts or not (entry.images or entry.alternates):
                yield entry  # nearly every entry: one prefix test
                continue
            if _web_parts_only(entry):
                yield entry  # http(s) images, licenses and alternates: nothing to leave out or report
                continue
        checked = _other_parts(entry, ctx, xml=xml, parts=parts)
        if checked is not None:
            yield checked


def web_checked(entry: Entry, ctx: Context, *, xml: bool, parts: bool = True) -> Entry | None:
    """One entry through :func:`check_web_urls`: as it is, without the parts left out, or None (left out)."""
    loc = entry.loc
    web = loc.startswith(_WEB) or is_http_url(loc)
    if web and (not parts or not (entry.images or entry.alternates) or _web_parts_only(entry)):
        return entry
    return _other_parts(entry, ctx, xml=xml, parts=parts)


def _other_parts(entry: Entry, ctx: Context, *, xml: bool, parts: bool) -> Entry | None:
    """:func:`web_checked` of an entry with a URL that is not plainly an http(s) one (its loc or a part)."""
    if _other_scheme(entry.loc):
        non_web_url(entry.loc, "loc", ctx, kept=not xml, at=entry)
        if xml:
            return None
    if parts:
        entry = _web_parts(entry, ctx, xml=xml)
    return entry


def _web_parts(entry: Entry, ctx: Context, *, xml: bool) -> Entry:
    """``entry`` without the images, image licenses and alternates whose URL is no http(s) URL (with ``xml``),
    each reported."""
    loc = entry.loc
    images: list[Image] = []
    for image in entry.images:
        if _other_scheme(image.loc):
            non_web_url(image.loc, f"image of {loc}", ctx, kept=not xml, at=entry)
            if xml:
                continue
        if image.license is not None and _other_scheme(image.license):
            non_web_url(image.license, f"image license of {loc}", ctx, kept=not xml, at=entry)
            if xml:
                image = replace(image, license=None)
        images.append(image)
    alternates: list[Alternate] = []
    for alternate in entry.alternates:
        if _other_scheme(alternate.href):
            non_web_url(alternate.href, f"{alternate.hreflang} alternate of {loc}", ctx, kept=not xml, at=entry)
            if xml:
                continue
        alternates.append(alternate)
    if tuple(images) == entry.images and tuple(alternates) == entry.alternates:
        return entry
    return replace(entry, images=tuple(images), alternates=tuple(alternates))
