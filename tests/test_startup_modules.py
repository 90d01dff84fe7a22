"""Start-up of a conversion through the library imports only what the input needs (issue 19, every whole-process
row): ``shutil`` (and with it ``bz2`` and ``lzma``) is imported when a scratch folder is removed, not at start,
so converting a JSON Lines file or a urlset that spills nothing loads none of them; ``pickle`` is imported by a
sort that spills its runs (or a text lane holding many diagnostics), so a plain conversion, through the library
or the CLI, loads none of it.  Each run is a fresh interpreter; what it loaded is read from ``sys.modules``.
(The CLI's own ``argparse`` imports ``shutil`` for the terminal's width, when it builds a parser's help formatter:
the library runs hold ``shutil`` to none, the CLI runs only ``pickle``.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import urlset_xml

_SCRIPT = """\
import json, sys
import feedmap
for source, target, out in zip(sys.argv[1::3], sys.argv[2::3], sys.argv[3::3]):
    feedmap.convert(source, out, target)
print(json.dumps(sorted(sys.modules)))
"""

LATE = ("shutil", "bz2", "lzma", "pickle")

#: The CLI, as ``python -m feedmap convert SOURCE -t TARGET -o OUT`` runs it, then what it loaded.
_CLI = """\
import json, runpy, sys
sys.argv = ["feedmap", "convert", sys.argv[1], "-t", sys.argv[2], "-o", sys.argv[3]]
try:
    runpy.run_module("feedmap", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    assert exc.code in (0, None), exc.code
print(json.dumps(sorted(sys.modules)))
"""


def _modules(*argv: str | Path, cwd: Path, script: str = _SCRIPT) -> list[str]:
    command = [sys.executable, "-c", script, *map(str, argv)]
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120, check=True)
    modules: list[str] = json.loads(result.stdout.splitlines()[-1])
    return modules


def _jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    lines = [{"loc": "https://a.example/x", "lastmod": "2024-05-06", "images": [{"loc": "https://a.example/i"}]}]
    lines += [{"loc": f"https://a.example/{n}"} for n in range(20)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("target", ["sitemap", "text", "jsonl"])
def test_converting_json_lines_imports_no_shutil(tmp_path: Path, target: str) -> None:
    modules = _modules(_jsonl(tmp_path), target, tmp_path / "out", cwd=tmp_path)
    assert "feedmap._io.seen_keys" in modules or target == "jsonl"
    assert [name for name in LATE if name in modules] == []


def test_converting_a_urlset_to_text_imports_no_shutil(tmp_path: Path) -> None:
    path = tmp_path / "in.xml"
    path.write_bytes(urlset_xml(*[f"https://a.example/{n}" for n in range(5)]))
    modules = _modules(path, "text", tmp_path / "out.txt", cwd=tmp_path)
    assert "feedmap._io.scratch" in modules
    assert [name for name in LATE if name in modules] == []


@pytest.mark.parametrize("target", ["text", "sitemap", "rss"])
def test_converting_a_urlset_with_the_cli_imports_no_pickle(tmp_path: Path, target: str) -> None:
    path = tmp_path / "in.xml"
    path.write_bytes(urlset_xml(*[f"https://a.example/{n}" for n in range(5)]))
    modules = _modules(path, target, tmp_path / "out", cwd=tmp_path, script=_CLI)
    assert (tmp_path / "out").is_file()
    assert "feedmap.converters._sort" in modules  # the sort step is loaded: only its pickle is not
    assert "shutil" in modules  # argparse's, with its bz2 and lzma (see the module's docstring)
    assert "pickle" not in modules


def test_converting_a_text_sitemap_imports_no_pickle(tmp_path: Path) -> None:
    """The text lane (text to text) holds its diagnostics in memory below a thousand: no pickle."""
    path = tmp_path / "in.txt"
    path.write_text("".join(f"https://a.example/{n}\n" for n in range(20)), encoding="utf-8")
    modules = _modules(path, "text", tmp_path / "out.txt", cwd=tmp_path)
    assert "feedmap._publish.text_lane" in modules
    assert [name for name in LATE if name in modules] == []
