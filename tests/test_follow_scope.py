"""A remote document never makes feedmap read off its site (issue 17, point 1, and its siblings).

sitemaps.org "Sitemap file location": an index lists only sitemaps of its own site (scheme, host and port).
Every command that opens what a remote document names (``validate``, ``convert``, ``info``, ``discover
--tree``, ``diff``, ``--map``, ``--enrich``) keeps one rule set: a child on another host, a child redirected
to another host and a ``file:`` child are not read.  A second server on 127.0.0.2 must see no request at
all, and a file in ``tmp_path`` named by a remote document must not reach any output.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import index_xml, urlset_xml
from conftest import run as run_cli
from localsite import LocalSite

import feedmap

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
#: In the content of every sitemap that must not be read: it appears in an output only if one was.
MARKER = "never-read-marker"
FAST = feedmap.HttpSettings(connect_timeout=2.0, read_timeout=3.0, deadline=10.0, retries=0, backoff=0.01)


@dataclass
class Hostile:
    """A remote index on ``web`` naming one good child and three it must not read."""

    web: LocalSite
    other: LocalSite
    index: str
    good: str
    off_site: str
    redirected: str
    local: str

    def other_requests(self) -> int:
        return sum(self.other.counts.values())


@pytest.fixture
def hostile(web: LocalSite, tmp_path: Path) -> Iterator[Hostile]:
    secret = tmp_path / "secret.xml"
    secret.write_bytes(urlset_xml(f"{web.url('/')}{MARKER}-file page"))
    with LocalSite(host="127.0.0.2") as other:
        off_site = other.add("/leaf.xml", urlset_xml(f"{other.url('/')}{MARKER}-other page"))
        redirected = web.add("/moved.xml", status=302, headers={"Location": off_site})
        good = web.add("/good.xml", urlset_xml(web.url("/a"), web.url("/b")))
        index = web.add("/index.xml", index_xml(good, off_site, redirected, secret.as_uri()))
        web.add("/robots.txt", f"Sitemap: {index}\n", content_type="text/plain")
        yield Hostile(web, other, index, good, off_site, redirected, secret.as_uri())


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """:func:`conftest.run` with short HTTP bounds; stdout and stderr together."""
    code, out, err = run_cli(capsys, *argv, "--timeout", "3", "--retries", "0")
    return code, out + err


def test_validate_reads_no_child_off_the_index_site(hostile: Hostile) -> None:
    report = feedmap.validate(hostile.index, options=feedmap.Options(http=FAST))
    assert hostile.other_requests() == 0
    assert MARKER not in " ".join(finding.message for finding in report.findings)
    refused = {(f.code, f.line) for f in report.findings if f.source == hostile.index}
    assert {("child-off-site", 4), ("child-off-site", 5), ("child-off-site", 6)} <= refused
    assert {f.source for f in report.findings} <= {hostile.index}
    assert report.files == 2  # the index and its good child


def test_validate_on_the_command_line_reads_no_child_off_site(
    hostile: Hostile, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(capsys, "validate", hostile.index)
    assert code == 1  # child-off-site is an error
    assert hostile.other_requests() == 0 and MARKER not in out
    assert out.count("error[child-off-site]") == 3


def test_validate_json_reads_no_child_off_site(hostile: Hostile, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "validate", "--json", hostile.index)
    found = json.loads(out.splitlines()[0])
    assert code == 1 and hostile.other_requests() == 0 and MARKER not in out
    assert [f["code"] for f in found["findings"]].count("child-off-site") == 3


@pytest.mark.parametrize("command", [["convert", "-t", "text"], ["info"], ["discover", "--tree"]])
def test_every_command_following_an_index_stays_on_its_site(
    hostile: Hostile, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    target = hostile.web.base if command[0] == "discover" else hostile.index
    code, out = run(capsys, *command, target)
    assert hostile.other_requests() == 0
    assert MARKER not in out
    assert code in (0, 1)
    if command[0] == "convert":
        assert hostile.web.url("/a") in out and hostile.web.url("/b") in out  # the good child was read


def test_diff_of_a_remote_index_stays_on_its_site(hostile: Hostile, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "diff", hostile.good, hostile.index)
    assert hostile.other_requests() == 0 and MARKER not in out
    assert out.count("warning[child-off-site]") == 3 and code == 2  # diff: an input not read completely


def test_a_map_of_another_host_does_not_make_its_child_readable(
    hostile: Hostile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A child off the index's site is refused before --map could read it from disk."""
    mapped = tmp_path / "other"
    mapped.mkdir()
    (mapped / "leaf.xml").write_bytes(urlset_xml(f"https://x.example/{MARKER}-mapped"))
    for command in (["validate"], ["convert", "-t", "text"]):
        _code, out = run(capsys, *command, hostile.index, "--map", f"{hostile.other.base}/={mapped}")
        assert MARKER not in out and hostile.other_requests() == 0
        assert "child-off-site" in out


