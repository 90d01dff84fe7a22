#!/usr/bin/env python3
"""The memory of repeated URLs (issue 19, round 3): ``SeenKeys.add_new`` over distinct URLs, each twin against a set.

    python benchmarks/bench_seen_keys.py                    # 1,000,000 URLs, 3 runs of each case
    python benchmarks/bench_seen_keys.py --urls 2000000 --repeat 5

Each case runs in a fresh process, ``--repeat`` times (the median is shown), over the same URLs of about 70
characters (``https://www.example.com/sectionN/page-N-with-some-longer-path?x=N``), each added once:

* set: ``if url not in seen: seen.add(url)``, the floor;
* compiled: ``SeenKeys.add_new(url, n)``, the compiled twin (dict, then the table, its texts past 16 MiB in a
  scratch file, then SQLite past 64 MiB of table);
* pure: the same under ``FEEDMAP_PURE=1`` (dict, then SQLite behind a Bloom filter).

The time is that of the adds and of reading the values back once (``values()``, as a merge does); peak RSS is
the child's ``VmHWM`` (``/proc/self/status``) at its exit, the URLs' own list included (the same in each case).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = """
import sys, time
count, case = int(sys.argv[1]), sys.argv[2]
urls = [f"https://www.example.com/section{i % 97}/page-{i}-with-some-longer-path?x={i * 7}" for i in range(count)]
start = time.perf_counter()
if case == "set":
    seen = set()
    for url in urls:
        if url not in seen:
            seen.add(url)
    values = len(seen)
else:
    from feedmap._io.seen_keys import SeenKeys
    keys = SeenKeys()
    add_new = keys.add_new
    for number, url in enumerate(urls):
        add_new(url, number)
    values = sum(1 for _ in keys.values())
    keys.close()
elapsed = time.perf_counter() - start
assert values == count
peak = 0
with open("/proc/self/status") as status:
    for line in status:
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) // 1024
print(elapsed, peak)
"""


def _run(count: int, case: str) -> tuple[float, int]:
    env = dict(os.environ)
    env.pop("FEEDMAP_PURE", None)
    if case == "pure":
        env["FEEDMAP_PURE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(count), case], capture_output=True, text=True, env=env, check=True, cwd=REPO
    )
    elapsed, peak = done.stdout.split()
    return float(elapsed), int(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cases", nargs="+", default=["set", "compiled", "pure"])
    args = parser.parse_args()
    floor = None
    print(f"{args.urls:,} distinct URLs, add_new each, then values(); median of {args.repeat}")
    for case in args.cases:
        runs = [_run(args.urls, case) for _ in range(args.repeat)]
        median = statistics.median(elapsed for elapsed, _ in runs)
        floor = median if case == "set" else floor
        ratio = f"{median / floor:5.1f}x the set" if floor else ""
        print(f"{case:>9}: {median:7.3f} s  peak {max(peak for _, peak in runs):5d} MiB  {ratio}")


if __name__ == "__main__":
    main()
