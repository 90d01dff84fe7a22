"""Where a URL is read from: a ``--map PREFIX=DIR`` directory, a ``file:`` path, or the network.

``--map https://example.com/=public/`` reads ``https://example.com/blog/`` from ``public/blog/`` (and a
URL naming a directory from the index file in it: ``index.xml`` for sitemaps, ``index.html`` for
pages; with ``pretty=True``, ``/about`` from ``about.html`` when there is no ``about``), as a static-site
generator lays out its build directory.  A mapped URL must stay inside its directory: ``..`` and
symlinks out of it are refused, and so is a fallback file (``index.html``, ``NAME.html``) that is a
symlink out of it, since the path actually read is checked after the fallback is chosen.

The path is percent-decoded (RFC 3986 §2.1); a decoded NUL (``%00``) names no file and is refused.  A
path that exists but is not a regular file (a FIFO, a device, a socket) is refused too, without being
opened: opening a FIFO for reading blocks until a writer comes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlsplit

from feedmap._core.errors import SourceError
from feedmap._core.urls import encode_url

__all__ = ["MapEscapeError", "is_mapped", "local_path"]


class MapEscapeError(SourceError):
    """A mapped URL that leads outside its directory."""


def _under(url: str, prefix: str) -> bool:
    """``url`` starts with ``prefix`` at a boundary: ``https://example.com`` covers ``https://example.com/a``
    but not ``https://example.com.evil/``."""
    if not url.startswith(prefix):
        return False
    return prefix.endswith(("/", "=", "?", "#")) or len(url) == len(prefix) or url[len(prefix)] in "/?#"


def _rest(url: str, prefix: str) -> str | None:
    """What follows ``prefix`` in ``url``, or None when ``url`` is not under it.  An IRI and its URI are one
    URL (``https://faß.de/`` covers ``https://xn--fa-hia.de/a``, as written): both are compared as written
    when either is not ASCII."""
    if _under(url, prefix):
        return url[len(prefix) :]
    if url.isascii() and prefix.isascii():
        return None
    url, prefix = encode_url(url), encode_url(prefix)
    return url[len(prefix) :] if _under(url, prefix) else None


def is_mapped(url: str, maps: Sequence[tuple[str, Path]]) -> bool:
    return any(_rest(url, prefix) is not None for prefix, _ in maps)


def _decoded_path(url: str, text: str) -> str:
    """The percent-decoded path of ``text`` (a URL or the rest of one after a ``--map`` prefix)."""
    try:
        path = unquote(urlsplit(text).path)
    except ValueError as exc:  # a malformed authority (file://[x/...)
        raise SourceError(f"{url}: not a valid URL ({exc})") from None
    if "\0" in path:
        raise SourceError(f"{url}: the path contains a NUL character (%00), which names no file; not read")
    return path


def _inside(url: str, target: Path, base: Path, directory: Path) -> Path:
    """``target`` resolved (symlinks followed), or :class:`MapEscapeError` when it is not under ``base``."""
    resolved = target.resolve()
    if resolved != base and base not in resolved.parents:
        raise MapEscapeError(f"{url} maps outside {directory}; not read")
    return resolved


def _regular(url: str, path: Path) -> Path:
    """``path``, unless it exists and is not a regular file (checked with stat, never by opening it)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return path  # missing or unreadable: the caller's open says so
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise SourceError(f"{url}: {path} is not a regular file; not read")
    return path


def _mapped(url: str, rest: str, directory: Path, index_name: str, pretty: bool) -> Path:
    base = directory.resolve()
    target = _inside(url, directory / rest, base, directory)
    if target.is_dir():
        target = _inside(url, target / index_name, base, directory)
    elif pretty and not target.suffix and not os.path.lexists(target):
        candidate = target.with_name(target.name + ".html")
        if os.path.lexists(candidate):
            target = _inside(url, candidate, base, directory)
    return target


def local_path(
    url: str, maps: Sequence[tuple[str, Path]], *, index_name: str = "index.xml", pretty: bool = False
) -> Path | None:
    """The local file ``url`` stands for (``--map`` prefix or ``file:`` URL), or None for a network URL.

    ``index_name`` is the file a directory stands for; ``pretty`` also tries ``NAME.html`` for an
    extensionless path that does not exist.  Raises :class:`MapEscapeError` for a mapped URL that leads
    outside its directory (the file finally chosen is checked), :class:`SourceError` for a path with a NUL
    or one that is not a regular file.
    """
    for prefix, directory in maps:
        after = _rest(url, prefix)
        if after is not None:
            rest = _decoded_path(url, after).lstrip("/")
            return _regular(url, _mapped(url, rest, directory, index_name, pretty))
    if url.startswith("file:"):
        return _regular(url, Path(_decoded_path(url, url)))
    return None
