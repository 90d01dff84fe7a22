"""Finding a site's sitemaps (``feedmap discover``): robots.txt ``Sitemap:`` lines, else the usual locations.

Where the rules come from:

* **robots.txt** (RFC 9309, sitemaps.org "Specifying the Sitemap location in your robots.txt file"): every
  ``Sitemap:`` line names a sitemap, in any case (``sitemap:``, ``SITEMAP:``), several allowed, independent
  of the ``User-agent`` groups.  A line may point to another site (sitemaps.org, "Sitemaps & Cross
  Submits", https://www.sitemaps.org/protocol.html), so those URLs are listed as written, not checked.
  A relative line (not allowed, but seen) is resolved against robots.txt's URL and noted.  The file is
  parsed with the same parser as the robots.txt policy (:class:`feedmap._io.http.RobotsPolicy`, Protego), at
  most its first 500 KiB (RFC 9309 §2.5; a longer file is read that far, INFO ``robots-truncated``).
* **The usual locations**: only when robots.txt names no sitemap (or is missing), ``SITE/sitemap.xml`` then
  ``SITE/sitemap_index.xml`` are tried; each is taken when it answers 2xx and feedmap's sniffing
  (:func:`feedmap.formats._registry.detect`) reads it as a sitemap, a sitemap index, a feed or a text sitemap.  An
  HTML page answering 200 (a "soft 404") is not a sitemap.  A redirect is followed and the final URL listed.
* **The site**: ``SITE`` is the origin of the URL given: ``example.com`` means ``https://example.com/``
  (https when no scheme is written), and ``https://example.com/blog/`` means ``https://example.com/``,
  since robots.txt and the usual locations live at the root of a site.

The tree of the sitemaps found, with their entry counts, is :mod:`feedmap._web.sitemaptree`; it reads each
sitemap the way this module does (:func:`open_url`, :func:`error_code`).  ``--map PREFIX=DIR`` applies to
everything read here (robots.txt too), so a static-site build directory can be checked before it is
deployed.  Nothing here prints or exits.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from feedmap._core.call_fields import refuse_unused
from feedmap._core.context import Options, reporter_for
from feedmap._core.errors import (
    DiagnosticHandler,
    FeedmapError,
    FetchError,
    FormatError,
    ReadError,
    Reporter,
    SourceError,
    reason_of,
)
from feedmap._core.urls import is_absolute_url, is_http_url
from feedmap._io.http import (
    ROBOTS_MAX_BYTES,
    UNCAPPED,
    RedirectRule,
    RobotsPolicy,
    Shared,
    read_head,
    robots_cut_note,
)
from feedmap._io.locate import MapEscapeError, local_path
from feedmap._io.sources import Source, open_source
from feedmap.formats import _registry as registry

__all__ = [
    "FALLBACK_PATHS",
    "Discovery",
    "Found",
    "Probe",
    "discover",
    "find_sitemaps",
    "robots_sitemaps",
    "site_root",
]

#: Tried in this order when robots.txt names no sitemap.
FALLBACK_PATHS = ("/sitemap.xml", "/sitemap_index.xml")
#: Formats a document at a usual location must be read as to count as a sitemap.
SITEMAP_FORMATS = frozenset({"sitemap", "sitemapindex", "rss", "ror", "atom", "text"})
#: Fetch failures that mean no answer came at all (as opposed to an HTTP status or bad content).
_NO_ANSWER = frozenset({"timeout", "fetch-failed"})
_OTHER_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:(?!\d)")


def site_root(site_url: str) -> str:
    """The root URL of the site ``site_url`` belongs to: ``example.com`` -> ``https://example.com/``.

    A URL without a scheme gets ``https://``; a path, query or fragment is dropped (robots.txt and the
    usual sitemap locations are at the root).  Raises :class:`SourceError` for what is not an http(s) site.
    """
    text = site_url.strip()
    if "://" not in text:
        if _OTHER_SCHEME.match(text):  # mailto:..., javascript:... (but not host:port)
            raise SourceError(f"{site_url!r} is not a web site; write example.com or https://example.com/")
        text = "https://" + text.lstrip("/")
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise SourceError(f"{site_url!r} has an invalid port") from None
    if scheme not in ("http", "https") or not parts.hostname:
        raise SourceError(f"{site_url!r} is not a web site; write example.com or https://example.com/")
    netloc = parts.netloc.rpartition("@")[2]
    return urlunsplit((scheme, netloc.lower(), "/", "", ""))


# ------------------------------------------------------------------------- reading (shared with sitemaptree)


@contextlib.contextmanager
def open_url(
    url: str,
    options: Options,
    shared: Shared,
    reporter: Reporter,
    max_bytes: int,
    redirect_rule: RedirectRule | None = None,
) -> Iterator[Source]:
    """Open ``url`` from its ``--map`` directory or the network (:func:`feedmap._io.sources.open_source`).

    The source's ``url`` is where it was found (after redirects; ``redirect_rule`` may refuse a hop, see
    :meth:`feedmap._io.http.Fetcher.open`).  Raises :class:`FetchError` (a missing mapped file is
    ``file-missing``), :class:`MapEscapeError`, :class:`SourceError` or :class:`LimitError`.
    """
    path = local_path(url, options.maps)
    if path is not None and not path.is_file():
        raise FetchError(f"{url}: {path} does not exist", url=url, code="file-missing")
    fetcher = shared.fetcher(options.http) if path is None else None
    with open_source(
        url,
        reporter=reporter,
        max_bytes=max_bytes,
        name=url,
        fetcher=fetcher,
        maps=options.maps,
        redirect_rule=redirect_rule,
    ) as source:
        yield source


def error_code(exc: FeedmapError) -> str:
    """The stable slug for why a document was not read: the fetch error's code, ``map-escape``, ``not-a-sitemap``."""
    if isinstance(exc, MapEscapeError):
        return "map-escape"
    if isinstance(exc, FormatError):
        return "not-a-sitemap"
    code = getattr(exc, "code", None)
    return code if isinstance(code, str) else "fetch-failed"


