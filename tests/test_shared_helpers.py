"""Helpers shared by the test files live once, in ``tests/conftest.py`` (``from conftest import run``): no test
file defines a function that is one of them again (the same statements, whatever the names and annotations)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent


class _Shape(ast.NodeTransformer):
    """Names replaced by their order of first use, annotations and docstrings dropped: what a copy keeps."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def _name(self, name: str) -> str:
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(id=self._name(node.id), ctx=node.ctx)

    def visit_arg(self, node: ast.arg) -> ast.arg:
        return ast.arg(arg=self._name(node.arg))


def shape(function: ast.FunctionDef) -> str:
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    shaper = _Shape()
    arguments = shaper.visit(ast.parse(ast.unparse(function.args).join(("def f(", "): pass"))).body[0])
    statements = [shaper.visit(ast.parse(ast.unparse(statement)).body[0]) for statement in body]
    return ast.dump(arguments.args) + "".join(ast.dump(statement) for statement in statements)


def top_level_functions(path: Path) -> list[ast.FunctionDef]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [node for node in tree.body if isinstance(node, ast.FunctionDef)]


def copies_of_shared_helpers(paths: list[Path], shared: Path) -> list[str]:
    """``file:line: name`` for each function of ``paths`` shaped like one of ``shared``'s plain helpers."""
    helpers = {shape(function): function.name for function in top_level_functions(shared)}
    return [
        f"{path.name}:{function.lineno}: {function.name} (conftest.{helpers[shape(function)]})"
        for path in paths
        for function in top_level_functions(path)
        if shape(function) in helpers
    ]


def test_no_test_file_defines_a_shared_helper_again() -> None:
    paths = sorted(path for path in TESTS_DIR.glob("*.py") if path.name != "conftest.py")
    assert copies_of_shared_helpers(paths, TESTS_DIR / "conftest.py") == []


def test_a_copy_under_other_names_is_found(tmp_path: Path) -> None:
    copy = tmp_path / "test_copy.py"
    copy.write_text(
        "def urlset(*urls: str) -> bytes:\n"
        '    body = "".join(f"<url><loc>{u}</loc></url>\\n" for u in urls)\n'
        '    return f\'<?xml version="1.0" encoding="UTF-8"?>\\n<urlset xmlns="{NS}">\\n{body}</urlset>\\n\'.encode()\n'
        "def other(*urls: str) -> bytes:\n"
        '    return b"".join(url.encode() for url in urls)\n',
        encoding="utf-8",
    )
    found = copies_of_shared_helpers([copy], TESTS_DIR / "conftest.py")
    assert found == ["test_copy.py:1: urlset (conftest.urlset_xml)"]
