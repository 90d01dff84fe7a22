#!/usr/bin/env python3
"""Are two feedmap trees' outputs byte for byte the same?  Every corpus input and sample, every target format.

    python benchmarks/compare_outputs.py OLD_ROOT [NEW_ROOT]        # NEW_ROOT: this checkout (default)
    python benchmarks/compare_outputs.py /tmp/old --new-args "--jobs 2"    # NEW with extra options
    python benchmarks/compare_outputs.py /tmp/old --only sitemapjs advertools --show 20

OLD_ROOT and NEW_ROOT are folders holding a ``feedmap/`` package (``git archive COMMIT feedmap | tar -x -C
/tmp/old`` gives one).  The inputs are every file of the conformance corpus (``$FEEDMAP_CORPUS``, read in
place, never copied; its ``*.py`` sources, READMEs and licences left out) and every input of ``samples/`` (with
its ``<case>.options.json`` maps), each run through

* ``feedmap convert INPUT -t FMT -o OUT`` for every target format (``sitemap text jsonl rss ror``; ``ror`` with
  ``--link https://example.com/``), and
* ``feedmap info INPUT --json`` and ``feedmap validate INPUT --json``,

in one process per tree (``feedmap.cli.main`` called in-process, stdout and stderr captured; both trees run at
the same time), in a folder of its own where OUT has the same relative name for both, so that the messages are
the same text.  Corpus inputs are read with ``--no-follow`` (an index's children are remote URLs); ``--follow``
follows them (short ``--deadline``, no retry: what cannot be fetched is a diagnostic on both sides).  Then every
case's output bytes, stdout, stderr and exit code are compared, and each difference is listed (exit 1).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TARGETS = ("sitemap", "text", "jsonl", "rss", "ror")
SKIPPED_NAMES = ("README", "LICENSE", "COPYING", "NOTICE")
CASE_SECONDS = 120


def corpus_inputs(corpus: Path, only: Sequence[str]) -> list[Path]:
    inputs = []
    for path in sorted(corpus.rglob("*")):
        relative = path.relative_to(corpus)
        if not path.is_file() or path.suffix == ".py" or path.name.upper().startswith(SKIPPED_NAMES):
            continue
        if only and relative.parts[0] not in only:
            continue
        inputs.append(path)
    return inputs


def sample_inputs(samples: Path) -> list[tuple[Path, list[str]]]:
    """Each input of samples/ (not its expected outputs, options or the site it maps to) and its options."""
    found = []
    for path in sorted(samples.glob("*/*")):
        if path.parent.name == "site" or ".expected." in path.name or path.name.endswith(".options.json"):
            continue
        options = path.with_name(path.name.split(".")[0] + ".options.json")
        extra: list[str] = []
        if options.is_file():
            for prefix, folder in json.loads(options.read_text(encoding="utf-8")).get("maps", []):
                extra += ["--map", f"{prefix}={(path.parent / folder).resolve()}"]
        found.append((path, extra))
    return found


def cases(inputs: list[tuple[Path, list[str]]], new_args: list[str]) -> list[dict[str, Any]]:
    """Every command of every input: an id, the argv (``OUT`` for the output) and the new tree's extra options."""
    made = []
    for number, (path, extra) in enumerate(inputs):
        for target in TARGETS:
            argv = ["convert", str(path), *extra, "-t", target, "-o", "OUT"]
            argv += ["--link", "https://example.com/"] if target == "ror" else []
            made.append({"id": f"{number:05d}-{target}", "input": str(path), "argv": argv})
        for command in ("info", "validate"):
            made.append(
                {"id": f"{number:05d}-{command}", "input": str(path), "argv": [command, str(path), *extra, "--json"]}
            )
    for case in made:
        case["new_args"] = new_args
    return made


class _Timeout(Exception):
    pass


def _alarm(_signum: int, _frame: object) -> None:
    raise _Timeout


@contextlib.contextmanager
def _captured(into: dict[str, str]) -> Iterator[None]:
    """sys.stdout and sys.stderr as the CLI gets them in a process (text over bytes); what they received goes
    into ``into`` (``stdout``, ``stderr``)."""
    out, err = io.BytesIO(), io.BytesIO()
    streams = (
        io.TextIOWrapper(out, encoding="utf-8"),
        io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace"),
    )
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = streams
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        for name, stream, raw in (("stdout", streams[0], out), ("stderr", streams[1], err)):
            with contextlib.suppress(ValueError):
                stream.flush()
            into[name] = raw.getvalue().decode("utf-8", "backslashreplace")
            stream.detach() if not raw.closed else None


