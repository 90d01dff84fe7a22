"""The package's dependencies are used through their public API only (issue 18, point 5), their versions are
bounded only where a documented behaviour is relied on (each bound naming the test that shows it), and
``import feedmap`` is light (point 6): no HTTP client, HTML sanitizer, SQLite, validate or diff module until used.

The checks read the package's source (``ast``) and import only the dependencies themselves; the import is
measured in a fresh interpreter, as a user's program starts.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import feedmap

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "feedmap"

#: Underscored names of dependencies that are their documented public API, with where that is said.
DOCUMENTED_UNDERSCORED = {
    # lxml's API reference documents its element classes under these names (https://lxml.de/api/), and
    # lxml-stubs types elements with them: there is no other public name for the class of an element
    "etree._Element",
    "etree._Entity",
    "etree._ListErrorLog",
    # typeshed's name for the type zlib.decompressobj() returns, in an annotation only (never evaluated)
    "zlib._Decompress",
    # the standard library's documented immediate exit (https://docs.python.org/3/library/os.html#os._exit)
    "os._exit",
}
#: typeshed's typing-only module (https://github.com/python/typeshed/tree/main/stdlib/_typeshed), imported
#: under ``TYPE_CHECKING`` only.
TYPING_ONLY_MODULES = {"_typeshed"}


def _modules() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _names_the_package_defines() -> set[str]:
    """Every name the package binds: functions, classes, variables, attributes it assigns, parameters."""
    defined: set[str] = set()
    for _, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                defined.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                defined.add(node.attr)
            elif isinstance(node, ast.alias):
                defined.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.arg):
                defined.add(node.arg)
    return defined


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_no_private_name_of_a_dependency_is_read() -> None:
    """``parser._actions``, ``argparse._SubParsersAction``, ``from httpx._models import ...``: an underscored
    attribute the package does not define itself, or an underscored module, belongs to a dependency."""
    defined = _names_the_package_defines()
    found = []
    for path, tree in _modules():
        where = path.relative_to(ROOT)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in defined:
                if ast.unparse(node) not in DOCUMENTED_UNDERSCORED:
                    found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
            elif isinstance(node, ast.ImportFrom) and node.module and not node.module.startswith("feedmap"):
                parts = [*node.module.split("."), *(alias.name for alias in node.names)]
                if node.module not in TYPING_ONLY_MODULES and any(_private(part) for part in parts):
                    found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
            elif isinstance(node, ast.Import):
                found += [f"{where}:{node.lineno}: import {a.name}" for a in node.names if _private(a.name)]
    assert found == []


def _external_bases(tree: ast.Module) -> Iterator[tuple[ast.ClassDef, type]]:
    """Each class of a module with each base it takes from a dependency (``httpx.HTTPTransport``)."""
    imported = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            imported.update({(a.asname or a.name): a.name for a in node.names if not a.name.startswith("feedmap")})
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for base in node.bases:
            if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id in imported:
                yield node, getattr(importlib.import_module(imported[base.value.id]), base.attr)


def _private_names_set_in(cls: ast.ClassDef) -> set[str]:
    """The underscored methods a class defines and the ``self._x`` attributes it assigns."""
    names = {node.name for node in cls.body if isinstance(node, ast.FunctionDef) and _private(node.name)}
    for node in ast.walk(cls):
        stored = isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _private(node.attr)
        if stored and isinstance(node.value, ast.Name) and node.value.id == "self":
            names.add(node.attr)
    return names


def _used_by(base: type, name: str) -> bool:
    """True when ``base`` (or a class it derives from) has ``name``, as a class attribute or ``self.name``."""
    if hasattr(base, name):
        return True
    for klass in base.__mro__[:-1]:  # object: the end of every chain
        # each method's source (a class's own may not be found: httpx renames its classes' module to "httpx")
        for method in vars(klass).values():
            if inspect.isfunction(method) and re.search(rf"\bself\.{re.escape(name)}\b", inspect.getsource(method)):
                return True
    return False


def test_no_class_replaces_a_private_part_of_a_dependency() -> None:
    """A subclass of a dependency's class that sets one of that class's underscored attributes (httpx's
    ``HTTPTransport._pool``) or overrides an underscored method (argparse's ``_print_message``) depends on what
    the dependency may change in any release."""
    found = []
    for path, tree in _modules():
        for cls, base in _external_bases(tree):
            found += [
                f"{path.relative_to(ROOT)}: {cls.name}.{name} replaces {base.__module__}.{base.__qualname__}'s"
                for name in sorted(_private_names_set_in(cls))
                if _used_by(base, name)
            ]
    assert found == []


# ------------------------------------------------------------------------------------------- upper bounds


def _requirements() -> list[tuple[str, str]]:
    """Each requirement of ``[project]`` (dependencies and extras) with the comment on its line."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = tomllib.loads(text)["project"]
    wanted = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]
    lines = text.splitlines()
    found = []
    for requirement in wanted:
        line = next(line for line in lines if f'"{requirement}"' in line)
        found.append((requirement, line.partition("#")[2]))
    return found


