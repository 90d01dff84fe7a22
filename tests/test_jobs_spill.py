"""What a worker hands back (``--jobs N``): entries rebuilt from their plain fields equal entries read in one process.

A worker sends the run each entry as its fields, the lastmod as its text, and the run rebuilds the ``W3CDate``
without validating that text again (the worker's reader did).  These tests read the same children with and
without workers and compare every field and every date's behaviour (order, precision, instant), and check that
the public constructor still refuses a text that is not a W3C datetime.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from conftest import SITEMAP_NS, index_xml

import feedmap
from feedmap import Options, W3CDate

SITE = "https://example.com/"

#: Every form of W3C-DTF a lastmod may take, each read through a worker and back.
DATES = (
    "2024",
    "2024-02",
    "2024-02-29",
    "2024-02-29T10:30Z",
    "2024-02-29T10:30:15+02:00",
    "2024-02-29T10:30:15.123456-05:30",
    "2023-12-31T23:59:60Z",
    "2005-01-01T00:00+00:00",
    "2005-01-01T00:00Z",
)


def _child(number: int) -> str:
    rows = []
    for i, date in enumerate(DATES):
        image = f"<image:image><image:loc>{SITE}i{number}-{i}.png</image:loc></image:image>" if i % 2 else ""
        rows.append(
            f"<url><loc>{SITE}{number}/{i}</loc><lastmod>{date}</lastmod><changefreq>weekly</changefreq>"
            f"<priority>0.{i}</priority>{image}</url>"
        )
    rows.append(f"<url><loc>{SITE}{number}/undated</loc></url>")
    image_ns = 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    return f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}" {image_ns}>\n{"".join(rows)}\n</urlset>\n'


@pytest.fixture
def site(tmp_path: Path) -> Path:
    for number in range(3):
        (tmp_path / f"c{number}.xml").write_text(_child(number))
    (tmp_path / "index.xml").write_bytes(index_xml(*(f"{SITE}c{number}.xml" for number in range(3))))
    return tmp_path


def _entries(site: Path, jobs: int) -> list[feedmap.Entry]:
    options = Options(jobs=jobs, maps=((SITE, site),))
    with feedmap.read(str(site / "index.xml"), options=options) as doc:
        return list(doc.entries)


def test_dates_read_through_workers_equal_dates_read_without(site: Path) -> None:
    alone, through_workers = _entries(site, 1), _entries(site, 2)
    assert len(alone) == 3 * (len(DATES) + 1)
    assert through_workers == alone
    assert [entry.origin for entry in through_workers] == [entry.origin for entry in alone]
    for mine, theirs in zip(through_workers, alone, strict=True):
        if theirs.lastmod is None:
            assert mine.lastmod is None
            continue
        assert type(mine.lastmod) is W3CDate
        assert mine.lastmod == theirs.lastmod and hash(mine.lastmod) == hash(theirs.lastmod)
        assert str(mine.lastmod) == str(theirs.lastmod)
        assert mine.lastmod.precision == theirs.lastmod.precision
        assert mine.lastmod.to_datetime() == theirs.lastmod.to_datetime()
        assert mine.lastmod == W3CDate(str(theirs.lastmod))  # the same as a date checked by the constructor
        assert pickle.loads(pickle.dumps(mine.lastmod)) == theirs.lastmod
    dated = [entry.lastmod for entry in through_workers if entry.lastmod is not None]
    expected = [entry.lastmod for entry in alone if entry.lastmod is not None]
    assert sorted(dated) == sorted(expected)
    assert max(dated) == max(expected)


def test_dates_from_workers_stay_immutable(site: Path) -> None:
    lastmod = _entries(site, 2)[0].lastmod
    assert lastmod is not None
    with pytest.raises(AttributeError):
        lastmod.text = "1999"


@pytest.mark.parametrize("text", ["yesterday", "2024-13-01", "2024-02-30", "2024-02-29T25:00Z", "2024-02-29T10:30", ""])
def test_the_constructor_still_refuses_a_text_that_is_not_a_date(text: str) -> None:
    with pytest.raises(ValueError, match="not a W3C datetime"):
        W3CDate(text)


def test_a_date_workers_would_have_refused_is_reported_the_same(tmp_path: Path) -> None:
    child = _child(0).replace("<lastmod>2024</lastmod>", "<lastmod>2024-02-30</lastmod>")
    (tmp_path / "c0.xml").write_text(child)
    (tmp_path / "c1.xml").write_text(_child(1))
    (tmp_path / "index.xml").write_bytes(index_xml(f"{SITE}c0.xml", f"{SITE}c1.xml"))
    seen: dict[int, list[str]] = {}  # the lastmods read (jobs), the diagnostics reported (-jobs)
    for jobs in (1, 2):
        diagnostics: list[feedmap.Diagnostic] = []
        options = Options(jobs=jobs, maps=((SITE, tmp_path),))
        with feedmap.read(str(tmp_path / "index.xml"), options=options, on_diagnostic=diagnostics.append) as doc:
            seen[jobs] = [str(entry.lastmod) for entry in doc.entries]
        seen[-jobs] = [f"{diagnostic.code} {diagnostic.message}" for diagnostic in diagnostics]
    assert seen[2] == seen[1] and seen[-2] == seen[-1] and seen[-1]