def worker(store: Path, case_file: Path, extra: bool) -> int:
    """In the tree's process: run every case, keep its output, stdout, stderr and exit code in ``store``."""
    from feedmap.cli import main

    work = store / "work"
    work.mkdir(parents=True, exist_ok=True)
    os.chdir(work)
    signal.signal(signal.SIGALRM, _alarm)
    for case in json.loads(case_file.read_text(encoding="utf-8")):
        argv = list(case["argv"])
        if extra:
            argv += case["new_args"]
        out = work / "OUT"
        out.unlink(missing_ok=True)
        signal.alarm(CASE_SECONDS)
        record: dict[str, object] = {}
        try:
            with _captured(record):  # type: ignore[arg-type]
                record["exit"] = main(argv)
        except _Timeout:
            record["exit"] = f"timeout after {CASE_SECONDS} s"
        except BaseException as exc:  # a crash is a result to compare, not the end of the run
            record["exit"] = f"crashed: {type(exc).__name__}: {exc}"
        finally:
            signal.alarm(0)
        (store / f"{case['id']}.json").write_text(json.dumps(record), encoding="utf-8")
        if out.is_file():
            out.replace(store / f"{case['id']}.out")
    return 0


def _start(root: Path, store: Path, case_file: Path, extra: bool) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
    env.pop("PYTHONSTARTUP", None)
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", str(store), str(case_file)]
    command += ["--extra"] if extra else []
    return subprocess.Popen(command, env=env, cwd=store.parent)


def _first_difference(old: bytes, new: bytes) -> str:
    at = next((index for index, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
    return f"from byte {at}: {old[at : at + 60]!r} / {new[at : at + 60]!r} (sizes {len(old)} / {len(new)})"


def compare(case_list: list[dict[str, Any]], old: Path, new: Path) -> list[str]:
    differences = []
    for case in case_list:
        name = f"{case['id']} feedmap {shlex.join(case['argv'])}"
        records = [(store / f"{case['id']}.json") for store in (old, new)]
        if not all(record.is_file() for record in records):
            differences.append(f"{name}: not run by {'OLD' if not records[0].is_file() else 'NEW'}")
            continue
        before, after = (json.loads(record.read_text(encoding="utf-8")) for record in records)
        for key in ("exit", "stdout", "stderr"):
            if before[key] != after[key]:
                differences.append(
                    f"{name}: {key} differs {_first_difference(str(before[key]).encode(), str(after[key]).encode())}"
                )
        outputs = [store / f"{case['id']}.out" for store in (old, new)]
        present = [output.is_file() for output in outputs]
        if present[0] != present[1]:
            differences.append(f"{name}: output written by {'OLD' if present[0] else 'NEW'} only")
        elif present[0]:
            a, b = (output.read_bytes() for output in outputs)
            if a != b:
                differences.append(f"{name}: output differs {_first_difference(a, b)}")
    return differences


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old_root", type=Path, nargs="?", help="the tree whose outputs are the reference")
    parser.add_argument("new_root", type=Path, nargs="?", default=REPO, help="the tree compared (default: this one)")
    parser.add_argument("--new-args", default="", help="options added to every command of NEW (e.g. '--jobs 2')")
    parser.add_argument("--corpus", type=Path, default=os.environ.get("FEEDMAP_CORPUS"), help="($FEEDMAP_CORPUS)")
    parser.add_argument("--only", nargs="+", default=[], help="corpus folders to take (default: all)")
    parser.add_argument("--no-samples", action="store_true", help="leave out samples/")
    parser.add_argument("--follow", action="store_true", help="follow corpus indexes (remote children)")
    parser.add_argument("--show", type=int, default=50, help="differences printed (default 50)")
    parser.add_argument("--worker", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--extra", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker[0], args.worker[1], args.extra)
    if args.old_root is None:
        parser.error("OLD_ROOT is needed")
    for root in (args.old_root, args.new_root):
        if not (root / "feedmap" / "__init__.py").is_file():
            parser.error(f"{root}: no feedmap/__init__.py there")
    inputs: list[tuple[Path, list[str]]] = []
    if args.corpus:
        follow = ["--deadline", "5", "--retries", "0"] if args.follow else ["--no-follow"]
        inputs += [(path, follow) for path in corpus_inputs(args.corpus, args.only)]
    else:
        print("no corpus: set FEEDMAP_CORPUS or --corpus (samples only)", file=sys.stderr)
    inputs += [] if args.no_samples else sample_inputs(REPO / "samples")
    if not inputs:
        parser.error("no input to convert (no corpus, --no-samples)")
    case_list = cases(inputs, shlex.split(args.new_args))
    with tempfile.TemporaryDirectory(prefix="compare-outputs-") as scratch:
        case_file = Path(scratch) / "cases.json"
        case_file.write_text(json.dumps(case_list), encoding="utf-8")
        stores = [Path(scratch) / "old", Path(scratch) / "new"]
        for store in stores:
            store.mkdir()
        print(f"{len(inputs):,} inputs, {len(case_list):,} commands per tree...", file=sys.stderr, flush=True)
        workers = [
            _start(args.old_root.resolve(), stores[0], case_file, False),
            _start(args.new_root.resolve(), stores[1], case_file, True),
        ]
        codes = [process.wait() for process in workers]
        if any(codes):
            print(f"a worker failed (exit {codes})", file=sys.stderr)
            return 2
        differences = compare(case_list, *stores)
    label = f"OLD {args.old_root} / NEW {args.new_root}" + (f" {args.new_args}" if args.new_args else "")
    print(f"{label}: {len(inputs):,} inputs, {len(case_list):,} commands, {len(differences):,} differing")
    for line in differences[: args.show]:
        print("  " + line)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