def test_an_upper_bound_names_the_test_of_the_behaviour_it_keeps() -> None:
    """A requirement with an upper bound (``<``, ``<=``, ``~=``, ``==``) says on its line which test shows the
    documented behaviour it relies on (``tests/test_x.py::test_name``), and that test exists."""
    bounded = [(r, comment) for r, comment in _requirements() if re.search(r"<|~=|==", r)]
    assert bounded, "no upper bound: this test would check nothing"
    for requirement, comment in bounded:
        named = re.findall(r"(tests/test_\w+\.py)::(test_\w+)", comment)
        assert named, f"{requirement}: the bound names no test"
        for file, test in named:
            assert re.search(rf"^def {test}\(", (ROOT / file).read_text(encoding="utf-8"), re.M), (requirement, test)


def test_httpcore_is_bounded_to_the_major_version_whose_backend_interface_is_used() -> None:
    """httpcore versions by SEMVER (its README): the network-backend interface the deadline implements is kept
    within a major version, so the bound is the next major; httpx is used through its public API only."""
    requirements = dict(_requirements())
    assert any(r.replace(" ", "") == "httpcore>=1.0,<2" for r in requirements)
    assert not [r for r in requirements if re.match(r"(lxml|feedparser|python-dateutil|httpx|protego)\b.*<", r)]


# ------------------------------------------------------------------------------------------- light import

#: What ``import feedmap`` (or of its public packages) must not load: the HTTP client, the HTML sanitizer,
#: SQLite, the validator and the diff.
HEAVY = ("httpx", "httpcore", "nh3", "sqlite3", "_sqlite3", "feedmap._validate", "feedmap._diff", "feedmap._web")


def _loaded_by(statement: str) -> list[str]:
    script = f"import json, sys; {statement}; print(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(result.stdout)
    return loaded


@pytest.mark.parametrize("statement", ["import feedmap", "import feedmap.formats", "import feedmap.converters"])
def test_importing_feedmap_loads_no_client_sanitizer_database_validator_or_diff(statement: str) -> None:
    loaded = _loaded_by(statement)
    assert [name for name in loaded if name.split(".")[0] in HEAVY or name.startswith(HEAVY)] == []


def test_import_feedmap_loads_feedmap_alone() -> None:
    """The public names are imported when first used: a bare ``import feedmap`` runs its ``__init__`` only."""
    assert [name for name in _loaded_by("import feedmap") if name.startswith("feedmap")] == ["feedmap"]


def test_a_public_name_loads_its_module_when_first_used() -> None:
    loaded = _loaded_by("from feedmap import validate, diff")
    assert "feedmap._validate.report" in loaded
    assert "feedmap._diff.diff" in loaded
    assert "httpx" not in loaded  # the client comes with the first request


def test_every_public_name_is_there_when_asked_for() -> None:
    for name in feedmap.__all__:
        assert getattr(feedmap, name) is not None, name
    assert set(feedmap.__all__) <= set(dir(feedmap))
    assert feedmap.Entry is importlib.import_module("feedmap").Entry  # asked once, kept
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = feedmap.no_such_name  # type: ignore[attr-defined]


def test_the_import_benchmark_runs(tmp_path: Path) -> None:
    """benchmarks/bench_import.py --quick: every case measured, no heavy module loaded by any import."""
    figures = tmp_path / "import.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_import.py"), "--quick", "--json", str(figures)]
    subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True, timeout=300)
    result = json.loads(figures.read_text(encoding="utf-8"))
    assert set(result["median_wall"]) == {"python", "lxml", "feedmap", "formats", "converters"}
    assert all(probe["heavy"] == [] for probe in result["probes"].values())
    assert result["probes"]["feedmap"]["feedmap_modules"] == 1
