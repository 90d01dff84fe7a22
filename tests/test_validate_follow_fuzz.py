"""Hostile child URLs for ``feedmap validate`` following a remote index (issue 17, "Done when").

Generated indexes on a real server on 127.0.0.1 name children of every kind: other schemes (``file:``,
``ftp:``, ``javascript:``, ``data:``), other hosts (127.0.0.2, ``localhost``, a trailing dot, userinfo
that looks like a host, escapes in the host), relative and scheme-relative URLs, dot segments, and
children that redirect, hop after hop, to any of those.  Whatever the index says, validate (the library
and the command line) never sends one request to the second server on 127.0.0.2, never opens the local
file named, and ends with a report, never a traceback.  sitemaps.org "Sitemap file location": an index
lists only sitemaps of its own scheme, host and port.
"""

from __future__ import annotations

import contextlib
import io
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import index_xml, urlset_xml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from localsite import LocalSite

import feedmap
from feedmap.cli import main

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
MARKER = "fuzz-never-read"
FAST = feedmap.HttpSettings(connect_timeout=2.0, read_timeout=3.0, deadline=10.0, retries=0, backoff=0.01)
_numbers = itertools.count()


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@dataclass
class Sites:
    web: LocalSite
    other: LocalSite
    secret: Path

    def other_requests(self) -> int:
        return sum(self.other.counts.values())


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sites]:
    folder = tmp_path_factory.mktemp("fuzz-follow")
    secret = folder / "secret.xml"
    with LocalSite() as web, LocalSite(host="127.0.0.2") as other:
        secret.write_bytes(urlset_xml(f"{web.url('/')}{MARKER} file"))
        other.add("/leaf.xml", urlset_xml(f"{other.url('/')}{MARKER} other"))
        web.add("/leaf.xml", urlset_xml(*(web.url(f"/page/{n}") for n in range(20))))
        yield Sites(web, other, secret)


def child_urls(sites: Sites) -> st.SearchStrategy[str]:
    web_port = sites.web.base.rsplit(":", 1)[1]
    other_port = sites.other.base.rsplit(":", 1)[1]
    secret = sites.secret.as_posix()
    schemes = st.sampled_from(["http", "https", "HTTP", "hTtP", "file", "ftp", "gopher", "javascript", "data", "ws"])
    hosts = st.sampled_from(
        [
            f"127.0.0.1:{web_port}",
            f"127.0.0.2:{other_port}",
            f"127.0.0.2.:{other_port}",
            f"localhost:{web_port}",
            f"LOCALHOST:{other_port}",
            f"user@127.0.0.2:{other_port}",
            f"127.0.0.1:{web_port}@127.0.0.2:{other_port}",
            f"127.0.0.1:{web_port}%40127.0.0.2:{other_port}",
            f"%31%32%37.0.0.2:{other_port}",
            f"[::ffff:127.0.0.2]:{other_port}",
            "[::1",
            "",
            f"127.0.0.1:{web_port}\\@127.0.0.2:{other_port}",
            "www..example.com",  # hosts IDNA refuses: an empty label, an invalid A-label
            "xn--zz",
        ]
    )
    paths = st.sampled_from(["/leaf.xml", "/../leaf.xml", "/%2e%2e/leaf.xml", "/./leaf.xml", secret, "/r/0", "/r/1"])
    absolute = st.builds(lambda scheme, host, path: f"{scheme}://{host}{path}", schemes, hosts, paths)
    other = st.sampled_from(
        [
            sites.secret.as_uri(),
            f"file://localhost{secret}",
            f"file:{secret}",
            f"FILE:///{secret.lstrip('/')}",
            f"//127.0.0.2:{other_port}/leaf.xml",
            "leaf.xml",
            "../leaf.xml",
            secret,
            f"javascript:fetch('{sites.other.url('/leaf.xml')}')",
            "data:text/xml,<urlset/>",
            "r/0",
        ]
    )
    return st.one_of(absolute, other)


@st.composite
def hostile_trees(draw: st.DrawFn, sites: Sites) -> str:
    """An index (with maybe a nested index) naming drawn children, some redirecting to drawn targets; its URL."""
    number = next(_numbers)
    urls = child_urls(sites)
    web = sites.web
    for hop in range(2):  # /r/0 and /r/1 of this example: redirects to any URL, one of them to the other hop
        target = draw(st.one_of(urls, st.just(f"/r/{1 - hop}")))
        status = draw(st.sampled_from([301, 302, 303, 307, 308]))
        web.add(f"/r/{hop}", status=status, headers={"Location": target})
    children = draw(st.lists(urls, min_size=1, max_size=5))
    if draw(st.booleans()):
        nested = web.add(f"/nested-{number}.xml", index_xml(*map(escape, draw(st.lists(urls, min_size=1, max_size=3)))))
        children.append(nested)
    return web.add(f"/index-{number}.xml", index_xml(*map(escape, children)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_validate_never_reads_off_the_index_site(sites: Sites, data: st.DataObject) -> None:
    index = data.draw(hostile_trees(sites))
    max_bytes = data.draw(st.sampled_from([100 << 20, 600, 200]))  # a size cap hit by children, or the index
    try:
        report = feedmap.validate(index, options=feedmap.Options(http=FAST, max_bytes=max_bytes))
    except feedmap.SourceError:  # the index itself over the cap: it cannot be read at all
        assert max_bytes < 1000
        found: list[feedmap.Diagnostic] = []
    else:
        found = report.findings
    assert sites.other_requests() == 0
    said = " ".join(f"{finding.source} {finding.message}" for finding in found)
    assert MARKER not in said
    assert all(finding.source.startswith(sites.web.base) for finding in found), said
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["validate", index, "--timeout", "2", "--retries", "0", "--max-bytes", str(max_bytes)])
    assert code in (0, 1, 2), err.getvalue()
    assert "Traceback" not in err.getvalue() and MARKER not in out.getvalue() + err.getvalue()
    assert sites.other_requests() == 0
