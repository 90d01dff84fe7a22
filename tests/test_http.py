"""Fetching over HTTP (issue 4, points 1 and 6) against a real server on 127.0.0.1 (``tests/localsite.py``).

What :mod:`feedmap._io.http` promises, each checked on the wire: the ``User-Agent`` (default and overridden) and
``Accept-Encoding: gzip``; ``Content-Encoding: gzip`` decoded and a gzip *file* recognised by its magic bytes;
retries on 503/429 honouring ``Retry-After`` (RFC 9110 §10.2.3) and giving up when it asks too much; the
redirect limit; the size cap enforced from ``Content-Length`` and while streaming (a content-encoding bomb);
read timeouts and the whole-response deadline; conditional GET (RFC 9110 §13.1) with a cache directory;
robots.txt (RFC 9309) through Protego; and an http(s) INPUT of ``feedmap convert``.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import gzip
import os
import socket
import subprocess
import sys
import threading
import time
import tracemalloc
import warnings
import zlib
from pathlib import Path

import pytest
from conftest import release_fifo_reader, run, urlset_xml
from localsite import LocalSite, Responder, Route

import feedmap
from feedmap import FeedmapError, FetchError, HttpSettings, LimitError, Options, Reporter
from feedmap._core.context import DEFAULT_USER_AGENT
from feedmap._io.http import Fetcher

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
LOCS = ["https://www.example.com/", "https://www.example.com/a", "https://www.example.com/b"]
MB = 1024 * 1024

#: Small settings so that a failing test fails fast: no long backoffs, short timeouts.
FAST = HttpSettings(connect_timeout=2.0, read_timeout=2.0, deadline=10.0, retries=2, backoff=0.01)


SITEMAP = urlset_xml(*LOCS)


def fetch(url: str, settings: HttpSettings = FAST, max_bytes: int = 10 * MB) -> bytes:
    with Fetcher(settings) as fetcher:
        return fetcher.get(url, max_bytes=max_bytes)[1]


def fetch_error(url: str, settings: HttpSettings = FAST, max_bytes: int = 10 * MB) -> FetchError:
    with pytest.raises(FetchError) as caught:
        fetch(url, settings, max_bytes)
    return caught.value


def read_locs(url: str, **options: object) -> list[str]:
    with feedmap.read(url, options=feedmap.Options(http=FAST, **options)) as doc:  # type: ignore[arg-type]
        return [entry.loc for entry in doc]


def headers_of(site: LocalSite, path: str) -> list[dict[str, str]]:
    return [headers for seen, headers in site.request_headers if seen == path]


@functools.lru_cache(maxsize=1)
def gzip_bomb(decoded_size: int = 200 * MB) -> bytes:
    """A sitemap start and ``decoded_size`` blanks as one gzip member (about 1/1000 of the size).

    Made a block at a time, never holding the decoded bytes.
    """
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b" " * MB
    parts = [packer.compress(f'<?xml version="1.0"?>\n<urlset xmlns="{SM}">\n'.encode())]
    parts += [packer.compress(block) for _ in range(decoded_size // MB)]
    parts.append(packer.flush())
    return b"".join(parts)


# ------------------------------------------------------------------------------------------------ headers


def test_default_user_agent_and_accept_encoding_are_sent(web: LocalSite) -> None:
    url = web.add("/sitemap.xml", SITEMAP)
    assert read_locs(url) == LOCS
    (headers,) = headers_of(web, "/sitemap.xml")
    assert headers["user-agent"] == DEFAULT_USER_AGENT
    assert headers["user-agent"].startswith("feedmap/")
    assert "gzip" in headers["accept-encoding"]


def test_user_agent_is_overridden_by_settings(web: LocalSite) -> None:
    url = web.add("/sitemap.xml", SITEMAP)
    fetch(url, HttpSettings(user_agent="examplebot/2.0 (+https://bot.example/)", backoff=0.01))
    (headers,) = headers_of(web, "/sitemap.xml")
    assert headers["user-agent"] == "examplebot/2.0 (+https://bot.example/)"


def test_user_agent_is_overridden_on_the_command_line(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    url = web.add("/sitemap.xml", SITEMAP)
    code, out, _ = run(capsys, "convert", url, "-t", "text", "--user-agent", "clibot/3")
    assert code == 0
    assert out.split() == LOCS
    (headers,) = headers_of(web, "/sitemap.xml")
    assert headers["user-agent"] == "clibot/3"


# ------------------------------------------------------------------------------------------------ gzip


def test_content_encoding_gzip_is_decoded(web: LocalSite) -> None:
    url = web.add("/sitemap.xml", SITEMAP, encoding="gzip")
    assert fetch(url) == SITEMAP
    assert read_locs(url) == LOCS


def test_gzip_file_without_content_encoding_is_read_by_its_magic_bytes(web: LocalSite) -> None:
    url = web.add("/sitemap.xml.gz", gzip.compress(SITEMAP), content_type="application/gzip")
    assert fetch(url)[:2] == b"\x1f\x8b"  # the fetcher hands the file over as it is
    assert read_locs(url) == LOCS  # and reading recognises the gzip file by content


def test_gzip_file_also_sent_with_content_encoding_gzip_is_decoded_twice(web: LocalSite) -> None:
    url = web.add("/sitemap.xml.gz", gzip.compress(SITEMAP), content_type="application/gzip", encoding="gzip")
    assert read_locs(url) == LOCS


def test_damaged_content_encoding_is_bad_encoding(web: LocalSite) -> None:
    url = web.add("/sitemap.xml", b"\x1f\x8b\x08\x00 this is not deflate data", headers={"Content-Encoding": "gzip"})
    assert fetch_error(url).code == "bad-encoding"


# ------------------------------------------------------------------------------------------------ retries


def test_503_then_200_is_retried_after_retry_after(web: LocalSite) -> None:
    url = web.add("/flaky.xml", SITEMAP, statuses=[503, 200], headers={"Retry-After": "1"})
    started = time.monotonic()
    assert fetch(url) == SITEMAP
    elapsed = time.monotonic() - started
    assert web.hits("/flaky.xml") == 2
    assert elapsed >= 0.9, elapsed  # waited the second the server asked for (a lower bound: load cannot break it)


def test_retry_after_zero_is_honoured_instead_of_the_backoff(web: LocalSite) -> None:
    url = web.add("/flaky.xml", SITEMAP, statuses=[503, 503, 200], headers={"Retry-After": "0"})
    slow_backoff = HttpSettings(backoff=30.0, retries=3, deadline=10.0, read_timeout=2.0)
    assert fetch(url, slow_backoff) == SITEMAP  # a 30 s backoff would have passed the deadline: a timeout
    assert web.hits("/flaky.xml") == 3


def test_retry_through_the_library_reader(web: LocalSite) -> None:
    url = web.add("/flaky.xml", SITEMAP, statuses=[503, 502, 200], headers={"Retry-After": "0"})
    assert read_locs(url) == LOCS
    assert web.hits("/flaky.xml") == 3


def test_429_with_a_longer_retry_after_than_allowed_fails_at_once(web: LocalSite) -> None:
    url = web.add("/busy.xml", SITEMAP, status=429, headers={"Retry-After": "120"})
    error = fetch_error(url, HttpSettings(max_retry_wait=1.0, retries=3, backoff=0.01))
    assert error.code == "http-429"
    assert error.status == 429
    assert error.url == url
    assert web.hits("/busy.xml") == 1


def test_retry_after_as_an_http_date_is_honoured(web: LocalSite) -> None:
    far = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 3600))
    url = web.add("/busy.xml", SITEMAP, status=503, headers={"Retry-After": far})
    error = fetch_error(url, HttpSettings(max_retry_wait=5.0, retries=3, backoff=0.01))
    assert error.code == "http-503"
    assert web.hits("/busy.xml") == 1


@pytest.mark.parametrize("value", ["\u00b2", "\u00b9\u00b2\u00b3", "3\u00b2", "\u00b2 ", "1.5", "-1", "0x10"])
def test_a_retry_after_of_no_ascii_digits_is_ignored_for_the_backoff(
    web: LocalSite, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    # issue 17: "²".isdigit() is True, and float("²") raised ValueError through every command
    url = web.add("/flaky.xml", SITEMAP, statuses=[503, 503, 200], headers={"Retry-After": value})
    assert read_locs(url) == LOCS  # retried after the backoff, as without a Retry-After
    assert web.hits("/flaky.xml") == 3
    down = web.add("/down.xml", SITEMAP, status=503, headers={"Retry-After": value})
    code, out, err = run(capsys, "convert", down, "-t", "text", "--retries", "1")
    assert (code, out) == (2, "")  # the retry spent: a clean failure (an input that cannot be read)
    assert "HTTP 503" in err and "Traceback" not in err
    assert web.hits("/down.xml") == 2


def test_a_retry_after_of_many_digits_is_too_long_to_wait(web: LocalSite) -> None:
    url = web.add("/busy.xml", SITEMAP, status=503, headers={"Retry-After": "9" * 5000})
    error = fetch_error(url, HttpSettings(max_retry_wait=5.0, retries=3, backoff=0.01))
    assert error.code == "http-503"
    assert "inf" not in str(error)
    assert web.hits("/busy.xml") == 1


def test_retries_exhausted_is_the_last_status(web: LocalSite) -> None:
    url = web.add("/down.xml", SITEMAP, status=503)
    error = fetch_error(url, HttpSettings(retries=2, backoff=0.01))
    assert error.code == "http-503"
    assert web.hits("/down.xml") == 3  # the first try and two retries


def test_a_404_is_not_retried(web: LocalSite) -> None:
    error = fetch_error(web.url("/missing.xml"))
    assert error.code == "http-404"
    assert error.status == 404
    assert web.hits("/missing.xml") == 1


# ------------------------------------------------------------------------------------------------ redirects


def test_redirect_is_followed(web: LocalSite) -> None:
    target = web.add("/new.xml", SITEMAP)
    old = web.add("/old.xml", status=301, headers={"Location": target})
    with Fetcher(FAST) as fetcher, fetcher.open(old, max_bytes=MB) as fetched:
        assert fetched.read_all() == SITEMAP
        assert fetched.final_url == target
        assert fetched.url == old
    assert read_locs(old) == LOCS


def test_more_redirects_than_allowed_fail(web: LocalSite) -> None:
    for hop in range(5):
        web.add(f"/r{hop}", status=302, headers={"Location": web.url(f"/r{hop + 1}")})
    web.add("/r5", SITEMAP)
    assert fetch(web.url("/r0"), HttpSettings(max_redirects=5, backoff=0.01)) == SITEMAP
    error = fetch_error(web.url("/r0"), HttpSettings(max_redirects=2, backoff=0.01))
    assert error.code == "too-many-redirects"
    assert web.hits("/r5") == 1  # only the allowed run got there


def test_a_redirect_loop_fails(web: LocalSite) -> None:
    web.add("/loop", status=302, headers={"Location": "/loop"})
    assert fetch_error(web.url("/loop")).code == "too-many-redirects"


# ------------------------------------------------------------------------------------------------ size cap


def test_content_length_over_the_cap_fails_before_the_body_is_read(web: LocalSite) -> None:
    # 4 KiB sent 16 bytes at a time, 50 ms apart: reading the body would take over 12 s
    url = web.add("/big.xml", b"x" * 4096, trickle=0.05)
    with Fetcher(FAST) as fetcher, pytest.raises(LimitError) as caught:
        fetcher.open(url, max_bytes=1000).__enter__()
    assert web.answered("/big.xml") == 0  # refused on the header: the body was not waited for
    assert caught.value.code == "too-large"
    assert caught.value.source == url


def test_content_encoding_bomb_stops_at_the_cap_while_streaming(web: LocalSite) -> None:
    bomb = gzip_bomb()  # 200 MiB of zeros in about 200 KB
    url = web.add("/bomb.xml", bomb, headers={"Content-Encoding": "gzip"})
    assert len(bomb) < MB  # Content-Length is under the cap: only the decoded size can trip it
    tracemalloc.start()
    try:
        with Fetcher(FAST) as fetcher, fetcher.open(url, max_bytes=MB) as fetched:
            decoded = 0
            with pytest.raises(LimitError) as caught:
                while chunk := fetched.read(64 * 1024):
                    decoded += len(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.code == "too-large"
    assert decoded <= MB  # stopped at the cap, not after inflating 200 MiB
    assert peak < 16 * MB, peak


def test_content_encoding_bomb_through_the_reader(web: LocalSite) -> None:
    url = web.add("/bomb.xml", gzip_bomb(), headers={"Content-Encoding": "gzip"})
    with pytest.raises(LimitError) as caught:
        read_locs(url, max_bytes=MB)
    assert caught.value.code == "too-large"


def test_content_encoding_bomb_on_the_command_line(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    url = web.add("/bomb.xml", gzip_bomb(), headers={"Content-Encoding": "gzip"})
    code, out, err = run(capsys, "convert", url, "-t", "text", "--max-bytes", "1M")
    assert code == 1
    assert out == ""
    assert "[too-large]" in err
    assert url in err
    assert "Traceback" not in err


def test_content_length_over_max_bytes_on_the_command_line(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    url = web.add("/big.xml", urlset_xml(*(f"https://www.example.com/{n}" for n in range(200))))
    code, _, err = run(capsys, "convert", url, "-t", "text", "--max-bytes", "1K")
    assert code == 1
    assert f"{url}: error[too-large]:" in err


# ------------------------------------------------------------------------------------------------ timeouts


def test_slow_answer_hits_the_read_timeout(web: LocalSite) -> None:
    url = web.add("/slow.xml", SITEMAP, held=True)  # answers when the test ends
    error = fetch_error(url, HttpSettings(connect_timeout=0.5, read_timeout=0.5, retries=2, backoff=0.01))
    assert web.answered("/slow.xml") == 0  # given up before the answer
    assert error.code == "timeout"
    assert error.url == url
    assert web.hits("/slow.xml") == 1  # a timeout is not retried


def test_slow_answer_on_the_command_line(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    url = web.add("/slow.xml", SITEMAP, held=True)  # answers when the test ends
    code, _, err = run(capsys, "convert", url, "-t", "text", "--timeout", "0.5")
    assert web.answered("/slow.xml") == 0  # given up before the answer
    assert code == 2
    assert url in err
    assert "Traceback" not in err


def test_trickling_body_is_stopped_by_the_total_deadline(web: LocalSite) -> None:
    # 16 bytes every 50 ms: each read arrives in time, the whole body would take about 6 s
    url = web.add("/trickle.xml", urlset_xml(*(f"https://www.example.com/{n}" for n in range(40))), trickle=0.05)
    settings = HttpSettings(read_timeout=2.0, deadline=0.6, backoff=0.01)
    with Fetcher(settings) as fetcher, fetcher.open(url, max_bytes=MB) as fetched, pytest.raises(FetchError) as caught:
        fetched.read_all()
    assert web.answered("/trickle.xml") == 0  # given up before the whole body came
    assert caught.value.code == "timeout"


def test_waiting_for_a_connection_another_thread_holds_is_bounded_by_the_deadline(web: LocalSite) -> None:
    """With every connection of the pool taken (max_connections=1, a slow body being read elsewhere), a request
    gives up when its deadline passes, not after the read timeout (the pool's wait was httpx's read timeout)."""
    slow = web.add("/slow.xml", urlset_xml(*(f"https://www.example.com/{n}" for n in range(40))), trickle=0.05)
    other = web.add("/other.xml", SITEMAP)
    settings = HttpSettings(read_timeout=10.0, deadline=1.0, max_connections=1, retries=0)
    with Fetcher(settings) as fetcher:
        holding = threading.Event()

        def hold() -> None:  # the response opened and not read on for 3 s: its connection stays taken
            with contextlib.suppress(FetchError), fetcher.open(slow, max_bytes=MB):
                holding.set()
                time.sleep(3)

        holder = threading.Thread(target=hold)
        holder.start()
        assert holding.wait(5)
        started = time.monotonic()
        with pytest.raises(FetchError) as caught, fetcher.open(other, max_bytes=MB) as fetched:
            fetched.read_all()
        waited = time.monotonic() - started
        holder.join(10)
    assert caught.value.code == "timeout"
    assert waited < 3.0  # the 1 s deadline, not the 10 s read timeout


def test_a_closed_fetcher_sends_nothing_and_makes_no_new_client(web: LocalSite) -> None:
    """A worker of a run already closed (a document closed early while pages were being enriched) that asks the
    run's fetcher for a page is refused: no request goes out and no client is made that nobody closes."""
    url = web.add("/late.xml", SITEMAP)
    fetcher = Fetcher(HttpSettings(retries=0))
    fetcher.close()
    with pytest.raises(FetchError) as caught, fetcher.open(url, max_bytes=MB):
        pass
    assert "ended" in str(caught.value)
    assert web.answered("/late.xml") == 0 and fetcher.requests == 0