# ---------------------------------------------------------------------------------------------- finding


@dataclass(frozen=True, slots=True)
class Found:
    """A sitemap URL found: ``via`` is ``"robots.txt"``, ``"fallback"`` or ``"given"`` (named to ``feedmap
    discover --tree``); ``source`` the URL it came from (for one given, as given)."""

    url: str
    via: str
    source: str


@dataclass(frozen=True, slots=True)
class Probe:
    """One URL tried, with what came of it.

    ``code`` is a stable slug: ``robots-sitemaps`` (robots.txt names sitemaps), ``robots-no-sitemaps``,
    ``found`` (a usual location holds a sitemap), ``not-a-sitemap`` (it answered with something else),
    ``file-missing`` (a ``--map`` file that does not exist), or the fetch error's code (``http-404``,
    ``http-503``, ``timeout``, ``fetch-failed``, ``too-many-redirects``, ``too-large``, ...).
    """

    url: str
    code: str
    message: str
    found: bool = False


@dataclass(slots=True)
class Discovery:
    """What :func:`discover` found for a site, and every URL it tried on the way (``site`` None: a local sitemap
    given to ``feedmap discover --tree``, of no site)."""

    site: str | None
    sitemaps: list[Found] = field(default_factory=list)
    tried: list[Probe] = field(default_factory=list)

    @property
    def urls(self) -> list[str]:
        return [found.url for found in self.sitemaps]

    def to_dict(self) -> dict[str, Any]:
        return {
            "site": self.site,
            "sitemaps": [{"url": f.url, "via": f.via, "source": f.source} for f in self.sitemaps],
            "tried": [{"url": p.url, "code": p.code, "found": p.found, "message": p.message} for p in self.tried],
        }


#: A robots.txt line naming a sitemap (the directive in any case, RFC 9309 §2.2 and sitemaps.org).
_SITEMAP_LINE = re.compile(rb"\s*sitemap\s*:", re.IGNORECASE)
#: A byte that is not UTF-8, as ``surrogateescape`` decodes it.
_UNDECODED = re.compile("[\udc80-\udcff]")


def _robots(site: str, result: Discovery, options: Options, shared: Shared, reporter: Reporter) -> list[str]:
    """The sitemap URLs robots.txt names (resolved, http(s) only), recording the probe."""
    robots_url = urljoin(site, "/robots.txt")
    try:
        with open_url(robots_url, options, shared, Reporter(), UNCAPPED) as opened:
            data, cut = read_head(opened.stream, ROBOTS_MAX_BYTES)  # RFC 9309 §2.5: the first 500 KiB
            final = opened.url or robots_url
    except FetchError as exc:
        result.tried.append(Probe(robots_url, exc.code, reason_of(exc, robots_url)))
        if exc.status is None and exc.code in _NO_ANSWER:
            raise FetchError(f"{site} cannot be reached: {exc}", url=site, code=exc.code) from None
        if exc.code != "file-missing" and (exc.status is None or exc.status >= 500):  # a 4xx: no robots.txt
            reporter.warning(
                "robots-unreadable",
                f"robots.txt could not be read ({reason_of(exc, robots_url)}); trying {' and '.join(FALLBACK_PATHS)}",
                robots_url,
            )
        return []
    except (ReadError, SourceError) as exc:  # too large, a --map escape
        result.tried.append(Probe(robots_url, error_code(exc), reason_of(exc, robots_url)))
        reporter.warning("robots-unreadable", f"robots.txt could not be read ({exc})", robots_url)
        return []
    if cut is not None:
        reporter.info("robots-truncated", robots_cut_note(robots_url), robots_url)
        if _SITEMAP_LINE.match(cut) is not None:
            shown = cut.strip()[:80].decode("utf-8", "backslashreplace")
            reporter.warning(
                "robots-bad-sitemap", f"{shown}... is cut at {ROBOTS_MAX_BYTES // 1024} KiB; ignored", robots_url
            )
    # undecodable bytes kept as surrogate escapes: a Sitemap: line holding one is skipped below, not read as a
    # URL with U+FFFD in it (RFC 9309 §2.2: robots.txt is UTF-8)
    text = data.decode("utf-8", "surrogateescape").removeprefix("\ufeff")
    urls = []
    for line in RobotsPolicy(text, allow_all=True).sitemaps:
        written = line.strip()
        if _UNDECODED.search(written) is not None:
            shown = written.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            reporter.warning("robots-bad-sitemap", f"Sitemap: {shown} is not UTF-8 (RFC 9309); ignored", robots_url)
            continue
        url = written
        if not is_absolute_url(written):
            url = urljoin(final, written)
            reporter.info(
                "robots-relative-sitemap", f"Sitemap: {written} is not an absolute URL; read as {url}", robots_url
            )
        if not is_http_url(url):
            reporter.warning("robots-bad-sitemap", f"Sitemap: {written} is not an http(s) URL; ignored", robots_url)
            continue
        urls.append(url)
    if urls:
        count = len(dict.fromkeys(urls))
        result.tried.append(
            Probe(robots_url, "robots-sitemaps", f"names {count} sitemap{'s' if count != 1 else ''}", True)
        )
    else:
        result.tried.append(Probe(robots_url, "robots-no-sitemaps", "names no sitemap"))
    return urls


