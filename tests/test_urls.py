"""feedmap._core.urls: the sitemaps.org ``loc`` rules and IRI-to-URI encoding (RFC 3987 §3.1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Reporter
from feedmap._core.urls import MAX_LOC_LENGTH, check_loc, encode_url, is_absolute_url, same_site


def _url_of_length(length: int) -> str:
    base = "http://www.example.com/"
    return base + "a" * (length - len(base))


# ------------------------------------------------------------------------------------------ check_loc


def code_of(problem: tuple[str, str] | None) -> str | None:
    return None if problem is None else problem[0]


@pytest.mark.parametrize(
    "loc",
    [
        "http://www.example.com/",
        "https://www.example.com/catalog?item=12&desc=vacation_hawaii",
        "http://www.example.com/%C3%BCmlat.html",
        "ftp://files.example.com/a.txt",
        "http://[::1]:8080/x",
        _url_of_length(MAX_LOC_LENGTH - 1),  # "less than 2,048 characters"
    ],
)
def test_check_loc_accepts_absolute_urls(loc: str) -> None:
    assert check_loc(loc) is None


@pytest.mark.parametrize(
    "loc",
    ["/relative/page.html", "page.html", "www.example.com/page", "//www.example.com/page", "mailto:a@example.com", ""],
)
def test_check_loc_rejects_relative_urls(loc: str) -> None:
    assert not is_absolute_url(loc)
    assert code_of(check_loc(loc)) == "loc-not-absolute"


@pytest.mark.parametrize("length", [MAX_LOC_LENGTH, MAX_LOC_LENGTH + 1, 5000])
def test_check_loc_rejects_urls_of_2048_characters_or_more(length: int) -> None:
    loc = _url_of_length(length)
    assert len(loc) == length
    assert is_absolute_url(loc)
    assert code_of(check_loc(loc)) == "loc-too-long"


@pytest.mark.parametrize(
    "loc",
    [
        "http://www.example.com/a b",
        "http://www.example.com/a\tb",
        "http://www.example.com/a\nb",
        "http://www.example.com/a\u00a0b",  # no-break space
    ],
)
def test_check_loc_rejects_white_space(loc: str) -> None:
    assert code_of(check_loc(loc)) == "loc-not-escaped"


MALFORMED_AUTHORITIES = [
    "http://[::1/x",  # an IPv6 literal never closed
    "http://::1]/x",
    "http://example.com]/x",
    "http://[example]/x",  # brackets hold an IPv6 address, nothing else
    "http://example.com:abc/",  # a port is digits
    "http://example.com:99999/",  # ... at most 65535
]


@pytest.mark.parametrize(
    "loc", ["http://example.com:8080/x", "http://example.com:65535/", "http://[::1]:80/x", "http://h:/x"]
)
def test_check_loc_accepts_ports_and_ipv6_literals(loc: str) -> None:
    assert check_loc(loc) is None


@pytest.mark.parametrize(
    "loc",
    ["http://user@example.com/x", "http://user:pw@example.com:8080/x", "http://example.com/a@b", "http://u@[::1]/"],
)
def test_check_loc_accepts_userinfo_and_an_at_sign_in_the_path(loc: str) -> None:
    assert check_loc(loc) is None


@pytest.mark.parametrize("loc", ["http://u@example.com]/x", "http://u@[example]/x"])
def test_check_loc_rejects_a_malformed_authority_with_userinfo(loc: str) -> None:
    problem = check_loc(loc)
    assert problem is not None
    assert problem[0] == "loc-not-absolute" and loc in problem[1]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="hts:/[]@%?#. a1:-<", max_size=30))
def test_the_plain_loc_check_without_userinfo_agrees_with_the_full_one_when_there_is_no_at_sign(tail: str) -> None:
    """check_loc skips the optional userinfo of its fast regex for a loc without '@': the result is the same."""
    from feedmap._core.urls import _PLAIN_LOC, _PLAIN_LOC_NO_USERINFO

    loc = "http://" + tail.replace("@", "")
    assert (_PLAIN_LOC.fullmatch(loc) is None) == (_PLAIN_LOC_NO_USERINFO.fullmatch(loc) is None)


@pytest.mark.parametrize("loc", MALFORMED_AUTHORITIES)
def test_check_loc_rejects_a_malformed_authority(loc: str) -> None:
    assert is_absolute_url(loc)
    problem = check_loc(loc)
    assert problem is not None
    assert problem[0] == "loc-not-absolute" and loc in problem[1]


@pytest.mark.parametrize("loc", MALFORMED_AUTHORITIES)
def test_a_malformed_authority_is_on_no_site(loc: str) -> None:
    assert not same_site(loc, "http://[::1]/")
    assert not same_site("http://[::1]/", loc)


def test_a_sitemap_with_a_malformed_url_is_read_to_its_end(tmp_path: Path) -> None:
    good = ["https://www.example.com/1", "https://www.example.com/2"]
    body = "".join(f"<url><loc>{loc}</loc></url>\n" for loc in (good[0], "http://[::1/x", good[1]))
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}</urlset>\n', "utf-8")
    reporter = Reporter()
    with feedmap.read(str(sitemap), reporter=reporter) as doc:
        locs = [entry.loc for entry in doc]
    assert locs == [good[0], "http://[::1/x", good[1]]  # kept as written, like any invalid loc
    assert [(d.code, d.line) for d in reporter.diagnostics] == [("loc-not-absolute", 3)]


# ----------------------------------------------------------------------------------------- encode_url


def test_encode_url_protocol_example() -> None:
    # sitemaps.org "Entity escaping": the &amp; in the protocol's example is the XML writer's job.
    assert encode_url("http://www.example.com/ümlat.html&q=name") == "http://www.example.com/%C3%BCmlat.html&q=name"


def test_encode_url_idna_host() -> None:
    assert encode_url("http://bücher.example/") == "http://xn--bcher-kva.example/"


def test_encode_url_idna_host_keeps_userinfo_and_port() -> None:
    assert encode_url("http://user@bücher.example:8080/ä") == "http://user@xn--bcher-kva.example:8080/%C3%A4"


def test_encode_url_encodes_query_and_fragment_as_utf8() -> None:
    assert encode_url("http://example.com/p?q=ü&r=é#ö") == "http://example.com/p?q=%C3%BC&r=%C3%A9#%C3%B6"


def test_encode_url_keeps_existing_escapes() -> None:
    assert encode_url("http://example.com/a%20b/%C3%BC/ü") == "http://example.com/a%20b/%C3%BC/%C3%BC"
    assert encode_url("http://example.com/a%2Fb?x=%26") == "http://example.com/a%2Fb?x=%26"


def test_encode_url_encodes_spaces() -> None:
    assert encode_url("http://example.com/a b?q=c d") == "http://example.com/a%20b?q=c%20d"


def test_encode_url_encodes_characters_uris_cannot_hold() -> None:
    assert encode_url('http://example.com/"x"<y>') == "http://example.com/%22x%22%3Cy%3E"


@pytest.mark.parametrize(
    "url",
    [
        "http://www.example.com/",
        "https://www.example.com/catalog?item=12&desc=vacation_hawaii#top",
        "http://example.com/a;b=c/d,e/f:g@h!$'()*+~_-.",
        "http://[2001:db8::1]:8080/p?x=y",
        "http://example.com/%7Euser/%C3%BC",
    ],
)
def test_encode_url_leaves_ascii_urls_unchanged(url: str) -> None:
    assert encode_url(url) == url


def test_encode_url_is_idempotent() -> None:
    once = encode_url("http://bücher.example/straße?q=ä b")
    assert once.isascii()
    assert encode_url(once) == once
    assert check_loc(once) is None


def test_encode_url_escapes_brackets_outside_the_host_and_a_second_hash() -> None:
    assert encode_url("http://[2001:db8::1]:8080/p?x=[y]#a#b") == "http://[2001:db8::1]:8080/p?x=%5By%5D#a%23b"
