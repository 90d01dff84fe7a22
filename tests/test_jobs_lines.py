"""``--jobs N`` writing a text sitemap: the workers filter, check and make the lines, the run drops the repeats.

For an index written as one text sitemap, a worker runs the steps that look at one entry at a time (the entry
filters, the web URL check) on what it reads, and sends the locs of the entries it kept; the run keeps the set of
the locs written, the fields found and the filters' counts, and writes the lines.  These tests read indexes whose
children hold every shape (thousands of URLs, so that batches and the writer's batches fill; repeats in a child
and across children; non-web, relative, non-ASCII and not-URI locs; feeds and JSON lines children with fields a
text sitemap cannot hold; a child that breaks half way, one missing, a nested index) with ``--jobs 1`` and
``--jobs 2``, with and without filters, ``--strict``, ``--keep-urls``, to a file, to stdout and gzipped, and
compare every output of the command line byte for byte.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from conftest import SITEMAP_NS, index_xml, run_in

import feedmap
from feedmap import Options, W3CDate

SITE = "https://example.com/"

#: The entries of a worker's batch, and the lines of the writer's (the places where they end matter).
BATCH, WRITER_BATCH = 2048, 4096


def _url(i: int) -> str:
    """A ``<url>`` whose shape depends on ``i``: plain runs, fields in some, locs of every kind now and then."""
    loc = f"{SITE}p/{i}.html"
    if i % 997 == 13:
        loc = "javascript:alert(1)"  # non-web-url: kept in a text sitemap, with a warning
    elif i % 1499 == 7:
        loc = f"relative/{i}.html"  # resolved against the child's URL
    elif i % 1201 == 3:
        loc = f"{SITE}caf\u00e9/{i}"  # an IRI: written as read, its URI the key of the repeats
    elif i % 1301 == 5:
        loc = f"{SITE}100%/{i}"  # not a URI as written
    elif i % 1103 == 11:
        loc = f"{SITE}%C3%A9t%C3%A9/{i}"  # percent-encoded: a URI, its batch still looked at in columns
    elif i % 1607 == 1:
        loc = f"{SITE}p/{i}#a#b"  # a second '#': not a URI
    elif i % 1409 == 9:
        loc = f"{SITE}p/{i - 9}.html"  # a repeat in the same child, a few entries later
    fields = [f"<loc>{loc}</loc>"]
    if i % 7:
        fields.append(f"<lastmod>2024-{1 + i % 12:02d}-{1 + i % 28:02d}</lastmod>")
    if i % 701 == 5:
        fields.append("<lastmod>2024-02-30</lastmod>")
    if i >= 2 * BATCH and i % 3 == 0:
        fields.append("<changefreq>weekly</changefreq>")
    return f"<url>{''.join(fields)}</url>"


def _urlset(first: int, count: int, url: object = _url) -> str:
    rows = "\n".join(url(i) for i in range(first, first + count))  # type: ignore[operator]
    return f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}">\n{rows}\n</urlset>\n'


def _feed() -> str:
    items = "".join(
        f"<item><title>item {i}</title><link>{SITE}p/{i}.html</link><description>about {i}</description></item>"
        for i in range(0, 90, 3)
    )
    channel = f"<channel><title>t</title><link>{SITE}</link>{items}</channel>"
    return f'<?xml version="1.0"?>\n<rss version="2.0">{channel}</rss>\n'


def _lines() -> str:
    rows = [json.dumps({"loc": f"{SITE}j/{i}.html", "keywords": ["a"] if i % 3 == 0 else []}) for i in range(50)]
    return "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lines") / "site"
    (folder / "nested").mkdir(parents=True)
    (folder / "big.xml").write_text(_urlset(0, 4 * BATCH + 300))
    (folder / "again.xml").write_text(_urlset(BATCH - 100, 2 * BATCH + 7))  # big.xml's URLs again, other lines
    (folder / "feed.xml").write_text(_feed())
    echo = _urlset(0, 1090, lambda i: f"<url><loc>{SITE}p/{i * 11}.html</loc><priority>0.5</priority></url>")
    (folder / "echo.xml").write_text(echo)  # urls.txt's URLs again: only repeats hold a priority, not "dropped"
    zero = _urlset(0, 30, lambda i: f"<url><loc>{SITE}z/{i}</loc><priority>0.0</priority></url>")
    (folder / "zero.xml").write_text(zero)  # a priority of 0.0: the watch of the fields sees no value
    (folder / "lines.jsonl").write_text(_lines())
    urls = "".join(f"{SITE}p/{i}.html\n" for i in range(0, 12000, 11))
    spelled = f"{SITE}caf%C3%A9/3\n{SITE}100%25/5\n{SITE}p/1608#a%23b\n"  # big.xml's not-URI locs as URIs: repeats
    (folder / "urls.txt").write_text(urls + spelled + "not a url\n")
    broken = _urlset(20000, 3000).replace("</urlset>\n", "<url><loc>")  # breaks after 3,000 entries
    (folder / "broken.xml").write_text(broken)
    (folder / "nested" / "more.xml").write_text(_urlset(30000, 500))
    (folder / "nested" / "index.xml").write_bytes(index_xml(f"{SITE}nested/more.xml", f"{SITE}big.xml"))
    names = ["big.xml", "feed.xml", "again.xml", "missing.xml", "lines.jsonl", "broken.xml", "nested/index.xml"]
    names += ["urls.txt", "echo.xml", "zero.xml"]
    (folder / "index.xml").write_bytes(index_xml(*(SITE + name for name in names)))
    return folder


def _same_with_jobs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], code: int = 0
) -> tuple[str, str, dict[str, bytes]]:
    """Run ``argv`` with ``--jobs 1`` and ``--jobs 2`` in two folders: the same outcome (exit ``code``); stdout,
    stderr and the files returned."""
    one = run_in(capsys, tmp_path / "one", [*argv, "--jobs", "1"])
    two = run_in(capsys, tmp_path / "two", [*argv, "--jobs", "2"])
    assert two[2] == one[2]
    assert two[1] == one[1]
    assert two[3] == one[3]
    assert two[0] == one[0] == code
    return one[1], one[2], one[3]


def _argv(site: Path, *more: str) -> list[str]:
    return ["convert", str(site / "index.xml"), "--map", f"{SITE}={site}", "-t", "text", *more]


def test_a_text_sitemap_is_written_the_same_by_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path
) -> None:
    _out, err, files = _same_with_jobs(capsys, tmp_path, _argv(site, "-o", "out.txt"))
    for code in (
        "non-web-url",
        "relative-url-resolved",
        "lastmod-invalid",
        "loc-duplicate",
        "more-duplicates",
        "duplicates-merged",
        "child-unreadable",
        "field-dropped",
    ):
        assert code in err, code
    assert "cannot hold lastmod, changefreq, title, description, keywords; they" in err
    lines = files["out.txt"].decode().splitlines()
    assert len(lines) == len(set(lines)) > 2 * WRITER_BATCH
    assert f"{SITE}caf\u00e9/3" in lines and f"{SITE}100%/5" in lines and "javascript:alert(1)" in lines


def test_workers_write_and_say_what_the_steps_one_by_one_do(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path
) -> None:
    """The oracle with no shared shortcut: ``--limit`` above the count keeps the steps apart (neither the workers'
    batches in columns nor the text pass's runs), so a batch test that passes a loc it should not is seen."""
    argv = _argv(site, "-o", "out.txt")
    apart = run_in(capsys, tmp_path / "apart", [*argv, "--jobs", "1", "--limit", "10000000"])
    two = run_in(capsys, tmp_path / "two", [*argv, "--jobs", "2"])
    assert two[3] == apart[3]
    assert two[2] == apart[2]
    assert two[0] == apart[0] == 0
    lines = apart[3]["out.txt"].decode().splitlines()
    assert f"{SITE}%C3%A9t%C3%A9/11" in lines and f"{SITE}p/1608#a#b" in lines
    assert f"{SITE}p/1608#a%23b" not in lines  # urls.txt's spelling of it as a URI: a repeat, dropped


@pytest.mark.parametrize(
    "flags",
    [
        ["--include", r"/p/\d*[02468]\.html"],
        ["--exclude", r"/p/1", "--exclude", "caf"],
        ["--since", "2024-06-01"],
        ["--until", "2024-03-01", "--require-lastmod"],
    ],
)
def test_the_filters_run_in_the_workers_with_the_same_result(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, flags: list[str]
) -> None:
    _out, err, files = _same_with_jobs(capsys, tmp_path, _argv(site, "-o", "out.txt", *flags))
    assert "entries-filtered" in err
    assert len(files["out.txt"].splitlines()) > 1000


def test_stdout_and_gzip_are_written_the_same_by_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path
) -> None:
    out, _err, _files = _same_with_jobs(capsys, tmp_path / "stdout", _argv(site, "-o", "-"))
    _out, _err, files = _same_with_jobs(capsys, tmp_path / "gzip", _argv(site, "-o", "out.txt.gz"))
    assert gzip.decompress(files["out.txt.gz"]).decode() == out


