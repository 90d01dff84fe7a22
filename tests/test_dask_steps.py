"""The steps of ``feedmap.dask`` (filters, dedupe, sort, enrichment) run by the workers of a real Dask cluster
(``distributed.LocalCluster``, worker processes on 127.0.0.1), against one run of the same steps.

The oracle is always a run without Dask: :func:`feedmap.read` of the same index, the same step of
:mod:`feedmap.converters` (or the same options given to :func:`feedmap.split`), then :func:`feedmap.split`, each
in a folder of its own under the same name, comparing every file byte for byte and the diagnostics in order.
The site is the ``--jobs`` tests' (:mod:`jobsite`: broken, nested and gzip children, URLs repeated across
children, lastmods shared across them, entries without one), so repeats and equal keys span partitions.
Enrichment reads pages from real HTTP servers on 127.0.0.1 that record, for each request, when it came and
which worker process sent it.
"""

from __future__ import annotations

import dataclasses
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import dask
import dask.bag
import distributed
import psutil
import pytest
from jobsite import SITE, descendants, files_in, jobs_site
from localcluster import local_cluster
from localsite import LocalSite

import feedmap
import feedmap._web.bag_order
import feedmap.converters
import feedmap.dask
from feedmap import Diagnostic, Document, Entry, HttpSettings, Level, Options, StrictError

Step = Callable[[Document, Callable[[Diagnostic], None]], Document]


@pytest.fixture(scope="module")
def client() -> Iterator[distributed.Client]:
    """A client of two worker processes, the default scheduler of every bag the tests compute."""
    with local_cluster() as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    jobs_site(folder)
    return folder


def _said(diagnostics: Iterable[Diagnostic]) -> list[str]:
    return [str(one) for one in diagnostics]


def _both(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    site: Path,
    one: Step,
    bag_steps: Callable[[dask.bag.Bag], dask.bag.Bag],
    options: Options | None = None,
    format: str = "sitemap",
) -> tuple[tuple[dict[str, bytes], list[str]], tuple[dict[str, bytes], list[str]]]:
    """The directory :func:`feedmap.split` writes of ``one`` (steps of feedmap.converters on the index read by one
    run) and the one :func:`feedmap.dask.write_split` writes of ``bag_steps`` (of the bag read_bag gives), with
    ``options``; the diagnostics of each, in order."""
    maps = ((SITE, site),)
    options = options or Options()
    outcomes = []
    for how in ("one", "bag"):
        folder = tmp_path / how
        folder.mkdir()
        monkeypatch.chdir(folder)
        said: list[Diagnostic] = []
        if how == "one":
            with feedmap.read(str(site / "index.xml"), options=Options(maps=maps), on_diagnostic=said.append) as doc:
                written = dataclasses.replace(options, base_url=SITE)
                feedmap.split(one(doc, said.append), "out/", format, written, on_diagnostic=said.append)
        else:
            bag = feedmap.dask.read_bag(str(site / "index.xml"), options=Options(maps=maps), on_diagnostic=said.append)
            feedmap.dask.write_split(bag_steps(bag), "out/", SITE, format, options, on_diagnostic=said.append)
        outcomes.append((files_in(folder / "out"), _said(said)))
    return outcomes[0], outcomes[1]


def _entries_one(site: Path, *steps: Callable[[Iterable[Entry]], Iterable[Entry]]) -> list[Entry]:
    with feedmap.read(str(site / "index.xml"), options=Options(maps=((SITE, site),))) as doc:
        entries: Iterable[Entry] = doc.entries
        for step in steps:
            entries = step(entries)
        return list(entries)


def _bag(site: Path) -> dask.bag.Bag:
    return feedmap.dask.read_bag(str(site / "index.xml"), options=Options(maps=((SITE, site),)))


# --- filters ---------------------------------------------------------------------------------------------


FILTERS = Options(since="2024-03-01", until="2024-10-31", exclude=r"page-1\d\d\.html")


