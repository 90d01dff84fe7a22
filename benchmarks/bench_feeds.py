#!/usr/bin/env python3
"""Feed benchmark: memory and time of ``feedmap convert FEED -t text`` on a ~100 MB RSS and Atom feed, and of
writing each as RSS and as Atom.

Generates (once, deterministically from ``--seed``) an RSS 2.0 feed and an Atom 1.0 feed of ``--mb``
megabytes each into ``benchmarks/data/`` (git-ignored) and measures, each run in a fresh subprocess:

  (a) raw  -- a plain ``lxml.etree.iterparse`` loop over the items (``tag=item`` / ``{Atom}entry``) that
              takes each item's link, clears the item and its predecessors, and writes the links;
  (b) cli  -- ``python -m feedmap convert FEED -t text -o OUT``;
  (c) write-rss, (d) write-atom -- ``python -m feedmap convert FEED -t rss`` / ``-t atom``: the Atom writer
              (pure Python, its entries held in a spooled file until the feed's updated is known) against the RSS
              one (its compiled feed pass), on the same entries; both outputs must hold every entry.

Peak RSS is the child's ``ru_maxrss`` (``os.wait4``, the per-child form of ``RUSAGE_CHILDREN``); wall
time is the whole process, interpreter start included, best of ``--repeat`` runs.  The target: a 100 MB
feed read in under 150 MB of memory.  The text outputs of (a) and (b) must be identical (exit 1 otherwise).

``--quick`` is a smoke run (feeds of 0.2 MB, one run each).  Results go to ``benchmarks/results/`` as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_DATA = HERE / "data"
DEFAULT_RESULTS = HERE / "results"
GENERATOR_VERSION = 1
DEFAULT_SEED = 20241130
TARGET_MIB = 150
CASE_LABELS = (
    ("raw", "(a) raw lxml iterparse -> text"),
    ("cli", "(b) python -m feedmap convert -t text"),
    ("write-rss", "(c) python -m feedmap convert -t rss"),
    ("write-atom", "(d) python -m feedmap convert -t atom"),
)
ATOM_NS = "http://www.w3.org/2005/Atom"
WORDS = [
    "sale",
    "news",
    "spring",
    "garden",
    "river",
    "north",
    "blue",
    "open",
    "hours",
    "report",
    "city",
    "page",
    "update",
    "guide",
    "market",
]

# ------------------------------------------------------------------------------------------ data generation


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _url(rng: random.Random, index: int) -> str:
    url = f"https://www.example.com/{rng.choice(WORDS)}/{index}-{rng.choice(WORDS)}"
    return url + f"?id={index}&ref={rng.choice(WORDS)}" if rng.random() < 0.3 else url


def _rss_item(rng: random.Random, index: int) -> str:
    url = _escape(_url(rng, index))
    day = 1 + index % 28
    return (
        f"<item><title>{_escape(_sentence(rng, 6))} &amp; more</title><link>{url}</link>"
        f'<guid isPermaLink="true">{url}</guid>'
        f"<description>{_escape(_sentence(rng, 40))} &lt;b&gt;bold&lt;/b&gt;</description>"
        f"<category>{rng.choice(WORDS)}</category><category>{rng.choice(WORDS)}</category>"
        f"<pubDate>Tue, {day:02d} Apr 2024 09:30:00 +0200</pubDate></item>\n"
    )


def _atom_entry(rng: random.Random, index: int) -> str:
    url = _escape(_url(rng, index))
    day = 1 + index % 28
    return (
        f"<entry><title>{_escape(_sentence(rng, 6))}</title>"
        f'<link rel="alternate" type="text/html" href="{url}"/><id>urn:uuid:{index:08d}</id>'
        f"<updated>2024-04-{day:02d}T09:30:00+02:00</updated>"
        f"<summary>{_escape(_sentence(rng, 40))}</summary>"
        f'<category term="{rng.choice(WORDS)}"/></entry>\n'
    )


def generate(path: Path, kind: str, size: int, seed: int) -> int:
    """Write a feed of about ``size`` bytes; returns the number of items."""
    rng = random.Random(f"{seed}-{kind}")
    if kind == "rss":
        head = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>Bench</title>'
            "<link>https://www.example.com/</link><description>Benchmark feed</description>\n"
        )
        tail, item = "</channel></rss>\n", _rss_item
    else:
        head = f'<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="{ATOM_NS}"><title>Bench</title><id>urn:b</id>\n'
        tail, item = "</feed>\n", _atom_entry
    count = 0
    written = len(head)
    with path.open("w", encoding="utf-8", newline="\n") as out:
        out.write(head)
        while written < size:
            block = "".join(item(rng, count + n) for n in range(100))
            out.write(block)
            written += len(block.encode("utf-8"))
            count += 100
        out.write(tail)
    return count


def ensure_data(data_dir: Path, *, size: int, seed: int) -> dict[str, Path]:
    """The two feeds, generated unless the manifest says they are there with these parameters."""
    data_dir.mkdir(parents=True, exist_ok=True)
    manifest_path = data_dir / "feeds-manifest.json"
    wanted = {"version": GENERATOR_VERSION, "size": size, "seed": seed}
    paths = {kind: data_dir / f"bench-{kind}-{size}.xml" for kind in ("rss", "atom")}
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = {}
    if manifest.get("parameters") == wanted and all(
        path.is_file() and path.stat().st_size == manifest.get("sizes", {}).get(kind) for kind, path in paths.items()
    ):
        return paths
    sizes = {}
    for kind, path in paths.items():
        print(f"generating {path.name} ...", flush=True)
        generate(path, kind, size, seed)
        sizes[kind] = path.stat().st_size
    manifest_path.write_text(json.dumps({"parameters": wanted, "sizes": sizes}), encoding="utf-8")
    return paths


# ------------------------------------------------------------------------------------------ the raw loop


def raw_loop(feed: Path, out: Path) -> int:
    """The limit: lxml's iterparse over the items, the link of each written, everything cleared."""
    from lxml import etree

    count = 0
    with out.open("w", encoding="utf-8") as sink:
        context = etree.iterparse(
            str(feed), events=("end",), tag=["item", f"{{{ATOM_NS}}}entry"], resolve_entities=False, no_network=True
        )
        for _event, element in context:
            if element.tag == "item":
                link = element.findtext("link") or ""
            else:
                node = element.find(f"{{{ATOM_NS}}}link")
                link = node.get("href", "") if node is not None else ""
            sink.write(link.strip() + "\n")
            count += 1
            element.clear(keep_tail=False)
            parent = element.getparent()
            while parent is not None and element.getprevious() is not None:
                del parent[0]
    return count


