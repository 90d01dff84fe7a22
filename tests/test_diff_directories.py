"""``feedmap diff OLD_DIR/ NEW_DIR/``: two directories published by ``feedmap convert -o DIR/ --base-url URL``,
each index read with its children from its own directory; per-side maps (``--old-map``, ``--new-map``); both
sides read from the same files is trouble (exit 2), never a silent "0 changed"; and hostile directory
contents (missing children, extra files, odd names) end in a message and exit 2, never a traceback."""

from __future__ import annotations

import json
import shutil
import string
import tempfile
from pathlib import Path

import pytest
from conftest import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap

BASE = "https://example.com/maps/"
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def publish(capsys: pytest.CaptureFixture[str], folder: Path, lines: list[str], *more: str) -> Path:
    """``feedmap convert urls.jsonl -o folder/ --base-url BASE --max-urls 2``: several files and an index."""
    source = folder.parent / f"{folder.name}.jsonl"
    source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    code, _out, err = run(capsys, "convert", source, "-t", "sitemap", "-o", f"{folder}/", "--base-url", BASE,
                          "--max-urls", "2", *more)  # fmt: skip
    assert code == 0, err
    assert len(list(folder.glob("sitemap-*.xml"))) >= 2  # children, not one file
    return folder


def entry(loc: str, lastmod: str = "2024-01-01") -> str:
    return json.dumps({"loc": f"https://example.com/{loc}", "lastmod": lastmod})


