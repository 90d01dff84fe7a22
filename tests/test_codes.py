"""One vocabulary: every diagnostic code the package can report is in the one rule table (``feedmap codes``),
at a level the table gives it, explained by ``feedmap codes CODE`` and ``feedmap validate --explain CODE``;
the table lists no code nothing reports; the documentation's page is the table's markdown; reading and
``validate`` name one problem with one code.

The codes are enumerated from the package's source: the first argument of a ``warning``/``info``/``error``
call (and of the XML repairs' ``report``, validate's ``find``, the feed checks' ``say``), the code of a
``Level.X, "code"`` pair, a ``(code, message)`` returned, a ``code=`` keyword, a ``code`` assigned or given as
a parameter's default, the slug a ``..._code`` function returns, a ``note=(code, message)``; an f-string code
stands for its family (``f"rss-channel-{name}"``: the three channel elements, ``f"http-{status}"``: ``http-NNN``).
"""

from __future__ import annotations

import ast
import contextlib
import io
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import feedmap
from feedmap.cli import main

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "feedmap"
CODES_PAGE = ROOT / "docs" / "reference" / "codes.md"
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
REPORTING = {"warning", "info", "error"}
#: Calls whose first argument is a code, besides a reporter's: the repairs' ``report``, validate's ``find``,
#: the feed checks' ``say`` (their codes have a hyphen; a one-word first argument of these is no code).
CODE_FIRST = {"report", "find", "say"}
FAMILIES = {
    "rss-channel-": ["rss-channel-title", "rss-channel-link", "rss-channel-description"],
    "http-": ["http-NNN"],
}


def _name_of(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _slugs(node: ast.expr | None) -> list[str]:
    """The code(s) a constant, a conditional of two, or an f-string of a family stands for."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and SLUG.fullmatch(node.value):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _slugs(node.body) + _slugs(node.orelse)
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return FAMILIES.get(str(node.values[0].value), [])
    return []


def _level_codes(elements: list[ast.expr]) -> Iterator[tuple[str, str]]:
    """``Level.X, "code"`` in a call's arguments or a tuple: (code, level)."""
    for level, code in itertools.pairwise(elements[:-1]):
        if isinstance(level, ast.Attribute) and getattr(level.value, "id", "") == "Level":
            for slug in _slugs(code):
                yield slug, level.attr.lower()


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _is_message(node: ast.expr) -> bool:
    """Words, not a value such as a header's default or an error handler (``"replace"``)."""
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and " " in str(node.value))


def _returned_code(node: ast.Return) -> list[str]:
    """``return "code", "message"``: a finding or a refusal handed to the caller that reports it."""
    if not isinstance(node.value, ast.Tuple) or len(node.value.elts) != 2:
        return []
    code, message = node.value.elts
    is_text = isinstance(message, ast.JoinedStr) or (
        isinstance(message, ast.Constant) and isinstance(message.value, str)
    )
    return [slug for slug in _slugs(code) if "-" in slug] if is_text else []


def _defaults(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[str]:
    """The default of a parameter named ``code`` (``FetchError(..., code="fetch-failed")``)."""
    args = function.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True))
    pairs += [(arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True) if default]
    for arg, default in pairs:
        if arg.arg == "code":
            yield from _slugs(default)


