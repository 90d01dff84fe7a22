"""``--dedupe first|last|newest`` (issue 11, item 2) in every output format, and
:func:`feedmap.converters.dedupe`.

sitemaps.org 0.9 lists a URL once; the policy says which of its entries is kept (newest by lastmod, ties to
the first), at the place of the URL's first occurrence.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run

import feedmap
from feedmap import Diagnostic, Entry, Options, W3CDate
from feedmap.converters import dedupe

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
A, B, C = "https://e.com/a", "https://e.com/b", "https://e.com/c"


@pytest.fixture
def inputs(tmp_path: Path) -> list[Path]:
    """Three formats: a sitemap, JSON lines and a text sitemap, repeating A and B."""
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(
        f'<urlset xmlns="{SM}">'
        f"<url><loc>{A}</loc><lastmod>2024-01-01</lastmod><changefreq>daily</changefreq></url>"
        f"<url><loc>{B}</loc></url>"
        f"<url><loc>{A}</loc><lastmod>2024-03-01</lastmod><changefreq>weekly</changefreq></url>"
        "</urlset>",
        encoding="utf-8",
    )
    lines = tmp_path / "more.jsonl"
    lines.write_text(
        json.dumps({"loc": A, "lastmod": "2024-02-01", "changefreq": "monthly"})
        + "\n"
        + json.dumps({"loc": C, "lastmod": "2024-01-01"})
        + "\n",
        encoding="utf-8",
    )
    text = tmp_path / "urls.txt"
    text.write_text(f"{B}\n", encoding="utf-8")
    return [sitemap, lines, text]


KEPT = {"first": "daily", "last": "monthly", "newest": "weekly"}


@pytest.mark.parametrize("policy", ["first", "last", "newest"])
@pytest.mark.parametrize("target", ["jsonl", "sitemap", "text", "rss", "ror"])
def test_each_policy_in_each_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: list[Path], policy: str, target: str
) -> None:
    out = tmp_path / "out"
    code, _, err = run(capsys, "convert", *inputs, "-t", target, "-o", out, "--dedupe", policy)
    assert code == 0
    with feedmap.read(out) as doc:
        entries = list(doc)
    assert [entry.loc for entry in entries] == [A, B, C]
    if target in ("jsonl", "sitemap"):  # the formats that hold the changefreq tell which entry was kept
        assert entries[0].changefreq is not None and entries[0].changefreq.value == KEPT[policy]
    assert "3 repeated URLs merged" in err
    assert re.findall(r"\[(loc-duplicate|duplicates-merged)\]", err).count("duplicates-merged") == 1


def test_without_dedupe_json_lines_keeps_every_entry(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: list[Path]
) -> None:
    code, out, _ = run(capsys, "convert", *inputs, "-t", "jsonl")
    assert code == 0
    assert len(out.splitlines()) == 6


@pytest.mark.parametrize("first", [0, 1])
def test_newest_of_one_instant_is_the_later_in_the_w3cdate_order_whatever_the_input_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, first: int
) -> None:
    """The same instant written two ways: the W3CDate order decides (by text, "+01:00" after "Z" here), not
    the input order, so that the newest is the same whichever input comes first."""
    rows = [("2024-01-01T00:00:00Z", "daily"), ("2024-01-01T01:00:00+01:00", "weekly")]
    lines = tmp_path / "in.jsonl"
    lines.write_text(
        "".join(
            json.dumps({"loc": A, "lastmod": lastmod, "changefreq": freq}) + "\n"
            for lastmod, freq in rows[first:] + rows[:first]
        ),
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "convert", lines, "-t", "jsonl", "--dedupe", "newest")
    assert code == 0
    assert [json.loads(line)["changefreq"] for line in out.splitlines()] == ["weekly"]


def test_an_unknown_policy_is_a_usage_error(capsys: pytest.CaptureFixture[str], inputs: list[Path]) -> None:
    code, _, err = run(capsys, "convert", *inputs, "-t", "jsonl", "--dedupe", "oldest")
    assert code == 2
    assert "invalid choice" in err


def entries() -> list[Entry]:
    return [
        Entry(loc=A, lastmod=W3CDate("2024-01-01")),
        Entry(loc=B),
        Entry(loc=A, lastmod=W3CDate("2024-03-01")),
        Entry(loc=A, lastmod=W3CDate("2024-02-01")),
    ]


@pytest.mark.parametrize(
    ("policy", "kept"), [("first", "2024-01-01"), ("last", "2024-02-01"), ("newest", "2024-03-01")]
)
def test_the_transform_on_a_list(policy: str, kept: str) -> None:
    seen: list[Diagnostic] = []
    result = list(dedupe(entries(), Options(dedupe=policy), on_diagnostic=seen.append))
    assert [(e.loc, e.lastmod.text if e.lastmod else None) for e in result] == [(A, kept), (B, None)]
    assert [d.code for d in seen] == ["loc-duplicate", "duplicates-merged"]


def test_the_transform_defaults_to_newest_and_takes_a_document(tmp_path: Path, inputs: list[Path]) -> None:
    assert [e.lastmod.text for e in dedupe(entries()) if e.lastmod] == ["2024-03-01"]
    with feedmap.read(inputs[0]) as doc:
        result = dedupe(doc, Options(dedupe="first"))
        assert isinstance(result, feedmap.Document)
        assert [e.loc for e in result] == [A, B]
        assert "duplicates-merged" in [d.code for d in result.diagnostics]


def test_last_past_the_spill_to_disk() -> None:
    """More than the 10,000 entries held as they are: the kept entries are pickled and read back."""
    many = [Entry(loc=f"https://e.com/{n}", lastmod=W3CDate("2024-01-01")) for n in range(12_000)]
    many += [Entry(loc="https://e.com/11000", title="later"), Entry(loc="https://e.com/5", title="later too")]
    result = list(dedupe(many, Options(dedupe="last")))
    assert len(result) == 12_000
    assert result[11_000].title == "later" and result[11_000].lastmod is None
    assert result[5].title == "later too"
    assert result[4].lastmod == W3CDate("2024-01-01")


def test_an_unknown_policy_in_options_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="dedupe"):
        Options(dedupe="oldest")
