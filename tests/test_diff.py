"""``feedmap diff`` and ``feedmap.diff``: added, removed and changed URLs per field, order, duplicates, the
on-disk store, exit codes of diff(1) (0 same, 1 different, 2 trouble) and the ``--json`` shape."""

from __future__ import annotations

import gzip
import json
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import run
from localsite import LocalSite

import feedmap
from feedmap import Change, Entry, Image
from feedmap.cli.diff import change_line

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
EXT = 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml"'


def urlset(*urls: str) -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS} {EXT}>\n' + "\n".join(urls) + "\n</urlset>\n"


def url(loc: str, inner: str = "") -> str:
    return f"<url><loc>https://e.com/{loc}</loc>{inner}</url>"


def image(loc: str, caption: str = "") -> str:
    extra = f"<image:caption>{caption}</image:caption>" if caption else ""
    return f"<image:image><image:loc>https://e.com/{loc}</image:loc>{extra}</image:image>"


def alternate(lang: str, loc: str) -> str:
    return f'<xhtml:link rel="alternate" hreflang="{lang}" href="https://e.com/{loc}"/>'


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    old = write(
        tmp_path / "old.xml",
        urlset(
            url("same", "<lastmod>2024-01-01</lastmod>"),
            url("gone"),
            url("date", "<lastmod>2024-01-01</lastmod>"),
            url("freq", "<changefreq>daily</changefreq>"),
            url("prio", "<priority>0.5</priority>"),
            url("img", image("a.jpg")),
            url("alt", alternate("de", "de/alt")),
        ),
    )
    new = write(
        tmp_path / "new.xml",
        urlset(
            url("fresh"),
            url("alt", alternate("de", "de/alt") + alternate("fr", "fr/alt")),
            url("img", image("a.jpg", "a caption")),
            url("prio", "<priority>0.8</priority>"),
            url("freq", "<changefreq>weekly</changefreq>"),
            url("date", "<lastmod>2024-06-01</lastmod>"),
            url("same", "<lastmod>2024-01-01</lastmod>"),
        ),
    )
    return old, new


def test_library_diff_yields_each_kind_and_field(pair: tuple[Path, Path]) -> None:
    old, new = pair
    with feedmap.diff(old, new) as changes:
        found = [(c.kind, c.loc.rsplit("/", 1)[1], c.fields) for c in changes]
    assert found == [  # added and changed in NEW's order, then removed in OLD's
        ("added", "fresh", ()),
        ("changed", "alt", ("alternates",)),
        ("changed", "img", ("images",)),
        ("changed", "prio", ("priority",)),
        ("changed", "freq", ("changefreq",)),
        ("changed", "date", ("lastmod",)),
        ("removed", "gone", ()),
    ]
    assert changes.counts == {"added": 1, "removed": 1, "changed": 5, "unchanged": 1}


def test_changed_values_are_typed_old_and_new(pair: tuple[Path, Path]) -> None:
    changes = {c.loc.rsplit("/", 1)[1]: c for c in feedmap.diff(*pair)}
    assert changes["date"].values() == {"lastmod": (feedmap.W3CDate("2024-01-01"), feedmap.W3CDate("2024-06-01"))}
    assert changes["freq"].values() == {"changefreq": (feedmap.ChangeFreq.DAILY, feedmap.ChangeFreq.WEEKLY)}
    assert changes["prio"].values() == {"priority": (0.5, 0.8)}
    (before, after) = changes["img"].values()["images"]
    assert [i.caption for i in before] == [None] and [i.caption for i in after] == ["a caption"]
    assert changes["alt"].new is not None and {a.hreflang for a in changes["alt"].new.alternates} == {"de", "fr"}
    assert changes["gone"].old is not None and changes["gone"].new is None
    assert changes["fresh"].new is not None and changes["fresh"].old is None


def test_reordered_images_and_alternates_are_no_change(tmp_path: Path) -> None:
    images = image("1.jpg") + image("2.jpg")
    alternates = alternate("de", "d") + alternate("fr", "f")
    old = write(tmp_path / "a.xml", urlset(url("p", images + alternates)))
    reordered = alternate("fr", "f") + alternate("de", "d") + image("2.jpg") + image("1.jpg")
    new = write(tmp_path / "b.xml", urlset(url("p", reordered)))
    changes = feedmap.diff(old, new)
    assert list(changes) == []
    assert changes.counts["unchanged"] == 1


