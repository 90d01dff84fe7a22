"""``feedmap discover``, :mod:`feedmap._web.discover` (robots.txt, the usual locations),
:mod:`feedmap._web.sitemaptree`.

Everything runs against the real local server of ``tests/localsite.py`` (the ``web`` fixture), or against a
``--map`` build directory with no server at all.  "Another site" is ``http://localhost:PORT`` seen from
``http://127.0.0.1:PORT`` (another host, the same server).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from conftest import codes, run
from localsite import LocalSite

import feedmap
from feedmap import (
    Diagnostic,
    FetchError,
    HttpSettings,
    Level,
    Options,
    SourceError,
    StrictError,
    find_sitemaps,
    sitemap_tree,
)
from feedmap._web.discover import discover, site_root
from feedmap._web.sitemaptree import sitemap_trees

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
#: No retries, short timeouts: a failure shows at once.
FAST = HttpSettings(retries=0, connect_timeout=2.0, read_timeout=5.0, backoff=0.01)


# ------------------------------------------------------------------------------------------------ helpers


def urlset_xml(count: int, base: str = "https://www.example.com/page/") -> bytes:
    body = "".join(f"<url><loc>{base}{i}</loc></url>\n" for i in range(count))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}">\n{body}</urlset>\n'.encode()


def index_xml(*children: str) -> bytes:
    body = "".join(f"  <sitemap><loc>{loc}</loc></sitemap>\n" for loc in children)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SM}">\n{body}</sitemapindex>\n'.encode()


RSS = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>https://www.example.com/</link>
<description>d</description><item><title>a</title><link>https://www.example.com/a</link></item></channel></rss>"""


def other_site(web: LocalSite, path: str) -> str:
    """The same server seen as another site (localhost instead of 127.0.0.1)."""
    return web.url(path).replace("127.0.0.1", "localhost")


# ------------------------------------------------------------------------------------------------ the site


@pytest.mark.parametrize(
    ("given", "root"),
    [
        ("example.com", "https://example.com/"),
        ("Example.COM/blog/post?x=1#top", "https://example.com/"),
        ("http://example.com", "http://example.com/"),
        ("https://example.com:8443/a/b/", "https://example.com:8443/"),
        ("HTTP://user:pw@Example.com/x", "http://example.com/"),
        ("//example.com/", "https://example.com/"),
        ("  https://example.com/  ", "https://example.com/"),
    ],
)
def test_site_url_is_normalised_to_its_root(given: str, root: str) -> None:
    assert site_root(given) == root


@pytest.mark.parametrize("given", ["ftp://example.com/", "https://", "mailto:a@example.com", "http://a:port/"])
def test_what_is_not_a_web_site_is_refused(given: str) -> None:
    with pytest.raises(SourceError):
        site_root(given)


def test_cli_refuses_a_site_that_is_not_a_web_site(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "discover", "ftp://example.com/")
    assert code == 2
    assert out == ""
    assert "ftp://example.com/" in err
    assert "Traceback" not in err


# ------------------------------------------------------------------------------------------------ robots.txt


def test_robots_sitemap_lines_in_any_case_inside_and_outside_groups(web: LocalSite) -> None:
    a, b, c, d = (web.url(f"/{name}.xml") for name in ("a", "b", "c", "d"))
    web.add(
        "/robots.txt",
        f"# Sitemap: {web.url('/commented-out.xml')}\n"
        f"Sitemap: {a}   # before any group\n"
        "\n"
        "User-agent: *\n"
        "Disallow: /private/\n"
        f"sitemap: {b}\n"
        "\n"
        "User-agent: otherbot\n"
        "Disallow: /\n"
        f"SITEMAP:{c}\n"
        f"  SiteMap :  {a}\n"  # a duplicate
        f"Sitemap: {d}\n",
        content_type="text/plain",
    )
    found = discover(web.url("/some/page.html"), Options(http=FAST))
    assert found.site == web.url("/")
    assert found.urls == [a, b, c, d]
    assert {f.via for f in found.sitemaps} == {"robots.txt"}
    assert {f.source for f in found.sitemaps} == {web.url("/robots.txt")}
    assert [(p.url, p.code, p.found) for p in found.tried] == [(web.url("/robots.txt"), "robots-sitemaps", True)]
    # robots.txt named sitemaps: the usual locations are not tried, and the sitemaps are not fetched
    assert web.hits("/sitemap.xml") == web.hits("/sitemap_index.xml") == web.hits("/a.xml") == 0
    assert find_sitemaps(web.url("/"), Options(http=FAST)) == [a, b, c, d]


