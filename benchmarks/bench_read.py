#!/usr/bin/env python3
"""Reading benchmark: feedmap against the raw lxml limit, on large image sitemaps.

Generates (once, deterministically) ``--files`` sitemaps of ``--urls`` URLs each into ``benchmarks/data/``
and measures, each run in a fresh subprocess so that peak RSS belongs to one measurement:

  (a) raw  -- a plain ``lxml.etree.iterparse`` loop extracting loc, lastmod, changefreq, priority, image
              locs and captions, clearing elements as it goes, writing the locs to a file;
  (b) cli  -- ``python -m feedmap convert FILES... -t text -o OUT``;
  (c) api  -- ``feedmap._api.convert([...], OUT, to="text")``;
  (d) cli  -- ``-t jsonl`` and ``-t sitemap`` (for information; ``--no-extra`` skips them);
  (e) cli  -- ``-t text`` on 1 file, to show that peak RSS does not grow with the number of files.

Wall time is the whole process (interpreter start included), best of ``--repeat`` runs, the cases taken
in turn within each round.  Peak RSS is the child's own ``VmHWM`` (read from /proc/self/status at exit
by a ``sitecustomize`` hook placed on the child's PYTHONPATH: the command run is the real one, and
``wait4``/``RUSAGE_CHILDREN`` would also count the parent's pages copied at fork).

Run ``python benchmarks/bench_read.py --help``; see benchmarks/README.md for reading the output.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CHILD = HERE / "_bench_child.py"
DEFAULT_DATA = HERE / "data"
DEFAULT_RESULTS = HERE / "results"

GENERATOR_VERSION = 1
DEFAULT_SEED = 20240601
TARGET_RATIO = 1.5

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
RSS_ENV = "FEEDMAP_BENCH_RSS_REPORT"

# Written next to the children's PYTHONPATH as sitecustomize.py: report the peak RSS at exit.
_HOOK = f'''\
import atexit, json, os, sys

def _feedmap_bench_report():
    path = os.environ.get("{RSS_ENV}")
    if not path:
        return
    peak = 0
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    peak = int(line.split()[1])
                    break
    except OSError:
        pass
    module = sys.modules.get("feedmap")
    with open(path, "w") as out:
        json.dump({{"vmhwm_kib": peak, "feedmap": getattr(module, "__file__", None)}}, out)

atexit.register(_feedmap_bench_report)
'''


# ------------------------------------------------------------------------------------------ data generation

_WORD_LIST = (
    "acme alpine amber anchor apple arctic autumn azure bamboo basil beacon birch blossom breeze bronze "
    "canyon cedar cherry cloud cobalt copper coral cotton crystal dawn delta desert ember falcon fern "
    "forest frost garden garnet glacier granite harbor hazel horizon indigo island ivory jade juniper "
    "lagoon lantern lemon lotus maple marble meadow mint mist navy oak ocean olive onyx orchid pebble "
    "pine plum prairie quartz rain raven reef river ruby saffron sage sand sapphire shadow sierra silver "
    "slate spruce stone storm summit sunset thistle thunder timber topaz valley velvet willow winter"
)
_WORDS = tuple(_WORD_LIST.split())
_SECTION_LIST = (
    "products shop catalog blog news articles guides category collections brands stores help "
    "de/produkte fr/produits es/productos en-gb/shop"
)
_SECTIONS = tuple(_SECTION_LIST.split())
_PARAMS = ("color", "size", "ref", "utm_source", "utm_medium", "page", "sort", "variant", "lang", "sessionid")
_CAPTION_EXTRA = (
    "",
    " & accessories",
    " \u2013 front view",
    " (caf\u00e9 edition)",
    " <new>",
    " \u201cbestseller\u201d",
)
_CHANGEFREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
_PRIORITIES = ("0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0", "0.25", "0.75")


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _zone(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.5:
        return "Z"
    hours = rng.choice((0, 1, 2, 3, 5, 8, 9, 10))
    minutes = rng.choice((0, 0, 0, 30, 45))
    return f"{rng.choice('+-')}{hours:02d}:{minutes:02d}"


def _lastmod(rng: random.Random) -> str:
    """A W3C Datetime of one of the six granularities (weighted towards day and seconds)."""
    year = rng.randint(2015, 2024)
    month = rng.randint(1, 12)
    day = rng.randint(1, 28)
    hour, minute, second = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    kind = rng.choices(range(6), weights=(2, 3, 35, 10, 40, 10))[0]
    if kind == 0:
        return f"{year}"
    if kind == 1:
        return f"{year}-{month:02d}"
    if kind == 2:
        return f"{year}-{month:02d}-{day:02d}"
    if kind == 3:
        return f"{year}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}{_zone(rng)}"
    if kind == 4:
        return f"{year}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{_zone(rng)}"
    fraction = str(rng.randint(1, 999999)).rstrip("0") or "5"
    return f"{year}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{fraction}{_zone(rng)}"


def _slug(rng: random.Random, low: int, high: int) -> str:
    return "-".join(rng.choice(_WORDS) for _ in range(rng.randint(low, high)))


def _page_url(rng: random.Random, host: str, index: int) -> str:
    section = rng.choice(_SECTIONS)
    depth = rng.randint(0, 2)
    path = "/".join([section, *(_slug(rng, 1, 2) for _ in range(depth)), f"{_slug(rng, 2, 6)}-{index}"])
    url = f"https://{host}/{path}"
    roll = rng.random()
    if roll < 0.35:
        url += ".html"
    if rng.random() < 0.3:  # a query string of 1-3 parameters: '&' in the URL
        params = rng.sample(_PARAMS, rng.randint(1, 3))
        url += "?" + "&".join(f"{name}={rng.choice(_WORDS)}{rng.randint(1, 99)}" for name in params)
    elif rng.random() < 0.03:
        url += "/%C3%A9t%C3%A9"  # percent-encoded non-ASCII
    return url


def _url_block(rng: random.Random, domain: str, index: int) -> str:
    loc = _page_url(rng, "www." + domain, index)
    parts = [
        "  <url>\n    <loc>",
        _xml_escape(loc),
        "</loc>\n    <lastmod>",
        _lastmod(rng),
        "</lastmod>\n    <changefreq>",
        rng.choice(_CHANGEFREQS),
        "</changefreq>\n    <priority>",
        rng.choice(_PRIORITIES),
        "</priority>\n",
    ]
    for number in range(rng.randint(1, 2)):
        image = f"https://cdn.{domain}/images/{rng.randint(2015, 2024)}/{rng.randint(1, 12):02d}/{_slug(rng, 1, 4)}"
        image += f"-{index}-{number + 1}.{rng.choice(('jpg', 'jpg', 'png', 'webp'))}"
        if rng.random() < 0.1:
            image += f"?w={rng.choice((320, 640, 1280))}&h={rng.choice((240, 480, 960))}"
        parts += ["    <image:image>\n      <image:loc>", _xml_escape(image), "</image:loc>\n"]
        if rng.random() < 0.4:
            caption = _slug(rng, 2, 8).replace("-", " ").capitalize() + rng.choice(_CAPTION_EXTRA)
            parts += ["      <image:caption>", _xml_escape(caption), "</image:caption>\n"]
        parts.append("    </image:image>\n")
    parts.append("  </url>\n")
    return "".join(parts)


def generate_sitemap(path: Path, *, urls: int, seed: int, index: int) -> None:
    """Write one sitemap of ``urls`` URLs; the same (seed, index, urls) always gives the same bytes."""
    rng = random.Random(f"feedmap-bench-v{GENERATOR_VERSION}-{seed}-{index}")
    domain = f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-shop{index}.example.com"
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "w", encoding="utf-8", newline="\n") as out:
        out.write(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}"\n        xmlns:image="{IMAGE_NS}">\n'
        )
        batch: list[str] = []
        for number in range(urls):
            batch.append(_url_block(rng, domain, index * urls + number))
            if len(batch) >= 2000:
                out.write("".join(batch))
                batch.clear()
        out.write("".join(batch))
        out.write("</urlset>\n")
    os.replace(tmp, path)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def ensure_data(data_dir: Path, *, files: int, urls: int, seed: int, log: bool = True) -> list[Path]:
    """The ``files`` sitemaps for these parameters, generating those missing or not matching the manifest."""
    data_dir.mkdir(parents=True, exist_ok=True)
    manifest_path = data_dir / "manifest.json"
    try:
        manifest: dict[str, Any] = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = {}
    paths: list[Path] = []
    changed = False
    for index in range(files):
        name = f"sitemap-v{GENERATOR_VERSION}-s{seed}-u{urls}-{index:03d}.xml"
        path = data_dir / name
        recorded = manifest.get(name)
        params = {"generator": GENERATOR_VERSION, "seed": seed, "urls": urls, "index": index}
        if (
            isinstance(recorded, dict)
            and recorded.get("params") == params
            and path.is_file()
            and path.stat().st_size == recorded.get("bytes")
        ):
            paths.append(path)
            continue
        if log:
            print(f"generating {path} ({urls:,} URLs)...", file=sys.stderr, flush=True)
        generate_sitemap(path, urls=urls, seed=seed, index=index)
        manifest[name] = {"params": params, "bytes": path.stat().st_size, "sha256": _sha256(path)}
        changed = True
        paths.append(path)
    if changed:
        tmp = manifest_path.with_suffix(".json.part")
        tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, manifest_path)
    return paths


# -------------------------------------------------------------------------------------------- measurement


@dataclass
class Case:
    key: str
    label: str
    mode: str  # raw | api-FMT | cli-FMT
    files: list[Path]
    fmt: str = "text"
    runs: list[dict[str, Any]] = field(default_factory=list)

    def command(self, out: Path, report: Path) -> list[str]:
        if self.mode == "raw" or self.mode.startswith("api-"):
            return [sys.executable, str(CHILD), self.mode, str(report), str(out), *map(str, self.files)]
        return [sys.executable, "-m", "feedmap", "convert", *map(str, self.files), "-t", self.fmt, "-o", str(out)]

    @property
    def best_wall(self) -> float:
        return min(float(run["wall_s"]) for run in self.runs)

    @property
    def peak_rss_kib(self) -> int:
        return max(int(run["peak_rss_kib"]) for run in self.runs)

    @property
    def best_cpu(self) -> float:
        return min(float(run["cpu_s"]) for run in self.runs)

    @property
    def best_work(self) -> float | None:
        works = [float(run["work_s"]) for run in self.runs if run.get("work_s") is not None]
        return min(works) if works else None


_WROTE = re.compile(r"wrote ([\d,]+) entries")
_DIAGNOSTIC = re.compile(r": (info|warning|error)\[([a-z0-9-]+)\]:")


def _bytecode_env(scratch: Path) -> dict[str, str]:
    """The environment with bytecode cached in ``scratch`` (never in the measured tree): an installed package has
    its .pyc files, so compiling feedmap's source (PYTHONDONTWRITEBYTECODE=1 and no __pycache__) is no part of a
    run; it cost the CLI some 25 ms per run, more as the source grows."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    return env