def test_a_body_that_stalls_hits_the_read_timeout(web: LocalSite) -> None:
    # headers at once, then 16 bytes a second: each wait for the next bytes is longer than the read timeout
    url = web.add("/stall.xml", SITEMAP, trickle=1.0)
    with (
        Fetcher(HttpSettings(read_timeout=0.3, backoff=0.01)) as fetcher,
        fetcher.open(url, max_bytes=MB) as fetched,
        pytest.raises(FetchError) as caught,
    ):
        fetched.read_all()
    assert web.answered("/stall.xml") == 0  # given up before the whole body came
    assert caught.value.code == "timeout"


def test_trickling_body_is_read_whole_within_the_deadline(web: LocalSite) -> None:
    url = web.add("/trickle.xml", SITEMAP, trickle=0.005)
    assert fetch(url, HttpSettings(read_timeout=2.0, deadline=10.0)) == SITEMAP


def test_refused_connection_is_fetch_failed(refused_port: int) -> None:
    url = f"http://127.0.0.1:{refused_port}/sitemap.xml"
    started = time.monotonic()
    error = fetch_error(url, HttpSettings(retries=2, backoff=0.2))
    elapsed = time.monotonic() - started
    assert error.code == "fetch-failed"
    assert error.url == url
    assert elapsed >= 0.6, elapsed  # retried twice, after 0.2 s and 0.4 s, before giving up (a lower bound)