def test_a_mapped_index_is_remote_for_its_children(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An index read through --map has its site's URL: a file: child is as off-site as from the network."""
    secret = tmp_path / "secret.xml"
    secret.write_bytes(urlset_xml(f"https://x.example/{MARKER}-file"))
    build = tmp_path / "public"
    build.mkdir()
    (build / "good.xml").write_bytes(urlset_xml("https://example.com/a"))
    (build / "index.xml").write_bytes(index_xml("https://example.com/good.xml", secret.as_uri()))
    for command in (["validate"], ["convert", "-t", "text"], ["info"]):
        _code, out = run(capsys, *command, "https://example.com/index.xml", "--map", f"https://example.com/={build}")
        assert MARKER not in out, command
        assert "child-off-site" in out, command


def test_a_local_index_may_name_local_files(tmp_path: Path) -> None:
    """The rule is about remote documents: a local index's file: children are validated, as convert reads them."""
    child = tmp_path / "child.xml"
    child.write_bytes(urlset_xml("https://example.com/a b"))
    (tmp_path / "index.xml").write_bytes(index_xml(child.as_uri()))
    report = feedmap.validate(tmp_path / "index.xml")
    assert report.files == 2 and "loc-not-escaped" in [f.code for f in report.findings]


def test_enrich_never_reads_a_file_named_by_a_remote_sitemap(
    web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.html"
    page.write_text(f"<html><head><title>{MARKER}</title></head></html>", encoding="utf-8")
    sitemap = web.add("/sitemap.xml", urlset_xml(page.as_uri(), web.url("/a")))
    web.add("/a", "<html><head><title>Page A</title></head></html>", content_type="text/html")
    code, out = run(capsys, "convert", sitemap, "-t", "jsonl", "--enrich")
    assert MARKER not in out
    assert "Page A" in out and "enrich-failed" in out
    assert code in (0, 1)


def test_a_remote_index_cannot_probe_local_paths(
    web: LocalSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file: child of a remote index is refused before its path is looked at: what the path is (here a
    FIFO, which a stat tells apart) is never said, nor could opening it block."""
    fifo = tmp_path / "fifo.xml"
    os.mkfifo(fifo)
    good = web.add("/good.xml", urlset_xml(web.url("/a")))
    index = web.add("/index.xml", index_xml(good, fifo.as_uri()))
    for command in (["convert", "-t", "text"], ["validate"], ["info"]):
        _code, out = run(capsys, *command, index)
        assert "child-off-site" in out, command
        assert "regular file" not in out, command


def test_validate_reads_a_loc_holding_an_element_as_convert_does(
    web: LocalSite, capsys: pytest.CaptureFixture[str]
) -> None:
    """``<loc>URL<x/>more</loc>``: lxml's text stops at ``<x/>``; the readers take no value from it, and
    validate neither follows the text before the element as a child nor counts it a valid loc."""
    child = web.add("/child.xml", urlset_xml(web.url("/a")))
    index = web.add("/index.xml", index_xml(f"{child}<x/>-rest"))
    report = feedmap.validate(index, options=feedmap.Options(http=FAST))
    assert web.hits("/child.xml") == 0
    codes = {(finding.code, finding.line) for finding in report.findings}
    assert {("unknown-element", 3), ("loc-missing", 3)} <= codes
    code, out = run(capsys, "convert", index, "-t", "text")
    assert web.hits("/child.xml") == 0 and "warning[unknown-element]" in out, (code, out)
