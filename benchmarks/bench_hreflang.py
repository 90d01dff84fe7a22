#!/usr/bin/env python3
"""``feedmap validate`` checking hreflang return links across many sitemaps (issue 22: "memory bounded on large
sites"): is its peak memory flat in the number of pages?

Generates into a temporary directory (under $TMPDIR, deleted afterwards) N pages in sitemaps of 50,000 URLs: page
``/en/K`` and page ``/de/K`` each list both as hreflang alternates (Google's "Localized versions of your page":
each page names itself and the other), the English pages in the first half of the files and the German ones in
the second, so every return link is checked across files.  One German page in a hundred leaves out its link to the
English one: its English page's link then has no return link (``alternate-no-return``, at the English page's
link).  Each size is validated in a fresh process (``feedmap validate FILE...``, bench_sticky.py's child: its own
peak RSS, ``VmHWM``), and the script checks the count of ``alternate-no-return`` the run reports against the
pages generated without it (exit 1 when they differ).  Then: peak RSS at each size, growth per million pages,
"flat" when the peak at the largest size is within ``--bound`` percent (default 15) of the smallest's.

    python benchmarks/bench_hreflang.py                         # 100,000 and 1,000,000 pages (minutes)
    python benchmarks/bench_hreflang.py --sizes 10000 100000    # a quicker look
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_sticky import CHILD  # the script's folder is first on sys.path

REPO = Path(__file__).resolve().parent.parent
PER_FILE = 50_000
SITE = "https://www.example.com"
_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
)
#: The finding past the first 1,000 missing return links counts the rest ("and N more pages named as ...").
_MORE = re.compile(r"^and ([\d,]+) more ")


def _page(language: str, number: int, *, with_english: bool = True) -> str:
    links = [("en", f"{SITE}/en/{number}"), ("de", f"{SITE}/de/{number}")]
    if not with_english:
        links = links[1:]
    alternates = "".join(f'<xhtml:link rel="alternate" hreflang="{lang}" href="{href}"/>' for lang, href in links)
    return f"<url><loc>{SITE}/{language}/{number}</loc>{alternates}</url>\n"


def generate(folder: Path, pages: int) -> tuple[list[Path], int]:
    """The sitemaps of ``pages`` pages (half English, half German), and the German pages that leave out the
    English one (each an English link without its return)."""
    half = pages // 2
    files: list[Path] = []
    missing = 0
    for language in ("en", "de"):
        for start in range(0, half, PER_FILE):
            path = folder / f"{language}-{start // PER_FILE:04d}.xml"
            with path.open("w", encoding="utf-8") as out:
                out.write(_HEAD)
                for number in range(start, min(start + PER_FILE, half)):
                    cut = language == "de" and number % 100 == 7
                    missing += cut
                    out.write(_page(language, number, with_english=not cut))
                out.write("</urlset>\n")
            files.append(path)
    return files, missing


def validate(files: list[Path]) -> tuple[float, float, int, int]:
    """Wall and CPU seconds, peak RSS in KiB of ``feedmap validate --json FILES`` in a fresh process (bench_sticky's
    child), and the missing return links it reports: the findings listed, plus those the last one counts."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    argv = [sys.executable, "-c", CHILD, "validate", "--json", *map(str, files)]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: errors found, which this data has none of (checked below)
        raise SystemExit(f"feedmap validate failed ({done.returncode}):\n{done.stderr}")
    peak = next((line.split()[1] for line in done.stderr.splitlines() if line.startswith("VmHWM:")), "0")
    found = 0
    for finding in json.loads(done.stdout)["findings"]:
        if finding["code"] != "alternate-no-return":
            raise SystemExit(f"an unexpected finding: {finding}")
        more = _MORE.match(finding["message"])
        found += int(more.group(1).replace(",", "")) if more else 1
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, int(peak), found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000], help="pages per run")
    parser.add_argument("--bound", type=float, default=15.0, help="flat: within this percent (default 15)")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    args = parser.parse_args(argv)
    rows: list[tuple[int, float, float, int, int, int]] = []
    wrong = False
    for size in args.sizes:
        with tempfile.TemporaryDirectory(prefix="feedmap-bench-hreflang-") as temporary:
            files, missing = generate(Path(temporary), size)
            wall, cpu, peak, found = validate(files)
            wrong |= found != missing
            rows.append((size, wall, cpu, peak // 1024, missing, found))
            print(
                f"{size:,} pages: {wall:.1f} s, {cpu:.1f} s CPU, {peak // 1024} MiB, {found:,} of {missing:,} "
                "missing return links reported",
                file=sys.stderr,
            )
    table = [
        "| pages | files | wall (s) | CPU (s) | peak RSS (MiB) | return links left out | reported |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    table += [
        f"| {size:,} | {-(-size // 2 // PER_FILE) * 2} | {wall:.1f} | {cpu:.1f} | {peak} | {missing:,} | {found:,} |"
        for size, wall, cpu, peak, missing, found in rows
    ]
    first, last = rows[0], rows[-1]
    growth = (last[3] - first[3]) / ((last[0] - first[0]) / 1e6) if last[0] != first[0] else 0.0
    flat = last[3] <= first[3] * (1 + args.bound / 100)
    load = " ".join(f"{one:.2f}" for one in os.getloadavg())
    table.append("")
    table.append(
        f"Peak growth {growth:+.1f} MiB per million pages; flat (within {args.bound:g}%): {'yes' if flat else 'NO'}. "
        f"{dt.date.today()}, commit {_commit()}, load after {load}."
    )
    text = "\n".join(table) + "\n"
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text, encoding="utf-8")
    return 1 if wrong else 0


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return done.stdout.strip() or "?"


if __name__ == "__main__":
    raise SystemExit(main())
