#!/usr/bin/env python3
"""The analysts' outputs at a million URLs (issue 21): is the peak memory of ``feedmap report`` and of ``-t
parquet`` (and ``-t csv``) flat in the number of URLs, as ``-t text``'s is?

Generates into a temporary directory (under $TMPDIR, deleted afterwards), with bench_sticky.py's generator, N URLs
(a lastmod and one image each) as one JSON lines file, at two sizes (default 100,000 and 1,000,000), and runs on
each, every run in a fresh process (``feedmap.cli.main`` in-process, then its own peak RSS, ``VmHWM``, as
bench_sticky.py's child):

  report   -- ``feedmap report IN -o OUT.html`` (reads the input twice: the counts, then validate's checks);
  parquet  -- ``feedmap convert IN -t parquet -o OUT.parquet`` (a row group written at a time);
  csv      -- ``feedmap convert IN -t csv -o OUT.csv``;
  text     -- ``feedmap convert IN -t text -o OUT.txt``: the baseline, a plain streaming read and write.

Per run: wall time of the whole process, CPU time (user and system, ``RUSAGE_CHILDREN``), peak RSS, and the check
that the output holds the N URLs (report: its Totals card "URLs" says N; parquet: pyarrow's row count; csv: N rows
after the header, read by the csv module; text: N lines).  Then a second table per case: peak RSS at the two
sizes, growth per million URLs, "flat" when the peak at the larger size is within ``--bound`` percent (default
15) of the peak at the smaller, and the growth beyond the text baseline's.  The baseline grows too, up to a cap:
every convert and report remembers the URLs it has seen to report repeats (``SeenKeys``: a dict of 250,000 keys,
then a compiled table of about 40 bytes a key up to 64 MiB, about 1.5 million keys, then SQLite on disk), so up
to about 1.5 million URLs the peak grows by some 60 MiB per million and stops there; what a case grows beyond
the baseline is its own.  Exits 1 when an output is wrong (not when a case is not flat: that is the finding to
read).

    python benchmarks/bench_analysts.py                              # 100,000 and 1,000,000 URLs (minutes)
    python benchmarks/bench_analysts.py --sizes 10000 100000         # a quicker look
    python benchmarks/bench_analysts.py --cases report text --markdown /tmp/analysts.md
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench_sticky import generate, run_feedmap  # the script's folder is first on sys.path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SIZES = (100_000, 1_000_000)
#: The cases: name, the command after ``feedmap``, and the output's suffix.
CASES: dict[str, tuple[str, ...]] = {
    "report": ("report",),
    "parquet": ("convert", "-t", "parquet"),
    "csv": ("convert", "-t", "csv"),
    "text": ("convert", "-t", "text"),
}
SUFFIXES = {"report": "html", "parquet": "parquet", "csv": "csv", "text": "txt"}
_URLS_CARD = re.compile(r"<dt>URLs</dt><dd>([\d,]+)</dd>")


@dataclass
class Run:
    case: str
    urls: int
    wall: float
    cpu: float
    rss_mib: float
    found: int | None
    note: str

    @property
    def ok(self) -> bool:
        return self.found == self.urls


def run_case(case: str, source: Path, out: Path) -> tuple[float, float, float, str]:
    """Wall and CPU seconds, peak RSS in MiB and the last line of stderr of one ``feedmap`` run."""
    argv = [*CASES[case][:1], str(source), *CASES[case][1:], "-o", str(out)]
    wall, cpu, peak, lines = run_feedmap(argv)
    last = next((line for line in reversed(lines) if line and not line.startswith("VmHWM:")), "")
    return wall, cpu, peak / 1024, last


def _report_urls(path: Path) -> int | None:
    match = _URLS_CARD.search(path.read_text(encoding="utf-8"))
    return int(match[1].replace(",", "")) if match else None


def _parquet_rows(path: Path) -> int | None:
    import pyarrow.parquet as pq

    return int(pq.ParquetFile(path).metadata.num_rows)


def _csv_rows(path: Path) -> int | None:
    with open(path, encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle)
        header = next(rows, None)
        if header is None or "loc" not in header:
            return None
        return sum(1 for _row in rows)


def _text_lines(path: Path) -> int | None:
    with open(path, "rb") as handle:
        return sum(1 for line in handle if line.strip())


COUNTERS: dict[str, Callable[[Path], int | None]] = {
    "report": _report_urls,
    "parquet": _parquet_rows,
    "csv": _csv_rows,
    "text": _text_lines,
}


def measure(sizes: Sequence[int], cases: Sequence[str]) -> list[Run]:
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="bench-analysts-") as scratch:
        root = Path(scratch)
        for urls in sizes:
            source = root / f"urls-{urls}.jsonl"
            print(f"generating {urls:,} URLs...", file=sys.stderr, flush=True)
            generate(source, urls, text=False)
            for case in cases:
                out = root / f"out-{urls}.{SUFFIXES[case]}"
                wall, cpu, rss, last = run_case(case, source, out)
                found = COUNTERS[case](out)
                runs.append(Run(case, urls, wall, cpu, rss, found, last))
                print(f"  {case}: {wall:.1f} s, {rss:.0f} MiB, {found} URLs", file=sys.stderr, flush=True)
                out.unlink()
            source.unlink()
    return runs


def _commit() -> str:
    command = ["git", "rev-parse", "--short", "HEAD"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    return done.stdout.strip() or "unknown"


def _load() -> str:
    return "/".join(f"{value:.2f}" for value in os.getloadavg())


def tables(runs: Sequence[Run], sizes: Sequence[int], bound: float) -> str:
    """The two markdown tables: every run, then each case's growth between the smallest and the largest size."""
    lines = [
        "| URLs | case | wall (s) | CPU (s) | peak RSS (MiB) | output |",
        "|---:|---|---:|---:|---:|---|",
    ]
    for run in runs:
        check = f"{run.urls:,} URLs" if run.ok else f"WRONG: {run.found} URLs"
        lines.append(f"| {run.urls:,} | {run.case} | {run.wall:.1f} | {run.cpu:.1f} | {run.rss_mib:.0f} | {check} |")
    small, large = min(sizes), max(sizes)
    peaks = {(run.case, run.urls): run.rss_mib for run in runs}
    cases = [
        case for case in dict.fromkeys(run.case for run in runs) if (case, small) in peaks and (case, large) in peaks
    ]
    if small == large or not cases:
        return "\n".join(lines) + "\n"
    per_million = {case: (peaks[case, large] - peaks[case, small]) / ((large - small) / 1_000_000) for case in cases}
    lines += [
        "",
        f"| case | peak RSS at {small:,} (MiB) | at {large:,} (MiB) | growth per million URLs (MiB) | growth "
        f"| flat (within {bound:g}%) | growth beyond text's (MiB per million) |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for case in cases:
        low, high = peaks[case, small], peaks[case, large]
        growth = 100 * (high - low) / low
        beyond = f"{per_million[case] - per_million['text']:+.1f}" if "text" in per_million else "-"
        flat = "yes" if growth <= bound else "NO"
        lines.append(
            f"| {case} | {low:.0f} | {high:.0f} | {per_million[case]:+.1f} | {growth:+.0f}% | {flat} | {beyond} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES), help="URLs of each size")
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES), help="the cases to run")
    parser.add_argument("--bound", type=float, default=15.0, help="growth in %% still called flat (default: 15)")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    args = parser.parse_args()
    load_before = _load()
    started = dt.datetime.now(dt.timezone.utc)
    runs = measure(args.sizes, args.cases)
    table = tables(runs, args.sizes, args.bound)
    head = (
        f"feedmap report / parquet / csv / text at {', '.join(f'{size:,}' for size in args.sizes)} URLs (JSON lines, "
        f"a lastmod and an image each), one run each in a fresh process; {started:%Y-%m-%d %H:%M} UTC, commit "
        f"{_commit()}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load_before} before / "
        f"{_load()} after\n"
    )
    text = f"{head}\n{table}"
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text, encoding="utf-8")
    wrong = [run for run in runs if not run.ok]
    for run in wrong:
        print(f"{run.case} at {run.urls:,} URLs: the output holds {run.found} URLs ({run.note})", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