def test_urls_kept_as_read_are_written_the_same_by_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path
) -> None:
    _same_with_jobs(capsys, tmp_path, _argv(site, "-o", "out.txt", "--keep-urls"))


def test_strict_stops_at_the_same_warning_with_the_same_lines_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The first warning comes after more lines than the writer's batch: what stdout holds then is the same."""
    site = tmp_path / "site"
    site.mkdir()
    long = "x" * 300  # the writer's batches end by their characters (a MiB) before their 4,096 lines
    clean = _urlset(0, 3 * WRITER_BATCH, lambda i: f"<url><loc>{SITE}c/{i}/{long if i % 5 else ''}</loc></url>")
    (site / "clean.xml").write_text(clean)
    late = [f"<url><loc>{SITE}l/{i}</loc></url>" for i in range(50)]
    late[20] = "<url><loc>ftp://example.com/f</loc></url>"  # the first warning: the web URL check's
    (site / "late.xml").write_text(_urlset(0, 50, late.__getitem__))
    (site / "index.xml").write_bytes(index_xml(f"{SITE}clean.xml", f"{SITE}late.xml"))
    argv = ["convert", str(site / "index.xml"), "--map", f"{SITE}={site}", "-t", "text", "--strict"]
    out, err, _files = _same_with_jobs(capsys, tmp_path / "stdout", [*argv, "-o", "-"], code=1)
    assert "non-web-url" in err
    assert len(out.splitlines()) >= 2 * WRITER_BATCH  # the batches written before the warning
    _out, err, files = _same_with_jobs(capsys, tmp_path / "file", [*argv, "-o", "out.txt"], code=1)
    assert "out.txt" not in files
    _same_with_jobs(capsys, tmp_path / "filtered", [*argv, "-o", "-", "--exclude", "/c/1000"], code=1)


