#!/usr/bin/env python3
"""The nightly republish of a split set (issue 21): one URL removed from the middle and ten added, each URL kept in
its file (the default) against the fresh cut every run made before (``--rebalance``).

Generates into a temporary directory (under $TMPDIR, deleted afterwards), with a fixed seed, N URLs (a lastmod and
one image each) as JSON lines (or, with ``--text``, as a text sitemap), writes them once with ``feedmap convert IN
-o DIR/ --base-url URL`` (files of 50,000 URLs), then the next night's input: the URL at N/2 removed, ten new URLs
(a newer lastmod) at the end.  That input is written into two copies of DIR, each in a fresh process: with
``--rebalance`` (every file after the removed URL changes) and without (the file that held it and the last
file change).  Prints a markdown table: wall time of the whole process, its peak RSS (``VmHWM``, read at exit),
CPU time (user and system) and the run's last line (files written, unchanged, removed), the best of
``--repeat`` runs of each night; checks that both copies hold every URL once, and
that the kept run rewrote at most two files and the index.  Exits 1 when a result is wrong.

    python benchmarks/bench_sticky.py                   # 1,000,000 URLs (a few minutes)
    python benchmarks/bench_sticky.py --urls 2000000    # the issue's two million
    python benchmarks/bench_sticky.py --urls 100000 --text
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BASE = "https://bench.example/maps/"

#: The child: ``feedmap convert`` in-process, then its own peak RSS (as bench_diff.py's child).
CHILD = """
import sys
from feedmap.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
with open("/proc/self/status", encoding="ascii") as status:
    print(next(line for line in status if line.startswith("VmHWM:")), file=sys.stderr, end="")
sys.exit(code)
"""


def _line(index: int, day: int, text: bool) -> str:
    loc = f"https://bench.example/page/{index}/item-{index * 7919 % 100_003}"
    if text:
        return loc + "\n"
    record = {"loc": loc, "lastmod": f"2024-{1 + day // 28:02d}-{1 + day % 28:02d}", "images": [{"loc": loc + ".jpg"}]}
    return json.dumps(record) + "\n"


def generate(path: Path, urls: int, text: bool, *, removed: int | None = None, added: int = 0) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(_line(index, index % 300, text) for index in range(urls) if index != removed)
        out.writelines(_line(urls + index, 301, text) for index in range(added))


def run_feedmap(argv: list[str]) -> tuple[float, float, int, list[str]]:
    """Wall and CPU seconds (user and system), peak RSS in KiB and the lines of stderr of ``feedmap ARGV`` in a
    fresh process (:data:`CHILD`); exits when it fails (bench_analysts.py runs its cases with it too)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=REPO, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if done.returncode != 0:
        raise SystemExit(f"feedmap {' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")
    lines = done.stderr.splitlines()
    peak = next((line.split()[1] for line in lines if line.startswith("VmHWM:")), "0")
    return wall, cpu, int(peak), lines


def convert(source: Path, folder: Path, *extra: str) -> tuple[float, float, int, str]:
    """Wall and CPU seconds (user and system), peak RSS in MiB and the last line of one ``feedmap convert -o
    DIR/`` run."""
    argv = ["convert", str(source), "-o", f"{folder}/", "--base-url", BASE, "-t", "sitemap", *extra]
    wall, cpu, peak, lines = run_feedmap(argv)
    last = next((line for line in reversed(lines) if line.startswith("feedmap: wrote")), "")
    return wall, cpu, peak // 1024, last


def _locs(folder: Path) -> list[str]:
    found: list[str] = []
    for path in sorted(folder.glob("sitemap-*.xml")):
        found += re.findall(r"<url><loc>([^<]+)</loc>", path.read_text(encoding="utf-8"))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=1_000_000, help="URLs of the first run (default: 1,000,000)")
    parser.add_argument("--text", action="store_true", help="a text sitemap as input (the text lane)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each night (the best times are shown)")
    args = parser.parse_args()
    suffix = ".txt" if args.text else ".jsonl"
    rows = []
    ok = True
    with tempfile.TemporaryDirectory(prefix="bench-sticky-") as scratch:
        root = Path(scratch)
        first, night = root / f"first{suffix}", root / f"night{suffix}"
        generate(first, args.urls, args.text)
        generate(night, args.urls, args.text, removed=args.urls // 2, added=10)
        wall, cpu, rss, last = convert(first, root / "out")
        rows.append(("first run (fresh cut)", wall, cpu, rss, last))
        for how, extra in (("nightly, `--rebalance` (before: a fresh cut)", ["--rebalance"]), ("nightly, kept", [])):
            runs = []
            for _ in range(args.repeat):
                folder = root / ("fresh" if extra else "kept")
                shutil.rmtree(folder, ignore_errors=True)
                shutil.copytree(root / "out", folder)
                runs.append(convert(night, folder, *extra))
                locs = _locs(folder)
                if len(locs) != len(set(locs)) or len(locs) != args.urls - 1 + 10:
                    print(f"{how}: {len(locs):,} URLs written, {len(set(locs)):,} distinct", file=sys.stderr)
                    ok = False
            best = (min(run[0] for run in runs), min(run[1] for run in runs), max(run[2] for run in runs))
            rows.append((how, *best, runs[-1][3]))
        written = re.search(r"(\d+) files? written", rows[-1][4])
        if written is None or int(written[1]) > 3:
            print(f"the kept run rewrote more than two files and the index: {rows[-1][4]}", file=sys.stderr)
            ok = False
    size = "text sitemap" if args.text else "JSON lines, a lastmod and an image each"
    print(f"{args.urls:,} URLs ({size}), files of 50,000; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    print(f"best of {args.repeat} run(s) of each night\n")
    print("| run | wall (s) | CPU (s) | peak RSS (MiB) | last line |")
    print("|---|---:|---:|---:|---|")
    for how, wall, cpu, rss, last in rows:
        print(f"| {how} | {wall:.1f} | {cpu:.1f} | {rss} | {last.split(': ', 2)[-1]} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