@pytest.mark.parametrize("format", ["sitemap", "text"])
def test_filters_run_by_the_workers_write_what_one_run_writes_and_count_as_it_counts(
    client: distributed.Client, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, site: Path, format: str
) -> None:
    def one(doc: Document, said: Callable[[Diagnostic], None]) -> Document:
        return feedmap.converters.filter_entries(doc, FILTERS, on_diagnostic=said)

    (one_files, one_said), (bag_files, bag_said) = _both(
        monkeypatch, tmp_path, site, one, lambda bag: feedmap.dask.filter_entries(bag, FILTERS), format=format
    )
    assert len(one_files) >= 2 and bag_files == one_files
    assert bag_said == one_said  # the reading's, the filters' sums (once, at the end of the input), split's
    counted = [said for said in bag_said if "entries-filtered" in said or "no-lastmod-kept" in said]
    assert len(counted) == 2 and "before the since date" in counted[1] and "matching exclude" in counted[1]


def test_the_same_filters_given_to_write_split_write_the_same(
    client: distributed.Client, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, site: Path
) -> None:
    """The options given to write_split, as today (the client filters), and to filter_entries (the workers do):
    the same files and the same diagnostics but for the name of what counted (the call's directory, or none
    for the step, as feedmap.converters' own step names none)."""
    (one_files, one_said), (bag_files, bag_said) = _both(
        monkeypatch, tmp_path, site, lambda doc, said: doc, lambda bag: bag, FILTERS
    )
    stepped = tmp_path / "stepped"
    said: list[Diagnostic] = []
    feedmap.dask.write_split(feedmap.dask.filter_entries(_bag(site), FILTERS), stepped, SITE, on_diagnostic=said.append)
    assert bag_files == one_files == files_in(stepped)
    assert bag_said == one_said
    direct = [one for one in one_said if "entries-filtered" in one]
    stepped_said = [str(one) for one in said if one.code == "entries-filtered"]
    assert len(direct) == len(stepped_said) == 1 and direct[0].endswith(stepped_said[0].split(": ", 1)[1])


def test_bounds_the_wrong_way_round_are_refused_at_the_call(site: Path) -> None:
    bag = feedmap.dask.read_bag(str(site / "c0.xml"))
    with pytest.raises(ValueError, match="since 2024-12-01 is after until"):
        feedmap.dask.filter_entries(bag, Options(since="2024-12-01", until="2024-01-01"))


# --- sort ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["loc", "lastmod", "-lastmod"])
def test_sorted_partitions_merged_by_the_client_are_one_stable_sort(
    client: distributed.Client, monkeypatch: pytest.MonkeyPatch, site: Path, order: str
) -> None:
    """Equal keys across partitions (URLs repeated across children, lastmods shared, entries without one)
    come in input order, as one stable sort of all the entries gives them; the partitions streamed to the
    merge in slices of 64 entries (the least a slice holds), each partition in several."""
    monkeypatch.setattr(feedmap._web.bag_order, "_MOST", 64)
    options = Options(sort=order)  # type: ignore[arg-type]
    expected = _entries_one(site, lambda entries: feedmap.converters.sort_entries(entries, options))
    merged = list(feedmap.dask.entries(feedmap.dask.sort_entries(_bag(site), options)))
    assert merged == expected
    assert [one.origin for one in merged] == [one.origin for one in expected]  # ties in input order
    keys = [one.loc if order == "loc" else one.lastmod for one in merged]
    assert len(set(keys)) < len(keys) - 100  # many equal keys, across partitions


def test_a_sorted_bag_is_split_as_one_run_splits_it(
    client: distributed.Client, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, site: Path
) -> None:
    options = Options(sort="-lastmod")

    def one(doc: Document, said: Callable[[Diagnostic], None]) -> Document:
        return feedmap.converters.sort_entries(doc, options, on_diagnostic=said)

    (one_files, one_said), (bag_files, bag_said) = _both(
        monkeypatch, tmp_path, site, one, lambda bag: feedmap.dask.sort_entries(bag, options), Options(max_urls=300)
    )
    assert len(one_files) > 3 and bag_files == one_files
    assert bag_said == one_said


