"""Page enrichment: fill each entry's title, description and keywords from the page its ``loc`` names.

The page's ``<title>``, ``<meta name="description">`` and ``<meta name="keywords">`` are read as the
WHATWG HTML standard says (encoding sniffing, standard metadata names: see :mod:`feedmap.converters._html`) and
carried into ``title``, ``description`` and ``keywords`` when the entry has none (``Options.overwrite``
replaces what it has; a value the page lacks never erases one).  ROR RSS (rorweb.com) writes them as
the item's ``title``, ``description`` and ``ror:keywords``.

How pages are read:

* A URL under a ``--map PREFIX=DIR`` prefix is read from disk (``file:`` URLs never are: a sitemap
  from elsewhere must not make us read local files): a directory stands
  for its ``index.html``, and ``/about`` for ``about.html`` when there is no ``about`` file (the pretty
  URLs static hosts serve); the file finally chosen must be a regular file inside the directory
  (:func:`feedmap._io.locate.local_path`).  No robots.txt and no network for these.
* Any other http(s) URL is fetched with the run's :class:`~feedmap._io.http.Fetcher` (timeouts, retries,
  redirects, ``--delay`` between requests to one host) unless the site's robots.txt (RFC 9309) disallows
  it for our user agent: then the entry is kept as it is (WARNING ``robots-disallowed``).  A redirect
  is followed only when the robots.txt of its target's site allows the target too (checked before the
  hop is requested).  A robots.txt longer than 500 KiB is read in part (RFC 9309 §2.5): INFO
  ``robots-truncated``, once per site.
* A page larger than the cap (:data:`~feedmap._core.context.DEFAULT_PAGE_MAX_BYTES`, and never more than
  ``max_bytes``) or that cannot be fetched (404, timeout, ...) is reported once with its URL (WARNING
  ``enrich-failed``); a response that is not HTML by its ``Content-Type`` (or a mapped file by its
  extension) is reported as ``not-html``.  The entry is kept, unenriched, either way.

Concurrency: ``concurrency`` pages are read at once on the run's thread pool; at most twice that many
entries wait in a window, so memory stays flat however many URLs stream through, and entries come out
in the order they went in.  Diagnostics are reported from the consuming thread (the
:class:`~feedmap._core.errors.Reporter` is not thread-safe), at the entry's own source and line when it has one.
An entry that already has all three fields is not fetched unless ``overwrite`` is set.
"""

from __future__ import annotations

import mimetypes
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path

from feedmap._core.context import Context
from feedmap._core.errors import FeedmapError, FetchError, LimitError, SourceError
from feedmap._core.model import Entry
from feedmap._core.urls import is_http_url
from feedmap._io.http import Fetcher, RobotsPolicy, Shared
from feedmap._io.locate import MapEscapeError, is_mapped, local_path
from feedmap.converters._enrich_summary import DISALLOWED, NOT_HTML, TOO_BIG, PageTally, fetch_reason
from feedmap.converters._html import PageMeta, page_meta

__all__ = ["FAILURE_CODES", "HTML_TYPES", "enrich"]

