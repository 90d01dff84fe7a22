"""Options checked when made, and honoured (or refused) by every call (issue 18, point 3).

* A bad value is a ``ValueError`` naming the field when ``feedmap.Options`` is made, not a failure deep
  inside reading; sizes take the CLI's text (``"200M"``), dates their text, ``maps`` ``str`` or ``Path``.
* ``read``, ``write``, ``split`` and ``convert`` each honour every field they are given (the same selection
  steps convert runs), or raise ``ValueError`` naming the fields they cannot use.
* ``strict`` holds with any ``reporter=`` (every call and the converter steps); the caller's reporter keeps
  the diagnostics and is left as it was.
* ``convert(..., split=True)`` is typed (and is) a ``SplitSummary``; the types of the API let the README's
  kind of example pass ``mypy --strict``.
"""

from __future__ import annotations

import dataclasses
import io
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

import feedmap
from feedmap import Entry, Options, Reporter, StrictError, W3CDate
from feedmap.cli import main

BASE = "https://example.com/maps/"
LOCS = ["https://e.com/news/c", "https://e.com/a", "https://e.com/news/b", "https://e.com/a", "https://e.com/news/d"]
DATES = ["2024-03-01", "2023-01-01", "2024-01-01", "2024-06-01", "2022-01-01"]
#: What since 2024-01-01, include /news/, dedupe newest, sort -lastmod and limit 2 (:func:`selecting`) keep.
SELECTED = ["https://e.com/news/c", "https://e.com/news/b"]


def selecting(base_url: str | None = None) -> Options:
    return Options(since="2024-01-01", include="/news/", dedupe="newest", sort="-lastmod", limit=2, base_url=base_url)


def entries() -> list[Entry]:
    return [Entry(loc=loc, lastmod=W3CDate(date)) for loc, date in zip(LOCS, DATES, strict=True)]


def sitemap(tmp_path: Path) -> Path:
    path = tmp_path / "in.xml"
    feedmap.write(entries(), path, "jsonl")  # JSON lines keeps every entry, repeats included
    return path


# --------------------------------------------------------------------------- checked when made


def test_a_size_is_taken_as_the_cli_takes_it() -> None:
    options = Options(max_bytes="1G", max_line_bytes="64K", page_max_bytes="1.5M", max_file_bytes="10M")
    assert options.max_bytes == 1 << 30
    assert options.max_line_bytes == 64 * 1024
    assert options.page_max_bytes == 3 * 1024 * 1024 // 2
    assert options.max_file_bytes == 10 * 1024 * 1024
    assert Options(max_bytes=500).max_bytes == 500


def test_the_cli_and_options_share_the_size_parser(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match=r"^max_bytes: 'lots' is not a size; write bytes, or a number with K, M or G"):
        Options(max_bytes="lots")
    source = tmp_path / "urls.txt"
    source.write_text("https://www.example.com/a\n", "utf-8")
    assert main(["info", str(source), "--max-bytes", "lots"]) == 2
    assert "'lots' is not a size; write bytes, or a number with K, M or G" in capsys.readouterr().err


BOOLEANS = [field.name for field in dataclasses.fields(Options) if field.type == "bool"]


@pytest.mark.parametrize("field", BOOLEANS)
def test_a_boolean_field_refuses_anything_but_a_boolean(field: str) -> None:
    with pytest.raises(ValueError, match=f"^{field}: give True or False, not 'no'"):
        Options(**{field: "no"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_bytes", "lots"),
        ("dedupe", "oldest"),
        ("sort", "name"),
        ("since", "yesterday"),
        ("until", "2024-13-01"),
        ("include", "("),
        ("follow_child", "all"),
        ("base_url", "example.com/"),
        ("channel_link", "ftp://example.com/"),
        ("self_url", "https://example.com:port/feed.xml"),
        ("channel_title", "bell\x07"),
        ("channel_description", 5),
        ("channel_author", "bell\x07"),
        ("channel_updated", "soon"),
        ("set", {"priority": "high"}),
        ("set", 5),
        ("set_missing", ["loc=https://e.com/"]),
        ("maps", "https://example.com/=public/"),
        ("maps", [("https://example.com/",)]),
        ("maps", [("", "public")]),
        ("maps", [("https://example.com/", "")]),
        ("maps", [("https://example.com/", 5)]),
    ],
)
def test_a_bad_value_is_refused_when_made_naming_the_field(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"^{field}\\b"):
        Options(**{field: value})  # type: ignore[arg-type]