def test_a_limit_after_the_workers_sort_and_dedupe_is_the_clients_and_stops_the_merge(
    client: distributed.Client, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, site: Path
) -> None:
    order, rule = Options(sort="-lastmod"), Options(dedupe="last")

    def one(doc: Document, said: Callable[[Diagnostic], None]) -> Document:
        doc = feedmap.converters.dedupe(doc, rule, on_diagnostic=said)
        return feedmap.converters.sort_entries(doc, order, on_diagnostic=said)

    def bag_steps(bag: dask.bag.Bag) -> dask.bag.Bag:
        return feedmap.dask.sort_entries(feedmap.dask.dedupe(bag, rule), order)

    (one_files, one_said), (bag_files, bag_said) = _both(
        monkeypatch, tmp_path, site, one, bag_steps, Options(limit=250, max_urls=100), "text"
    )
    assert len(one_files) == 4 and bag_files == one_files  # 250 URLs in 100s, and the index
    assert bag_said == one_said


def test_a_sorted_bag_refuses_what_would_lose_its_order(client: distributed.Client, tmp_path: Path) -> None:
    entries = [Entry(loc=f"{SITE}{n}.html") for n in range(10)]
    bag = feedmap.dask.sort_entries(dask.bag.from_sequence(entries, npartitions=3), Options(sort="loc"))
    for step in (feedmap.dask.dedupe, feedmap.dask.sort_entries):
        with pytest.raises(ValueError, match="after sort_entries"):
            step(bag, Options(sort="loc", dedupe="first"))
    with pytest.raises(ValueError, match="to_jsonl writes a file per partition"):
        feedmap.dask.to_jsonl(bag, tmp_path / "parts")
    assert [one.loc for one in feedmap.dask.entries(bag)] == sorted(one.loc for one in entries)


def test_on_dasks_local_scheduler_a_sorted_bag_is_merged_as_well(site: Path) -> None:
    options = Options(sort="lastmod")
    expected = _entries_one(site, lambda entries: feedmap.converters.sort_entries(entries, options))
    with dask.config.set(scheduler="synchronous"):
        assert list(feedmap.dask.entries(feedmap.dask.sort_entries(_bag(site), options))) == expected


# --- dedupe ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", ["first", "last", "newest"])
def test_dedupe_across_partitions_keeps_what_one_run_keeps_and_says_it_alike(
    client: distributed.Client, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, site: Path, rule: str
) -> None:
    options = Options(dedupe=rule)  # type: ignore[arg-type]

    def one(doc: Document, said: Callable[[Diagnostic], None]) -> Document:
        return feedmap.converters.dedupe(doc, options, on_diagnostic=said)

    (one_files, one_said), (bag_files, bag_said) = _both(
        monkeypatch,
        tmp_path,
        site,
        one,
        lambda bag: feedmap.dask.dedupe(bag, options, buckets=3),
        Options(max_urls=300),
    )
    assert len(one_files) > 3 and bag_files == one_files
    assert bag_said == one_said  # the same loc-duplicate lines (the first 100, in order), counts and lines
    repeated = [said for said in bag_said if "loc-duplicate" in said]
    assert len(repeated) == 100 and any("more-duplicates" in said for said in bag_said)


@pytest.mark.parametrize("rule", ["first", "last", "newest"])
def test_the_entry_kept_is_one_runs_even_from_a_later_partition(
    client: distributed.Client, site: Path, rule: str
) -> None:
    options = Options(dedupe=rule)  # type: ignore[arg-type]
    expected = _entries_one(site, lambda entries: feedmap.converters.dedupe(entries, options))
    kept = list(feedmap.dask.entries(feedmap.dask.dedupe(_bag(site), options)))
    assert kept == expected and [one.origin for one in kept] == [one.origin for one in expected]
    firsts: dict[str, object] = {}
    for entry in _entries_one(site):
        firsts.setdefault(entry.loc, entry.origin)
    moved = sum(1 for entry in kept if entry.origin != firsts[entry.loc])
    assert (moved == 0) == (rule == "first")  # last and newest keep entries of later partitions at first places


def test_dedupe_on_dasks_local_scheduler_and_with_one_bucket(site: Path) -> None:
    options = Options(dedupe="newest")
    expected = _entries_one(site, lambda entries: feedmap.converters.dedupe(entries, options))
    with dask.config.set(scheduler="synchronous"):
        assert list(feedmap.dask.entries(feedmap.dask.dedupe(_bag(site), options, buckets=1))) == expected


