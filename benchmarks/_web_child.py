"""The measured side of benchmarks/bench_web.py: one case per process, reporting its own time and peak RSS.

    python benchmarks/_web_child.py feedmap REPORT -- ARGS...   feedmap.cli.main(ARGS) in this process
    python benchmarks/_web_child.py usp REPORT INDEX_URL         ultimate-sitemap-parser reads the index

REPORT receives a JSON object: work_s (after imports), entries, peak_rss_mib, exit code.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path
from typing import Any


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_feedmap(args: list[str]) -> dict[str, Any]:
    from feedmap.cli import main

    started = time.perf_counter()
    code = main(args)
    work = time.perf_counter() - started
    output = Path(args[args.index("-o") + 1])
    entries = sum(1 for _ in output.open("rb")) if output.exists() else 0
    return {"work_s": work, "entries": entries, "exit": code}


def run_usp(url: str) -> dict[str, Any]:
    from usp.fetch_parse import SitemapFetcher

    started = time.perf_counter()
    tree = SitemapFetcher(url=url, recursion_level=0).sitemap()
    entries = sum(1 for _ in tree.all_pages())
    return {"work_s": time.perf_counter() - started, "entries": entries, "exit": 0}


def main() -> int:
    mode, report = sys.argv[1], Path(sys.argv[2])
    rest = sys.argv[3:]
    if mode == "feedmap":
        result = run_feedmap(rest[1:] if rest[:1] == ["--"] else rest)
    elif mode == "usp":
        result = run_usp(rest[0])
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    result["peak_rss_mib"] = _peak_mib()
    report.write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
