"""Page enrichment (``--enrich``, ``feedmap.converters._enrich``) against a real HTTP server on 127.0.0.1.

Covers: title/description/keywords carried (also into ROR RSS through the CLI); empty fields filled and
existing ones kept unless overwrite; charsets (HTTP header, meta, windows-1252 fallback, UTF-8 BOM, and
Python codec names that are no web encoding: idna, utf-7, ...) and entities over HTTP; robots.txt
Disallow; 404, timeout, non-HTML and oversized pages reported per URL with the entry kept; order kept
and pages really fetched concurrently; ``--map`` with no server at all; the progress line on a terminal
and its silence otherwise.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import codes
from conftest import run as cli
from localsite import LocalSite
from lxml import etree

import feedmap
from feedmap import (
    Diagnostic,
    DocKind,
    DocMeta,
    Document,
    Entry,
    HttpSettings,
    Options,
    Position,
    Reporter,
    StrictError,
    enrich,
)
from feedmap.cli import main
from feedmap.cli._common import Progress

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
ROR = "http://rorweb.com/0.1/"
HTML = "text/html; charset=utf-8"
#: For tests with a page slower than the timeout: given up after 0.5 s.
FAST = HttpSettings(connect_timeout=0.5, read_timeout=0.5, deadline=5.0, retries=0, backoff=0.01)
#: For the other tests: no retries, but time enough for a loaded machine.
SURE = HttpSettings(connect_timeout=5.0, read_timeout=5.0, deadline=10.0, retries=0, backoff=0.01)


# ------------------------------------------------------------------------------------------------ helpers


def html(title: str | None = None, description: str | None = None, keywords: str | None = None, head: str = "") -> str:
    parts = ["<!DOCTYPE html>\n<html><head>", head]
    if title is not None:
        parts.append(f"<title>{title}</title>")
    if description is not None:
        parts.append(f'<meta name="description" content="{description}">')
    if keywords is not None:
        parts.append(f'<meta name="keywords" content="{keywords}">')
    parts.append("</head><body><p>Hello.</p></body></html>\n")
    return "".join(parts)


def add_page(site: LocalSite, path: str, title: str, description: str | None = None, **route: object) -> str:
    body = html(title, description if description is not None else f"About {title}.", f"{title}, page")
    return site.add(path, body, content_type=route.pop("content_type", HTML), **route)


def urlset(*locs: str) -> bytes:
    body = "".join(f"  <url><loc>{loc}</loc></url>\n" for loc in locs)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}">\n{body}</urlset>\n'.encode()


def run_enrich(entries: Iterable[Entry], **settings: Any) -> tuple[list[Entry], list[Diagnostic]]:
    """The entries enriched, and the diagnostics of their pages: the summary said once, last, is left out."""
    reporter = Reporter()
    settings.setdefault("http", SURE)
    result = list(enrich(entries, Options(**settings), reporter=reporter))
    said = reporter.diagnostics
    assert [one.code for one in said].count("enrich-summary") == 1 and said[-1].code == "enrich-summary"
    return result, said[:-1]


def http_flags() -> list[str]:
    return ["--timeout", "5", "--retries", "0"]


def dead_port() -> int:
    """A local port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class FakeTTY(io.StringIO):
    """A text stream that says it is a terminal (for the progress line)."""

    def isatty(self) -> bool:
        return True