def test_a_cross_site_sitemap_in_robots_is_listed(web: LocalSite) -> None:
    elsewhere = other_site(web, "/shared/sitemap.xml")
    web.add("/robots.txt", f"User-agent: *\nAllow: /\nSitemap: {elsewhere}\n", content_type="text/plain")
    found = discover(web.url("/"), Options(http=FAST))
    assert found.urls == [elsewhere]
    assert found.sitemaps[0].source == web.url("/robots.txt")


def test_a_relative_sitemap_line_is_resolved_and_noted(web: LocalSite) -> None:
    web.add(
        "/robots.txt",
        "Sitemap: /maps/sitemap.xml\nSitemap: ftp://example.com/sitemap.xml\n",
        content_type="text/plain",
    )
    seen: list[Diagnostic] = []
    assert find_sitemaps(web.url("/"), Options(http=FAST), on_diagnostic=seen.append) == [web.url("/maps/sitemap.xml")]
    assert codes(seen) == ["robots-relative-sitemap", "robots-bad-sitemap"]
    assert all(d.source == web.url("/robots.txt") for d in seen)
    assert [d.level for d in seen] == [Level.INFO, Level.WARNING]


def test_robots_without_sitemap_lines_falls_back_to_sitemap_xml(web: LocalSite) -> None:
    web.add("/robots.txt", "User-agent: *\nDisallow: /admin/\n# no sitemap here\n", content_type="text/plain")
    web.add("/sitemap.xml", urlset_xml(3))
    found = discover(web.url("/"), Options(http=FAST))
    assert found.urls == [web.url("/sitemap.xml")]
    assert found.sitemaps[0].via == "fallback"
    assert [p.code for p in found.tried] == ["robots-no-sitemaps", "found", "http-404"]
    assert [p.url for p in found.tried] == [web.url(p) for p in ("/robots.txt", "/sitemap.xml", "/sitemap_index.xml")]


def test_no_robots_and_no_sitemap_xml_falls_back_to_sitemap_index_xml(web: LocalSite) -> None:
    web.add("/sitemap_index.xml", index_xml(web.url("/posts.xml")))
    found = discover(web.url("/"), Options(http=FAST))
    assert found.urls == [web.url("/sitemap_index.xml")]
    assert [p.code for p in found.tried] == ["http-404", "http-404", "found"]
    assert web.hits("/robots.txt") == web.hits("/sitemap.xml") == 1


def test_both_usual_locations_are_listed_in_order(web: LocalSite) -> None:
    web.add("/sitemap.xml", urlset_xml(1))
    web.add("/sitemap_index.xml", index_xml(web.url("/sitemap.xml")))
    assert find_sitemaps(web.url("/"), Options(http=FAST)) == [web.url("/sitemap.xml"), web.url("/sitemap_index.xml")]


def test_a_redirect_lists_the_final_url_once(web: LocalSite) -> None:
    web.add("/sitemap.xml", b"", status=301, headers={"Location": "/sitemap_index.xml"})
    web.add("/sitemap_index.xml", index_xml(web.url("/posts.xml")))
    found = discover(web.url("/"), Options(http=FAST))
    assert found.urls == [web.url("/sitemap_index.xml")]
    assert [p.code for p in found.tried] == ["http-404", "found", "found"]


