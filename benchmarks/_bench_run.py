"""Running one case of benchmarks/bench_read.py: the command in a fresh process, its wall and CPU time, its
own peak RSS, the entries it wrote and the diagnostics it reported.

Peak RSS is the child's ``VmHWM`` (Linux ``/proc/self/status``), read at exit by :data:`HOOK`, a
``sitecustomize`` module put on the child's ``PYTHONPATH``; without ``/proc`` it falls back to ``wait4``'s
``ru_maxrss``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _bench_data import sha256_of

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CHILD = HERE / "_bench_child.py"
RSS_ENV = "FEEDMAP_BENCH_RSS_REPORT"

# Written next to the children's PYTHONPATH as sitecustomize.py: report the peak RSS at exit.  The variable is
# taken out of the environment at start, so that the processes the measured one starts (``--jobs`` workers, a
# forkserver) do not write over its report when they exit after it: the report is the measured process's own.
HOOK = f'''\
import atexit, json, os, sys

_REPORT = os.environ.pop("{RSS_ENV}", None)

def _feedmap_bench_report():
    path = _REPORT
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
        digest = sha256_of(out)
        group = f"text-{len(case.files)}"
        reference.setdefault(group, digest)
        run["same_output_as_raw"] = reference[group] == digest
    out.unlink()
    return run
