"""Web benchmark: page enrichment at several concurrencies, and index following against
ultimate-sitemap-parser, on one local site whose every answer comes after a fixed latency.

    python benchmarks/bench_web.py                  # 2,000 pages, 50 ms latency, concurrency 1 8 32 (~3 min)
    python benchmarks/bench_web.py --quick          # 60 pages, 2 children: a smoke run of a few seconds
    python benchmarks/bench_web.py --concurrency 1 4 16 64 --repeat 3

See benchmarks/README.md for what is measured and how to read it.
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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_RESULTS = HERE / "results"


@dataclass
class Case:
    name: str
    group: str
    runs: list[dict[str, Any]]
    expected: int

    @property
    def best(self) -> dict[str, Any]:
        return min(self.runs, key=lambda run: float(run["work_s"]))

    @property
    def ok(self) -> bool:
        return all(run["exit"] == 0 and run["entries"] == self.expected for run in self.runs)


def start_site(args: argparse.Namespace) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [
            sys.executable,
            str(HERE / "_web_site.py"),
            f"--pages={args.pages}",
            f"--children={args.children}",
            f"--urls={args.urls}",
            f"--latency={args.latency}",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    base = process.stdout.readline().strip()
    if not base.startswith("http://"):
        process.kill()
        raise SystemExit("bench_web: the local site did not start")
    return process, base


def run_child(mode: str, arguments: list[str], workdir: Path) -> dict[str, Any]:
    report = workdir / "report.json"
    report.unlink(missing_ok=True)
    started = time.perf_counter()
    subprocess.run([sys.executable, str(HERE / "_web_child.py"), mode, str(report), *arguments], check=True)
    wall = time.perf_counter() - started
    result: dict[str, Any] = json.loads(report.read_text())
    result["wall_s"] = wall
    return result


def enrich_case(base: str, concurrency: int, args: argparse.Namespace, workdir: Path) -> Case:
    out = workdir / f"enriched-{concurrency}.jsonl"
    command = ["--", "convert", f"{base}/pages.xml", "--enrich", "--concurrency", str(concurrency)]
    command += ["-t", "jsonl", "-o", str(out), "-q"]
    runs = []
    for _ in range(args.repeat):
        run = run_child("feedmap", command, workdir)
        lines = out.read_text("utf-8").splitlines() if out.exists() else []
        run["enriched"] = sum(1 for line in lines if '"title"' in line and '"description"' in line)
        if run["enriched"] != args.pages:
            run["exit"] = run["exit"] or 1  # an unenriched page makes the run invalid
        runs.append(run)
    return Case(f"feedmap convert --enrich --concurrency {concurrency}", "enrich", runs, args.pages)


def follow_cases(base: str, args: argparse.Namespace, workdir: Path) -> list[Case]:
    expected = args.children * args.urls
    out = workdir / "followed.txt"
    cases = []
    for concurrency in args.follow_concurrency:
        command = ["--", "convert", f"{base}/index.xml", "--concurrency", str(concurrency), "-t", "text"]
        command += ["-o", str(out), "-q"]
        runs = [run_child("feedmap", command, workdir) for _ in range(args.repeat)]
        cases.append(Case(f"feedmap convert INDEX --concurrency {concurrency}", "follow", runs, expected))
    try:
        import usp  # noqa: F401 - only checking that it is installed
    except ImportError:
        print("bench_web: ultimate-sitemap-parser is not installed (pip install -e '.[bench]')", file=sys.stderr)
        return cases
    runs = [run_child("usp", [f"{base}/index.xml"], workdir) for _ in range(args.repeat)]
    cases.append(Case("ultimate-sitemap-parser SitemapFetcher", "follow", runs, expected))
    return cases


def environment() -> dict[str, Any]:
    import httpx

    versions = {"python": platform.python_version(), "httpx": httpx.__version__}
    from importlib.metadata import PackageNotFoundError, version

    try:
        versions["ultimate-sitemap-parser"] = version("ultimate-sitemap-parser")
    except PackageNotFoundError:
        versions["ultimate-sitemap-parser"] = "not installed"
    return {"versions": versions, "cpus": os.cpu_count(), "load": os.getloadavg()}


def report(cases: list[Case], args: argparse.Namespace, env: dict[str, Any]) -> dict[str, Any]:
    print(
        f"feedmap web benchmark: {args.pages:,} pages, {args.children} x {args.urls:,} URLs in an index, "
        f"{args.latency * 1000:.0f} ms per answer, best of {args.repeat}"
    )
    print(", ".join(f"{k} {v}" for k, v in env["versions"].items()) + f"; {env['cpus']} CPUs")
    header = f"{'case':<52} {'work s':>8} {'wall s':>8} {'per s':>10} {'RSS MiB':>8} {'entries':>9}  ok"
    print(header)
    print("-" * len(header))
    for case in cases:
        best = case.best
        rate = case.expected / best["work_s"]
        print(
            f"{case.name:<52} {best['work_s']:8.2f} {best['wall_s']:8.2f} {rate:10,.0f} "
            f"{best['peak_rss_mib']:8.1f} {best['entries']:9,}  {'yes' if case.ok else 'NO'}"
        )
    summary: dict[str, Any] = {}
    enrich = {int(c.name.rsplit(" ", 1)[1]): c for c in cases if c.group == "enrich"}
    if 1 in enrich and len(enrich) > 1:
        slow = enrich[1].best["work_s"]
        for concurrency, case in sorted(enrich.items()):
            summary[f"enrich_speedup_c{concurrency}"] = slow / case.best["work_s"]
        top = max(enrich)
        print(f"enrichment: concurrency {top} is {summary[f'enrich_speedup_c{top}']:.1f}x concurrency 1 (target >= 10)")
    follow = [c for c in cases if c.group == "follow"]
    usp = [c for c in follow if c.name.startswith("ultimate")]
    ours = [c for c in follow if c.name.startswith("feedmap")]
    if usp and ours:
        fastest = min(ours, key=lambda c: c.best["work_s"])
        summary["follow_speedup_vs_usp"] = usp[0].best["work_s"] / fastest.best["work_s"]
        print(
            f"index following: feedmap ({fastest.name.rsplit(' ', 2)[-1]} at once) is "
            f"{summary['follow_speedup_vs_usp']:.1f}x ultimate-sitemap-parser (target > 1)"
        )
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=2000, help="pages to enrich (default: 2000)")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds before each answer (default: 0.05)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32], help="enrichment concurrencies")
    parser.add_argument("--follow-concurrency", type=int, nargs="+", default=[16], help="index-following ones")
    parser.add_argument("--children", type=int, default=20, help="sitemaps in the index (default: 20)")
    parser.add_argument("--urls", type=int, default=5000, help="URLs per child sitemap (default: 5000)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case, the best is kept (default: 1)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 60 pages, 2 children of 500 URLs")
    parser.add_argument("--results-dir", type=Path, default=DEFAULT_RESULTS, help="where the JSON result goes")
    args = parser.parse_args(argv)
    if args.quick:
        args.pages, args.children, args.urls, args.latency = 60, 2, 500, 0.01
        args.concurrency = [1, 8]
    env = environment()
    site, base = start_site(args)
    try:
        with tempfile.TemporaryDirectory(prefix="bench_web-") as tmp:
            workdir = Path(tmp)
            cases = [enrich_case(base, c, args, workdir) for c in args.concurrency]
            cases += follow_cases(base, args, workdir)
    finally:
        assert site.stdin is not None
        site.stdin.close()
        site.wait(timeout=30)
    summary = report(cases, args, env)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    result = {"args": {k: str(v) for k, v in vars(args).items()}, "env": env, "summary": summary}
    result["cases"] = [asdict(case) | {"ok": case.ok} for case in cases]
    path = args.results_dir / f"bench_web-{stamp}-{args.pages}p.json"
    path.write_text(json.dumps(result, indent=2))
    print(f"results: {path}")
    return 0 if all(case.ok for case in cases) else 1


if __name__ == "__main__":
    raise SystemExit(main())
