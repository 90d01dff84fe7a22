"""``feedmap discover --tree`` (and ``feedmap.sitemap_tree``) from a sitemap named instead of a site: a local index
with ``--map``, an index's URL on a real local server (robots.txt not read), and a page of the site that is no
sitemap (then the site's sitemaps after all)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import index_xml, run, urlset_xml
from localsite import LocalSite

import feedmap
from feedmap import Options
from feedmap.cli.discover import given_sitemap

SITE = "https://www.example.com/"


def _build(folder: Path) -> Path:
    """A build folder: an index naming two sitemaps of 2 and 3 URLs and a nested index naming one of 1."""
    folder.mkdir()
    (folder / "a.xml").write_bytes(urlset_xml(*(f"{SITE}a{i}" for i in range(2))))
    (folder / "b.xml").write_bytes(urlset_xml(*(f"{SITE}b{i}" for i in range(3))))
    (folder / "inner.xml").write_bytes(index_xml(f"{SITE}c.xml"))
    (folder / "c.xml").write_bytes(urlset_xml(f"{SITE}c0"))
    (folder / "index.xml").write_bytes(index_xml(f"{SITE}a.xml", f"{SITE}b.xml", f"{SITE}inner.xml"))
    return folder / "index.xml"


@pytest.mark.parametrize(
    ("given", "sitemap"),
    [
        ("example.com", None),
        ("https://example.com/", None),
        ("https://example.com", None),
        ("https://example.com/?page=2", None),
        ("https://example.com/sitemap_index.xml", "https://example.com/sitemap_index.xml"),
        ("example.com/sitemap.xml", "https://example.com/sitemap.xml"),
        ("http://example.com/blog/", "http://example.com/blog/"),  # read to find out (a page: the site after all)
        ("file:///srv/public/sitemap.xml", "file:///srv/public/sitemap.xml"),
    ],
)
def test_what_names_a_sitemap_and_what_a_site(given: str, sitemap: str | None) -> None:
    assert given_sitemap(given) == sitemap


def test_a_local_index_with_map_is_the_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = _build(tmp_path / "public")
    code, out, err = run(capsys, "discover", "--tree", index, "--map", f"{SITE}={index.parent}")
    assert code == 0, err
    assert out.splitlines() == [
        f"{index}  index, 3 sitemaps, 6 URLs",
        f"  {SITE}a.xml  2 URLs",
        f"  {SITE}b.xml  3 URLs",
        f"  {SITE}inner.xml  index, 1 sitemap, 1 URL",
        f"    {SITE}c.xml  1 URL",
    ]
    code, out, _err = run(capsys, "discover", "--tree", "--json", index, "--map", f"{SITE}={index.parent}")
    found = json.loads(out)
    assert found["site"] is None and found["tried"] == []
    assert found["sitemaps"] == [{"url": str(index), "via": "given", "source": str(index)}]
    assert found["tree"][0]["urls"] == 6


def test_a_local_file_without_tree_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = _build(tmp_path / "public")
    code, out, err = run(capsys, "discover", index)
    assert (code, out) == (2, "") and "--tree" in err and "Traceback" not in err


def test_a_local_index_naming_itself_through_its_map_is_a_loop(tmp_path: Path) -> None:
    public = tmp_path / "public"
    public.mkdir()
    (public / "index.xml").write_bytes(index_xml(f"{SITE}index.xml", f"{SITE}a.xml"))
    (public / "a.xml").write_bytes(urlset_xml(f"{SITE}x"))
    tree = feedmap.sitemap_tree(public / "index.xml", Options(maps=((SITE, public),)))  # a Path
    assert [(node.url, node.code) for node in tree.children] == [
        (f"{SITE}index.xml", "index-loop"),
        (f"{SITE}a.xml", None),
    ]
    assert tree.urls == 1


def test_an_index_url_is_read_without_robots_txt(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    web.add("/robots.txt", f"Sitemap: {web.url('/other.xml')}\n", content_type="text/plain")
    web.add("/maps/a.xml", urlset_xml(web.url("/1"), web.url("/2")))
    web.add("/maps/index.xml", index_xml(web.url("/maps/a.xml"), web.url("/maps/gone.xml")))
    code, out, err = run(capsys, "discover", "--tree", web.url("/maps/index.xml"), "--retries", "0")
    assert code == 1  # a child of the tree is missing
    assert out.splitlines() == [
        f"{web.url('/maps/index.xml')}  index, 2 sitemaps, 2 URLs, 1 not read",
        f"  {web.url('/maps/a.xml')}  2 URLs",
        f"  {web.url('/maps/gone.xml')}  error[http-404]: HTTP 404 Not Found",
    ]
    assert web.hits("/robots.txt") == 0 and web.hits("/other.xml") == 0
    assert "1 sitemap of the tree could not be read" in err


def test_a_page_that_is_no_sitemap_stands_for_its_site(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    web.add(
        "/blog/", "<!DOCTYPE html><html><head><title>Blog</title></head><body></body></html>", content_type="text/html"
    )
    web.add("/robots.txt", f"Sitemap: {web.url('/sitemap.xml')}\n", content_type="text/plain")
    web.add("/sitemap.xml", urlset_xml(web.url("/blog/")))
    code, out, _err = run(capsys, "discover", "--tree", "--json", web.url("/blog/"), "--retries", "0")
    assert code == 0
    found = json.loads(out)
    assert found["site"] == web.url("/")
    assert [(one["url"], one["via"]) for one in found["sitemaps"]] == [(web.url("/sitemap.xml"), "robots.txt")]
    first = found["tried"][0]  # the page, then robots.txt
    assert (first["url"], first["code"]) == (web.url("/blog/"), "not-a-sitemap")
    assert found["tried"][1]["url"] == web.url("/robots.txt")
    assert [tree["url"] for tree in found["tree"]] == [web.url("/sitemap.xml")]


def test_the_library_reads_a_mapped_url_and_a_path_alike(tmp_path: Path) -> None:
    index = _build(tmp_path / "public")
    options = Options(maps=((SITE, index.parent),))
    by_path = feedmap.sitemap_tree(str(index), options)
    by_url = feedmap.sitemap_tree(f"{SITE}index.xml", options)
    assert [(depth, node.url, node.entries) for depth, node in by_path.walk()][1:] == [
        (depth, node.url, node.entries) for depth, node in by_url.walk()
    ][1:]
    assert by_path.urls == by_url.urls == 6
