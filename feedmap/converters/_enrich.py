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
from typing import overload

from feedmap._core.context import Context, Options, reporter_for
from feedmap._core.errors import DiagnosticHandler, FeedmapError, FetchError, LimitError, Reporter, SourceError
from feedmap._core.model import Document, Entry
from feedmap._core.options import refuse_unused
from feedmap._core.urls import is_http_url
from feedmap._io.http import Fetcher, RobotsPolicy, shared_fetcher
from feedmap._io.locate import is_mapped, local_path
from feedmap.converters._html import PageMeta, page_meta

__all__ = ["FAILURE_CODES", "HTML_TYPES", "enrich", "enrich_entries", "enrich_step"]

#: Content types read as HTML; an empty or missing ``Content-Type`` is read as HTML too.
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
#: The diagnostic codes of a page that could not be used (the entry is kept as it was).
FAILURE_CODES = frozenset({"enrich-failed", "not-html", "robots-disallowed"})
_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What reading one page gave: its metadata, or why there is none (a diagnostic code and message)."""

    meta: PageMeta | None = None
    code: str = ""
    message: str = ""
    #: Something to tell as an INFO (code, message), whatever the outcome: robots.txt read only in part.
    note: tuple[str, str] | None = None


def _failed(code: str, message: str) -> _Outcome:
    return _Outcome(None, code, message)


def _read_file(url: str, path: Path, cap: int) -> _Outcome:
    if path.exists() and not path.is_file():  # a FIFO or a device would block or never end
        return _failed("enrich-failed", f"{url}: {path} is not a regular file; not enriched")
    guessed, _ = mimetypes.guess_type(path.name)
    if guessed is not None and guessed not in HTML_TYPES:
        return _failed("not-html", f"{url} is not an HTML page ({path.name} is {guessed}); not enriched")
    try:
        with path.open("rb") as file:
            data = file.read(cap + 1)
    except OSError as exc:
        return _failed("enrich-failed", f"{url} could not be read from {path} ({exc.strerror or exc}); not enriched")
    if len(data) > cap:
        return _failed("enrich-failed", f"{url}: {path} is larger than {cap:,} bytes; not enriched")
    return _Outcome(page_meta(data))


def _fetch(url: str, ctx: Context, cap: int) -> _Outcome:
    fetcher = shared_fetcher(ctx.shared, ctx.options.http)
    try:
        robots = fetcher.robots(url)
        note = robots.take_note()
        if note is not None:
            return replace(_fetch_allowed(url, robots, fetcher, cap), note=("robots-truncated", note))
        return _fetch_allowed(url, robots, fetcher, cap)
    except (FeedmapError, OSError) as exc:  # robots(): an invalid URL
        return _failed("enrich-failed", f"{exc}; not enriched")


def _fetch_allowed(url: str, robots: RobotsPolicy, fetcher: Fetcher, cap: int) -> _Outcome:
    if not robots.allows(url):
        why = robots.unavailable or "the site's robots.txt disallows it"
        return _failed("robots-disallowed", f"{url} is not fetched: {why}; not enriched")
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
                return _failed("not-html", f"{url} is not an HTML page (Content-Type {kind}); not enriched")
            data = page.read_all()
            charset = page.charset
    except LimitError:
        return _failed("enrich-failed", f"{url} is larger than {cap:,} bytes; not enriched")
    except FetchError as exc:
        code = "robots-disallowed" if disallowed else "enrich-failed"
        return _failed(code, f"{exc}; not enriched")
    except (FeedmapError, OSError) as exc:
        return _failed("enrich-failed", f"{exc}; not enriched")
    return _Outcome(page_meta(data, charset))


def _load(url: str, ctx: Context) -> _Outcome:
    """Read and parse one page (runs on a worker thread; reports nothing itself)."""
    options = ctx.options
    cap = min(options.max_bytes, options.page_max_bytes)
    if not is_mapped(url, options.maps) and not is_http_url(url):
        # file: URLs included: a sitemap from elsewhere must not make us read local files
        return _failed("enrich-failed", f"{url} is not an http(s) URL; not enriched")
    try:
        path = local_path(url, options.maps, index_name="index.html", pretty=True)
    except SourceError as exc:  # outside the --map directory, a NUL in the path, not a regular file
        return _failed("enrich-failed", f"{exc}; not enriched")
    if path is not None:
        return _read_file(url, path, cap)
    if not is_http_url(url):
        return _failed("enrich-failed", f"{url} is not an http(s) URL; not enriched")
    return _fetch(url, ctx, cap)


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


def _finish(entry: Entry, pending: Future[_Outcome] | None, ctx: Context) -> Entry:
    if pending is None:
        return entry
    outcome = pending.result()
    source, line = (entry.origin.source, entry.origin.line) if entry.origin is not None else ("", 0)
    if outcome.note is not None:
        ctx.reporter.info(*outcome.note, source, line)
    if outcome.meta is not None:
        return _filled(entry, outcome.meta, ctx.options.overwrite)
    ctx.reporter.warning(outcome.code, outcome.message, source, line)
    return entry


def enrich_entries(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """The entries, in order, each filled from its page; ``ctx.options`` says how (concurrency, overwrite, maps)."""
    options = ctx.options
    workers = max(1, options.concurrency)
    limit = 2 * workers
    window: deque[tuple[Entry, Future[_Outcome] | None]] = deque()
    try:
        for entry in entries:
            pending = None
            if _wanted(entry, options.overwrite):
                pending = ctx.shared.pool(workers).submit(_load, entry.loc, ctx)
            window.append((entry, pending))
            while window and (len(window) > limit or window[0][1] is None or window[0][1].done()):
                yield _finish(*window.popleft(), ctx)
        while window:
            yield _finish(*window.popleft(), ctx)
    finally:
        for _, pending in window:  # stopped early: pages not started are not fetched
            if pending is not None:
                pending.cancel()


def enrich_step(doc: Document, ctx: Context) -> Document:
    """The post-read step of ``convert`` when ``Options.enrich`` is set (see
    :func:`feedmap.converters._pipeline.plan`)."""
    result = Document(doc.meta, enrich_entries(doc.entries, ctx), diagnostics=doc.diagnostics)
    result.format = doc.format
    return result


def _run(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """Enriched entries, then the input closed and the run's threads and HTTP client released."""
    iterator = iter(entries)
    try:
        yield from enrich_entries(iterator, ctx)
    finally:
        ctx.shared.close()
        close = getattr(iterator, "close", None)
        if callable(close):
            close()