def test_a_repeated_loc_counts_once_with_the_newest_lastmod(tmp_path: Path) -> None:
    old = write(
        tmp_path / "old.xml",
        urlset(url("p", "<lastmod>2024-03-01</lastmod>"), url("p", "<lastmod>2024-01-01</lastmod>"), url("q")),
    )
    new = write(tmp_path / "new.xml", urlset(url("q"), url("p", "<lastmod>2024-03-01</lastmod>"), url("q")))
    seen: list[feedmap.Diagnostic] = []
    changes = feedmap.diff(old, new, on_diagnostic=seen.append)
    assert list(changes) == []
    assert changes.counts == {"added": 0, "removed": 0, "changed": 0, "unchanged": 2}
    merged = [(d.code, d.source) for d in seen if d.code == "duplicates-merged"]
    assert merged == [("duplicates-merged", str(old)), ("duplicates-merged", str(new))]


def test_the_store_is_a_file_on_disk_removed_at_the_end(
    pair: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    changes = feedmap.diff(*pair)
    next(changes)
    stores = list(scratch.glob("feedmap-diff-*/*.sqlite3"))
    assert len(stores) == 1 and stores[0].stat().st_size > 0
    changes.close()
    assert list(scratch.iterdir()) == []
    for _ in feedmap.diff(*pair):  # exhausted: removed too
        pass
    assert list(scratch.iterdir()) == []


def test_cli_text_output_and_exit_one(capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path]) -> None:
    code, out, err = run(capsys, "diff", *pair)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "+ https://e.com/fresh"
    assert "~ https://e.com/date  lastmod: 2024-01-01 -> 2024-06-01" in lines
    assert "~ https://e.com/prio  priority: 0.5 -> 0.8" in lines
    assert "~ https://e.com/freq  changefreq: daily -> weekly" in lines
    assert "~ https://e.com/alt  alternates: 1 -> 2, +1 -0" in lines
    assert lines[-2] == "- https://e.com/gone"
    assert lines[-1] == "1 added, 1 removed, 5 changed, 1 unchanged"
    assert err == ""


def test_cli_same_inputs_exit_zero(capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path]) -> None:
    old, _new = pair
    copy = write(old.parent / "copy.xml", old.read_text(encoding="utf-8"))
    code, out, _err = run(capsys, "diff", old, copy)
    assert (code, out) == (0, "0 added, 0 removed, 0 changed, 7 unchanged\n")


def test_cli_one_file_on_both_sides_is_trouble_not_same(
    capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path]
) -> None:
    """Comparing a file with itself (also spelt two ways) finds nothing whatever it holds: said, exit 2."""
    old, _new = pair
    code, out, err = run(capsys, "diff", old, old.parent / "." / old.name)
    assert (code, out) == (2, "")
    assert "error[same-files]" in err and "--old-map" in err


def test_cli_quiet_prints_only_the_summary(capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path]) -> None:
    code, out, _err = run(capsys, "diff", "-q", *pair)
    assert (code, out) == (1, "1 added, 1 removed, 5 changed, 1 unchanged\n")


def test_cli_json_lines(capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path]) -> None:
    code, out, _err = run(capsys, "diff", "--json", *pair)
    objects = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert objects[0] == {"kind": "added", "loc": "https://e.com/fresh", "new": {}}
    date = next(o for o in objects if o["loc"].endswith("/date"))
    assert date == {
        "kind": "changed",
        "loc": "https://e.com/date",
        "fields": ["lastmod"],
        "old": {"lastmod": "2024-01-01"},
        "new": {"lastmod": "2024-06-01"},
    }
    img = next(o for o in objects if o["loc"].endswith("/img"))
    assert img["new"] == {"images": [{"loc": "https://e.com/a.jpg", "caption": "a caption"}]}
    assert objects[-2] == {"kind": "removed", "loc": "https://e.com/gone", "old": {}}
    assert objects[-1] == {"kind": "summary", "added": 1, "removed": 1, "changed": 5, "unchanged": 1}


