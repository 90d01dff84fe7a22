#!/usr/bin/env python3
"""Issue 19's table in one run: each row's raw loop, feedmap and the peers, same data, medians, goals.

    python benchmarks/bench_goals.py                       # the whole table, median of 3 (about 10-15 minutes)
    python benchmarks/bench_goals.py --quick               # smoke run: tiny data, one round (seconds)
    python benchmarks/bench_goals.py --rows read-index split --repeat 5
    python benchmarks/bench_goals.py --feedmap-root /tmp/old --markdown before.md   # another tree's feedmap

Every run of every case is a fresh process (wall time of the whole process from ``wait4``; for the cases that
run in-process, also ``work s``: the work alone, imports and the making of the entries excluded); the cases of
all rows are taken in turn within each of the ``--repeat`` rounds, so that a slow moment of this shared machine
does not hit one case only; each figure is the median of the rounds.  Per row: the raw loop
(``_goal_child.py``: lxml and ``json`` with the least Python the work needs, no check), feedmap (the CLI,
``python -m feedmap``, or ``feedmap.write`` in-process; the 1M rows with ``--jobs 1`` and ``--jobs 2`` when
``feedmap convert --help`` offers ``--jobs``) and the peers installed (``pip install -e '.[bench]'``; npm
``sitemap`` with Node, installed into ``benchmarks/.npm-sitemap/``); one not installed is skipped with a note.

Outputs are checked after each run (untimed): every case writes the locs it read one a line, or XML whose locs
are read back; feedmap's must be the raw loop's, in the same order (the script exits 1 otherwise: a fast wrong
result cannot pass); a peer's differing result is said in the table, not an error.  The markdown table goes to
stdout (and ``--markdown FILE``), a JSON result to ``benchmarks/results/`` (git-ignored).  Both say which
compiled parts the measured tree uses (its ``feedmap.compiled_parts()``, asked in the tree: ``_tree_parts.py``);
one not in use, ``FEEDMAP_PURE`` not set, is a loud warning on stderr and a marked line in the table, as the
figures are then the pure-Python twins'.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _bench_data import DEFAULT_SEED, ensure_data  # noqa: E402
from _bench_run import HOOK, RSS_ENV, _bytecode_env, compile_feedmap  # noqa: E402
from _goal_data import INDEX_BASE, write_index, write_ror, write_text  # noqa: E402
from _goal_outputs import locs_of  # noqa: E402
from _scale_data import write_images  # noqa: E402
from _tree_parts import parts_line, parts_warning, tree_parts  # noqa: E402

REPO = HERE.parent
CHILD = HERE / "_goal_child.py"
DEFAULT_DATA = HERE / "data"
DEFAULT_RESULTS = HERE / "results"
SPLIT_BASE = "https://bench.example/"

#: Sizes of each row's data: the whole run, and --quick.
SIZES = {
    "urlset": (50_000, 300),
    "index": ((20, 50_000), (4, 300)),
    "ror": (10_000, 200),
    "text": (50_000, 300),
    "write": (50_000, 300),
    "jsonl": (200_000, 1_000),
    "rorwrite": (10_000, 200),
    "split": (1_000_000, 2_000),
}


@dataclass
class Case:
    key: str
    label: str
    role: str  # raw | feedmap | peer
    argv: Callable[[Path], list[str]]  # the command, given the output path
    check: str  # how the output's locs are read back (_goal_outputs.locs_of)
    needs: str | None = None  # the module (or "npm") a peer needs
    runs: list[dict[str, Any]] = field(default_factory=list)
    note: str | None = None

    def median(self, metric: str) -> float | None:
        values = [run[metric] for run in self.runs if run.get(metric) is not None]
        return statistics.median(values) if values else None


@dataclass
class Goal:
    text: str
    kind: str  # at-most: feedmap / other <= bound; faster: other / feedmap >= bound; seconds: feedmap <= bound
    feedmap: str
    other: str | None
    bound: float


@dataclass
class Row:
    key: str
    work: str
    data: str
    metric: str  # wall_s | work_s
    cases: list[Case]
    goals: list[Goal]

    def case(self, key: str) -> Case | None:
        return next((case for case in self.cases if case.key == key and case.note is None), None)


def _child(mode: str, *args: object) -> Callable[[Path], list[str]]:
    return lambda out: [sys.executable, str(CHILD), mode, str(out) + ".report", str(out), *map(str, args)]


def _feedmap(*args: object, jobs: int | None = None) -> Callable[[Path], list[str]]:
    extra = ["--jobs", str(jobs)] if jobs is not None else []
    return lambda out: [sys.executable, "-m", "feedmap", "convert", *map(str, args), *extra, "-q", "-o", _out(out)]


def _out(out: Path) -> str:
    return f"{out}/" if out.suffix == ".dir" else str(out)


def build_rows(scratch: Path, data_dir: Path, quick: bool, jobs: bool) -> list[Row]:
    """The rows of issue 19's table, their data generated (deterministically) first."""
    size = {key: small if quick else full for key, (full, small) in SIZES.items()}
    urlset = ensure_data(data_dir, files=1, urls=size["urlset"], seed=DEFAULT_SEED)[0]  # type: ignore[arg-type]
    children, per_child = size["index"]  # type: ignore[misc]
    index, index_files = write_index(scratch / "index", children, per_child)
    ror = scratch / "feed-ror.xml"
    write_ror(ror, size["ror"])  # type: ignore[arg-type]
    text = scratch / "urls.txt"
    write_text(text, size["text"])  # type: ignore[arg-type]
    jsonl = scratch / "images.jsonl"
    write_images(jsonl, size["jsonl"])  # type: ignore[arg-type]
    big_text = scratch / "split-urls.txt"
    write_text(big_text, size["split"])  # type: ignore[arg-type]
    mapped = ("--map", f"{INDEX_BASE}={index.parent}")
    j1, j2 = (1, 2) if jobs else (None, None)
    feedmap_j2 = [Case("feedmap-j2", "feedmap --jobs 2", "feedmap", lambda out: [], "lines")]
    if not jobs:
        feedmap_j2[0].note = "skipped: this feedmap has no --jobs (feedmap convert --help)"
    n = f"{size['urlset']:,}"
    rows = [
        Row(
            "read-urlset",
            f"read {n}-URL urlset + images",
            f"{urlset.name} ({urlset.stat().st_size / 1e6:.1f} MB)",
            "wall_s",
            [
                Case("raw-bare", "lxml iterparse, loc only", "raw", _child("raw-bare", urlset), "lines"),
                Case("raw", "raw lxml loop, every field", "raw", _child("raw-fields", urlset), "lines"),
                Case("feedmap", "feedmap convert -t text", "feedmap", _feedmap(urlset, "-t", "text"), "lines"),
                Case("scrapy", "scrapy Sitemap", "peer", _child("scrapy-urlset", urlset), "lines", "scrapy"),
                Case("usp", "usp sitemap_from_str", "peer", _child("usp", urlset), "lines", "usp"),
                Case(
                    "advertools",
                    "advertools sitemap_to_df",
                    "peer",
                    _child("advertools", urlset),
                    "lines",
                    "advertools",
                ),
            ],
            [
                Goal("<= 1.5x a raw lxml loop that extracts every field", "at-most", "feedmap", "raw", 1.5),
                Goal(">= 2x faster than scrapy", "faster", "feedmap", "scrapy", 2.0),
            ],
        ),
        Row(
            "read-index",
            f"read {children * per_child:,}-URL index ({children} children)",
            f"{children} sitemaps of {per_child:,} URLs, a lastmod each",
            "wall_s",
            [
                Case("raw", "raw lxml loop, every field", "raw", _child("raw-index", index, index.parent), "lines"),
                Case(
                    "feedmap",
                    "feedmap convert -t text" + (" --jobs 1" if jobs else ""),
                    "feedmap",
                    _feedmap(index, *mapped, "-t", "text", jobs=j1),
                    "lines",
                ),
                *(
                    [
                        Case(
                            "feedmap-j2",
                            "feedmap convert -t text --jobs 2",
                            "feedmap",
                            _feedmap(index, *mapped, "-t", "text", jobs=j2),
                            "lines",
                        )
                    ]
                    if jobs
                    else feedmap_j2
                ),
                Case(
                    "scrapy", "scrapy Sitemap", "peer", _child("scrapy-index", index, index.parent), "lines", "scrapy"
                ),
                Case(
                    "advertools",
                    "advertools sitemap_to_df (8 threads)",
                    "peer",
                    _child("advertools", index_files),
                    "lines",
                    "advertools",
                ),
            ],
            [
                Goal("<= 4.5 s on one core: <= 1.41x raw (4.5 s of 3.2 s)", "at-most", "feedmap", "raw", 4.5 / 3.2),
                Goal(
                    "<= 2.5 s with --jobs 2: <= 0.78x raw (2.5 s of 3.2 s)", "at-most", "feedmap-j2", "raw", 2.5 / 3.2
                ),
            ],
        ),
        Row(
            "read-ror",
            f"read {size['ror']:,}-item ROR RSS",
            "RSS 2.0, ror:updated/updatePeriod/resourceOf",
            "wall_s",
            [
                Case("raw", "raw lxml loop, every field", "raw", _child("raw-ror", ror), "lines"),
                Case("feedmap", "feedmap convert -t text", "feedmap", _feedmap(ror, "-t", "text"), "lines"),
                Case("feedparser", "feedparser.parse", "peer", _child("feedparser", ror), "lines", "feedparser"),
            ],
            [Goal("<= 2.5x raw", "at-most", "feedmap", "raw", 2.5)],
        ),
        Row(
            "read-text",
            f"read {size['text']:,} text lines",
            "text sitemap",
            "wall_s",
            [
                Case("raw", "raw text reader", "raw", _child("raw-text", text), "lines"),
                Case("feedmap", "feedmap convert -t text", "feedmap", _feedmap(text, "-t", "text"), "lines"),
                Case("usp", "usp sitemap_from_str", "peer", _child("usp", text), "lines", "usp"),
            ],
            [Goal("<= 3x raw", "at-most", "feedmap", "raw", 3.0)],
        ),
        Row(
            "write-urlset",
            f"write {size['write']:,} URLs + images (work)",
            "entries made in the process",
            "work_s",
            [
                Case("raw", "raw writer (string building)", "raw", _child("raw-write", size["write"]), "urlset"),
                Case(
                    "feedmap",
                    "feedmap.write(..., 'sitemap')",
                    "feedmap",
                    _child("feedmap-write", size["write"]),
                    "urlset",
                ),
                Case("xmlfile", "lxml etree.xmlfile", "peer", _child("xmlfile", size["write"]), "urlset", "lxml"),
            ],
            [
                Goal("<= 2x the raw writer of work", "at-most", "feedmap", "raw", 2.0),
                Goal("faster than lxml xmlfile", "faster", "feedmap", "xmlfile", 1.0),
            ],
        ),
        Row(
            "write-jsonl",
            f"write {size['jsonl']:,} JSON lines as a sitemap (whole process)",
            f"JSON lines, 1-2 images a URL ({jsonl.stat().st_size / 1e6:.0f} MB)",
            "wall_s",
            [
                Case("raw", "raw json-to-XML script", "raw", _child("raw-json2xml", jsonl), "urlset"),
                Case(
                    "feedmap",
                    "feedmap convert -t sitemap",
                    "feedmap",
                    _feedmap(jsonl, "-t", "sitemap", "--max-bytes", "2G"),
                    "urlset",
                ),
            ],
            [Goal("<= 2x a raw json-to-XML script", "at-most", "feedmap", "raw", 2.0)],
        ),
        Row(
            "write-ror",
            f"write {size['rorwrite']:,} ROR items (work)",
            "entries made in the process",
            "work_s",
            [
                Case("raw", "raw writer (string building)", "raw", _child("raw-rorwrite", size["rorwrite"]), "rss"),
                Case(
                    "feedmap",
                    "feedmap.write(..., 'ror')",
                    "feedmap",
                    _child("feedmap-rorwrite", size["rorwrite"]),
                    "rss",
                ),
                Case("feedgen", "feedgen rss_file", "peer", _child("feedgen", size["rorwrite"]), "rss", "feedgen"),
            ],
            [
                Goal("<= 2x raw", "at-most", "feedmap", "raw", 2.0),
                Goal("faster than feedgen", "faster", "feedmap", "feedgen", 1.0),
            ],
        ),
        Row(
            "split",
            f"split {size['split']:,} text URLs into files + index",
            "text sitemap, files of 50,000",
            "wall_s",
            [
                Case("raw", "raw splitter", "raw", _child("raw-split", big_text, SPLIT_BASE), "split"),
                Case(
                    "feedmap",
                    "feedmap convert -t sitemap -o DIR/" + (" --jobs 1" if jobs else ""),
                    "feedmap",
                    _feedmap(big_text, "-t", "sitemap", "--base-url", SPLIT_BASE, "--max-bytes", "2G", jobs=j1),
                    "split",
                ),
                *(
                    [
                        Case(
                            "feedmap-j2",
                            "feedmap ... --jobs 2",
                            "feedmap",
                            _feedmap(big_text, "-t", "sitemap", "--base-url", SPLIT_BASE, "--max-bytes", "2G", jobs=j2),
                            "split",
                        )
                    ]
                    if jobs
                    else [
                        Case(
                            "feedmap-j2",
                            "feedmap --jobs 2",
                            "feedmap",
                            lambda out: [],
                            "split",
                            note=feedmap_j2[0].note,
                        )
                    ]
                ),
                Case("npm", "npm sitemap SitemapAndIndexStream", "peer", _npm(big_text), "split", "npm"),
            ],
            [
                Goal("<= 3x raw", "at-most", "feedmap", "raw", 3.0),
                Goal("at least 2x faster than npm sitemap", "faster", "feedmap", "npm", 2.0),
            ],
        ),
    ]
    return rows