@pytest.mark.parametrize(
    ("body", "content_type", "taken"),
    [
        (urlset_xml(2), "application/xml", True),
        (gzip.compress(urlset_xml(2)), "application/octet-stream", True),  # gzip by magic bytes
        (index_xml("https://www.example.com/a.xml"), "text/xml", True),
        (RSS, "application/rss+xml", True),
        (b"https://www.example.com/a\nhttps://www.example.com/b\n", "text/plain", True),
        (b"<!DOCTYPE html><html><head><title>Home</title></head><body>Not here</body></html>", "text/html", False),
        (b'{"loc": "https://www.example.com/a"}\n', "application/json", False),
        (b"", "application/xml", False),
        (b"User-agent: *\nDisallow:\n", "text/plain", False),
    ],
    ids=["urlset", "gzip", "index", "feed", "text", "html", "jsonl", "empty", "not-urls"],
)
def test_a_usual_location_counts_only_when_its_content_is_a_sitemap(
    web: LocalSite, body: bytes, content_type: str, taken: bool
) -> None:
    web.add("/sitemap.xml", body, content_type=content_type)
    found = discover(web.url("/"), Options(http=FAST))
    assert found.urls == ([web.url("/sitemap.xml")] if taken else [])
    assert found.tried[1].code == ("found" if taken else "not-a-sitemap")


def test_an_html_200_at_sitemap_xml_is_not_taken(web: LocalSite) -> None:
    web.add("/sitemap.xml", "<html><body><h1>Page not found</h1></body></html>", content_type="text/html")
    web.add("/sitemap_index.xml", index_xml(web.url("/a.xml")))
    found = discover(web.url("/"), Options(http=FAST))
    assert found.urls == [web.url("/sitemap_index.xml")]
    probe = found.tried[1]
    assert (probe.url, probe.code, probe.found) == (web.url("/sitemap.xml"), "not-a-sitemap", False)
    assert "text/html" in probe.message


def test_robots_answering_503_is_reported_and_the_usual_locations_are_tried(web: LocalSite) -> None:
    web.add("/robots.txt", "Sitemap: /never.xml\n", statuses=[503], content_type="text/plain")
    web.add("/sitemap.xml", urlset_xml(1))
    seen: list[Diagnostic] = []
    found = discover(web.url("/"), Options(http=FAST), on_diagnostic=seen.append)
    assert found.urls == [web.url("/sitemap.xml")]
    assert codes(seen) == ["robots-unreadable"]
    assert found.tried[0].code == "http-503"


def test_an_unreachable_site_raises(refused_port: int) -> None:
    site = f"http://127.0.0.1:{refused_port}/"
    with pytest.raises(FetchError) as caught:
        find_sitemaps(site, Options(http=FAST))
    assert caught.value.code == "fetch-failed"
    assert site in str(caught.value)


# ------------------------------------------------------------------------------------------------ CLI: finding


