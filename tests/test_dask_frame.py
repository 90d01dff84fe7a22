"""``feedmap.dask.to_dataframe``: a bag of entries read by a real Dask cluster (``distributed.LocalCluster`` on
127.0.0.1) as a Dask DataFrame with the columns of ``feedmap.to_dataframe``.

The oracle is always :func:`feedmap.to_dataframe` of the same input read without Dask: the computed frame (its
partitions' indexes made one) is equal to it, dtypes, values, ``sitemap`` and ``line`` included.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import dask
import dask.bag
import distributed
import pandas as pd
import pyarrow.parquet as pq
import pytest
from jobsite import SITE, jobs_site
from localcluster import local_cluster
from without_modules import run_without

import feedmap
import feedmap.dask
from feedmap import Entry, Options, StrictError

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SAMPLE_MAPS = (("https://www.example.com/", SAMPLES / "site"),)


@pytest.fixture(scope="module")
def client() -> Iterator[distributed.Client]:
    with local_cluster() as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    jobs_site(folder)
    return folder


def _computed(frame: object) -> pd.DataFrame:
    computed: pd.DataFrame = frame.compute().reset_index(drop=True)  # type: ignore[attr-defined]
    return computed


def test_the_frame_of_an_index_is_to_dataframes(client: distributed.Client) -> None:
    index = str(SAMPLES / "sitemapindex" / "index.xml")
    bag = feedmap.dask.read_bag(index, options=Options(maps=SAMPLE_MAPS))
    frame = feedmap.dask.to_dataframe(bag)
    expected = feedmap.to_dataframe(index, Options(maps=SAMPLE_MAPS))
    assert frame.npartitions == bag.npartitions == 2  # one per child
    assert frame.dtypes.to_dict() == expected.dtypes.to_dict()  # the meta, before anything is computed
    pd.testing.assert_frame_equal(_computed(frame), expected)
    assert set(expected["sitemap"]) == {
        str(SAMPLES / "site" / "sitemap-pages.xml"),
        str(SAMPLES / "site" / "sitemap-posts.xml.gz"),
    }


def test_broken_children_and_the_bags_own_steps(client: distributed.Client, site: Path) -> None:
    options = Options(maps=((SITE, site),))
    bag = feedmap.dask.read_bag(str(site / "index.xml"), options=options)
    expected = feedmap.to_dataframe(str(site / "index.xml"), options)
    pd.testing.assert_frame_equal(_computed(feedmap.dask.to_dataframe(bag)), expected)
    dated = bag.filter(lambda entry: entry.lastmod is not None)
    pd.testing.assert_frame_equal(
        _computed(feedmap.dask.to_dataframe(dated)), expected[expected["lastmod"].notna()].reset_index(drop=True)
    )
    exploded = feedmap.to_dataframe(str(site / "index.xml"), options, explode="images")
    pd.testing.assert_frame_equal(_computed(feedmap.dask.to_dataframe(bag, explode="images")), exploded)


def test_strict_raises_when_the_frame_is_computed(client: distributed.Client, site: Path) -> None:
    options = Options(maps=((SITE, site),))
    bag = feedmap.dask.read_bag(str(site / "index.xml"), options=options)
    frame = feedmap.dask.to_dataframe(bag, Options(strict=True))  # lazy: nothing read yet
    with pytest.raises(StrictError):
        frame.compute()
    with pytest.raises(StrictError):
        feedmap.to_dataframe(str(site / "index.xml"), Options(maps=((SITE, site),), strict=True))
    with pytest.raises(ValueError, match=r"dask.to_dataframe\(\) cannot use dedupe"):
        feedmap.dask.to_dataframe(bag, Options(dedupe="newest"))


def test_to_parquet_writes_one_file_per_partition(client: distributed.Client, tmp_path: Path, site: Path) -> None:
    options = Options(maps=((SITE, site),))
    bag = feedmap.dask.read_bag(str(site / "index.xml"), options=options)
    feedmap.dask.to_dataframe(bag).to_parquet(tmp_path / "parts", write_index=False)
    files = sorted((tmp_path / "parts").glob("*.parquet"))
    assert len(files) == bag.npartitions
    locs = [loc for path in files for loc in pq.read_table(path, columns=["loc"]).column("loc").to_pylist()]
    assert locs == list(feedmap.to_dataframe(str(site / "index.xml"), options)["loc"])


def test_a_bag_made_by_other_means() -> None:
    entries = [Entry(loc=f"https://example.com/{n}", priority=n / 10) for n in range(10)]
    frame = feedmap.dask.to_dataframe(dask.bag.from_sequence(entries, npartitions=3))
    assert frame.npartitions == 3
    with dask.config.set(scheduler="sync"):
        pd.testing.assert_frame_equal(_computed(frame), feedmap.to_dataframe(feedmap.Document(entries=entries)))


@pytest.mark.parametrize(
    ("blocked", "words"), [({"pandas"}, "feedmap[dataframe]"), ({"dask.dataframe"}, "dask[dataframe]")]
)
def test_without_the_extra_the_error_says_what_to_install(blocked: set[str], words: str) -> None:
    script = (
        "import dask.bag, feedmap, feedmap.dask\n"
        "bag = dask.bag.from_sequence([feedmap.Entry(loc='https://example.com/')])\n"
        "try:\n"
        "    feedmap.dask.to_dataframe(bag)\n"
        "except feedmap.FormatError as error:\n"
        "    print(error)\n"
    )
    result = run_without(blocked, script)
    assert result.returncode == 0, result.stderr
    assert words in result.stdout and "feedmap.dask.to_dataframe needs" in result.stdout


def test_the_diagnostics_of_a_lazy_frame_are_computed_with_it_and_reading_runs_once(
    client: distributed.Client, site: Path, tmp_path: Path
) -> None:
    """The frame reaches no reporter: diagnostics(bag) is the lazy list, equal item for item to what entries()
    reports (the reading's, then a step's, then what the step says once), computed with the frame."""
    options = Options(maps=((SITE, site),))
    reads = tmp_path / "reads"
    reads.mkdir()

    def counted(entry: Entry) -> Entry:  # a line per entry mapped: computed twice, the lines would be twice
        with open(reads / str(os.getpid()), "a") as file:
            file.write(f"{entry.loc}\n")
        return entry

    bag = feedmap.dask.filter_entries(
        feedmap.dask.read_bag(str(site / "index.xml"), options=options), Options(since="2024-01-01")
    )
    said: list[feedmap.Diagnostic] = []
    expected = list(feedmap.dask.entries(bag, on_diagnostic=said.append))
    assert said and "no-lastmod-kept" in [d.code for d in said]  # said once, by the step, after the partitions
    mapped = bag.map(counted)
    computed, found = dask.compute(feedmap.dask.to_dataframe(mapped), feedmap.dask.diagnostics(mapped, as_frame=True))
    assert [
        feedmap.Diagnostic(feedmap.Level[row.level.upper()], row.code, row.message, row.source, row.line, row.column)
        for row in found.itertuples()
    ] == said
    assert (feedmap.dask.diagnostics(bag).compute()) == said  # the list, for a bag's outputs
    assert list(computed["loc"]) == [entry.loc for entry in expected]
    mapped_lines = sum(len(path.read_text().splitlines()) for path in reads.iterdir())
    assert mapped_lines == len(expected)  # the partitions were read and mapped once for both
    with pytest.raises(ValueError, match=r"sorted by feedmap\.dask\.sort_entries"):
        feedmap.dask.to_dataframe(feedmap.dask.sort_entries(bag, Options(sort="loc")))
