"""Nothing read from outside reaches the terminal raw: a file name or URL holding ESC (terminal escape
sequences), CR (rewrites the line) or U+202E (reverses it) is printed escaped by ``convert``, ``info``,
``diff`` and ``discover`` (as by ``validate``), in diagnostics, summaries, error lines and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run

HOSTILE = ("\x1b[2J", "\r", "\u202e")
ODD_NAME = "a\x1b[2Jb\rc\u202ed.xml"
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
#: A warning (changefreq 'Daily' repaired) names the file it is in.
BODY = f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>https://e.com/a</loc><changefreq>Daily</changefreq></url></urlset>\n'


def assert_escaped(text: str) -> None:
    for character in HOSTILE:
        assert character not in text, repr(text)


@pytest.fixture
def odd(tmp_path: Path) -> Path:
    path = tmp_path / ODD_NAME
    path.write_text(BODY, encoding="utf-8")
    return path


def test_convert_escapes_the_source_name_in_warnings_errors_and_the_last_line(
    capsys: pytest.CaptureFixture[str], odd: Path, tmp_path: Path
) -> None:
    code, out, err = run(capsys, "convert", odd, "-t", "text", "-o", tmp_path / f"out{ODD_NAME}.txt")
    assert code == 0 and "warning[" in err and "\\x1b[2Jb\\rc\\u202ed.xml" in err
    assert_escaped(out + err)
    code, out, err = run(capsys, "convert", tmp_path / f"missing{ODD_NAME}", "-t", "text")
    assert code == 2 and "missing" in err
    assert_escaped(out + err)


def test_info_escapes_the_name_in_text_and_json(capsys: pytest.CaptureFixture[str], odd: Path) -> None:
    code, out, err = run(capsys, "info", odd)
    assert code == 0 and "\\u202e" in out
    assert_escaped(out + err)
    code, out, err = run(capsys, "info", "--json", odd)
    assert code == 0
    assert_escaped(out + err)
    assert json.loads(out)["input"] == str(odd)  # JSON escapes are the same string once parsed


def test_diff_escapes_names_in_diagnostics_and_errors(capsys: pytest.CaptureFixture[str], odd: Path) -> None:
    other = odd.with_name("plain.xml")
    other.write_text(BODY.replace("/a<", "/b<"), encoding="utf-8")
    code, out, err = run(capsys, "diff", other, odd)
    assert code == 1 and "warning[" in err
    assert_escaped(out + err)
    code, out, err = run(capsys, "diff", other, odd.with_name(f"gone{ODD_NAME}"))
    assert code == 2
    assert_escaped(out + err)


def test_discover_escapes_urls_of_robots_txt_in_lists_trees_and_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "robots.txt").write_text("Sitemap: https://e.com/x\x1b[2J\u202ey.xml\n", encoding="utf-8")
    mapped = ("--map", f"https://e.com/={site}")
    for extra in ((), ("--tree",), ("--json",), ("--tree", "--json"), ("-v",)):
        code, out, err = run(capsys, "discover", "https://e.com/", *mapped, *extra)
        assert code == (1 if "--tree" in extra else 0), err  # the sitemap listed is missing
        assert_escaped(out + err)
    _code, out, _err = run(capsys, "discover", "https://e.com/", *mapped)
    assert out == "https://e.com/x%1B[2J%E2%80%AEy.xml\n"  # a URL to use: percent-encoded, the same URI


def test_a_usage_error_quoting_an_argument_is_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "convert", "x.xml", "--map", f"https://e.com/=no{ODD_NAME}")
    assert code == 2 and "usage:" in err and "\n" in err  # the usage lines keep their line breaks
    assert_escaped(out + err)


def test_validate_json_escapes_the_name_as_the_other_commands_do(capsys: pytest.CaptureFixture[str], odd: Path) -> None:
    """validate --json wrote U+202E raw (json.dumps escapes only the C0 controls): not through json_text."""
    code, out, err = run(capsys, "validate", "--json", odd)
    assert code == 1, err  # 'Daily' breaks the protocol's changefreq rule
    assert_escaped(out + err)
    assert json.loads(out)["findings"][0]["file"] == str(odd)
