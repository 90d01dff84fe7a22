"""``sitemapindex``: the sitemaps.org 0.9 sitemap index (``<sitemapindex>`` of ``<sitemap>`` entries).

Spec: https://www.sitemaps.org/protocol.html#index (XSD siteindex.xsd): each ``<sitemap>`` has a ``loc``
and an optional ``lastmod``; an index lists at most 50,000 sitemaps.

Reading follows the children by default and yields their entries, one child after another (streaming).
A child is read from disk when its URL starts with a ``--map PREFIX=DIR`` prefix (a static-site build
directory) or is a ``file:`` URL (:func:`feedmap._locate.local_path`: inside the directory, a regular file,
no NUL); nested indexes are followed up to a depth cap, and a loop is reported and not followed.  A child
that cannot be read is reported with its URL and the rest goes on.  With ``follow=False``
(``--no-follow``) the index's own entries (loc, lastmod) are yielded.

* **Scope** (sitemaps.org "Sitemap file location"): a child of a fetched index must have the index's
  scheme, host and port (``child-off-site``), and so must every redirect it answers with: each hop is
  checked before it is requested (:meth:`feedmap._http.Fetcher.open`, ``redirect_rule``).
* **Loops**: an index is known by its resolved path, or by its URL normalised as RFC 3986 §6.2.2 says
  (case of scheme and host, default port, percent-encoding, dot segments of §5.2.4), so ``/./index.xml``
  is the index itself.
* **Relative children**: a child written as a relative URL is resolved against the index's own URL
  (``relative-url-resolved``), then checked like any other; when the index has no URL (a local file),
  it is reported (``child-not-read``) and not read.
* **Nothing read**: when the index names children and not one of them could be read (every one failed
  or was refused; a loop back to an index being read is no failure), reading ends with a
  :class:`~feedmap._errors.ReadError` (``no-child-read``), so the CLI exits 1 instead of writing an empty
  output.  Children left out by the follow filter (``--since``) are not failures.
* **Depth**: the walk keeps one explicit stack of the indexes being read (:class:`_Following`), not one
  generator per level, so a deep chain under a large ``max_depth`` costs no Python stack.

Writing emits an index with one ``<sitemap>`` per entry (loc and lastmod; other fields are dropped with
an INFO diagnostic).  Writers never nest indexes.
"""

from __future__ import annotations

import contextlib
import re
import string
import tempfile
from collections import deque
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urljoin, urlsplit, urlunsplit

from feedmap._urls import is_http_url, same_site
from feedmap._xml import peek_root
from feedmap._context import Context
from feedmap._errors import (
    FeedmapError,
    FetchError,
    ReadError,
    SourceError,
    StrictError,
    UnknownFormatError,
    reason_of,
)
from feedmap.formats.sitemap import (
    SizeWatch,
    check_root,
    iter_entries,
    loc_text,
    root_open_tag,
    write_blocks,
    xml_extras,
)
from feedmap._locate import MapEscapeError, local_path
from feedmap._model import DocKind, DocMeta, Document, Entry
from feedmap._registry import FormatSpec
from feedmap._sources import Source

__all__ = ["FORMAT", "child_refusal", "child_url", "loop_key", "read", "resolved_message", "same_site_rule", "write"]

_SPOOL_IN_MEMORY = 1 << 20
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # RFC 3986 3.1: a URL with a scheme is not relative
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")  # RFC 3986 §2.3
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(slots=True)
class _Tally:
    """Children of the whole tree of indexes read to the end, and those that failed or were refused."""

    read: int = 0
    failed: int = 0


@dataclass(slots=True)
class _Child:
    """A child sitemap about to be read: from disk (``path``) or being downloaded (``download``)."""

    loc: str
    line: int
    path: Path | None = None
    download: Future[tuple[BinaryIO, str]] | None = None


def same_site_rule(index_url: str | None) -> Callable[[str], str | None] | None:
    """The redirect rule for the children of an index found at ``index_url``: every hop stays on its site."""
    if index_url is None or not is_http_url(index_url):
        return None

    def check(target: str) -> str | None:
        return None if same_site(target, index_url) else f"it is not on the index's site ({index_url})"

    return check


