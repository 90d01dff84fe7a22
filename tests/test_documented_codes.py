"""Every diagnostic code feedmap can report is documented: each code a reader, writer, transform, fetch or split
reports is named in the README or the docs pages, and each finding ``feedmap validate`` can report is explained by
``feedmap validate --explain CODE`` at the level it is reported with.

The codes are enumerated from the package's source (as test_static reads it): the first argument of a
``warning``/``info``/``error``/``report`` call (``find`` in validate), a ``(code, message)`` returned, the code of
a ``Diagnostic(Level.X, "code", ...)`` or of a ``(Level.X, "code", message)`` finding, and a ``code="..."`` given
to an error.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from feedmap.cli import main

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "feedmap"
#: Where the codes are documented: the README and every page of the documentation site.
DOCUMENTED = "\n".join(
    path.read_text(encoding="utf-8") for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
)
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
REPORTING = {"warning", "info", "error"}
#: Calls whose first argument is a code: a reporter's, the XML repairs' ``report`` (and validate's ``find``).
CODE_FIRST = REPORTING | {"report"}
#: f"rss-channel-{name}": the channel elements RSS 2.0 requires.
CHANNEL_ELEMENTS = ("title", "link", "description")


def _validating(path: Path) -> bool:
    return (
        path.parent == PACKAGE / "_validate"
        or (path.parent == PACKAGE / "formats" / "feeds" and path.name.startswith("_channel_"))
        or path == PACKAGE / "cli" / "validate.py"
    )


def _name_of(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _slug(node: ast.expr) -> list[str]:
    """The code(s) a constant or an ``f"rss-channel-{name}"`` stands for."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and SLUG.fullmatch(node.value):
        return [node.value]
    if isinstance(node, ast.JoinedStr) and isinstance(node.values[0], ast.Constant):
        prefix = str(node.values[0].value)
        return [prefix + name for name in CHANNEL_ELEMENTS] if prefix == "rss-channel-" else []
    return []


def _level_codes(elements: list[ast.expr]) -> Iterator[tuple[str, str | None]]:
    """``Level.X, "code", message`` in a call's arguments or a tuple: (code, level)."""
    for level, code in itertools.pairwise(elements[:-1]):
        if isinstance(level, ast.Attribute) and getattr(level.value, "id", "") == "Level":
            for slug in _slug(code):
                yield slug, level.attr.lower()


def _returned_code(node: ast.AST) -> list[str]:
    """``return "code", "message"``: a finding or a refusal handed to the caller that reports it."""
    if not isinstance(node, ast.Return) or not isinstance(node.value, ast.Tuple) or len(node.value.elts) != 2:
        return []
    code, message = node.value.elts
    is_text = isinstance(message, ast.JoinedStr) or (
        isinstance(message, ast.Constant) and isinstance(message.value, str)
    )
    return _slug(code) if is_text else []


def reported_codes(paths: list[Path], calls: frozenset[str] = frozenset(CODE_FIRST)) -> dict[str, str | None]:
    """code -> its level when the source gives it with the code, else None."""
    found: dict[str, str | None] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Tuple) and len(node.elts) >= 3:
                found.update(_level_codes(node.elts))
            for slug in _returned_code(node):
                found.setdefault(slug, None)
            if not isinstance(node, ast.Call):
                continue
            name = _name_of(node)
            found.update(_level_codes(node.args))
            if name in calls and node.args:
                for slug in _slug(node.args[0]):
                    found.setdefault(slug, name if name in REPORTING else None)
            for keyword in node.keywords:
                if keyword.arg == "code":
                    for slug in _slug(keyword.value):
                        found.setdefault(slug, None)
    return found


def test_every_code_feedmap_reports_is_named_in_the_readme() -> None:
    paths = [path for path in sorted(PACKAGE.rglob("*.py")) if not _validating(path)]
    codes = reported_codes(paths)
    assert {"bare-ampersand", "non-web-url", "host-not-encoded", "lastmod-seconds-added", "xml-limit"} <= set(codes)
    assert {"stale-files-removed", "same-files", "child-outside-directory", "file-missing"} <= set(codes)
    named = set(re.findall(r"`([a-z0-9-]+)`", DOCUMENTED)) | set(re.findall(r"\[([a-z0-9-]+)\]", DOCUMENTED))
    assert sorted(set(codes) - named) == []


VALIDATE_CODES = reported_codes(
    [path for path in sorted(PACKAGE.rglob("*.py")) if _validating(path)], frozenset(CODE_FIRST | {"find"})
)


def test_the_enumeration_sees_validates_codes() -> None:
    assert {"loc-out-of-scope", "child-off-site", "child-unreadable", "xml-limit", "unreadable"} <= set(VALIDATE_CODES)
    assert {"rss-date", "rss-channel-title", "ror-custom-type", "nested-index", "map-escape"} <= set(VALIDATE_CODES)


@pytest.mark.parametrize("code", sorted(VALIDATE_CODES))
def test_validate_explains_every_code_it_can_emit(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--explain", code]) == 0
    out = capsys.readouterr().out
    explained = re.match(rf"{re.escape(code)} \((error|warning|info)\): \S", out)
    assert explained is not None, out
    level = VALIDATE_CODES[code]
    assert level is None or explained.group(1) == level
    assert main(["validate", "--explain"]) == 0
    assert re.search(rf"^{re.escape(code)} ", capsys.readouterr().out, re.MULTILINE) is not None
