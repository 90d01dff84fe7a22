#!/usr/bin/env python3
"""Scale benchmark (issue 11): dedupe, diff and split of N generated URLs, in one run, as one markdown table.

    python benchmarks/bench_scale.py                        # 1,000,000 URLs (some minutes)
    python benchmarks/bench_scale.py --urls 20000           # a quick run
    python benchmarks/bench_scale.py --no-npm               # without npm sitemap
    python benchmarks/bench_scale.py --compare-in-memory    # also dedupe with every key in memory (no spill)

Generates into a temporary directory (deleted afterwards), with fixed seeds:

* N ``<url>`` entries (a ``<lastmod>`` each) in sitemaps of 50,000, 10% of them repeating an earlier loc;
  ``feedmap convert SITEMAPS... -t text --dedupe newest`` (and ``first``), and ``-t sitemap`` (which merges
  repeats by default), each checked to write every distinct URL once;
* two indexes of N URLs differing in 1% (``benchmarks/bench_diff.py``'s data): ``feedmap diff``;
* N URLs with one or two images each as JSON lines: ``feedmap convert IN.jsonl -t sitemap -o DIR/
  --base-url URL`` (the splitting writer: files of 50,000 URLs and an index; repeated URLs merged, the
  default) and the same with ``--dedupe first`` (repeats dropped as they stream by), and npm ``sitemap``'s
  ``SitemapAndIndexStream`` reading the same JSON lines (``benchmarks/npm_sitemap_split.js``) when Node is
  installed; npm ``sitemap`` is installed into ``benchmarks/.npm-sitemap/`` (git-ignored) on first use;
* the same URLs and images as one XML sitemap (a single file far over 50,000 URLs), split by ``feedmap
  convert`` and by ``SitemapAndIndexStream`` fed by npm ``sitemap``'s own ``XMLToSitemapItemStream``;
* N big entries (``--big-entries``, 300 by default: a 900 KB description each) as JSON lines, converted to
  JSON lines, RSS and a sitemap, with ``--sort loc`` and ``--dedupe first``: memory bounded by the byte
  budgets of the writers' batches, the merge's spool and the sort's runs, whatever the entries' size;
* the same split with the entries made in the process, no file read (``_scale_data.made``): feedmap's
  splitting engine fed ``Entry`` objects (no repeat check, as npm has none) and ``feedmap.split`` (the
  library call: repeats merged), against ``SitemapAndIndexStream`` fed JS objects (``--made=N``): the
  splitting cost without the reading cost.

Each case runs in a fresh process: wall time of the whole process (interpreter start included) and the
process's own peak RSS (``VmHWM`` of ``/proc/self/status``, read at its exit).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import bench_diff
from _scale_data import PER_FILE, write_images, write_images_xml, write_repeats

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
NPM_DIR = HERE / ".npm-sitemap"
NPM_PACKAGE = "sitemap@9"
NPM_SCRIPT = HERE / "npm_sitemap_split.js"
BASE = "https://bench.example/sitemaps/"
IN_MEMORY_ENV = "FEEDMAP_BENCH_IN_MEMORY"
NOT_INSTALLED = "n/a (splitting writer not installed)"

#: Entries made in the process (``_scale_data.made``) split into DIR by the engine alone (argv ``engine``,
#: no repeat check) or by ``feedmap.split`` (argv ``split``), then the process's own peak RSS on stderr.
MADE_CHILD = f"""
import sys
sys.path.insert(0, {str(HERE)!r})
import feedmap
from feedmap import Entry, Image, W3CDate
from _scale_data import made
mode, count, out, base = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def entries():
    for index in range(count):
        loc, lastmod, images = made(index)
        yield Entry(loc=loc, lastmod=W3CDate(lastmod), images=tuple(Image(loc=image) for image in images))
options = feedmap.Options(base_url=base)
if mode == "engine":
    from feedmap._publish import split as _split
    from feedmap._core.context import Context
    from feedmap._core.errors import Reporter
    from feedmap._core.model import Document
    ctx = Context(reporter=Reporter(), options=options)
    _split.split_document(Document(entries=entries()), _split.layout("sitemap", out, ctx), ctx)
else:
    feedmap.split(entries(), out, options=options)
