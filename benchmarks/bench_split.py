#!/usr/bin/env python3
"""Split benchmark: N URLs with an image each, from JSON lines into sitemaps of 50,000 URLs and an index.

Generates (deterministically, into a temporary directory under $TMPDIR, deleted afterwards) a JSON lines
file of N entries, each with a lastmod and one image, then runs, each in a fresh process:

* ``feedmap convert IN.jsonl -t sitemap -o OUT/ --base-url URL`` (repeated URLs merged, the default);
* the same with ``--dedupe first`` (repeats dropped as they stream by: no merge);
* the splitting engine alone (``feedmap._split.split_document`` on entries made in the process: what the
  writer costs without reading JSON lines);
* npm ``sitemap``'s ``SitemapAndIndexStream`` (limit 50,000) reading the same JSON lines, when ``node`` is on
  the PATH and can ``require("sitemap")`` (``--node-path DIR`` adds a ``node_modules`` folder's parent to
  NODE_PATH; ``npm install sitemap`` there first).

It prints a markdown table: wall time (the whole process, interpreter start included), peak RSS of the
process (its ``VmHWM``), files written.

    python benchmarks/bench_split.py                          # 1,000,000 URLs (20 files + index)
    python benchmarks/bench_split.py --urls 200000 --node-path /tmp/npm-sitemap
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BASE = "https://bench.example/sitemaps/"

#: feedmap's CLI in-process, then the process's peak RSS (VmHWM) on stderr.
_FEEDMAP = """
import sys
from feedmap.cli import main
code = main(sys.argv[1:])
status = open("/proc/self/status").read().splitlines()
print(next(line for line in status if line.startswith("VmHWM:")), file=sys.stderr)
sys.exit(code)
"""

#: The splitting engine alone, on entries made in the process.
_ENGINE = """
import sys
from feedmap import Entry, Image, Options, W3CDate
from feedmap._context import Context
from feedmap._errors import Reporter
from feedmap._model import Document
from feedmap import _split
count, out, base = int(sys.argv[1]), sys.argv[2], sys.argv[3]
dates = [W3CDate.parse(f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}") for i in range(336)]
entries = (
    Entry(loc=f"https://bench.example/p/{i}", lastmod=dates[i % 336], images=(Image(loc=f"https://bench.example/i/{i}.jpg"),))
    for i in range(count)
)
ctx = Context(reporter=Reporter(), options=Options(base_url=base))
_split.split_document(Document(entries=entries), _split.layout("sitemap", out, ctx), ctx)
status = open("/proc/self/status").read().splitlines()
print(next(line for line in status if line.startswith("VmHWM:")), file=sys.stderr)
"""

#: npm sitemap's SitemapAndIndexStream on the same JSON lines.
_NODE = r"""
const fs = require("fs"), path = require("path"), readline = require("readline");
const { SitemapAndIndexStream, SitemapStream } = require("sitemap");
const [input, dir, base] = process.argv.slice(2);
const sms = new SitemapAndIndexStream({
  limit: 50000,
  getSitemapStream: (i) => {
    const stream = new SitemapStream();
    const name = `sitemap-${i}.xml`;
    const out = fs.createWriteStream(path.join(dir, name));
    stream.pipe(out);
    return [base + name, stream, out];
  },
});
const index = fs.createWriteStream(path.join(dir, "sitemap_index.xml"));
sms.pipe(index);
index.on("finish", () => {
  const line = fs.readFileSync("/proc/self/status", "utf8").split("\n").find((l) => l.startsWith("VmHWM:"));
  console.error(line);
});
(async () => {
  const lines = readline.createInterface({ input: fs.createReadStream(input), crlfDelay: Infinity });
  for await (const line of lines) {
    const entry = JSON.parse(line);
    const item = { url: entry.loc, lastmod: entry.lastmod, img: entry.images.map((image) => ({ url: image.loc })) };
    if (!sms.write(item)) await new Promise((resolve) => sms.once("drain", resolve));
  }
  sms.end();
})();
"""


def generate(path: Path, count: int) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for number in range(count):
            entry = {
                "loc": f"https://bench.example/p/{number}",
                "lastmod": f"2024-{1 + number % 12:02d}-{1 + number % 28:02d}",
                "images": [{"loc": f"https://bench.example/i/{number}.jpg"}],
            }
            out.write(json.dumps(entry) + "\n")


def _run(command: list[str], out: Path, env: dict[str, str] | None = None) -> tuple[float, int, int]:
    """(wall seconds, peak RSS KiB, files written) of one command writing into ``out``."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env, cwd=REPO)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    peak = next((line.split()[1] for line in done.stderr.splitlines() if line.startswith("VmHWM:")), "0")
    return wall, int(peak), len(os.listdir(out))


def _node(node_path: str | None) -> dict[str, str] | None:
    """The environment to run npm sitemap in, or None when node or the package is missing."""
    if shutil.which("node") is None:
        return None
    env = dict(os.environ)
    if node_path:
        env["NODE_PATH"] = str(Path(node_path) / "node_modules")
    found = subprocess.run(["node", "-e", "require('sitemap')"], capture_output=True, env=env, check=False)
    return env if found.returncode == 0 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=1_000_000, help="entries to split (default: 1,000,000)")
    parser.add_argument("--node-path", metavar="DIR", help="a folder holding node_modules/sitemap")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="feedmap-split-") as folder:
        work = Path(folder)
        source = work / "in.jsonl"
        generate(source, args.urls)
        size = f"--max-bytes={max(source.stat().st_size * 2, 100 << 20)}"
        out = work / "out"
        convert = [sys.executable, "-c", _FEEDMAP, "convert", str(source), size, "-t", "sitemap", "-o", f"{out}/"]
        cases = [
            ("feedmap convert -o DIR/ (merged)", [*convert, "--base-url", BASE, "-q"], None),
            ("feedmap convert -o DIR/ --dedupe first", [*convert, "--base-url", BASE, "--dedupe", "first", "-q"], None),
            ("feedmap._split engine alone", [sys.executable, "-c", _ENGINE, str(args.urls), f"{out}/", BASE], None),
        ]
        env = _node(args.node_path)
        if env is not None:
            script = work / "split.js"
            script.write_text(_NODE, encoding="utf-8")
            cases.append(("npm sitemap SitemapAndIndexStream", ["node", str(script), str(source), str(out), BASE], env))
        print(f"{args.urls:,} URLs with one image each ({source.stat().st_size / 1e6:.1f} MB of JSON lines)\n")
        print("| case | wall s | peak RSS MiB | files |")
        print("|---|---:|---:|---:|")
        for label, command, environment in cases:
            wall, peak, files = _run(command, out, environment)
            print(f"| {label} | {wall:.2f} | {peak / 1024:.1f} | {files} |", flush=True)
        if env is None:
            print("\n(npm sitemap not measured: node or its sitemap package not found; see --node-path)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