def test_refused_connection_is_retried_until_the_server_listens() -> None:
    # a socket bound but not listening refuses connections; it starts listening after the first attempt
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.settimeout(5)
        url = f"http://127.0.0.1:{server.getsockname()[1]}/sitemap.xml"

        def listen_late() -> None:
            time.sleep(0.3)
            server.listen()
            connection, _ = server.accept()
            with connection:
                request = b""
                while b"\r\n\r\n" not in request:
                    request += connection.recv(4096)
                head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(SITEMAP)}\r\nConnection: close\r\n\r\n"
                connection.sendall(head.encode() + SITEMAP)

        listener = threading.Thread(target=listen_late, daemon=True)
        listener.start()
        started = time.monotonic()
        body = fetch(url, HttpSettings(retries=5, backoff=0.2, deadline=10.0))
        elapsed = time.monotonic() - started
        listener.join(5)
    assert body == SITEMAP
    assert elapsed >= 0.3  # the first attempts were refused and retried


@pytest.mark.parametrize("url", ["http://[::1/sitemap.xml", "http://127.0.0.1]/sitemap.xml"])
def test_a_malformed_url_is_invalid_url(url: str) -> None:
    with Fetcher(FAST) as fetcher:
        with pytest.raises(FetchError) as opening, fetcher.open(url, max_bytes=MB):
            pass
        assert opening.value.code == "invalid-url"
        assert opening.value.url == url
        with pytest.raises(FetchError) as asking_robots:
            fetcher.robots(url)
        assert asking_robots.value.code == "invalid-url"
        assert fetcher.requests == 0


