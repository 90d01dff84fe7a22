"""benchmarks/bench_read.py still runs: a --quick pass (2 files x 300 URLs, 1 run per case) in a subprocess.

Nothing here asserts on timings (they depend on the machine); only that every case ran, the ratios were
reported, and feedmap's text output matched the plain lxml loop's.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import feedmap

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_read.py"


def _run_quick(tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    results = tmp_path / "results"
    completed = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--quick",
            "--data-dir",
            str(tmp_path / "data"),
            "--results-dir",
            str(results),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    written = sorted(results.glob("bench_read-*.json"))
    result: dict[str, Any] = json.loads(written[-1].read_text(encoding="utf-8")) if written else {}
    return completed, result


@pytest.mark.timeout(360)  # the benchmark's quick run may take 300 s
def test_quick_benchmark_reports_ratios(tmp_path: Path) -> None:
    completed, result = _run_quick(tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr

    # the printed summary carries the (b)/(a) ratio as a number
    match = re.search(r"ratio \(b\) CLI -t text / raw:\s+wall (\d+\.\d+)", completed.stdout)
    assert match is not None, completed.stdout
    assert float(match.group(1)) > 0

    summary = result["summary"]
    assert summary["ratio_cli_text"] > 0
    assert summary["ratio_api_text"] > 0
    assert summary["peak_rss_kib_1_file"] > 0
    assert summary["peak_rss_kib_n_files"] > 0
    assert summary["text_output_identical"] is True

    parameters = result["parameters"]
    assert (parameters["files"], parameters["urls_per_file"], parameters["repeat"]) == (2, 300, 1)
    cases = result["cases"]
    assert {"raw", "cli_text", "api_text", "cli_text_1"} <= set(cases)
    for key in ("raw", "cli_text", "api_text"):
        assert cases[key]["runs"][0]["entries"] == 600, key
    assert cases["cli_text_1"]["runs"][0]["entries"] == 300


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_read", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_generated_data_is_reused_and_deterministic(tmp_path: Path) -> None:
    bench_read = _load_script()
    first = bench_read.ensure_data(tmp_path / "a", files=2, urls=50, seed=7, log=False)
    again = bench_read.ensure_data(tmp_path / "a", files=2, urls=50, seed=7, log=False)
    other = bench_read.ensure_data(tmp_path / "b", files=2, urls=50, seed=7, log=False)
    assert first == again
    stamps = [path.stat().st_mtime_ns for path in first]
    bench_read.ensure_data(tmp_path / "a", files=2, urls=50, seed=7, log=False)
    assert [path.stat().st_mtime_ns for path in first] == stamps  # not written again
    assert [path.read_bytes() for path in first] == [path.read_bytes() for path in other]
    text = first[0].read_text(encoding="utf-8")
    assert text.count("<url>") == 50
    assert "&amp;" in text and "<image:image>" in text and "<lastmod>" in text


@pytest.mark.timeout(360)  # the benchmark's quick run may take 300 s
def test_quick_web_benchmark_runs_every_case(tmp_path: Path) -> None:
    """benchmarks/bench_web.py --quick: every enrichment and following case ran and found every entry."""
    results = tmp_path / "results"
    completed = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_web.py"), "--quick", "--results-dir", str(results)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    written = sorted(results.glob("bench_web-*.json"))
    result = json.loads(written[-1].read_text(encoding="utf-8"))
    names = [case["name"] for case in result["cases"]]
    assert [name for name in names if "--enrich" in name] == [
        "feedmap convert --enrich --concurrency 1",
        "feedmap convert --enrich --concurrency 8",
    ]
    assert "feedmap convert INDEX --concurrency 16" in names
    for case in result["cases"]:
        assert case["ok"], case
        assert case["runs"][0]["entries"] == case["expected"] > 0
    assert result["summary"]["enrich_speedup_c8"] > 0
    assert "enrichment: concurrency 8 is" in completed.stdout


@pytest.mark.timeout(360)  # the benchmark's quick run may take 300 s
def test_quick_feed_benchmark_reports_memory_and_matches_the_raw_loop(tmp_path: Path) -> None:
    """benchmarks/bench_feeds.py --quick: both feeds read by the CLI and the raw loop, outputs identical; each
    written as RSS and as Atom, every entry in both."""
    results = tmp_path / "results"
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_feeds.py"), "--quick"]
    command += ["--data-dir", str(tmp_path / "data"), "--results-dir", str(results)]
    completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert re.search(r"rss: ratio cli/raw wall \d+\.\d+; peak RSS \d+\.\d MiB", completed.stdout), completed.stdout
    result = json.loads(sorted(results.glob("bench_feeds-*.json"))[-1].read_text(encoding="utf-8"))
    assert set(result["summary"]) == {"rss", "atom"}
    for summary in result["summary"].values():
        assert summary["entries"] > 100
        assert summary["text_output_identical"] is True
        assert summary["peak_rss_mib"] > 0 and summary["raw_peak_rss_mib"] > 0
        assert summary["written_entries"] == {"rss": summary["entries"], "atom": summary["entries"]}
    assert re.search(r"atom: writing atom/rss cpu \d+\.\d+", completed.stdout), completed.stdout


@pytest.mark.timeout(180)  # the benchmark's run may take 120 s
def test_quick_scale_benchmark_prints_every_case(tmp_path: Path) -> None:
    """benchmarks/bench_scale.py --urls 3000 --no-npm --big-entries 3: every case ran and checked its result
    (exit 0), the split also with entries made in the process, the big entries last."""
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_scale.py"), "--urls", "3000", "--no-npm"]
    command += ["--big-entries", "3"]
    completed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    rows = [line for line in completed.stdout.splitlines() if line.startswith("| ") and "---" not in line]
    assert [row.split(" | ")[0] for row in rows] == [
        "| case",
        "| dedupe newest (`-t text --dedupe newest`)",
        "| dedupe first (`-t text --dedupe first`)",
        "| merge (`-t sitemap`, merges by default)",
        "| diff (`feedmap diff OLD NEW --map`)",
        "| split, feedmap (`convert -t sitemap -o DIR/ --base-url`)",
        "| split, feedmap, `--dedupe first` (no merge)",
        "| split, feedmap (`convert -t sitemap -o DIR/ --base-url`)",
        "| split, feedmap engine fed `Entry` objects (no repeat check)",
        "| split, `feedmap.split` fed `Entry` objects (repeats merged)",
        "| big entries, `-t jsonl`",
        "| big entries, `-t rss` (merges by default)",
        "| big entries, `-t sitemap` (merges by default)",
        "| big entries, `--sort loc -t jsonl`",
        "| big entries, `--dedupe first -t rss`",
    ]
    assert all(row.endswith("| 3 entries written |") for row in rows[-5:]), rows[-5:]
    assert rows[1].count("| 2,720 distinct written |") == 1
    assert "| 15 added, 15 removed, 15 changed, 2,970 unchanged |" in rows[4]
    for row in rows[5:-5]:
        assert "| 1 file + index (" in row, row
    assert "| one XML sitemap, the same URLs and images (" in rows[7]
    assert "npm" not in completed.stdout


@pytest.mark.timeout(180)  # the benchmark's run may take 120 s
def test_quick_validate_benchmark_compares_validate_with_reading(tmp_path: Path) -> None:
    """benchmarks/bench_validate.py on a small file: both cases ran on every URL; a valid file has no error."""
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_validate.py"), "--urls", "2000", "--repeat", "1"]
    completed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    rows = [line for line in completed.stdout.splitlines() if line.startswith("| 2,000 URLs")]
    assert len(rows) == 1
    cells = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert float(cells[5]) > 0 and cells[6] == "-", rows[0]


@pytest.mark.timeout(180)  # the benchmark's run may take 120 s
def test_quick_analysts_benchmark_checks_every_output_and_leaves_no_data(tmp_path: Path) -> None:
    """benchmarks/bench_analysts.py at 300 and 1,000 URLs: every case ran at both sizes and held its URLs, the
    growth table names each case, the markdown file holds the tables, and its temporary data is gone."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    markdown = tmp_path / "analysts.md"
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_analysts.py"), "--sizes", "300", "1000"]
    command += ["--markdown", str(markdown)]
    environment = {**os.environ, "TMPDIR": str(scratch)}
    completed = subprocess.run(
        command, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    rows = [line for line in completed.stdout.splitlines() if re.match(r"\| [\d,]+ \| ", line)]
    cases = ["report", "parquet", "csv", "text"]
    assert [row.split(" | ")[1] for row in rows] == cases * 2
    assert all(row.endswith(f"| {row.split(' | ')[0][2:]} URLs |") for row in rows), rows
    growth = [line.split(" | ")[0][2:] for line in completed.stdout.splitlines() if line.startswith("| ")][-4:]
    assert growth == cases
    assert markdown.read_text(encoding="utf-8") in completed.stdout
    assert not list(scratch.iterdir())


def test_quick_hreflang_benchmark_counts_every_missing_return_link(tmp_path: Path) -> None:
    """benchmarks/bench_hreflang.py at 2,000 and 4,000 pages: both sizes ran, every return link left out was
    reported (the script exits 1 otherwise), and its temporary data is gone."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_hreflang.py"), "--sizes", "2000", "4000"]
    environment = {**os.environ, "TMPDIR": str(scratch)}
    completed = subprocess.run(
        command, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    rows = [line.split(" | ") for line in completed.stdout.splitlines() if re.match(r"\| [\d,]+ \| ", line)]
    assert [(row[0], row[-2], row[-1]) for row in rows] == [("| 2,000", "10", "10 |"), ("| 4,000", "20", "20 |")]
    assert not list(scratch.iterdir())


def test_quick_micro_benchmark_times_every_case() -> None:
    """benchmarks/bench_micro.py --quick: each case the code's docstrings point to printed its timings."""
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_micro.py"), "--quick"]
    completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=100, check=False)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    cases = [line.split()[0] for line in completed.stdout.splitlines()]
    assert cases == ["control", "noncharacter", "escape", "escape", "entry", "sqlite", "feedparser"]
    assert all(re.search(r" us\b", line) for line in completed.stdout.splitlines())


