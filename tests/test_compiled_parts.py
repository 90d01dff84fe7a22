"""``feedmap.compiled_parts()``, ``feedmap.accelerated()`` and ``feedmap --version`` name every compiled part
(issue 19: a compiled part is optional, and which twin runs is said): the sitemap walk, the key table of repeated
URLs, the urlset pass, and any part added later, as the list is held to the package's ``.pyx`` sources."""

from __future__ import annotations

import re
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