@pytest.fixture
def days(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[Path, Path]:
    """day1 and day2, published by convert: b changed its lastmod, c removed, e added."""
    day1 = publish(capsys, tmp_path / "day1", [entry("a"), entry("b"), entry("c"), entry("d")])
    day2 = publish(capsys, tmp_path / "day2", [entry("a"), entry("b", "2024-02-01"), entry("d"), entry("e")])
    return day1, day2


def test_two_published_directories_are_compared_file_by_file(
    capsys: pytest.CaptureFixture[str], days: tuple[Path, Path]
) -> None:
    day1, day2 = days
    code, out, err = run(capsys, "diff", f"{day1}/", f"{day2}/")
    assert code == 1, err
    assert out.splitlines() == [
        "~ https://example.com/b  lastmod: 2024-01-01 -> 2024-02-01",
        "+ https://example.com/e",
        "- https://example.com/c",
        "1 added, 1 removed, 1 changed, 2 unchanged",
    ]
    assert "error[" not in err
    code, out, _err = run(capsys, "diff", day1, day2, "--jsonl")  # without the trailing '/' too
    assert code == 1 and json.loads(out.splitlines()[-1]) == {
        "kind": "summary", "added": 1, "removed": 1, "changed": 1, "unchanged": 2,
    }  # fmt: skip
    code, out, _err = run(capsys, "diff", day2, day2.parent / "." / "day2")
    assert (code, out) == (2, "")


def test_the_issue_case_one_map_serving_both_indexes_is_trouble_not_zero_changed(
    capsys: pytest.CaptureFixture[str], days: tuple[Path, Path]
) -> None:
    day1, day2 = days
    indexes = (day1 / "sitemap_index.xml", day2 / "sitemap_index.xml")
    code, out, err = run(capsys, "diff", *indexes, "--map", f"{BASE}={day2}/")
    assert (code, out) == (2, "")
    assert "error[same-files]" in err and "OLD_DIR/ NEW_DIR/" in err and "Traceback" not in err


def test_per_side_maps_read_each_index_s_children_from_its_own_directory(
    capsys: pytest.CaptureFixture[str], days: tuple[Path, Path]
) -> None:
    day1, day2 = days
    indexes = (day1 / "sitemap_index.xml", day2 / "sitemap_index.xml")
    code, out, err = run(capsys, "diff", *indexes, "--old-map", f"{BASE}={day1}", "--new-map", f"{BASE}={day2}")
    assert code == 1, err
    assert out.splitlines()[-1] == "1 added, 1 removed, 1 changed, 2 unchanged"
    # a side's own map is looked up before --map, which serves the other side
    code, out, err = run(capsys, "diff", *indexes, "--map", f"{BASE}={day1}", "--new-map", f"{BASE}={day2}")
    assert (code, out.splitlines()[-1]) == (1, "1 added, 1 removed, 1 changed, 2 unchanged"), err


def test_a_side_s_map_for_a_directory_is_refused(capsys: pytest.CaptureFixture[str], days: tuple[Path, Path]) -> None:
    day1, day2 = days
    code, out, err = run(capsys, "diff", day1, day2, "--old-map", f"{BASE}={day2}")
    assert (code, out) == (2, "") and "--old-map" in err and "Traceback" not in err
    with pytest.raises(ValueError, match="directory"):
        feedmap.diff(day1, day2, new_maps=[(BASE, day1)])


def test_library_diff_of_directories_and_per_side_maps(days: tuple[Path, Path]) -> None:
    day1, day2 = days
    with feedmap.diff(day1, day2) as changes:
        kinds = [(change.kind, change.loc) for change in changes]
    assert kinds == [("changed", "https://example.com/b"), ("added", "https://example.com/e"),
                     ("removed", "https://example.com/c")]  # fmt: skip
    assert changes.counts["unchanged"] == 2 and changes.incomplete == ()
    old, new = day1 / "sitemap_index.xml", day2 / "sitemap_index.xml"
    with feedmap.diff(old, new, old_maps=[(BASE, day1)], new_maps=[(BASE, str(day2))]) as changes:
        assert len(list(changes)) == 3
    one_map = feedmap.Options(maps=((BASE, day1),))
    with pytest.raises(feedmap.ReadError) as raised, feedmap.diff(old, new, one_map) as same:
        list(same)
    assert raised.value.code == "same-files"


def test_a_child_missing_from_a_directory_is_trouble(
    capsys: pytest.CaptureFixture[str], days: tuple[Path, Path]
) -> None:
    day1, day2 = days
    (day2 / "sitemap-2.xml").unlink()
    code, out, err = run(capsys, "diff", day1, day2)
    assert code == 2, (out, err)
    assert "warning[child-unreadable]" in err and "error[input-incomplete]" in err


def test_a_child_not_in_the_directory_is_never_read_from_elsewhere(
    capsys: pytest.CaptureFixture[str], days: tuple[Path, Path], tmp_path: Path
) -> None:
    """An index naming a child outside its base URL (another folder of the site, a file: URL) reads nothing
    but the directory: the child is refused with a warning, the side incomplete (exit 2)."""
    day1, day2 = days
    secret = tmp_path / "secret.xml"
    secret.write_text(f"<urlset {NS}><url><loc>https://example.com/secret</loc></url></urlset>", encoding="utf-8")
    index = day2 / "sitemap_index.xml"
    text = index.read_text(encoding="utf-8")
    extra = f"<sitemap><loc>{secret.as_uri()}</loc></sitemap><sitemap><loc>https://example.com/x.xml</loc></sitemap>"
    index.write_text(text.replace("</sitemapindex>", extra + "</sitemapindex>"), encoding="utf-8")
    code, out, err = run(capsys, "diff", day1, day2)
    assert code == 2, (out, err)
    assert err.count("warning[child-outside-directory]") == 2 and "error[input-incomplete]" in err
    assert "secret" not in out


def test_an_index_linked_from_outside_the_directory_is_not_read(
    capsys: pytest.CaptureFixture[str], days: tuple[Path, Path], tmp_path: Path
) -> None:
    """A directory's index, as its children, is one of its files: a symbolic link out of it is refused."""
    day1, day2 = days
    secret = tmp_path / "secret.xml"
    secret.write_text(f"<urlset {NS}><url><loc>https://example.com/secret</loc></url></urlset>", encoding="utf-8")
    (day2 / "sitemap_index.xml").unlink()
    (day2 / "sitemap_index.xml").symlink_to(secret)
    code, out, err = run(capsys, "diff", day1, day2)
    assert (code, out) == (2, "") and "secret" not in err.replace(str(tmp_path), "")
    with pytest.raises(feedmap.SourceError), feedmap.diff(day1, day2) as changes:
        list(changes)


def test_a_directory_without_an_index_is_a_message(capsys: pytest.CaptureFixture[str], days: tuple[Path, Path]) -> None:
    day1, day2 = days
    (day2 / "sitemap_index.xml").unlink()
    code, out, err = run(capsys, "diff", day1, day2)
    assert (code, out) == (2, "")
    assert "sitemap_index.xml" in err and "Traceback" not in err


def test_json_is_deprecated_for_jsonl_with_a_warning(
    capsys: pytest.CaptureFixture[str], days: tuple[Path, Path]
) -> None:
    day1, day2 = days
    code, new_out, new_err = run(capsys, "diff", "--jsonl", day1, day2)
    assert code == 1 and "deprecated" not in new_err
    code, old_out, old_err = run(capsys, "diff", "--json", day1, day2)
    assert (code, old_out) == (1, new_out)  # the same JSON lines, for one release
    assert "--json is deprecated" in old_err and "--jsonl" in old_err
    help_text = run(capsys, "diff", "--help")[1]
    assert "--jsonl" in help_text and "deprecated" in help_text


# -- hostile directory contents ------------------------------------------------------------------------------

NAMES = st.text(string.ascii_letters + string.digits + "-_.%#?&é\u202e\x1b\r ", min_size=1, max_size=12).filter(
    lambda name: name not in (".", "..")
)
#: Children that are no base URL + a file name, whatever the base (the first child's): never read, the side is
#: incomplete (exit 2).
NEVER_BY_NAME = ("file:///nonexistent/x.xml", "x.xml", f"{BASE}a%2Fb.xml", f"{BASE}%00.xml", BASE)
#: Children under another base than the first child's: read by name from the directory when one comes first.
ELSEWHERE = (
    "https://example.com/other/x.xml",
    f"{BASE}../x.xml",
    f"{BASE}%2e%2e/x.xml",
    "https://example.net/maps/x.xml",
)
CHILD = st.one_of(
    NAMES.map(lambda name: f"{BASE}{name}"),  # a file of the directory, or not
    st.sampled_from(["https://example.com/maps/sitemap-1.xml", "https://example.com/maps/sitemap-2.xml"]),
    st.sampled_from(NEVER_BY_NAME + ELSEWHERE),
)
FILE_BODY = st.sampled_from([
    f'<urlset {NS}><url><loc>https://example.com/p</loc></url></urlset>',
    f'<urlset {NS}><url><loc>https://example.com/p</loc>',  # cut short
    f'<sitemapindex {NS}><sitemap><loc>{BASE}sitemap-1.xml</loc></sitemap></sitemapindex>',  # a nested index
    "https://example.com/t\n",
    "",
    "\x00\xff not a sitemap",
])  # fmt: skip


def _xml_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("\r", "&#13;").replace("\x1b", "")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    children=st.lists(CHILD, max_size=5),
    files=st.dictionaries(NAMES.filter(lambda n: "/" not in n and "\x00" not in n), FILE_BODY, max_size=4),
    drop_index=st.booleans(),
)
def test_hostile_directories_never_end_in_a_traceback(
    capsys: pytest.CaptureFixture[str], days: tuple[Path, Path], children: list[str], files: dict[str, str],
    drop_index: bool,
) -> None:  # fmt: skip
    day1, _day2 = days
    with tempfile.TemporaryDirectory() as scratch:
        hostile = Path(scratch) / "hostile"
        shutil.copytree(day1, hostile)
        for name, body in files.items():
            (hostile / name).write_text(body, encoding="utf-8", errors="surrogateescape")
        listed = "".join(f"<sitemap><loc>{_xml_text(child)}</loc></sitemap>" for child in children)
        index = hostile / "sitemap_index.xml"
        if drop_index:
            index.unlink()
        else:
            index.write_text(f'<?xml version="1.0"?>\n<sitemapindex {NS}>{listed}</sitemapindex>\n', encoding="utf-8")
        for pair in ((day1, hostile), (hostile, day1)):
            code, out, err = run(capsys, "diff", *pair)
            assert "Traceback" not in err
            assert code in (0, 1, 2), (code, err)
            assert "\x1b" not in out + err and "\u202e" not in out + err
            if code in (0, 1):  # a complete comparison: every child of the hostile index was read
                assert "input-incomplete" not in err and out.splitlines()[-1].endswith("unchanged")
            if drop_index or any(child in NEVER_BY_NAME for child in children):  # never read from elsewhere
                assert code == 2, (children, err)


