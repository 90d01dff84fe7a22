"""``feedmap.compiled_parts()``, ``feedmap.accelerated()`` and ``feedmap --version`` name every compiled part
(issue 19: a compiled part is optional, and which twin runs is said): the sitemap walk, the key table of repeated
URLs, the urlset pass, and any part added later, as the list is held to the package's ``.pyx`` sources.  Under
``FEEDMAP_REQUIRE_ACCEL=1`` (CI) a compiled pass (or JSON lines reader) that is missing fails the conversion that
needs it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import env_flag, run

import feedmap

PURE = "FEEDMAP_PURE"
SOURCES = sorted(Path(feedmap.__file__).parent.rglob("*.pyx"))


def built(source: Path) -> bool:
    """Whether the extension of a ``.pyx`` source was built next to it (``pip install -e`` builds in place)."""
    return any(source.parent.glob(source.stem + ".*.so")) or any(source.parent.glob(source.stem + ".*.pyd"))


def test_every_compiled_source_of_the_package_is_a_part_named() -> None:
    parts = feedmap.compiled_parts()
    assert len(SOURCES) >= 3
    assert len(parts) == len(SOURCES), (sorted(parts), [str(source) for source in SOURCES])
    assert {"sitemap walk", "key table", "urlset pass", "feed pass"} <= set(parts)
    assert all(isinstance(in_use, bool) for in_use in parts.values())


def test_feedmap_pure_turns_every_part_to_its_twin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PURE, "1")
    assert set(feedmap.compiled_parts().values()) == {False}
    assert feedmap.accelerated() is False


def test_each_part_built_is_in_use_without_feedmap_pure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PURE, raising=False)
    parts = feedmap.compiled_parts()
    assert sum(parts.values()) == sum(map(built, SOURCES))
    assert feedmap.accelerated() is all(map(built, SOURCES))
    if not env_flag("FEEDMAP_REQUIRE_ACCEL") and not all(map(built, SOURCES)):
        pytest.skip("not every compiled part is built here (pip install with a C compiler builds them)")
    assert set(parts.values()) == {True}


@pytest.mark.parametrize("pure", [True, False])
def test_version_names_every_part_and_which_twin_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, pure: bool
) -> None:
    if pure:
        monkeypatch.setenv(PURE, "1")
    else:
        monkeypatch.delenv(PURE, raising=False)
    code, out, _ = run(capsys, "--version")
    assert code == 0
    match = re.fullmatch(rf"feedmap {re.escape(feedmap.__version__)} \((.*)\)\n", out)
    assert match is not None, out
    said: dict[str, bool] = {}
    for group in match.group(1).split("; "):
        kind, names = group.split(": ")
        assert kind in ("compiled", "pure-Python")
        said.update(dict.fromkeys(names.split(", "), kind == "compiled"))
    assert said == feedmap.compiled_parts()
    if pure:
        assert set(said.values()) == {False}


#: A fresh interpreter where the compiled module ``argv[1]`` cannot be imported (as where it was not built): what
#: ``compiled_parts()`` answers, then the conversion of ``argv[2]`` to ``argv[3]`` in format ``argv[4]``.
_BLOCKED = """\
import json, sys
sys.modules[sys.argv[1]] = None
import feedmap
print(json.dumps(feedmap.compiled_parts()), flush=True)
feedmap.convert(sys.argv[2], sys.argv[3], sys.argv[4])
"""

#: Each compiled pass (and the JSON lines reader), the module built from its ``.pyx``, a target whose conversion
#: runs it, and the input's kind (a urlset, or the same URLs as JSON lines).
PASSES = [
    ("feed pass", "feedmap.converters._feed_pass_c", "rss", "xml"),
    ("urlset pass", "feedmap.converters._pass_c", "sitemap", "xml"),
    ("jsonl reader", "feedmap.formats.lines._jsonl_c", "sitemap", "jsonl"),
]

_URLSET = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    b"<url><loc>https://a.example/x</loc><lastmod>2024-01-01</lastmod></url>\n"
    b"<url><loc>https://a.example/y</loc></url>\n<url><loc>https://a.example/x</loc></url>\n</urlset>\n"
)
_JSON_LINES = (
    b'{"loc": "https://a.example/x", "lastmod": "2024-01-01"}\n{"loc": "https://a.example/y"}\n'
    b'{"loc": "https://a.example/x"}\n'
)


def _convert_blocked(module: str, source: Path, out: Path, target: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {key: value for key, value in os.environ.items() if key not in (PURE, "FEEDMAP_REQUIRE_ACCEL")}
    command = [sys.executable, "-c", _BLOCKED, module, str(source), str(out), target]
    return subprocess.run(command, env={**environ, **env}, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(("part", "module", "target", "kind"), PASSES)
def test_require_accel_makes_a_missing_compiled_pass_an_error(
    tmp_path: Path, part: str, module: str, target: str, kind: str
) -> None:
    """CI sets FEEDMAP_REQUIRE_ACCEL=1: a conversion whose compiled pass is missing fails (a ModuleNotFoundError
    naming it) instead of running the pure twin unseen; compiled_parts() answers that part False without raising.
    Without the variable the same conversion runs the pure twin and writes what FEEDMAP_PURE=1 writes."""
    source = tmp_path / f"in.{kind}"
    source.write_bytes(_URLSET if kind == "xml" else _JSON_LINES)
    required = _convert_blocked(module, source, tmp_path / "required.out", target, FEEDMAP_REQUIRE_ACCEL="1")
    assert required.returncode != 0, required.stdout + required.stderr
    assert json.loads(required.stdout.splitlines()[0])[part] is False
    assert f"ModuleNotFoundError: import of {module} halted" in required.stderr, required.stderr
    quiet = _convert_blocked(module, source, tmp_path / "quiet.out", target)
    pure = _convert_blocked("no.such.module", source, tmp_path / "pure.out", target, **{PURE: "1"})
    assert quiet.returncode == 0 and pure.returncode == 0, quiet.stderr + pure.stderr
    assert json.loads(quiet.stdout.splitlines()[0])[part] is False
    written = (tmp_path / "quiet.out").read_bytes()
    assert written == (tmp_path / "pure.out").read_bytes()
    assert written.count(b"https://a.example/x") >= 1 and b"https://a.example/y" in written