# ------------------------------------------------------------------------------------------------ cache


def etag_responder(body: bytes, etag: str = '"v1"', **more: str) -> tuple[list[dict[str, str]], Responder]:
    """A route answering 304 to ``If-None-Match: etag``, else ``body`` with the ETag (and ``more`` headers)."""
    seen: list[dict[str, str]] = []

    def respond(headers: dict[str, str]) -> Route:
        seen.append(headers)
        if headers.get("if-none-match") == etag:
            return Route(status=304, headers={"ETag": etag})
        return Route(body, headers={"ETag": etag, **more})

    return seen, respond


def test_conditional_get_with_etag_answers_from_the_cache(web: LocalSite, tmp_path: Path) -> None:
    seen, respond = etag_responder(SITEMAP)
    url = web.add_responder("/sitemap.xml", respond)
    settings = HttpSettings(cache_dir=tmp_path / "cache", backoff=0.01)
    with Fetcher(settings) as fetcher:
        first, body = fetcher.get(url, max_bytes=MB)
        assert body == SITEMAP
        assert not first.from_cache
    with Fetcher(settings) as fetcher:  # a later run, the same cache directory
        second, body = fetcher.get(url, max_bytes=MB)
        assert body == SITEMAP
        assert second.from_cache
        assert second.status == 200
        assert second.content_type == "application/xml"
    assert "if-none-match" not in seen[0]
    assert seen[1]["if-none-match"] == '"v1"'
    assert web.hits("/sitemap.xml") == 2


