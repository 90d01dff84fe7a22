"""The HTTP cache (``--cache DIR``, ``HttpSettings(cache_dir=...)``) against real servers (issue 17, point 16).

What it must never do, each shown on the wire with two origins (``LocalSite`` on 127.0.0.1 and 127.0.0.2):

* serve a file the cache did not write: a ``.body`` replaced by a symbolic link is a miss, also when it is
  swapped between sending the validators and the ``304`` (the body served is the one opened first);
* send one URL's validators to another: after a redirect (to another origin or on the same one) each hop is
  sent only the validators kept for its own URL, and a ``304`` is answered with that URL's body;
* store what RFC 9111 §3 forbids: ``Cache-Control: no-store`` (a record kept from before is removed);
  ``private`` is stored, this cache being a private one.

Also a metadata record nested too deep for the JSON parser is a miss, not a ``RecursionError``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from localsite import LocalSite, Route

import feedmap
from feedmap.cli import main

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"


def urlset(*locs: str) -> bytes:
    body = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}">{body}</urlset>\n'.encode()


FIRST = ["https://www.example.com/first"]
MOVED = ["https://www.example.com/moved"]
SECRET = ["https://www.example.com/secret-from-a-linked-file"]


def settings(cache: Path) -> feedmap.HttpSettings:
    return feedmap.HttpSettings(cache_dir=cache, connect_timeout=2.0, read_timeout=2.0, retries=0)


def read_locs(url: str, cache: Path) -> list[str]:
    with feedmap.read(url, options=feedmap.Options(http=settings(cache))) as doc:
        return [entry.loc for entry in doc]


def conditional(site: LocalSite, path: str) -> list[str | None]:
    """The ``If-None-Match`` of each request for ``path``, in order (None: not conditional)."""
    return [headers.get("if-none-match") for seen, headers in site.request_headers if seen == path]


def etag_route(body: bytes, etag: str, **headers: str) -> Callable[[dict[str, str]], Route]:
    """304 to ``If-None-Match: etag``, else ``body`` with the ETag (and ``headers``)."""

    def respond(request: dict[str, str]) -> Route:
        if request.get("if-none-match") == etag:
            return Route(status=304, headers={"ETag": etag})
        return Route(body, headers={"ETag": etag, **headers})

    return respond


def one(cache: Path, suffix: str) -> Path:
    (found,) = cache.glob(f"*{suffix}")
    return found


# ------------------------------------------------------------------------------------------- links


def test_a_body_replaced_by_a_link_is_a_miss(web: LocalSite, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    url = web.add_responder("/sitemap.xml", etag_route(urlset(*FIRST), '"v1"'))
    assert read_locs(url, cache) == FIRST
    secret = tmp_path / "secret.xml"
    secret.write_bytes(urlset(*SECRET))
    body = one(cache, ".body")
    body.unlink()
    body.symlink_to(secret)
    assert read_locs(url, cache) == FIRST  # fetched again, not the linked file
    assert conditional(web, "/sitemap.xml") == [None, None]  # nothing usable was kept: no validators sent
    assert not body.is_symlink() and body.read_bytes() == urlset(*FIRST)  # the record was put right
    assert secret.read_bytes() == urlset(*SECRET)  # and the link's target left alone


def test_a_body_replaced_by_a_hard_link_is_a_miss(web: LocalSite, tmp_path: Path) -> None:
    """A hard link passes O_NOFOLLOW: a body the cache wrote has one link (it is put in place by a rename), so
    one with more is another file's, not served on a 304."""
    cache = tmp_path / "cache"
    url = web.add_responder("/sitemap.xml", etag_route(urlset(*FIRST), '"v1"'))
    assert read_locs(url, cache) == FIRST
    secret = tmp_path / "secret.xml"
    secret.write_bytes(urlset(*SECRET))
    body = one(cache, ".body")
    body.unlink()
    os.link(secret, body)
    assert read_locs(url, cache) == FIRST  # fetched again, not the linked file
    assert conditional(web, "/sitemap.xml") == [None, None]
    assert body.stat().st_nlink == 1 and body.read_bytes() == urlset(*FIRST)  # the record was put right
    assert secret.read_bytes() == urlset(*SECRET)


