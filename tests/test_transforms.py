"""The conversion steps as public transforms, and the library doing what the CLI does.

* relative URLs resolved against the document's base (its own URL, ``base_url``, a feed's channel link),
  reported (``relative-url-resolved``); without a base reported (``relative-url``) and left out of XML
  outputs (``relative-url-left-out``), kept in JSON lines and text;
* repeated URLs reported by every conversion (``loc-duplicate``), merged for every target but JSON lines,
  whatever the order and kind of the inputs; :func:`feedmap.write` merges as :func:`feedmap.convert` does;
* :class:`~feedmap.Entry` coerces a string or datetime lastmod and a string changefreq, refuses other types;
  values built in code get the readers' checks when written; :meth:`W3CDate.from_datetime`;
* library messages name no command-line flag; the CLI adds the advice by code.
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
import io
import json
import re
from pathlib import Path

import pytest
from conftest import codes

import feedmap
from feedmap import ChangeFreq, Diagnostic, Entry, LimitError, UnknownFormatError, W3CDate
from feedmap.cli import main
from feedmap.converters import (
    check_values,
    keep_absolute,
    merge_duplicates,
    relative_reference,
    report_duplicates,
    resolve_relative,
)

PACKAGE = Path(feedmap.__file__).parent


def feed_xml(items: list[tuple[str, str | None]], link: str | None = "https://blog.example/") -> bytes:
    channel_link = f"<link>{link}</link>" if link else ""
    body = "".join(
        f"<item><title>{loc}</title><link>{loc}</link>" + (f"<pubDate>{date}</pubDate>" if date else "") + "</item>"
        for loc, date in items
    )
    return (
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>{channel_link}<description>d</description>'
        f"{body}</channel></rss>"
    ).encode()


def sitemap_xml(locs: list[tuple[str, str | None]]) -> bytes:
    urls = "".join(
        f"<url><loc>{loc}</loc>" + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "") + "</url>\n"
        for loc, lastmod in locs
    )
    return f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{urls}</urlset>\n'.encode()


def locs_of(data: bytes, format: str | None = None) -> list[str]:
    with feedmap.read(io.BytesIO(data), format=format, options=feedmap.Options(follow=False)) as doc:
        return [entry.loc for entry in doc]


# ------------------------------------------------------------------------------------------------ relative URLs


def test_a_relative_feed_link_is_resolved_against_the_channel_link() -> None:
    data = feed_xml([("/blog/post-4.html", None)])
    seen: list[Diagnostic] = []
    with feedmap.read(io.BytesIO(data), on_diagnostic=seen.append) as doc:
        assert [entry.loc for entry in doc] == ["https://blog.example/blog/post-4.html"]
    assert codes(seen) == ["relative-url-resolved"]


def test_the_documents_own_url_comes_before_the_channel_link(tmp_path: Path) -> None:
    (tmp_path / "feed.xml").write_bytes(feed_xml([("post.html", None)], link="https://other.example/"))
    url = "https://blog.example/news/feed.xml"
    with feedmap.read(url, options=feedmap.Options(maps=[("https://blog.example/news/", tmp_path)])) as doc:
        assert [entry.loc for entry in doc] == ["https://blog.example/news/post.html"]


def test_base_url_resolves_a_local_sitemap(tmp_path: Path) -> None:
    path = tmp_path / "site.xml"
    path.write_bytes(sitemap_xml([("/a.html", None), ("https://www.example.com/b", None)]))
    seen: list[Diagnostic] = []
    with feedmap.read(
        path, on_diagnostic=seen.append, options=feedmap.Options(base_url="https://www.example.com/")
    ) as doc:
        assert [entry.loc for entry in doc] == ["https://www.example.com/a.html", "https://www.example.com/b"]
    assert [(d.code, d.line) for d in seen] == [("relative-url-resolved", 2)]


@pytest.mark.parametrize("target", ["sitemap", "sitemapindex", "rss", "ror"])
def test_without_a_base_a_relative_url_is_left_out_of_xml_output(tmp_path: Path, target: str) -> None:
    path = tmp_path / "site.xml"
    path.write_bytes(sitemap_xml([("/a.html", None), ("https://www.example.com/b", None)]))
    out = tmp_path / "out.xml"
    summary = feedmap.convert(path, out, format=target)
    assert summary.entries == 1
    assert "/a.html" not in out.read_text()
    assert "relative-url" in codes(summary.diagnostics)
    left_out = [d for d in summary.diagnostics if d.code == "relative-url-left-out"]
    assert len(left_out) == 1 and left_out[0].line == 2


@pytest.mark.parametrize("target", ["jsonl", "text"])
def test_json_lines_and_text_keep_a_relative_url(tmp_path: Path, target: str) -> None:
    path = tmp_path / "site.xml"
    path.write_bytes(sitemap_xml([("/a.html", None), ("https://www.example.com/b", None)]))
    out = tmp_path / "out"
    summary = feedmap.convert(path, out, format=target)
    assert summary.entries == 2
    assert "/a.html" in out.read_text()
    assert "relative-url-left-out" not in codes(summary.diagnostics)


def test_the_cli_resolves_the_feed_link_and_writes_no_relative_loc(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "feed.xml", tmp_path / "out.xml"
    source.write_bytes(feed_xml([("/blog/post-4.html", None)]))
    assert main(["convert", str(source), "-t", "rss", "-o", str(out)]) == 0
    assert '<guid isPermaLink="true">https://blog.example/blog/post-4.html</guid>' in out.read_text()
    assert "info[relative-url-resolved]" in capsys.readouterr().err


def test_resolve_relative_and_keep_absolute_as_functions() -> None:
    entries = [Entry(loc="/a"), Entry(loc="https://x.example/b"), Entry(loc="c d")]
    seen: list[Diagnostic] = []
    base = feedmap.Options(base_url="https://x.example/dir/")
    resolved = list(resolve_relative(entries, base, on_diagnostic=seen.append))
    assert [entry.loc for entry in resolved] == ["https://x.example/a", "https://x.example/b", "c d"]
    assert codes(seen) == ["relative-url-resolved"]
    seen.clear()
    assert [e.loc for e in keep_absolute(resolved, on_diagnostic=seen.append)] == [
        "https://x.example/a",
        "https://x.example/b",
    ]
    assert codes(seen) == ["relative-url-left-out"]
    assert relative_reference("//host/x") and relative_reference("?q") and not relative_reference("a b")


# ------------------------------------------------------------------------------------------------ duplicates

FEED = feed_xml(
    [
        ("https://blog.example/a", "Tue, 02 Apr 2024 08:00:00 GMT"),
        ("https://blog.example/b", None),
        ("https://blog.example/a", "Mon, 01 Jan 2024 00:00:00 GMT"),
    ]
)
SITE = sitemap_xml(
    [("https://blog.example/a", "2025-01-01"), ("https://blog.example/c", None), ("https://blog.example/b", None)]
)


def test_write_merges_duplicates_as_convert_does(tmp_path: Path) -> None:
    out = tmp_path / "out.xml"
    with feedmap.read(io.BytesIO(FEED)) as doc:
        summary = feedmap.write(doc, out, format="sitemap")
    assert locs_of(out.read_bytes()) == ["https://blog.example/a", "https://blog.example/b"]
    assert "<lastmod>2024-04-02T08:00:00Z</lastmod>" in out.read_text()
    assert codes(summary.diagnostics).count("loc-duplicate") == 1


@pytest.mark.parametrize("target", ["sitemap", "sitemapindex", "rss", "ror", "text"])
def test_the_merge_does_not_depend_on_the_order_of_the_inputs(tmp_path: Path, target: str) -> None:
    feed, site = tmp_path / "rss.xml", tmp_path / "site.xml"
    feed.write_bytes(FEED)
    site.write_bytes(SITE)
    merged = []
    for order in ([feed, site], [site, feed]):
        out = tmp_path / f"out-{len(merged)}"
        summary = feedmap.convert(order, out, format=target)
        assert summary.entries == 3
        found = [d for d in summary.diagnostics if d.code == "duplicates-merged"]
        assert len(found) == 1 and found[0].message.startswith("3 ")
        merged.append(sorted(locs_of(out.read_bytes(), "text" if target == "text" else None)))
    assert merged[0] == merged[1] == ["https://blog.example/a", "https://blog.example/b", "https://blog.example/c"]


def test_the_newest_entry_is_kept_whichever_input_it_comes_from(tmp_path: Path) -> None:
    feed, site = tmp_path / "rss.xml", tmp_path / "site.xml"
    feed.write_bytes(FEED)
    site.write_bytes(SITE)
    for order in ([feed, site], [site, feed]):
        out = tmp_path / "out.xml"
        feedmap.convert(order, out, format="sitemap")
        with feedmap.read(out) as doc:
            lastmods = {entry.loc: entry.lastmod for entry in doc}
        assert lastmods["https://blog.example/a"] == W3CDate("2025-01-01")


def test_json_lines_keeps_repeats_and_reports_each_with_its_count_and_first_line(tmp_path: Path) -> None:
    site = tmp_path / "site.xml"
    a, b = ("https://e.example/a", None), ("https://e.example/b", None)
    site.write_bytes(sitemap_xml([a, b, a, a]))
    out = tmp_path / "out.jsonl"
    summary = feedmap.convert(site, out, format="jsonl")
    assert summary.entries == 4
    (duplicate,) = [d for d in summary.diagnostics if d.code == "loc-duplicate"]
    assert (duplicate.source, duplicate.line) == (str(site), 4)  # the first repeat: JSON lines merges nothing
    assert "3 times" in duplicate.message


def test_a_merge_reports_the_first_occurrence(tmp_path: Path) -> None:
    site = tmp_path / "site.xml"
    site.write_bytes(sitemap_xml([("https://e.example/b", None)] + [("https://e.example/a", None)] * 3))
    summary = feedmap.convert(site, tmp_path / "out.xml", format="sitemap")
    (duplicate,) = [d for d in summary.diagnostics if d.code == "loc-duplicate"]
    assert duplicate.line == 3 and "3 times" in duplicate.message


def test_merge_and_report_duplicates_as_functions() -> None:
    entries = [
        Entry(loc="https://e.example/a", lastmod="2024-01-01"),
        Entry(loc="https://e.example/b"),
        Entry(loc="https://e.example/a", lastmod="2024-02-01"),
    ]
    seen: list[Diagnostic] = []
    merged = list(merge_duplicates(entries, on_diagnostic=seen.append))
    assert [(e.loc, e.lastmod) for e in merged] == [
        ("https://e.example/a", W3CDate("2024-02-01")),
        ("https://e.example/b", None),
    ]
    assert codes(seen) == ["loc-duplicate", "duplicates-merged"]
    seen.clear()
    assert list(report_duplicates(entries, on_diagnostic=seen.append)) == entries
    assert codes(seen) == ["loc-duplicate"]


def test_a_transform_of_a_document_gives_a_document_with_its_diagnostics() -> None:
    with feedmap.read(io.BytesIO(FEED)) as doc:
        merged = merge_duplicates(doc)
        assert isinstance(merged, feedmap.Document)
        assert merged.meta.link == "https://blog.example/"
        assert len(list(merged)) == 2
        assert "loc-duplicate" in codes(merged.diagnostics)


def test_hash_collisions_are_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    import feedmap.converters as transforms
    import feedmap.converters._duplicates as duplicates

    monkeypatch.setattr(duplicates, "hash", lambda text: 1, raising=False)
    entries = [Entry(loc="https://e.example/a"), Entry(loc="https://e.example/b"), Entry(loc="https://e.example/a")]
    assert [e.loc for e in transforms.merge_duplicates(entries)] == ["https://e.example/a", "https://e.example/b"]


def test_a_colliding_loc_keeps_its_place_in_the_merged_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two locs with one hash: the second is still written where it was first seen, not after all the others."""
    import builtins

    import feedmap.converters as transforms
    import feedmap.converters._duplicates as duplicates

    colliding = {"https://e.example/a", "https://e.example/b"}
    monkeypatch.setattr(duplicates, "hash", lambda text: 1 if text in colliding else builtins.hash(text), raising=False)
    locs = ["https://e.example/a", "https://e.example/b", "https://e.example/c", "https://e.example/b"]
    merged = transforms.merge_duplicates([Entry(loc=loc) for loc in locs])
    assert [e.loc for e in merged] == ["https://e.example/a", "https://e.example/b", "https://e.example/c"]