# --- enrichment ------------------------------------------------------------------------------------------


HOSTS = ("127.0.0.1", "127.0.0.2", "127.0.0.3")
PAGE = '<html><head><title>{title}</title><meta name="description" content="about {title}"></head></html>'


def _pages(site: LocalSite, count: int) -> list[str]:
    """A site of ``count`` pages, a missing one, one that is no HTML and one its robots.txt disallows."""
    site.add("/robots.txt", "User-agent: *\nDisallow: /private/\n", content_type="text/plain")
    urls = [
        site.add(f"/p{n}.html", PAGE.format(title=f"{site.base} page {n}"), content_type="text/html")
        for n in range(count)
    ]
    urls.insert(2, site.url("/missing.html"))
    urls.insert(4, site.add("/data.json", "{}", content_type="application/json"))
    urls.append(site.add("/private/p.html", PAGE.format(title="private"), content_type="text/html"))
    return urls


def _interleaved(sites: list[LocalSite], count: int) -> list[Entry]:
    """The pages of ``sites`` taken in turn: each partition of a bag of them holds several hosts, and each host
    spans the partitions."""
    urls = [_pages(site, count) for site in sites]
    return [Entry(loc=url[n]) for n in range(len(urls[0])) for url in urls]


def _sender(port: int) -> int | None:
    """The process of this test's that holds the client end of a connection from ``port`` (a worker's)."""
    for pid in descendants(os.getpid()):
        try:
            connections = psutil.Process(pid).net_connections("tcp")
        except psutil.Error:
            continue
        if any(one.laddr and one.laddr.port == port for one in connections):
            return pid
    return None


def test_each_hosts_pages_are_fetched_by_one_worker_with_the_delay_and_robots_txt_once(
    client: distributed.Client,
) -> None:
    delay = 0.12
    options = Options(http=HttpSettings(host_delay=delay), concurrency=4)
    with LocalSite(HOSTS[0]) as one, LocalSite(HOSTS[1]) as two, LocalSite(HOSTS[2]) as three:
        sites = [one, two, three]
        entries = _interleaved(sites, 6)
        one_said: list[Diagnostic] = []
        expected = list(feedmap.converters.enrich(entries, options, on_diagnostic=one_said.append))
        before = [len(site.requests) for site in sites]
        for site in sites:
            site.on_request = lambda path, port: _sender(port)
        said: list[Diagnostic] = []
        bag = feedmap.dask.enrich(dask.bag.from_sequence(entries, npartitions=4), options)
        enriched = list(feedmap.dask.entries(bag, on_diagnostic=said.append))
    assert enriched == expected and sum(1 for one in enriched if one.title) == 18
    assert _said(said) == _said(one_said)  # each page's, at its entry's place, in order
    assert {one.code for one in said} == {"enrich-failed", "not-html", "robots-disallowed", "enrich-summary"}
    # each host: 6 pages, one missing, one JSON, one its robots.txt disallows; the summary summed, said once, last
    hosts = len(sites)
    reasons = f"{hosts} HTTP 404, {hosts} disallowed by robots.txt, {hosts} not HTML"
    summary = f"{6 * hosts} enriched, {3 * hosts} failed: {reasons}"
    assert [(one.code, one.message) for one in said if one.level is Level.INFO] == [("enrich-summary", summary)]
    assert said[-1].code == "enrich-summary"
    workers = set(client.run(os.getpid).values())
    for site, start in zip(sites, before, strict=True):
        requests = site.requests[start:]
        assert len({request.said for request in requests}) == 1  # one process fetched all of the host's pages
        assert requests[0].said in workers
        assert [request.path for request in requests].count("/robots.txt") == 1  # first, once per worker
        # --delay spaces the starts of a host's requests: the server sees their arrivals, which a loaded machine
        # jitters (a request started first can arrive late, shrinking one gap: CI saw 0.045 s for 0.12 s), but
        # the last cannot arrive before the first's start and 8 delays: without the delay, 9 requests over 4
        # connections arrive within a few hundredths of a second
        arrivals = [request.at for request in requests]
        assert len(arrivals) == 9 and arrivals[-1] - arrivals[0] >= 8 * delay - 0.1