with open("/proc/self/status", encoding="ascii") as status:
    print(next(line for line in status if line.startswith("VmHWM:")), file=sys.stderr, end="")
"""

#: A feedmap command in-process, optionally with another dedupe cap, then its own peak RSS on stderr.
CHILD = f"""
import os, sys
if os.environ.get("{IN_MEMORY_ENV}"):
    import feedmap._io.seen_keys
    feedmap._io.seen_keys.IN_MEMORY = int(os.environ["{IN_MEMORY_ENV}"])
from feedmap.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
with open("/proc/self/status", encoding="ascii") as status:
    print(next(line for line in status if line.startswith("VmHWM:")), file=sys.stderr, end="")
sys.exit(code)
"""


@dataclass
class Row:
    case: str
    reads: str
    urls: int
    wall: float | None
    rss_mib: float | None
    result: str
    ok: bool = True

    def markdown(self) -> str:
        wall = f"{self.wall:.1f}" if self.wall is not None else "-"
        rss = f"{self.rss_mib:.0f}" if self.rss_mib is not None else "-"
        return f"| {self.case} | {self.reads} | {self.urls:,} | {wall} | {rss} | {self.result} |"


@dataclass
class Run:
    wall: float
    rss_mib: float
    code: int
    stdout: str
    stderr: str


def run_feedmap(argv: list[str], in_memory: int | None = None, child: str = CHILD) -> Run:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
    if in_memory is not None:
        env[IN_MEMORY_ENV] = str(in_memory)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", child, *argv], cwd=REPO, env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    peak = next((line.split()[1] for line in done.stderr.splitlines() if line.startswith("VmHWM:")), "0")
    return Run(wall, int(peak) / 1024, done.returncode, done.stdout, done.stderr)


def _count(path: Path, marker: bytes) -> int:
    """How often ``marker`` occurs in the file, read by the megabyte."""
    count, overlap, tail = 0, len(marker) - 1, b""
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            block = tail + chunk
            count += block.count(marker)
            tail = block[len(block) - overlap :] if overlap else b""  # shorter than a marker: none counted twice
    return count


def _megabytes(paths: list[Path]) -> str:
    return f"{sum(path.stat().st_size for path in paths) / 1e6:,.0f} MB"


def dedupe_rows(root: Path, urls: int, compare: bool) -> list[Row]:
    inputs, distinct = write_repeats(root, urls)
    reads = f"{len(inputs)} sitemap{'s' if len(inputs) != 1 else ''} ({_megabytes(inputs)})"
    cases: list[tuple[str, list[str], bytes]] = [
        ("dedupe newest (`-t text --dedupe newest`)", ["-t", "text", "--dedupe", "newest"], b"\n"),
        ("dedupe first (`-t text --dedupe first`)", ["-t", "text", "--dedupe", "first"], b"\n"),
        ("merge (`-t sitemap`, merges by default)", ["-t", "sitemap", "--max-bytes", "2G"], b"</url>"),
    ]
    rows = []
    for label, options, marker in cases:
        for in_memory in (None, 10**12) if compare else (None,):
            out = root / "dedupe.out"
            run = run_feedmap(["convert", *map(str, inputs), *options, "-o", str(out), "-q"], in_memory)
            written = _count(out, marker) if run.code == 0 else -1
            out.unlink(missing_ok=True)
            ok = run.code == 0 and written == distinct
            result = f"{written:,} distinct written" if ok else f"FAILED (exit {run.code}, {written:,} written)"
            name = label + (", every key in memory" if in_memory else "")
            rows.append(Row(name, reads, urls, run.wall, run.rss_mib, result, ok))
    return rows


BIG_DESCRIPTION = 900_000


def big_entry_rows(root: Path, entries: int) -> list[Row]:
    """``entries`` entries of a 900 KB description each, converted: peak RSS far below the input's size."""
    data = root / "big.jsonl"
    with data.open("w", encoding="utf-8") as out:
        for n in range(entries):
            entry = {"loc": f"https://bench.example/{n}", "description": f"{n:>9}" + "d" * BIG_DESCRIPTION}
            out.write(json.dumps(entry) + "\n")
    reads = f"JSON lines, {entries:,} descriptions of 900 KB ({_megabytes([data])})"
    cases = [
        ("big entries, `-t jsonl`", ["-t", "jsonl"], b"\n"),
        ("big entries, `-t rss` (merges by default)", ["-t", "rss"], b"</item>"),
        ("big entries, `-t sitemap` (merges by default)", ["-t", "sitemap"], b"</url>"),
        ("big entries, `--sort loc -t jsonl`", ["--sort", "loc", "-t", "jsonl"], b"\n"),
        ("big entries, `--dedupe first -t rss`", ["--dedupe", "first", "-t", "rss"], b"</item>"),
    ]
    rows = []
    for label, options, marker in cases:
        out = root / "big.out"
        run = run_feedmap(["convert", str(data), *options, "--max-bytes", "2G", "-o", str(out), "-q"])
        written = _count(out, marker) if run.code == 0 else -1
        out.unlink(missing_ok=True)
        ok = written == entries
        result = f"{written:,} entries written" if ok else f"FAILED (exit {run.code}, {written:,} written)"
        rows.append(Row(label, reads, entries, run.wall, run.rss_mib, result, ok))
    data.unlink()
    return rows