# ------------------------------------------------------------------------------------------------ Entry values


def test_replace_with_a_string_changefreq_is_written(tmp_path: Path) -> None:
    entry = dataclasses.replace(Entry(loc="https://e.example/"), changefreq="weekly")
    assert entry.changefreq is ChangeFreq.WEEKLY
    out = io.BytesIO()
    feedmap.write([entry], out, format="sitemap")
    assert b"<changefreq>weekly</changefreq>" in out.getvalue()


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("2024-01-01", "2024-01-01"),
        (" 2024-01-01T10:00:00Z ", "2024-01-01T10:00:00Z"),
        (dt.date(2024, 1, 1), "2024-01-01"),
        (dt.datetime(2024, 1, 1, 10, 0, tzinfo=dt.timezone.utc), "2024-01-01T10:00:00Z"),
        (
            dt.datetime(2024, 1, 1, 10, 0, 0, 500000, tzinfo=dt.timezone(dt.timedelta(hours=-5))),
            "2024-01-01T10:00:00.500000-05:00",
        ),
        (dt.datetime(2024, 1, 1, 10, 0), "2024-01-01T10:00:00Z"),  # naive: UTC, as to_datetime reads it
    ],
)
def test_lastmod_is_coerced(value: object, text: str) -> None:
    entry = Entry(loc="https://e.example/", lastmod=value)  # type: ignore[arg-type]
    assert entry.lastmod == W3CDate(text)
    out = io.BytesIO()
    feedmap.write([entry], out, format="sitemap")
    assert f"<lastmod>{text}</lastmod>".encode() in out.getvalue()


