#!/usr/bin/env python3
"""Reading benchmark: feedmap against the raw lxml limit, on large image sitemaps.

Generates (once, deterministically) ``--files`` sitemaps of ``--urls`` URLs each into ``benchmarks/data/``
and measures, each run in a fresh subprocess so that peak RSS belongs to one measurement:

  (a) raw  -- a plain ``lxml.etree.iterparse`` loop extracting loc, lastmod, changefreq, priority, image
              locs and captions, clearing elements as it goes, writing the locs to a file;
  (b) cli  -- ``python -m feedmap convert FILES... -t text -o OUT``;
  (c) api  -- ``feedmap._api.convert([...], OUT, "text")``;
  (d) cli  -- ``-t jsonl`` and ``-t sitemap`` (for information; ``--no-extra`` skips them);
  (e) cli  -- ``-t text`` on 1 file, to show that peak RSS does not grow with the number of files.

Wall time is the whole process (interpreter start included), best of ``--repeat`` runs, the cases taken
in turn within each round.  Peak RSS is the child's own ``VmHWM`` (read from /proc/self/status at exit
by a ``sitecustomize`` hook placed on the child's PYTHONPATH: the command run is the real one, and
``wait4``/``RUSAGE_CHILDREN`` would also count the parent's pages copied at fork).

Run ``python benchmarks/bench_read.py --help``; see benchmarks/README.md for reading the output.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))  # the helper modules beside this script, however it is loaded

from _bench_data import DEFAULT_SEED, GENERATOR_VERSION, ensure_data  # noqa: E402
from _bench_run import HOOK, Case, compile_feedmap, run_case  # noqa: E402

REPO = HERE.parent
DEFAULT_DATA = HERE / "data"
DEFAULT_RESULTS = HERE / "results"

TARGET_RATIO = 1.5


def _environment() -> dict[str, Any]:
    from lxml import etree

    env: dict[str, Any] = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "lxml": ".".join(map(str, etree.LXML_VERSION)),
        "libxml2": ".".join(map(str, etree.LIBXML_VERSION)),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    env["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "feedmap"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        env["feedmap_commit"] = commit + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        env["feedmap_commit"] = None
    return env


def _mib(kib: int) -> float:
    return kib / 1024


#: Warnings a run may report without anything being wrong: the N files are written into ONE output, which
#: passes the protocol's 50,000-URL and 50 MiB limits for a single file (reported about the output).
EXPECTED_CODES = frozenset({"field-dropped", "too-many-entries", "too-many-bytes"})


def _ratio(case: Case, raw: Case, value: str) -> float | None:
    if len(case.files) != len(raw.files):
        return None
    if value == "cpu":
        return case.best_cpu / raw.best_cpu
    return case.best_wall / raw.best_wall


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _print_table(cases: list[Case], raw: Case, args: argparse.Namespace, total_bytes: int, env: dict[str, Any]) -> None:
    print()
    print(
        f"feedmap read benchmark: {args.files} files x {args.urls:,} URLs ({total_bytes / 1e6:,.1f} MB), "
        f"best of {args.repeat} runs per case"
    )
    print(
        f"Python {env['python']}, lxml {env['lxml']} (libxml2 {env['libxml2']}), {env.get('cpu', env['machine'])}, "
        f"{env['cpus']} CPUs, load average {env['load_before']} before / {env['load_after']} after"
    )
    header = (
        f"{'case':<42} {'files':>5} {'wall s':>7} {'ratio':>6} {'cpu s':>7} {'ratio':>6} "
        f"{'work s':>7} {'peak RSS MiB':>12} {'entries':>9}"
    )
    print(header)
    print("-" * len(header))
    for case in cases:
        entries = case.runs[-1].get("entries")
        print(
            f"{case.label:<42} {len(case.files):>5} {case.best_wall:>7.2f} {_fmt(_ratio(case, raw, 'wall'), '.2f'):>6} "
            f"{case.best_cpu:>7.2f} {_fmt(_ratio(case, raw, 'cpu'), '.2f'):>6} {_fmt(case.best_work, '.2f'):>7} "
            f"{_mib(case.peak_rss_kib):>12.1f} {(f'{entries:,}' if isinstance(entries, int) else '?'):>9}"
        )


def _load() -> str:
    try:
        return "/".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "?"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        description="Measure feedmap's sitemap reading against a plain lxml iterparse loop (wall time, peak RSS).",
        epilog="See benchmarks/README.md for how to read the output.",
    )
    parser.add_argument("--files", type=int, default=10, metavar="N", help="number of sitemap files (default 10)")
    parser.add_argument("--urls", type=int, default=50_000, metavar="N", help="URLs per file (default 50,000)")
    parser.add_argument(
        "--repeat", type=int, default=3, metavar="K", help="runs per case; the best is kept (default 3)"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="data generator seed")
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 2 files x 300 URLs, 1 run (overrides --files/--urls/--repeat)"
    )
    parser.add_argument("--no-extra", action="store_true", help="skip the -t jsonl and -t sitemap cases")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA, help="where the generated sitemaps live")
    parser.add_argument("--results-dir", type=Path, default=DEFAULT_RESULTS, help="where the JSON result is written")
    parser.add_argument(
        "--feedmap-root",
        type=Path,
        default=REPO,
        metavar="DIR",
        help="measure the feedmap package found in DIR (e.g. an older checkout from `git archive`), "
        "not this repository's",
    )
    parser.add_argument(
        "--target", type=float, default=TARGET_RATIO, help="wall-time ratio (b)/(a) to meet (reported; default 1.5)"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.files, args.urls, args.repeat = 2, 300, 1
    if args.files < 1 or args.urls < 1 or args.repeat < 1:
        parser.error("--files, --urls and --repeat must be at least 1")

    files = ensure_data(args.data_dir, files=args.files, urls=args.urls, seed=args.seed)
    total_bytes = sum(path.stat().st_size for path in files)
    for path in files:  # warm the page cache so that the first case is not the only one reading the disk
        with open(path, "rb") as handle:
            while handle.read(1 << 20):
                pass

    cases = [
        Case("raw", "(a) raw lxml iterparse -> text", "raw", files),
        Case("cli_text", "(b) python -m feedmap convert -t text", "cli-text", files),
        Case("api_text", "(c) feedmap._api.convert(..., 'text')", "api-text", files),
    ]
    if not args.no_extra:
        cases += [
            Case("cli_jsonl", "(d) python -m feedmap convert -t jsonl", "cli-jsonl", files, fmt="jsonl"),
            Case("cli_sitemap", "(d) python -m feedmap convert -t sitemap", "cli-sitemap", files, fmt="sitemap"),
        ]
    cases.append(Case("cli_text_1", "(e) python -m feedmap convert -t text", "cli-text", files[:1]))

    env = _environment()
    env["load_before"] = _load()
    reference: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="feedmap-bench-") as scratch_name:
        scratch = Path(scratch_name)
        hook_dir = scratch / "hook"
        hook_dir.mkdir()
        (hook_dir / "sitecustomize.py").write_text(HOOK, encoding="utf-8")
        compile_feedmap(scratch, args.feedmap_root)
        # the text output (e) is compared with a raw run on that one file (not timed)
        run_case(Case("raw_1", "raw 1 file", "raw", files[:1]), scratch, hook_dir, reference, args.feedmap_root)
        for round_number in range(args.repeat):  # cases in turn: a slow moment of the machine hits all of them
            for case in cases:
                print(
                    f"round {round_number + 1}/{args.repeat}: {case.label} ({len(case.files)} files)...",
                    file=sys.stderr,
                    flush=True,
                )
                case.runs.append(run_case(case, scratch, hook_dir, reference, args.feedmap_root))
    env["load_after"] = _load()

    raw = cases[0]
    by_key = {case.key: case for case in cases}
    cli, api = by_key["cli_text"], by_key["api_text"]
    ratio_cli, ratio_api = cli.best_wall / raw.best_wall, api.best_wall / raw.best_wall
    ratio_cli_cpu, ratio_api_cpu = cli.best_cpu / raw.best_cpu, api.best_cpu / raw.best_cpu
    raw_work, api_work = raw.best_work, api.best_work
    ratio_api_work = api_work / raw_work if raw_work and api_work else None
    rss_one, rss_all = by_key["cli_text_1"].peak_rss_kib, cli.peak_rss_kib
    rss_ratio = rss_all / rss_one
    mismatched = sorted({case.label for case in cases for run in case.runs if run.get("same_output_as_raw") is False})
    unexpected = {
        case.key: codes
        for case in cases
        if (
            codes := {c: n for c, n in (case.runs[-1].get("diagnostic_codes") or {}).items() if c not in EXPECTED_CODES}
        )
    }

    measured = sorted(
        {str(Path(run["feedmap"]).parent) for case in cases[1:] for run in case.runs if run.get("feedmap")}
    ) or ["?"]
    _print_table(cases, raw, args, total_bytes, env)
    print()
    verdict = "met" if ratio_cli <= args.target else "NOT met"
    print(
        f"ratio (b) CLI -t text / raw:     wall {ratio_cli:.2f}  cpu {ratio_cli_cpu:.2f}  (target wall <= "
        f"{args.target:.2f}: {verdict})"
    )
    print(
        f"ratio (c) api.convert / raw:     wall {ratio_api:.2f}  cpu {ratio_api_cpu:.2f}"
        + (f"  (in-process work only: {ratio_api_work:.2f})" if ratio_api_work else "")
    )
    print(
        f"peak RSS (b), 1 file vs {args.files} files: {_mib(rss_one):.1f} MiB vs {_mib(rss_all):.1f} MiB, "
        f"ratio {rss_ratio:.2f}"
    )
    print(f"text output identical to raw:    {'yes' if not mismatched else 'NO: ' + ', '.join(mismatched)}")
    print(f"feedmap measured:                {', '.join(measured)}")
    if unexpected:
        print(f"unexpected diagnostics (the generated data should give none): {unexpected}")

    result = {
        "benchmark": "bench_read",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "parameters": {
            "files": args.files,
            "urls_per_file": args.urls,
            "repeat": args.repeat,
            "seed": args.seed,
            "generator_version": GENERATOR_VERSION,
            "quick": args.quick,
            "input_bytes": total_bytes,
            "feedmap_root": str(args.feedmap_root),
            "inputs": [path.name for path in files],
        },
        "environment": env,
        "cases": {
            case.key: {
                "label": case.label,
                "files": len(case.files),
                "command": case.command(Path("OUT"), Path("REPORT"))[1:],
                "best_wall_s": case.best_wall,
                "best_cpu_s": case.best_cpu,
                "best_work_s": case.best_work,
                "peak_rss_kib": case.peak_rss_kib,
                "ratio_vs_raw_wall": _ratio(case, raw, "wall"),
                "ratio_vs_raw_cpu": _ratio(case, raw, "cpu"),
                "runs": case.runs,
            }
            for case in cases
        },
        "summary": {
            "ratio_cli_text": ratio_cli,
            "ratio_cli_text_cpu": ratio_cli_cpu,
            "ratio_api_text": ratio_api,
            "ratio_api_text_cpu": ratio_api_cpu,
            "ratio_api_text_work": ratio_api_work,
            "target_ratio": args.target,
            "target_met": ratio_cli <= args.target,
            "peak_rss_kib_1_file": rss_one,
            "peak_rss_kib_n_files": rss_all,
            "peak_rss_ratio_n_over_1": rss_ratio,
            "text_output_identical": not mismatched,
            "feedmap_measured": measured,
            "unexpected_diagnostics": unexpected,
        },
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    result_path = args.results_dir / f"bench_read-{stamp}-{args.files}x{args.urls}.json"
    result_path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"result written to {result_path}")
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