def test_a_worker_killed_while_it_fetches_a_hosts_pages_leaves_the_output_as_it_was() -> None:
    options = Options(concurrency=2)
    with (
        local_cluster() as cluster,
        distributed.Client(cluster),
        LocalSite(HOSTS[0]) as one,
        LocalSite(HOSTS[1]) as two,
    ):
        entries = _interleaved([one, two], 6)
        expected = list(feedmap.converters.enrich(entries, options))
        killed: list[int] = []

        def kill_the_sender(path: str, port: int) -> None:
            if path == "/p3.html" and not killed:
                pid = _sender(port)
                assert pid is not None
                killed.append(pid)
                os.kill(pid, signal.SIGKILL)  # the worker fetching the host's pages dies mid-way

        one.on_request = kill_the_sender
        bag = feedmap.dask.enrich(dask.bag.from_sequence(entries, npartitions=3), options)
        enriched = list(feedmap.dask.entries(bag))
    assert killed and enriched == expected
    assert one.hits("/p3.html") >= 2  # fetched again by the host's next worker


def test_a_pipeline_of_steps_on_the_workers_writes_and_says_what_one_run_does(
    client: distributed.Client, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, site: Path
) -> None:
    """read_bag, filter_entries, dedupe, enrich (pages read from disk under --map), write_split: the files and
    every diagnostic in one run's order (the reading's and the filters' and repeats' sums first, as one run
    has read everything before it merges; then each page's)."""
    maps = ((SITE, site),)
    for n in range(0, 1200, 7):
        (site / f"page-{n}.html").write_text(PAGE.format(title=f"page {n}"))
    filters, rule, pages = FILTERS, Options(dedupe="newest"), Options(maps=maps)

    def one(doc: Document, said: Callable[[Diagnostic], None]) -> Document:
        doc = feedmap.converters.filter_entries(doc, filters, on_diagnostic=said)
        doc = feedmap.converters.dedupe(doc, rule, on_diagnostic=said)
        return feedmap.converters.enrich(doc, pages, on_diagnostic=said)

    def bag_steps(bag: dask.bag.Bag) -> dask.bag.Bag:
        return feedmap.dask.enrich(feedmap.dask.dedupe(feedmap.dask.filter_entries(bag, filters), rule), pages)

    (one_files, one_said), (bag_files, bag_said) = _both(
        monkeypatch, tmp_path, site, one, bag_steps, Options(max_urls=200), "ror"
    )
    assert len(one_files) > 2 and bag_files == one_files
    assert bag_said == one_said
    assert b"<title>page 7</title>" in b"".join(bag_files.values())


def test_read_bag_refuses_the_selection_and_names_the_step_that_takes_each(site: Path) -> None:
    with pytest.raises(ValueError, match=r"read_bag\(\) cannot use since, dedupe, enrich, limit") as refused:
        feedmap.dask.read_bag(
            str(site / "index.xml"), options=Options(since="2024-01-01", dedupe="first", enrich=True, limit=3)
        )
    for call in ("filter_entries(bag, options)", "dask.dedupe(bag, options)", "dask.enrich(", "write_split("):
        assert call in str(refused.value)
    with pytest.raises(ValueError, match=r"dask.enrich\(\) cannot use max_urls"):
        feedmap.dask.enrich(_bag(site), Options(max_urls=10))


def test_a_strict_step_stops_the_writing_call_at_its_first_warning(tmp_path: Path) -> None:
    with LocalSite() as site, dask.config.set(scheduler="synchronous"):
        entries = _interleaved([site], 2)
        bag = feedmap.dask.enrich(dask.bag.from_sequence(entries, npartitions=2), Options(strict=True))
        with pytest.raises(StrictError, match=r"missing\.html"):
            feedmap.dask.write_split(bag, tmp_path / "out", site.url("/"))
    assert not (tmp_path / "out").exists() or not os.listdir(tmp_path / "out")