def compile_feedmap(scratch: Path, feedmap_root: Path) -> None:
    """Compile the measured package into the bench's bytecode cache (untimed), as installing it would."""
    command = [sys.executable, "-m", "compileall", "-q", str(feedmap_root / "feedmap")]
    subprocess.run(command, env=_bytecode_env(scratch), check=False, stdout=subprocess.DEVNULL)


def run_case(
    case: Case, scratch: Path, hook_dir: Path, reference: dict[str, str], feedmap_root: Path = REPO
) -> dict[str, Any]:
    out = scratch / f"{case.key}.out"
    report = scratch / f"{case.key}.report.json"
    rss_report = scratch / f"{case.key}.rss"
    stderr_path = scratch / f"{case.key}.stderr"
    for stale in (out, report, rss_report):
        stale.unlink(missing_ok=True)
    env = _bytecode_env(scratch)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(hook_dir), str(feedmap_root), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])]
    )
    env[RSS_ENV] = str(rss_report)
    env.pop("PYTHONSTARTUP", None)
    command = case.command(out, report)
    with open(stderr_path, "wb") as stderr, open(os.devnull, "wb") as stdout:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=env, cwd=scratch)
        _pid, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
    errors = stderr_path.read_text(encoding="utf-8", errors="replace")
    if process.returncode != 0:
        raise SystemExit(f"{case.label}: exit {process.returncode}\n  command: {' '.join(command)}\n{errors}")
    run: dict[str, Any] = {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime}
    hooked = json.loads(rss_report.read_text(encoding="utf-8")) if rss_report.is_file() else {}
    run["feedmap"] = hooked.get("feedmap")
    if hooked.get("vmhwm_kib"):
        run["peak_rss_kib"] = int(hooked["vmhwm_kib"])
        run["rss_source"] = "VmHWM"
    else:  # no /proc: fall back to rusage (an upper bound: it includes the parent's pages at fork)
        run["peak_rss_kib"] = usage.ru_maxrss
        run["rss_source"] = "wait4 ru_maxrss"
    if report.is_file():
        run.update(json.loads(report.read_text(encoding="utf-8")))
    else:
        found = _DIAGNOSTIC.findall(errors)
        codes = [code for _level, code in found]
        match = _WROTE.search(errors)
        run["entries"] = int(match.group(1).replace(",", "")) if match else None
        run["diagnostics"] = len(found)
        run["warnings"] = sum(1 for level, _code in found if level != "info")
        run["diagnostic_codes"] = {code: codes.count(code) for code in sorted(set(codes))}
        run["work_s"] = None
    run["output_bytes"] = out.stat().st_size
    if case.fmt == "text":
        digest = _sha256(out)
        group = f"text-{len(case.files)}"
        reference.setdefault(group, digest)
        run["same_output_as_raw"] = reference[group] == digest
    out.unlink()
    return run


