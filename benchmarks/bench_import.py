#!/usr/bin/env python3
"""Import benchmark: how long ``import feedmap`` takes a fresh interpreter, against ``import lxml.etree``.

Each run is a new process (``python -c "import feedmap"``), as a script or a CLI call starts; the cases are
taken in turn within each of ``--runs`` rounds, so that a slow moment of the machine does not hit one case
only, and the median is reported.  Cases:

  python   -- ``python -c pass``: the interpreter's own start, under every other case;
  lxml     -- ``python -c "import lxml.etree"``: the one dependency every read needs;
  feedmap  -- ``python -c "import feedmap"``;
  formats / converters -- ``import feedmap.formats`` / ``import feedmap.converters``.

Then, in one more process each: the import's own time (``time.perf_counter`` around it), how many feedmap
modules and modules in all it loaded, and which of the heavy ones (HTTP client, HTML sanitizer, SQLite,
validate, diff) it loaded.  ``--feedmap-root DIR`` measures the feedmap of another checkout (its folder
first on ``PYTHONPATH``).  Figures go to benchmarks/README.md ("bench_import.py"), not into docstrings.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "python": "pass",
    "lxml": "import lxml.etree",
    "feedmap": "import feedmap",
    "formats": "import feedmap.formats",
    "converters": "import feedmap.converters",
}
HEAVY = ("httpx", "httpcore", "nh3", "sqlite3", "feedmap._validate", "feedmap._diff", "feedmap._web")
_PROBE = """\
import json, sys, time
before = set(sys.modules)
started = time.perf_counter()
import {module}
seconds = time.perf_counter() - started
loaded = sorted(set(sys.modules) - before)
print(json.dumps({{"seconds": seconds, "loaded": loaded, "file": sys.modules["{module}"].__file__}}))
"""


def _environment(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH", "")]))
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    return env


def _wall(code: str, root: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=root, env=env, check=True)
    return time.perf_counter() - started


def _probe(module: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    code = _PROBE.format(module=module)
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, check=True, capture_output=True, text=True)
    found: dict[str, Any] = json.loads(out.stdout)
    loaded: list[str] = found.pop("loaded")
    found["feedmap_modules"] = sum(1 for name in loaded if name.split(".")[0] == "feedmap")
    found["modules"] = len(loaded)
    found["heavy"] = sorted({name for name in loaded if name.split(".")[0] in HEAVY or name.startswith(HEAVY)})
    return found


def measure(runs: int, root: Path) -> dict[str, Any]:
    env = _environment(root)
    walls: dict[str, list[float]] = {case: [] for case in CASES}
    for _ in range(runs):
        for case, code in CASES.items():
            walls[case].append(_wall(code, root, env))
    medians = {case: statistics.median(times) for case, times in walls.items()}
    probes = {case: _probe(code.removeprefix("import "), root, env) for case, code in CASES.items() if case != "python"}
    return {"runs": runs, "median_wall": medians, "probes": probes}


def _report(result: dict[str, Any]) -> str:
    medians, probes = result["median_wall"], result["probes"]
    base = medians["python"]
    lines = [
        f"import benchmark: median of {result['runs']} fresh processes per case",
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, feedmap from {probes['feedmap']['file']}",
        f"{'case':<32} {'wall ms':>8} {'- python':>9} {'import ms':>10} {'feedmap mods':>13} {'all mods':>9}",
        "-" * 86,
    ]
    for case, code in CASES.items():
        probe = probes.get(case)
        own = f"{probe['seconds'] * 1000:10.1f}" if probe else f"{'-':>10}"
        mods = f"{probe['feedmap_modules']:>13} {probe['modules']:>9}" if probe else f"{'-':>13} {'-':>9}"
        lines.append(f"{code:<32} {medians[case] * 1000:8.1f} {(medians[case] - base) * 1000:9.1f} {own} {mods}")
    ratio = (medians["feedmap"] - base) / max(medians["lxml"] - base, 1e-9)
    lines.append(f"import feedmap over the interpreter's start / import lxml.etree's: {ratio:.2f}")
    for case in ("feedmap", "formats", "converters"):
        lines.append(f"heavy modules loaded by {CASES[case]!r}: {', '.join(probes[case]['heavy']) or 'none'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="processes per case (default: 21)")
    parser.add_argument("--quick", action="store_true", help="3 runs per case: a smoke run")
    parser.add_argument("--feedmap-root", type=Path, default=ROOT, help="the checkout whose feedmap is imported")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the figures as JSON to FILE")
    args = parser.parse_args(argv)
    result = measure(3 if args.quick else args.runs, args.feedmap_root.resolve())
    print(_report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