_NPM: list[Path | None] = []


def _npm(text: Path) -> Callable[[Path], list[str]]:
    def argv(out: Path) -> list[str]:
        from bench_scale import NPM_SCRIPT

        modules = _NPM[0]
        return [shutil.which("node") or "node", str(NPM_SCRIPT), str(modules), str(text), str(out), SPLIT_BASE, "50000"]

    return argv


def _available(needs: str | None, peers: bool) -> str | None:
    """None when the peer can run, else why it is skipped."""
    if needs is None:
        return None
    if not peers:
        return "skipped: --no-peers"
    if needs == "npm":
        if shutil.which("node") is None:
            return "skipped: Node is not installed"
        if not _NPM:
            from bench_scale import _npm_modules

            _NPM.append(_npm_modules())
        return None if _NPM[0] is not None else "skipped: npm install sitemap failed"
    if importlib.util.find_spec(needs) is None:
        return f"skipped: {needs} not installed (pip install -e '.[bench]')"
    return None


def has_jobs(env: dict[str, str], cwd: Path) -> bool:
    """Whether the measured feedmap's ``convert`` takes ``--jobs`` (run where the cases run: ``python -m`` puts
    the working folder first on sys.path, and a checkout's own feedmap/ must not answer for another tree)."""
    command = [sys.executable, "-m", "feedmap", "convert", "--help"]
    help_text = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, check=False).stdout
    return "--jobs" in help_text