def robots_sitemaps(url: str, options: Options, shared: Shared) -> list[str]:
    """The sitemap URLs the robots.txt of the site of ``url`` names (as :func:`discover` reads them: ``--map``
    applies, at most 500 KiB read); none when it cannot be read.  Nothing is reported."""
    try:
        site = site_root(url)
    except SourceError:
        return []
    try:
        return _robots(site, Discovery(site), options, shared, Reporter())
    except FeedmapError:  # the site cannot be reached: it names nothing
        return []


def _probe(url: str, options: Options, shared: Shared) -> tuple[Probe, str | None]:
    """Try one usual location: (what came of it, the sitemap's final URL when it holds one)."""
    try:
        with open_url(url, options, shared, Reporter(), options.max_bytes) as opened:
            final, content_type = opened.url or url, opened.content_type
            try:
                spec = registry.detect(opened)
            except FormatError:
                spec = None
    except FeedmapError as exc:
        return Probe(url, error_code(exc), reason_of(exc, url)), None
    answer = f"answers with {content_type}" if content_type else "holds content"
    if spec is None or spec.name not in SITEMAP_FORMATS:
        read_as = f" (it reads as {spec.name})" if spec is not None else ""
        return Probe(url, "not-a-sitemap", f"{answer} that is not a sitemap, index or feed{read_as}"), None
    moved = f", redirected to {final}" if final != url else ""
    return Probe(url, "found", f"holds a {spec.name}{moved}", True), final


def discover(
    site_url: str,
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Discovery:
    """Find the sitemaps of the site of ``site_url``: robots.txt's ``Sitemap:`` lines, else the usual locations.

    Returns a :class:`Discovery`: the sitemaps found (duplicates removed, order kept) and every URL tried.
    The settings that apply are those of reading in ``options`` (:class:`~feedmap._core.context.Options`):
    ``http``, ``maps`` (robots.txt and sitemaps read from a directory), ``max_bytes``, ``strict``.
    Raises :class:`FetchError` when the site cannot be reached at all, :class:`SourceError` for a
    ``site_url`` that is not an http(s) site.  Problems on the way (a robots.txt answering 5xx, a
    relative ``Sitemap:`` line) go to ``on_diagnostic`` / ``reporter``.
    """
    site = site_root(site_url)
    options = options or Options()
    refuse_unused(options, "find_sitemaps")
    reporter = reporter_for(options, reporter, on_diagnostic)
    shared = Shared()
    result = Discovery(site)
    seen: set[str] = set()
    try:
        robots_url = urljoin(site, "/robots.txt")
        for url in _robots(site, result, options, shared, reporter):
            if url not in seen:
                seen.add(url)
                result.sitemaps.append(Found(url, "robots.txt", robots_url))
        if result.sitemaps:
            return result
        for path in FALLBACK_PATHS:
            url = urljoin(site, path)
            probe, final = _probe(url, options, shared)
            result.tried.append(probe)
            if final is not None and final not in seen:
                seen.add(final)
                result.sitemaps.append(Found(final, "fallback", url))
        return result
    finally:
        shared.close()


def find_sitemaps(
    site_url: str,
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> list[str]:
    """The sitemap URLs of the site of ``site_url`` (see :func:`discover`, which also says how each was found)."""
    return discover(site_url, options, on_diagnostic=on_diagnostic, reporter=reporter).urls