def test_a_directory_whose_index_is_named_otherwise(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    day1 = publish(capsys, tmp_path / "day1", [entry("a"), entry("b"), entry("c")], "--index-name", "idx.xml")
    day2 = publish(capsys, tmp_path / "day2", [entry("a"), entry("b"), entry("d")], "--index-name", "idx.xml")
    code, _out, err = run(capsys, "diff", day1, day2)
    assert code == 2 and "sitemap_index.xml" in err
    code, out, err = run(capsys, "diff", day1, day2, "--index-name", "idx.xml")
    assert (code, out.splitlines()[-1]) == (1, "1 added, 1 removed, 0 changed, 2 unchanged"), err
    with feedmap.diff(day1, day2, feedmap.Options(index_name="idx.xml")) as changes:
        assert [change.kind for change in changes] == ["added", "removed"]
    assert run(capsys, "diff", day1, day2, "--index-name", "../idx.xml")[0] == 2


def test_library_diff_reads_nothing_before_the_first_change_is_asked_for(days: tuple[Path, Path]) -> None:
    day1, day2 = days
    (day2 / "sitemap_index.xml").unlink()
    changes = feedmap.diff(day1, day2)  # no error yet: nothing read
    with pytest.raises(feedmap.SourceError, match=r"sitemap_index\.xml"), changes:
        next(changes)
