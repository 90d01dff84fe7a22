"""``feedmap convert --dask`` on a web index of millions of URLs: throughput and memory (issue 20, "scale on paper").

    python benchmarks/bench_cluster_scale.py [--children 200] [--urls 50000] [--workers 2] [--markdown FILE]

It starts benchmarks/_big_index_site.py (a local HTTP server, in its own process, whose ``/index.xml`` has
``--children`` children of ``--urls`` URLs each, generated on request; their locs start with ``--loc-base``) and
a ``distributed.LocalCluster`` of ``--workers`` worker processes on 127.0.0.1 (one thread each), then runs, in a
fresh process with this tree's feedmap,
``python -m feedmap convert BASE/index.xml -t text -o OUT --dask tcp://SCHEDULER``: the run downloads each child,
writes a copy into its temporary folder (``TMPDIR``, here a folder of this script's own temporary folder), and a
worker reads the copy.  While it runs, every 0.5 s it samples the RSS (``/proc/PID/status`` ``VmRSS``) of each
worker process (their pids from ``client.run(os.getpid)``) and of the run, the size of OUT (its temporary file until
the run renames it) and of the run's temporary folder.  It reports, as markdown:

* the URLs written: OUT must be every URL of the site, once each, in input order (compared line for line with
  the URLs the site serves; should the order differ, each line is checked to be a URL of the site, and counted
  once in a bitmap of them all);
* the wall seconds of the run, its URLs per second overall and per worker;
* the peak and the last RSS of each worker and of the run, and whether each stayed flat (its peak after the first
  20% of the run within 15% of its peak in the first 20%);
* what bounds a bigger cluster: the run's CPU seconds per million URLs (its user + system time, from
  ``getrusage(RUSAGE_CHILDREN)`` around its wait), the workers' CPU per million URLs, the run's RSS growth per
  million URLs written (a least-squares slope over the samples of the second half), the URLs written per second in
  each half of the run, the bytes downloaded (the site's ``/stats``), the peak size of the run's temporary folder,
  this process's CPU (the scheduler with its heartbeats, and the sampler) over the run, and the wall time a task of
  nothing takes through the scheduler (2,000 submitted at once, after the run).

OUT is written into a temporary folder and deleted once counted (100M URLs is about 4 GB of text, 10M about
400 MB); the free disk there is checked first.  Needs ``pip install -e '.[dask]'`` and Linux (``/proc``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _local_cluster import local_cluster  # the script's folder is first on sys.path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SAMPLE_SECONDS = 0.5
#: The share of the run after which a process's RSS must stay within FLAT of its peak before it.
EARLY, FLAT = 0.2, 0.15
MIB = 1 << 20


def rss_kib(pid: int) -> int | None:
    """The resident set size of ``pid`` in KiB, None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of ``pid`` (``/proc/PID/stat`` utime + stime), None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def folder_bytes(folder: Path) -> int:
    """The bytes of the files under ``folder`` now (files come and go while it is walked)."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):  # removed meanwhile
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def written_bytes(folder: Path) -> int:
    """The bytes of the files right in ``folder``: OUT, or while the run writes it the temporary file next to it
    that the run renames to OUT when done (feedmap/_io/sinks.py)."""
    total = 0
    with os.scandir(folder) as found:
        for entry in found:
            with contextlib.suppress(OSError):  # renamed meanwhile
                if entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
    return total


@dataclass
class Samples:
    """What the sampler saw: per tick, the seconds since the start, OUT's bytes, and each process's RSS (KiB)."""

    times: list[float] = field(default_factory=list)
    out_bytes: list[int] = field(default_factory=list)
    rss: dict[str, list[int | None]] = field(default_factory=dict)
    tmp_peak: int = 0


def sample(pids: dict[str, int], out: Path, tmp: Path, started: float, stop: threading.Event) -> Samples:
    samples = Samples(rss={name: [] for name in pids})
    while not stop.wait(SAMPLE_SECONDS):
        samples.times.append(time.perf_counter() - started)
        samples.out_bytes.append(written_bytes(out.parent))
        for name, pid in pids.items():
            samples.rss[name].append(rss_kib(pid))
        samples.tmp_peak = max(samples.tmp_peak, folder_bytes(tmp))
    return samples


def flat(times: list[float], values: list[int | None], wall: float) -> tuple[bool, int, int]:
    """Whether the peak after the first EARLY of ``wall`` is within FLAT of the peak before it (and both peaks)."""
    early = [v for t, v in zip(times, values, strict=True) if v is not None and t <= EARLY * wall]
    late = [v for t, v in zip(times, values, strict=True) if v is not None and t > EARLY * wall]
    if not early or not late:
        return False, max(early, default=0), max(late, default=0)
    return max(late) <= (1 + FLAT) * max(early), max(early), max(late)


def slope(xs: list[float], ys: list[float]) -> float:
    """The least-squares slope of ``ys`` over ``xs`` (0 with fewer than two distinct xs)."""
    n = len(xs)
    if n < 2:
        return 0.0
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0


def check_output(out: Path, base: str, children: int, urls: int) -> tuple[int, int, bool]:
    """(lines, distinct URLs of the site among them, whether they are the site's URLs in input order)."""
    lines = 0
    in_order = True
    with open(out, "rb") as written:
        for child in range(children):
            start = f"{base}/item/{child}/".encode()
            expected = start + (b"\n" + start).join(str(n).encode() for n in range(urls)) + b"\n"
            got = written.read(len(expected))
            if got != expected:
                in_order = False
                break
            lines += urls
        else:
            rest = written.read(1)
            in_order = not rest
    if in_order:
        return lines, lines, True
    # not the site's URLs in order: count each line, and each URL of the site once (a bitmap of them all)
    seen = bytearray((children * urls + 7) // 8)
    prefix = f"{base}/item/".encode()
    lines = distinct = 0
    with open(out, "rb") as written:
        for line in written:
            lines += 1
            if not line.startswith(prefix):
                continue
            child, _, number = line[len(prefix) :].rstrip(b"\n").partition(b"/")
            if not (child.isdigit() and number.isdigit()):
                continue
            c, n = int(child), int(number)
            if c < children and n < urls:
                bit = c * urls + n
                if not seen[bit >> 3] & (1 << (bit & 7)):
                    seen[bit >> 3] |= 1 << (bit & 7)
                    distinct += 1
    return lines, distinct, False


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as answer:
        text: str = answer.read().decode()
        return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--children", type=int, default=200, help="children of the index (default 200: 10M URLs)")
    parser.add_argument("--urls", type=int, default=50_000, help="URLs of each child (default 50000)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the cluster (default 2)")
    parser.add_argument("--loc-base", default="https://www.example.com", help="the site's locs' start (see the site)")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    args = parser.parse_args(argv)
    import distributed

    total = args.children * args.urls
    scratch = Path(tempfile.mkdtemp(prefix="feedmap-bench-cluster-"))
    # OUT (~45 bytes a URL), the run's table of seen URLs (its texts, ~45 bytes a URL, past 16 MB on disk) and a
    # few child copies at a time
    need = total * 100 + (2 << 30)
    free = shutil.disk_usage(scratch).free
    if free < need:
        shutil.rmtree(scratch)
        raise SystemExit(f"{scratch}: {free / 2**30:.1f} GiB free, {need / 2**30:.1f} GiB wanted for {total:,} URLs")
    site_args = ["--children", str(args.children), "--urls", str(args.urls), "--loc-base", args.loc_base]
    site = subprocess.Popen(
        [sys.executable, str(HERE / "_big_index_site.py"), *site_args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert site.stdout is not None
        base = site.stdout.readline().strip()
        if not base.startswith("http://"):
            raise SystemExit(f"the site did not start: {base!r}")
        with (
            local_cluster(args.workers, local_directory=str(scratch / "dask")) as cluster,
            distributed.Client(cluster.scheduler_address, set_as_default=False) as client,
        ):
            worker_pids: dict[str, int] = client.run(os.getpid)
            report = measure(args, base, cluster.scheduler_address, worker_pids, scratch)
            report += scheduler_overhead(client, args.workers)
    finally:
        if site.stdin is not None:
            site.stdin.close()
        site.wait(timeout=30)
        shutil.rmtree(scratch, ignore_errors=True)
    print(report)
    if args.markdown is not None:
        args.markdown.write_text(report)
    return 0 if "**NO**" not in report else 1


def _same(value: int) -> int:
    return value


def scheduler_overhead(client: object, workers: int, tasks: int = 2000) -> str:
    """Wall ms a task of nothing takes through the cluster's scheduler (``tasks`` of them submitted at once)."""
    started = time.perf_counter()
    futures = client.map(_same, range(tasks), pure=False)  # type: ignore[attr-defined]
    client.gather(futures)  # type: ignore[attr-defined]
    seconds = time.perf_counter() - started
    return (
        f"\nThe scheduler alone: {tasks:,} tasks doing nothing, submitted at once to the same cluster "
        f"({workers} workers): {seconds:.2f} s, {seconds / tasks * 1e3:.2f} ms a task.\n"
    )


def measure(args: argparse.Namespace, base: str, scheduler: str, worker_pids: dict[str, int], scratch: Path) -> str:
    """Run the conversion, sample it, check OUT; the report as markdown."""
    total = args.children * args.urls
    out, tmp = scratch / "out.txt", scratch / "tmp"
    tmp.mkdir()
    load_before = os.getloadavg()
    workers = {f"worker {n + 1}": pid for n, pid in enumerate(sorted(worker_pids.values()))}
    worker_cpu = {name: cpu_seconds(pid) or 0.0 for name, pid in workers.items()}
    argv = [sys.executable, "-m", "feedmap", "convert", f"{base}/index.xml", "-t", "text", "-o", str(out)]
    argv += ["--dask", scheduler]
    env = {**os.environ, "TMPDIR": str(tmp)}
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    self_before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    run = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stop = threading.Event()
    found: list[Samples] = []
    sampler = threading.Thread(
        target=lambda: found.append(sample({**workers, "run": run.pid}, out, tmp, started, stop)), daemon=True
    )
    sampler.start()
    stdout, stderr = run.communicate()
    wall = time.perf_counter() - started
    stop.set()
    sampler.join()
    self_after = resource.getrusage(resource.RUSAGE_SELF)
    children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_after = os.getloadavg()
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {run.returncode}\n{stderr}")
    worker_cpu = {name: (cpu_seconds(pid) or 0.0) - worker_cpu[name] for name, pid in workers.items()}
    run_cpu = (children_after.ru_utime + children_after.ru_stime) - (
        children_before.ru_utime + children_before.ru_stime
    )
    self_cpu = (self_after.ru_utime + self_after.ru_stime) - (self_before.ru_utime + self_before.ru_stime)
    sent_children, sent_bytes = (int(v) for v in fetch(f"{base}/stats").split())
    out_size = out.stat().st_size
    lines, distinct, in_order = check_output(out, args.loc_base or base, args.children, args.urls)
    out.unlink()
    samples = found[0]

    ok = lines == total and distinct == total
    mib = 1 / 1024
    rows = [
        f"`feedmap convert BASE/index.xml -t text --dask tcp://...` on a LocalCluster of {args.workers} worker "
        f"processes (1 thread each), the index on a local HTTP server: {args.children:,} children x {args.urls:,} "
        f"URLs; {os.cpu_count()} CPUs, load {load_before[0]:.2f} before, {load_after[0]:.2f} after "
        f"(1 minute averages)",
        "",
        "| URLs expected | lines written | distinct | in input order | all there once | wall s | URLs/s | "
        "URLs/s per worker |",
        "|---:|---:|---:|---|---|---:|---:|---:|",
        f"| {total:,} | {lines:,} | {distinct:,} | {'yes' if in_order else 'no'} | {'yes' if ok else '**NO**'} | "
        f"{wall:.1f} | {lines / wall:,.0f} | {lines / wall / args.workers:,.0f} |",
        "",
        f"| process | peak RSS MiB | last RSS MiB | peak in first {EARLY:.0%} | peak after | flat (within {FLAT:.0%}) "
        "| CPU s | CPU s per 1M URLs |",
        "|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    cpu = {**worker_cpu, "run": run_cpu}
    for name in [*workers, "run"]:
        values = samples.rss[name]
        known = [v for v in values if v is not None]
        is_flat, early, late = flat(samples.times, values, wall)
        rows.append(
            f"| {name} | {max(known, default=0) * mib:.0f} | {(known[-1] if known else 0) * mib:.0f} | "
            f"{early * mib:.0f} | {late * mib:.0f} | {'yes' if is_flat else 'no'} | {cpu[name]:.1f} | "
            f"{cpu[name] / lines * 1e6:.2f} |"
        )
    # the run's RSS against the URLs written so far (OUT's bytes / bytes a line), over the second half of the run
    per_line = out_size / lines if lines else 1.0
    points = [
        (size / per_line / 1e6, rss * mib)
        for t, size, rss in zip(samples.times, samples.out_bytes, samples.rss["run"], strict=True)
        if rss is not None and size and t > wall / 2
    ]
    growth = slope([p[0] for p in points], [p[1] for p in points])
    halves = []
    for low, high in ((0.0, 0.5), (0.5, 1.0)):
        marks = [
            (t, size)
            for t, size in zip(samples.times, samples.out_bytes, strict=True)
            if low * wall <= t <= high * wall
        ]
        halves.append((marks[-1][1] - marks[0][1]) / per_line / (marks[-1][0] - marks[0][0]) if len(marks) > 1 else 0.0)
    rows += [
        "",
        "| what bounds a bigger cluster | measured |",
        "|---|---:|",
        f"| the run's CPU (user + system) per 1M URLs | {run_cpu / lines * 1e6:.2f} s |",
        f"| the run's CPU share of the wall | {run_cpu / wall:.0%} of a core |",
        f"| the run's RSS growth per 1M URLs written (second half) | {growth:+.2f} MiB |",
        f"| URLs written per second, first half of the wall / second half | {halves[0]:,.0f} / {halves[1]:,.0f} |",
        f"| downloaded by the run (children, bytes) | {sent_children:,}, {sent_bytes / MIB:,.0f} MiB "
        f"({sent_bytes / wall / MIB:.1f} MiB/s) |",
        f"| written by the run: OUT | {out_size / MIB:,.0f} MiB |",
        f"| the run's temporary folder, peak size | {samples.tmp_peak / MIB:,.0f} MiB |",
        f"| this script's CPU (the scheduler with its heartbeats, its client, the sampler) over the children | "
        f"{self_cpu / args.children * 1e3:.1f} ms |",
    ]
    if stderr.strip():
        said = stderr.strip().splitlines()
        rows += ["", f"The run's standard error ({len(said)} lines), first lines:", ""]
        rows += [f"    {line}" for line in said[:5]]
    del stdout
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.exit(main())
