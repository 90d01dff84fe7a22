"""The fast paths of reading text sitemaps and of splitting give what the line-by-line checks give.

* A text sitemap is read a block of lines at a time when every line of it is a plain URL; a block holding
  any other line (blank, padded, CSV, not a URL, too long, not ASCII) is read line by line.  The same lines
  read either way give the same entries, positions and diagnostics (a blank line at the end sends its block
  the slow way and changes nothing else).
* The split counts the URLs outside the files' scope (sitemaps.org "Sitemap file location") by string
  tests for plain paths on the base URL's site: the count and first URL reported are those of the rule
  (same scheme, host and port; a path under the base's directory in its RFC 3986 normal form), here
  computed independently.
* Files are cut before the block that would pass ``max_urls`` or ``max_file_bytes``: greedily, in order.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from urllib.parse import urlsplit

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Diagnostic, Entry, Position, Reporter

PLAIN_CHARS = "abcxyz019-._~!$&'()*+;=%:@/?#"
PLAIN_URLS = st.builds(
    lambda scheme, host, port, rest: f"{scheme}://{host}{port}{rest}",
    st.sampled_from(["https", "http", "HTTP", "svn+ssh", "a.b-c"]),
    st.sampled_from(["example.com", "www.example.com", "e", "%41.example", "x_y.test"]),
    st.sampled_from(["", ":8080", ":", ":1"]),
    st.sampled_from(["", "/", "?q", "#f"]).flatmap(
        lambda start: st.text(PLAIN_CHARS, max_size=30).map(lambda tail: start + tail if start else "")
    ),
)
#: Lines that are not plain URLs: each must be read by the line-by-line checks.
ODD_LINES = st.sampled_from(
    [
        "",
        "   ",
        " https://example.com/padded ",
        "https://example.com/a,2024-01-01",
        "https://example.com/a, 12",
        "https://example.com/page,2",
        "https://example.com/a b",
        "https://example.com/<x>",
        "https://example.com/\t",
        "/relative/path",
        "not a url",
        "https://example.com/é",
        "https://exämple.com/",
        "https://[::1]/x",
        "https://[::1/x",
        "https://example.com:99999/",
        "https://user@example.com/",
        "https://example.com/" + "a" * 2030,
        "https://example.com/" + "a" * 2027,
        "\x00",
        "https://example.com/\x85",
        "https://example.com/\u00a0",
    ]
)
LINES = st.lists(st.one_of(PLAIN_URLS, PLAIN_URLS, PLAIN_URLS, ODD_LINES), max_size=12)


Read = tuple[list[tuple[str, Position | None]], list[tuple[str, int, str]]]


def read_text(data: bytes, cap: int | None = None) -> Read:
    reporter = Reporter()
    options = feedmap.Options() if cap is None else feedmap.Options(max_line_bytes=cap)
    with feedmap.read(io.BytesIO(data), format="text", options=options, reporter=reporter) as doc:
        entries = [(entry.loc, entry.origin) for entry in doc]
    return entries, [(d.code, d.line, d.message) for d in reporter.diagnostics]


def read_both_ways(data: bytes, cap: int | None = None) -> bool:
    """``data`` read as it is, and with a blank line after it (its block then read line by line): alike.
    Whether it was read (False: both ways refused it with the same error)."""
    try:
        fast = read_text(data, cap)
    except feedmap.ReadError as error:
        fast_error = (error.code, error.line, str(error))
        try:
            read_text(data + b"\n\n", cap)
        except feedmap.ReadError as slow:
            assert (slow.code, slow.line, str(slow)) == fast_error
            return False
        raise AssertionError("only the block read failed") from None
    assert read_text(data + b"\n\n", cap) == fast
    return True


@settings(max_examples=300, deadline=None)
@given(LINES, st.sampled_from([b"\n", b"\r\n", b"\r"]), st.booleans(), st.booleans())
def test_a_block_of_lines_reads_as_the_lines_one_by_one(lines: list[str], end: bytes, bom: bool, last: bool) -> None:
    data = (b"\xef\xbb\xbf" if bom else b"") + end.join(line.encode("utf-8") for line in lines) + (end if last else b"")
    read_both_ways(data)


@settings(max_examples=100, deadline=None)
@given(st.lists(PLAIN_URLS, min_size=1, max_size=8), st.integers(min_value=1, max_value=80))
def test_lines_longer_than_the_line_cap_are_reported_in_a_plain_block(lines: list[str], cap: int) -> None:
    read_both_ways("\n".join(lines).encode(), cap)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=2999), ODD_LINES), max_size=6), st.booleans())
@example(odd=[(0, "https://example.com/a,2024-01-01")], crlf=False)  # a first line of CSV: refused both ways
def test_lines_are_numbered_across_the_reads_of_a_long_input(odd: list[tuple[int, str]], crlf: bool) -> None:
    """3,000 plain lines (about 200 KB: several reads) with odd lines put among them: every URL keeps the
    number of its line, every odd line is reported at its own, wherever the reads are cut."""
    lines = [f"https://example.com/catalogue/product-{number}?ref=list&page={number % 97}" for number in range(3000)]
    for at, line in sorted(odd, reverse=True):
        lines.insert(at, line)
    end = b"\r\n" if crlf else b"\n"
    data = end.join(line.encode("utf-8") for line in lines) + end
    # an odd line put first may make the whole input something else (a CSV table): refused alike both ways
    assume(read_both_ways(data))
    entries, _ = read_text(data)
    plain = {line for line in lines if line.startswith("https://example.com/catalogue/")}
    numbered = [(loc, origin.line if origin else 0) for loc, origin in entries if loc in plain]
    assert numbered == [(line, number) for number, line in enumerate(lines, 1) if line in plain]


def test_a_plain_block_is_read_without_a_diagnostic() -> None:
    lines = [f"https://example.com/p/{number}?a=1&b=%20#top" for number in range(5000)]
    entries, diagnostics = read_text("\n".join(lines).encode())
    assert [loc for loc, _ in entries] == lines
    assert [origin.line if origin else 0 for _, origin in entries] == list(range(1, 5001))
    assert diagnostics == []


# ------------------------------------------------------------------------------------------------ scope

UNRESERVED = re.compile(r"%([0-9A-Fa-f]{2})")


def normal_path(path: str) -> str:
    """RFC 3986 §6.2.2: unreserved escapes decoded, others upper-cased, dot segments removed (§5.2.4); a
    backslash is a slash (WHATWG URL, for http(s)); an empty path is ``/``."""

    def case(found: re.Match[str]) -> str:
        char = chr(int(found[1], 16))
        return char if char.isascii() and (char.isalnum() or char in "-._~") else found[0].upper()

    segments = UNRESERVED.sub(case, path.replace("\\", "/")).split("/") if path else ["", ""]
    out: list[str] = []
    for number, segment in enumerate(segments):
        if segment in (".", ".."):
            if segment == ".." and len(out) > 1:
                out.pop()
            if number == len(segments) - 1:
                out.append("")
        else:
            out.append(segment)
    return "/".join(out) if out != [""] else "/"


def in_scope(url: str, base: str) -> bool:
    """sitemaps.org "Sitemap file location", computed here without feedmap: the same scheme, host (case and a
    final dot aside) and port (the default made explicit), and a normal path under the base's directory."""

    def origin(text: str) -> tuple[str, str, int]:
        parts = urlsplit(text)
        scheme = parts.scheme.lower()
        port = parts.port
        return (
            scheme,
            (parts.hostname or "").rstrip("."),
            port if port is not None else (443 if scheme == "https" else 80),
        )

    if origin(url) != origin(base):
        return False
    folder = normal_path(urlsplit(base).path).rpartition("/")[0] + "/"
    return normal_path(urlsplit(url).path).startswith(folder)