def _download(url: str, ctx: Context) -> tuple[BinaryIO, str]:
    """Fetch a child into a spooled temporary file (in memory up to 1 MiB), capped at ``--max-bytes``.

    Returns the file and the URL it was found at after redirects (the site a nested index is scoped to).
    A redirect off the index's site is refused before it is followed (FetchError ``redirect-refused``).
    """
    spool = tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY)  # noqa: SIM115 - handed to the reader
    try:
        with ctx.fetcher().open(url, max_bytes=ctx.options.max_bytes, redirect_rule=same_site_rule(ctx.url)) as fetched:
            while chunk := fetched.read(1 << 16):
                spool.write(chunk)
            final_url = fetched.final_url
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool, final_url  # type: ignore[return-value]


def _percent_case(match: re.Match[str]) -> str:
    char = chr(int(match[0][1:], 16))
    return char if char in _UNRESERVED else match[0].upper()


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4 on an absolute path: ``/a/./b/../c`` -> ``/a/c``."""
    out: list[str] = []
    segments = path.split("/")
    last = len(segments) - 1
    for number, segment in enumerate(segments):
        if segment in (".", ".."):
            if segment == ".." and len(out) > 1:
                out.pop()
            if number == last:
                out.append("")
        else:
            out.append(segment)
    return "/".join(out) if out != [""] else "/"


def loop_key(url: str) -> str:
    """What identifies a fetched index for loop detection: its URL normalised as RFC 3986 §6.2.2 says.

    Scheme and host lowercased, the default port dropped, percent-escapes of unreserved characters decoded
    and the others uppercased, dot segments removed, an empty path made ``/``, the fragment dropped: the
    spellings of one URL (``/./index.xml``, ``HTTP://Example.COM:80/%7euser``) share one key.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a malformed authority (``http://[::1/x``): the URL as written
        return url
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = (userinfo + "@" if userinfo else "") + host
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        netloc += f":{port}"
    path = _remove_dot_segments(_PERCENT.sub(_percent_case, parts.path) or "/")
    return urlunsplit((scheme, netloc, path, _PERCENT.sub(_percent_case, parts.query), ""))


def child_refusal(
    loc: str, index_url: str | None, key: str, ancestors: tuple[str, ...], max_depth: int
) -> tuple[str, str] | None:
    """Why a child of an index is not read, as (code, reason), or None: the rules of index following.

    ``index_url`` is where the index was found (its final URL after redirects; None for a local file),
    ``key`` the child's :func:`loop_key` (or resolved path), ``ancestors`` the keys of the indexes being
    read, the child's own index last.
    """
    if index_url is not None and is_http_url(index_url) and not same_site(loc, index_url):
        return "child-off-site", (
            f"is not on the index's site ({index_url}); not read "
            "(an index may list only sitemaps of its own scheme, host and port)"
        )
    if not is_http_url(loc) and not loc.startswith("file:"):
        return "child-not-read", "is not an http(s) URL; not read"
    if key in ancestors:
        return "index-loop", "is an index already being read; not followed"
    if len(ancestors) > max_depth:
        return "index-too-deep", f"is nested deeper than {max_depth} indexes; not followed"
    return None


def child_url(loc: str, index_url: str | None) -> str | None:
    """An index child's URL: as written when it has a scheme, a relative one resolved against the index's
    own URL (RFC 3986 5.2), None when it is relative and the index has no URL."""
    if _SCHEME.match(loc):
        return loc
    if index_url is None or not _SCHEME.match(index_url):
        return None
    try:
        return urljoin(index_url, loc)
    except ValueError:  # a malformed URL (an unclosed "[" of an IPv6 host): the refusals report it
        return loc


def resolved_message(loc: str, resolved: str) -> str:
    return f"child sitemap {loc} is a relative URL; read as {resolved} (resolved against the index's URL)"


def _absolute(loc: str, line: int, ctx: Context) -> str | None:
    """The child's URL, a relative one resolved against the index's own URL (reported); None when it
    is relative and the index has no URL (reported)."""
    resolved = child_url(loc, ctx.url)
    if resolved is not None:
        if resolved != loc:
            ctx.info("relative-url-resolved", resolved_message(loc, resolved), line)
        return resolved
    ctx.warning(
        "child-not-read",
        f"child sitemap {loc} is a relative URL, and the index was not read from a URL to resolve it against; "
        "not read",
        line,
    )
    return None


def _plan(index_entry: Entry, ctx: Context, tally: _Tally) -> _Child | None:
    """Decide how a child is read, or report why it is not (and give None)."""
    line = index_entry.origin.line if index_entry.origin else 0
    options = ctx.options
    if options.follow_child is not None and not options.follow_child(index_entry.loc, index_entry.lastmod):
        lastmod = f" (lastmod {index_entry.lastmod})" if index_entry.lastmod is not None else ""
        ctx.info(
            "child-skipped",
            f"child sitemap {index_entry.loc}{lastmod} is not read: the follow filter left it out",
            line,
        )
        return None
    tally.failed += 1  # until it is planned
    loc = _absolute(index_entry.loc, line, ctx)
    if loc is None:
        return None
    try:
        path = local_path(loc, options.maps)
    except MapEscapeError as exc:
        ctx.warning("map-escape", str(exc), line)
        return None
    except SourceError as exc:  # a NUL in the path, not a regular file (a FIFO would block)
        ctx.warning("child-failed", f"child sitemap {loc} could not be read: {reason_of(exc, loc)}", line)
        return None
    key = str(path.resolve()) if path is not None else loop_key(loc)
    refused = child_refusal(loc, ctx.url, key, (*ctx.chain, ctx.key()), options.max_depth)
    if refused is not None:
        code, reason = refused
        ctx.warning(code, f"child sitemap {loc} {reason}", line)
        if code == "index-loop":  # an index being read already: what it lists is read, so this is no failure
            tally.failed -= 1
        return None
    tally.failed -= 1
    if path is not None:
        return _Child(loc, line, path=path)
    return _Child(loc, line, download=ctx.shared.pool(options.concurrency).submit(_download, loc, ctx))


def _discard(download: Future[tuple[BinaryIO, str]]) -> None:
    """Close a child downloaded after nobody wanted it any more (without waiting for it)."""
    if not download.cancelled() and download.exception() is None:
        download.result()[0].close()


class _Following:
    """The entries of an index's children, in index order (the ``entries`` of a followed index).

    Iterating it walks the tree of indexes depth first with an explicit stack (one :class:`_Level` per
    index being read), never one generator deeper per level: a nested index found while following is
    taken over by the walk of the outermost index, so the nesting depth costs no Python stack.
    """

    def __init__(self, entries: Iterator[Entry], ctx: Context) -> None:
        self.entries = entries
        self.ctx = ctx
        self._walk: Iterator[Entry] | None = None

    def __iter__(self) -> Iterator[Entry]:
        if self._walk is None:
            self._walk = _walk(_Level(self.entries, self.ctx))
        return self._walk

    def close(self) -> None:
        walk, self._walk = self._walk, iter(())
        if isinstance(walk, Generator):
            walk.close()


@dataclass(slots=True)
class _Level:
    """One index being followed: its entries still to plan, the children planned ahead, how to close it."""

    entries: Iterator[Entry]
    ctx: Context
    #: The child this index is, and the context of its parent (None for the outermost index).
    parent: tuple[_Child, Context] | None = None
    #: Closes the index's input (None for the outermost index: its document closes it).
    stack: contextlib.ExitStack | None = None
    window: deque[_Child] = field(default_factory=deque)
    planned: bool = False
    #: Shared by every level of one walk.
    tally: _Tally = field(default_factory=_Tally)

    def next_child(self) -> _Child | None:
        """The next child to read while up to ``concurrency`` children download ahead; None at the end."""
        ahead = max(1, self.ctx.options.concurrency)
        while not self.planned and len(self.window) < ahead:
            entry = next(self.entries, None)
            if entry is None:
                self.planned = True
            else:
                child = _plan(entry, self.ctx, self.tally)
                if child is not None:
                    self.window.append(child)
        return self.window.popleft() if self.window else None

    def close(self) -> None:
        window, self.window = self.window, deque()
        for child in window:  # stopped early (an error, or the caller closed us): drop what is in flight
            if child.download is not None and not child.download.cancel():
                child.download.add_done_callback(_discard)
        if self.stack is not None:
            self.stack.close()


def _walk(root: _Level) -> Iterator[Entry]:
    """The leaf entries below ``root``, depth first, in index order (see :class:`_Following`)."""
    levels = [root]
    try:
        while levels:
            level = levels[-1]
            try:
                child = level.next_child()
            except FeedmapError as exc:
                if level.parent is None or isinstance(exc, StrictError):
                    raise  # the outermost index's own failure is the caller's
                _report(level.parent[0], level.parent[1], exc, level.tally)
                child = None
            if child is None:
                levels.pop().close()
                continue
            nested = yield from _read_child(child, level.ctx, level.tally)
            if nested is not None:
                levels.append(nested)
        _check_something_read(root)
    finally:
        for level in reversed(levels):
            level.close()


def _check_something_read(root: _Level) -> None:
    """ReadError when children were named and not one could be read."""
    tally = root.tally
    if tally.read == 0 and tally.failed > 0:
        some = "its only child sitemap" if tally.failed == 1 else f"each of its {tally.failed} child sitemaps"
        raise ReadError(
            f"nothing was read from the index: {some} could not be read (see the warnings above)",
            source=root.ctx.name,
            code="no-child-read",
        )


def _open_child(child: _Child, ctx: Context) -> tuple[Document, contextlib.ExitStack]:
    from feedmap._api import start_document

    stack = contextlib.ExitStack()
    try:
        if child.download is not None:
            body, final_url = child.download.result()
            stack.enter_context(body)
            doc, inner = start_document(body, None, ctx.child(child.loc, None, url=final_url))
        else:
            assert child.path is not None
            mapped = child.loc if not child.loc.startswith("file:") else None
            doc, inner = start_document(child.path, None, ctx.child(str(child.path), child.path, url=mapped))
        stack.push(inner)
    except BaseException:
        stack.close()
        raise
    return doc, stack


def _read_child(child: _Child, ctx: Context, tally: _Tally) -> Generator[Entry, None, _Level | None]:
    """Yield a child sitemap's entries; a child that is itself a followed index is returned as a new level."""
    try:
        doc, stack = _open_child(child, ctx)
        if isinstance(doc.entries, _Following):
            return _Level(doc.entries.entries, doc.entries.ctx, parent=(child, ctx), stack=stack, tally=tally)
        with stack:
            yield from doc.entries
        tally.read += 1
    except StrictError:
        raise
    except FeedmapError as exc:
        _report(child, ctx, exc, tally)
    return None


def _report(child: _Child, ctx: Context, exc: FeedmapError, tally: _Tally) -> None:
    """Report why a child could not be read (or stopped being read), on the line of its index naming it."""
    tally.failed += 1
    if isinstance(exc, FetchError) and exc.code == "redirect-refused":
        reason = reason_of(exc, child.loc)
        ctx.warning("child-off-site", f"child sitemap {child.loc} {reason}; not read", child.line)
    elif isinstance(exc, UnknownFormatError):
        reason = f"it is not a sitemap: it {exc.what}" if exc.what else str(exc)
        ctx.warning("child-failed", f"child sitemap {child.loc} could not be read: {reason}", child.line)
    else:
        reason = reason_of(exc, child.loc)  # the URL is named once, first
        ctx.warning("child-failed", f"child sitemap {child.loc} could not be read: {reason}", child.line)


def read(source: Source, *, ctx: Context) -> Document:
    root = peek_root(source.stream)
    namespace = check_root(root, "sitemapindex", ctx)
    entries = iter_entries(source, ctx, namespace, "sitemap")
    if not ctx.options.follow:
        return Document(DocMeta(kind=DocKind.INDEX), entries, diagnostics=ctx.reporter.diagnostics)
    return Document(DocMeta(kind=DocKind.URLSET), _Following(entries, ctx), diagnostics=ctx.reporter.diagnostics)


def _sitemap_block(entry: Entry, ctx: Context, dropped: set[str]) -> str:
    parts = ["<sitemap><loc>", loc_text(entry, ctx), "</loc>"]
    if entry.lastmod is not None:
        parts += ["<lastmod>", entry.lastmod.text, "</lastmod>"]
    if entry.extras:
        parts += xml_extras(entry, dropped, ctx, {})
    parts.append("</sitemap>\n")
    return "".join(parts)


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    dropped: set[str] = set()
    blocks = (_sitemap_block(entry, ctx, dropped) for entry in doc.entries)
    header = root_open_tag("sitemapindex", "", ctx)
    count = write_blocks(sink, header, "</sitemapindex>\n", blocks, SizeWatch(ctx, "sitemaps"))
    if count == 0:
        ctx.warning("empty-document", "no entries: wrote an empty <sitemapindex>")
    return count


FORMAT = FormatSpec(
    name="sitemapindex",
    title="XML sitemap index (sitemaps.org 0.9 sitemapindex)",
    extensions=(),
    roots=(("*", "sitemapindex"),),
    priority=10,
    reader=read,
    writer=write,
    fields=frozenset({"loc", "lastmod", "extras"}),
    description="reading follows children (--map PREFIX=DIR, file: URLs) unless --no-follow",
)
