"""``--dask`` against ``--jobs`` on the 1M-URL index of issue 19's table (issue 20: within 20% of ``--jobs 2``).

    python benchmarks/bench_dask.py [--repeat 3] [--data-dir DIR] [--workers 2] [--markdown FILE]

Each case is ``feedmap convert INDEX -t text`` in a fresh process (whole process, wall seconds, median of
``--repeat`` rounds, the cases of a round one after the other so that load drifts over all of them alike):
``--jobs 1``, ``--jobs N``, ``--dask tcp://...`` on a ``distributed.LocalCluster`` of N worker processes on
127.0.0.1 that this script starts before the clock and keeps for every round (a running cluster, as a cluster is
used), and ``--dask local:N`` (the run starts and stops its own cluster: its start-up is in the figure).  Every
case must write the bytes ``--jobs 1`` writes.  Needs ``pip install -e '.[dask]'``.

A second table does the same for the library splitting the index into a directory of text sitemaps (20 files):
``feedmap.convert(INDEX, "dir/", "text", Options(jobs=N))`` against ``feedmap.dask.write_split`` of
``feedmap.dask.read_bag(INDEX)`` on the running cluster, each in a fresh process (``_dask_split_child.py``), every
file of both the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _goal_data import INDEX_BASE, write_index  # noqa: E402
from _local_cluster import local_cluster  # noqa: E402

CHILDREN, PER_CHILD = 20, 50_000


def _index(data_dir: Path) -> Path:
    folder = data_dir / f"index-{CHILDREN}x{PER_CHILD}"
    index = folder / "index.xml"
    if not index.is_file():
        write_index(folder, CHILDREN, PER_CHILD)
    return index


def _run(argv: list[str], out: Path) -> tuple[float, str]:
    """Wall seconds of ``feedmap argv -o out`` in a fresh process, and the SHA-256 of what it wrote."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "feedmap", *argv, "-o", str(out)], cwd=REPO, capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"feedmap {' '.join(argv)}: exit {done.returncode}\n{done.stderr}")
    return seconds, hashlib.sha256(out.read_bytes()).hexdigest()


def _split(argv: list[str], out: Path) -> tuple[float, str]:
    """Wall seconds of one library case (``_dask_split_child.py argv... OUT``) and a digest of every file written."""
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(HERE / "_dask_split_child.py"), *argv, str(out)], cwd=REPO, capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"_dask_split_child {' '.join(argv)}: exit {done.returncode}\n{done.stderr}")
    digest = hashlib.sha256()
    for path in sorted(out.iterdir()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return seconds, digest.hexdigest()


def _library_table(index: Path, address: str, n: int, repeat: int) -> tuple[list[str], bool]:
    base = INDEX_BASE
    cases = {
        f"feedmap.convert(jobs={n}) into a directory": ["jobs", str(n), str(index), base],
        f"feedmap.dask.write_split on a running LocalCluster of {n}": ["bag", address, str(index), base],
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    digests: dict[str, set[str]] = {name: set() for name in cases}
    with tempfile.TemporaryDirectory(prefix="feedmap-bench-dask-split-") as scratch:
        for _ in range(repeat):
            for name, argv in cases.items():
                seconds, digest = _split(argv, Path(scratch) / "out")
                times[name].append(seconds)
                digests[name].add(digest)
    first = next(iter(cases))
    jobs_n = statistics.median(times[first])
    lines = [
        "",
        "The library, the same index split into a directory of text sitemaps (20 files), whole process, wall:",
        "",
        f"| case | median s | to convert(jobs={n}) | output |",
        "|---|---:|---:|---|",
    ]
    same = all(digests[name] == digests[first] and len(digests[first]) == 1 for name in cases)
    for name in cases:
        median = statistics.median(times[name])
        lines.append(f"| {name} | {median:.3f} | {median / jobs_n:.2f}x | {'same files' if same else '**DIFFERS**'} |")
    bag = statistics.median(times[f"feedmap.dask.write_split on a running LocalCluster of {n}"])
    verdict = "met" if bag <= 1.2 * jobs_n else "**not met**"
    lines += [
        "",
        f"Goal for the library: write_split on a LocalCluster({n}) within 20%: {bag / jobs_n:.2f}x, {verdict}.",
    ]
    return lines, same


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds; each case's median is reported (default 3)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of each kind (default 2)")
    parser.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "feedmap-bench-dask")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    index = _index(args.data_dir)
    read = ["convert", str(index), "--map", f"{INDEX_BASE}={index.parent}", "-t", "text"]
    n = args.workers
    with local_cluster(n) as cluster:
        library, library_same = _library_table(index, cluster.scheduler_address, n, args.repeat)
        cases = {
            "--jobs 1": ["--jobs", "1"],
            f"--jobs {n}": ["--jobs", str(n)],
            f"--dask tcp:// (a running LocalCluster of {n})": ["--dask", cluster.scheduler_address],
            f"--dask local:{n} (started by the run)": ["--dask", f"local:{n}"],
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        digests: dict[str, set[str]] = {name: set() for name in cases}
        with tempfile.TemporaryDirectory(prefix="feedmap-bench-dask-") as scratch:
            for _ in range(args.repeat):
                for name, flags in cases.items():
                    seconds, digest = _run([*read, *flags], Path(scratch) / "out.txt")
                    times[name].append(seconds)
                    digests[name].add(digest)
    expected = digests["--jobs 1"]
    jobs_n = statistics.median(times[f"--jobs {n}"])
    load = os.getloadavg()
    lines = [
        f"`--dask` against `--jobs` on the {CHILDREN * PER_CHILD:,}-URL index ({CHILDREN} children), `-t text`: "
        f"median of {args.repeat} rounds, whole process, wall; {os.cpu_count()} CPUs, load after "
        f"{load[0]:.2f}/{load[1]:.2f}/{load[2]:.2f}",
        "",
        f"| case | median s | to --jobs {n} | output |",
        "|---|---:|---:|---|",
    ]
    for name in cases:
        median = statistics.median(times[name])
        same = "same bytes as --jobs 1" if digests[name] == expected and len(expected) == 1 else "**DIFFERS**"
        lines.append(f"| {name} | {median:.3f} | {median / jobs_n:.2f}x | {same} |")
    running = statistics.median(times[f"--dask tcp:// (a running LocalCluster of {n})"])
    verdict = "met" if running <= 1.2 * jobs_n else "**not met**"
    lines += ["", f"Goal: a LocalCluster({n}) within 20% of `--jobs {n}`: {running / jobs_n:.2f}x, {verdict}."]
    lines += library
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text)
    return 0 if all(digests[name] == expected for name in cases) and library_same else 1


if __name__ == "__main__":
    sys.exit(main())