#: Content types read as HTML; an empty or missing ``Content-Type`` is read as HTML too.
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
#: The diagnostic codes of a page that could not be used (the entry is kept as it was).
FAILURE_CODES = frozenset({"enrich-failed", "not-html", "robots-disallowed"})
_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"
_NOT_WEB = "not an http(s) URL"


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What reading one page gave: its metadata, or why there is none (a diagnostic code and message, and the
    reason the summary counts it under: ``HTTP 404``, ``timeout``, ``not HTML``, ...)."""

    meta: PageMeta | None = None
    code: str = ""
    message: str = ""
    #: Something to tell as an INFO (code, message), whatever the outcome: robots.txt read only in part.
    note: tuple[str, str] | None = None
    reason: str = ""


def _failed(code: str, message: str, reason: str) -> _Outcome:
    return _Outcome(None, code, message, reason=reason)


def _read_file(url: str, path: Path, cap: int) -> _Outcome:
    if path.exists() and not path.is_file():  # a FIFO or a device would block or never end
        return _failed("enrich-failed", f"{url}: {path} is not a regular file; not enriched", "not a regular file")
    guessed, _ = mimetypes.guess_type(path.name)
    if guessed is not None and guessed not in HTML_TYPES:
        return _failed("not-html", f"{url} is not an HTML page ({path.name} is {guessed}); not enriched", NOT_HTML)
    try:
        with path.open("rb") as file:
            data = file.read(cap + 1)
    except OSError as exc:
        reason = "file missing" if isinstance(exc, FileNotFoundError) else "file unreadable"
        message = f"{url} could not be read from {path} ({exc.strerror or exc}); not enriched"
        return _failed("enrich-failed", message, reason)
    if len(data) > cap:
        return _failed("enrich-failed", f"{url}: {path} is larger than {cap:,} bytes; not enriched", TOO_BIG)
    return _Outcome(page_meta(data))


def _fetch(url: str, ctx: Context, cap: int, shared: Shared) -> _Outcome:
    fetcher = shared.fetcher(ctx.options.http)
    try:
        robots = fetcher.robots(url)
        note = robots.take_note()
        if note is not None:
            return replace(_fetch_allowed(url, robots, fetcher, cap), note=("robots-truncated", note))
        return _fetch_allowed(url, robots, fetcher, cap)
    except (FeedmapError, OSError) as exc:  # robots(): an invalid URL
        return _failed("enrich-failed", f"{exc}; not enriched", fetch_reason(exc))


def _fetch_allowed(url: str, robots: RobotsPolicy, fetcher: Fetcher, cap: int) -> _Outcome:
    if not robots.allows(url):
        why = robots.unavailable or "the site's robots.txt disallows it"
        return _failed("robots-disallowed", f"{url} is not fetched: {why}; not enriched", DISALLOWED)
    disallowed: list[str] = []

    def robots_allow(target: str) -> str | None:  # each redirect hop, before it is requested
        if fetcher.robots(target).allows(target):
            return None
        disallowed.append(target)
        return "its site's robots.txt disallows"

    try:
        with fetcher.open(url, max_bytes=cap, accept=_ACCEPT, redirect_rule=robots_allow) as page:
            kind = page.content_type
            if kind and kind not in HTML_TYPES:
                return _failed("not-html", f"{url} is not an HTML page (Content-Type {kind}); not enriched", NOT_HTML)
            data = page.read_all()
            charset = page.charset
    except LimitError:
        return _failed("enrich-failed", f"{url} is larger than {cap:,} bytes; not enriched", TOO_BIG)
    except FetchError as exc:
        if disallowed:
            return _failed("robots-disallowed", f"{exc}; not enriched", DISALLOWED)
        return _failed("enrich-failed", f"{exc}; not enriched", fetch_reason(exc))
    except (FeedmapError, OSError) as exc:
        return _failed("enrich-failed", f"{exc}; not enriched", fetch_reason(exc))
    return _Outcome(page_meta(data, charset))


def _load(url: str, ctx: Context, shared: Shared) -> _Outcome:
    """Read and parse one page (runs on a worker thread; reports nothing itself)."""
    options = ctx.options
    cap = min(options.max_bytes, options.page_max_bytes)
    if not is_mapped(url, options.maps) and not is_http_url(url):
        # file: URLs included: a sitemap from elsewhere must not make us read local files
        return _failed("enrich-failed", f"{url} is not an http(s) URL; not enriched", _NOT_WEB)
    try:
        path = local_path(url, options.maps, index_name="index.html", pretty=True)
    except MapEscapeError as exc:
        return _failed("enrich-failed", f"{exc}; not enriched", "outside its mapped folder")
    except SourceError as exc:  # a NUL in the path, not a regular file
        return _failed("enrich-failed", f"{exc}; not enriched", "file unreadable")
    if path is not None:
        return _read_file(url, path, cap)
    if not is_http_url(url):
        return _failed("enrich-failed", f"{url} is not an http(s) URL; not enriched", _NOT_WEB)
    return _fetch(url, ctx, cap, shared)


def _wanted(entry: Entry, overwrite: bool) -> bool:
    return overwrite or not (entry.title and entry.description and entry.keywords)


def _filled(entry: Entry, meta: PageMeta, overwrite: bool) -> Entry:
    changes: dict[str, object] = {}
    if meta.title and (overwrite or not entry.title):
        changes["title"] = meta.title
    if meta.description and (overwrite or not entry.description):
        changes["description"] = meta.description
    if meta.keywords and (overwrite or not entry.keywords):
        changes["keywords"] = meta.keywords
    return replace(entry, **changes) if changes else entry  # type: ignore[arg-type]


def _finish(entry: Entry, pending: Future[_Outcome] | None, ctx: Context, tally: PageTally) -> Entry:
    if pending is None:
        tally.complete += 1
        return entry
    outcome = pending.result()
    source, line = (entry.origin.source, entry.origin.line) if entry.origin is not None else ("", 0)
    if outcome.note is not None:
        ctx.reporter.info(*outcome.note, source, line)
    if outcome.meta is not None:
        filled = _filled(entry, outcome.meta, ctx.options.overwrite)
        if filled == entry:  # the page held nothing new (or only what the entry had)
            tally.unchanged += 1
        else:
            tally.enriched += 1
        return filled
    tally.failed[outcome.reason or "failed"] += 1
    ctx.reporter.warning(outcome.code, outcome.message, source, line)
    return entry


def enrich(entries: Iterable[Entry], ctx: Context, shared: Shared, tally: PageTally | None = None) -> Iterator[Entry]:
    """The entries, in order, each filled from its page; ``ctx.options`` says how (concurrency, overwrite, maps);
    the pages are read on ``shared``'s threads and fetched with its fetcher.  At the end of the entries, what was
    done is said once (INFO ``enrich-summary``, :class:`PageTally`); given a ``tally``, it is counted there
    instead, for the caller to say once for every part of its input."""
    options = ctx.options
    workers = max(1, options.concurrency)
    limit = 2 * workers
    counted = tally if tally is not None else PageTally()
    window: deque[tuple[Entry, Future[_Outcome] | None]] = deque()
    try:
        for entry in entries:
            pending = None
            if _wanted(entry, options.overwrite):
                pending = shared.pool(workers).submit(_load, entry.loc, ctx, shared)
            window.append((entry, pending))
            while window and (len(window) > limit or window[0][1] is None or window[0][1].done()):
                yield _finish(*window.popleft(), ctx, counted)
        while window:
            yield _finish(*window.popleft(), ctx, counted)
        if tally is None:
            counted.report(ctx)
    finally:
        for _, pending in window:  # stopped early: pages not started are not fetched
            if pending is not None:
                pending.cancel()