def diff_row(root: Path, urls: int) -> Row:
    site = root / "diff"
    old, new, (added, removed, changed) = bench_diff.generate(site, urls)
    wall, rss, code, out = bench_diff.measure(old, new, site)
    expected = f"{added:,} added, {removed:,} removed, {changed:,} changed, {urls - removed - changed:,} unchanged"
    parts = len(list((site / "old").iterdir()))
    ok = code == 1 and out == expected
    reads = f"2 indexes of {parts} sitemaps"
    shutil.rmtree(site)
    return Row("diff (`feedmap diff OLD NEW --map`)", reads, urls, wall, rss, out if ok else f"FAILED: {out}", ok)


def _split_files(folder: Path) -> str:
    children = [path for path in folder.iterdir() if path.name != "sitemap_index.xml"]
    index = "+ index" if (folder / "sitemap_index.xml").is_file() else "NO INDEX"
    files = f"{len(children)} file{'s' if len(children) != 1 else ''}"
    return f"{files} {index} ({_megabytes(list(folder.iterdir()))})"


def split_feedmap_rows(root: Path, data: Path, urls: int, reads: str) -> list[Row]:
    argv = ["convert", str(data), "-t", "sitemap", "--base-url", BASE, "--max-bytes", "2G", "-q"]
    cases = [
        ("split, feedmap (`convert -t sitemap -o DIR/ --base-url`)", argv),
        ("split, feedmap, `--dedupe first` (no merge)", [*argv, "--dedupe", "first"]),
    ]
    return [
        _split_row(root, label, lambda out, argv=argv: run_feedmap([*argv, "-o", f"{out}/"]), urls, reads)
        for label, argv in cases
    ]


def made_feedmap_rows(root: Path, urls: int) -> list[Row]:
    cases = [
        ("split, feedmap engine fed `Entry` objects (no repeat check)", "engine"),
        ("split, `feedmap.split` fed `Entry` objects (repeats merged)", "split"),
    ]
    return [
        _split_row(
            root,
            label,
            lambda out, mode=mode: run_feedmap([mode, str(urls), str(out), BASE], child=MADE_CHILD),
            urls,
            MADE,
        )
        for label, mode in cases
    ]


MADE = "made in the process"


def _split_row(root: Path, label: str, command: Callable[[Path], Run], urls: int, reads: str) -> Row:
    out = root / "split-feedmap"
    out.mkdir()
    run = command(out)
    absent = ("unrecognized", "is a directory", "no such directory")
    if run.code == 2 and any(phrase in run.stderr for phrase in absent):
        shutil.rmtree(out)
        return Row(label, reads, urls, None, None, NOT_INSTALLED)
    if run.code != 0:
        shutil.rmtree(out)
        return Row(label, reads, urls, run.wall, run.rss_mib, f"FAILED (exit {run.code})", False)
    result = _split_files(out)
    shutil.rmtree(out)
    return Row(label, reads, urls, run.wall, run.rss_mib, result)