def _assigned(node: ast.Assign | ast.AnnAssign) -> Iterator[str]:
    """``code = "..."``, ``self.code = ...``, ``what, code = "...", "html-page"``."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        pairs: list[tuple[ast.expr, ast.expr | None]] = [(target, node.value)]
        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
            pairs = list(zip(target.elts, node.value.elts, strict=False))
        for name, value in pairs:
            if (name.attr if isinstance(name, ast.Attribute) else getattr(name, "id", "")) == "code":
                yield from _slugs(value)


def _call_codes(call: ast.Call) -> Iterator[tuple[str, str | None]]:
    yield from _level_codes(call.args)
    name = _name_of(call)
    if call.args and (name in REPORTING or name in CODE_FIRST):
        for slug in _slugs(call.args[0]):
            if name in REPORTING or "-" in slug:
                yield slug, name if name in REPORTING else None
    for arg, following in itertools.pairwise(call.args):
        # a code then its message: _failed("not-html", f"..."), Probe(url, "found", "...") (a one-word code: Probe's)
        if _is_message(following) and (name == "Probe" or any("-" in slug for slug in _slugs(arg))):
            yield from ((slug, None) for slug in _slugs(arg))
    for keyword in call.keywords:
        if keyword.arg == "code":
            yield from ((slug, None) for slug in _slugs(keyword.value))
        if keyword.arg == "note" and isinstance(keyword.value, ast.Tuple) and keyword.value.elts:
            yield from ((slug, None) for slug in _slugs(keyword.value.elts[0]))


def _node_codes(node: ast.AST) -> Iterator[tuple[str, str | None]]:
    if isinstance(node, ast.Tuple) and len(node.elts) >= 3:
        yield from _level_codes(node.elts)
    elif isinstance(node, ast.Return):
        yield from ((slug, None) for slug in _returned_code(node))
    elif isinstance(node, (ast.Assign, ast.AnnAssign)):
        yield from ((slug, None) for slug in _assigned(node))
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield from ((slug, None) for slug in _defaults(node))
        if node.name.endswith("code"):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Return):
                    yield from ((slug, None) for slug in _slugs(sub.value))
    elif isinstance(node, ast.Call):
        yield from _call_codes(node)


def reported_codes() -> dict[str, set[str]]:
    """code -> the levels the source gives it with (empty when the level comes from elsewhere)."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for code, level in _node_codes(node):
                found.setdefault(code, set()).update({level} if level else set())
    return found


def printed(args: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(args)
    return code, out.getvalue()


def rule_table() -> dict[str, dict[str, str | None]]:
    code, out = printed(["codes", "--json"])
    assert code == 0
    return {entry["code"]: entry for entry in json.loads(out)}


REPORTED = reported_codes()
TABLE = rule_table()


def test_the_enumeration_sees_codes_of_every_kind() -> None:
    assert {"bare-ampersand", "non-web-url", "host-not-encoded", "lastmod-seconds-added", "xml-limit"} <= set(REPORTED)
    assert {"stale-files-removed", "same-files", "child-outside-directory", "file-missing"} <= set(REPORTED)
    assert {"loc-out-of-scope", "child-off-site", "child-unreadable", "unreadable", "map-escape"} <= set(REPORTED)
    assert {"rss-date", "rss-channel-title", "ror-custom-type", "nested-index", "loc-duplicate"} <= set(REPORTED)
    # a parameter's default, an assigned code, a ..._code function, an f-string family
    assert {"fetch-failed", "invalid-input", "html-page", "not-a-sitemap", "http-NNN", "enrich-failed"} <= set(REPORTED)
    assert {"not-html", "found", "robots-no-sitemaps"} <= set(REPORTED)  # a code then its message
    assert "charset" not in REPORTED  # text.find("charset"): a one-word argument of find is no code


@pytest.mark.parametrize("code", sorted(REPORTED))
def test_every_code_the_package_reports_is_in_the_table_at_its_level(code: str) -> None:
    assert code in TABLE
    entry = TABLE[code]
    assert REPORTED[code] <= {entry["level"], entry["repaired"]}
    assert entry["summary"] and entry["spec"]


def test_the_table_holds_no_code_nothing_reports() -> None:
    assert sorted(set(TABLE) - set(REPORTED)) == []


@pytest.mark.parametrize("code", sorted(REPORTED))
def test_every_code_is_explained_by_codes_and_by_validate_explain(code: str) -> None:
    asked = code.replace("NNN", "404")
    for args in (["codes", asked], ["validate", "--explain", asked]):
        exit_code, out = printed(args)
        assert exit_code == 0
        explained = re.match(rf"{re.escape(asked)} \((error|warning|info)\): \S.*\n(?:  .*\n)*  spec: \S", out)
        assert explained is not None, out
        assert explained.group(1) == TABLE[code]["level"]


def test_the_table_of_every_code_lists_each_once() -> None:
    for args in (["codes"], ["validate", "--explain"]):
        exit_code, out = printed(args)
        assert exit_code == 0
        assert [line.split()[0] for line in out.splitlines()] == sorted(TABLE)


def test_an_unknown_code_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["codes", "no-such-code"], ["codes", "no-such-code", "--json"], ["validate", "--explain", "x-y"]):
        assert main(args) == 2
        assert "feedmap codes" in capsys.readouterr().err
    assert main(["codes", "loc-duplicate", "--markdown"]) == 2


