#!/usr/bin/env python3
"""Diff benchmark: ``feedmap diff`` of two generated N-URL sitemap indexes differing in 1%.

Generates into a temporary directory (under $TMPDIR) (deleted afterwards) two indexes of files of at most 50,000 URLs
(each URL with a lastmod and one image): NEW is OLD with 0.5% of the lastmods changed, 0.25% of the URLs
removed and as many added.  Then runs ``python -m feedmap diff OLD NEW --map PREFIX=DIR -q`` in a
subprocess and prints a markdown table: URLs, wall time (the whole process, interpreter start included),
peak RSS of the child (its ``VmHWM``), the exit code (1: different) and the
summary line, which is checked against the changes made.

    python benchmarks/bench_diff.py                   # 100,000 URLs
    python benchmarks/bench_diff.py --urls 1000000    # the issue's million
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PREFIX = "https://bench.example/"
PER_FILE = 50_000
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'


def _url(index: int, day: int) -> str:
    loc = f"{PREFIX}page/{index}"
    return (
        f"<url><loc>{loc}</loc><lastmod>2024-{1 + day // 28:02d}-{1 + day % 28:02d}</lastmod>"
        f"<image:image><image:loc>{loc}.jpg</image:loc></image:image></url>\n"
    )


def _write_index(site: Path, name: str, urls: list[tuple[int, int]]) -> Path:
    """``site/NAME/part-N.xml`` and ``site/NAME-index.xml`` naming them as ``PREFIX + NAME/part-N.xml``."""
    (site / name).mkdir(parents=True)
    parts = []
    for start in range(0, len(urls), PER_FILE):
        part = f"{name}/part-{start // PER_FILE + 1}.xml"
        with open(site / part, "w", encoding="utf-8") as out:
            out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n')
            out.writelines(_url(index, day) for index, day in urls[start : start + PER_FILE])
            out.write("</urlset>\n")
        parts.append(part)
    index = site / f"{name}-index.xml"
    children = "".join(f"<sitemap><loc>{PREFIX}{part}</loc></sitemap>\n" for part in parts)
    index.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex {NS}>\n{children}</sitemapindex>\n',
        encoding="utf-8",
    )
    return index


def generate(root: Path, count: int, seed: int = 11) -> tuple[Path, Path, tuple[int, int, int]]:
    """OLD and NEW indexes, and the (added, removed, changed) counts made."""
    rng = random.Random(seed)
    old = [(index, rng.randrange(300)) for index in range(count)]
    picked = rng.sample(range(count), count // 100)
    changed, removed = set(picked[: count // 200]), set(picked[count // 200 :])
    new = [(index, (day + 1) % 300 if index in changed else day) for index, day in old if index not in removed]
    added = [(count + n, 0) for n in range(len(removed))]
    return (
        _write_index(root, "old", old),
        _write_index(root, "new", new + added),
        (len(added), len(removed), len(changed)),
    )


#: The child: ``feedmap diff`` in-process, then its own peak RSS (VmHWM, per process image: unlike ``ru_maxrss``
#: it does not count the parent's pages the child held between fork and exec).
CHILD = """
import sys
from feedmap.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
with open("/proc/self/status", encoding="ascii") as status:
    print(next(line for line in status if line.startswith("VmHWM:")), file=sys.stderr, end="")
sys.exit(code)
"""


def measure(old: Path, new: Path, folder: Path) -> tuple[float, int, int, str]:
    """Wall seconds, peak RSS in MiB, exit code and stdout of one ``feedmap diff`` run."""
    argv = ["diff", str(old), str(new), "-q", "--map", f"{PREFIX}={folder}"]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=REPO, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    peak = next((line.split()[1] for line in done.stderr.splitlines() if line.startswith("VmHWM:")), "0")
    return wall, int(peak) // 1024, done.returncode, done.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=100_000, help="URLs in OLD (default: 100,000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-diff-") as scratch:
        root = Path(scratch)
        old_index, new_index, (added, removed, changed) = generate(root, args.urls)
        wall, rss, code, out = measure(old_index, new_index, root)
    expected = f"{added:,} added, {removed:,} removed, {changed:,} changed, {args.urls - removed - changed:,} unchanged"
    print("| URLs | wall (s) | peak RSS (MiB) | exit | summary |")
    print("|---:|---:|---:|---:|---|")
    print(f"| {args.urls:,} | {wall:.1f} | {rss} | {code} | {out} |")
    if out != expected or code != 1:
        print(f"unexpected result; expected: {expected}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
