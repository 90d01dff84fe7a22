"""``--set FIELD=VALUE`` / ``Options(set=...)`` and ``--set-missing`` (issue 22, item 4): a value on every entry,
checked as a reader checks a value it reads, an invalid one a usage error naming the field; ``set`` replaces
what was read (said: ``fields-set``), ``set_missing`` fills only what is missing; the same output with workers.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import run
from jobsite import SITE
from jobsite import jobs_site as _site

import feedmap
from feedmap import ChangeFreq, Entry, Options, Reporter, W3CDate, converters

ENTRIES = [
    Entry(loc="https://e.example/a", lastmod=W3CDate("2024-01-02"), title="A", type="Article"),
    Entry(loc="https://e.example/b", changefreq=ChangeFreq.WEEKLY, keywords=("old",)),
]
JSONL = "".join(
    json.dumps(line) + "\n"
    for line in (
        {"loc": "https://e.example/a", "lastmod": "2024-01-02", "title": "A", "type": "Article"},
        {"loc": "https://e.example/b", "changefreq": "weekly", "keywords": ["old"]},
    )
)


def converted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, *flags: str
) -> tuple[int, list[dict[str, object]], str]:
    """``feedmap convert`` of :data:`JSONL` to JSON lines with ``flags``: exit code, the records, stderr."""
    source = tmp_path / "in.jsonl"
    source.write_text(JSONL, "utf-8")
    code, out, err = run(capsys, "convert", source, "-t", "jsonl", *flags)
    return code, [json.loads(line) for line in out.splitlines() if '"loc"' in line], err


@pytest.mark.parametrize(
    ("given", "field", "value"),
    [
        ("lastmod=2024-06", "lastmod", "2024-06"),  # the precision written is kept
        ("lastmod=2024-06-01T10:30:00+02:00", "lastmod", "2024-06-01T10:30:00+02:00"),
        ("changefreq=daily", "changefreq", "daily"),
        ("priority=0.7", "priority", 0.7),
        ("title=Hello = world", "title", "Hello = world"),  # the value runs to the end, '=' included
        ("description=<p>Hi</p>", "description", "<p>Hi</p>"),
        ("keywords=a, b ,,c", "keywords", ["a", "b", "c"]),
        ("type=Product", "type", "Product"),
    ],
)
def test_each_field_is_set_on_every_entry(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, given: str, field: str, value: object
) -> None:
    code, records, err = converted(capsys, tmp_path, "--set", given)
    assert code == 0
    assert [record[field] for record in records] == [value, value]
    assert "info[fields-set]" in err


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("lastmod=2024/06/01", "lastmod: '2024/06/01' is not a W3C datetime: write 2024-06-01"),
        ("lastmod=yesterday", "lastmod: 'yesterday' is not a W3C datetime"),
        ("lastmod=2024-02-30", "lastmod: '2024-02-30' is not a W3C datetime"),
        ("priority=1.5", "priority: 1.5 is not between 0.0 and 1.0"),
        ("priority=1e-1", "priority: '1e-1' is not a decimal number"),
        (
            "changefreq=Daily",
            "changefreq: 'Daily' is not one of always, hourly, daily, weekly, monthly, yearly, never; write 'daily'",
        ),
        ("changefreq=sometimes", "changefreq: 'sometimes' is not one of"),
        ("title=bell\x07", "title: U+0007 cannot be written in XML 1.0"),
        ("loc=https://e.example/", "loc cannot be set on every entry"),
        ("images=x", "images cannot be set on every entry"),
        ("colour=red", "'colour' is no field that can be set"),
        ("type", "'type' is no FIELD=VALUE"),
    ],
)
def test_an_invalid_value_is_a_usage_error_naming_the_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, given: str, said: str
) -> None:
    code, records, err = converted(capsys, tmp_path, "--set", given)
    assert (code, records) == (2, [])
    assert f"argument --set: {said}" in err
    with pytest.raises(ValueError, match=r"^set: "):
        Options(set=[given])


@pytest.mark.parametrize(
    "flags",
    [["--set", "type=A", "--set", "type=B"], ["--set", "type=A", "--set-missing", "type=B"]],
)
def test_a_field_given_twice_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, flags: list[str]
) -> None:
    code, _, err = converted(capsys, tmp_path, *flags)
    assert code == 2 and "type is given" in err
    with pytest.raises(ValueError, match=r"^set(_missing)?: type is given"):
        Options(set=[flags[1]], set_missing=[flags[3]]) if flags[2] == "--set-missing" else Options(set=flags[1::2])


def test_set_replaces_what_was_read_and_says_how_much(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, records, err = converted(capsys, tmp_path, "--set", "type=Product", "--set", "changefreq=daily")
    assert code == 0
    assert [(record["type"], record["changefreq"]) for record in records] == [
        ("Product", "daily"),
        ("Product", "daily"),
    ]
    assert (
        "info[fields-set]: type set on 2 entries, replacing 1 other value read; "
        "changefreq set on 2 entries, replacing 1 other value read" in err
    )


def test_set_missing_fills_only_entries_without_a_value(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, records, err = converted(capsys, tmp_path, "--set-missing", "type=Product", "--set-missing", "keywords=x")
    assert code == 0
    assert [(record["type"], record["keywords"]) for record in records] == [("Article", ["x"]), ("Product", ["old"])]
    assert "type filled in on 1 entry without one; keywords filled in on 1 entry without one" in err


def test_an_empty_value_clears_the_field(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, records, err = converted(capsys, tmp_path, "--set", "title=", "--set", "keywords=")
    assert code == 0
    assert all("title" not in record and "keywords" not in record for record in records)
    assert (
        "title cleared on 2 entries, removing 1 value read; keywords cleared on 2 entries, removing 1 value read" in err
    )


def test_values_are_set_before_the_selection_sees_them(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Set first: --since compares the lastmod set, as every later step sees the values set."""
    assert converted(capsys, tmp_path, "--set", "lastmod=2020-01-01", "--since", "2024-01-01")[1] == []
    _, records, _ = converted(capsys, tmp_path, "--set-missing", "lastmod=2025-01-01", "--since", "2024-06-01")
    assert [record["loc"] for record in records] == ["https://e.example/b"]