def _npm_modules() -> Path | None:
    """npm ``sitemap``'s ``node_modules``, installed into :data:`NPM_DIR` when missing; None if it fails."""
    modules = NPM_DIR / "node_modules"
    if (modules / "sitemap" / "package.json").is_file():
        return modules
    npm = shutil.which("npm")
    if npm is None:
        return None
    command = [npm, "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(NPM_DIR), NPM_PACKAGE]
    NPM_DIR.mkdir(exist_ok=True)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return modules if done.returncode == 0 and (modules / "sitemap").is_dir() else None


def split_npm_row(root: Path, data: Path | None, urls: int, reads: str) -> Row | None:
    """npm sitemap reading ``data``, or fed objects made in the process when None; None without Node."""
    node = shutil.which("node")
    if node is None:
        return None
    fed = "" if data is not None else " fed JS objects"
    label = f"split, npm sitemap `SitemapAndIndexStream`{fed}"
    modules = _npm_modules()
    if modules is None:
        return Row(label, reads, urls, None, None, "n/a (npm install sitemap failed)")
    version = json.loads((modules / "sitemap" / "package.json").read_text(encoding="utf-8"))["version"]
    out = root / "split-npm"
    out.mkdir()
    started = time.perf_counter()
    source = str(data) if data is not None else f"--made={urls}"
    command = [node, str(NPM_SCRIPT), str(modules), source, str(out), BASE, str(PER_FILE)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    label = f"split, npm sitemap {version} `SitemapAndIndexStream`{fed}"
    if done.returncode != 0:
        return Row(label, reads, urls, wall, None, f"FAILED (exit {done.returncode})", False)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    result = _split_files(out)
    shutil.rmtree(out)
    if report["urls"] != urls:  # the peer's result, said as it is: not a failure of this benchmark
        result = f"{result}: only {report['urls']:,} of {urls:,} URLs written"
    return Row(label, reads, urls, wall, report["vmhwm_kib"] / 1024, result)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=1_000_000, help="URLs of each case (default: 1,000,000)")
    parser.add_argument("--no-npm", action="store_true", help="leave out npm sitemap")
    parser.add_argument(
        "--compare-in-memory", action="store_true", help="also run dedupe with every key in memory (no spill)"
    )
    parser.add_argument("--big-entries", type=int, default=300, help="entries of 900 KB (default: 300; 0: none)")
    parser.add_argument("--big-only", action="store_true", help="run the big-entry cases only")
    args = parser.parse_args()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as scratch:
        root = Path(scratch)
        if not args.big_only:
            rows += scale_rows(root, args.urls, compare=args.compare_in_memory, with_npm=not args.no_npm)
        rows += big_entry_rows(root, args.big_entries) if args.big_entries else []
    return _print(rows)


def scale_rows(root: Path, urls: int, *, compare: bool, with_npm: bool) -> list[Row]:
    """The dedupe, diff and split cases of ``urls`` URLs."""
    rows: list[Row] = []
    rows += dedupe_rows(root, urls, compare)
    rows.append(diff_row(root, urls))
    data = root / "images.jsonl"
    images = write_images(data, urls)
    reads = f"JSON lines, {images:,} images ({_megabytes([data])})"
    rows += split_feedmap_rows(root, data, urls, reads)
    peer = split_npm_row(root, data, urls, reads) if with_npm else None
    rows += [peer] if peer is not None else []
    xml = root / "images.xml"
    write_images_xml(data, xml)
    data.unlink()
    xml_reads = f"one XML sitemap, the same URLs and images ({_megabytes([xml])})"
    rows += split_feedmap_rows(root, xml, urls, xml_reads)[:1]
    peer = split_npm_row(root, xml, urls, xml_reads) if with_npm else None
    rows += [peer] if peer is not None else []
    xml.unlink()
    rows += made_feedmap_rows(root, urls)
    made = split_npm_row(root, None, urls, MADE) if with_npm else None
    rows += [made] if made is not None else []
    return rows


def _print(rows: list[Row]) -> int:
    print(f"feedmap scale benchmark: Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}")
    print()
    print("| case | reads | URLs | wall (s) | peak RSS (MiB) | result |")
    print("|---|---|---:|---:|---:|---|")
    for row in rows:
        print(row.markdown())
    return 0 if all(row.ok for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