# ------------------------------------------------------------------------------------------ measuring


def measure(command: list[str]) -> dict[str, Any]:
    """Run ``command``; its wall time, CPU time and peak RSS (KiB)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    errors = process.stderr.read().decode("utf-8", "replace")
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return {
        "wall_s": round(wall, 3),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "peak_rss_kib": usage.ru_maxrss,
        "exit": process.returncode,
        "stderr_tail": errors[-2000:],
    }


def run(feeds: dict[str, Path], out_dir: Path, repeat: int) -> dict[str, Any]:
    out_dir.mkdir(parents=True, exist_ok=True)
    cases: dict[str, Any] = {}
    for kind, feed in feeds.items():
        raw_out, cli_out = out_dir / f"{kind}-raw.txt", out_dir / f"{kind}-cli.txt"
        rss_out, atom_out = out_dir / f"{kind}-written.rss", out_dir / f"{kind}-written.atom"
        convert = [sys.executable, "-m", "feedmap", "convert", str(feed), "-q"]
        commands = {
            "raw": [sys.executable, str(Path(__file__).resolve()), "--raw", str(feed), str(raw_out)],
            "cli": [*convert, "-t", "text", "-o", str(cli_out)],
            "write-rss": [*convert, "-t", "rss", "-o", str(rss_out)],
            "write-atom": [*convert, "-t", "atom", "-o", str(atom_out)],
        }
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in commands}
        for _round in range(repeat):
            for name, command in commands.items():
                runs[name].append(measure(command))
        lines = raw_out.read_text(encoding="utf-8").count("\n") if raw_out.exists() else 0
        same = raw_out.exists() and cli_out.exists() and raw_out.read_bytes() == cli_out.read_bytes()
        written = {
            "rss": _count(rss_out, b"<item>"),
            "atom": _count(atom_out, b"<entry>"),
        }
        cases[kind] = {
            "feed": str(feed),
            "feed_bytes": feed.stat().st_size,
            "entries": lines,
            "text_output_identical": same,
            "written_entries": written,
            "runs": runs,
            "best": {
                name: {
                    "wall_s": min(r["wall_s"] for r in values),
                    "cpu_s": min(r["cpu_s"] for r in values),
                    "peak_rss_kib": max(r["peak_rss_kib"] for r in values),
                    "ok": all(r["exit"] == 0 for r in values),
                }
                for name, values in runs.items()
            },
        }
    return cases


def _count(path: Path, tag: bytes) -> int:
    """How many times ``tag`` starts an element of the written feed ``path`` (0 when it was not written)."""
    if not path.exists():
        return 0
    count = 0
    with path.open("rb") as feed:
        for line in feed:
            count += line.count(tag)
    return count


def _environment() -> dict[str, Any]:
    import lxml.etree

    return {
        "python": platform.python_version(),
        "lxml": ".".join(map(str, lxml.etree.LXML_VERSION)),
        "libxml2": ".".join(map(str, lxml.etree.LIBXML_VERSION)),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "machine": platform.machine(),
    }


def report(cases: dict[str, Any]) -> bool:
    """Print the table; True when every run succeeded, outputs matched and memory met the target."""
    good = True
    print(f"{'feed':<6} {'MB':>7} {'entries':>9}  {'case':<38} {'wall s':>7} {'cpu s':>7} {'peak RSS MiB':>13}")
    for kind, case in cases.items():
        size = case["feed_bytes"] / 1e6
        for name, label in CASE_LABELS:
            best = case["best"][name]
            rss = best["peak_rss_kib"] / 1024
            print(
                f"{kind:<6} {size:7.1f} {case['entries']:9,}  {label:<38} {best['wall_s']:7.2f} "
                f"{best['cpu_s']:7.2f} {rss:13.1f}"
            )
            good = good and best["ok"]
        cli = case["best"]["cli"]
        ratio = cli["wall_s"] / case["best"]["raw"]["wall_s"] if case["best"]["raw"]["wall_s"] else 0.0
        met = cli["peak_rss_kib"] / 1024 < TARGET_MIB
        print(
            f"{kind}: ratio cli/raw wall {ratio:.2f}; peak RSS {cli['peak_rss_kib'] / 1024:.1f} MiB "
            f"(target < {TARGET_MIB} MiB: {'met' if met else 'NOT met'}); "
            f"text output identical to raw: {'yes' if case['text_output_identical'] else 'NO'}"
        )
        case["ratio_cli_raw_wall"] = round(ratio, 3)
        case["memory_target_met"] = met
        good = good and case["text_output_identical"]
        rss, atom = case["best"]["write-rss"], case["best"]["write-atom"]
        cpu = atom["cpu_s"] / rss["cpu_s"] if rss["cpu_s"] else 0.0
        counts = case["written_entries"]
        print(
            f"{kind}: writing atom/rss cpu {cpu:.2f}; peak RSS rss {rss['peak_rss_kib'] / 1024:.1f} MiB, atom "
            f"{atom['peak_rss_kib'] / 1024:.1f} MiB; entries written rss {counts['rss']:,}, atom {counts['atom']:,}"
        )
        case["ratio_atom_rss_cpu"] = round(cpu, 3)
        good = good and counts["rss"] == counts["atom"] == case["entries"]
    return good


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=100.0, help="size of each generated feed in MB (default 100)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case (best wall time kept)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--quick", action="store_true", help="smoke run: 0.2 MB feeds, one run")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--results-dir", type=Path, default=DEFAULT_RESULTS)
    parser.add_argument("--raw", nargs=2, metavar=("FEED", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.raw:
        raw_loop(Path(args.raw[0]), Path(args.raw[1]))
        return 0
    size = int((0.2 if args.quick else args.mb) * 1_000_000)
    repeat = 1 if args.quick else args.repeat
    feeds = ensure_data(args.data_dir, size=size, seed=args.seed)
    environment = _environment()
    print(f"feedmap feed benchmark: RSS and Atom feeds of {size / 1e6:.1f} MB, best of {repeat} run(s)")
    cases = run(feeds, args.data_dir / "out", repeat)
    environment["load_average_after"] = os.getloadavg()
    good = report(cases)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    result = {
        "parameters": {"bytes": size, "repeat": repeat, "seed": args.seed, "quick": args.quick},
        "environment": environment,
        "cases": cases,
        "summary": {
            kind: {
                "peak_rss_mib": round(case["best"]["cli"]["peak_rss_kib"] / 1024, 1),
                "raw_peak_rss_mib": round(case["best"]["raw"]["peak_rss_kib"] / 1024, 1),
                "wall_s": case["best"]["cli"]["wall_s"],
                "raw_wall_s": case["best"]["raw"]["wall_s"],
                "entries": case["entries"],
                "memory_target_met": case["memory_target_met"],
                "text_output_identical": case["text_output_identical"],
                "write_rss_cpu_s": case["best"]["write-rss"]["cpu_s"],
                "write_atom_cpu_s": case["best"]["write-atom"]["cpu_s"],
                "write_rss_peak_rss_mib": round(case["best"]["write-rss"]["peak_rss_kib"] / 1024, 1),
                "write_atom_peak_rss_mib": round(case["best"]["write-atom"]["peak_rss_kib"] / 1024, 1),
                "written_entries": case["written_entries"],
            }
            for kind, case in cases.items()
        },
    }
    (args.results_dir / f"bench_feeds-{stamp}.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
