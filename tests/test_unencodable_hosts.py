"""A host the resolver cannot be asked about is a fetch failure, never a traceback (issue 17, review).

Python hands a host name to ``getaddrinfo`` through its IDNA 2003 codec (RFC 3490 ToASCII), which refuses
an empty label (``www..example.com``) or a label longer than 63 characters (RFC 1034 §3.1), and httpx
decodes an ``xn--`` label that is no valid A-label (RFC 5891 §5.4) when it builds a request: both raise a
``UnicodeError``, not an ``OSError`` nor an httpx error.  Every way a URL reaches the network (an input, a
redirect hop, a robots.txt, a page to enrich) must end in a clean failure, and is not retried (asking
again cannot help).
"""

from __future__ import annotations

import pytest
from localsite import LocalSite

import feedmap
from feedmap.cli import main

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
UNENCODABLE = [
    "http://www..example.com/x.xml",
    "http://" + "a" * 64 + ".example.com/x.xml",
    "http://xn--zz/x.xml",
    "https://xn--a.com/x.xml",
]


@pytest.mark.parametrize("target", UNENCODABLE)
def test_an_input_redirected_to_an_unencodable_host_is_a_fetch_failure(
    web: LocalSite, target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    moved = web.add("/moved.xml", status=302, headers={"Location": target})
    for command in (["convert", moved, "-t", "text"], ["validate", moved], ["info", moved]):
        assert main([*command, "--retries", "0"]) == 2
        captured = capsys.readouterr()
        assert "cannot be encoded" in captured.out + captured.err  # validate reports on stdout


@pytest.mark.parametrize("target", UNENCODABLE)
def test_an_unencodable_host_is_not_retried(target: str) -> None:
    """A retry would wait 30 s, past the 5 s deadline (``timeout``): the failure comes first."""
    settings = feedmap.HttpSettings(retries=3, backoff=30.0, deadline=5.0)
    with pytest.raises(feedmap.FetchError) as caught:
        feedmap.read(target, options=feedmap.Options(http=settings))
    assert caught.value.code == "fetch-failed"


def test_discover_and_enrich_of_an_unencodable_host_are_no_traceback(
    web: LocalSite, capsys: pytest.CaptureFixture[str]
) -> None:
    page = UNENCODABLE[1]
    sitemap = web.add(
        "/sitemap.xml", f'<?xml version="1.0"?>\n<urlset xmlns="{SM}"><url><loc>{page}</loc></url></urlset>\n'
    )
    assert main(["convert", "--enrich", sitemap, "-t", "jsonl", "--retries", "0"]) == 0
    assert page in capsys.readouterr().out  # kept, not enriched (its robots.txt cannot be read)
    assert main(["discover", "http://www..example.com/", "--retries", "0"]) == 2
    assert "cannot be encoded" in capsys.readouterr().err