def test_from_datetime_round_trips_through_to_datetime() -> None:
    moment = dt.datetime(2024, 3, 4, 5, 6, 7, 89, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30)))
    assert W3CDate.from_datetime(moment).to_datetime() == moment
    with pytest.raises(ValueError, match="whole minutes"):
        W3CDate.from_datetime(dt.datetime(2024, 1, 1, tzinfo=dt.timezone(dt.timedelta(seconds=30))))
    with pytest.raises(TypeError):
        W3CDate.from_datetime("2024-01-01")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"lastmod": 20240101}, TypeError),
        ({"lastmod": "yesterday"}, ValueError),
        ({"changefreq": "weekley"}, ValueError),
        ({"changefreq": 7}, TypeError),
        ({"priority": "0.5"}, TypeError),
        ({"priority": True}, TypeError),
        ({"loc": b"https://e.example/"}, TypeError),
        ({"keywords": "a,b"}, TypeError),
    ],
)
def test_values_of_the_wrong_kind_raise_at_construction(fields: dict[str, object], error: type[Exception]) -> None:
    arguments = {"loc": "https://e.example/", **fields}
    with pytest.raises(error, match="Entry"):
        Entry(**arguments)  # type: ignore[arg-type]
    with pytest.raises(error, match="Entry"):
        dataclasses.replace(Entry(loc="https://e.example/"), **fields)  # type: ignore[arg-type]