def test_an_index_with_nothing_to_write_is_said_the_same(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "empty.xml").write_text(_urlset(0, 0))
    (site / "other.xml").write_text(_urlset(0, 40))
    (site / "index.xml").write_bytes(index_xml(f"{SITE}empty.xml", f"{SITE}other.xml"))
    argv = ["convert", str(site / "index.xml"), "--map", f"{SITE}={site}", "-t", "text", "-o", "out.txt"]
    _out, err, _files = _same_with_jobs(capsys, tmp_path / "excluded", [*argv, "--exclude", "."])
    assert "empty-document" in err and "entries-filtered" in err
    (site / "index.xml").write_bytes(index_xml(f"{SITE}gone.xml", f"{SITE}gone-too.xml"))
    _out, err, _files = _same_with_jobs(capsys, tmp_path / "none", [*argv, "--since", "2020-01-01"], code=1)
    assert "no-child-read" in err


@pytest.mark.parametrize("jobs", [1, 2])
def test_bounds_the_wrong_way_round_are_refused_before_anything_is_read(tmp_path: Path, site: Path, jobs: int) -> None:
    options = Options(jobs=jobs, maps=((SITE, site),), since=W3CDate.parse("2024-06-01"), until=W3CDate.parse("2023"))
    with pytest.raises(ValueError, match="the earlier date is the since bound"):
        feedmap.convert(str(site / "index.xml"), tmp_path / "out.txt", "text", options, on_diagnostic=print)
    assert not (tmp_path / "out.txt").exists()
