"""The command line loads only what a run uses (issue 19: every whole-process run pays the CLI's start-up).

``feedmap convert FILE -t text`` (a local urlset or feed, text or JSON lines, no split, no ``--enrich``, no
index) imports no HTTP client, thread or process pool, SQLite, splitting, index-following workers,
validation, diff, discovery or enrichment module; a run that needs one loads it.  Each command's parser is
still built whole, so ``--help`` says what it said.  Every run is a fresh interpreter, as the ``feedmap``
command starts, calling ``feedmap.cli.main``; the modules it loaded are read from ``sys.modules`` by name.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import urlset_xml

ROOT = Path(__file__).resolve().parent.parent

#: Dependencies and standard modules a light run has no use for: the HTTP client, pools of threads and
#: processes, SQLite (diff's store).  (The HTML sanitizer is not among them: a feed's descriptions use it.)
HEAVY_DEPENDENCIES = (
    "httpx",
    "httpcore",
    "h11",
    "sqlite3",
    "_sqlite3",
    "concurrent.futures",
    "multiprocessing",
)
#: The package's own machinery of other runs (named as strings; never imported here): splitting into a
#: directory, index-following workers, validation, diff, discovery, page enrichment.
HEAVY_MACHINERY = (
    "feedmap._publish.split",
    "feedmap._publish.publish",
    "feedmap._web.partitions",
    "feedmap._web.discover",
    "feedmap._web.sitemaptree",
    "feedmap._validate",
    "feedmap._diff",
    "feedmap.converters._enrich",
    "feedmap.converters._html",
)

_SCRIPT = """\
import json, sys
from feedmap.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _run(*argv: str | Path, cwd: Path) -> tuple[int, list[str]]:
    """``feedmap argv...`` in a fresh interpreter: its exit code and the modules it had loaded at the end."""
    command = [sys.executable, "-c", _SCRIPT, *map(str, argv)]
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout.splitlines()[-1])
    return shown["code"], shown["modules"]


def _heavy(modules: list[str]) -> list[str]:
    """The loaded modules that are, or are within, one of the heavy ones."""
    heavy = (*HEAVY_DEPENDENCIES, *HEAVY_MACHINERY)
    return [name for name in modules if name in heavy or name.startswith(tuple(f"{h}." for h in heavy))]


@pytest.fixture
def urlset(tmp_path: Path) -> Path:
    path = tmp_path / "sitemap.xml"
    path.write_bytes(urlset_xml("https://example.com/a", "https://example.com/b"))
    return path


@pytest.mark.parametrize("target", ["text", "jsonl"])
def test_converting_a_local_urlset_loads_no_split_follow_validate_diff_or_http(
    urlset: Path, tmp_path: Path, target: str
) -> None:
    out = tmp_path / "out"
    code, modules = _run("convert", urlset, "-t", target, "-o", out, cwd=tmp_path)
    assert code == 0
    assert "https://example.com/b" in out.read_text(encoding="utf-8")
    assert _heavy(modules) == []


@pytest.mark.parametrize("sample", ["rss/feed.xml", "ror/site.xml", "text/urls.txt", "jsonl/entries.jsonl"])
def test_converting_a_local_feed_or_lines_to_text_loads_none_of_them_either(sample: str, tmp_path: Path) -> None:
    source = ROOT / "samples" / sample
    if not source.exists():
        pytest.skip(f"no sample {sample}")
    out = tmp_path / "out.txt"
    code, modules = _run("convert", source, "-t", "text", "-o", out, cwd=tmp_path)
    assert code == 0
    assert out.read_text(encoding="utf-8").startswith("http")
    assert _heavy(modules) == []


def test_version_loads_none_of_them(tmp_path: Path) -> None:
    code, modules = _run("--version", cwd=tmp_path)
    assert code == 0
    assert _heavy(modules) == []
    # nor the library's run machinery: the parsers are built, no command ran
    machinery = ("feedmap._api", "feedmap._web.follow", "feedmap.converters._pipeline")
    assert [name for name in modules if name in machinery] == []


def test_a_run_into_a_directory_loads_the_splitting_it_uses(urlset: Path, tmp_path: Path) -> None:
    """The sibling: the check above sees a module a run loads (splitting, here), so it can fail."""
    out = tmp_path / "public"
    code, modules = _run("convert", urlset, "-o", f"{out}/", "--base-url", "https://example.com/", cwd=tmp_path)
    assert code == 0
    assert (out / "sitemap_index.xml").exists()
    assert "feedmap._publish.split" in _heavy(modules)
    assert "feedmap._diff.diff" not in modules


def test_validate_and_diff_load_their_own_machinery_only(urlset: Path, tmp_path: Path) -> None:
    code, modules = _run("validate", urlset, cwd=tmp_path)
    assert code == 0
    assert "feedmap._validate.report" in modules
    assert [name for name in modules if name.startswith(("feedmap._diff", "sqlite3", "feedmap._publish.split"))] == []
    other = tmp_path / "other.xml"
    other.write_bytes(urlset_xml("https://example.com/a"))
    code, modules = _run("diff", urlset, other, cwd=tmp_path)
    assert code == 1  # different: b was removed
    assert "feedmap._diff.diff" in modules
    assert [name for name in modules if name.startswith(("feedmap._validate", "feedmap._publish.split"))] == []


_HELP_SCRIPT = """\
import contextlib, io, json
from feedmap.cli import main
helps = {}
for argv in ([], ["convert"], ["diff"], ["info"], ["validate"], ["discover"], ["formats"], ["codes"]):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main([*argv, "--help"])
    helps[" ".join(argv)] = out.getvalue()
print(json.dumps(helps))
"""


def test_help_of_every_command_is_the_same_whatever_was_loaded_before(
    capsys: pytest.CaptureFixture[str], urlset: Path, tmp_path: Path
) -> None:
    """``--help`` in a fresh interpreter (no command's machinery loaded) equals ``--help`` here, after runs
    of every kind loaded theirs: the parsers do not depend on what a run imports."""
    from feedmap.cli import main

    other = tmp_path / "other.xml"
    other.write_bytes(urlset_xml("https://example.com/a"))
    for argv in (["validate", str(urlset)], ["diff", str(urlset), str(other)]):
        main(argv)
    main(["convert", str(urlset), "-o", f"{tmp_path / 'public'}/", "--base-url", "https://example.com/"])
    capsys.readouterr()
    result = subprocess.run(
        [sys.executable, "-c", _HELP_SCRIPT], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=True
    )
    fresh: dict[str, str] = json.loads(result.stdout)
    for command, text in fresh.items():
        assert main([*command.split(), "--help"]) == 0
        assert capsys.readouterr().out == text, command
        assert text.startswith("usage: feedmap")