def test_maps_take_text_or_paths(tmp_path: Path) -> None:
    options = Options(maps=[("https://a.example/", str(tmp_path)), ("https://b.example/", tmp_path)])
    assert options.maps == (("https://a.example/", tmp_path), ("https://b.example/", tmp_path))


def test_dates_and_patterns_take_text() -> None:
    options = Options(since="2024-01-01", until=W3CDate("2024-12-31"), include="/news/", exclude=["a", "b"])
    assert (options.since, options.until) == (W3CDate("2024-01-01"), W3CDate("2024-12-31"))
    assert (options.include, options.exclude) == (("/news/",), ("a", "b"))


# --------------------------------------------------------------------------- each call honours its fields


def test_write_honours_the_selection(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    summary = feedmap.write(entries(), out, "text", selecting())
    assert out.read_text().split() == SELECTED
    assert summary.entries == 2


def test_write_of_a_document_read_honours_the_selection(tmp_path: Path) -> None:
    out = tmp_path / "out.xml"
    with feedmap.read(sitemap(tmp_path)) as doc:
        feedmap.write(doc, out, "sitemap", selecting())
    assert [entry.loc for entry in feedmap.read(out).entries] == SELECTED


def test_split_honours_the_selection(tmp_path: Path) -> None:
    summary = feedmap.split(entries(), tmp_path / "out", "text", selecting(BASE))
    assert summary.entries == 2
    assert (tmp_path / "out" / summary.files[0]).read_text().split() == SELECTED


def test_read_honours_the_selection(tmp_path: Path) -> None:
    with feedmap.read(sitemap(tmp_path), options=selecting()) as doc:
        assert [entry.loc for entry in doc.entries] == SELECTED


@pytest.mark.parametrize(
    ("field", "value"),
    [("limit", 1), ("sort", "loc"), ("since", "2024-06-01"), ("include", "/a$"), ("dedupe", "first")],
)
def test_each_call_honours_each_selecting_field(tmp_path: Path, field: str, value: object) -> None:
    options = Options(**{field: value})  # type: ignore[arg-type]
    expected = [entry.loc for entry in feedmap.read(sitemap(tmp_path), options=options).entries]
    assert expected != LOCS  # the field changes what is kept
    feedmap.write(entries(), tmp_path / "w.jsonl", "jsonl", options)
    assert [entry.loc for entry in feedmap.read(tmp_path / "w.jsonl").entries] == expected
    feedmap.convert(sitemap(tmp_path), tmp_path / "c.jsonl", "jsonl", options)
    assert [entry.loc for entry in feedmap.read(tmp_path / "c.jsonl").entries] == expected
    done = feedmap.split(entries(), tmp_path / "s", "text", dataclasses.replace(options, base_url=BASE))
    assert set((tmp_path / "s" / done.files[0]).read_text().split()) == set(expected)


def test_each_call_honours_enrich(tmp_path: Path) -> None:
    """``enrich`` (the pages read here from a mapped directory) fills the titles in every call."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "a.html").write_text("<html><head><title>Page A</title></head><body></body></html>", "utf-8")
    listed = tmp_path / "in.jsonl"
    feedmap.write([Entry(loc="https://e.com/a.html")], listed, "jsonl")
    options = Options(enrich=True, maps=[("https://e.com/", site)])

    def titles(path: Path) -> list[str | None]:
        return [entry.title for entry in feedmap.read(path).entries]

    assert [entry.title for entry in feedmap.read(listed, options=options).entries] == ["Page A"]
    feedmap.write(feedmap.read(listed), tmp_path / "w.jsonl", "jsonl", options)
    assert titles(tmp_path / "w.jsonl") == ["Page A"]
    done = feedmap.split(feedmap.read(listed), tmp_path / "s", "rss", dataclasses.replace(options, base_url=BASE))
    assert titles(tmp_path / "s" / done.files[0]) == ["Page A"]


@pytest.mark.parametrize(
    ("call", "settings", "named"),
    [
        ("read", dict(channel_title="News"), "channel_title"),
        ("read", dict(max_urls=2, schema_location=True), "schema_location, max_urls"),
        ("write", dict(max_urls=2), "max_urls"),
        ("write", dict(follow=False, max_depth=1), "follow, max_depth"),
        ("write", dict(base_url=BASE), "base_url"),
        ("write", dict(maps=[("https://e.com/", ".")]), "maps"),
        ("split", dict(base_url=BASE, follow=False), "follow"),
        ("write", dict(overwrite=True), "overwrite"),
        ("convert", dict(page_max_bytes="1M"), "page_max_bytes"),
    ],
)
def test_a_call_refuses_the_fields_it_cannot_use_naming_them(
    tmp_path: Path, call: str, settings: dict[str, object], named: str
) -> None:
    options = Options(**settings)  # type: ignore[arg-type]
    calls: dict[str, Callable[[], object]] = {
        "read": lambda: feedmap.read(sitemap(tmp_path), options=options),
        "write": lambda: feedmap.write(entries(), tmp_path / "out.txt", "text", options),
        "split": lambda: feedmap.split(entries(), tmp_path / "dir", "text", options),
        "convert": lambda: feedmap.convert(sitemap(tmp_path), tmp_path / "out.txt", "text", options),
    }
    with pytest.raises(ValueError, match=f"^{call}\\(\\) (cannot use|uses) {named} "):
        calls[call]()
    assert not (tmp_path / "out.txt").exists() and not (tmp_path / "dir").exists()


@pytest.mark.parametrize(
    ("call", "settings", "named"),
    [
        ("enrich", dict(channel_title="News"), "channel_title"),
        ("enrich", dict(limit=1), "limit"),
        ("diff", dict(channel_title="News"), "channel_title"),
        ("diff", dict(enrich=True), "enrich"),
        ("validate", dict(limit=1), "limit"),
        ("validate", dict(max_urls=10), "max_urls"),
        ("find_sitemaps", dict(follow=False), "follow"),
        ("sitemap_tree", dict(sort="loc"), "sort"),
    ],
)
def test_the_other_calls_refuse_the_fields_they_cannot_use_naming_them(
    tmp_path: Path, call: str, settings: dict[str, object], named: str
) -> None:
    options = Options(**settings)  # type: ignore[arg-type]
    source = sitemap(tmp_path)
    calls: dict[str, Callable[[], object]] = {
        "enrich": lambda: list(feedmap.enrich(entries(), options)),
        "diff": lambda: list(feedmap.diff(source, source, options)),
        "validate": lambda: feedmap.validate(source, options=options),
        "find_sitemaps": lambda: feedmap.find_sitemaps("http://127.0.0.1:1/", options),
        "sitemap_tree": lambda: feedmap.sitemap_tree(str(source), options),
    }
    with pytest.raises(ValueError, match=f"^{call}\\(\\) cannot use {named} "):
        calls[call]()


def test_one_options_serves_a_read_and_a_write_when_each_is_given_what_it_uses(tmp_path: Path) -> None:
    """The fields a call cannot use are those of another call; ``convert`` takes them all."""
    everything = Options(limit=1, channel_title="News", follow=False)
    summary = feedmap.convert(sitemap(tmp_path), tmp_path / "feed.xml", "rss", everything)
    assert summary.entries == 1
    with feedmap.read(sitemap(tmp_path), options=dataclasses.replace(everything, channel_title=None)) as doc:
        feedmap.write(doc, tmp_path / "feed2.xml", "rss", dataclasses.replace(everything, follow=True))
    assert (tmp_path / "feed2.xml").read_bytes() == (tmp_path / "feed.xml").read_bytes()


# --------------------------------------------------------------------------- strict with any reporter


def relative(tmp_path: Path) -> Path:
    path = tmp_path / "rel.xml"
    path.write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/a</loc></url></urlset>', "utf-8"
    )
    return path


#: Each call given a relative URL (a warning), its options and a reporter.
STRICT_CALLS: dict[str, Callable[[Path, Options, Reporter], object]] = {
    "read": lambda tmp, options, reporter: list(feedmap.read(relative(tmp), options=options, reporter=reporter)),
    "write": lambda tmp, options, reporter: feedmap.write(
        [Entry(loc="/a")], tmp / "o.xml", "sitemap", options, reporter=reporter
    ),
    "split": lambda tmp, options, reporter: feedmap.split(
        [Entry(loc="/a")], tmp / "d", "sitemap", dataclasses.replace(options, base_url=BASE), reporter=reporter
    ),
    "convert": lambda tmp, options, reporter: feedmap.convert(
        relative(tmp), tmp / "o.xml", "sitemap", options, reporter=reporter
    ),
    "step": lambda tmp, options, reporter: list(
        feedmap.converters.check_values([Entry(loc="/a")], options, reporter=reporter)
    ),
    "step-on-a-document": lambda tmp, options, reporter: list(
        feedmap.converters.check_values(feedmap.Document(entries=[Entry(loc="/a")]), options, reporter=reporter)
    ),
    "enrich": lambda tmp, options, reporter: list(
        feedmap.enrich([Entry(loc="/a")], dataclasses.replace(options, concurrency=1), reporter=reporter)
    ),
}


@pytest.mark.parametrize("call", STRICT_CALLS)
def test_strict_holds_with_a_reporter_given(tmp_path: Path, call: str) -> None:
    reporter = Reporter()
    with pytest.raises(StrictError):
        STRICT_CALLS[call](tmp_path, Options(strict=True), reporter)
    assert not reporter.strict  # the caller's reporter is left as it was
    lenient = Reporter()
    (tmp_path / "again").mkdir()
    STRICT_CALLS[call](tmp_path / "again", Options(), lenient)  # the warning, reported and read on
    assert lenient.warnings


def test_a_strict_call_keeps_the_notes_before_the_warning_in_the_callers_reporter(tmp_path: Path) -> None:
    reporter = Reporter()
    base = Options(strict=True, base_url="https://e.com/")
    assert [entry.loc for entry in feedmap.read(relative(tmp_path), options=base, reporter=reporter)] == [
        "https://e.com/a"
    ]
    assert "relative-url-resolved" in reporter.counts


# --------------------------------------------------------------------------- convert's types


def test_convert_with_split_true_writes_a_directory_and_returns_a_split_summary(tmp_path: Path) -> None:
    summary = feedmap.convert(sitemap(tmp_path), tmp_path / "maps", "sitemap", Options(base_url=BASE), split=True)
    assert isinstance(summary, feedmap.SplitSummary)
    assert summary.files == ("sitemap-1.xml",) and (tmp_path / "maps" / summary.index).is_file()


def test_convert_with_split_false_writes_one_file_even_to_a_slash(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(feedmap.SourceError):
        feedmap.convert(sitemap(tmp_path), f"{tmp_path / 'dir'}{os.sep}", "sitemap", split=False)
    assert list((tmp_path / "dir").iterdir()) == []


TYPED_EXAMPLE = """
import itertools
from collections.abc import Iterator

import feedmap

options = feedmap.Options(max_bytes="1G", since="2024-01-01", include=r"/news/", sort="-lastmod",
                          maps=[("https://www.example.com/maps/", "public/maps/")], max_file_bytes="10M")
done: feedmap.SplitSummary = feedmap.convert(["a.xml"], "public/", "sitemap", options, split=True)
print(done.files, done.index)
one: feedmap.Summary = feedmap.convert("a.xml", "out.txt", "text")
with feedmap.read("a.xml", options=options) as a:
    entries: Iterator[feedmap.Entry] = itertools.chain(a.entries)
    feedmap.write(entries, "all.xml", "sitemap")
"""
#: What mypy --strict refuses: a sort that is none of the choices, a date that is no date type.
WRONG_EXAMPLE = """
import feedmap

feedmap.Options(sort="name")
feedmap.Options(since=20240101)
split: feedmap.SplitSummary = feedmap.convert("a.xml", "out/", "sitemap")
"""


#: A value of each field as a caller writes it (text where text is taken): mypy --strict takes each, so the
#: constructor's signature holds every field with the types it accepts.
EVERY_FIELD = {
    "strict": "True",
    "max_bytes": '"200M"',
    "max_line_bytes": "4096",
    "follow": "False",
    "follow_child": "lambda loc, lastmod: lastmod is None",
    "max_depth": "2",
    "concurrency": "4",
    "jobs": "2",
    "dask": "None",
    "http": 'feedmap.HttpSettings(cache_dir="cache", read_timeout=5)',
    "maps": '[("https://e.com/", "public"), ("https://f.com/", pathlib.Path("f"))]',
    "base_url": '"https://e.com/"',
    "schema_location": "True",
    "encode_urls": "True",
    "keep_urls": "False",
    "keep_feed_extras": "False",
    "channel_title": '"News"',
    "channel_link": '"https://e.com/"',
    "channel_description": '"All the news"',
    "self_url": '"https://e.com/feed.xml"',
    "channel_author": '"Example Press"',
    "channel_updated": '"2024-06-01"',
    "enrich": "True",
    "overwrite": "True",
    "page_max_bytes": '"1M"',
    "since": '"2024-01-01"',
    "until": 'feedmap.W3CDate("2024-12-31")',
    "require_lastmod": "True",
    "include": '"/news/"',
    "exclude": '("/a/", "/b/")',
    "limit": "10",
    "dedupe": '"first"',
    "set": '{"type": "Product", "priority": 0.5}',
    "set_missing": '["changefreq=weekly", ("lastmod", feedmap.W3CDate("2024-01-01"))]',
    "sort": '"-lastmod"',
    "max_urls": "1000",
    "max_file_bytes": '"10M"',
    "name": '"map-{n}.xml"',
    "gzip": "True",
    "index_name": '"index.xml"',
    "explode": '"images"',
    "excel_safe": "True",
    "rebalance": "True",
}


def test_every_field_is_in_the_typed_example() -> None:
    assert set(EVERY_FIELD) == {field.name for field in dataclasses.fields(Options)}


def _mypy(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    example = tmp_path / "example.py"
    example.write_text(textwrap.dedent(text), "utf-8")
    repository = Path(feedmap.__file__).resolve().parent.parent  # where mypy finds the package
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), str(example)],
        capture_output=True,
        text=True,
        check=False,
        cwd=repository,
    )


def test_the_api_types_let_such_examples_pass_mypy_strict(tmp_path: Path) -> None:
    every = ", ".join(f"{name}={value}" for name, value in EVERY_FIELD.items())
    made = f"import pathlib\nimport feedmap\n\nevery = feedmap.Options({every})\n"
    exec(compile(made, "every.py", "exec"), {})  # the same values are taken at run time
    result = _mypy(tmp_path, TYPED_EXAMPLE + made)
    assert result.returncode == 0, result.stdout
    wrong = _mypy(tmp_path, WRONG_EXAMPLE)
    assert wrong.returncode == 1
    assert wrong.stdout.count("error:") == 3, wrong.stdout


@pytest.mark.parametrize(
    "given",
    [
        {"max_urls": 1},
        {"gzip": True},
        {"max_file_bytes": 10},
        {"name": "x-{n}.xml"},
        {"index_name": "i.xml"},
        {"rebalance": True},
    ],
)
def test_convert_to_one_output_refuses_the_options_of_splitting(given: dict[str, object], tmp_path: Path) -> None:
    """``convert`` to a file (or a stream) cannot use the options of writing into a directory: refused by name,
    not silently dropped (a ``max_urls=1`` used to write every URL into the one file)."""
    source = tmp_path / "in.txt"
    source.write_text("https://e.com/a\nhttps://e.com/b\n", encoding="utf-8")
    (name,) = given
    with pytest.raises(ValueError, match=name):
        feedmap.convert(source, tmp_path / "out.xml", "sitemap", feedmap.Options(**given))  # type: ignore[arg-type]
    assert not (tmp_path / "out.xml").exists()
    with pytest.raises(ValueError, match=name):
        feedmap.convert(source, io.BytesIO(), "sitemap", feedmap.Options(**given))  # type: ignore[arg-type]