def test_numbers_and_iterables_are_coerced() -> None:
    entry = Entry(loc="https://e.example/", priority=1, keywords=["a"], changefreq="Daily")  # type: ignore[arg-type]
    assert (entry.priority, entry.keywords, entry.changefreq) == (1.0, ("a",), ChangeFreq.DAILY)
    assert type(entry.priority) is float


@pytest.mark.parametrize("target", ["sitemap", "rss", "ror", "jsonl"])
def test_written_values_get_the_checks_read_ones_get(target: str) -> None:
    out = io.BytesIO()
    summary = feedmap.write(
        [Entry(loc="https://e.example/a", priority=2.0), Entry(loc="not a url")], out, format=target
    )
    found = codes(summary.diagnostics)
    assert "priority-invalid" in found and "loc-not-absolute" in found
    text = out.getvalue().decode()
    assert "priority>2.0<" not in text and '"priority":2.0' not in text
    if target == "jsonl":
        assert [json.loads(line)["loc"] for line in text.splitlines()] == ["https://e.example/a", "not a url"]
        assert "priority" not in json.loads(text.splitlines()[0])  # out of range: dropped, not clamped to 1.0
    else:
        assert "not a url" not in text


def test_check_values_as_a_function() -> None:
    seen: list[Diagnostic] = []
    checked = list(check_values([Entry(loc="/a", priority=float("nan"))], on_diagnostic=seen.append))
    assert codes(seen) == ["relative-url", "priority-invalid"]
    assert checked[0].priority is None