def _environment() -> dict[str, Any]:
    from lxml import etree

    env: dict[str, Any] = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "lxml": ".".join(map(str, etree.LXML_VERSION)),
        "libxml2": ".".join(map(str, etree.LIBXML_VERSION)),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    env["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "feedmap"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        env["feedmap_commit"] = commit + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        env["feedmap_commit"] = None
    return env


def _mib(kib: int) -> float:
    return kib / 1024


#: Warnings a run may report without anything being wrong: the N files are written into ONE output, which
#: passes the protocol's 50,000-URL and 50 MiB limits for a single file (reported about the output).
EXPECTED_CODES = frozenset({"field-dropped", "too-many-urls", "file-too-large"})


def _ratio(case: Case, raw: Case, value: str) -> float | None:
    if len(case.files) != len(raw.files):
        return None
    if value == "cpu":
        return case.best_cpu / raw.best_cpu
    return case.best_wall / raw.best_wall


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _print_table(cases: list[Case], raw: Case, args: argparse.Namespace, total_bytes: int, env: dict[str, Any]) -> None:
    print()
    print(
        f"feedmap read benchmark: {args.files} files x {args.urls:,} URLs ({total_bytes / 1e6:,.1f} MB), "
        f"best of {args.repeat} runs per case"
    )
    print(
        f"Python {env['python']}, lxml {env['lxml']} (libxml2 {env['libxml2']}), {env.get('cpu', env['machine'])}, "
        f"{env['cpus']} CPUs, load average {env['load_before']} before / {env['load_after']} after"
    )
    header = (
        f"{'case':<42} {'files':>5} {'wall s':>7} {'ratio':>6} {'cpu s':>7} {'ratio':>6} "
        f"{'work s':>7} {'peak RSS MiB':>12} {'entries':>9}"
    )
    print(header)
    print("-" * len(header))
    for case in cases:
        entries = case.runs[-1].get("entries")
        print(
            f"{case.label:<42} {len(case.files):>5} {case.best_wall:>7.2f} {_fmt(_ratio(case, raw, 'wall'), '.2f'):>6} "
            f"{case.best_cpu:>7.2f} {_fmt(_ratio(case, raw, 'cpu'), '.2f'):>6} {_fmt(case.best_work, '.2f'):>7} "
            f"{_mib(case.peak_rss_kib):>12.1f} {(f'{entries:,}' if isinstance(entries, int) else '?'):>9}"
        )


def _load() -> str:
    try:
        return "/".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "?"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        description="Measure feedmap's sitemap reading against a plain lxml iterparse loop (wall time, peak RSS).",
        epilog="See benchmarks/README.md for how to read the output.",
    )
    parser.add_argument("--files", type=int, default=10, metavar="N", help="number of sitemap files (default 10)")
    parser.add_argument("--urls", type=int, default=50_000, metavar="N", help="URLs per file (default 50,000)")
    parser.add_argument(
        "--repeat", type=int, default=3, metavar="K", help="runs per case; the best is kept (default 3)"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="data generator seed")
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 2 files x 300 URLs, 1 run (overrides --files/--urls/--repeat)"
    )
    parser.add_argument("--no-extra", action="store_true", help="skip the -t jsonl and -t sitemap cases")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA, help="where the generated sitemaps live")
    parser.add_argument("--results-dir", type=Path, default=DEFAULT_RESULTS, help="where the JSON result is written")
    parser.add_argument(
        "--feedmap-root",
        type=Path,
        default=REPO,
        metavar="DIR",
        help="measure the feedmap package found in DIR (e.g. an older checkout from `git archive`), "
        "not this repository's",
    )
    parser.add_argument(
        "--target", type=float, default=TARGET_RATIO, help="wall-time ratio (b)/(a) to meet (reported; default 1.5)"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.files, args.urls, args.repeat = 2, 300, 1
    if args.files < 1 or args.urls < 1 or args.repeat < 1:
        parser.error("--files, --urls and --repeat must be at least 1")

    files = ensure_data(args.data_dir, files=args.files, urls=args.urls, seed=args.seed)
    total_bytes = sum(path.stat().st_size for path in files)
    for path in files:  # warm the page cache so that the first case is not the only one reading the disk
        with open(path, "rb") as handle:
            while handle.read(1 << 20):
                pass

    cases = [
        Case("raw", "(a) raw lxml iterparse -> text", "raw", files),
        Case("cli_text", "(b) python -m feedmap convert -t text", "cli-text", files),
        Case("api_text", "(c) feedmap._api.convert(to='text')", "api-text", files),
    ]
    if not args.no_extra:
        cases += [
            Case("cli_jsonl", "(d) python -m feedmap convert -t jsonl", "cli-jsonl", files, fmt="jsonl"),
            Case("cli_sitemap", "(d) python -m feedmap convert -t sitemap", "cli-sitemap", files, fmt="sitemap"),
        ]
    cases.append(Case("cli_text_1", "(e) python -m feedmap convert -t text", "cli-text", files[:1]))

    env = _environment()
    env["load_before"] = _load()
    reference: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="feedmap-bench-") as scratch_name:
        scratch = Path(scratch_name)
        hook_dir = scratch / "hook"
        hook_dir.mkdir()
        (hook_dir / "sitecustomize.py").write_text(_HOOK, encoding="utf-8")
        compile_feedmap(scratch, args.feedmap_root)
        # the text output (e) is compared with a raw run on that one file (not timed)
        run_case(Case("raw_1", "raw 1 file", "raw", files[:1]), scratch, hook_dir, reference, args.feedmap_root)
        for round_number in range(args.repeat):  # cases in turn: a slow moment of the machine hits all of them
            for case in cases:
                print(
                    f"round {round_number + 1}/{args.repeat}: {case.label} ({len(case.files)} files)...",
                    file=sys.stderr,
                    flush=True,
                )
                case.runs.append(run_case(case, scratch, hook_dir, reference, args.feedmap_root))
    env["load_after"] = _load()

    raw = cases[0]
    by_key = {case.key: case for case in cases}
    cli, api = by_key["cli_text"], by_key["api_text"]
    ratio_cli, ratio_api = cli.best_wall / raw.best_wall, api.best_wall / raw.best_wall
    ratio_cli_cpu, ratio_api_cpu = cli.best_cpu / raw.best_cpu, api.best_cpu / raw.best_cpu
    raw_work, api_work = raw.best_work, api.best_work
    ratio_api_work = api_work / raw_work if raw_work and api_work else None
    rss_one, rss_all = by_key["cli_text_1"].peak_rss_kib, cli.peak_rss_kib
    rss_ratio = rss_all / rss_one
    mismatched = sorted({case.label for case in cases for run in case.runs if run.get("same_output_as_raw") is False})
    unexpected = {
        case.key: codes
        for case in cases
        if (
            codes := {c: n for c, n in (case.runs[-1].get("diagnostic_codes") or {}).items() if c not in EXPECTED_CODES}
        )
    }

    measured = sorted(
        {str(Path(run["feedmap"]).parent) for case in cases[1:] for run in case.runs if run.get("feedmap")}
    ) or ["?"]
    _print_table(cases, raw, args, total_bytes, env)
    print()
    verdict = "met" if ratio_cli <= args.target else "NOT met"
    print(
        f"ratio (b) CLI -t text / raw:     wall {ratio_cli:.2f}  cpu {ratio_cli_cpu:.2f}  (target wall <= "
        f"{args.target:.2f}: {verdict})"
    )
    print(
        f"ratio (c) api.convert / raw:     wall {ratio_api:.2f}  cpu {ratio_api_cpu:.2f}"
        + (f"  (in-process work only: {ratio_api_work:.2f})" if ratio_api_work else "")
    )
    print(
        f"peak RSS (b), 1 file vs {args.files} files: {_mib(rss_one):.1f} MiB vs {_mib(rss_all):.1f} MiB, "
        f"ratio {rss_ratio:.2f}"
    )
    print(f"text output identical to raw:    {'yes' if not mismatched else 'NO: ' + ', '.join(mismatched)}")
    print(f"feedmap measured:                {', '.join(measured)}")
    if unexpected:
        print(f"unexpected diagnostics (the generated data should give none): {unexpected}")

    result = {
        "benchmark": "bench_read",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "parameters": {
            "files": args.files,
            "urls_per_file": args.urls,
            "repeat": args.repeat,
            "seed": args.seed,
            "generator_version": GENERATOR_VERSION,
            "quick": args.quick,
            "input_bytes": total_bytes,
            "feedmap_root": str(args.feedmap_root),
            "inputs": [path.name for path in files],
        },
        "environment": env,
        "cases": {
            case.key: {
                "label": case.label,
                "files": len(case.files),
                "command": case.command(Path("OUT"), Path("REPORT"))[1:],
                "best_wall_s": case.best_wall,
                "best_cpu_s": case.best_cpu,
                "best_work_s": case.best_work,
                "peak_rss_kib": case.peak_rss_kib,
                "ratio_vs_raw_wall": _ratio(case, raw, "wall"),
                "ratio_vs_raw_cpu": _ratio(case, raw, "cpu"),
                "runs": case.runs,
            }
            for case in cases
        },
        "summary": {
            "ratio_cli_text": ratio_cli,
            "ratio_cli_text_cpu": ratio_cli_cpu,
            "ratio_api_text": ratio_api,
            "ratio_api_text_cpu": ratio_api_cpu,
            "ratio_api_text_work": ratio_api_work,
            "target_ratio": args.target,
            "target_met": ratio_cli <= args.target,
            "peak_rss_kib_1_file": rss_one,
            "peak_rss_kib_n_files": rss_all,
            "peak_rss_ratio_n_over_1": rss_ratio,
            "text_output_identical": not mismatched,
            "feedmap_measured": measured,
            "unexpected_diagnostics": unexpected,
        },
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    result_path = args.results_dir / f"bench_read-{stamp}-{args.files}x{args.urls}.json"
    result_path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"result written to {result_path}")
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