def test_one_code_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["codes", "priority-invalid", "--json"]) == 0
    entry = json.loads(capsys.readouterr().out)
    assert (entry["code"], entry["level"], entry["repaired"]) == ("priority-invalid", "error", "warning")
    assert entry["spec_url"].startswith("https://")


def test_the_codes_page_is_the_tables_markdown() -> None:
    exit_code, page = printed(["codes", "--markdown"])
    assert exit_code == 0
    assert CODES_PAGE.read_text(encoding="utf-8") == page, (
        "regenerate: feedmap codes --markdown > docs/reference/codes.md"
    )
    rows = re.findall(r"^\| `([a-z0-9N-]+)` \| (\w+)", page, re.MULTILINE)
    assert rows == [(code, TABLE[code]["level"]) for code in sorted(TABLE)]


# ------------------------------------------------------------------------------------- one name per problem

#: The names reading used for a problem validate names otherwise, before the one vocabulary.
RETIRED = {
    "duplicate-loc": "loc-duplicate",
    "invalid-priority": "priority-invalid",
    "invalid-lastmod": "lastmod-invalid",
    "duplicate-element": "element-repeated",
    "invalid-changefreq": "changefreq-invalid",
    "missing-loc": "loc-missing",
    "too-many-urls": "too-many-entries",
    "file-too-large": "too-many-bytes",
    "malformed-xml": "xml-not-well-formed",
    "child-failed": "child-unreadable",
    "not-a-url": "loc-not-absolute",
    "encoding": "not-utf8",
    # the URL problems reading reports are validate's: loc-not-absolute, loc-not-escaped, loc-too-long
    "invalid-loc": "loc-not-absolute",
}


def test_no_retired_name_is_reported_any_more() -> None:
    assert sorted(set(RETIRED) & (set(REPORTED) | set(TABLE))) == []


@pytest.mark.parametrize("old", RETIRED)
def test_a_retired_name_is_answered_with_the_code_that_replaced_it(
    old: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A CI config written for the earlier names (``--ignore duplicate-loc``) is told the new one, from
    ``feedmap codes``, ``validate --explain``, ``validate --ignore`` and the library's ``validate(ignore=)``."""
    replaced_by = RETIRED[old]
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(f'<urlset xmlns="{NS}"><url><loc>https://e.com/a</loc></url></urlset>', encoding="utf-8")
    for argv in (["codes", old], ["validate", "--explain", old], ["validate", str(sitemap), "--ignore", old]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"now {replaced_by}" in err, (argv, err)
    with pytest.raises(ValueError, match=f"now {replaced_by}"):
        feedmap.validate(sitemap, ignore=[old])


NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
#: One sitemap breaking the rules reading repairs: a repeated URL, a bad priority, lastmod and changefreq,
#: a repeated field, an entry without loc.
BROKEN = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="{NS}">
<url><loc>https://example.com/a</loc><priority>high</priority></url>
<url><loc>https://example.com/a</loc><lastmod>yesterday</lastmod></url>
<url><loc>https://example.com/b</loc><changefreq>often</changefreq></url>
<url><loc>https://example.com/c</loc><loc>https://example.com/d</loc></url>
<url><lastmod>2024-01-01</lastmod></url>
</urlset>
"""
SHARED = {
    "loc-duplicate",
    "priority-invalid",
    "lastmod-invalid",
    "changefreq-invalid",
    "element-repeated",
    "loc-missing",
}


def test_reading_and_validate_name_one_problem_with_one_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_text(BROKEN, encoding="utf-8")
    assert main(["validate", str(path), "--json"]) == 1
    validated = {(finding["code"], finding["level"]) for finding in json.loads(capsys.readouterr().out)["findings"]}
    assert main(["convert", str(path), "-t", "jsonl", "-o", str(tmp_path / "out.jsonl")]) == 0
    converted = set(re.findall(r": (error|warning|info)\[([a-z-]+)\]", capsys.readouterr().err))
    for code in SHARED:  # validate reports it at its level; reading repairs it and says so one level lower
        assert (code, TABLE[code]["level"]) in validated
        assert (TABLE[code]["repaired"], code) in converted
