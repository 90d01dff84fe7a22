"""Which of the URLs a split writes are outside the scope of the files it writes them into.

Spec: https://www.sitemaps.org/protocol.html#location ("Sitemap file location"): a sitemap served at
``https://example.com/catalog/`` may list only URLs that start with ``https://example.com/catalog/`` (same
scheme, host and port, under that path) unless the site's robots.txt names it ("Sitemaps & Cross
Submits").  The rule is :func:`feedmap._core.urls.scope_check`'s (paths compared in their RFC 3986 §6.2.2
normal form); :class:`ScopeCheck` gives its answers at the cost of a few string tests for the URLs nearly
every split holds: on the base URL's own site with a plain path (no escape, backslash, dot segment, tab or
line break: its text is its normal form), or on another site, whose answer is kept per scheme and
authority (RFC 3986 §3.2 ends the authority at the first ``/``, ``?`` or ``#``; Python's ``urlsplit``, which
``scope_check`` uses, cuts it the same way once tabs and line breaks are removed).  Every other URL is
asked of ``scope_check`` itself.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from feedmap._core.context import Context
from feedmap._core.urls import normalised_path, same_site, scope_check
from feedmap._core.wording import counted

__all__ = ["ScopeCheck", "report_outside"]

#: A URL's scheme and authority as ``urlsplit`` cuts them (the scheme up to the first ``:``, the authority up
#: to the first ``/``, ``?`` or ``#``); not when a tab or line break (which ``urlsplit`` removes) is in them.
_SITE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#\t\n\r]*(?=[/?#]|\Z)")
#: A plain path, up to the query or fragment: no escape, backslash, segment starting with a dot, tab or line
#: break, so that it is its own normal form and what ``urlsplit`` reads.
_PLAIN_PATH = r"(?:/(?!\.)[^?#%\\\t\n\r/]*)+(?=[?#]|\Z)"
#: The same for each line of URLs joined by LF, the rest of a line after its path any (:meth:`ScopeCheck.outside_of`).
_PLAIN_PATH_LINE = r"(?:/(?!\.)[^?#%\\\t\n\r/]*)+(?:[?#][^\n]*)?"
#: Sites other than the base URL's remembered (the answer per site; past this many the rest are asked anew).
_SITES_KEPT = 256


class ScopeCheck:
    """Whether a URL is in the scope of files served at ``base`` (an absolute http(s) URL ending in ``/``):
    the answer of :func:`feedmap._core.urls.scope_check`, found faster (see the module documentation)."""

    def __init__(self, base: str) -> None:
        self._check = scope_check(base)
        self._base = base
        parts = urlsplit(base)
        site = f"{parts.scheme}://{parts.netloc}"  # as written: the same text is the same site
        folder = normalised_path(parts.path.replace("\\", "/")).rpartition("/")[0] + "/"
        self._plain_on_site = re.compile(re.escape(site) + _PLAIN_PATH)
        line = re.escape(site) + _PLAIN_PATH_LINE
        self._plain_lines = re.compile(f"{line}(?:\n{line})*")
        self._under = site + folder  # a plain path on the site is in scope when it starts so
        self._site = site + "/"
        self._other_sites: dict[str, bool] = {}  # per scheme and authority as written: on the base's site

    def __call__(self, url: str) -> bool:
        if self._plain_on_site.match(url) is not None:
            return url.startswith(self._under)
        found = _SITE.match(url)
        if found is None:
            return self._check(url)
        site = found[0]
        same = self._other_sites.get(site)
        if same is None:
            same = same_site(site, self._base)
            if len(self._other_sites) < _SITES_KEPT:
                self._other_sites[site] = same
        return same and self._check(url)

    def outside_of(self, locs: list[str], text: str) -> tuple[int, str]:
        """How many of ``locs`` (``text``: them joined by LF, no LF in any) are outside the scope, and the first
        of them ("" if none): for URLs on the base URL's site with plain paths, by counting those that start
        with its folder, else one by one."""
        under, site = self._under, self._site
        on_site = text.startswith(site) + text.count("\n" + site)
        plain = "%" not in text and "\\" not in text and "/." not in text  # no line has a path of another form
        if (on_site == len(locs) and plain) or self._plain_lines.fullmatch(text) is not None:
            outside = len(locs) - text.startswith(under) - text.count("\n" + under)
            return outside, next(loc for loc in locs if not loc.startswith(under)) if outside else ""
        outside, first = 0, ""
        for loc in locs:
            if not self(loc):
                outside += 1
                first = first or loc
        return outside, first


def report_outside(outside: int, first: str, base_url: str, ctx: Context) -> None:
    """The INFO ``outside-sitemap-scope`` for ``outside`` URLs (the first of them ``first``), when any."""
    if outside:
        ctx.info(
            "outside-sitemap-scope",
            f"{counted(outside, 'URL')} not under {base_url}, where the files are served (first: {first}): "
            "sitemaps.org lets a sitemap list only URLs under its own location unless the site's robots.txt "
            "names it; add a 'Sitemap:' line naming the index to the robots.txt of the host of those URLs",
        )