SITES = st.sampled_from(
    [
        "https://example.com",
        "https://EXAMPLE.com",
        "HTTPS://example.com",
        "https://example.com.",
        "https://example.com:443",
        "https://example.com:",
        "http://example.com",
        "http://example.com:8080",
        "https://other.org",
        "https://sub.example.com",
    ]
)
SEGMENTS = st.sampled_from(
    ["maps", "m", "a", "..", ".", "%2e", "%2E%2e", "%7Em", "~m", "%2F", "%41", "", ".well", "a\\..", "\\"]
)
PATHS = st.lists(SEGMENTS, max_size=4).map(lambda segments: "".join("/" + segment for segment in segments))
TAILS = st.sampled_from(["", "?", "?q=/../x", "#f", "?a#b", "#a?b"])


DOTS = st.sampled_from(["/..", "/.", "/%2e", "/%2E%2E", "/a/..", "/./..", ""])


@st.composite
def scoped_urls(draw: st.DrawFn) -> tuple[str, list[str]]:
    site = draw(st.sampled_from(["https://example.com", "http://example.com:8080"]))
    folder = draw(PATHS) + "/"
    base = site + folder
    urls = draw(
        st.lists(
            st.one_of(
                st.builds(lambda site, path, tail: site + path + tail, SITES, PATHS, TAILS),
                st.builds(lambda path, tail: base + path.lstrip("/") + tail, PATHS, TAILS),
                st.builds(lambda path, tail: site + path + tail, PATHS, TAILS),
                st.builds(lambda dots, path, tail: site + dots + folder + path + tail, DOTS, PATHS, TAILS),
            ),
            min_size=1,
            max_size=10,
        )
    )
    return base, urls


