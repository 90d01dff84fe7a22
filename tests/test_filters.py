"""Entry filters (issue 11, item 3): ``--since``/``--until``/``--require-lastmod``, ``--include``/``--exclude``,
``--limit``, from the CLI and as :func:`feedmap.converters.filter_entries` /
:func:`~feedmap.converters.limit_entries`.

The date rule (W3C Datetime, https://www.w3.org/TR/NOTE-datetime): each date is the period its precision
names, no zone is UTC, both bounds inclusive over their whole period.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_words as run

import feedmap
from feedmap import Diagnostic, Entry, Options, W3CDate
from feedmap.converters import filter_entries, limit_entries
from feedmap.converters._filters import within

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"


def sitemap(path: Path, urls: list[tuple[str, str | None]]) -> Path:
    body = "".join(
        f"<url><loc>{loc}</loc>" + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "") + "</url>\n"
        for loc, lastmod in urls
    )
    path.write_text(f'<urlset xmlns="{SM}">\n{body}</urlset>\n', encoding="utf-8")
    return path


URLS: list[tuple[str, str | None]] = [
    ("https://e.com/blog/a", "2024-01-01"),
    ("https://e.com/blog/b", "2024-01-02T10:00:00Z"),
    ("https://e.com/shop/c", "2023-12-31T23:30:00-05:00"),  # 2024-01-01T04:30:00Z
    ("https://e.com/d", None),
    ("https://e.com/e?x=1", "2025"),
]


@pytest.fixture
def urls(tmp_path: Path) -> Path:
    return sitemap(tmp_path / "s.xml", URLS)


def codes_in(err: str) -> list[str]:
    return re.findall(r"\[([a-z-]+)\]", err)


def short(locs: list[str]) -> list[str]:
    return [loc.removeprefix("https://e.com/") for loc in locs]


# ------------------------------------------------------------------------------------------------ the date rule


@pytest.mark.parametrize(
    ("lastmod", "since", "until", "inside"),
    [
        ("2024-01-01", "2024-01-01", None, True),
        ("2024-01-01", "2024-01-01T23:59:59Z", None, True),  # a day is within --since that day
        ("2024-01-01", "2024-01-02", None, False),
        ("2024-01-01", None, "2024-01-01", True),
        ("2024-01-01", None, "2023-12-31T23:59:59Z", False),
        ("2024-01-01T23:59:59Z", None, "2024-01-01", True),  # --until a day includes the whole day
        ("2024-01-02T00:00:00Z", None, "2024-01-01", False),
        ("2024-01-01T23:30:00-05:00", None, "2024-01-01", False),  # 04:30 UTC on the 2nd
        ("2024-01-02T01:00:00+02:00", None, "2024-01-01", True),  # 23:00 UTC on the 1st
        ("2024-01-01T10:00:00+02:00", "2024-01-01T09:00:00Z", None, False),  # 08:00 UTC
        ("2024-01-01T10:00:00", "2024-01-01T10:00:00Z", None, True),  # no zone: UTC
        ("2024-06", "2024-06-15", None, True),  # a month is within --since a day of it
        ("2024", None, "2024-01-01", True),
        ("2024", "2025-01-01", None, False),
        ("2024-01-01T10:00:00.5Z", "2024-01-01T10:00:00.6Z", None, False),
        ("2024-01-01T10:00:00.5Z", "2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z", True),  # a second holds .5
        ("9999-12-31", "9999", None, True),  # the last year still has an end
    ],
)
def test_the_date_rule_across_precisions_and_offsets(
    lastmod: str, since: str | None, until: str | None, inside: bool
) -> None:
    bound = W3CDate(since) if since else None
    upper = W3CDate(until) if until else None
    assert within(W3CDate(lastmod), bound, upper) is inside


# ------------------------------------------------------------------------------------------------ the CLI


def test_since_selects_entries_of_a_plain_sitemap(capsys: pytest.CaptureFixture[str], urls: Path) -> None:
    code, out, err = run(capsys, "convert", urls, "-t", "text", "--since", "2024-01-02")
    assert code == 0
    assert short(out) == ["blog/b", "d", "e?x=1"]
    assert codes_in(err).count("entries-filtered") == 1
    assert "3 entries left out: 3 before the since date" not in err  # d has no lastmod: kept, not left out
    assert "2 entries left out: 2 before the since date" in err


def test_since_and_until_together_across_zones(capsys: pytest.CaptureFixture[str], urls: Path) -> None:
    code, out, err = run(
        capsys, "convert", urls, "-t", "text", "--since", "2024-01-01T12:00:00Z", "--until", "2024-01-01"
    )
    assert code == 0
    assert short(out) == ["blog/a", "d"]
    assert "3 entries left out: 2 after the until date, 1 before the since date" in err


def test_entries_without_lastmod_are_kept_and_counted_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = sitemap(
        tmp_path / "s.xml", [("https://e.com/x", None), ("https://e.com/y", None), ("https://e.com/z", "2020")]
    )
    code, out, err = run(capsys, "convert", path, "-t", "jsonl", "--until", "2030")
    assert code == 0
    assert len(out) == 3
    assert codes_in(err).count("no-lastmod-kept") == 1
    assert "2 entries without a lastmod kept" in err
    assert "--require-lastmod leaves them out" in err  # the command line's advice
    assert "entries-filtered" not in err


def test_require_lastmod_drops_them_and_counts(capsys: pytest.CaptureFixture[str], urls: Path) -> None:
    code, out, err = run(capsys, "convert", urls, "-t", "text", "--require-lastmod")
    assert code == 0
    assert "https://e.com/d" not in out
    assert len(out) == 4
    assert "1 entry left out: 1 without a lastmod" in err
    assert "no-lastmod-kept" not in err
    code, out, err = run(capsys, "convert", urls, "-t", "text", "--since", "2024-01-02", "--require-lastmod")
    assert short(out) == ["blog/b", "e?x=1"]
    assert "3 entries left out: 2 before the since date, 1 without a lastmod" in err


def test_no_date_bound_no_note(capsys: pytest.CaptureFixture[str], urls: Path) -> None:
    code, out, err = run(capsys, "convert", urls, "-t", "text")
    assert code == 0 and len(out) == 5
    assert "no-lastmod-kept" not in err and "entries-filtered" not in err


def test_include_and_exclude_on_the_loc(capsys: pytest.CaptureFixture[str], urls: Path) -> None:
    code, out, err = run(capsys, "convert", urls, "-t", "text", "--include", "/blog/", "--include", "shop")
    assert short(out) == ["blog/a", "blog/b", "shop/c"]
    assert "2 entries left out: 2 not matching include" in err
    code, out, err = run(capsys, "convert", urls, "-t", "text", "--exclude", r"\?", "--exclude", "^https://e.com/d$")
    assert code == 0
    assert short(out) == ["blog/a", "blog/b", "shop/c"]
    assert "2 entries left out: 2 matching exclude" in err
    # re.search: anywhere in the loc
    _, out, err = run(capsys, "convert", urls, "-t", "text", "--include", "b", "--exclude", "a$")
    assert short(out) == ["blog/b"]


def test_filters_combine(capsys: pytest.CaptureFixture[str], urls: Path) -> None:
    code, out, err = run(
        capsys, "convert", urls, "-t", "jsonl", "--include", "e.com/", "--exclude", "shop", "--since", "2024-01-01",
        "--until", "2024-12-31",
    )  # fmt: skip
    assert code == 0
    assert short([json.loads(line)["loc"] for line in out]) == ["blog/a", "blog/b", "d"]
    assert "2 entries left out: 1 matching exclude, 1 after the until date" in err
    assert "1 entry without a lastmod kept" in err
    # --limit stops reading after d: what the filters left out until then is still reported, once
    code, out, err = run(
        capsys, "convert", urls, "-t", "text", "--exclude", "shop", "--since", "2024-01-01", "--limit", "3"
    )
    assert short(out) == ["blog/a", "blog/b", "d"]
    assert codes_in(err) == ["limit-reached", "no-lastmod-kept", "entries-filtered", "field-dropped"]
    assert "1 entry left out: 1 matching exclude" in err


@pytest.mark.parametrize("option", ["--include", "--exclude"])
def test_an_invalid_regex_is_a_usage_error(capsys: pytest.CaptureFixture[str], urls: Path, option: str) -> None:
    code, out, err = run(capsys, "convert", urls, "-t", "text", option, "a(b")
    assert code == 2
    assert out == []
    assert "not a valid regular expression" in err and "missing )" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("target", ["text", "jsonl", "sitemap", "rss"])
def test_limit_writes_the_first_n(capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str) -> None:
    urls = [(f"https://e.com/{n}", None) for n in range(10)] + [("https://e.com/0", "2024-01-01")]
    path = sitemap(tmp_path / "s.xml", urls)
    code, _, err = run(capsys, "convert", path, "-t", target, "-o", tmp_path / "out", "--limit", "3")
    assert code == 0
    with feedmap.read(tmp_path / "out", options=Options(follow=False)) as doc:
        assert [entry.loc for entry in doc] == [f"https://e.com/{n}" for n in range(3)]
    assert codes_in(err).count("limit-reached") == 1


def test_limit_zero_writes_nothing(capsys: pytest.CaptureFixture[str], urls: Path) -> None:
    code, out, err = run(capsys, "convert", urls, "-t", "text", "--limit", "0")
    assert code == 0 and out == []
    assert "limit-reached" in err


def test_a_negative_limit_is_a_usage_error(capsys: pytest.CaptureFixture[str], urls: Path) -> None:
    assert run(capsys, "convert", urls, "-t", "text", "--limit", "-1")[0] == 2


class Lines(io.RawIOBase):
    """A text sitemap of ``count`` URLs made as it is read; remembers how many bytes were read."""

    def __init__(self, count: int) -> None:
        self.lines = (f"https://e.com/page/{n}\n".encode() for n in range(count))
        self.pending = b""
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while len(self.pending) < len(buffer):
            line = next(self.lines, None)
            if line is None:
                break
            self.pending += line
        size = min(len(buffer), len(self.pending))
        buffer[:size] = self.pending[:size]
        self.pending = self.pending[size:]
        self.given += size
        return size


@pytest.mark.parametrize("target", ["text", "jsonl"])
def test_limit_stops_reading_early(tmp_path: Path, target: str) -> None:
    source = Lines(1_000_000)  # about 30 MB if read to the end
    out = tmp_path / "out"
    summary = feedmap.convert(io.BufferedReader(source), out, target, Options(limit=5), source_format="text")
    assert summary.entries == 5
    assert source.given < 2_000_000
    assert "limit-reached" in [d.code for d in summary.diagnostics]


def test_limit_entries_does_not_read_past_n() -> None:
    def entries() -> Iterator[Entry]:
        for n in range(3):
            yield Entry(loc=f"https://e.com/{n}")
        raise AssertionError("read past the limit")

    assert [e.loc for e in limit_entries(entries(), Options(limit=3))] == [f"https://e.com/{n}" for n in range(3)]


# ------------------------------------------------------------------------------------------------ index children


def test_since_still_skips_index_children_and_filters_the_entries_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monthly = sitemap(
        tmp_path / "monthly.xml", [("https://e.com/june-1", "2024-06-01"), ("https://e.com/june-20", "2024-06-20")]
    )
    index = tmp_path / "index.xml"
    index.write_text(
        f'<sitemapindex xmlns="{SM}">'
        f"<sitemap><loc>{(tmp_path / 'gone.xml').as_uri()}</loc><lastmod>2001-01-01</lastmod></sitemap>"
        f"<sitemap><loc>{monthly.as_uri()}</loc><lastmod>2024-06</lastmod></sitemap>"
        "</sitemapindex>",
        encoding="utf-8",
    )
    code, out, err = run(capsys, "convert", index, "-t", "text", "--since", "2024-06-15")
    assert code == 0
    assert out == ["https://e.com/june-20"]  # the month's child read (it may hold changes of June 15-30)
    assert "child-skipped" in err and "gone.xml" in err  # the old child not read (it does not exist)
    assert set(re.findall(r"warning\[([a-z-]+)\]", err)) == {"loc-not-absolute"}  # file: URIs; nothing failed
    assert "1 entry left out: 1 before the since date" in err


# ------------------------------------------------------------------------------------------------ the library


def entries_list() -> list[Entry]:
    return [Entry(loc=loc, lastmod=W3CDate(lastmod) if lastmod else None) for loc, lastmod in URLS]


def test_filter_entries_on_a_list() -> None:
    seen: list[Diagnostic] = []
    kept = filter_entries(entries_list(), Options(since="2024-01-02", include="e.com"), on_diagnostic=seen.append)
    assert not isinstance(kept, list)
    assert short([e.loc for e in kept]) == ["blog/b", "d", "e?x=1"]
    assert [d.code for d in seen] == ["no-lastmod-kept", "entries-filtered"]


def test_filter_entries_on_a_document(urls: Path) -> None:
    with feedmap.read(urls) as doc:
        before = len(doc.diagnostics)
        result = filter_entries(doc, Options(exclude=("blog", "shop"), require_lastmod=True))
        assert isinstance(result, feedmap.Document)
        assert short([e.loc for e in result]) == ["e?x=1"]
        assert [d.code for d in result.diagnostics[before:]] == ["entries-filtered"]


def test_limit_entries_on_a_document(urls: Path) -> None:
    with feedmap.read(urls) as doc:
        result = limit_entries(doc, Options(limit=2))
        assert isinstance(result, feedmap.Document)
        assert short([e.loc for e in result]) == ["blog/a", "blog/b"]


def test_without_options_nothing_is_left_out() -> None:
    assert len(list(filter_entries(entries_list()))) == 5
    assert len(list(limit_entries(entries_list()))) == 5


@pytest.mark.parametrize("field", ["include", "exclude"])
def test_an_invalid_regex_fails_when_the_options_are_made(field: str) -> None:
    with pytest.raises(ValueError, match=f"^{field}: '\\(' is not a regular expression"):
        Options(**{field: ["ok", "("]})  # type: ignore[arg-type]


def test_convert_filters_as_the_cli_does(tmp_path: Path, urls: Path) -> None:
    out = tmp_path / "out.txt"
    summary = feedmap.convert(urls, out, "text", Options(since=W3CDate("2024-01-02"), limit=2))
    assert out.read_text().split() == ["https://e.com/blog/b", "https://e.com/d"]
    assert {"no-lastmod-kept", "entries-filtered", "limit-reached"} <= {d.code for d in summary.diagnostics}


def test_options_take_dates_and_patterns_as_text() -> None:
    options = Options(since="2024-01-01", until="2024-02", include="a", exclude=["b", "c"])
    assert options.since == W3CDate("2024-01-01") and options.until == W3CDate("2024-02")
    assert options.include == ("a",) and options.exclude == ("b", "c")


def test_options_since_skips_index_children_in_the_library(tmp_path: Path) -> None:
    """``Options(since=...)`` does what ``--since`` does: old children not read, the entries read filtered."""
    recent = sitemap(
        tmp_path / "recent.xml", [("https://e.com/old", "2020-01-01"), ("https://e.com/new", "2024-07-01")]
    )
    index = tmp_path / "index.xml"
    index.write_text(
        f'<sitemapindex xmlns="{SM}">'
        f"<sitemap><loc>{(tmp_path / 'gone.xml').as_uri()}</loc><lastmod>2001-01-01</lastmod></sitemap>"
        f"<sitemap><loc>{recent.as_uri()}</loc><lastmod>2024-07-01</lastmod></sitemap>"
        "</sitemapindex>",
        encoding="utf-8",
    )
    out = tmp_path / "out.txt"
    summary = feedmap.convert(index, out, "text", Options(since="2024-06-01"))
    assert out.read_text().split() == ["https://e.com/new"]
    found = [d.code for d in summary.diagnostics]
    assert "child-skipped" in found and "child-unreadable" not in found


@pytest.mark.parametrize(
    ("since", "until"),
    [("2024-07-01", "2024-06-30"), ("2024-06-02T00:00:00Z", "2024-06-01"), ("2025", "2024-12-31T23:59:59Z")],
)
def test_bounds_the_wrong_way_round_are_a_usage_error(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path, since: str, until: str
) -> None:
    # they would silently select nothing (or only year-precision lastmods): a swapped pair, said at once
    code, out, err = run(capsys, "convert", urls, "-t", "text", "--since", since, "--until", until)
    assert code == 2
    assert out == []
    assert f"--since {since} is after --until {until}: give the earlier date to --since" in err
    with pytest.raises(ValueError, match="is after until"):
        filter_entries(entries_list(), Options(since=since, until=until))
    with pytest.raises(ValueError, match="is after until"):
        feedmap.convert(urls, tmp_path / "out.txt", "text", Options(since=since, until=until))
    assert not (tmp_path / "out.txt").exists()


@pytest.mark.parametrize(
    ("since", "until"), [("2024-06-01", "2024-06-01"), ("2024-06-01T12:00:00Z", "2024-06-01"), ("2024-06", "2024")]
)
def test_bounds_that_share_an_instant_are_accepted(
    capsys: pytest.CaptureFixture[str], urls: Path, since: str, until: str
) -> None:
    code, _out, _err = run(capsys, "convert", urls, "-t", "text", "--since", since, "--until", until)
    assert code == 0
    filter_entries(entries_list(), Options(since=since, until=until))  # no ValueError


def test_include_matches_the_url_as_read_and_help_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An XML output writes https://e.com/café as caf%C3%A9, but --include sees the URL as read: a pattern
    copied from the output ('%C3%A9') matched nothing, silently; --help says which form is matched."""
    urls = tmp_path / "urls.txt"
    urls.write_text("https://e.com/café\nhttps://e.com/tea\n", encoding="utf-8")
    code, out, _err = run(capsys, "convert", urls, "-t", "sitemap", "--include", "é")
    assert code == 0 and "<loc>https://e.com/caf%C3%A9</loc>" in "".join(out)
    help_text = " ".join(run(capsys, "convert", "--help")[1])
    assert "the URL as read" in help_text and "--encode-urls" in help_text.split("--include REGEX")[-1][:300]


def test_help_gives_an_example_of_each_selection_option(capsys: pytest.CaptureFixture[str]) -> None:
    help_text = " ".join(run(capsys, "convert", "--help")[1])
    for example in (
        "--since 2024-06-01",
        "--until 2024-06-30",
        "--include '/blog/'",
        "--exclude",
        "--limit 100",
        "--sort -lastmod --limit 20",
        "--dedupe newest",
        "--require-lastmod -t",
    ):
        assert "feedmap convert " in help_text and example in help_text, example