def test_a_record_metadata_replaced_by_a_link_is_a_miss(web: LocalSite, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    url = web.add_responder("/sitemap.xml", etag_route(urlset(*FIRST), '"v1"'))
    assert read_locs(url, cache) == FIRST
    meta = one(cache, ".json")
    elsewhere = tmp_path / "meta.json"
    elsewhere.write_bytes(meta.read_bytes())
    meta.unlink()
    meta.symlink_to(elsewhere)
    assert read_locs(url, cache) == FIRST
    assert conditional(web, "/sitemap.xml") == [None, None]


def test_a_body_swapped_for_a_link_before_the_304_is_not_served(web: LocalSite, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    secret = tmp_path / "secret.xml"
    secret.write_bytes(urlset(*SECRET))
    answer = etag_route(urlset(*FIRST), '"v1"')

    def swap_then_answer(request: dict[str, str]) -> Route:
        if request.get("if-none-match"):  # the validators were read: now the body becomes a link
            body = one(cache, ".body")
            body.unlink()
            body.symlink_to(secret)
        return answer(request)

    url = web.add_responder("/sitemap.xml", swap_then_answer)
    assert read_locs(url, cache) == FIRST
    assert read_locs(url, cache) == FIRST  # the body opened with the validators, not the link put after
    assert conditional(web, "/sitemap.xml") == [None, '"v1"']


def test_a_body_removed_between_runs_is_a_miss(web: LocalSite, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    url = web.add_responder("/sitemap.xml", etag_route(urlset(*FIRST), '"v1"'))
    assert read_locs(url, cache) == FIRST
    one(cache, ".body").unlink()
    assert read_locs(url, cache) == FIRST
    assert conditional(web, "/sitemap.xml") == [None, None]


def test_a_metadata_record_nested_too_deep_is_a_miss(web: LocalSite, tmp_path: Path) -> None:
    # json.loads of "[[[..." raised RecursionError through every command
    cache = tmp_path / "cache"
    url = web.add_responder("/sitemap.xml", etag_route(urlset(*FIRST), '"v1"'))
    assert read_locs(url, cache) == FIRST
    one(cache, ".json").write_text("[" * 100_000, "utf-8")
    assert read_locs(url, cache) == FIRST
    assert read_locs(url, cache) == FIRST  # the record was replaced by a good one
    assert conditional(web, "/sitemap.xml") == [None, None, '"v1"']


# ------------------------------------------------------------------------------------------- redirects


def test_validators_are_not_sent_to_the_origin_a_redirect_leads_to(web: LocalSite, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with LocalSite(host="127.0.0.2") as other:
        # the other origin answers 304 to the first URL's validators (as any server with a matching ETag would)
        moved_url = other.add_responder("/moved.xml", etag_route(urlset(*MOVED), '"v1"'))
        redirecting = False

        def first(request: dict[str, str]) -> Route:
            if redirecting:
                return Route(status=301, headers={"Location": moved_url})
            return etag_route(urlset(*FIRST), '"v1"')(request)

        url = web.add_responder("/sitemap.xml", first)
        assert read_locs(url, cache) == FIRST
        redirecting = True
        assert read_locs(url, cache) == MOVED  # not the first URL's body, served on the other origin's 304
        assert conditional(other, "/moved.xml") == [None]
        assert read_locs(url, cache) == MOVED  # now the moved URL's own record is revalidated
        assert conditional(other, "/moved.xml") == [None, '"v1"']
        assert conditional(web, "/sitemap.xml") == [None, '"v1"', '"v1"']  # each URL its own validators


def test_each_redirect_hop_on_one_site_is_sent_its_own_validators(web: LocalSite, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    new_url = web.add_responder("/new.xml", etag_route(urlset(*MOVED), '"new"'))
    old_answers = iter([Route(urlset(*FIRST), headers={"ETag": '"old"'})])

    def old(request: dict[str, str]) -> Route:
        return next(old_answers, Route(status=302, headers={"Location": new_url}))

    url = web.add_responder("/old.xml", old)
    assert read_locs(url, cache) == FIRST
    assert read_locs(url, cache) == MOVED
    assert read_locs(url, cache) == MOVED
    assert conditional(web, "/old.xml") == [None, '"old"', '"old"']
    assert conditional(web, "/new.xml") == [None, '"new"']  # never "old"


def test_the_cli_answers_a_redirected_input_with_its_own_record(
    web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    argv = ["convert", web.url("/sitemap.xml"), "-t", "text", "--cache", str(cache), "-q"]
    with LocalSite(host="127.0.0.2") as other:
        moved_url = other.add_responder("/moved.xml", etag_route(urlset(*MOVED), '"v1"'))
        web.add_responder("/sitemap.xml", etag_route(urlset(*FIRST), '"v1"'))
        assert main(argv) == 0
        assert capsys.readouterr().out.split() == FIRST
        web.add("/sitemap.xml", status=301, headers={"Location": moved_url})
        for _ in range(2):
            assert main(argv) == 0
            assert capsys.readouterr().out.split() == MOVED
        assert conditional(other, "/moved.xml") == [None, '"v1"']


# ------------------------------------------------------------------------------------------- what is stored


@pytest.mark.parametrize("cache_control", ["no-store", "max-age=60, No-Store", 'no-store, private="x"'])
def test_a_no_store_response_is_not_kept(web: LocalSite, tmp_path: Path, cache_control: str) -> None:
    cache = tmp_path / "cache"
    url = web.add_responder("/sitemap.xml", etag_route(urlset(*FIRST), '"v1"', **{"Cache-Control": cache_control}))
    assert read_locs(url, cache) == FIRST
    assert read_locs(url, cache) == FIRST
    assert conditional(web, "/sitemap.xml") == [None, None]
    assert os.listdir(cache) == []


def test_a_record_kept_before_a_no_store_answer_is_removed(web: LocalSite, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    extra: dict[str, str] = {}

    def respond(request: dict[str, str]) -> Route:
        return Route(urlset(*FIRST), headers={"ETag": '"v1"', **extra})  # never 304: the body changes its rules

    url = web.add_responder("/sitemap.xml", respond)
    assert read_locs(url, cache) == FIRST
    assert len(os.listdir(cache)) == 2
    extra["Cache-Control"] = "no-store"
    assert read_locs(url, cache) == FIRST
    assert os.listdir(cache) == []
    assert read_locs(url, cache) == FIRST
    assert conditional(web, "/sitemap.xml") == [None, '"v1"', None]


def test_a_private_response_is_kept(web: LocalSite, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    url = web.add_responder("/sitemap.xml", etag_route(urlset(*FIRST), '"v1"', **{"Cache-Control": "private"}))
    assert read_locs(url, cache) == FIRST
    assert read_locs(url, cache) == FIRST
    assert conditional(web, "/sitemap.xml") == [None, '"v1"']


# ------------------------------------------------------------------------------------------- what is served


def test_a_kept_body_over_the_cap_is_too_large_on_a_304(web: LocalSite, tmp_path: Path) -> None:
    """A body kept by a run with a larger cap (or grown in the cache) is capped when a 304 serves it, as the
    fetched body is: enrich reads a page whole, so nothing after it would stop it."""
    cache = tmp_path / "cache"
    page = b"<html><head><title>" + b"x" * 5000 + b"</title></head></html>"

    def respond(request: dict[str, str]) -> Route:
        if request.get("if-none-match") == '"v1"':
            return Route(status=304, content_type="text/html", headers={"ETag": '"v1"'})
        return Route(page, content_type="text/html", headers={"ETag": '"v1"'})

    url = web.add_responder("/page.html", respond)
    for cap, titled, codes in (
        (100_000, True, ["enrich-summary"]),
        (1_000, False, ["enrich-failed", "enrich-summary"]),
    ):
        found: list[feedmap.Diagnostic] = []
        options = feedmap.Options(http=settings(cache), page_max_bytes=cap)
        (entry,) = feedmap.enrich([feedmap.Entry(loc=url)], options, on_diagnostic=found.append)
        assert bool(entry.title) is titled
        assert [d.code for d in found] == codes
    assert conditional(web, "/page.html") == [None, '"v1"']  # the second page came from the cache


@pytest.mark.parametrize(("asked", "served"), [("/café.xml", "/caf%C3%A9.xml"), ("/a b.xml", "/a%20b.xml")])
def test_a_url_the_client_encodes_is_revalidated(web: LocalSite, tmp_path: Path, asked: str, served: str) -> None:
    """The record is kept under the URL as requested (percent-encoded by the client) and looked up under the
    same: a URL given with ``é`` or a blank was stored and never found, so never revalidated."""
    cache = tmp_path / "cache"
    web.add_responder(served, etag_route(urlset(*FIRST), '"v1"'))
    url = web.url(served).replace(served, asked)
    assert read_locs(url, cache) == FIRST
    assert read_locs(url, cache) == FIRST
    assert conditional(web, served) == [None, '"v1"']