def outside_reported(diagnostics: list[Diagnostic]) -> tuple[int, str] | None:
    found = [d for d in diagnostics if d.code == "outside-sitemap-scope"]
    if not found:
        return None
    (only,) = found
    counted = re.match(r"([\d,]+) URLs? not under .*?\(first: (.*?)\): sitemaps\.org", only.message)
    assert counted is not None, only.message
    return int(counted[1].replace(",", "")), counted[2]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scoped_urls())
def test_the_urls_outside_the_scope_are_those_of_the_rule(tmp_path: Path, case: tuple[str, list[str]]) -> None:
    base, urls = case
    reporter = Reporter()
    options = feedmap.Options(base_url=base, dedupe="first")
    feedmap.split([Entry(loc=url) for url in urls], tmp_path / "out", "text", options, reporter=reporter)
    kept = list(dict.fromkeys(urls))  # repeats are dropped before the split
    outside = [url for url in kept if not in_scope(url, base)]
    assert outside_reported(reporter.diagnostics) == ((len(outside), outside[0]) if outside else None)


# ------------------------------------------------------------------------------------------------- cuts

LOCS = st.lists(
    st.builds(lambda path: "https://example.com/" + path, st.text("ab/é€\U0001f600&<", max_size=40)),
    min_size=1,
    max_size=25,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(LOCS, st.integers(min_value=1, max_value=6), st.integers(min_value=30, max_value=400))
def test_files_are_cut_greedily_before_the_block_that_would_pass_a_limit(
    tmp_path: Path, locs: list[str], max_urls: int, max_bytes: int
) -> None:
    out = tmp_path / "cut"
    options = feedmap.Options(  # cut afresh: the folder holds the cut of the example before
        base_url="https://example.com/", max_urls=max_urls, max_file_bytes=max_bytes, dedupe="first", rebalance=True
    )
    reporter = Reporter()
    summary = feedmap.split([Entry(loc=loc) for loc in locs], out, "text", options, reporter=reporter)
    blocks = [(loc + "\n").encode("utf-8") for loc in dict.fromkeys(locs)]
    expected: list[list[bytes]] = [[]]
    too_large = 0
    for block in blocks:
        current = expected[-1]
        if current and (len(current) >= max_urls or sum(map(len, current)) + len(block) > max_bytes):
            expected.append(current := [])
        too_large += len(block) > max_bytes
        current.append(block)
    files = [out / name for name in summary.files]
    assert [path.read_bytes() for path in files] == [b"".join(part) for part in expected]
    assert [d.code for d in reporter.diagnostics].count("entry-too-large") == too_large