class FakeTTYOut(io.TextIOWrapper):
    """Standard output that says it is a terminal, with a binary buffer as the CLI writes to."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8")

    def isatty(self) -> bool:
        return True


# ------------------------------------------------------------------------------------------------ carrying fields


def test_title_description_keywords_carried(web: LocalSite) -> None:
    url = web.add(
        "/page",
        html("A page &amp; more", "What it is about.", "maps, feeds,,sitemaps"),
        content_type=HTML,
    )
    entries, diagnostics = run_enrich([Entry(loc=url)])
    assert codes(diagnostics) == []
    assert entries == [
        Entry(loc=url, title="A page & more", description="What it is about.", keywords=("maps", "feeds", "sitemaps"))
    ]


def test_empty_fields_filled_existing_kept(web: LocalSite) -> None:
    url = add_page(web, "/page", "Page title", "Page description")
    mine = Entry(loc=url, title="My title", keywords=("mine",), priority=0.7)
    entries, _ = run_enrich([mine])
    assert entries == [
        Entry(loc=url, title="My title", description="Page description", keywords=("mine",), priority=0.7)
    ]


def test_overwrite_replaces_but_never_erases(web: LocalSite) -> None:
    url = web.add("/page", html("Page title"), content_type=HTML)  # no description, no keywords on the page
    mine = Entry(loc=url, title="My title", description="My description", keywords=("mine",))
    entries, _ = run_enrich([mine], overwrite=True)
    assert entries == [Entry(loc=url, title="Page title", description="My description", keywords=("mine",))]


def test_complete_entries_are_not_fetched(web: LocalSite) -> None:
    url = add_page(web, "/page", "Page")
    full = Entry(loc=url, title="t", description="d", keywords=("k",))
    entries, _ = run_enrich([full])
    assert entries == [full]
    assert web.hits("/page") == 0
    run_enrich([full], overwrite=True)
    assert web.hits("/page") == 1


def test_document_in_document_out(web: LocalSite, tmp_path: Path) -> None:
    a = add_page(web, "/a", "Page A")
    missing = web.url("/missing")
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_bytes(urlset(a, missing))
    with feedmap.read(str(sitemap)) as doc:
        enriched = enrich(doc, Options(http=SURE))
        assert isinstance(enriched, Document)
        assert enriched.meta.kind is DocKind.URLSET
        assert enriched.format == "sitemap"
        result = list(enriched)
    assert [e.title for e in result] == ["Page A", None]
    failure = next(d for d in enriched.diagnostics if d.code == "enrich-failed")
    assert missing in failure.message
    assert (failure.source, failure.line) == (str(sitemap), 4)  # the <url> of the entry, in its own file


def test_diagnostics_carry_the_entry_origin(web: LocalSite) -> None:
    url = web.url("/nowhere")
    _, diagnostics = run_enrich([Entry(loc=url, origin=Position("list.txt", 7)), Entry(loc=url)])
    assert [(d.code, d.source, d.line) for d in diagnostics] == [
        ("enrich-failed", "list.txt", 7),
        ("enrich-failed", "", 0),
    ]


def test_strict_stops_at_the_first_failure(web: LocalSite) -> None:
    with pytest.raises(StrictError) as caught:
        list(enrich([Entry(loc=web.url("/missing"))], Options(strict=True, http=SURE)))
    assert caught.value.code == "enrich-failed"


def test_not_an_http_url() -> None:
    entries, diagnostics = run_enrich([Entry(loc="ftp://example.com/file")])
    assert entries == [Entry(loc="ftp://example.com/file")]
    assert codes(diagnostics) == ["enrich-failed"]


def test_a_malformed_url_is_reported_and_kept(web: LocalSite) -> None:
    good = add_page(web, "/good", "Good")
    entries, diagnostics = run_enrich([Entry(loc="http://[::1/x"), Entry(loc=good)])
    assert [(e.loc, e.title) for e in entries] == [("http://[::1/x", None), (good, "Good")]
    assert codes(diagnostics) == ["enrich-failed"]
    assert "http://[::1/x" in diagnostics[0].message


def test_file_urls_are_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.html"
    secret.write_text(html("SECRET TITLE", "SECRET DESCRIPTION"), "utf-8")
    entries, diagnostics = run_enrich([Entry(loc=secret.as_uri())])
    assert entries == [Entry(loc=secret.as_uri())]
    assert codes(diagnostics) == ["enrich-failed"]


def test_a_remote_sitemap_cannot_make_enrich_read_local_files(
    web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret.html"
    secret.write_text(html("SECRET TITLE", "SECRET DESCRIPTION", "SECRET"), "utf-8")
    page = add_page(web, "/page", "Page")
    sitemap = web.add("/sitemap.xml", urlset(secret.as_uri(), page))
    code, out, err = cli(capsys, "convert", sitemap, "--enrich", "-t", "jsonl", *http_flags())
    assert code == 0, err
    assert "SECRET" not in out
    assert [json.loads(line).get("title") for line in out.splitlines()] == [None, "Page"]
    (line,) = [line for line in err.splitlines() if "[enrich-failed]" in line]
    assert secret.as_uri() in line


def test_a_mapped_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    base = f"http://127.0.0.1:{dead_port()}/"
    results: list[tuple[list[Entry], list[Diagnostic]]] = []
    worker = threading.Thread(
        target=lambda: results.append(run_enrich([Entry(loc=base + "pipe.html")], maps=[(base, str(tmp_path))])),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=5)
    try:
        assert not worker.is_alive(), "enrich is blocked reading the FIFO"
        ((entries, diagnostics),) = results
        assert entries == [Entry(loc=base + "pipe.html")]
        assert codes(diagnostics) == ["enrich-failed"]
    finally:
        with contextlib.suppress(OSError):  # a writer that goes at once: a blocked reader gets end of file
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(timeout=5)


# ------------------------------------------------------------------------------------------------ charsets


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        pytest.param(
            html("Caf\u00e9 \u2013 na\u00efve").encode("cp1252"), "text/html; charset=windows-1252", id="header"
        ),
        pytest.param(
            html("Caf\u00e9 \u2013 na\u00efve", head='<meta charset="windows-1252">').encode("cp1252"),
            "text/html",
            id="meta-charset",
        ),
        pytest.param(
            html(
                "Caf\u00e9 \u2013 na\u00efve",
                head='<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">',
            ).encode("cp1252"),
            "text/html",
            id="http-equiv",
        ),
        pytest.param(html("Caf\u00e9 \u2013 na\u00efve").encode("cp1252"), "text/html", id="windows-1252-fallback"),
        pytest.param(b"\xef\xbb\xbf" + html("Caf\u00e9 \u2013 na\u00efve").encode(), "text/html", id="utf8-bom"),
        pytest.param(html("Caf&eacute; &ndash; na&iuml;ve").encode("ascii"), "text/html", id="entities"),
    ],
)
def test_charsets_and_entities(web: LocalSite, body: bytes, content_type: str) -> None:
    url = web.add("/page", body, content_type=content_type)
    entries, diagnostics = run_enrich([Entry(loc=url)])
    assert codes(diagnostics) == []
    assert entries[0].title == "Caf\u00e9 \u2013 na\u00efve"


def test_header_charset_beats_meta(web: LocalSite) -> None:
    body = html("\u041f\u0440\u0438\u0432\u0435\u0442", head='<meta charset="windows-1252">').encode("koi8-r")
    url = web.add("/page", body, content_type="text/html; charset=KOI8-R")
    entries, _ = run_enrich([Entry(loc=url)])
    assert entries[0].title == "Привет"


@pytest.mark.parametrize("label", ["idna", "punycode", "undefined", "utf-7", "unicode_escape", "rot13"])
def test_charsets_python_has_but_the_web_does_not_are_ignored(web: LocalSite, label: str) -> None:
    # they crashed the run (idna, punycode, undefined) or turned a title into markup (utf-7)
    title = "+ADw-script+AD4-alert(1)+ADw-/script+AD4- caf\u00e9"
    header = web.add("/header", html(title).encode("cp1252"), content_type=f"text/html; charset={label}")
    meta = web.add("/meta", html(title, head=f'<meta charset="{label}">').encode("cp1252"), content_type="text/html")
    after = add_page(web, "/after", "After")
    entries, diagnostics = run_enrich([Entry(loc=header), Entry(loc=meta), Entry(loc=after)])
    assert codes(diagnostics) == []
    assert [e.title for e in entries] == [title, title, "After"]


# ------------------------------------------------------------------------------------------------ robots.txt


def test_robots_disallow_for_our_user_agent(web: LocalSite) -> None:
    web.add(
        "/robots.txt",
        "User-agent: *\nDisallow:\n\nUser-agent: feedmap\nDisallow: /private/\n",
        content_type="text/plain",
    )
    public = add_page(web, "/public", "Public")
    private = add_page(web, "/private/page", "Private")
    entries, diagnostics = run_enrich([Entry(loc=private), Entry(loc=public)])
    assert entries == [
        Entry(loc=private),
        Entry(loc=public, title="Public", description="About Public.", keywords=("Public", "page")),
    ]
    assert codes(diagnostics) == ["robots-disallowed"]
    assert private in diagnostics[0].message
    assert web.hits("/private/page") == 0
    assert web.hits("/robots.txt") == 1  # once per site


def test_robots_txt_that_cannot_be_read_is_named_as_the_reason(web: LocalSite) -> None:
    robots_url = web.add("/robots.txt", "unavailable", status=503, content_type="text/plain")
    page = add_page(web, "/page", "Page")
    entries, diagnostics = run_enrich([Entry(loc=page)])
    assert entries == [Entry(loc=page)]
    assert codes(diagnostics) == ["robots-disallowed"]  # RFC 9309 2.3.1.4: unreachable means disallowed
    assert page in diagnostics[0].message
    assert robots_url in diagnostics[0].message
    assert "could not be read" in diagnostics[0].message
    assert web.hits("/page") == 0


def test_a_long_robots_txt_is_read_in_part_and_said_once(web: LocalSite) -> None:
    # issue 8: a robots.txt over 2 MiB disallowed the whole site; RFC 9309 2.5 asks to read at least 500 KiB
    filler = "# a long comment line in a long robots.txt\n" * 55_000
    web.add("/robots.txt", "User-agent: *\nDisallow: /private/\n" + filler, content_type="text/plain")
    public = add_page(web, "/public", "Public")
    other = add_page(web, "/other", "Other")
    private = add_page(web, "/private/page", "Private")
    entries, diagnostics = run_enrich([Entry(loc=public), Entry(loc=other), Entry(loc=private)], concurrency=1)
    assert [e.title for e in entries] == ["Public", "Other", None]
    assert codes(diagnostics) == ["robots-truncated", "robots-disallowed"]
    assert "500 KiB" in diagnostics[0].message
    assert web.hits("/private/page") == 0


def test_a_redirect_to_a_page_robots_txt_disallows_is_not_followed(web: LocalSite) -> None:
    web.add("/robots.txt", "User-agent: *\nDisallow: /private/\n", content_type="text/plain")
    add_page(web, "/private/page", "Private")
    moved = web.add("/moved", status=302, headers={"Location": "/private/page"})
    entries, diagnostics = run_enrich([Entry(loc=moved)])
    assert entries == [Entry(loc=moved)]
    assert codes(diagnostics) == ["robots-disallowed"]
    assert web.url("/private/page") in diagnostics[0].message
    assert web.hits("/private/page") == 0


def test_a_redirect_to_another_host_checks_that_hosts_robots_txt(web: LocalSite) -> None:
    with LocalSite(host="127.0.0.2") as other:
        other.add("/robots.txt", "User-agent: *\nDisallow: /\n", content_type="text/plain")
        add_page(other, "/page", "Elsewhere")
        moved = web.add("/moved", status=301, headers={"Location": other.url("/page")})
        allowed = add_page(web, "/allowed", "Allowed")
        entries, diagnostics = run_enrich([Entry(loc=moved), Entry(loc=allowed)])
        assert other.hits("/robots.txt") == 1
        assert other.hits("/page") == 0
    assert [e.title for e in entries] == [None, "Allowed"]
    assert codes(diagnostics) == ["robots-disallowed"]


# ------------------------------------------------------------------------------------------------ failures


def test_failures_reported_per_url_entries_kept(web: LocalSite) -> None:
    good = add_page(web, "/good", "Good")
    missing = web.url("/missing")
    slow = add_page(web, "/slow", "Slow", held=True)  # answers when the test ends
    pdf = web.add("/file.pdf", b"%PDF-1.4 ...", content_type="application/pdf")
    big = web.add("/big", html("Big", "x" * 5000), content_type=HTML)
    gone = web.add("/gone", "gone", status=410, content_type="text/html")
    locs = [missing, slow, good, pdf, big, gone]
    entries, diagnostics = run_enrich([Entry(loc=loc) for loc in locs], page_max_bytes=2000, http=FAST, concurrency=4)
    assert [e.loc for e in entries] == locs
    assert [e.title for e in entries] == [None, None, "Good", None, None, None]
    by_url = {loc: [d for d in diagnostics if loc in d.message] for loc in locs}
    assert codes(by_url[missing]) == ["enrich-failed"]
    assert codes(by_url[slow]) == ["enrich-failed"]
    assert codes(by_url[pdf]) == ["not-html"]
    assert codes(by_url[big]) == ["enrich-failed"]
    assert codes(by_url[gone]) == ["enrich-failed"]
    assert by_url[good] == []
    assert len(diagnostics) == 5
    assert web.answered("/slow") == 0  # given up after the 0.5 s timeout, not waited for


def test_missing_content_type_is_read_as_html(web: LocalSite) -> None:
    url = web.add("/page", html("Untyped"), content_type="")
    entries, diagnostics = run_enrich([Entry(loc=url)])
    assert codes(diagnostics) == []
    assert entries[0].title == "Untyped"


def test_xhtml_is_html(web: LocalSite) -> None:
    body = '<?xml version="1.0" encoding="iso-8859-1"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head>'
    body += "<title>Caf\u00e9</title></head><body/></html>"
    url = web.add("/page", body.encode("latin-1"), content_type="application/xhtml+xml")
    entries, _ = run_enrich([Entry(loc=url)])
    assert entries[0].title == "Café"


# ------------------------------------------------------------------------------------------------ concurrency


def test_order_kept_when_pages_answer_out_of_order(web: LocalSite) -> None:
    locs = [add_page(web, f"/p{i}", f"Page {i}", delay=(7 - i) * 0.08) for i in range(8)]
    entries, diagnostics = run_enrich([Entry(loc=loc) for loc in locs], concurrency=8)
    assert codes(diagnostics) == []
    assert [(e.loc, e.title) for e in entries] == [(loc, f"Page {i}") for i, loc in enumerate(locs)]


def test_pages_are_fetched_concurrently(web: LocalSite) -> None:
    # each page answers once all 16 are asked for at once
    locs = [add_page(web, f"/p{i}", f"Page {i}", wait_for_peak=16) for i in range(16)]
    entries, _ = run_enrich([Entry(loc=loc) for loc in locs], concurrency=16)
    assert [e.title for e in entries] == [f"Page {i}" for i in range(16)]
    assert web.peak("/p") == 16


def test_host_delay_spaces_requests(web: LocalSite) -> None:
    locs = [add_page(web, f"/p{i}", f"Page {i}") for i in range(4)]
    polite = HttpSettings(connect_timeout=5.0, read_timeout=5.0, retries=0, host_delay=0.25)
    started = time.monotonic()
    entries, _ = run_enrich([Entry(loc=loc) for loc in locs], concurrency=4, http=polite)
    elapsed = time.monotonic() - started
    assert [e.title for e in entries] == [f"Page {i}" for i in range(4)]
    assert elapsed >= 0.9  # robots.txt and 4 pages, one host: 4 gaps of 0.25 s even with 4 threads


def test_window_is_bounded_and_streams(web: LocalSite) -> None:
    """The first entries come out before the input is read to its end: the window does not swallow it all."""
    locs = [add_page(web, f"/p{i}", f"Page {i}") for i in range(50)]
    pulled = 0

    def source() -> Iterator[Entry]:
        nonlocal pulled
        for loc in locs:
            pulled += 1
            yield Entry(loc=loc)

    stream = enrich(source(), Options(concurrency=2, http=SURE))
    assert isinstance(stream, Generator)  # entries in, a generator out: it can be closed early
    first = next(stream)
    assert first.title == "Page 0"
    assert pulled <= 2 * 2 + 1
    stream.close()  # stopping early releases the threads and the client


def test_closing_early_does_not_wait_for_pages_in_flight(web: LocalSite) -> None:
    first = add_page(web, "/first", "First")
    slow = [add_page(web, f"/slow{i}", f"Slow {i}", held=True) for i in range(4)]
    stream = enrich([Entry(loc=loc) for loc in [first, *slow]], Options(concurrency=4, http=SURE))
    assert isinstance(stream, Generator)
    assert next(stream).title == "First"
    assert web.wait_in_flight(3, "/slow")  # the window holds the first and three slow pages
    stream.close()
    # closing returned while the slow pages were still unanswered: it did not wait for them
    assert [web.answered(f"/slow{i}") for i in range(4)] == [0, 0, 0, 0]


# ------------------------------------------------------------------------------------------------ --map


@pytest.fixture
def build_dir(tmp_path: Path) -> Path:
    root = tmp_path / "public"
    (root / "blog" / "post").mkdir(parents=True)
    (root / "index.html").write_text(html("Home", "The home page.", "home"), "utf-8")
    (root / "about.html").write_text(html("About", "Who we are."), "utf-8")
    (root / "blog" / "post" / "index.html").write_bytes(
        html("Caf\u00e9", head='<meta charset="latin1">').encode("cp1252")
    )
    (root / "feed.xml").write_text("<rss/>", "utf-8")
    return root


def test_map_reads_pages_from_disk_without_a_server(build_dir: Path) -> None:
    base = f"http://127.0.0.1:{dead_port()}/"
    locs = [base, base + "about", base + "blog/post/", base + "feed.xml", base + "nope.html", base + "%2e%2e/x.html"]
    entries, diagnostics = run_enrich([Entry(loc=loc) for loc in locs], maps=[(base, str(build_dir))])
    assert [e.title for e in entries] == ["Home", "About", "Café", None, None, None]
    assert entries[0].description == "The home page."
    assert [(d.code, locs.index(next(loc for loc in reversed(locs) if loc in d.message))) for d in diagnostics] == [
        ("not-html", 3),
        ("enrich-failed", 4),
        ("enrich-failed", 5),
    ]


@pytest.mark.parametrize(
    ("url_path", "link", "target"),
    [
        ("foo", "foo.html", "secret.html"),  # the NAME.html fallback (issue 8)
        ("sub/", "sub/index.html", "secret.html"),  # the index.html of a directory
        ("sub2", "sub2", "."),  # a directory symlinked out (refused before too)
        ("bar.html", "bar.html", "secret.html"),  # a direct symlink (refused before too)
    ],
)
def test_map_cannot_escape_through_symlinks_at_the_fallbacks(
    build_dir: Path, tmp_path: Path, url_path: str, link: str, target: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.html").write_text(html("SECRET TITLE", "SECRET"), "utf-8")
    (outside / "index.html").write_text(html("SECRET INDEX", "SECRET"), "utf-8")
    (build_dir / link).parent.mkdir(parents=True, exist_ok=True)
    (build_dir / link).symlink_to((outside / target).resolve())
    base = f"http://127.0.0.1:{dead_port()}/"
    entries, diagnostics = run_enrich([Entry(loc=base + url_path)], maps=[(base, str(build_dir))])
    assert entries == [Entry(loc=base + url_path)]
    assert codes(diagnostics) == ["enrich-failed"]
    assert "maps outside" in diagnostics[0].message


def test_map_fallbacks_symlinked_inside_the_directory_are_read(build_dir: Path) -> None:
    (build_dir / "alias.html").symlink_to(build_dir / "about.html")
    (build_dir / "docs").mkdir()
    (build_dir / "docs" / "index.html").symlink_to(build_dir / "index.html")
    base = f"http://127.0.0.1:{dead_port()}/"
    entries, diagnostics = run_enrich(
        [Entry(loc=base + "alias"), Entry(loc=base + "docs/")], maps=[(base, str(build_dir))]
    )
    assert [e.title for e in entries] == ["About", "Home"]
    assert diagnostics == []


@pytest.mark.parametrize("url_path", ["a%00b", "about%00", "blog/%00/", "x%00.html"])
def test_a_nul_in_a_mapped_url_is_enrich_failed(build_dir: Path, url_path: str) -> None:
    # issue 8: ValueError: embedded null byte
    base = f"http://127.0.0.1:{dead_port()}/"
    entries, diagnostics = run_enrich(
        [Entry(loc=base + url_path), Entry(loc=base + "about")], maps=[(base, str(build_dir))]
    )
    assert [e.title for e in entries] == [None, "About"]
    assert codes(diagnostics) == ["enrich-failed"]
    assert "NUL" in diagnostics[0].message


def test_a_mapped_fifo_at_a_fallback_is_refused(build_dir: Path) -> None:
    (build_dir / "docs").mkdir()
    os.mkfifo(build_dir / "docs" / "index.html")
    os.mkfifo(build_dir / "pipe.html")
    base = f"http://127.0.0.1:{dead_port()}/"
    entries, diagnostics = run_enrich(
        [Entry(loc=base + "docs/"), Entry(loc=base + "pipe")], maps=[(base, str(build_dir))]
    )
    assert [e.title for e in entries] == [None, None]
    assert codes(diagnostics) == ["enrich-failed", "enrich-failed"]
    assert all("not a regular file" in d.message for d in diagnostics)


def test_cli_map_without_a_server(build_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = f"http://127.0.0.1:{dead_port()}/"
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_bytes(urlset(base, base + "about"))
    code, out, err = cli(capsys, "convert", sitemap, "--enrich", "--map", f"{base}={build_dir}", "-t", "jsonl")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(row["loc"], row["title"]) for row in rows] == [(base, "Home"), (base + "about", "About")]


# ------------------------------------------------------------------------------------------------ CLI


def test_cli_enrich_into_ror(web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = web.add("/a", html("Page A", "About A &amp; more.", "alpha, first"), content_type=HTML)
    b = web.add("/b", html("Page B", "About B."), content_type=HTML)
    web.add("/sitemap.xml", urlset(a, b))
    code, out, err = cli(capsys, "convert", web.url("/sitemap.xml"), "--enrich", "-t", "ror", *http_flags())
    assert code == 0, err
    channel = etree.fromstring(out.encode()).find("channel")
    assert channel is not None
    items = {item.findtext("link"): item for item in channel.iter("item")}
    assert items[a].findtext("title") == "Page A"
    assert items[a].findtext("description") == "About A & more."
    assert items[a].findtext(f"{{{ROR}}}keywords") == "alpha, first"
    assert items[b].findtext("title") == "Page B"
    assert items[b].findtext(f"{{{ROR}}}keywords") is None
    assert "title-missing" not in err


def test_cli_keeps_existing_unless_overwrite(
    web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = add_page(web, "/page", "Page title", "Page description")
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"loc": url, "title": "My title"}) + "\n", "utf-8")
    code, out, _ = cli(capsys, "convert", source, "--enrich", "-t", "jsonl", *http_flags())
    assert code == 0
    assert json.loads(out) == {
        "loc": url,
        "title": "My title",
        "description": "Page description",
        "keywords": ["Page title", "page"],
    }
    code, out, _ = cli(capsys, "convert", source, "--enrich", "--overwrite", "-t", "jsonl", *http_flags())
    assert code == 0
    assert json.loads(out)["title"] == "Page title"


def test_cli_without_enrich_fetches_nothing(web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = add_page(web, "/page", "Page")
    source = tmp_path / "urls.txt"
    source.write_text(url + "\n", "utf-8")
    code, out, _ = cli(capsys, "convert", source, "-t", "jsonl")
    assert (code, json.loads(out)) == (0, {"loc": url})
    assert web.hits("/page") == 0


def test_cli_overwrite_needs_enrich(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("https://example.com/\n", "utf-8")
    code, _, err = cli(capsys, "convert", source, "--overwrite", "-t", "jsonl")
    assert code == 2
    assert "--enrich" in err


def test_cli_failures_located_and_kept(web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = add_page(web, "/good", "Good")
    missing = web.url("/missing")
    source = tmp_path / "urls.txt"
    source.write_text(f"{missing}\n{good}\n", "utf-8")
    code, out, err = cli(capsys, "convert", source, "--enrich", "-t", "jsonl", *http_flags())
    assert code == 0
    assert [json.loads(line).get("title") for line in out.splitlines()] == [None, "Good"]
    (line,) = [line for line in err.splitlines() if "enrich-failed" in line]
    assert line.startswith(f"{source}:1: warning[enrich-failed]: ")
    assert missing in line
    code, _, err = cli(capsys, "convert", source, "--enrich", "--strict", "-t", "jsonl", *http_flags())
    assert code == 1
    assert "enrich-failed" in err


def test_cli_help_teaches_enrich(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "convert", "--help")
    assert code == 0
    assert "--enrich" in out and "--overwrite" in out
    assert "--enrich -t ror" in out  # an example in the epilog


# ------------------------------------------------------------------------------------------------ progress


def enrich_site(web: LocalSite, tmp_path: Path) -> Path:
    locs = [add_page(web, f"/p{i}", f"Page {i}") for i in range(5)]
    source = tmp_path / "urls.txt"
    source.write_text("\n".join([*locs, web.url("/missing")]) + "\n", "utf-8")
    return source


def test_progress_on_a_terminal(web: LocalSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = enrich_site(web, tmp_path)
    stderr = FakeTTY()
    monkeypatch.setattr(sys, "stderr", stderr)
    code = main(["convert", str(source), "--enrich", "-t", "jsonl", "-o", str(tmp_path / "out.jsonl"), *http_flags()])
    text = stderr.getvalue()
    assert code == 0, text
    assert "\r" in text
    assert " pages (" in text and "/s)" in text
    assert "1 failed" in text
    assert "warning[enrich-failed]" in text
    for match in re.finditer(re.escape(f"{source}:"), text):  # diagnostics start on a clean line
        assert match.start() == 0 or text[: match.start()].endswith(("\n", "\x1b[K"))
    # the line erased at the end, before the summary of the pages (5 pages served, 1 missing) and the last line
    summary, last = text.rsplit("\x1b[K", 1)[-1].splitlines()
    assert summary == f"{tmp_path / 'out.jsonl'}: info[enrich-summary]: 5 enriched, 1 failed: 1 HTTP 404"
    assert last.startswith("feedmap: wrote 6 entries")


def test_progress_silent_when_not_a_terminal(
    web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = enrich_site(web, tmp_path)
    code, _, err = cli(
        capsys, "convert", source, "--enrich", "-t", "jsonl", "-o", tmp_path / "out.jsonl", *http_flags()
    )
    assert code == 0
    assert "\r" not in err
    assert "pages (" not in err


def test_progress_silent_with_quiet(web: LocalSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = enrich_site(web, tmp_path)
    stderr = FakeTTY()
    monkeypatch.setattr(sys, "stderr", stderr)
    code = main(
        ["convert", str(source), "--enrich", "-q", "-t", "jsonl", "-o", str(tmp_path / "o.jsonl"), *http_flags()]
    )
    assert code == 0
    assert "\r" not in stderr.getvalue()
    assert "warning[enrich-failed]" in stderr.getvalue()  # warnings still shown


def test_progress_silent_when_output_is_the_terminal(
    web: LocalSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = enrich_site(web, tmp_path)
    stderr = FakeTTY()
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(sys, "stdout", FakeTTYOut())
    code = main(["convert", str(source), "--enrich", "-t", "jsonl", *http_flags()])
    assert code == 0
    assert "\r" not in stderr.getvalue()


def test_progress_line_with_total_and_failures() -> None:
    stream = FakeTTY()
    progress = Progress("enrich", enabled=True, stream=stream, unit="pages", total=4, every=1)
    seen = []
    for item in progress.wrap(range(4)):
        if item == 1:
            progress.clear()
            stream.write("a warning\n")
            progress.failure()
        seen.append(item)
    assert seen == [0, 1, 2, 3]
    text = stream.getvalue()
    assert "enrich: [#####...............] 1/4 pages (" in text
    assert "3/4 pages" in text and "1 failed" in text  # drawn again right after the interruption
    assert "\r\x1b[Ka warning\n" in text
    assert text.endswith("\r\x1b[K")  # erased at the end


def test_progress_disabled_writes_nothing() -> None:
    stream = io.StringIO()
    progress = Progress("enrich", enabled=True, stream=stream, every=1)
    assert list(progress.wrap([1, 2])) == [1, 2]
    progress.clear()
    progress.close()
    assert stream.getvalue() == ""


def test_library_document_metadata_kept() -> None:
    doc = Document(DocMeta(kind=DocKind.FEED, title="Feed"), [])
    enriched = enrich(doc)
    assert enriched.meta.title == "Feed"
    assert list(enriched) == []


# ------------------------------------------------------------------------------------- the summary, said once


def _summary_of(said: list[Diagnostic]) -> str:
    summaries = [one for one in said if one.code == "enrich-summary"]
    assert len(summaries) == 1 and said[-1] is summaries[0] and summaries[0].level is feedmap.Level.INFO
    return summaries[0].message


def test_the_summary_counts_each_outcome_by_reason(web: LocalSite) -> None:
    web.add("/robots.txt", "User-agent: *\nDisallow: /private/\n", content_type="text/plain")
    good = [add_page(web, f"/p{i}", f"Page {i}") for i in range(3)]
    bare = web.add("/bare", html(), content_type=HTML)  # a page with no title, description or keywords
    big = web.add("/big", html("Big", "x" * 3000), content_type=HTML)  # past page_max_bytes
    private = add_page(web, "/private/p", "Private")
    data = web.add("/data.json", "{}", content_type="application/json")
    missing = [web.url("/gone-1"), web.url("/gone-2")]
    complete = Entry(loc=add_page(web, "/done", "Done"), title="T", description="D", keywords=("k",))
    entries = [Entry(loc=loc) for loc in [*good, bare, big, private, data, *missing]] + [complete]
    said: list[Diagnostic] = []
    result = list(enrich(entries, Options(http=SURE, page_max_bytes=2000), on_diagnostic=said.append))
    assert [one.title for one in result[:3]] == ["Page 0", "Page 1", "Page 2"] and result[-1] == complete
    assert web.hits("/done") == 0  # every value there: not fetched
    assert _summary_of(said) == (
        "3 enriched, 1 unchanged (their page had nothing to add), 1 not fetched (title, description and keywords "
        "there already), 5 failed: 2 HTTP 404, 1 disallowed by robots.txt, 1 not HTML, 1 too big"
    )
    # what the summary counts as failed is what was said page by page
    assert sum(1 for one in said if one.code in ("enrich-failed", "not-html", "robots-disallowed")) == 5


def test_overwrite_fetches_every_page_and_a_clean_run_says_none_failed(web: LocalSite) -> None:
    loc = add_page(web, "/p", "Page")
    same = Entry(loc=loc, title="Page", description="About Page.", keywords=("Page", "page"))
    said: list[Diagnostic] = []
    list(enrich([same, Entry(loc=loc)], Options(http=SURE, overwrite=True), on_diagnostic=said.append))
    assert web.hits("/p") == 2
    assert _summary_of(said) == "1 enriched, 1 unchanged (their page had nothing to add), none failed"


def _mapped_site(folder: Path) -> Path:
    """An index of two children (read from ``folder`` through --map) whose pages are there too, or missing."""
    base = "https://www.example.com/"
    folder.mkdir()
    for name in ("a", "b", "c"):
        (folder / f"{name}.html").write_text(html(f"Page {name}", f"About {name}."), "utf-8")
    (folder / "one.xml").write_bytes(urlset(f"{base}a.html", f"{base}gone.html", f"{base}b.html"))
    (folder / "two.xml").write_bytes(urlset(f"{base}c.html", f"{base}lost.html"))
    body = "".join(f"<sitemap><loc>{base}{name}</loc></sitemap>" for name in ("one.xml", "two.xml"))
    (folder / "index.xml").write_text(f'<?xml version="1.0"?><sitemapindex xmlns="{SM}">{body}</sitemapindex>\n')
    return folder / "index.xml"


def test_the_command_says_the_summary_once_the_same_with_two_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = _mapped_site(tmp_path / "public")
    argv = [index, "--map", f"https://www.example.com/={index.parent}", "--enrich", "-t", "jsonl"]
    said = []
    for jobs in ("1", "2"):
        code, out, err = cli(capsys, "convert", *argv, "-o", tmp_path / "out.jsonl", "--jobs", jobs)
        assert code == 0
        said.append(err)
    assert said[0] == said[1]
    lines = [line for line in said[0].splitlines() if "enrich-summary" in line]
    assert lines == [f"{tmp_path / 'out.jsonl'}: info[enrich-summary]: 3 enriched, 2 failed: 2 file missing"]
    code, out, err = cli(capsys, "convert", *argv, "-o", tmp_path / "out.jsonl", "--cron")
    assert out == (
        f"feedmap convert: wrote 5 entries to {tmp_path / 'out.jsonl'} (jsonl); "
        "pages: 3 enriched, 2 failed: 2 file missing; 2 warnings, 0 errors\n"
    )
    assert [line.split(": ")[1] for line in err.splitlines()] == ["warning[enrich-failed]"] * 2