def test_what_a_reader_read_is_not_checked_twice(tmp_path: Path) -> None:
    source = tmp_path / "site.xml"
    source.write_bytes(sitemap_xml([("https://e.example/a b", None)]))
    with feedmap.read(source) as doc:
        summary = feedmap.write(doc, io.BytesIO(), format="jsonl")
        assert codes(doc.diagnostics) == ["loc-not-escaped"]  # reported once, by the reader
    assert codes(summary.diagnostics) == []


# ------------------------------------------------------------------------------------------------ flags


_FLAG = re.compile(r"(?<![\w-])(?<!ulimit )(?:-f|--[a-z][a-z-]+)\b")


def _messages(path: Path) -> list[tuple[int, str]]:
    """The string literals of a module that are not docstrings, nor a format's description for ``formats``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            skipped.add(id(body[0].value))
        if isinstance(node, ast.keyword) and node.arg == "description":
            skipped.update(id(sub) for sub in ast.walk(node.value))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            found.append((node.lineno, node.value))
    return found


def test_library_messages_name_no_command_line_flag() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}: {text!r}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "cli" not in path.relative_to(PACKAGE).parts
        for line, text in _messages(path)
        if _FLAG.search(text)
    ]
    assert offenders == []


def test_an_unknown_format_error_names_no_flag_and_the_cli_adds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "empty.xml"
    path.write_bytes(b"")
    with pytest.raises(UnknownFormatError) as caught:
        feedmap.read(path)
    assert "-f" not in str(caught.value)
    assert main(["convert", str(path), "-t", "text"]) == 1
    assert "name the format with -f" in capsys.readouterr().err


def test_a_size_cap_error_names_no_flag_and_the_cli_adds_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import gzip

    path = tmp_path / "site.xml.gz"  # compressed: a plain local file is read whole whatever the cap
    path.write_bytes(gzip.compress(sitemap_xml([(f"https://e.example/{n}", None) for n in range(100)])))
    with pytest.raises(LimitError) as caught, feedmap.read(path, options=feedmap.Options(max_bytes=1024)) as doc:
        list(doc)
    assert "--" not in str(caught.value)
    assert main(["convert", str(path), "-t", "text", "--max-bytes", "1K"]) == 1
    assert "--max-bytes" in capsys.readouterr().err


@pytest.mark.parametrize("held", [0, 1, 10_000])
def test_merged_entries_come_back_whole_from_memory_and_from_the_spool(
    monkeypatch: pytest.MonkeyPatch, held: int
) -> None:
    import feedmap.converters as transforms
    import feedmap.converters._duplicates as duplicates

    monkeypatch.setattr(duplicates, "_ENTRIES_IN_MEMORY", held)
    rich = {
        "changefreq": ChangeFreq.DAILY,
        "priority": 0.5,
        "title": "T",
        "description": "D",
        "keywords": ("k",),
        "type": "Article",
        "images": (feedmap.Image(loc="https://e.example/i.png", caption="c"),),
        "alternates": (feedmap.Alternate(hreflang="de", href="https://e.example/de"),),
        "extras": {"ror:sortOrder": "1"},
    }
    entries = [
        Entry(loc="https://e.example/a", lastmod="2024-01-01", origin=feedmap.Position("s", 1), **rich),
        Entry(loc="https://e.example/b", origin=feedmap.Position("s", 2)),
        Entry(loc="https://e.example/a", lastmod="2024-02-01T00:00:00Z", origin=feedmap.Position("s", 3), **rich),
        Entry(loc="https://e.example/b", lastmod="2023-01-01", origin=feedmap.Position("s", 4)),
    ]
    merged = list(transforms.merge_duplicates(entries))
    assert merged == [entries[2], entries[3]]
    assert [entry.origin for entry in merged] == [feedmap.Position("s", 3), feedmap.Position("s", 4)]


def test_the_cli_resolves_a_local_sitemap_against_base_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "site.xml"
    source.write_bytes(sitemap_xml([("/a.html", None)]))
    assert main(["convert", str(source), "-t", "text", "--base-url", "https://www.example.com/docs/"]) == 0
    out, err = capsys.readouterr()
    assert out == "https://www.example.com/a.html\n"
    assert "info[relative-url-resolved]" in err


def test_full_entry_equals_the_keyword_constructor() -> None:
    """What readers build without the coercion is what ``Entry(...)`` builds (and passes its fast check)."""
    from feedmap._core.model import full_entry

    values = {
        "loc": "https://e.example/",
        "lastmod": W3CDate("2024-01-01"),
        "changefreq": ChangeFreq.DAILY,
        "priority": 0.5,
        "title": "T",
        "description": "D",
        "keywords": ("k",),
        "type": "Article",
        "images": (feedmap.Image(loc="https://e.example/i.png"),),
        "alternates": (feedmap.Alternate(hreflang="de", href="https://e.example/de"),),
        "extras": {"ror:sortOrder": "1"},
        "origin": feedmap.Position("s", 3),
    }
    fast = full_entry(*values.values())  # type: ignore[arg-type]
    slow = Entry(**values)  # type: ignore[arg-type]
    assert fast == slow
    assert {f.name: getattr(fast, f.name) for f in dataclasses.fields(Entry)} == {**values, "news": None, "videos": ()}
    assert dataclasses.replace(fast) == fast


@pytest.mark.parametrize("target", ["rss", "ror", "sitemap"])
def test_two_spellings_of_one_url_are_one_entry_in_xml_output(target: str) -> None:
    # an IRI and its URI are written as the same URI: a feed would repeat a guid, a sitemap a loc
    entries = [Entry(loc="http://bücher.example/"), Entry(loc="http://xn--bcher-kva.example/")]
    out = io.BytesIO()
    summary = feedmap.write(entries, out, target)
    # (the guids: the channel link, and ROR's header item, name the site too)
    assert out.getvalue().count(b"<loc>" if target == "sitemap" else b'"true">http://xn--bcher-kva.example/<') == 1
    assert "loc-duplicate" in [d.code for d in summary.diagnostics]


@pytest.mark.parametrize("target", ["jsonl", "sitemap"])
def test_repeats_past_the_listed_ones_are_only_counted(target: str) -> None:
    # an input repeating every URL must not hold a record, nor print a line, per URL
    entries = [Entry(loc=f"https://e.com/{n}") for n in range(250)] * 2
    summary = feedmap.write(entries, io.BytesIO(), target)
    codes = [d.code for d in summary.diagnostics]
    assert codes.count("loc-duplicate") == 100
    more = [d for d in summary.diagnostics if d.code == "more-duplicates"]
    assert len(more) == 1 and more[0].message.startswith("150 more repeats")