@pytest.mark.parametrize("which", ["old", "new"])
def test_cli_unreadable_input_exits_two(
    capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path], which: str
) -> None:
    old, new = pair
    missing = old.parent / "missing.xml"
    args = (missing, new) if which == "old" else (old, missing)
    code, out, err = run(capsys, "diff", *args)
    assert code == 2
    assert "missing.xml" in err and "Traceback" not in err
    assert out == ""


def test_cli_broken_input_exits_two_not_one(capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path]) -> None:
    """A ReadError means exit 1 for convert, but 1 is "different" for diff: trouble is 2."""
    old, _new = pair
    broken = write(old.parent / "broken.xml", '<?xml version="1.0"?><foo/>')
    code, out, err = run(capsys, "diff", old, broken)
    assert code == 2
    assert "broken.xml:1: error[unknown-format]" in err and out == ""
    assert run(capsys, "convert", broken, "-t", "text")[0] == 1  # what convert says of it


def test_cli_strict_warning_exits_two(capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path]) -> None:
    old, _new = pair
    odd = write(old.parent / "odd.xml", urlset(url("p", "<changefreq>Daily</changefreq>")))
    code, out, err = run(capsys, "diff", "--strict", old, odd)
    assert code == 2
    assert "odd.xml:" in err and "error[" in err
    code, out, err = run(capsys, "diff", old, odd)  # lenient: a warning, and the diff
    assert code == 1 and "warning[" in err and "~ " not in out.splitlines()[0]


def test_cli_usage_errors_exit_two(capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path]) -> None:
    old, _new = pair
    assert run(capsys, "diff", old)[0] == 2
    assert run(capsys, "diff", "-", "-")[0] == 2


def test_cli_help_teaches(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "diff", "--help")
    assert code == 0
    assert "feedmap diff old/sitemap.xml sitemap.xml" in out and "exit 0 same, 1 different, 2 trouble" in out


