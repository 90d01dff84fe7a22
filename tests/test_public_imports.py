"""Tests use the public surface: every public name (one listed in ``__all__`` of :mod:`feedmap`,
:mod:`feedmap.formats` or :mod:`feedmap.converters`) is imported from those public modules, never from a private
module (one with a ``_`` part in its dotted name, such as ``feedmap._core.errors`` or
``feedmap.formats._registry``).  A test may still import a private helper that is not public, to test it directly.

Imports are read from the syntax tree (those made inside functions too); ``from PRIVATE import NAME`` and
``import PRIVATE`` or ``from PUBLIC import _private`` followed by ``alias.NAME`` both count, and a name counts
when the object it binds is the public object itself (a private helper that merely shares a public name does not).

``python tests/test_public_imports.py --fix`` moves the public names of ``from PRIVATE import ...`` lines to
imports from their public module (then ``ruff check --fix --select I tests`` merges and sorts them); an
``alias.NAME`` use is only listed.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

TESTS_DIR = Path(__file__).resolve().parent
PUBLIC_MODULES = ("feedmap", "feedmap.formats", "feedmap.converters")


def is_private(module_name: str) -> bool:
    """A module of the package whose dotted name has a part starting with ``_`` (``__init__`` aside)."""
    parts = module_name.split(".")
    return parts[0] == "feedmap" and any(part.startswith("_") and part != "__init__" for part in parts[1:])


def public_objects() -> dict[int, str]:
    """id(object) -> ``module.NAME`` for every name in the public modules' ``__all__``."""
    found: dict[int, str] = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if not isinstance(value, (str, int, float, bytes, bool, type(None))):
                found.setdefault(id(value), f"{module_name}.{name}")
    return found


def _private_module_aliases(tree: ast.AST) -> dict[str, str]:
    """Local dotted names bound to a private module: ``import feedmap._x as m`` binds ``m``,
    ``import feedmap._x.y`` makes ``feedmap._x.y`` usable as written, ``from feedmap.formats import _registry``
    binds ``_registry``."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_private(alias.name):
                    aliases[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("feedmap"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if is_private(full) and _is_module(full):
                    aliases[alias.asname or alias.name] = full
    return aliases


def _is_module(dotted: str) -> bool:
    try:
        importlib.import_module(dotted)
    except ImportError:
        return False
    return True


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        parent = _dotted(node.value)
        return f"{parent}.{node.attr}" if parent is not None else None
    return None


def _uses(path: Path) -> Iterator[tuple[int, str, str]]:
    """(line, private module, name) for each name a test file takes from a private module of the package."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and is_private(node.module):
            for alias in node.names:
                yield node.lineno, node.module, alias.name
    aliases = _private_module_aliases(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and (owner := _dotted(node.value)) in aliases:
            yield node.lineno, aliases[owner], node.attr


def public_names_from_private_modules(paths: list[Path]) -> list[str]:
    """``file:line: module.NAME (public as feedmap.NAME)`` for each public name a test takes from a private module."""
    public = public_objects()
    found: set[str] = set()
    for path in paths:
        for line, module_name, name in _uses(path):
            module: ModuleType = importlib.import_module(module_name)
            value = getattr(module, name, None)
            if value is not None and id(value) in public:
                found.add(f"{path.name}:{line}: {module_name}.{name} (public as {public[id(value)]})")
    return sorted(found)


def test_no_test_imports_a_public_name_from_a_private_module() -> None:
    """Count of public names taken from private modules by the tests: 0.  A move of a private module then
    breaks no test that only uses the public surface."""
    found = public_names_from_private_modules(sorted(TESTS_DIR.glob("*.py")))
    assert not found, f"{len(found)} public names imported from private modules:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from feedmap._core.errors import Diagnostic, Level\n", ["_core.errors.Diagnostic", "_core.errors.Level"]),
        ("def f():\n    from feedmap.formats._registry import register\n", ["_registry.register"]),
        ("import feedmap._core.model as model\nmodel.Entry\n", ["_core.model.Entry"]),
        ("import feedmap._core.model\nfeedmap._core.model.Entry\n", ["_core.model.Entry"]),
        ("from feedmap.formats import _registry as r\nr.FormatSpec\n", ["_registry.FormatSpec"]),
        ("from feedmap import Diagnostic\nfrom feedmap.cli import main\n", []),
        ("from feedmap._core.urls import encode_host\n", []),
    ],
)
def test_the_count_finds_each_way_of_taking_a_public_name(tmp_path: Path, source: str, expected: list[str]) -> None:
    """The checker itself: each import form that takes a public name from a private module is counted, a public
    import and a private helper that is not public are not."""
    path = tmp_path / "test_sample.py"
    path.write_text(source, encoding="utf-8")
    found = public_names_from_private_modules([path])
    assert len(found) == len(expected)
    for line, wanted in zip(found, expected, strict=True):
        assert wanted in line


def _public_import_lines(node: ast.ImportFrom, public: dict[int, str], indent: str) -> str | None:
    """The lines that replace ``node``: its public names imported from their public module, the rest kept."""
    assert node.module is not None
    module = importlib.import_module(node.module)
    kept: list[str] = []
    moved: dict[str, list[str]] = {}
    for alias in node.names:
        local = alias.asname or alias.name
        value = getattr(module, alias.name, None)
        if value is None or id(value) not in public:
            kept.append(alias.name if alias.asname is None else f"{alias.name} as {alias.asname}")
            continue
        public_module, _, name = public[id(value)].rpartition(".")
        moved.setdefault(public_module, []).append(name if name == local else f"{name} as {local}")
    if not moved:
        return None
    lines = [f"{indent}from {where} import {', '.join(names)}\n" for where, names in moved.items()]
    if kept:
        lines.append(f"{indent}from {node.module} import {', '.join(kept)}\n")
    return "".join(lines)


def fix(path: Path) -> int:
    """Rewrite the ``from PRIVATE import`` lines of ``path`` that take public names; how many were rewritten."""
    public = public_objects()
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    edits = []
    for node in ast.walk(ast.parse("".join(lines), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and is_private(node.module):
            first = lines[node.lineno - 1]
            replacement = _public_import_lines(node, public, first[: len(first) - len(first.lstrip())])
            if replacement is not None:
                edits.append((node.lineno, node.end_lineno or node.lineno, replacement))
    for start, end, replacement in sorted(edits, reverse=True):
        lines[start - 1 : end] = [replacement]
    if edits:
        path.write_text("".join(lines), encoding="utf-8")
    return len(edits)


if __name__ == "__main__":
    paths = sorted(TESTS_DIR.glob("*.py"))
    if sys.argv[1:] == ["--fix"]:
        for path in paths:
            if count := fix(path):
                print(f"{path.name}: {count} import(s) rewritten")
    left = public_names_from_private_modules(paths)
    print("\n".join([*left, f"{len(left)} public names imported from private modules"]))
    sys.exit(1 if left else 0)
