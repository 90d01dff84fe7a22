"""Messages fit their caller: the library says what is wrong (with a stable code) and names no command-line flag;
the CLI adds the flag to use, chosen by the code, and prints exactly what it printed before."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from localsite import LocalSite

import feedmap
from feedmap import UnknownFormatError
from feedmap.cli import main
from feedmap.formats import _registry as registry

INDEX = (
    b'<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    b"<sitemap><loc>https://e.com/s.xml</loc></sitemap></sitemapindex>\n"
)
#: A command-line flag in a message: ``-t``, ``-f``, ``--max-bytes`` ...
FLAG = re.compile(r"(?<![\w-])(?:-[a-zA-Z]\b|--[a-z][a-z-]+)")


def _kind_changed(data: bytes, target: str) -> list[str]:
    summary = feedmap.convert(io.BytesIO(data), io.BytesIO(), target, feedmap.Options(follow=False))
    return [d.message for d in summary.diagnostics if d.code == "kind-changed"]


@pytest.mark.parametrize(("data", "target"), [(INDEX, "sitemap"), (b"https://e.com/a\n", "sitemapindex")])
def test_library_messages_name_no_flag(data: bytes, target: str) -> None:
    (message,) = _kind_changed(data, target)
    assert FLAG.search(message) is None, message


def test_an_unknown_format_error_is_built_from_what_is_wrong() -> None:
    exc = UnknownFormatError("is empty", source="a.xml", line=3, formats=["jsonl", "text"])
    assert (exc.what, exc.source, exc.line, exc.code, exc.formats) == (
        "is empty",
        "a.xml",
        3,
        "unknown-format",
        ("jsonl", "text"),
    )
    assert str(exc) == "a.xml: is empty; name the format (one of: jsonl, text)"
    assert FLAG.search(str(exc)) is None
    with pytest.raises(UnknownFormatError) as caught, feedmap.read(io.BytesIO(b"\n\n")):
        pass
    assert FLAG.search(str(caught.value)) is None
    assert caught.value.what == "is empty"


INDEX_AS_PAGES = (
    "error[kind-changed]: the entries are the child sitemaps of an index (read without following it); format 'sitemap' "
    "writes them as pages (write -t sitemapindex to keep an index, or follow the index to get its pages)"
)
PAGES_AS_INDEX = (
    "error[kind-changed]: the entries are pages (urlset); format 'sitemapindex' writes them as child sitemaps of an "
    "index (write -t sitemap to keep a list of pages)"
)
STRICT = " (strict mode stops at the first warning)"


@pytest.mark.parametrize(
    ("name", "data", "argv", "expected"),
    [
        ("index.xml", INDEX, ["--no-follow", "-t", "sitemap"], INDEX_AS_PAGES.replace("error[", "warning[")),
        ("index.xml", INDEX, ["--no-follow", "-t", "sitemap", "--strict"], INDEX_AS_PAGES + STRICT),
        ("pages.txt", b"https://e.com/a\n", ["-t", "sitemapindex"], PAGES_AS_INDEX.replace("error[", "warning[")),
        ("pages.txt", b"https://e.com/a\n", ["-t", "sitemapindex", "--strict"], PAGES_AS_INDEX + STRICT),
    ],
)
def test_the_cli_adds_the_flag_by_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, data: bytes, argv: list[str], expected: str
) -> None:
    source, out = tmp_path / name, tmp_path / "out.xml"
    source.write_bytes(data)
    code = main(["convert", str(source), "-o", str(out), "-q", *argv])
    assert capsys.readouterr().err.splitlines()[0] == f"{out}: {expected}"
    assert code == (1 if "--strict" in argv else 0)


def test_info_honours_max_line_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``feedmap info`` reads with the same options as ``convert`` (it took --max-line-bytes and ignored it)."""
    source = tmp_path / "x.jsonl"
    source.write_bytes(b'{"loc": "https://e.com/a-rather-long-url"}\n')
    assert main(["info", str(source), "--max-line-bytes", "10"]) == 0
    err = capsys.readouterr().err
    assert f"{source}:1: warning[line-too-long]: line longer than 10 bytes; skipped; --max-line-bytes raises" in err


HTML_PAGE = b"<!DOCTYPE html>\n<html><head><title>Home</title></head><body></body></html>\n"


