"""What a new user met on the command line (issue 9): each surprise, and its siblings, as a test.

Atom links (RFC 4287 4.2.7.2: a relation may be written as its IANA URI), the channel link of a feed that
has none, feed diagnostics on the line and under the name of the element as written, an HTML page given
as input, relative index children, CSV given as a text sitemap, kind changes, wording, and CI's corpus.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import index_xml, urlset_xml
from localsite import LocalSite, Route
from lxml import etree

import feedmap
from feedmap import Diagnostic, Reporter
from feedmap.cli import main

ATOM = "http://www.w3.org/2005/Atom"
IANA_ALTERNATE = "http://www.iana.org/assignments/relation/alternate"
SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
REPO_ROOT = Path(__file__).resolve().parent.parent
#: Breaks the XML before the first item: the feed is read by feedparser's lenient path.
BROKEN = "<x></y>"


def read(data: bytes, format: str | None = None) -> tuple[feedmap.DocMeta, list[feedmap.Entry], list[Diagnostic]]:
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), format=format, reporter=reporter) as doc:
        entries = list(doc.entries)
        return doc.meta, entries, reporter.diagnostics


def atom(entries: str, head: str = "", *, broken: bool = False) -> bytes:
    prolog = f'<?xml version="1.0"?>\n<feed xmlns="{ATOM}"><title>A</title><id>urn:uuid:60a76c80-d399</id>{head}'
    return f"{prolog}{BROKEN if broken else ''}\n{entries}\n</feed>\n".encode()


def rss(items: str, *, broken: bool = False) -> bytes:
    channel = "<title>C</title><link>https://www.example.com/</link><description>D</description>"
    channel += BROKEN if broken else ""
    return f'<?xml version="1.0"?>\n<rss version="2.0"><channel>{channel}\n{items}\n</channel></rss>\n'.encode()


# ------------------------------------------------------------------------------------------ Atom reading


@pytest.mark.parametrize("broken", [False, True], ids=["lxml", "feedparser"])
def test_an_iana_uri_relation_is_alternate(broken: bool) -> None:
    entry = (
        f'<entry><title>E</title><link rel="{IANA_ALTERNATE}" href="https://example.org/a"/><id>urn:x:1</id></entry>'
    )
    _, entries, diagnostics = read(atom(entry, broken=broken))
    assert [e.loc for e in entries] == ["https://example.org/a"]
    assert "loc-missing" not in [d.code for d in diagnostics]


@pytest.mark.parametrize("broken", [False, True], ids=["lxml", "feedparser"])
def test_an_iana_uri_relation_gives_the_feed_link(broken: bool) -> None:
    head = f'<link rel="{IANA_ALTERNATE}" href="https://example.org/"/>'
    meta, _, _ = read(atom('<entry><link href="https://example.org/a"/></entry>', head, broken=broken))
    assert meta.link == "https://example.org/"


@pytest.mark.parametrize("broken", [False, True], ids=["lxml", "feedparser"])
def test_an_iana_uri_of_another_relation_is_not_alternate(broken: bool) -> None:
    entry = '<entry><link rel="http://www.iana.org/assignments/relation/edit" href="https://example.org/e"/></entry>'
    _, entries, diagnostics = read(atom(entry, broken=broken))
    assert entries == []
    assert "loc-missing" in [d.code for d in diagnostics]


@pytest.mark.parametrize("broken", [False, True], ids=["lxml", "feedparser"])
def test_a_feed_without_a_link_has_no_channel_link_and_its_id_is_not_one(broken: bool, tmp_path: Path) -> None:
    meta, _, _ = read(atom('<entry><link href="https://example.org/a"/></entry>', broken=broken))
    assert meta.link is None
    source = tmp_path / "feed.xml"
    source.write_bytes(atom('<entry><link href="https://example.org/a"/></entry>', broken=broken))
    out = tmp_path / "out.rss"
    assert main(["convert", str(source), "-q", "-o", str(out)]) == 0
    assert "urn:uuid" not in out.read_text()
    assert "<link>https://example.org/</link>" in out.read_text()


# ------------------------------------------------------------------------- feed diagnostics: line and name


@pytest.mark.parametrize(
    ("element", "name"),
    [("<pubDate>garbage</pubDate>", "<pubDate>"), ("<dc:date>garbage</dc:date>", "<dc:date>")],
)
def test_a_feed_date_is_reported_on_its_line_under_its_own_name(element: str, name: str) -> None:
    items = f'<item xmlns:dc="http://purl.org/dc/elements/1.1/"><link>https://e.org/a</link>\n\n{element}</item>'
    _, entries, diagnostics = read(rss(items))
    (problem,) = [d for d in diagnostics if d.code == "lastmod-invalid"]
    assert problem.message.startswith(f"{name}:")
    assert problem.line == 5
    assert entries[0].origin is not None and entries[0].origin.line == 3


def test_an_atom_date_is_reported_on_its_line_as_published() -> None:
    _, _, diagnostics = read(atom('<entry><link href="https://e.org/a"/>\n<published>garbage</published></entry>'))
    (problem,) = [d for d in diagnostics if d.code == "lastmod-invalid"]
    assert problem.message.startswith("<published>:")
    assert problem.line == 4


def test_an_rss_date_read_by_feedparser_is_named_pubdate() -> None:
    _, _, diagnostics = read(rss("<item><link>https://e.org/a</link><pubDate>garbage</pubDate></item>", broken=True))
    (problem,) = [d for d in diagnostics if d.code == "lastmod-invalid"]
    assert problem.message.startswith("<pubDate>:")


def test_an_item_without_a_link_is_reported_on_its_line() -> None:
    _, _, diagnostics = read(rss("\n<item><title>No link</title></item>"))
    (problem,) = [d for d in diagnostics if d.code == "loc-missing"]
    assert problem.line == 4


# ------------------------------------------------------------------------------------- an HTML page given

PAGES = {
    "doctype": b"<!DOCTYPE html>\n<html><head><title>Hi</title></head><body><p>x</p></body></html>\n",
    "tag-soup": b'<html lang="en"><head><meta charset="utf-8"><title>x</title></head><body><br><p>&nbsp;</body>',
    "xhtml": b'<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head/><body/></html>',
    "doctype-only": b"<!-- c -->\n<!doctype HTML>\n<",
}


@pytest.mark.parametrize("page", sorted(PAGES))
def test_an_html_page_is_named_as_one_and_discover_suggested(
    page: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(PAGES[page])
    assert main(["convert", str(path), "-t", "jsonl"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{path}:")
    assert "error[html-page]: the input is an HTML page" in err
    assert "feedmap discover" in err
    assert "-f" not in err


def test_an_html_page_fetched_suggests_discovering_its_site(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    web.routes["/page"] = Route(PAGES["doctype"], content_type="text/html")
    assert main(["info", web.url("/page")]) == 1
    assert f"feedmap discover {web.url('/')}" in capsys.readouterr().err


def test_an_html_page_read_as_a_sitemap_says_it_is_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(PAGES["doctype"])
    assert main(["convert", str(path), "-f", "sitemap", "-t", "jsonl"]) == 1
    assert "HTML page" in capsys.readouterr().err


def test_an_unknown_root_is_reported_in_the_diagnostic_form(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a.svg"
    path.write_bytes(b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>')
    assert main(["info", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{path}:2: error[unknown-format]: the input has root element <svg>")
    assert "name the format with -f" in err


def test_binary_input_is_reported_in_the_diagnostic_form(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a.bin"
    path.write_bytes(b"\x00\x01binary")
    assert main(["info", str(path)]) == 1
    assert capsys.readouterr().err.startswith(f"{path}: error[unknown-format]: ")


# ------------------------------------------------------------------------------------- CI and the corpus


CORPUS_TESTS = """
import pytest