def test_cli_index_followed_through_map(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for name, body in {
        "old": urlset(url("a"), url("b", "<lastmod>2024-01-01</lastmod>")),
        "new": urlset(url("b", "<lastmod>2024-02-01</lastmod>"), url("c")),
    }.items():
        folder = tmp_path / name
        folder.mkdir()
        write(folder / "part.xml", body)
        write(
            folder / "index.xml",
            f'<?xml version="1.0"?>\n<sitemapindex {NS}><sitemap><loc>https://e.com/part.xml</loc></sitemap>'
            "</sitemapindex>\n",
        )
    indexes = (tmp_path / "old/index.xml", tmp_path / "new/index.xml")
    code, out, err = run(capsys, "diff", *indexes, "--map", f"https://e.com/={tmp_path / 'old'}")
    assert (code, out) == (2, "") and "error[same-files]" in err  # both indexes' child from one directory
    code, out, err = run(capsys, "diff", tmp_path / "old/part.xml", tmp_path / "new/index.xml",
                         "--map", f"https://e.com/={tmp_path / 'new'}")  # fmt: skip
    assert code == 1, err
    assert out.splitlines() == [
        "~ https://e.com/b  lastmod: 2024-01-01 -> 2024-02-01",
        "+ https://e.com/c",
        "- https://e.com/a",
        "1 added, 1 removed, 1 changed, 0 unchanged",
    ]
    code, out, _err = run(capsys, "diff", "--no-follow", tmp_path / "old/index.xml", tmp_path / "new/index.xml")
    assert (code, out.splitlines()[-1]) == (0, "0 added, 0 removed, 0 changed, 1 unchanged")


def test_cli_over_http(capsys: pytest.CaptureFixture[str], web: LocalSite, tmp_path: Path) -> None:
    web.add("/sitemap.xml", urlset(url("a"), url("b")).encode())
    local = write(tmp_path / "local.xml", urlset(url("a")))
    code, out, err = run(capsys, "diff", web.url("/sitemap.xml"), local)
    assert (code, out) == (1, "- https://e.com/b\n0 added, 1 removed, 0 changed, 1 unchanged\n"), err
    assert web.hits("/sitemap.xml") == 1


def test_benchmark_runs_and_checks_its_summary() -> None:
    """benchmarks/bench_diff.py on 2,000 URLs: the diff finds exactly the 1% of changes the generator made."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_diff.py"
    done = subprocess.run([sys.executable, str(script), "--urls", "2000"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "| 2,000 |" in done.stdout and "10 added, 10 removed, 10 changed, 1,980 unchanged" in done.stdout


def test_library_errors_raise_and_remove_the_store(
    pair: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    old, _new = pair
    with pytest.raises(feedmap.SourceError):
        list(feedmap.diff(old, tmp_path / "missing.xml"))
    odd = write(tmp_path / "odd.xml", urlset(url("p", "<priority>2</priority>")))
    with pytest.raises(feedmap.StrictError) as raised:
        list(feedmap.diff(old, odd, feedmap.Options(strict=True)))
    assert raised.value.diagnostic.source == str(odd)
    assert list(scratch.iterdir()) == []


def test_source_format_names_the_format_of_both(tmp_path: Path) -> None:
    old = write(tmp_path / "old.jsonl", '{"loc": "https://e.com/a"}\n')
    new = write(tmp_path / "new.jsonl", '{"loc": "https://e.com/a", "priority": 0.3}\n')
    changes = list(feedmap.diff(old, new, source_format="jsonl"))
    assert [(c.kind, c.fields) for c in changes] == [("changed", ("priority",))]


def test_image_counts_of_a_huge_change_are_not_quadratic(monkeypatch: pytest.MonkeyPatch) -> None:
    """``images: A -> B, +x -y`` for thousands of images per URL compares hashed values, not each pair
    (``item in tuple`` made 50,000 images take minutes)."""
    calls = []
    original = Image.__eq__

    def counted(self: Image, other: object) -> bool:
        calls.append(1)
        return original(self, other)

    monkeypatch.setattr(Image, "__eq__", counted)
    old = tuple(Image(loc=f"https://e.com/{n}.png") for n in range(2000))
    new = (*old[1:], Image(loc="https://e.com/new.png", caption="c"))
    change = Change(
        "changed",
        "https://e.com/a",
        ("images",),
        Entry(loc="https://e.com/a", images=old),
        Entry(loc="https://e.com/a", images=new),
    )
    assert change_line(change) == "~ https://e.com/a  images: 2000 -> 2000, +1 -1"
    assert len(calls) < 10_000


@pytest.mark.parametrize(
    ("character", "shown"),
    [
        ("\x01", "%01"),
        ("\x1b", "%1B"),
        ("\x7f", "%7F"),
        ("\x85", "%C2%85"),
        ("\u202e", "%E2%80%AE"),
        ("\u200b", "%E2%80%8B"),
    ],
)
def test_cli_text_output_shows_control_and_bidi_characters_percent_encoded(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, character: str, shown: str
) -> None:
    # a text sitemap may hold them; printed raw they would drive the terminal (escape sequences) or reorder the line
    old = write(tmp_path / "old.txt", "https://example.com/a\n")
    new = write(tmp_path / "new.txt", f"https://example.com/{character}b\nhttps://example.com/caf\u00e9\n")
    code, out, _err = run(capsys, "diff", old, new)
    assert code == 1
    assert f"+ https://example.com/{shown}b" in out.splitlines()
    assert "+ https://example.com/caf\u00e9" in out.splitlines()  # readable non-ASCII stays as it is
    assert character not in out
    code, out, _err = run(capsys, "diff", "--json", old, new)
    assert json.loads(out.splitlines()[0])["loc"] == f"https://example.com/{character}b"  # JSON: the loc exactly


def _index_pair(tmp_path: Path) -> tuple[Path, Path]:
    """OLD and NEW indexes of two children each, under one --map directory; NEW's second child is written
    by the test (missing, truncated, ...)."""
    for side in ("old", "new"):
        (tmp_path / side).mkdir()
        write(
            tmp_path / f"{side}-index.xml",
            f'<?xml version="1.0"?>\n<sitemapindex {NS}>\n<sitemap><loc>https://e.com/{side}/one.xml</loc></sitemap>\n'
            f"<sitemap><loc>https://e.com/{side}/two.xml</loc></sitemap>\n</sitemapindex>\n",
        )
        write(tmp_path / side / "one.xml", urlset(url("p1"), url("p2")))
    write(tmp_path / "old" / "two.xml", urlset(*(url(f"q{i}") for i in range(5))))
    return tmp_path / "old-index.xml", tmp_path / "new-index.xml"


@pytest.mark.parametrize("options", [[], ["-q"], ["--json"]])
def test_cli_a_child_that_cannot_be_read_is_trouble_not_mass_removal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, options: list[str]
) -> None:
    """NEW's child is missing: its URLs are not 'removed' with exit 1 (a script would act on them), the
    diff says NEW was not read completely and exits 2."""
    old, new = _index_pair(tmp_path)
    code, out, err = run(capsys, "diff", old, new, "--map", f"https://e.com/={tmp_path}", *options)
    assert code == 2, (out, err)
    assert "warning[child-unreadable]" in err
    assert f"{new}: error[input-incomplete]: " in err and "removed" in err and "Traceback" not in err
    if "--json" in options:
        assert all(json.loads(line) for line in out.splitlines())
    code, out, err = run(capsys, "diff", new, old, "--map", f"https://e.com/={tmp_path}")
    assert code == 2 and f"{new}: error[input-incomplete]: " in err and "added" in err


def test_cli_a_truncated_child_is_trouble(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old, new = _index_pair(tmp_path)
    whole = urlset(*(url(f"q{i}") for i in range(5)))
    write(tmp_path / "new" / "two.xml", whole[: whole.index("q3")])  # an upload cut short
    code, out, err = run(capsys, "diff", old, new, "--map", f"https://e.com/={tmp_path}")
    assert code == 2, (out, err)
    assert "warning[xml-not-well-formed]" in err and "error[input-incomplete]" in err


def test_cli_a_truncated_gzip_is_trouble(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old = write(tmp_path / "old.xml", urlset(*(url(f"q{i}") for i in range(200))))
    packed = gzip.compress(old.read_bytes())
    new = tmp_path / "new.xml.gz"
    new.write_bytes(packed[: len(packed) // 2])
    code, out, err = run(capsys, "diff", old, new)
    assert code == 2, (out, err)
    assert "warning[truncated-gzip]" in err and f"{new}: error[input-incomplete]" in err


def test_cli_a_namespace_slip_read_to_the_end_is_no_trouble(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """xml-not-well-formed that reads on (an undeclared prefix) loses nothing: still exit 1 for a difference."""
    old = write(tmp_path / "old.xml", urlset(url("a")))
    new = write(
        tmp_path / "new.xml",
        f'<?xml version="1.0"?>\n<urlset {NS}>\n<url><loc>https://e.com/a</loc><image:image><image:loc>'
        "https://e.com/i.jpg</image:loc></image:image></url>\n<url><loc>https://e.com/b</loc></url>\n</urlset>\n",
    )
    code, out, err = run(capsys, "diff", old, new)
    assert "xml-not-well-formed" in err and "input-incomplete" not in err
    assert (code, out.splitlines()[0]) == (1, "+ https://e.com/b"), err


def test_library_changes_name_the_inputs_read_incompletely(tmp_path: Path) -> None:
    old, new = _index_pair(tmp_path)
    seen: list[feedmap.Diagnostic] = []
    options = feedmap.Options(maps=((("https://e.com/", tmp_path)),))
    with feedmap.diff(old, new, options, on_diagnostic=seen.append) as changes:
        removed = [change.loc for change in changes if change.kind == "removed"]
    assert len(removed) == 5
    assert changes.incomplete == (str(new),)
    assert [d.code for d in seen if d.level is feedmap.Level.ERROR] == ["input-incomplete"]
    copy = write(tmp_path / "copy.xml", old.read_text(encoding="utf-8"))  # the same index, the same children
    with pytest.raises(feedmap.ReadError) as raised, feedmap.diff(old, copy, options) as same:
        list(same)
    assert raised.value.code == "same-files"


@pytest.mark.parametrize(
    ("old", "new", "changed"),
    [
        ("2024-01-01T00:00:00Z", "2024-01-01T00:00:00+00:00", False),  # one instant, spelled two ways
        ("2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00", False),
        ("2024-01-01T00:00Z", "2024-01-01T00:00:00.000Z", False),  # precision of a time: still the instant
        ("2024-01-01T00:00:00", "2024-01-01T00:00:00Z", False),  # no zone is UTC, as the filters read it
        ("2024-01-01T00:00:00Z", "2024-01-01T00:00:01Z", True),
        ("2024-01-01T00:00:00Z", "2024-01-01T00:00:00-01:00", True),
        ("2024-01-01", "2024-01-01T00:00:00Z", True),  # a day became an instant: the value says more
        ("2024-01", "2024-01-01", True),
    ],
)
def test_lastmod_compares_as_the_instant_it_names(tmp_path: Path, old: str, new: str, changed: bool) -> None:
    files = [
        write(tmp_path / f"{n}.xml", urlset(url("p", f"<lastmod>{v}</lastmod>"))) for n, v in (("o", old), ("n", new))
    ]
    with feedmap.diff(*files) as changes:
        found = list(changes)
    assert [(c.kind, c.fields) for c in found] == ([("changed", ("lastmod",))] if changed else [])
    assert changes.counts["unchanged"] == (0 if changed else 1)
    if changed:  # shown as written
        assert (str(found[0].old.lastmod), str(found[0].new.lastmod)) == (old, new)  # type: ignore[union-attr]


def test_cli_help_says_how_lastmods_compare(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "diff", "--help")[1]
    assert "2024-01-01T00:00:00Z and 2024-01-01T01:00:00+01:00 are the same" in " ".join(out.split())


def test_cli_since_is_refused_it_would_skip_a_child_on_one_side_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The child's lastmod moved past --since: skipped in OLD, read in NEW, all its URLs came out 'added'."""
    for side, lastmod in (("old", "2023-01-01"), ("new", "2024-07-01")):
        (tmp_path / side).mkdir()
        write(tmp_path / side / "part.xml", urlset(url("a"), url("b")))
        write(
            tmp_path / f"{side}-index.xml",
            f'<?xml version="1.0"?>\n<sitemapindex {NS}><sitemap><loc>https://e.com/{side}/part.xml</loc>'
            f"<lastmod>{lastmod}</lastmod></sitemap></sitemapindex>\n",
        )
    indexes = (tmp_path / "old-index.xml", tmp_path / "new-index.xml")
    mapped = ("--map", f"https://e.com/={tmp_path}")
    code, out, err = run(capsys, "diff", *indexes, *mapped, "--since", "2024-06-01")
    assert (code, out) == (2, "")
    assert "feedmap: error: " in err and "--since" in err and "Traceback" not in err
    assert "--since" not in run(capsys, "diff", "--help")[1]
    assert run(capsys, "diff", *indexes, *mapped)[:2] == (0, "0 added, 0 removed, 0 changed, 2 unchanged\n")
    with pytest.raises(ValueError, match="since"):
        feedmap.diff(*indexes, feedmap.Options(since="2024-06-01"))


def test_cli_temporary_storage_that_fails_is_a_message_not_a_traceback(
    capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The temporary folder cannot be made (TMPDIR names a file), or the disk fills up under SQLite."""
    not_a_folder = write(tmp_path / "not-a-folder", "")
    monkeypatch.setattr(tempfile, "tempdir", str(not_a_folder))
    code, out, err = run(capsys, "diff", *pair)
    assert (code, out) == (2, "")
    assert err.startswith("feedmap: error: ") and "temporary" in err and "Traceback" not in err
    monkeypatch.undo()
    connect = sqlite3.connect

    def small_disk(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = connect(*args, **kwargs)
        db.execute("PRAGMA max_page_count = 3")  # "database or disk is full" after a few rows
        return db

    monkeypatch.setattr(sqlite3, "connect", small_disk)
    big = write(tmp_path / "big.xml", urlset(*(url(f"p{i}") for i in range(2000))))
    code, out, err = run(capsys, "diff", pair[0], big)
    assert (code, out) == (2, "")
    assert err.startswith("feedmap: error: ") and "full" in err and "Traceback" not in err


def test_hreflang_compares_without_case(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Language tags are case-insensitive (RFC 5646 §2.1.1): en-US and en-us are one alternate."""
    old = write(tmp_path / "old.xml", urlset(url("p", alternate("en-US", "us") + alternate("x-default", "p"))))
    new = write(tmp_path / "new.xml", urlset(url("p", alternate("en-us", "us") + alternate("X-Default", "p"))))
    code, out, err = run(capsys, "diff", old, new)
    assert (code, out) == (0, "0 added, 0 removed, 0 changed, 1 unchanged\n"), err
    newer = write(tmp_path / "newer.xml", urlset(url("p", alternate("en-us", "us") + alternate("de", "de"))))
    code, out, err = run(capsys, "diff", old, newer)
    assert code == 1 and out.splitlines()[0] == "~ https://e.com/p  alternates: 2 -> 2, +1 -1"  # x-default -> de


@pytest.mark.parametrize(
    ("name", "body", "code"),
    [
        ("new.jsonl", '{"loc": "https://e.com/a"}\n{"loc": "https://e.com/b", "priority": "high"}\n', "invalid-value"),
        ("new.jsonl", '{"loc": "https://e.com/a"}\n{"loc": "https://e.com/b",\n', "invalid-json"),
        ("new.txt", "https://e.com/a\nhttps://e.com/b" + "x" * 2000 + "\n", "line-too-long"),
        ("new.txt", "https://e.com/a\nhttps://e.com/b,2024-01-01\n", "csv-line"),
    ],
)
def test_cli_a_skipped_line_is_trouble(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, body: str, code: str
) -> None:
    """A JSON line or text line skipped is an entry lost: its URL would be listed as removed."""
    old = write(tmp_path / "old.txt", "https://e.com/a\nhttps://e.com/b\n")
    new = write(tmp_path / name, body)
    status, out, err = run(capsys, "diff", old, new, "--max-line-bytes", "1K")
    assert f"warning[{code}]" in err and f"{new}: error[input-incomplete]" in err
    assert status == 2, (out, err)


def test_cli_a_text_sitemap_and_an_xml_one_with_the_same_urls_are_the_same(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A text sitemap holds only URLs: the lastmod it cannot hold is no change ('lastmod: none -> ...' on
    every URL, exit 1); only what both formats hold is compared, and a note says what was not."""
    xml = write(
        tmp_path / "sitemap.xml", urlset(url("a", "<lastmod>2024-01-01</lastmod><priority>0.3</priority>"), url("b"))
    )
    text = write(tmp_path / "urls.txt", "https://e.com/a\nhttps://e.com/b\n")
    for pair in ((text, xml), (xml, text)):
        code, out, err = run(capsys, "diff", *pair)
        assert (code, out) == (0, "0 added, 0 removed, 0 changed, 2 unchanged\n"), err
        assert f"{text}: info[fields-not-compared]: " in err and "lastmod" in err
    more = write(tmp_path / "more.txt", "https://e.com/a\nhttps://e.com/b\nhttps://e.com/c\n")
    code, out, err = run(capsys, "diff", xml, more)
    assert (code, out.splitlines()[0]) == (1, "+ https://e.com/c")
    with feedmap.diff(xml, text) as changes:
        assert list(changes) == [] and changes.counts["unchanged"] == 2
    code, out, err = run(capsys, "diff", xml, write(tmp_path / "copy.xml", xml.read_text(encoding="utf-8")))
    assert code == 0 and "fields-not-compared" not in err


def test_cli_help_gives_an_example_of_each_own_option(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "diff", "--help")[1]
    examples = ("feedmap diff --jsonl ", "feedmap diff -q ", "feedmap diff --no-follow ", "feedmap diff day1/ day2/")
    for example in (*examples, " --old-map https://", " --new-map https://"):
        assert example in out, example


def test_cli_no_usable_temporary_folder_at_all_is_a_message_not_a_traceback(
    capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When Python finds no temporary folder (tempfile.gettempdir raises), the error is still one message."""
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setattr(tempfile, "_candidate_tempdir_list", lambda: [str(tmp_path / "missing")])
    code, out, err = run(capsys, "diff", *pair)
    assert (code, out) == (2, "")
    assert err.startswith("feedmap: error: ") and "temporary" in err and "Traceback" not in err
