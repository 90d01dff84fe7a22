"""``feedmap.dask``: a bag of entries read by the workers of a real Dask cluster (``distributed.LocalCluster``, worker
processes on 127.0.0.1), written as one run writes it.

The oracle is always a run without Dask: :func:`feedmap.convert` into a directory against
:func:`feedmap.dask.write_split` of :func:`feedmap.dask.read_bag`, each in a folder of its own under the same name
(so the output's name in the messages is the same), comparing every file byte for byte and every diagnostic.  The
site is the ``--jobs`` tests' (:mod:`jobsite`: broken, missing, nested and gzip children, relative URLs, URLs
repeated across children).  The faults are real: worker processes that die while they hold a partition.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import dask
import dask.bag
import distributed
import pytest
from conftest import index_xml
from jobsite import SITE, files_in, jobs_site, urlset
from localcluster import local_cluster
from localsite import LocalSite

import feedmap
import feedmap.dask
from feedmap import Diagnostic, Entry, Options, ReadError, SourceError, StrictError


@pytest.fixture(scope="module")
def client() -> Iterator[distributed.Client]:
    """A client of two worker processes, the default scheduler of every bag the tests compute."""
    with local_cluster() as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    jobs_site(folder)
    return folder


def _said(diagnostics: list[Diagnostic]) -> Counter[str]:
    return Counter(str(one) for one in diagnostics)


def _both(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    site: Path,
    options: Options,
    format: str = "sitemap",
    previous: Path | None = None,
) -> tuple[tuple[dict[str, bytes], list[Diagnostic]], tuple[dict[str, bytes], list[Diagnostic]]]:
    """The directory ``convert`` writes and the one ``write_split`` writes (each into a copy of ``previous``, a
    run's directory, when given), and the diagnostics of each."""
    maps = ((SITE, site),)
    outcomes = []
    for how in ("one", "bag"):
        folder = tmp_path / how
        folder.mkdir(parents=True)
        if previous is not None:
            shutil.copytree(previous, folder / "out")
        monkeypatch.chdir(folder)
        said: list[Diagnostic] = []
        if how == "one":
            feedmap.convert(
                str(site / "index.xml"), "out/", format, replace_maps(options, maps), on_diagnostic=said.append
            )
        else:
            bag = feedmap.dask.read_bag(str(site / "index.xml"), options=Options(maps=maps), on_diagnostic=said.append)
            feedmap.dask.write_split(bag, "out/", SITE, format, options, on_diagnostic=said.append)
        outcomes.append((files_in(folder / "out"), said))
    return outcomes[0], outcomes[1]


def replace_maps(options: Options, maps: tuple[tuple[str, Path], ...]) -> Options:
    from dataclasses import replace

    return replace(options, maps=maps, base_url=SITE)


@pytest.mark.parametrize("format", ["sitemap", "text", "rss", "ror"])
def test_a_bag_is_split_byte_for_byte_as_one_run_splits(
    client: distributed.Client, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, site: Path, format: str
) -> None:
    (one, one_said), (bag, bag_said) = _both(monkeypatch, tmp_path, site, Options(max_urls=300), format)
    assert len(one) > 3 and bag == one
    assert _said(bag_said) == _said(one_said)
    for broken in ("c3.xml", "missing.xml", "page.html"):  # the broken children, said as without Dask
        assert any(broken in str(one) for one in bag_said), broken


def test_the_steps_spanning_partitions_run_as_in_one_run(
    client: distributed.Client, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, site: Path
) -> None:
    options = Options(max_urls=100, dedupe="newest", sort="lastmod", limit=450, since="2024-03-01")
    (one, one_said), (bag, bag_said) = _both(monkeypatch, tmp_path, site, options)
    assert len(one) == 6 and bag == one  # 450 URLs in 100s: five files and the index
    assert _said(bag_said) == _said(one_said)


def test_a_bag_written_over_a_previous_run_keeps_each_url_in_its_file_as_one_run_does(
    client: distributed.Client, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, site: Path
) -> None:
    """Issue 21: into a directory holding a run, each URL stays in its file (the previous run read back by the
    client), as feedmap.convert keeps it; a bag sorted by sort_entries is cut afresh, as sort cuts."""
    options = Options(max_urls=100)
    (first, _), _ = _both(monkeypatch, tmp_path / "first", site, options)
    previous = tmp_path / "first" / "one" / "out"
    child = site / "c1.xml"
    child.write_text(child.read_text().replace(f"<url><loc>{SITE}page-405.html</loc>", "<url><loc>gone.html</loc>"))
    added = "".join(f"<url><loc>{SITE}new-{n}.html</loc></url>\n" for n in range(10))
    child = site / "c0.xml"
    child.write_text(child.read_text().replace("</urlset>", added + "</urlset>"))
    (one, one_said), (bag, bag_said) = _both(monkeypatch, tmp_path / "night", site, options, previous=previous)
    assert bag == one and _said(bag_said) == _said(one_said)
    changed = {name for name, body in one.items() if first.get(name) != body}
    assert 1 <= len(changed - {"sitemap_index.xml"}) <= 2 < len(one)  # the file of page-405 and the last
    monkeypatch.chdir(tmp_path)
    shutil.copytree(previous, tmp_path / "sorted-one")
    shutil.copytree(previous, tmp_path / "sorted-bag")
    by_loc = Options(sort="loc", max_urls=100)
    feedmap.convert(str(site / "index.xml"), "sorted-one/", "sitemap", replace_maps(by_loc, ((SITE, site),)))
    read = feedmap.dask.read_bag(str(site / "index.xml"), options=Options(maps=((SITE, site),)))
    feedmap.dask.write_split(feedmap.dask.sort_entries(read, Options(sort="loc")), "sorted-bag/", SITE, options=options)
    assert files_in(tmp_path / "sorted-bag") == files_in(tmp_path / "sorted-one")


def test_each_partitions_diagnostics_come_in_partition_order(client: distributed.Client, site: Path) -> None:
    said: list[Diagnostic] = []
    one_said: list[Diagnostic] = []
    options = Options(maps=((SITE, site),))
    bag = feedmap.dask.read_bag(str(site / "index.xml"), options=options, on_diagnostic=said.append)
    assert bag.npartitions == 9  # one per child the index names
    entries = list(feedmap.dask.entries(bag, on_diagnostic=said.append))
    with feedmap.read(str(site / "index.xml"), options=options, on_diagnostic=one_said.append) as doc:
        assert entries == list(doc.entries)
    assert [str(one) for one in said] == [str(one) for one in one_said]  # the children's, read as they come
    assert len({one.source for one in said}) >= 4  # the children's own names and lines


def test_transforms_are_partition_operations_and_jsonl_is_one_file_each(
    client: distributed.Client, tmp_path: Path, site: Path
) -> None:
    bag = feedmap.dask.read_bag(str(site / "index.xml"), options=Options(maps=((SITE, site),)))
    kept = bag.filter(lambda entry: entry.lastmod is not None).map(
        lambda entry: dataclasses.replace(entry, priority=0.9)
    )
    written = feedmap.dask.to_jsonl(kept, tmp_path / "parts")
    assert [Path(path).name for path in written] == [f"part-{n:05d}.jsonl" for n in range(1, 10)]
    assert sorted(os.listdir(tmp_path / "parts")) == [Path(path).name for path in written]  # no staging left
    read_back: list[Entry] = []
    for path in written:
        with feedmap.read(path, "jsonl") as doc:
            read_back.extend(doc.entries)
    with feedmap.read(str(site / "index.xml"), options=Options(maps=((SITE, site),))) as doc:
        expected = [dataclasses.replace(entry, priority=0.9) for entry in doc.entries if entry.lastmod is not None]
    assert [(one.loc, one.lastmod, one.priority, one.images) for one in read_back] == [
        (one.loc, one.lastmod, one.priority, one.images) for one in expected
    ]


def test_strict_stops_at_the_first_warning_and_the_directory_is_left_as_it_was(
    client: distributed.Client, tmp_path: Path, site: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("before")
    bag = feedmap.dask.read_bag(str(site / "index.xml"), options=Options(maps=((SITE, site),)))
    with pytest.raises(StrictError):
        feedmap.dask.write_split(bag, out, SITE, options=Options(strict=True))
    assert files_in(out) == {"keep.txt": b"before"}


def test_an_index_whose_every_child_fails_says_so_as_one_run_does(client: distributed.Client, tmp_path: Path) -> None:
    (tmp_path / "index.xml").write_bytes(index_xml(f"{SITE}gone-1.xml", f"{SITE}gone-2.xml"))
    maps = ((SITE, tmp_path),)
    with pytest.raises(ReadError) as one:
        feedmap.convert(
            str(tmp_path / "index.xml"), str(tmp_path / "one") + "/", "sitemap", Options(maps=maps, base_url=SITE)
        )
    bag = feedmap.dask.read_bag(str(tmp_path / "index.xml"), options=Options(maps=maps))
    with pytest.raises(ReadError) as dasked:
        feedmap.dask.write_split(bag, tmp_path / "bag", SITE)
    assert str(dasked.value) == str(one.value) and dasked.value.code == "no-child-read"
    assert not (tmp_path / "bag").exists() or not os.listdir(tmp_path / "bag")


def test_remote_children_are_fetched_by_the_workers_under_the_sites_rules(client: distributed.Client) -> None:
    with LocalSite() as served, LocalSite("127.0.0.2") as other:
        off_site = other.add("/elsewhere.xml", urlset(1, 20))
        served.add("/c0.xml", urlset(0, 50))
        served.add("/moved.xml", status=301, headers={"Location": off_site})  # a redirect off the site
        served.add("/broken.xml", status=500)
        served.add("/inner.xml", index_xml(served.url("/c0.xml"), off_site, "c2.xml"))
        served.add("/c2.xml", urlset(2, 30))
        names = ["/c0.xml", "/moved.xml", "/broken.xml", "/inner.xml"]
        index = served.add("/index.xml", index_xml(*(served.url(name) for name in names), off_site))
        said: list[Diagnostic] = []
        one_said: list[Diagnostic] = []
        with feedmap.read(index, on_diagnostic=one_said.append) as doc:
            expected = list(doc.entries)
        bag = feedmap.dask.read_bag(index, on_diagnostic=said.append)
        assert list(feedmap.dask.entries(bag, on_diagnostic=said.append)) == expected
        assert other.hits("/elsewhere.xml") == 0  # neither run fetched the page off the site
    assert len(expected) == 50 + 50 + 31  # c0 (again through the nested index), c2 (resolved) and its relative loc
    assert _said(said) == _said(one_said)
    codes = Counter(one.code for one in said)
    assert codes["child-off-site"] == 3 and codes["child-unreadable"] == 1


def _dies_once(marker: str) -> object:
    def entry_of(entry: Entry) -> Entry:
        if not os.path.exists(marker):
            with open(marker, "w"):
                pass
            os._exit(1)  # the worker process dies holding the partition
        return entry

    return entry_of


def test_a_worker_lost_holding_a_partition_has_it_computed_again_with_the_same_output(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, site: Path
) -> None:
    with local_cluster() as cluster, distributed.Client(cluster):
        bag = feedmap.dask.read_bag(str(site / "index.xml"), options=Options(maps=((SITE, site),)))
        feedmap.dask.write_split(bag.map(_dies_once(str(tmp_path / "died"))), tmp_path / "bag", SITE)
    assert (tmp_path / "died").exists()
    feedmap.convert(
        str(site / "index.xml"), str(tmp_path / "one") + "/", "sitemap", Options(maps=((SITE, site),), base_url=SITE)
    )
    assert files_in(tmp_path / "bag") == files_in(tmp_path / "one")


def _always_dies(entry: Entry) -> Entry:
    if "c2.xml" in str(entry.origin):
        os._exit(1)
    return entry


def test_a_partition_whose_worker_keeps_dying_is_an_error_naming_the_child(tmp_path: Path, site: Path) -> None:
    """Dask counts a worker's death against every task that worker held: the child named is the one whose task
    Dask gave up on first, c2's or one held beside it (which one is a race: CI once named c4), and says so."""
    failing_fast = local_cluster(**{"distributed.scheduler.allowed-failures": 1})
    with failing_fast as cluster, distributed.Client(cluster):
        bag = feedmap.dask.read_bag(str(site / "index.xml"), options=Options(maps=((SITE, site),)))
        with pytest.raises(SourceError, match=r"child sitemap https://example.com/\w+.xml of .*index.xml: the Dask"):
            feedmap.dask.write_split(bag.map(_always_dies), tmp_path / "bag", SITE)
        alone = feedmap.dask.read_bag(str(site / "c2.xml"))  # one partition: the one named is the one that died
        with pytest.raises(SourceError, match=r"c2.xml: the Dask worker .* partition held beside it; nothing"):
            feedmap.dask.write_split(alone.map(_always_dies), tmp_path / "alone", SITE)
    for folder in ("bag", "alone"):
        assert not (tmp_path / folder).exists() or not os.listdir(tmp_path / folder)


def test_a_bag_not_read_by_feedmap_is_written_and_a_repartitioned_one_refused(
    client: distributed.Client, tmp_path: Path, site: Path
) -> None:
    with feedmap.read(str(site / "c0.xml")) as doc:
        entries = list(doc.entries)
    made = dask.bag.from_sequence(entries, npartitions=3)
    summary = feedmap.dask.write_split(made, tmp_path / "made", SITE)
    expected = feedmap.split(entries, tmp_path / "one", options=Options(base_url=SITE))
    assert summary.entries == expected.entries and files_in(tmp_path / "made") == files_in(tmp_path / "one")
    bag = feedmap.dask.read_bag(str(site / "index.xml"), options=Options(maps=((SITE, site),)))
    with pytest.raises(ValueError, match="repartitioned"):
        feedmap.dask.write_split(bag.repartition(2), tmp_path / "re", SITE)


def test_read_bag_refuses_what_the_writing_call_does(site: Path) -> None:
    with pytest.raises(ValueError, match=r"read_bag\(\) cannot use dedupe"):
        feedmap.dask.read_bag(str(site / "index.xml"), options=Options(dedupe="newest"))
    with pytest.raises(ValueError, match="at least one input"):
        feedmap.dask.read_bag([])


def test_the_calls_that_write_no_split_refuse_the_selection_they_cannot_apply(tmp_path: Path, site: Path) -> None:
    """A setting is never silently ignored: entries() and to_jsonl() take only strict (the bag's own filter, or
    write_split, selects), and say so before any partition is computed."""
    bag = dask.bag.from_sequence([feedmap.Entry(loc=f"{SITE}a.html")], npartitions=1)
    with pytest.raises(ValueError, match=r"dask.entries\(\) cannot use dedupe"):
        feedmap.dask.entries(bag, Options(dedupe="newest"))
    with pytest.raises(ValueError, match=r"to_jsonl\(\) cannot use limit"):
        feedmap.dask.to_jsonl(bag, tmp_path / "parts", Options(limit=1))
    assert not (tmp_path / "parts").exists()
