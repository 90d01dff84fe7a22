"""The rules of index following: which child of a sitemap index is read, and how an index is known.

Shared by :mod:`feedmap._web.follow` (reading an index's children), :mod:`feedmap._web.sitemaptree` (its tree) and
:mod:`feedmap._validate.report` (validating the children);
:mod:`feedmap._core.context` uses :func:`loop_key` to name the document being read.  Pure functions, no I/O.

* **Scope** (sitemaps.org protocol, "Sitemap file location", https://www.sitemaps.org/protocol.html#location):
  a child of a fetched index must have the index's scheme, host and port (``child-off-site``), and so must
  every redirect it answers with (:func:`same_site_rule`).
* **Loops**: an index is known by its URL normalised as RFC 3986 §6.2.2 says (case of scheme and host,
  default port, percent-encoding, dot segments of §5.2.4), so ``/./index.xml`` is the index itself.
* **Relative children**: resolved against the index's own URL (RFC 3986 §5.2, :func:`child_url`).
* **Depth**: nesting deeper than ``max_depth`` indexes is not followed (``index-too-deep``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urljoin, urlsplit, urlunsplit

from feedmap._core.urls import is_http_url, normalised_escapes, normalised_path, same_site
from feedmap._core.wording import counted

__all__ = [
    "child_refusal",
    "child_url",
    "loop_key",
    "nesting_refusal",
    "resolved_message",
    "same_site_rule",
    "scope_refusal",
]

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # RFC 3986 3.1: a URL with a scheme is not relative
_DEFAULT_PORTS = {"http": 80, "https": 443}


def same_site_rule(index_url: str | None) -> Callable[[str], str | None] | None:
    """The redirect rule for the children of an index found at ``index_url``: every hop stays on its site."""
    if index_url is None or not is_http_url(index_url):
        return None

    def check(target: str) -> str | None:
        return None if same_site(target, index_url) else f"is not on the index's site ({index_url})"

    return check


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
    return urlunsplit((scheme, netloc, normalised_path(parts.path), normalised_escapes(parts.query), ""))


def scope_refusal(loc: str, index_url: str | None) -> tuple[str, str] | None:
    """Why a child may not be read at all, as (code, reason), or None: the rules that need no I/O and come
    before any (a ``file:`` or ``--map`` path is not even looked at for a child refused here).

    A child of an index at an http(s) URL must be on its site (``child-off-site``: a ``file:`` child of a
    remote index too); any child must be http(s) or, from a local index, ``file:`` (``child-not-read``).
    """
    if index_url is not None and is_http_url(index_url) and not same_site(loc, index_url):
        return "child-off-site", (
            f"is not on the index's site ({index_url}); not read "
            "(an index may list only sitemaps of its own scheme, host and port)"
        )
    if not is_http_url(loc) and not loc.startswith("file:"):
        return "child-not-read", "is not an http(s) URL; not read"
    return None


def nesting_refusal(key: str, ancestors: tuple[str, ...], max_depth: int) -> tuple[str, str] | None:
    """Why a child in scope is not followed, as (code, reason), or None: a loop, or nesting too deep."""
    if key in ancestors:
        return "index-loop", "is an index already being read; not followed"
    if len(ancestors) > max_depth:
        return "index-too-deep", f"is nested deeper than {counted(max_depth, 'index', 'indexes')}; not followed"
    return None


def child_refusal(
    loc: str, index_url: str | None, key: str, ancestors: tuple[str, ...], max_depth: int
) -> tuple[str, str] | None:
    """Why a child of an index is not read, as (code, reason), or None: the rules of index following
    (:func:`scope_refusal`, then :func:`nesting_refusal`).

    ``index_url`` is where the index was found (its final URL after redirects; None for a local file),
    ``key`` the child's :func:`loop_key` (or resolved path), ``ancestors`` the keys of the indexes being
    read, the child's own index last.
    """
    return scope_refusal(loc, index_url) or nesting_refusal(key, ancestors, max_depth)


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
    """The INFO ``relative-url-resolved`` message for a relative child ``loc`` read as ``resolved``."""
    return f"child sitemap {loc} is a relative URL; read as {resolved} (resolved against the index's URL)"
