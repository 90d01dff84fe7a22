"""``--cron`` on ``convert``, ``validate``, ``info``, ``diff`` and ``report``: exactly one summary line on stdout,
the warnings and errors on stderr and nothing else (no notes, no progress line), the exit code of the run without
``--cron``.

What each line must say is taken from the same command run without ``--cron`` (its last line, its JSON), and what
stderr must hold from the warnings and errors that run printed.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from conftest import SITEMAP_NS, run

from feedmap.cli import main

#: Three entries, one URL twice (merged: INFO duplicates-merged and loc-duplicate), a changefreq of the wrong case
#: (WARNING changefreq-case) and a priority out of range (WARNING priority-invalid).
BODY = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="{SITEMAP_NS}">
<url><loc>https://e.com/a</loc><changefreq>Daily</changefreq></url>
<url><loc>https://e.com/b</loc><priority>1.5</priority></url>
<url><loc>https://e.com/a</loc><lastmod>2024-01-02</lastmod></url>
</urlset>
"""


@pytest.fixture
def sitemap(tmp_path: Path) -> Path:
    path = tmp_path / "in.xml"
    path.write_text(BODY, encoding="utf-8")
    return path


def _problems(err: str) -> list[str]:
    """The warning and error lines of a run's stderr."""
    return [line for line in err.splitlines() if "warning[" in line or "error[" in line]


def test_convert_prints_one_line_and_the_warnings(
    capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path
) -> None:
    out_file = tmp_path / "out.xml"
    code, out, err = run(capsys, "convert", sitemap, "-o", out_file)
    assert code == 0 and out == "" and "info[" in err  # without --cron: notes and the last line too
    plain_problems, last = _problems(err), err.splitlines()[-1]
    written = out_file.read_bytes()
    code, out, err = run(capsys, "convert", sitemap, "-o", out_file, "--cron")
    assert code == 0 and out_file.read_bytes() == written
    warnings = len(plain_problems)
    assert out == f"feedmap convert: {last.removeprefix('feedmap: ')}; {warnings} warnings, 0 errors\n"
    assert err.splitlines() == plain_problems


def test_convert_to_standard_output_says_its_line_on_stderr(capsys: pytest.CaptureFixture[str], sitemap: Path) -> None:
    code, out, err = run(capsys, "convert", sitemap, "-t", "text", "--cron")
    assert code == 0 and out.split() == ["https://e.com/a", "https://e.com/b"]  # the output alone
    *problems, line = err.splitlines()
    assert line == "feedmap convert: wrote 2 entries to standard output (text); 2 warnings, 0 errors"
    assert len(problems) == 2 and all("warning[" in one for one in problems)


def test_validate_prints_its_summary_as_the_line_and_the_findings_on_stderr(
    capsys: pytest.CaptureFixture[str], sitemap: Path
) -> None:
    code, out, err = run(capsys, "validate", sitemap)
    *findings, summary = out.splitlines()
    plain = (code, summary, [one for one in findings if "warning[" in one or "error[" in one])
    code, out, err = run(capsys, "validate", sitemap, "--cron")
    assert (code, out, err.splitlines()) == (plain[0], f"feedmap validate: {plain[1]}\n", plain[2])
    assert plain[0] == 1 and plain[2]  # the priority out of range is an error for validate


def test_info_counts_every_input_in_one_line(capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path) -> None:
    other = tmp_path / "urls.txt"
    other.write_text("https://e.com/x\nhttps://e.com/y\nnot a url\n", encoding="utf-8")
    described = []
    for source in (sitemap, other):
        code, out, _err = run(capsys, "info", "--json", source)
        described.append(json.loads(out))
    code, out, err = run(capsys, "info", sitemap, other, "--cron")
    entries = sum(one["entries"] for one in described)
    warnings = sum(one["warnings"] for one in described)
    assert code == 0
    assert out == f"feedmap info: 2 inputs, {entries} entries; {warnings} warnings, 0 errors\n"
    assert len(err.splitlines()) == warnings and "info[" not in err


def test_diff_prints_its_counts_as_the_line(capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path) -> None:
    new = tmp_path / "new.xml"
    new.write_text(BODY.replace("https://e.com/b", "https://e.com/c"), encoding="utf-8")
    code, out, _err = run(capsys, "diff", sitemap, new)
    last = out.splitlines()[-1]
    code_cron, out, err = run(capsys, "diff", sitemap, new, "--cron")
    warnings = len(_problems(err))
    assert (code_cron, out) == (code, f"feedmap diff: {last}; {warnings} warnings, 0 errors\n")
    assert code == 1 and warnings and len(err.splitlines()) == warnings


def test_a_failed_run_says_so_in_its_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "info", tmp_path / "missing.xml", "--cron")
    assert code == 2
    assert out == "feedmap info: failed with exit code 2; the error is on stderr\n"
    assert err.splitlines() == [f"feedmap: error: {tmp_path / 'missing.xml'}: no such file"]


@pytest.mark.parametrize(("command", "flag"), [("info", "--json"), ("validate", "--json"), ("diff", "--jsonl")])
def test_cron_and_another_output_are_refused(
    capsys: pytest.CaptureFixture[str], sitemap: Path, command: str, flag: str
) -> None:
    inputs = [sitemap, sitemap] if command == "diff" else [sitemap]
    code, _out, err = run(capsys, command, *inputs, flag, "--cron")
    assert code == 2 and f"leave out {flag}" in err


def test_no_progress_line_on_a_terminal(monkeypatch: pytest.MonkeyPatch, sitemap: Path, tmp_path: Path) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for flags, drawn in (([], True), (["--cron"], False)):
        stderr = Terminal()
        monkeypatch.setattr(sys, "stderr", stderr)
        big = tmp_path / "big.txt"
        big.write_text("".join(f"https://e.com/{i}\n" for i in range(5000)), encoding="utf-8")
        assert main(["convert", str(big), "-t", "text", "-o", str(tmp_path / "out.txt"), *flags]) == 0
        assert ("\r" in stderr.getvalue()) is drawn, flags


def test_report_prints_one_line_and_the_warnings_of_reading(
    capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path
) -> None:
    """The findings are the page's; on the terminal: reading's warnings (those convert prints) and one line."""
    page = tmp_path / "report.html"
    code, out, err = run(capsys, "report", sitemap, "-o", page, "--now", "2024-06-01")
    assert code == 1 and out == ""  # written; validation found errors (a repeated URL, a priority out of range)
    plain = err.splitlines()[-1]  # "PAGE: 2 URLs; 1 file validated: ..."
    written = page.read_bytes()
    _, _, converting = run(capsys, "convert", sitemap, "-o", tmp_path / "out.xml")
    code, out, err = run(capsys, "report", sitemap, "-o", page, "--now", "2024-06-01", "--cron")
    assert code == 1 and page.read_bytes() == written
    assert out == f"feedmap report: wrote {plain}\n"
    assert err.splitlines() == [line for line in _problems(converting) if "changefreq" in line or "priority" in line]
    code, out, err = run(capsys, "report", sitemap, "-o", page, "--cron", "--quiet")
    assert code == 2 and "--cron prints one summary line: leave out --quiet" in err