def run_once(case: Case, scratch: Path, env: dict[str, str], feedmap_root: Path) -> dict[str, Any]:
    out = scratch / "out" / (f"{case.key}.dir" if case.check == "split" else f"{case.key}.out")
    shutil.rmtree(out, ignore_errors=True) if out.is_dir() else out.unlink(missing_ok=True)
    if case.check == "split":
        out.mkdir(parents=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    report, rss = Path(str(out) + ".report"), Path(str(out) + ".rss")
    report.unlink(missing_ok=True)
    rss.unlink(missing_ok=True)
    command = case.argv(out)
    with open(scratch / "stderr.txt", "wb") as stderr, open(os.devnull, "wb") as stdout:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr, env={**env, RSS_ENV: str(rss)}, cwd=scratch)
        _pid, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    errors = (scratch / "stderr.txt").read_text(encoding="utf-8", errors="replace")
    run: dict[str, Any] = {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "exit": code}
    if report.is_file():
        run.update(json.loads(report.read_text(encoding="utf-8")))
    hooked = json.loads(rss.read_text(encoding="utf-8")) if rss.is_file() else {}
    run["peak_rss_mib"] = round(hooked.get("vmhwm_kib", 0) / 1024, 1) or None
    if case.role == "feedmap":
        measured = hooked.get("feedmap") or ""
        run["feedmap"] = measured
        if not measured.startswith(str(feedmap_root.resolve() / "feedmap")):
            raise SystemExit(f"{case.label}: measured {measured!r}, not the feedmap of {feedmap_root}")
    if code != 0:
        if case.role != "peer":
            raise SystemExit(f"{case.label}: exit {code}\n  command: {' '.join(command)}\n{errors[-3000:]}")
        run["error"] = errors.strip().splitlines()[-1] if errors.strip() else f"exit {code}"
        return run
    locs = locs_of(out, case.check, SPLIT_BASE)
    run["urls"] = len(locs)
    run["locs_sha256"] = hashlib.sha256("\n".join(locs).encode("utf-8")).hexdigest()
    run["sorted_sha256"] = hashlib.sha256("\n".join(sorted(locs)).encode("utf-8")).hexdigest()
    shutil.rmtree(out, ignore_errors=True) if out.is_dir() else out.unlink(missing_ok=True)
    return run