@overload
def enrich(  # type: ignore[overload-overlap]  # a Document is also an iterable of entries
    source: Document,
    options: Options | None = ...,
    *,
    on_diagnostic: DiagnosticHandler | None = ...,
    reporter: Reporter | None = ...,
) -> Document: ...
@overload
def enrich(
    source: Iterable[Entry],
    options: Options | None = ...,
    *,
    on_diagnostic: DiagnosticHandler | None = ...,
    reporter: Reporter | None = ...,
) -> Iterator[Entry]: ...
def enrich(
    source: Document | Iterable[Entry],
    options: Options | None = None,
    *,
    on_diagnostic: DiagnosticHandler | None = None,
    reporter: Reporter | None = None,
) -> Document | Iterator[Entry]:
    """Fill the title, description and keywords of each entry from its page; streams, order kept.

    ``source`` is a :class:`~feedmap._core.model.Document` (a Document comes back, same metadata, and the
    enrichment diagnostics join its ``diagnostics`` list unless a ``reporter`` is given) or any iterable of
    entries (an iterator comes back).  The settings are those of ``--enrich`` in ``options``
    (:class:`~feedmap._core.context.Options`): ``concurrency`` pages are read at once; ``overwrite`` replaces
    values an entry already has; ``maps`` pairs ``(url_prefix, directory)`` read from disk instead of the
    network; ``http`` says how to fetch (user agent, timeouts, retries, ``host_delay``); ``page_max_bytes``
    (and ``max_bytes``, the smaller of the two) caps each page.  Failures are diagnostics
    (``enrich-failed``, ``not-html``, ``robots-disallowed``), the entry kept as it was; with ``strict`` the
    first one raises :class:`~feedmap._core.errors.StrictError`.  The HTTP client and threads are released when
    the result is exhausted or closed (``Document.close()``).
    """
    options = replace(options or Options(), enrich=True)
    refuse_unused(options, "enrich")
    if reporter is None:
        reporter = reporter_for(options, None, on_diagnostic)
        if isinstance(source, Document):
            reporter.diagnostics = source.diagnostics
    else:
        reporter = reporter_for(options, reporter, None)  # strict holds with the caller's reporter too
    ctx = Context(reporter=reporter, options=options)
    if isinstance(source, Document):
        result = Document(source.meta, _run(source.entries, ctx), diagnostics=reporter.diagnostics)
        result.format = source.format
        result.closers += [ctx.shared.close, source.close]  # also when closed before it was read
        return result
    return _run(source, ctx)