def test_cli_prints_the_sitemap_urls_one_per_line(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    web.add("/robots.txt", f"SITEMAP: {web.url('/a.xml')}\nsitemap: {web.url('/b.xml')}\n", content_type="text/plain")
    code, out, err = run(capsys, "discover", web.url("/"), "--retries", "0")
    assert code == 0
    assert out.splitlines() == [web.url("/a.xml"), web.url("/b.xml")]
    assert err == ""


def test_cli_verbose_says_how_each_was_found(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    web.add("/robots.txt", "User-agent: *\nDisallow:\n", content_type="text/plain")
    web.add("/sitemap.xml", urlset_xml(1))
    code, out, err = run(capsys, "discover", "-v", web.url("/"), "--retries", "0")
    assert code == 0
    assert out.splitlines() == [web.url("/sitemap.xml")]
    assert f"{web.url('/robots.txt')}: info[robots-no-sitemaps]:" in err
    assert f"{web.url('/sitemap.xml')}: info[found]:" in err
    assert f"{web.url('/sitemap_index.xml')}: info[http-404]:" in err


def test_cli_nothing_found_exits_1_saying_what_was_tried(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    web.add("/sitemap.xml", "<html><body>home</body></html>", content_type="text/html")
    code, out, err = run(capsys, "discover", web.url("/"), "--retries", "0")
    assert code == 1
    assert out == ""
    for path in ("/robots.txt", "/sitemap.xml", "/sitemap_index.xml"):
        assert web.url(path) in err
    assert "no sitemap found" in err


def test_cli_unreachable_site_exits_2(capsys: pytest.CaptureFixture[str], refused_port: int) -> None:
    site = f"http://127.0.0.1:{refused_port}/"
    code, out, err = run(capsys, "discover", site, "--retries", "0")
    assert code == 2
    assert out == ""
    assert site in err
    assert "Traceback" not in err


def test_cli_json_without_tree(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = other_site(web, "/s.xml")
    web.add("/robots.txt", f"Sitemap: {elsewhere}\n", content_type="text/plain")
    code, out, _ = run(capsys, "discover", web.url("/"), "--json", "--retries", "0")
    assert code == 0
    result = json.loads(out)
    assert result["site"] == web.url("/")
    assert result["sitemaps"] == [{"url": elsewhere, "via": "robots.txt", "source": web.url("/robots.txt")}]
    assert [p["code"] for p in result["tried"]] == ["robots-sitemaps"]
    assert "tree" not in result


def test_cli_json_when_nothing_is_found_still_parses(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "discover", web.url("/"), "--json", "--retries", "0")
    assert code == 1
    result = json.loads(out)
    assert result["sitemaps"] == []
    assert [p["code"] for p in result["tried"]] == ["http-404", "http-404", "http-404"]


def test_cli_help_teaches_with_examples(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "discover", "--help")
    assert code == 0
    for text in ("robots.txt", "/sitemap.xml", "/sitemap_index.xml", "--tree", "examples:", "exit codes:"):
        assert text in out
    code, out, _ = run(capsys, "--help")
    assert "feedmap discover" in out


# ------------------------------------------------------------------------------------------------ the tree


@pytest.fixture
def tree_site(web: LocalSite) -> LocalSite:
    """robots.txt -> an index of: a gzip file, a plain child sent with Content-Encoding gzip, a nested index
    (of one sitemap and one feed), and a child that answers 404."""
    web.add("/robots.txt", f"User-agent: *\nSitemap: {web.url('/sitemap_index.xml')}\n", content_type="text/plain")
    web.add(
        "/sitemap_index.xml",
        index_xml(
            web.url("/sitemap-posts.xml.gz"),
            web.url("/sitemap-pages.xml"),
            web.url("/nested.xml"),
            web.url("/gone.xml"),
        ),
    )
    web.add("/sitemap-posts.xml.gz", gzip.compress(urlset_xml(1000)), content_type="application/gzip")
    web.add("/sitemap-pages.xml", urlset_xml(234), encoding="gzip")
    web.add("/nested.xml", index_xml(web.url("/deep.xml"), web.url("/feed.xml")))
    web.add("/deep.xml", urlset_xml(5))
    web.add("/feed.xml", RSS, content_type="application/rss+xml")
    return web


def test_cli_tree_with_nested_index_gzip_child_and_failing_child(
    tree_site: LocalSite, capsys: pytest.CaptureFixture[str]
) -> None:
    url = tree_site.url
    code, out, err = run(capsys, "discover", url("/"), "--tree", "--retries", "0")
    assert code == 1  # /gone.xml is missing, as `feedmap convert` of it exits 1
    assert "1 sitemap of the tree could not be read" in err
    assert out.splitlines() == [
        f"{url('/sitemap_index.xml')}  index, 4 sitemaps, 1,240 URLs, 1 not read",
        f"  {url('/sitemap-posts.xml.gz')}  1,000 URLs",
        f"  {url('/sitemap-pages.xml')}  234 URLs",
        f"  {url('/nested.xml')}  index, 2 sitemaps, 6 URLs",
        f"    {url('/deep.xml')}  5 URLs",
        f"    {url('/feed.xml')}  feed, 1 URL",
        f"  {url('/gone.xml')}  error[http-404]: HTTP 404 Not Found",
    ]


def test_cli_tree_json_parses_with_counts(tree_site: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    url = tree_site.url
    code, out, _ = run(capsys, "discover", url("/"), "--tree", "--json", "--retries", "0")
    assert code == 1  # /gone.xml is missing
    result = json.loads(out)
    assert [s["url"] for s in result["sitemaps"]] == [url("/sitemap_index.xml")]
    (root,) = result["tree"]
    assert (root["kind"], root["format"], root["entries"], root["urls"], root["error"]) == (
        "index",
        "sitemapindex",
        4,
        1240,
        None,
    )
    children = {child["url"]: child for child in root["children"]}
    assert children[url("/sitemap-posts.xml.gz")]["urls"] == 1000
    assert children[url("/sitemap-pages.xml")]["kind"] == "urlset"
    assert [c["urls"] for c in children[url("/nested.xml")]["children"]] == [5, 1]
    assert children[url("/gone.xml")]["error"]["code"] == "http-404"
    assert url("/gone.xml") not in children[url("/gone.xml")]["error"]["message"]  # the URL is not repeated


def test_tree_library_loop_off_site_and_failures_go_on(web: LocalSite) -> None:
    web.add(
        "/a.xml",
        index_xml(
            web.url("/b.xml"),
            other_site(web, "/elsewhere.xml"),
            web.url("/page.html"),
            "ftp://example.com/x.xml",
            web.url("/ok.xml"),
        ),
    )
    web.add("/b.xml", index_xml(web.url("/a.xml"), web.url("/b.xml")))
    web.add("/page.html", "<html><body>hi</body></html>", content_type="text/html")
    web.add("/ok.xml", urlset_xml(7))
    root = sitemap_tree(web.url("/a.xml"), Options(http=FAST))
    assert [(depth, node.url, node.code) for depth, node in root.walk()] == [
        (0, web.url("/a.xml"), None),
        (1, web.url("/b.xml"), None),
        (2, web.url("/a.xml"), "index-loop"),
        (2, web.url("/b.xml"), "index-loop"),
        (1, other_site(web, "/elsewhere.xml"), "child-off-site"),
        (1, web.url("/page.html"), "not-a-sitemap"),
        (1, "ftp://example.com/x.xml", "child-off-site"),  # as index following says
        (1, web.url("/ok.xml"), None),
    ]
    assert root.urls == 7
    assert root.failed == 5
    assert web.hits("/a.xml") == web.hits("/b.xml") == 1  # the loop is not fetched again
    assert web.hits("/elsewhere.xml") == 0


@pytest.mark.parametrize(("max_depth", "read"), [(1, ["/l0.xml", "/l1.xml"]), (2, ["/l0.xml", "/l1.xml", "/l2.xml"])])
def test_tree_depth_cap(web: LocalSite, max_depth: int, read: list[str]) -> None:
    web.add("/l0.xml", index_xml(web.url("/l1.xml")))
    web.add("/l1.xml", index_xml(web.url("/l2.xml")))
    web.add("/l2.xml", index_xml(web.url("/l3.xml")))
    web.add("/l3.xml", urlset_xml(1))
    root = sitemap_tree(web.url("/l0.xml"), Options(http=FAST, max_depth=max_depth))
    nodes = [node for _, node in root.walk()]
    assert [n.url for n in nodes if n.ok] == [web.url(p) for p in read]
    assert nodes[-1].code == "index-too-deep"
    assert all(web.hits(p) == (1 if p in read else 0) for p in ("/l0.xml", "/l1.xml", "/l2.xml", "/l3.xml"))


def test_tree_children_are_read_concurrently(web: LocalSite) -> None:
    # each child answers once all 8 are asked for at once
    children = [web.add(f"/slow-{i}.xml", urlset_xml(2), wait_for_peak=8) for i in range(8)]
    web.add("/index.xml", index_xml(*children))
    root = sitemap_tree(web.url("/index.xml"), Options(http=FAST, concurrency=8))
    assert root.urls == 16
    assert web.peak("/slow-") == 8


def test_tree_timeout_and_size_cap_are_nodes(web: LocalSite) -> None:
    web.add("/slow.xml", urlset_xml(1), delay=3)
    web.add("/big.xml", urlset_xml(2000))
    web.add("/small.xml", urlset_xml(2))
    web.add("/index.xml", index_xml(web.url("/slow.xml"), web.url("/big.xml"), web.url("/small.xml")))
    settings = HttpSettings(retries=0, connect_timeout=0.5, read_timeout=0.5)
    root = sitemap_tree(web.url("/index.xml"), Options(http=settings, max_bytes=20_000))
    assert [(child.code, child.urls) for child in root.children] == [("timeout", 0), ("too-large", 0), (None, 2)]


def test_tree_reports_the_diagnostics_of_each_sitemap_naming_it(web: LocalSite) -> None:
    body = f'<urlset xmlns="{SM}"><url><loc>https://www.example.com/?a=1&b=2</loc></url></urlset>'
    web.add("/child.xml", body)
    web.add("/index.xml", index_xml(web.url("/child.xml")))
    seen: list[Diagnostic] = []
    root = sitemap_tree(web.url("/index.xml"), Options(http=FAST), on_diagnostic=seen.append)
    assert root.urls == 1
    assert "bare-ampersand" in codes(seen)
    assert {d.source for d in seen if d.code == "bare-ampersand"} == {web.url("/child.xml")}


def test_tree_scopes_children_to_the_index_final_url_after_a_redirect(web: LocalSite) -> None:
    # 127.0.0.1/old-index.xml moved to localhost/index.xml: the index now lives on localhost, so its
    # localhost children are its own and its 127.0.0.1 child is another site's.
    web.add("/old-index.xml", b"", status=301, headers={"Location": other_site(web, "/index.xml")})
    web.add("/index.xml", index_xml(other_site(web, "/mine.xml"), web.url("/theirs.xml")))
    web.add("/mine.xml", urlset_xml(3))
    web.add("/theirs.xml", urlset_xml(4))
    root = sitemap_tree(web.url("/old-index.xml"), Options(http=FAST))
    assert (root.kind, root.code) == ("index", None)
    assert [(child.url, child.code, child.urls) for child in root.children] == [
        (other_site(web, "/mine.xml"), None, 3),
        (web.url("/theirs.xml"), "child-off-site", 0),
    ]
    assert web.hits("/theirs.xml") == 0


def test_sitemap_trees_share_one_run(web: LocalSite) -> None:
    web.add("/one.xml", urlset_xml(1))
    web.add("/two.xml", urlset_xml(2))
    trees = sitemap_trees([web.url("/one.xml"), web.url("/two.xml"), web.url("/three.xml")], Options(http=FAST))
    assert [(t.kind, t.urls, t.code) for t in trees] == [
        ("urlset", 1, None),
        ("urlset", 2, None),
        (None, 0, "http-404"),
    ]


# ------------------------------------------------------------------------------------------------ --map


def test_cli_tree_from_a_build_directory_with_no_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = "https://www.example.com/"
    public = tmp_path / "public"
    public.mkdir()
    (public / "robots.txt").write_text(f"User-agent: *\nDisallow:\nSitemap: {site}sitemap_index.xml\n")
    (public / "sitemap_index.xml").write_bytes(index_xml(f"{site}a.xml.gz", f"{site}missing.xml"))
    (public / "a.xml.gz").write_bytes(gzip.compress(urlset_xml(12)))
    code, out, err = run(capsys, "discover", site, "--tree", "--map", f"{site}={public}")
    assert code == 1, err  # missing.xml is missing: exit 1, as convert
    assert out.splitlines() == [
        f"{site}sitemap_index.xml  index, 2 sitemaps, 12 URLs, 1 not read",
        f"  {site}a.xml.gz  12 URLs",
        f"  {site}missing.xml  error[file-missing]: {public / 'missing.xml'} does not exist (--map)",
    ]


def test_map_without_robots_falls_back_to_the_usual_locations(tmp_path: Path) -> None:
    site = "https://www.example.com/"
    (tmp_path / "sitemap.xml").write_bytes(urlset_xml(1))
    found = discover(site, Options(maps=[(site, tmp_path)]))
    assert found.urls == [f"{site}sitemap.xml"]
    assert [p.code for p in found.tried] == ["file-missing", "found", "file-missing"]


# ------------------------------------------------------------------- issue 8: long robots.txt, loops, FIFOs


def test_a_robots_txt_over_2_mib_still_names_its_sitemaps(web: LocalSite) -> None:
    # issue 8: a robots.txt over 2 MiB was unreadable (too-large); RFC 9309 2.5: read the first 500 KiB
    early, late = web.url("/early.xml"), web.url("/late.xml")
    filler = "# a long comment line in a long robots.txt\n" * 55_000
    web.add("/robots.txt", f"Sitemap: {early}\n{filler}Sitemap: {late}\n", content_type="text/plain")
    seen: list[Diagnostic] = []
    found = discover(web.base, Options(http=FAST), on_diagnostic=seen.append)
    assert found.urls == [early]  # the line past 500 KiB is not read
    assert codes(seen) == ["robots-truncated"]
    assert seen[0].level == Level.INFO
    assert [p.code for p in found.tried] == ["robots-sitemaps"]


def test_a_mapped_robots_txt_over_500_kib_is_read_in_part(tmp_path: Path) -> None:
    site = "https://www.example.com/"
    filler = "# filler\n" * 60_000
    (tmp_path / "robots.txt").write_text(f"Sitemap: {site}a.xml\n{filler}Sitemap: {site}b.xml\n")
    seen: list[Diagnostic] = []
    found = discover(site, Options(maps=[(site, tmp_path)]), on_diagnostic=seen.append)
    assert found.urls == [f"{site}a.xml"]
    assert codes(seen) == ["robots-truncated"]


@pytest.mark.parametrize("spelling", ["/./index.xml", "/sub/../index.xml", "/%69ndex.xml"])
def test_tree_loop_through_another_spelling_is_found(web: LocalSite, spelling: str) -> None:
    # issue 8: loop detection missed /./index.xml
    leaf = web.add("/leaf.xml", urlset_xml(2))
    index = web.add("/index.xml", index_xml(web.url(spelling), leaf))
    root = sitemap_tree(index, Options(http=FAST))
    assert [(child.code, child.urls) for child in root.children] == [("index-loop", 0), (None, 2)]
    assert web.hits("/index.xml") == 1


def test_tree_of_a_mapped_fifo_child_is_an_error_not_a_hang(tmp_path: Path) -> None:
    import os

    site = "https://www.example.com/"
    os.mkfifo(tmp_path / "pipe.xml")
    (tmp_path / "sitemap.xml").write_bytes(index_xml(f"{site}pipe.xml", f"{site}sub%00.xml"))
    root = sitemap_tree(f"{site}sitemap.xml", Options(maps=[(site, tmp_path)]))
    assert [child.ok for child in root.children] == [False, False]
    assert "not a regular file" in (root.children[0].error or "")
    assert "NUL" in (root.children[1].error or "")


def test_tree_of_a_deep_chain_under_a_huge_depth_cap(tmp_path: Path) -> None:
    # the sibling of issue 8 crash 7 in discover --tree: walking, counting and printing a deep tree
    from feedmap.cli.discover import tree_lines

    site = "https://www.example.com/"
    depth = 1050  # deeper than Python's default recursion limit
    for level in range(depth):
        child = f"{site}i{level + 1}.xml" if level + 1 < depth else f"{site}leaf.xml"
        gone = [f"{site}gone{level}.xml"] if level % 50 == 0 else []
        (tmp_path / f"i{level}.xml").write_bytes(index_xml(child, *gone))
    (tmp_path / "leaf.xml").write_bytes(urlset_xml(3))
    root = sitemap_tree(f"{site}i0.xml", Options(maps=[(site, tmp_path)], max_depth=100_000, concurrency=4))
    gone = len(range(0, depth, 50))
    urls, failed = root.urls, root.failed
    assert (urls, failed) == (3, gone)
    assert [depth_ for depth_, node in root.walk() if node.kind == "urlset"] == [depth]
    lines = tree_lines(root)
    assert len(lines) == depth + 1 + gone
    assert lines[0] == f"{site}i0.xml  index, 2 sitemaps, 3 URLs, {gone:,} not read"
    assert root.to_dict()["urls"] == 3


# ------------------------------------------------------------- one API style: the settings come in Options


def test_discover_under_strict_options_stops_at_the_first_warning(tmp_path: Path) -> None:
    site = "https://www.example.com/"
    (tmp_path / "robots.txt").write_text(f"Sitemap: ftp://www.example.com/a.xml\nSitemap: {site}b.xml\n")
    assert find_sitemaps(site, Options(maps=[(site, tmp_path)])) == [f"{site}b.xml"]
    with pytest.raises(StrictError) as caught:
        find_sitemaps(site, Options(maps=[(site, tmp_path)], strict=True))
    assert caught.value.code == "robots-bad-sitemap"


def test_sitemap_tree_under_strict_options_stops_at_the_first_warning(tmp_path: Path) -> None:
    site = "https://www.example.com/"
    body = f'<urlset xmlns="{SM}"><url><loc>{site}a</loc><lastmod>yesterday</lastmod></url></urlset>'
    (tmp_path / "sitemap.xml").write_text(body)
    seen: list[Diagnostic] = []
    root = sitemap_tree(f"{site}sitemap.xml", Options(maps=[(site, tmp_path)]), on_diagnostic=seen.append)
    assert (root.entries, [d.level for d in seen]) == (1, [Level.WARNING])
    with pytest.raises(StrictError) as caught:
        sitemap_tree(f"{site}sitemap.xml", Options(maps=[(site, tmp_path)], strict=True))
    assert caught.value.code == seen[0].code


def test_cli_tree_exit_code_a_loop_is_no_failure_a_missing_root_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = "https://www.example.com/"
    public = tmp_path / "public"
    public.mkdir()
    (public / "robots.txt").write_text(f"Sitemap: {site}index.xml\n")
    (public / "index.xml").write_bytes(index_xml(f"{site}index.xml", f"{site}a.xml"))  # lists itself: a loop
    (public / "a.xml").write_bytes(urlset_xml(3))
    code, out, err = run(capsys, "discover", site, "--tree", "--map", f"{site}={public}")
    assert code == 0, (out, err)
    assert "error[index-loop]" in out
    (public / "robots.txt").write_text(f"Sitemap: {site}gone.xml\n")  # the listed sitemap is missing
    code, out, err = run(capsys, "discover", site, "--tree", "--map", f"{site}={public}")
    assert code == 1 and "error[file-missing]" in out and "1 sitemap of the tree could not be read" in err
    assert run(capsys, "discover", site, "--tree", "--json", "--map", f"{site}={public}")[0] == 1
    assert run(capsys, "discover", site, "--map", f"{site}={public}")[0] == 0  # listed as written, not read


def test_a_sitemap_line_that_is_not_utf8_is_skipped_with_a_warning(web: LocalSite) -> None:
    """Decoded with replacement, the line became a URL holding U+FFFD, fetched as if robots.txt named it."""
    good = web.url("/good.xml")
    body = b"Sitemap: " + web.url("/caf\xe9.xml").encode("latin-1") + b"\nSitemap: " + good.encode() + b"\n"
    web.add("/robots.txt", body, content_type="text/plain")
    seen: list[Diagnostic] = []
    found = feedmap.find_sitemaps(web.base, feedmap.Options(http=FAST), on_diagnostic=seen.append)
    assert found == [good]
    assert [(d.level, d.code) for d in seen] == [(Level.WARNING, "robots-bad-sitemap")]
    assert "\\xe9" in seen[0].message


@pytest.mark.parametrize("before", ["", "User-agent: *\nDisallow: /private/\n"])
def test_a_sitemap_line_cut_at_500_kib_is_skipped_with_a_warning(web: LocalSite, before: str) -> None:
    """RFC 9309 §2.5 reads the first 500 KiB: the Sitemap: line the limit cuts names a URL that was never
    written (with nothing before it, the whole cut line was read as a URL)."""
    long_url = web.url("/" + "a" * 600_000 + ".xml")
    web.add("/robots.txt", f"{before}Sitemap: {long_url}\n", content_type="text/plain")
    seen: list[Diagnostic] = []
    found = feedmap.find_sitemaps(web.base, feedmap.Options(http=FAST), on_diagnostic=seen.append)
    assert found == []  # robots.txt names none, and neither usual location is there
    assert web.hits("/sitemap.xml") == 1
    assert codes(seen)[:2] == ["robots-truncated", "robots-bad-sitemap"]
    assert seen[1].level == Level.WARNING and "500 KiB" in seen[1].message