def _check(row: Row, case: Case) -> str:
    """Whether the case's last run read or wrote the raw loop's locs."""
    raw = row.case("raw")
    run = case.runs[-1]
    if "error" in run:
        return f"FAILED: {run['error'][:80]}"
    if raw is None or raw is case or not raw.runs:
        return f"{run['urls']:,} URLs"
    reference = raw.runs[-1]
    if run["locs_sha256"] == reference["locs_sha256"]:
        return f"{run['urls']:,} URLs, same locs"
    if run["sorted_sha256"] == reference["sorted_sha256"]:
        return f"{run['urls']:,} URLs, same locs in another order"
    return f"DIFFERENT: {run['urls']:,} URLs (raw: {reference['urls']:,})"


def _fmt(value: float | None, spec: str = ".2f", suffix: str = "") -> str:
    return "-" if value is None else format(value, spec) + suffix


def evaluate(row: Row, goal: Goal) -> tuple[bool | None, str]:
    mine, other = row.case(goal.feedmap), row.case(goal.other) if goal.other else None
    value = mine.median(row.metric) if mine else None
    base = other.median(row.metric) if other else None
    if value is None or (goal.other and base is None):
        return None, "not measured"
    assert value is not None
    if goal.kind == "at-most":
        ratio = value / base  # type: ignore[operator]
        return ratio <= goal.bound, f"{ratio:.2f}x {goal.other}"
    ratio = base / value  # type: ignore[operator]
    return ratio >= goal.bound, f"{ratio:.2f}x faster than {goal.other}"


