#!/usr/bin/env python3
"""Validate benchmark (issue 12): ``feedmap validate`` against reading the same sitemap, time and peak memory.

    python benchmarks/bench_validate.py                    # 50,000 and 400,000 URLs, 3 runs each
    python benchmarks/bench_validate.py --urls 50000 --repeat 5

Generates realistic sitemaps (``_bench_data.generate_sitemap``, the read benchmark's data: every field, one or
two images a URL, some with captions, some URLs percent-encoded) into a temporary directory, then runs each case
in a fresh process, ``--repeat`` times (the median wall time is shown):

* read: ``feedmap.read(path)`` with every entry iterated (the reader's checks and repairs, no writing);
* validate: ``feedmap.validate(path)`` (every rule, streamed on the raw document, repeated URLs held in
  ``SeenKeys``: a dict up to 250,000 keys, then SQLite on disk).

The last column names the codes of the errors found (a file over 50,000 URLs breaks the protocol's
limits: ``too-many-entries``, ``too-many-bytes``).  Peak RSS is the child's own ``VmHWM``
(``/proc/self/status``) read at its exit.  The issue asks for a 50,000-URL file: flat memory, and under twice
the time of reading it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bench_data import generate_sitemap

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

CHILD = """
import sys
import feedmap
mode, path = sys.argv[1], sys.argv[2]
options = feedmap.Options(max_bytes=1 << 31)
codes = set()
if mode == "read":
    with feedmap.read(path, options=options) as doc:
        count = sum(1 for _ in doc.entries)
else:
    report = feedmap.validate(path, options=options)
    count = report.entries
    codes = {finding.code for finding in report.findings if finding.level == feedmap.Level.ERROR}
with open("/proc/self/status", encoding="ascii") as status:
    peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
print(count, peak, ",".join(sorted(codes)) or "-")
"""


def run(mode: str, path: Path) -> tuple[float, int, float, str]:
    """One fresh process: wall seconds, entries, peak RSS in MiB, the codes of the errors found."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(path)], env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{mode} {path.name} failed (exit {done.returncode}): {done.stderr.strip()}")
    count, peak, codes = done.stdout.split()
    return wall, int(count), int(peak) / 1024, codes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--urls", type=int, action="append", help="URLs of a file (repeatable; default 50,000 and 400,000)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each case (default 3; the median is shown)")
    args = parser.parse_args()
    sizes = args.urls or [50_000, 400_000]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-validate-") as scratch:
        for urls in sizes:
            path = Path(scratch) / f"sitemap-{urls}.xml"
            generate_sitemap(path, urls=urls, seed=7, index=1)
            size = path.stat().st_size / 1e6
            results = {}
            for mode in ("read", "validate"):
                runs = [run(mode, path) for _ in range(args.repeat)]
                assert all(count == urls for _, count, _, _ in runs), (mode, runs)
                wall = statistics.median(wall for wall, _, _, _ in runs)
                results[mode] = (wall, max(peak for _, _, peak, _ in runs), runs[0][3])
            (read_wall, read_peak, _), (check_wall, check_peak, errors) = results["read"], results["validate"]
            rows.append(
                f"| {urls:,} URLs ({size:.0f} MB) | {read_wall:.2f} | {read_peak:.0f} | {check_wall:.2f} | "
                f"{check_peak:.0f} | {check_wall / read_wall:.2f} | {errors} |"
            )
    python = sys.version.split()[0]
    print(f"feedmap validate benchmark: Python {python}, {os.cpu_count()} CPUs, median of {args.repeat} runs")
    print()
    print("| file | read (s) | read peak RSS (MiB) | validate (s) | validate peak RSS (MiB) ", end="")
    print("| validate / read | errors |")
    print("|---|---:|---:|---:|---:|---:|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