def test_ror_writes_the_type_set(tmp_path: Path) -> None:
    """The issue's case: a ROR feed whose items are all products, without a script to add ror:type to each."""
    sink = io.BytesIO()
    feedmap.convert(io.BytesIO(JSONL.encode()), sink, "ror", Options(set={"type": "Product"}), reporter=Reporter())
    assert sink.getvalue().count(b"<ror:type>Product</ror:type>") == 2
    with feedmap.read(io.BytesIO(sink.getvalue()), format="ror") as doc:
        assert [entry.type for entry in doc] == ["Product", "Product"]


def test_options_take_a_mapping_pairs_or_texts_and_typed_values() -> None:
    made = Options(set={"lastmod": "2024-06", "priority": 0.5, "changefreq": ChangeFreq.DAILY, "keywords": ["a"]})
    assert made.set == (
        ("lastmod", W3CDate("2024-06")),
        ("priority", 0.5),
        ("changefreq", ChangeFreq.DAILY),
        ("keywords", ("a",)),
    )
    assert Options(set=[("type", "Product"), "title=T"]).set == (("type", "Product"), ("title", "T"))
    assert Options(set_missing="changefreq=weekly").set_missing == (("changefreq", ChangeFreq.WEEKLY),)


def test_the_step_is_public_and_runs_on_entries_and_documents() -> None:
    options = Options(set={"type": "Product"}, set_missing={"title": "Untitled"})
    seen: list[str] = []
    changed = list(converters.set_fields(ENTRIES, options, on_diagnostic=lambda d: seen.append(d.code)))
    assert [(entry.type, entry.title) for entry in changed] == [("Product", "A"), ("Product", "Untitled")]
    assert [entry.loc for entry in changed] == [entry.loc for entry in ENTRIES]
    assert seen == ["fields-set"]
    with feedmap.read(io.BytesIO(JSONL.encode()), options=options) as doc:  # read() runs it too
        assert [entry.type for entry in doc] == ["Product", "Product"]


def test_every_call_that_selects_sets_the_values(tmp_path: Path) -> None:
    options = Options(set={"type": "Product"})
    feedmap.write(ENTRIES, tmp_path / "w.jsonl", "jsonl", options)
    done = feedmap.split(ENTRIES, tmp_path / "s", "ror", Options(set={"type": "Product"}, base_url=SITE, max_urls=1))
    assert len(done.files) == 2
    for path in [tmp_path / "w.jsonl", *(tmp_path / "s" / name for name in done.files)]:
        with feedmap.read(path, options=Options(follow=False)) as doc:
            assert {entry.type for entry in doc} == {"Product"}
    frame = feedmap.to_dataframe(tmp_path / "w.jsonl", Options(set={"type": "Service"}))
    assert list(frame["type"]) == ["Service", "Service"]


def test_workers_give_the_same_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    site = tmp_path / "site"
    _site(site, count=40)
    argv = [site / "index.xml", "--map", f"{SITE}={site}", "-t", "jsonl", "--set", "type=Product"]
    one = run(capsys, "convert", *argv, "--set-missing", "lastmod=2024-01-01", "--jobs", "1")
    two = run(capsys, "convert", *argv, "--set-missing", "lastmod=2024-01-01", "--jobs", "2")
    assert one == two
    lines = one[1].splitlines()
    assert len(lines) > 100 and all('"type":"Product"' in line for line in lines)


def test_a_dask_bag_is_given_the_values_when_it_is_written() -> None:
    pytest.importorskip("dask")
    from feedmap import dask as feedmap_dask

    with pytest.raises(ValueError, match=r"read_bag\(\) cannot use set .*set: feedmap\.dask\.write_split"):
        feedmap_dask.read_bag("in.jsonl", options=Options(set={"type": "Product"}))