def test_conditional_get_with_last_modified(web: LocalSite, tmp_path: Path) -> None:
    stamp = "Wed, 21 Oct 2015 07:28:00 GMT"

    def respond(headers: dict[str, str]) -> Route:
        if headers.get("if-modified-since") == stamp:
            return Route(status=304)
        return Route(SITEMAP, headers={"Last-Modified": stamp})

    url = web.add_responder("/sitemap.xml", respond)
    settings = HttpSettings(cache_dir=tmp_path, backoff=0.01)
    assert fetch(url, settings) == SITEMAP
    with Fetcher(settings) as fetcher:
        fetched, body = fetcher.get(url, max_bytes=MB)
    assert fetched.from_cache
    assert body == SITEMAP


def test_changed_resource_replaces_the_cached_body(web: LocalSite, tmp_path: Path) -> None:
    versions = iter([('"v1"', SITEMAP), ('"v2"', urlset_xml(LOCS[0]))])
    current = next(versions)

    def respond(headers: dict[str, str]) -> Route:
        etag, body = current
        if headers.get("if-none-match") == etag:
            return Route(status=304, headers={"ETag": etag})
        return Route(body, headers={"ETag": etag})

    url = web.add_responder("/sitemap.xml", respond)
    settings = HttpSettings(cache_dir=tmp_path, backoff=0.01)
    assert fetch(url, settings) == SITEMAP
    current = next(versions)
    assert fetch(url, settings) == urlset_xml(LOCS[0])
    with Fetcher(settings) as fetcher:
        fetched, body = fetcher.get(url, max_bytes=MB)
    assert fetched.from_cache
    assert body == urlset_xml(LOCS[0])