def test_asks_for_the_corpus(corpus_dir):
    pass

def test_misses_a_corpus_file():
    pytest.skip("bomb.bin is not in the corpus")

def test_skips_for_another_reason():
    pytest.skip("not on this platform")
"""


def run_inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *, require: bool) -> pytest.RunResult:
    monkeypatch.setenv("FEEDMAP_CORPUS", str(pytester.path / "no-corpus"))
    if require:
        monkeypatch.setenv("FEEDMAP_REQUIRE_CORPUS", "1")
    else:
        monkeypatch.delenv("FEEDMAP_REQUIRE_CORPUS", raising=False)
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-q")


def test_a_missing_corpus_skips_for_a_newcomer_and_fails_in_ci(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest((REPO_ROOT / "tests" / "conftest.py").read_text())
    pytester.makepyfile(test_corpus=CORPUS_TESTS)
    run_inner(pytester, monkeypatch, require=False).assert_outcomes(skipped=3)
    ci = run_inner(pytester, monkeypatch, require=True)
    ci.assert_outcomes(failed=1, errors=1, skipped=1)  # the fixture fails at setup; another skip stays one
    assert "FEEDMAP_REQUIRE_CORPUS" in ci.stdout.str()


def test_a_module_skipped_for_want_of_the_corpus_fails_in_ci(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest((REPO_ROOT / "tests" / "conftest.py").read_text())
    pytester.makepyfile(
        test_module='import pytest\npytest.skip("external corpus not found", allow_module_level=True)\n'
        "def test_never():\n    pass\n"
    )
    run_inner(pytester, monkeypatch, require=False).assert_outcomes(skipped=1)
    run_inner(pytester, monkeypatch, require=True).assert_outcomes(errors=1)


def test_ci_fails_at_once_when_the_corpus_is_missing(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    (clone / ".ci").mkdir(parents=True)
    shutil.copy2(REPO_ROOT / ".ci" / "run", clone / ".ci" / "run")
    env = {key: value for key, value in os.environ.items() if key != "FEEDMAP_CORPUS"}
    done = subprocess.run(
        ["bash", str(clone / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode != 0
    assert "corpus is missing" in done.stderr
    assert not (clone / ".venv").exists()


def test_ci_requires_the_corpus_it_names() -> None:
    script = (REPO_ROOT / ".ci" / "run").read_text()
    assert "export FEEDMAP_CORPUS=" in script and "FEEDMAP_REQUIRE_CORPUS=1" in script


#: The docs' pictures (a screenshot of the report page): bytes, not text that could name a path.
IMAGES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico"}


def test_the_readme_and_the_docs_refer_to_nothing_outside_the_repository() -> None:
    for page in [REPO_ROOT / "README.md", REPO_ROOT / "mkdocs.yml", *sorted((REPO_ROOT / "docs").rglob("*"))]:
        if page.is_file() and "__pycache__" not in page.parts and page.suffix not in IMAGES:
            text = page.read_text(encoding="utf-8")
            assert "/work/" not in text, page
            assert "../" not in text.replace("](../", "]("), page  # a link between two pages of the site is fine


# ----------------------------------------------------------------------------- index children: relative, failed


def read_url(url: str) -> tuple[list[str], list[Diagnostic]]:
    reporter = Reporter()
    with feedmap.read(url, reporter=reporter, options=feedmap.Options(http=feedmap.HttpSettings(retries=0))) as doc:
        return [entry.loc for entry in doc.entries], reporter.diagnostics


def test_a_relative_child_of_a_fetched_index_is_resolved_against_its_url(web: LocalSite) -> None:
    web.add("/sub/child.xml", urlset_xml("https://www.example.com/a"))
    web.add("/root.xml", urlset_xml("https://www.example.com/b"))
    index = web.add("/sub/index.xml", index_xml("child.xml", "/root.xml"))
    locs, diagnostics = read_url(index)
    assert locs == ["https://www.example.com/a", "https://www.example.com/b"]
    resolved = [d for d in diagnostics if d.code == "relative-url-resolved"]
    assert [(d.line, web.url("/sub/child.xml") in d.message) for d in resolved] == [(3, True), (4, False)]
    assert web.url("/root.xml") in resolved[1].message
    assert "child-off-site" not in [d.code for d in diagnostics]


def test_a_relative_child_resolved_off_site_is_still_refused(web: LocalSite) -> None:
    web.add("/a.xml", urlset_xml("https://www.example.com/a"))
    index = web.add("/index.xml", index_xml("//elsewhere.invalid/x.xml", "a.xml"))
    locs, diagnostics = read_url(index)
    assert locs == ["https://www.example.com/a"]
    assert "child-off-site" in [d.code for d in diagnostics]


def test_a_relative_child_of_a_local_index_is_reported_as_relative(tmp_path: Path) -> None:
    (tmp_path / "pages.xml").write_bytes(urlset_xml("https://www.example.com/a"))
    index = tmp_path / "index.xml"
    index.write_bytes(index_xml("/sitemap1.xml", (tmp_path / "pages.xml").as_uri()))
    reporter = Reporter()
    with feedmap.read(index, reporter=reporter) as doc:
        assert [entry.loc for entry in doc.entries] == ["https://www.example.com/a"]
    (refused,) = [d for d in reporter.diagnostics if d.code == "child-not-read"]
    assert "relative URL" in refused.message and refused.line == 3
    assert "off-site" not in refused.code


def test_an_index_whose_every_child_fails_exits_1_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "index.xml"
    index.write_bytes(index_xml((tmp_path / "gone1.xml").as_uri(), (tmp_path / "gone2.xml").as_uri()))
    out = tmp_path / "out.txt"
    assert main(["convert", str(index), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("warning[child-unreadable]") == 2
    assert f"{index}: error[no-child-read]: nothing was read from the index" in err
    assert not out.exists()
    assert main(["info", str(index)]) == 1


def test_an_index_with_one_child_read_exits_0(tmp_path: Path) -> None:
    (tmp_path / "pages.xml").write_bytes(urlset_xml("https://www.example.com/a"))
    index = tmp_path / "index.xml"
    index.write_bytes(index_xml((tmp_path / "gone.xml").as_uri(), (tmp_path / "pages.xml").as_uri()))
    assert main(["convert", str(index), "-t", "text", "-q"]) == 0


def test_an_index_whose_children_are_all_left_out_by_since_is_no_failure(tmp_path: Path) -> None:
    index = tmp_path / "index.xml"
    index.write_bytes(
        f'<sitemapindex xmlns="{SM}"><sitemap><loc>{(tmp_path / "old.xml").as_uri()}</loc>'
        "<lastmod>2001-01-01</lastmod></sitemap></sitemapindex>".encode()
    )
    assert main(["convert", str(index), "-t", "text", "--since", "2024-01-01", "-q"]) == 0


def test_an_empty_child_read_is_something_read(tmp_path: Path) -> None:
    (tmp_path / "empty.xml").write_bytes(urlset_xml())
    index = tmp_path / "index.xml"
    index.write_bytes(index_xml((tmp_path / "empty.xml").as_uri()))
    assert main(["convert", str(index), "-t", "text", "-q"]) == 0


# ------------------------------------------------------------------------------------------- CSV is not text
# (without a header naming loc or url: with one, it is the csv format's, tests/test_csv.py)


@pytest.mark.parametrize(
    "csv",
    [
        b"https://a.example/x,2024-01-01\nhttps://a.example/y,2024-01-02\n",
        b"date,address\r\nhttps://a.example/x,2024-01-01T10:00:00+02:00\r\n",
        b'https://a.example/x, "Title, with a comma"\n',
        b"https://a.example/x, 0.8\n",
        b"https://a.example/x,daily,https://a.example/y\n",
    ],
    ids=["date", "header", "quoted", "number", "changefreq-url"],
)
def test_a_csv_file_is_refused_as_one(csv: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "urls.csv"
    path.write_bytes(csv)
    assert main(["convert", str(path), "-t", "jsonl"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "error[csv-input]: this looks like a CSV file" in captured.err


def test_a_csv_row_after_urls_is_skipped_and_reported() -> None:
    data = b"https://a.example/y\nhttps://a.example/x,2024-01-01\nhttps://a.example/a,b,c\n"
    _, entries, diagnostics = read(data, format="text")
    assert [e.loc for e in entries] == ["https://a.example/y", "https://a.example/a,b,c"]
    assert [(d.code, d.line) for d in diagnostics] == [("csv-line", 2)]


@pytest.mark.parametrize(
    "url",
    [
        "https://a.example/x,y",
        "https://a.example/a,b,c/d",
        "https://a.example/p?q=1,2",
        "https://maps.example/@52.5,13.4,12z",
        "https://a.example/page,2",
    ],
)
def test_a_comma_inside_a_url_is_kept(url: str) -> None:
    _, entries, diagnostics = read(f"{url}\n".encode(), format="text")
    assert [e.loc for e in entries] == [url]
    assert diagnostics == []


# ----------------------------------------------------------------------- placeholder titles do not read back


@pytest.mark.parametrize("via", ["ror", "rss"])
def test_a_round_trip_through_a_feed_gains_no_title(via: str, tmp_path: Path) -> None:
    source = tmp_path / "sitemap.xml"
    source.write_bytes(urlset_xml("https://www.example.com/a", "https://www.example.com/b"))
    feed = tmp_path / f"feed.{via}.xml"
    assert main(["convert", str(source), "-t", via, "-q", "-o", str(feed)]) == 0
    assert "<title>https://www.example.com/a</title>" in feed.read_text()  # RSS needs a title or a description
    for broken in (False, True) if via == "rss" else (False,):  # ROR is read by its own reader
        data = feed.read_bytes()
        if broken:  # the feedparser path too
            data = data.replace(b"<channel>", b"<channel><x></y>", 1)
        _, entries, _ = read(data)
        assert [(e.loc, e.title) for e in entries] == [
            ("https://www.example.com/a", None),
            ("https://www.example.com/b", None),
        ]


def test_a_title_that_is_the_url_is_filled_by_enrich(tmp_path: Path) -> None:
    site = tmp_path / "public"
    site.mkdir()
    (site / "a.html").write_bytes(b"<html><head><title>Page A</title></head></html>")
    feed = tmp_path / "feed.xml"
    feed.write_bytes(
        rss("<item><title>https://www.example.com/a.html</title><link>https://www.example.com/a.html</link></item>")
    )
    out = tmp_path / "out.jsonl"
    args = ["convert", str(feed), "--enrich", "--map", f"https://www.example.com/={site}", "-t", "jsonl", "-q"]
    assert main([*args, "-o", str(out)]) == 0
    assert '"title":"Page A"' in out.read_text()


def test_a_real_title_is_kept() -> None:
    _, entries, _ = read(
        rss("<item><title>https://www.example.com/other</title><link>https://www.example.com/a</link></item>")
    )
    assert entries[0].title == "https://www.example.com/other"


def test_the_untitled_count_agrees_with_its_number(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = tmp_path / "sitemap.xml"
    source.write_bytes(urlset_xml("https://www.example.com/a"))
    assert main(["convert", str(source), "-t", "ror"]) == 0
    err = capsys.readouterr().err
    assert "1 entry without a title" in err and "1 entries" not in err


# ----------------------------------------------------------------------------------------------- kind changes

INDEX = index_xml("https://www.example.com/s1.xml", "https://www.example.com/s2.xml")


def convert_cli(tmp_path: Path, data: bytes, *args: str) -> tuple[int, str]:
    source = tmp_path / "in.xml"
    source.write_bytes(data)
    return main(["convert", str(source), *args]), str(source)


def test_an_index_read_without_following_is_written_to_xml_as_an_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.xml"
    code, _ = convert_cli(tmp_path, INDEX, "--no-follow", "-o", str(out))
    assert code == 0
    assert out.read_text().count("<sitemap><loc>") == 2 and "<urlset" not in out.read_text()
    err = capsys.readouterr().err
    assert "kind-changed" not in err
    assert f"wrote 2 entries to {out} (sitemapindex)" in err


def test_pages_are_written_to_xml_as_a_sitemap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.xml"
    assert convert_cli(tmp_path, urlset_xml("https://www.example.com/a"), "-o", str(out))[0] == 0
    assert "<urlset" in out.read_text()
    assert f"wrote 1 entry to {out} (sitemap)" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["sitemap", "rss", "ror"])
def test_an_index_written_as_pages_is_reported(target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert convert_cli(tmp_path, INDEX, "--no-follow", "-t", target)[0] == 0
    assert capsys.readouterr().err.count("warning[kind-changed]: the entries are the child sitemaps") == 1
    assert convert_cli(tmp_path, INDEX, "--no-follow", "-t", target, "--strict")[0] == 1


@pytest.mark.parametrize(
    "data", [urlset_xml("https://www.example.com/a"), rss("<item><link>https://e.org/a</link></item>")]
)
def test_pages_written_as_an_index_are_reported(
    data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert convert_cli(tmp_path, data, "-t", "sitemapindex")[0] == 0
    assert "warning[kind-changed]: the entries are pages" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("data", "args"),
    [
        (INDEX, ["--no-follow", "-t", "jsonl"]),
        (INDEX, ["--no-follow", "-t", "text"]),
        (INDEX, ["--no-follow", "-t", "sitemapindex"]),
        (rss("<item><link>https://e.org/a</link></item>"), ["-t", "sitemap"]),
        (urlset_xml("https://www.example.com/a"), ["-t", "rss"]),
    ],
    ids=["index-jsonl", "index-text", "index-index", "feed-sitemap", "sitemap-rss"],
)
def test_keeping_the_kind_is_not_reported(
    data: bytes, args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert convert_cli(tmp_path, data, *args)[0] == 0
    assert "kind-changed" not in capsys.readouterr().err


def test_the_library_chooses_the_format_by_the_kind_read() -> None:
    sink = io.BytesIO()
    summary = feedmap.convert(
        io.BytesIO(INDEX),
        sink,
        format=lambda kind: "sitemapindex" if kind.value == "index" else "sitemap",
        options=feedmap.Options(follow=False),
    )
    assert summary.format == "sitemapindex"
    assert b"<sitemapindex" in sink.getvalue()


@pytest.mark.parametrize(
    ("args", "root"),
    [(["-o", "out.atom"], "feed"), (["-o", "feed.ATOM"], "feed"), (["-t", "rss", "-o", "out.atom"], "rss")],
)
def test_an_atom_output_name_writes_atom_unless_t_says_otherwise(args: list[str], root: str, tmp_path: Path) -> None:
    """``.atom`` names the Atom writer (it once refused: feedmap wrote no Atom); ``-t`` still chooses."""
    args = [arg if not arg.lower().endswith(".atom") else str(tmp_path / arg) for arg in args]
    assert convert_cli(tmp_path, urlset_xml("https://www.example.com/a"), *args)[0] == 0
    (written,) = [path for path in tmp_path.iterdir() if path.suffix.lower() == ".atom"]
    assert etree.QName(etree.fromstring(written.read_bytes())).localname == root


# -------------------------------------------------------------------------------------------------- wording


def write_file(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_strict_says_what_lenient_reading_would_have_done(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_file(tmp_path, "rel.xml", urlset_xml("/relative"))
    assert main(["convert", source, "-t", "text", "--strict"]) == 1
    err = capsys.readouterr().err
    assert "(strict mode stops at the first warning; lenient reading: kept as written (left out of XML output))" in err
    assert "; kept as written (strict" not in err


def test_strict_on_a_message_without_a_repair_keeps_it_whole() -> None:
    from feedmap._core.errors import strict_message

    assert strict_message("no entries") == "no entries (strict mode stops at the first warning)"


def test_a_timeout_names_the_one_limit_that_was_hit(web: LocalSite, capsys: pytest.CaptureFixture[str]) -> None:
    url = web.add("/slow.xml", urlset_xml("https://www.example.com/a"), delay=3)
    assert main(["convert", url, "-t", "text", "--timeout", "0.5", "--retries", "0"]) == 2
    err = capsys.readouterr().err
    assert "no answer within 0.5 s" in err
    assert "0.5/0.5" not in err and "connect/read" not in err


@pytest.mark.parametrize("command", ["convert", "info"])
def test_an_unknown_flag_after_a_command_prints_that_commands_usage(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_file(tmp_path, "s.xml", urlset_xml("https://www.example.com/a"))
    assert main([command, source, "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: feedmap {command} ")
    assert f"feedmap {command}: error: unrecognized arguments: --bogus" in err


def test_an_unknown_flag_before_a_command_prints_the_top_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--bogus"]) == 2
    assert capsys.readouterr().err.startswith("usage: feedmap [-h]")


def test_quiet_means_warnings_only_for_info_as_for_convert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = b'<urlset xmlns="%s"><url><loc> https://www.example.com/a </loc></url>\n<url><loc>/b</loc></url></urlset>'
    source = write_file(tmp_path, "s.xml", data % SM.encode())
    for command in (["convert", source, "-t", "text", "-q"], ["info", source, "-q"]):
        assert main(command) == 0
        err = capsys.readouterr().err
        assert "warning[relative-url]" in err, command
        assert "info[" not in err, command


def test_info_on_a_followed_index_says_its_entries_are_its_childrens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_file(tmp_path, "pages.xml", urlset_xml("https://www.example.com/a"))
    index = write_file(tmp_path, "index.xml", index_xml((tmp_path / "pages.xml").as_uri()))
    assert main(["info", index, "-q"]) == 0
    out = capsys.readouterr().out
    assert "format:      sitemapindex" in out
    assert "kind:        urlset (the entries of the index's children, followed)" in out
    assert main(["info", index, "-q", "--json"]) == 0
    described = json.loads(capsys.readouterr().out)
    assert (described["format"], described["kind"], described["followed"]) == ("sitemapindex", "urlset", True)
    assert main(["info", index, "-q", "--json", "--no-follow"]) == 0
    assert json.loads(capsys.readouterr().out)["followed"] is False


def test_info_counts_agree_with_their_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = f'<urlset xmlns="{SM}"><url><loc>/a</loc><lastmod>2024-01-01</lastmod></url></urlset>'.encode()
    assert main(["info", write_file(tmp_path, "s.xml", data), "-q"]) == 0
    out = capsys.readouterr().out
    assert "(1 of 1 entry has one)" in out
    assert "1 warning, 0 notes" in out
    assert "1 entries" not in out and "1 warnings" not in out


# ---------------------------------------------------------------------------------------- info's lastmod span

MIXED_DATES = [
    "2024-01-01",
    "2023-12-31T23:00:00-05:00",
    "2024-01-01T00:00:00Z",
    "2024-06-01T00:00:00+02:00",
    "2024-06-01T00:00:00.5+02:00",
    "2024-05-31T22:00:00.5Z",
    "2024",
    "2024-02",
    "2023-12-31T20:00-05:00",
    "2024-06-01T09:00:00+09:00",
]


def brute_span(texts: list[str]) -> tuple[str, str]:
    """The earliest and latest in the W3CDate order (by instant, a tie by precision then text), the same
    whatever the order they are listed in."""
    dates = [feedmap.W3CDate(text) for text in texts]
    return min(dates).text, max(dates).text


@pytest.mark.parametrize("order", ["as-listed", "reversed", "rotated"])
def test_info_finds_the_lastmod_span_across_shapes_and_zones(
    order: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = {"as-listed": MIXED_DATES, "reversed": MIXED_DATES[::-1], "rotated": MIXED_DATES[3:] + MIXED_DATES[:3]}[
        order
    ]
    body = "".join(
        f"<url><loc>https://www.example.com/{n}</loc><lastmod>{t}</lastmod></url>" for n, t in enumerate(texts)
    )
    source = write_file(tmp_path, "s.xml", f'<urlset xmlns="{SM}">{body}</urlset>'.encode())
    assert main(["info", source, "--json", "-q"]) == 0
    described = json.loads(capsys.readouterr().out)
    assert (described["lastmod_min"], described["lastmod_max"]) == brute_span(texts)


def test_discover_tree_resolves_a_relative_child_against_its_index(web: LocalSite) -> None:
    from feedmap import sitemap_tree

    web.add("/sub/child.xml", urlset_xml("https://www.example.com/a"))
    index = web.add("/sub/index.xml", index_xml("child.xml"))
    reporter = Reporter()
    root = sitemap_tree(index, feedmap.Options(http=feedmap.HttpSettings(retries=0)), reporter=reporter)
    assert [(node.url, node.code) for _, node in root.walk()] == [(index, None), (web.url("/sub/child.xml"), None)]
    assert root.urls == 1
    (resolved,) = [d for d in reporter.diagnostics if d.code == "relative-url-resolved"]
    assert resolved.line == 3


@pytest.mark.parametrize(("unit", "one", "two"), [("entries", "1 entry", "2 entries"), ("pages", "1 page", "2 pages")])
def test_the_progress_line_agrees_with_its_count(unit: str, one: str, two: str) -> None:
    from feedmap.cli._common import Progress

    progress = Progress("feedmap convert", enabled=False, unit=unit, stream=io.StringIO())
    progress.count = 1
    assert progress.line(progress.started + 1).startswith(f"feedmap convert: {one} (")
    progress.count = 2
    assert progress.line(progress.started + 1).startswith(f"feedmap convert: {two} (")