GOAL_ROWS = ["read-urlset", "read-index", "read-ror", "read-text", "write-urlset", "write-jsonl", "write-ror", "split"]


def _run_goals(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_goals.py"), "--quick", "--no-peers"]
    command += ["--data-dir", str(tmp_path / "data"), "--results-dir", str(tmp_path / "results"), *options]
    return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=200, check=False)


@pytest.mark.timeout(240)
def test_quick_goals_benchmark_checks_every_row_against_its_raw_loop(tmp_path: Path) -> None:
    """benchmarks/bench_goals.py --quick --no-peers: every row of issue 19's table ran its raw loop and feedmap
    on the same data, feedmap's locs were the raw loop's, every goal got a verdict, the peers were skipped."""
    completed = _run_goals(tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    result = json.loads(sorted((tmp_path / "results").glob("bench_goals-*.json"))[-1].read_text(encoding="utf-8"))
    assert [row["key"] for row in result["rows"]] == GOAL_ROWS
    assert result["wrong_outputs"] == []
    for row in result["rows"]:
        cases = row["cases"]
        raw, mine = cases["raw"]["runs"][0], cases["feedmap"]["runs"][0]
        assert raw["urls"] > 0 and mine["urls"] == raw["urls"], row["key"]
        assert mine["locs_sha256"] == raw["locs_sha256"], row["key"]
        assert cases["feedmap"]["median"] > 0 and cases["raw"]["median"] > 0
        assert mine["feedmap"].startswith(str(ROOT / "feedmap")), mine["feedmap"]
        peers = [case for case in cases.values() if case["role"] == "peer"]
        assert all(case["note"] == "skipped: --no-peers" and not case["runs"] for case in peers)
        assert peers or row["key"] == "write-jsonl"  # the one row of the table without a peer
        assert all(goal["met"] in (True, False) for goal in row["goals"] if goal["value"] != "not measured")
    goal_lines = [line for line in completed.stdout.splitlines() if line.endswith(("| met |", "| NOT met |"))]
    assert len(goal_lines) >= len(GOAL_ROWS)
    # the measured tree's compiled parts, asked of it: this tree, in this environment
    parts = feedmap.compiled_parts()
    assert result["environment"]["compiled_parts"]["parts"] == parts
    assert result["environment"]["compiled_parts"]["feedmap"] == str(ROOT / "feedmap" / "__init__.py")
    said = ", ".join(f"{name} {in_use}" for name, in_use in parts.items())
    assert f"compiled parts: {said}" in completed.stdout.splitlines()[2]
    pure = os.environ.get("FEEDMAP_PURE", "0") not in ("", "0")
    assert ("WARNING" in completed.stderr) is (not pure and not all(parts.values())), completed.stderr


def _fake_feedmap(root: Path, parts: dict[str, bool] | None = None) -> Path:
    """A feedmap/ whose ``convert`` writes one URL whatever it reads: a fast, wrong result; with ``parts``, its
    ``compiled_parts()`` answers them."""
    package = root / "feedmap"
    package.mkdir(parents=True)
    init = "" if parts is None else f"def compiled_parts():\n    return {parts!r}\n"
    (package / "__init__.py").write_text(init, encoding="utf-8")
    main = "import sys\nargs = sys.argv[1:]\nif '-o' in args:\n"
    main += "    open(args[args.index('-o') + 1], 'w').write('https://wrong.example/\\n')\n"
    (package / "__main__.py").write_text(main, encoding="utf-8")
    return root


@pytest.mark.timeout(120)
def test_goals_benchmark_fails_a_feedmap_that_writes_the_wrong_urls(tmp_path: Path) -> None:
    completed = _run_goals(tmp_path, "--rows", "read-text", "--feedmap-root", str(_fake_feedmap(tmp_path / "fake")))
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "feedmap's output differs from the raw loop's" in completed.stderr
    assert "read-text/feedmap: DIFFERENT: 1 URLs (raw: 300)" in completed.stderr
    assert "compiled parts: unknown (this feedmap has no compiled_parts())" in completed.stdout


@pytest.mark.timeout(120)
def test_goals_benchmark_warns_loudly_of_a_tree_whose_compiled_parts_are_not_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An old tree whose ``build_ext`` built nothing (Cython missing): its parts are False, and the run says so
    on stderr (before the rounds and after the table), in the table's header and in the JSON result."""
    monkeypatch.delenv("FEEDMAP_PURE", raising=False)  # not on purpose
    parts = {"sitemap walk": False, "urlset pass": True}
    fake = _fake_feedmap(tmp_path / "fake", parts)
    completed = _run_goals(tmp_path, "--rows", "read-text", "--feedmap-root", str(fake))
    assert completed.returncode == 1, completed.stdout + completed.stderr  # the fake's output is wrong as well
    warnings = [line for line in completed.stderr.splitlines() if line.startswith("WARNING: ")]
    assert len(warnings) == 2, completed.stderr
    assert "compiled parts not in use: sitemap walk." in warnings[0] and "pip install cython" in warnings[0]
    header = completed.stdout.splitlines()[2]
    assert header.startswith("**WARNING: not every compiled part is in use**"), completed.stdout
    assert "sitemap walk False, urlset pass True" in header
    result = json.loads(sorted((tmp_path / "results").glob("bench_goals-*.json"))[-1].read_text(encoding="utf-8"))
    assert result["environment"]["compiled_parts"]["parts"] == parts


def _tree_parts() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_tree_parts", ROOT / "benchmarks" / "_tree_parts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("pure", [False, True])
def test_tree_parts_reads_the_compiled_parts_of_the_tree_itself(tmp_path: Path, pure: bool) -> None:
    """The helper asks the tree given (not the feedmap installed here), and FEEDMAP_PURE makes False parts meant:
    no warning then, and the line says so."""
    helper = _tree_parts()
    fake = _fake_feedmap(tmp_path / "fake", {"sitemap walk": True, "feed pass": False})
    env = {key: value for key, value in os.environ.items() if key != "FEEDMAP_PURE"}
    if pure:
        env["FEEDMAP_PURE"] = "1"
    answer = helper.tree_parts(fake, env)
    assert answer == {
        "feedmap": str(fake / "feedmap" / "__init__.py"),
        "parts": {"sitemap walk": True, "feed pass": False},
        "pure": pure,
    }
    line, warning = helper.parts_line(answer), helper.parts_warning(answer, fake)
    if pure:
        said = "compiled parts: sitemap walk True, feed pass False"
        assert line == f"{said} (FEEDMAP_PURE set: the pure-Python twins, on purpose)"
        assert warning is None
    else:
        assert line.startswith("**WARNING: not every compiled part is in use**")
        assert warning is not None and "not in use: feed pass." in warning
    assert helper.parts_warning({**answer, "parts": {"feed pass": True}}, fake) is None
    assert (
        helper.parts_line({**answer, "parts": None}) == "compiled parts: unknown (this feedmap has no compiled_parts())"
    )


def test_tree_parts_refuses_a_tree_whose_feedmap_is_not_the_one_that_answers(tmp_path: Path) -> None:
    helper = _tree_parts()
    (tmp_path / "feedmap").mkdir()  # no __init__.py: a namespace package elsewhere, or the installed feedmap, answers
    with pytest.raises(SystemExit):
        helper.tree_parts(tmp_path, dict(os.environ))


def _compare(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(ROOT / "benchmarks" / "compare_outputs.py"), *args]
    env = {key: value for key, value in os.environ.items() if key != "FEEDMAP_CORPUS"}  # samples only: fast
    return subprocess.run(command, capture_output=True, text=True, timeout=200, env=env, check=False)


@pytest.mark.timeout(240)
def test_compare_outputs_finds_no_difference_between_a_tree_and_itself_and_one_in_another(tmp_path: Path) -> None:
    """benchmarks/compare_outputs.py on samples/: the same tree twice differs nowhere; a copy whose CLI adds a
    line to stderr differs in every command, each named."""
    same = _compare(str(ROOT), str(ROOT))
    assert same.returncode == 0, same.stdout + same.stderr
    match = re.search(r": (\d+) inputs, (\d+) commands, 0 differing", same.stdout)
    assert match is not None, same.stdout
    inputs, commands = int(match.group(1)), int(match.group(2))
    assert inputs >= 6 and commands == 7 * inputs

    changed = tmp_path / "changed"
    shutil.copytree(ROOT / "feedmap", changed / "feedmap", ignore=shutil.ignore_patterns("__pycache__"))
    cli = changed / "feedmap" / "cli" / "__init__.py"
    wrapper = "\n\n_unchanged_main = main\n\n\ndef main(argv=None):\n    code = _unchanged_main(argv)\n"
    wrapper += "    print('one more line', file=sys.stderr)\n    return code\n"
    cli.write_text(cli.read_text(encoding="utf-8") + wrapper, encoding="utf-8")
    different = _compare(str(ROOT), str(changed), "--show", "3")
    assert different.returncode == 1, different.stdout + different.stderr
    assert f": {inputs} inputs, {commands} commands, {commands} differing" in different.stdout
    listed = [line for line in different.stdout.splitlines() if line.startswith("  ")]
    assert len(listed) == 3 and all("stderr differs" in line for line in listed), listed