def test_cached_input_is_read_through_the_library_and_cli(
    web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen, respond = etag_responder(gzip.compress(SITEMAP))
    url = web.add_responder("/sitemap.xml.gz", respond)
    for _ in range(2):
        code, out, _ = run(capsys, "convert", url, "-t", "text", "--cache", str(tmp_path))
        assert code == 0
        assert out.split() == LOCS
    assert [h.get("if-none-match") for h in seen] == [None, '"v1"']


def test_a_body_not_read_to_its_end_is_not_cached(web: LocalSite, tmp_path: Path) -> None:
    seen, respond = etag_responder(SITEMAP * 50)
    url = web.add_responder("/sitemap.xml", respond)
    settings = HttpSettings(cache_dir=tmp_path, backoff=0.01)
    with Fetcher(settings) as fetcher:
        with fetcher.open(url, max_bytes=MB) as fetched:
            assert fetched.read(10) == SITEMAP[:10]
        second, body = fetcher.get(url, max_bytes=MB)
    assert not second.from_cache
    assert body == SITEMAP * 50
    assert "if-none-match" not in seen[1]  # nothing was kept to revalidate
    assert not list(tmp_path.glob("*.part"))  # the partial copy was removed


def test_a_body_over_the_cap_is_not_cached(web: LocalSite, tmp_path: Path) -> None:
    seen, respond = etag_responder(gzip.compress(bytes(200_000)), **{"Content-Encoding": "gzip"})
    url = web.add_responder("/big.xml", respond)
    settings = HttpSettings(cache_dir=tmp_path, backoff=0.01)
    with pytest.raises(LimitError):
        fetch(url, settings, max_bytes=1000)
    fetch(url, settings, max_bytes=MB)
    assert "if-none-match" not in seen[1]


def test_without_a_cache_directory_no_validators_are_sent(web: LocalSite) -> None:
    seen, respond = etag_responder(SITEMAP)
    url = web.add_responder("/sitemap.xml", respond)
    fetch(url)
    fetch(url)
    assert all("if-none-match" not in headers for headers in seen)


# ------------------------------------------------------------------------------------------------ robots.txt


def robots(site: LocalSite, text: str | None = None, *, status: int = 200) -> Fetcher:
    if text is not None or status != 404:
        site.add("/robots.txt", text or "", status=status, content_type="text/plain")
    return Fetcher(FAST)


def test_robots_disallow_for_our_token(web: LocalSite) -> None:
    text = "User-agent: otherbot\nDisallow: /\n\nUser-agent: FeedMap\nDisallow: /private/\n"
    with robots(web, text) as fetcher:
        policy = fetcher.robots(web.url("/"))
        assert not policy.allows(web.url("/private/page.html"))
        assert policy.allows(web.url("/public/page.html"))


def test_robots_disallow_for_everyone(web: LocalSite) -> None:
    with robots(web, "User-agent: *\nDisallow: /drafts\n") as fetcher:
        policy = fetcher.robots(web.url("/"))
        assert not policy.allows(web.url("/drafts/1"))
        assert policy.allows(web.url("/posts/1"))


def test_robots_group_for_our_token_wins_over_star(web: LocalSite) -> None:
    text = "User-agent: *\nDisallow: /\n\nUser-agent: feedmap\nDisallow: /admin/\n"
    with robots(web, text) as fetcher:
        policy = fetcher.robots(web.url("/a"))
        assert policy.allows(web.url("/a"))
        assert not policy.allows(web.url("/admin/x"))


def test_robots_wildcards(web: LocalSite) -> None:
    text = "User-agent: *\nDisallow: /*.pdf$\nDisallow: /tmp*/secret\nAllow: /tmp1/secret\n"
    with robots(web, text) as fetcher:
        policy = fetcher.robots(web.url("/"))
        assert not policy.allows(web.url("/docs/a.pdf"))
        assert policy.allows(web.url("/docs/a.pdf.html"))
        assert not policy.allows(web.url("/tmp42/secret"))
        assert policy.allows(web.url("/tmp1/secret"))  # the longer Allow wins


def test_robots_404_allows_everything(web: LocalSite) -> None:
    with robots(web, status=404) as fetcher:
        assert fetcher.robots(web.url("/")).allows(web.url("/anything"))
    assert web.hits("/robots.txt") == 1


def test_robots_500_disallows_everything(web: LocalSite) -> None:
    with robots(web, "User-agent: *\nAllow: /\n", status=500) as fetcher:
        policy = fetcher.robots(web.url("/"))
        assert not policy.allows(web.url("/anything"))
        assert policy.sitemaps == []


def test_robots_unreachable_disallows_everything(refused_port: int) -> None:
    with Fetcher(HttpSettings(retries=0)) as fetcher:
        assert not fetcher.robots(f"http://127.0.0.1:{refused_port}/").allows("/x")


def test_robots_sitemap_lines_in_any_case(web: LocalSite) -> None:
    text = (
        "Sitemap: http://example.com/one.xml\n"
        "User-agent: *\nDisallow:\n"
        "SITEMAP: http://example.com/two.xml\n"
        "sitemap:http://example.com/three.xml.gz\n"
    )
    with robots(web, text) as fetcher:
        policy = fetcher.robots(web.url("/"))
    assert policy.sitemaps == [
        "http://example.com/one.xml",
        "http://example.com/two.xml",
        "http://example.com/three.xml.gz",
    ]


def test_robots_is_fetched_once_per_site(web: LocalSite) -> None:
    with robots(web, "User-agent: *\nDisallow: /x\n") as fetcher:
        first = fetcher.robots(web.url("/a"))
        second = fetcher.robots(web.url("/b/c?d=1"))
        assert first is second
        other_host = fetcher.robots(web.url("/").replace("127.0.0.1", "localhost"))
        assert other_host is not first
    assert web.hits("/robots.txt") == 2
    (headers, _) = headers_of(web, "/robots.txt")
    assert headers["user-agent"] == FAST.user_agent


# ------------------------------------------------------------------------------------------------ CLI input


def test_http_input_of_convert(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    url = web.add("/sitemap.xml", SITEMAP)
    code, out, err = run(capsys, "convert", url, "-t", "text")
    assert code == 0, err
    assert out.split() == LOCS


def test_http_input_with_a_local_file(web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = web.add("/urls.txt", "https://www.example.com/remote\n", content_type="text/plain")
    local = tmp_path / "urls.txt"
    local.write_text("https://www.example.com/local\n")
    code, out, _ = run(capsys, "convert", url, str(local), "-t", "text")
    assert code == 0
    assert out.split() == ["https://www.example.com/remote", "https://www.example.com/local"]


def test_http_input_404_is_one_line_naming_the_url(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    url = web.url("/missing.xml")
    code, out, err = run(capsys, "convert", url, "-t", "text")
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert url in err
    assert "404" in err
    assert "Traceback" not in err


def test_malformed_url_input_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "convert", "http://[::1/x", "-t", "text")
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "http://[::1/x" in err
    assert "Traceback" not in err


def test_convert_failing_after_a_fetch_leaves_no_socket_open(web: LocalSite, tmp_path: Path) -> None:
    url = web.add(
        "/page.html", "<!DOCTYPE html>\n<html><head><title>A page</title></head></html>\n", content_type="text/html"
    )
    port = web.base.rsplit(":", 1)[1]
    gc.collect()  # what earlier tests left behind is not this test's business
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            feedmap._api.convert(url, tmp_path / "out.txt", "text", options=Options(http=FAST))
        except FeedmapError as exc:
            failed = type(exc).__name__
        else:
            failed = ""
        gc.collect()  # an HTTP client left open would now close its socket with a ResourceWarning
    assert failed  # an HTML page is no known format
    assert web.hits("/page.html") == 1
    leaks = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert [leak for leak in leaks if port in leak] == []  # "unclosed <socket ... raddr=('127.0.0.1', PORT)>"


def test_library_read_of_a_404_raises_fetch_error(web: LocalSite) -> None:
    url = web.url("/missing.xml")
    reporter = Reporter()
    with pytest.raises(FetchError) as caught:
        feedmap.read(url, reporter=reporter, options=feedmap.Options(http=FAST))
    assert caught.value.code == "http-404"
    assert caught.value.url == url
    assert isinstance(caught.value, OSError)


# ------------------------------------------------------------------- issue 8: deadline, robots, cache, redirects


def test_headers_that_trickle_are_stopped_by_the_deadline(web: LocalSite) -> None:
    # issue 8: one header line per second held a conversion for more than 650 s (the read timeout is per read)
    url = web.add("/slow-headers.xml", SITEMAP, slow_headers=100, header_pause=0.1)
    error = fetch_error(url, HttpSettings(read_timeout=5.0, deadline=0.5, retries=2, backoff=0.01))
    assert error.code == "timeout"
    assert "0.5 s deadline" in str(error)
    assert web.hits("/slow-headers.xml") == 1  # a timeout is not retried
    assert web.header_lines_sent["/slow-headers.xml"] < 50  # cut off long before the headers ended


def test_headers_that_trickle_within_the_deadline_are_read(web: LocalSite) -> None:
    url = web.add("/slow-headers.xml", SITEMAP, slow_headers=5, header_pause=0.02)
    assert fetch(url, HttpSettings(read_timeout=5.0, deadline=10.0)) == SITEMAP
    assert web.header_lines_sent["/slow-headers.xml"] == 5


def test_the_deadline_covers_every_redirect_hop(web: LocalSite) -> None:
    # each hop's headers trickle: alone each fits in the deadline, together they do not
    for hop in range(4):
        web.add(f"/hop{hop}", status=302, headers={"Location": f"/hop{hop + 1}"}, slow_headers=3, header_pause=0.1)
    web.add("/hop4", SITEMAP)
    error = fetch_error(web.url("/hop0"), HttpSettings(read_timeout=5.0, deadline=0.7, max_redirects=5))
    assert error.code == "timeout"
    assert "deadline" in str(error)
    assert web.hits("/hop4") == 0


def test_the_deadline_does_not_count_the_time_the_reader_takes(web: LocalSite) -> None:
    # a caller that reads slowly (a long conversion) is not the server being slow
    body = b"x" * (512 * 1024)
    url = web.add("/big.txt", body, content_type="text/plain")
    with Fetcher(HttpSettings(read_timeout=5.0, deadline=0.3)) as fetcher, fetcher.open(url, max_bytes=MB) as got:
        parts = []
        while chunk := got.read(64 * 1024):
            parts.append(chunk)
            time.sleep(0.05)  # 8 reads or more: 0.4 s and more of the reader's own time
    assert b"".join(parts) == body


def test_the_default_deadline_follows_the_timeout() -> None:
    assert HttpSettings().response_deadline() == 300.0
    assert HttpSettings(read_timeout=2.0).response_deadline() == 20.0
    assert HttpSettings(read_timeout=2.0, deadline=3.5).response_deadline() == 3.5
    with pytest.raises(TypeError):  # no deprecated alias: nothing was released under the former name
        HttpSettings(total_timeout=4.0)  # type: ignore[call-arg]


def test_deadline_on_the_command_line(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    url = web.add("/slow-headers.xml", SITEMAP, slow_headers=100, header_pause=0.1)
    code, out, err = run(capsys, "convert", url, "-t", "text", "--timeout", "5", "--deadline", "0.5")
    assert code == 2
    assert out == ""
    assert "deadline" in err
    assert "Traceback" not in err
    assert web.header_lines_sent["/slow-headers.xml"] < 50
    code, _, err = run(capsys, "convert", url, "-t", "text", "--deadline", "0")
    assert code == 2
    assert "--deadline" in err


def test_a_child_with_trickling_headers_is_child_failed_and_the_rest_goes_on(web: LocalSite) -> None:
    slow = web.add("/slow.xml", SITEMAP, slow_headers=100, header_pause=0.1)
    fast = web.add("/fast.xml", urlset_xml("https://www.example.com/fast"))
    index = web.add(
        "/index.xml",
        f'<sitemapindex xmlns="{SM}"><sitemap><loc>{slow}</loc></sitemap>'
        f"<sitemap><loc>{fast}</loc></sitemap></sitemapindex>",
    )
    reporter = Reporter()
    settings = HttpSettings(read_timeout=5.0, deadline=0.5, retries=0)
    with feedmap.read(index, reporter=reporter, options=feedmap.Options(http=settings)) as doc:
        assert [entry.loc for entry in doc] == ["https://www.example.com/fast"]
    assert [d.code for d in reporter.diagnostics] == ["child-unreadable"]
    assert "deadline" in reporter.diagnostics[0].message


def test_a_redirect_rule_refuses_a_hop_before_it_is_requested(web: LocalSite) -> None:
    web.add("/target.xml", SITEMAP)
    url = web.add("/moved.xml", status=301, headers={"Location": "/target.xml"})
    seen: list[str] = []

    def refuse(target: str) -> str | None:
        seen.append(target)
        return "is not wanted"

    with (
        Fetcher(FAST) as fetcher,
        pytest.raises(FetchError) as caught,
        fetcher.open(url, max_bytes=MB, redirect_rule=refuse),
    ):
        pass
    assert caught.value.code == "redirect-refused"
    assert web.url("/target.xml") in str(caught.value)
    assert seen == [web.url("/target.xml")]
    assert web.hits("/target.xml") == 0


def test_a_redirect_to_a_file_url_is_refused(web: LocalSite, tmp_path: Path) -> None:
    secret = tmp_path / "secret.xml"
    secret.write_bytes(SITEMAP)
    url = web.add("/moved.xml", status=302, headers={"Location": secret.as_uri()})
    error = fetch_error(url)
    assert error.code == "redirect-refused"


def _robots_text(size: int, head: str, tail: str) -> str:
    filler = "# filler line to make robots.txt long\n"
    return head + filler * ((size - len(head) - len(tail)) // len(filler) + 1) + tail


def test_a_robots_txt_over_500_kib_is_read_in_part_not_disallowing_everything(web: LocalSite) -> None:
    # issue 8: a robots.txt over 2 MiB disallowed the whole site, citing RFC 9309 (which asks for 500 KiB read)
    text = _robots_text(2_200_000, "User-agent: *\nDisallow: /private/\n", "Disallow: /late/\n")
    with robots(web, text) as fetcher:
        policy = fetcher.robots(web.url("/"))
        assert policy.allows(web.url("/public/page.html"))
        assert not policy.allows(web.url("/private/page.html"))
        assert policy.allows(web.url("/late/page.html"))  # past the first 500 KiB: not read
        assert policy.unavailable is None
        assert policy.note is not None and "500 KiB" in policy.note
        assert policy.take_note() == policy.note
        assert policy.take_note() is None  # said once


def test_a_robots_txt_is_cut_at_its_last_whole_line(web: LocalSite) -> None:
    # the 500 KiB boundary falls inside "Disallow: /abcdef": the partial rule "/abc" must not be read
    head = "User-agent: *\n"
    rule = "Disallow: /abcdef\n"
    filler = "#" * (500 * 1024 - len(head) - 14) + "\n"
    with robots(web, head + filler + rule + "# more\n" * 10) as fetcher:
        policy = fetcher.robots(web.url("/"))
        assert policy.allows(web.url("/abc"))
        assert policy.note is not None


def test_a_robots_txt_under_500_kib_is_read_whole(web: LocalSite) -> None:
    text = _robots_text(400_000, "User-agent: *\n", "Disallow: /late/\n")
    with robots(web, text) as fetcher:
        policy = fetcher.robots(web.url("/"))
        assert not policy.allows(web.url("/late/x"))
        assert policy.note is None


@pytest.mark.parametrize(
    "meta",
    [
        '{"etag": "\\"v1\\"", "last-modified": null, "headers": [1, 2]}',
        '{"etag": ["v1"], "headers": {}}',
        '{"etag": "\\"v1\\"", "headers": {"content-type": 3}}',
        '{"etag": "v\\u00e9", "headers": {}}',
        '{"etag": "a\\nb", "headers": {}}',
        '["etag"]',
        "not json",
        '"\\ud800"',
        "[" * 100_000,  # issue 17: json.loads raised RecursionError
        '{"etag": "' + "x" * 100_000 + '", "headers": {}}',  # larger than any record written
    ],
    ids=lambda meta: meta[:40],
)
def test_a_corrupt_cache_entry_is_a_miss_and_is_replaced(web: LocalSite, tmp_path: Path, meta: str) -> None:
    # issue 8: "headers": [1, 2] in a --cache metadata file raised TypeError
    seen, respond = etag_responder(SITEMAP)
    url = web.add_responder("/sitemap.xml", respond)
    settings = HttpSettings(cache_dir=tmp_path, backoff=0.01)
    assert fetch(url, settings) == SITEMAP
    (meta_file,) = tmp_path.glob("*.json")
    meta_file.write_text(meta, "utf-8")
    with Fetcher(settings) as fetcher:
        fetched, body = fetcher.get(url, max_bytes=MB)
    assert body == SITEMAP
    assert not fetched.from_cache  # a miss: fetched in full, no validators sent
    assert "if-none-match" not in seen[1]
    with Fetcher(settings) as fetcher:  # and the entry was replaced by a good one
        fetched, body = fetcher.get(url, max_bytes=MB)
    assert fetched.from_cache
    assert body == SITEMAP


def test_a_cache_that_cannot_be_written_does_not_fail_the_fetch(web: LocalSite, tmp_path: Path) -> None:
    _, respond = etag_responder(SITEMAP)
    url = web.add_responder("/sitemap.xml", respond)
    cache = tmp_path / "cache"
    settings = HttpSettings(cache_dir=cache, backoff=0.01)
    with Fetcher(settings) as fetcher:
        cache.rmdir()  # gone after the fetcher made it: every write fails
        fetched, body = fetcher.get(url, max_bytes=MB)
    assert body == SITEMAP
    assert not fetched.from_cache


@pytest.mark.parametrize("kind", ["json", "body"])
def test_a_fifo_in_the_cache_is_a_miss_not_a_hang(web: LocalSite, tmp_path: Path, kind: str) -> None:
    seen, respond = etag_responder(SITEMAP)
    url = web.add_responder("/sitemap.xml", respond)
    settings = HttpSettings(cache_dir=tmp_path, backoff=0.01)
    assert fetch(url, settings) == SITEMAP
    (entry,) = tmp_path.glob(f"*.{kind}")
    entry.unlink()
    os.mkfifo(entry)
    result: list[bytes] = []
    worker = threading.Thread(target=lambda: result.append(fetch(url, settings)), daemon=True)
    worker.start()
    worker.join(20)  # only a hang takes this long
    if worker.is_alive():
        release_fifo_reader(entry)
        pytest.fail("revalidating blocked on a FIFO in the cache")
    assert result == [SITEMAP]
    assert "if-none-match" not in seen[1]


@pytest.mark.parametrize("location", ["http://[::1/x", "javascript:alert(1)", "data:text/xml,<urlset/>"])
def test_a_redirect_to_a_malformed_url_is_refused_not_retried(web: LocalSite, location: str) -> None:
    url = web.add("/bad-location.xml", status=302, headers={"Location": location})
    error = fetch_error(url, HttpSettings(retries=3, backoff=0.01))
    assert error.code == "redirect-refused"
    assert web.hits("/bad-location.xml") == 1  # the server answered; asking again gets the same answer


def test_starting_feedmap_imports_neither_httpx_nor_protego() -> None:
    """httpx and Protego are slow to import, and hashlib maps OpenSSL (some 4 MiB of peak RSS): they load with
    the first request, the first robots.txt and the HTTP cache, so a run on local files does not pay for them,
    although the modules that fetch are imported at start."""
    modules = (
        "feedmap, feedmap.cli, feedmap._web.discover, feedmap._io.http, feedmap._io.sources, feedmap.converters._enrich"
    )
    heavy = "('httpx', 'httpcore', 'protego', 'hashlib')"
    code = f"import sys, {modules}; print(sorted(m for m in {heavy} if m in sys.modules))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"