def _fastest_peer(row: Row) -> float | None:
    """The median of the row's fastest peer that ran and did not fail."""
    times = [
        case.median(row.metric)
        for case in row.cases
        if case.role == "peer" and case.note is None and case.runs and "error" not in case.runs[-1]
    ]
    found = [time_ for time_ in times if time_ is not None]
    return min(found) if found else None


def markdown(rows: Sequence[Row], env: dict[str, Any], repeat: int) -> str:
    lines = [
        f"feedmap goals benchmark (issue 19): median of {repeat} round{'s' if repeat != 1 else ''}, each case a fresh"
        f" process; Python {env['python']}, lxml {env['lxml']}, {env['cpus']} CPUs, load average"
        f" {env['load_before']} before / {env['load_after']} after; feedmap {env['feedmap_root']}"
        f" ({env.get('feedmap_commit') or 'no commit'})",
        "",
        parts_line(env["compiled_parts"]),
        "",
        "| work | case | median s | to raw | to fastest peer | peak RSS MiB | output |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        raw = row.case("raw")
        raw_time = raw.median(row.metric) if raw else None
        fastest = _fastest_peer(row)
        for case in row.cases:
            what = f"{row.work} [{row.metric[:-2]}]"
            if case.note is not None:
                lines.append(f"| {what} | {case.label} | - | - | - | - | {case.note} |")
                continue
            value = case.median(row.metric)
            to_raw = value / raw_time if value is not None and raw_time else None
            to_peer = value / fastest if value is not None and fastest else None
            rss = max((run.get("peak_rss_mib") or 0 for run in case.runs), default=0) or None
            lines.append(
                f"| {what} | {case.label} | {_fmt(value, '.3f')} | {_fmt(to_raw, '.2f', 'x')} |"
                f" {_fmt(to_peer, '.2f', 'x')} | {_fmt(rss, '.0f')} | {_check(row, case)} |"
            )
    lines += ["", "| work | goal | feedmap | met |", "|---|---|---|---|"]
    for row in rows:
        for goal in row.goals:
            met, text = evaluate(row, goal)
            mine = row.case(goal.feedmap)
            seconds = _fmt(mine.median(row.metric) if mine else None, ".3f", " s")
            verdict = "-" if met is None else ("met" if met else "NOT met")
            lines.append(f"| {row.work} | {goal.text} | {seconds}: {text} | {verdict} |")
    return "\n".join(lines) + "\n"


def _environment(feedmap_root: Path) -> dict[str, Any]:
    from lxml import etree

    commit = subprocess.run(
        ["git", "-C", str(feedmap_root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return {
        "python": platform.python_version(),
        "lxml": ".".join(map(str, etree.LXML_VERSION)),
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "feedmap_root": str(feedmap_root),
        "feedmap_commit": commit or None,
        "load_before": "/".join(f"{value:.2f}" for value in os.getloadavg()),
    }


def _loud(warning: str) -> str:
    bar = "!" * 100
    return f"{bar}\n{warning}\n{bar}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: tiny data, one round")
    parser.add_argument("--repeat", type=int, default=None, help="rounds (default 3; 1 with --quick)")
    parser.add_argument("--rows", nargs="+", help="run only these rows (read-urlset read-index ... split)")
    parser.add_argument("--no-peers", action="store_true", help="leave out every peer")
    parser.add_argument("--feedmap-root", type=Path, default=REPO, help="the tree whose feedmap/ is measured")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA, help="where the image sitemap is kept")
    parser.add_argument("--results-dir", type=Path, default=DEFAULT_RESULTS, help="where the JSON result goes")
    parser.add_argument("--markdown", type=Path, help="also write the markdown tables to this file")
    parser.add_argument("--label", help="what the measured tree is (e.g. 'main 7dfbe67'), for the table's first line")
    args = parser.parse_args(argv)
    repeat = args.repeat or (1 if args.quick else 3)
    feedmap_root = args.feedmap_root.resolve()
    if not (feedmap_root / "feedmap" / "__init__.py").is_file():
        parser.error(f"--feedmap-root {feedmap_root}: no feedmap/__init__.py there")
    env_info = _environment(feedmap_root)
    env_info["feedmap_commit"] = args.label or env_info["feedmap_commit"]
    with tempfile.TemporaryDirectory(prefix="bench-goals-") as temporary:
        scratch = Path(temporary)
        (scratch / "hook").mkdir()
        (scratch / "hook" / "sitecustomize.py").write_text(HOOK, encoding="utf-8")
        # bytecode is kept beside the data (git-ignored), so a peer's modules are compiled once, not every run
        args.data_dir.mkdir(parents=True, exist_ok=True)
        compile_feedmap(args.data_dir, feedmap_root)
        env = _bytecode_env(args.data_dir)
        env["PYTHONPATH"] = os.pathsep.join([str(scratch / "hook"), str(feedmap_root)])
        env.pop("PYTHONSTARTUP", None)
        env_info["compiled_parts"] = tree_parts(feedmap_root, env)
        warning = parts_warning(env_info["compiled_parts"], feedmap_root)
        if warning:
            print(_loud(warning), file=sys.stderr)
        jobs = has_jobs(env, scratch)
        rows = build_rows(scratch, args.data_dir, args.quick, jobs)
        if args.rows:
            unknown = set(args.rows) - {row.key for row in rows}
            if unknown:
                parser.error(f"unknown rows: {', '.join(sorted(unknown))}")
            rows = [row for row in rows if row.key in args.rows]
        for row in rows:
            for case in row.cases:
                case.note = case.note or _available(case.needs, not args.no_peers)
        started = time.perf_counter()
        for round_ in range(repeat):
            for row in rows:
                for case in row.cases:
                    if case.note is None:
                        case.runs.append(run_once(case, scratch, env, feedmap_root))
            print(f"round {round_ + 1}/{repeat} done ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    env_info["load_after"] = "/".join(f"{value:.2f}" for value in os.getloadavg())
    env_info["jobs_option"] = jobs
    env_info["total_s"] = round(time.perf_counter() - started, 1)
    table = markdown(rows, env_info, repeat)
    print(table)
    if args.markdown:
        args.markdown.write_text(table, encoding="utf-8")
    wrong = [
        f"{row.key}/{case.key}: {_check(row, case)}"
        for row in rows
        for case in row.cases
        if case.role == "feedmap" and case.runs and not _check(row, case).endswith("same locs")
    ]
    result = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "environment": env_info,
        "parameters": {"quick": args.quick, "repeat": repeat, "peers": not args.no_peers},
        "rows": [
            {
                "key": row.key,
                "work": row.work,
                "data": row.data,
                "metric": row.metric,
                "cases": {
                    case.key: {
                        "label": case.label,
                        "role": case.role,
                        "note": case.note,
                        "runs": case.runs,
                        "median": case.median(row.metric),
                    }
                    for case in row.cases
                },
                "goals": [
                    {"goal": goal.text, "met": evaluate(row, goal)[0], "value": evaluate(row, goal)[1]}
                    for goal in row.goals
                ],
            }
            for row in rows
        ],
        "wrong_outputs": wrong,
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    path = args.results_dir / f"bench_goals-{time.strftime('%Y%m%d-%H%M%S')}{'-quick' if args.quick else ''}.json"
    path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"result: {path}; {env_info['total_s']:.0f} s in all", file=sys.stderr)
    if warning:
        print(_loud(warning), file=sys.stderr)  # again, after the table: not lost above the rounds
    if wrong:
        print("feedmap's output differs from the raw loop's:\n  " + "\n  ".join(wrong), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
