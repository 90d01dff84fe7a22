"""Hostile directory output: ``feedmap.split`` over generated name patterns, index names and directory contents.

Each example fills a fresh directory with files feedmap did not write (names of its own naming among them:
``sitemap-3.xml``, ``404.xml`` beside ``{n}.xml``, hidden names like its temporary files, a sitemap index of
another name), runs a first split and then a second one with other settings (a pattern, an index name, a
format, a number of entries, gzip), and checks after each run:

* no traceback: a run succeeds or raises a :class:`feedmap.FeedmapError` (or the ``ValueError`` of options
  refused when made);
* feedmap never deletes a file it did not write: every file there before the first run still has its bytes
  unless a run wrote that very name (but the temporary and lock files of a killed run, which are feedmap's);
* never a half-published set: after a success every URL of the index names a file of the directory holding
  its bytes; after a failure the directory is as it was, with no temporary file left.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from pathlib import Path
from urllib.parse import unquote

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from lxml import etree

import feedmap
from feedmap.cli import main

BASE = "https://example.com/maps/"
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"

#: Characters that names trip on: URL delimiters, '%', blanks, non-ASCII, controls, a separator, braces.
TRICKY = "#?% é\u00a0\n\x85/{}.:;&'\"<>*\\" + "\udcff"
PIECES = st.text(alphabet=st.sampled_from("abz-_" + TRICKY), max_size=6)
FIELDS = st.sampled_from(["{n}", "{n:03d}", "{n:1d}", "{n:5}", "{m}", ""])
SUFFIXES = st.sampled_from([".xml", ".xml.gz", ".GZ", ".txt", "", ".xml.Gz"])
PATTERNS = st.none() | st.builds(lambda a, field, b, end: a + field + b + end, PIECES, FIELDS, PIECES, SUFFIXES)
INDEX_NAMES = (
    st.none()
    | st.sampled_from(["sitemap_index.xml", "one.xml", "404.xml", "sitemap-1.xml"])
    | st.builds(lambda a, end: a + end, PIECES, st.sampled_from([".xml", ""]))
)
#: What a run killed outright leaves (a temporary file and its lock file, unlocked): the next run removes them.
LEFTOVERS = (".sitemap-2.xml.0123abcd.89abcdef.part", ".feedmap-0123abcd.lock")
#: Names of files feedmap did not write: of its own namings, of its temporary and lock files, and others.
FOREIGN_NAMES = st.sampled_from(
    [
        "sitemap-1.xml",
        "sitemap-3.xml",
        "sitemap-2024.xml",
        "sitemap-1.xml.gz",
        "404.xml",
        "1.xml",
        "urls-1.txt",
        "robots.txt",
        ".sitemap-1.xml.0123abcd.part",
        ".sitemap-1.xml.fedcba98.89abcdef.part",  # of a run's naming, but no lock file of that run
        *LEFTOVERS,
        "other_index.xml",
    ]
) | st.builds(lambda a, end: a + end, st.text(alphabet="abc#% é-", min_size=1, max_size=5), SUFFIXES)
RUNS = st.fixed_dictionaries(
    {
        "format": st.sampled_from(["sitemap", "text"]),
        "name": PATTERNS,
        "index_name": INDEX_NAMES,
        "gzip": st.booleans(),
        "max_urls": st.integers(min_value=1, max_value=3),
        "count": st.integers(min_value=0, max_value=7),
    }
)


def foreign_content(name: str) -> bytes:
    """A file feedmap did not write; an index among them names files of the directory (another set's)."""
    if name == "other_index.xml":
        return (
            f'<sitemapindex xmlns="{SM[1:-1]}"><sitemap><loc>{BASE}sitemap-3.xml</loc></sitemap>'
            f"<sitemap><loc>{BASE}404.xml</loc></sitemap></sitemapindex>"
        ).encode()
    return f"not feedmap's: {name}".encode("utf-8", "surrogateescape")


def snapshot(folder: Path) -> dict[str, bytes]:
    """The bytes of every file, but the leftovers of a killed run."""
    names = [name for name in os.listdir(folder) if (folder / name).is_file() and name not in LEFTOVERS]
    return {name: (folder / name).read_bytes() for name in names}


def run(folder: Path, settings_: dict[str, object]) -> feedmap.SplitSummary | None:
    """One split; None when it was refused (a FeedmapError, or options refused when made)."""
    options = {key: value for key, value in settings_.items() if key not in ("format", "count") and value is not None}
    entries = [feedmap.Entry(loc=f"{BASE}page/{number}") for number in range(int(str(settings_["count"])))]
    try:
        made = feedmap.Options(base_url=BASE, **options)  # type: ignore[arg-type]
    except ValueError:
        return None
    try:
        return feedmap.split(entries, folder, str(settings_["format"]), made)
    except feedmap.FeedmapError:
        return None


def index_names(folder: Path, index: str) -> list[str]:
    root = etree.fromstring((folder / index).read_bytes())
    locs = [element.text or "" for element in root.iter(f"{SM}loc")]
    assert all(loc.startswith(BASE) for loc in locs)
    return [unquote(loc[len(BASE) :]) for loc in locs]


def check(folder: Path, before: dict[str, bytes], summary: feedmap.SplitSummary | None) -> dict[str, bytes]:
    after = snapshot(folder)
    assert not [name for name in after if name.endswith((".part", ".lock")) and name not in before]
    if summary is None:
        assert after == before  # a refused or failed run changes nothing
        return after
    written = set(summary.files) | {summary.index}
    for name, data in before.items():  # nothing removed that the run did not own
        if name not in written and name not in summary.removed:
            assert after.get(name) == data, name
    named = index_names(folder, summary.index)
    assert named == list(summary.files) and all(name in after for name in named)  # the set is whole
    return after


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(foreign=st.lists(FOREIGN_NAMES, max_size=6, unique=True), first=RUNS, second=RUNS)
def test_directory_output_never_deletes_what_it_did_not_write_nor_half_publishes(
    foreign: list[str], first: dict[str, object], second: dict[str, object]
) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "site"
        folder.mkdir()
        for name in foreign:
            (folder / name).write_bytes(foreign_content(name))
        original = snapshot(folder)
        one = run(folder, first)
        middle = check(folder, original, one)
        two = run(folder, second)
        check(folder, middle, two)
        event(f"runs published: {(one is not None) + (two is not None)}")
        event(f"files removed by the second: {bool(two and two.removed)}")
        owned = set()
        for summary in (one, two):
            if summary is not None:
                owned |= set(summary.files) | {summary.index}
        for name, data in original.items():  # what feedmap did not write survives both runs
            if name not in owned:
                assert (folder / name).read_bytes() == data, name
        if one is not None and two is not None and one.index != two.index:
            kept = set(one.files) - set(two.files) - {two.index}  # another set's files stay whole
            assert kept <= set(os.listdir(folder))


CLI_NAMES = st.builds(lambda a, field, b, end: a + field + b + end, PIECES, FIELDS, PIECES, SUFFIXES)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pattern=CLI_NAMES,
    index=st.none() | st.builds(lambda a: a + ".xml", PIECES),
    gzip=st.booleans(),
    foreign=st.lists(FOREIGN_NAMES, max_size=4, unique=True),
)
def test_the_command_line_into_a_directory_never_tracebacks(
    pattern: str, index: str | None, gzip: bool, foreign: list[str]
) -> None:
    """The same through ``feedmap convert -o DIR/``: exit 0, 1 or 2 with a message, never a traceback, and what
    feedmap did not write is still there."""
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "site"
        folder.mkdir()
        for name in foreign:
            (folder / name).write_bytes(foreign_content(name))
        original = snapshot(folder)
        urls = Path(temporary) / "urls.txt"
        urls.write_text("".join(f"{BASE}page/{number}\n" for number in range(5)))
        argv = ["convert", str(urls), "-o", f"{folder}/", "--base-url", BASE, "--max-urls", "2", "--name", pattern]
        argv += (["--index-name", index] if index is not None else []) + (["--gzip"] if gzip else [])
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            try:
                code = main(argv)
            except SystemExit as exit:  # argparse refusing a value
                code = int(str(exit.code))
        assert code in (0, 1, 2) and "Traceback" not in errors.getvalue(), errors.getvalue()
        after = snapshot(folder)
        written = {name for name in after if after[name] != original.get(name)}
        assert all(name in after for name in original if name not in written)
        if code != 0:
            assert after == original
