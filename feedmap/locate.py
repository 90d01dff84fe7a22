"""Where a URL is read from: a ``--map PREFIX=DIR`` directory, a ``file:`` path, or the network.

``--map https://example.com/=public/`` reads ``https://example.com/blog/`` from ``public/blog/`` (and a
URL naming a directory from the index file in it: ``index.xml`` for sitemaps, ``index.html`` for
pages), as a static-site generator lays out its build directory.  A mapped URL must stay inside its
directory (``..`` and symlinks out of it are refused).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlsplit

from feedmap.errors import SourceError

__all__ = ["MapEscapeError", "is_mapped", "local_path"]


class MapEscapeError(SourceError):
    """A mapped URL that leads outside its directory."""


def _under(url: str, prefix: str) -> bool:
    """``url`` starts with ``prefix`` at a boundary: ``https://example.com`` covers ``https://example.com/a``
    but not ``https://example.com.evil/``."""
    if not url.startswith(prefix):
        return False
    return prefix.endswith(("/", "=", "?", "#")) or len(url) == len(prefix) or url[len(prefix)] in "/?#"


def is_mapped(url: str, maps: Sequence[tuple[str, Path]]) -> bool:
    return any(_under(url, prefix) for prefix, _ in maps)


def local_path(url: str, maps: Sequence[tuple[str, Path]], *, index_name: str = "index.xml") -> Path | None:
    """The local file ``url`` stands for (``--map`` prefix or ``file:`` URL), or None for a network URL.

    Raises :class:`MapEscapeError` for a mapped URL that leads outside its directory.
    """
    for prefix, directory in maps:
        if _under(url, prefix):
            rest = unquote(urlsplit(url[len(prefix) :]).path).lstrip("/")
            base = directory.resolve()
            target = (directory / rest).resolve()
            if target != base and base not in target.parents:
                raise MapEscapeError(f"{url} maps outside {directory}; not read")
            if target.is_dir():
                target = target / index_name
            return target
    if url.startswith("file:"):
        return Path(unquote(urlsplit(url).path))
    return None
