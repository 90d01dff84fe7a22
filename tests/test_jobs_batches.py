"""``--jobs N``: the batches a worker sends the run give back every entry as read, in its place.

A worker sends what it read in batches of columns (the locs, lastmods, changefreqs, priorities and lines of the
entries that hold nothing else), each other entry (images, titles, extras, another source) sent whole at its
place, and each diagnostic between the entries it came between.  These tests read children of every shape
(thousands of entries, so that batches fill; columns absent from a whole batch; entries holding more at the
first, last and middle places of a batch; feeds, text and JSON lines children; bad values, non-web and relative
URLs, URLs repeated across children) with ``jobs=1`` and ``jobs=2`` and compare the entries with their origins
and field types, the diagnostics in order, and every output of the command line, byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SITEMAP_NS, index_xml, run_in

import feedmap
from feedmap import ChangeFreq, Diagnostic, Options, W3CDate

SITE = "https://example.com/"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"

#: Where a batch of a worker's spill ends when no diagnostic ends it first (the entries around it matter).
BATCH = 2048


def _url(i: int) -> str:
    """A ``<url>`` whose shape depends on its place: plain runs, holes in each column, a part now and then."""
    loc = f"{SITE}p/{i}.html"
    if i % 997 == 13:
        loc = "javascript:alert(1)"  # non-web-url: left out of XML targets, kept with a warning in the others
    elif i % 1499 == 7:
        loc = f"relative/{i}.html"  # resolved against the child's URL
    fields = [f"<loc>{loc}</loc>"]
    if i < BATCH:  # the first batch: loc and lastmod, a few undated, a few bad dates
        if i % 701 == 5:
            fields.append("<lastmod>2024-02-30</lastmod>")
        elif i % 89:
            fields.append(f"<lastmod>2024-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00Z</lastmod>")
    elif i < 2 * BATCH:  # the second: locs alone, images at its first, last and some middle places
        if i in (BATCH, 2 * BATCH - 1) or i % 331 == 0:
            fields.append(f"<image:image><image:loc>{SITE}i/{i}.png</image:loc></image:image>")
    else:  # then changefreq and priority, sometimes one without the other, sometimes wrong
        if i % 3:
            fields.append("<changefreq>weekly</changefreq>" if i % 5 else "<changefreq>sometimes</changefreq>")
        if i % 4:
            fields.append(f"<priority>0.{i % 10}</priority>" if i % 211 else "<priority>7</priority>")
        if i % 2:
            fields.append(f"<lastmod>2023-{1 + i % 12:02d}-{1 + i % 28:02d}</lastmod>")
    return f"<url>{''.join(fields)}</url>"


def _urlset(first: int, count: int) -> str:
    rows = "\n".join(_url(i) for i in range(first, first + count))
    return f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}">\n{rows}\n</urlset>\n'


def _feed() -> str:
    items = "".join(
        f"<item><title>item {i}</title><link>{SITE}p/{i}.html</link><description>about {i}</description></item>"
        for i in range(0, 60, 3)
    )
    channel = f"<channel><title>t</title><link>{SITE}</link>{items}</channel>"
    return f'<?xml version="1.0"?>\n<rss version="2.0">{channel}</rss>\n'


def _lines() -> str:
    rows = []
    for i in range(40):
        row: dict[str, object] = {"loc": f"{SITE}p/{i * 7}.html", "lastmod": "2022-05-01"}
        if i % 3 == 0:
            row.update(title=f"page {i}", keywords=["a", "b"], type="page")
        if i % 5 == 0:
            row["extras"] = {"note": f"n{i}"}
        rows.append(json.dumps(row))
    return "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("batches") / "site"
    folder.mkdir()
    (folder / "big.xml").write_text(_urlset(0, 3 * BATCH + 300))
    (folder / "again.xml").write_text(_urlset(BATCH - 100, 2 * BATCH))  # repeats big.xml's URLs, other lines
    (folder / "feed.xml").write_text(_feed())
    (folder / "lines.jsonl").write_text(_lines())
    (folder / "urls.txt").write_text("".join(f"{SITE}p/{i}.html\n" for i in range(0, 9000, 11)) + "not a url\n")
    names = ["big.xml", "feed.xml", "again.xml", "lines.jsonl", "urls.txt"]
    (folder / "index.xml").write_bytes(index_xml(*(SITE + name for name in names)))
    return folder


def _read(site: Path, jobs: int) -> tuple[list[feedmap.Entry], list[Diagnostic]]:
    seen: list[Diagnostic] = []
    options = Options(jobs=jobs, maps=((SITE, site),))
    with feedmap.read(str(site / "index.xml"), options=options, on_diagnostic=seen.append) as doc:
        return list(doc.entries), seen


def test_entries_of_every_shape_come_back_equal_in_their_places(site: Path) -> None:
    alone, alone_seen = _read(site, 1)
    workers, workers_seen = _read(site, 2)
    assert len(alone) > 5 * BATCH  # batches filled, in two children
    assert workers == alone
    assert [entry.origin for entry in workers] == [entry.origin for entry in alone]
    assert workers_seen == alone_seen
    assert {
        "loc-not-absolute",
        "lastmod-invalid",
        "changefreq-invalid",
        "priority-invalid",
        "relative-url-resolved",
    } <= {diagnostic.code for diagnostic in alone_seen}  # the children's diagnostics came between their entries
    for mine, theirs in zip(workers, alone, strict=True):
        assert type(mine.lastmod) is type(theirs.lastmod)
        assert type(mine.changefreq) is type(theirs.changefreq)
        assert type(mine.priority) is type(theirs.priority)
        assert type(mine.extras) is type(theirs.extras) and mine.extras == theirs.extras
    shapes = {
        "images": any(entry.images for entry in workers),
        "titles": any(entry.title for entry in workers),
        "extras": any(entry.extras for entry in workers),
        "keywords": any(entry.keywords for entry in workers),
        "undated": any(entry.lastmod is None for entry in workers),
        "dated": any(isinstance(entry.lastmod, W3CDate) for entry in workers),
        "changefreq": any(entry.changefreq is ChangeFreq.WEEKLY for entry in workers),
        "priority": any(entry.priority == 0.5 for entry in workers),
    }
    assert all(shapes.values()), shapes


def test_an_entry_of_a_batch_can_be_changed_alone(site: Path) -> None:
    """The entries rebuilt from a batch share no mutable part: each has its own extras, as a reader gives them."""
    entries, _seen = _read(site, 2)
    assert len({id(entry.extras) for entry in entries}) == len(entries)
    plain = [entry for entry in entries if not entry.extras]
    plain[0].extras = {"x": "y"}
    assert not plain[1].extras


def _same_with_jobs(capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]) -> str:
    """Run ``argv`` with ``--jobs 1`` and ``--jobs 2`` in two folders: the same outcome; stderr returned."""
    one = run_in(capsys, tmp_path / "one", [*argv, "--jobs", "1"])
    two = run_in(capsys, tmp_path / "two", [*argv, "--jobs", "2"])
    assert two[0] == one[0]
    assert two[2] == one[2]
    assert two[1] == one[1]
    assert two[3] == one[3]
    assert one[0] == 0
    return one[2]


@pytest.mark.parametrize("target", ["sitemap", "text", "jsonl", "rss", "ror"])
def test_every_target_is_written_the_same_from_batches(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, target: str
) -> None:
    argv = ["convert", str(site / "index.xml"), "--map", f"{SITE}={site}", "-t", target, "-o", "out"]
    err = _same_with_jobs(capsys, tmp_path, argv)
    assert "non-web-url" in err and "loc-duplicate" in err and "lastmod-invalid" in err


@pytest.mark.parametrize("flags", [["--dedupe", "first"], ["--dedupe", "last"], ["--sort", "loc", "--limit", "3000"]])
def test_repeats_across_children_are_kept_the_same_from_batches(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, flags: list[str]
) -> None:
    argv = ["convert", str(site / "index.xml"), "--map", f"{SITE}={site}", "-t", "jsonl", "-o", "out", *flags]
    assert "loc-duplicate" in _same_with_jobs(capsys, tmp_path, argv)


@pytest.mark.parametrize("target", ["sitemap", "text"])
def test_split_directories_are_the_same_from_batches(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, target: str
) -> None:
    argv = ["convert", str(site / "index.xml"), "--map", f"{SITE}={site}", "-t", target]
    argv += ["-o", "out/", "--base-url", SITE, "--max-urls", "1000"]
    _same_with_jobs(capsys, tmp_path, argv)
    written = list((tmp_path / "two" / "out").iterdir())
    assert len(written) > 5