@pytest.mark.parametrize(("format", "root"), [("sitemap", "urlset"), ("sitemapindex", "sitemapindex")])
def test_an_html_page_read_as_a_sitemap_names_discover_on_the_command_line_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], format: str, root: str
) -> None:
    """The library says what is wrong (the root element); the CLI adds how to find the site's sitemaps."""
    source = tmp_path / "page.html"
    source.write_bytes(HTML_PAGE)
    with pytest.raises(feedmap.ReadError) as caught, feedmap.read(source, format) as doc:
        list(doc.entries)
    assert caught.value.code == "wrong-root"
    assert caught.value.bare_message == f"the root element is <html>, not <{root}>"
    assert main(["convert", str(source), "-f", format, "-t", "text"]) == 1
    assert capsys.readouterr().err == (
        f"{source}:2: error[wrong-root]: the root element is <html>, not <{root}> (an HTML page: "
        "`feedmap discover SITE-URL` finds a site's sitemaps)\n"
    )


def test_another_wrong_root_gets_no_discover_advice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "a.xml"
    source.write_bytes(b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>\n')
    assert main(["convert", str(source), "-f", "sitemap", "-t", "text"]) == 1
    assert capsys.readouterr().err == f"{source}:2: error[wrong-root]: the root element is <svg>, not <urlset>\n"


INDEX_NOTE = "reading follows children (--map PREFIX=DIR, file: URLs) unless --no-follow"
RSS_NOTE = (
    "loc from link / permalink guid / Atom alternate; lastmod keeps its offset; --title --link --description "
    "--self-url for the channel"
)


@pytest.mark.parametrize("name", ["sitemap", "sitemapindex", "text", "jsonl", "rss", "ror"])
def test_format_descriptions_name_no_flag(name: str) -> None:
    assert FLAG.search(registry.get(name).description) is None


def test_feedmap_formats_says_the_index_notes_with_their_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["formats"]) == 0
    assert f"\n{'':<13} {INDEX_NOTE}\n" in capsys.readouterr().out
    assert main(["formats", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["sitemapindex"]["notes"] == INDEX_NOTE
    assert rows["rss"]["notes"] == RSS_NOTE


SM_NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def _index_of(*locs: str) -> str:
    children = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return f'<?xml version="1.0"?>\n<sitemapindex {SM_NS}>{children}</sitemapindex>\n'


PLURAL_CASES = {
    # name: (file name, content, convert options, the singular said, the plural it was)
    "duplicates-merged": ("a.txt", "https://e.com/a\nhttps://e.com/a\n", [], "1 repeated URL merged", "URLs merged"),
    "more-duplicates": (
        "b.txt",
        "".join(f"https://e.com/{n}\nhttps://e.com/{n}\n" for n in range(101)),
        [],
        "1 more repeat of other URLs",
        "1 more repeats",
    ),
    "relative-url-left-out": ("c.jsonl", '{"loc": "/relative"}\n', [], "1 entry without", "1 entries"),
    "doctype-ignored": (
        "d.xml",
        f'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY a "x">]>\n<urlset {SM_NS}><url><loc>https://e.com/</loc>'
        "</url></urlset>\n",
        [],
        "the 1 entity it declares",
        "1 entities",
    ),
    "more-repairs": (
        "e.xml",
        f'<?xml version="1.0"?>\n<urlset {SM_NS}><url><loc>https://e.com/{chr(0xFFFF) * 101}</loc></url></urlset>\n',
        [],
        "1 more invalid-character repair was made",
        "repairs were made",
    ),
    "index-too-deep": ("f.xml", _index_of("https://e.com/g.xml"), ["--max-depth", "1"], "than 1 index;", "1 indexes"),
}


@pytest.mark.parametrize("case", sorted(PLURAL_CASES))
def test_a_count_of_one_takes_the_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    name, content, options, singular, plural = PLURAL_CASES[case]
    (tmp_path / name).write_text(content, encoding="utf-8")
    (tmp_path / "g.xml").write_text(_index_of("https://e.com/h.xml"), encoding="utf-8")  # nested: f -> g -> h
    (tmp_path / "h.xml").write_text(f"<urlset {SM_NS}><url><loc>https://e.com/p</loc></url></urlset>", encoding="utf-8")
    main(["convert", str(tmp_path / name), "-t", "sitemap", "--map", f"https://e.com/={tmp_path}", *options])
    err = capsys.readouterr().err
    assert f"[{case}]" in err and singular in err and plural not in err, err


def test_more_than_one_redirect_takes_the_singular(web: LocalSite) -> None:
    web.add("/a", status=302, headers={"Location": web.url("/b")})
    web.add("/b", status=302, headers={"Location": web.url("/c")})
    web.add("/c", "https://e.com/\n", content_type="text/plain")
    options = feedmap.Options(http=feedmap.HttpSettings(max_redirects=1, retries=0))
    with pytest.raises(feedmap.FetchError) as caught, feedmap.read(web.url("/a"), options=options) as doc:
        list(doc.entries)
    assert caught.value.code == "too-many-redirects"
    assert "more than 1 redirect" in str(caught.value) and "redirects" not in str(caught.value)
