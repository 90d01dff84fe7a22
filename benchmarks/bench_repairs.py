"""How long feedmap takes to read a sitemap whose one ``<loc>`` needs millions of repairs.

Each repair of the lenient reader (a control character removed, a bare ``&`` escaped, a byte that is not
UTF-8 replaced, a character reference to a forbidden character replaced) is reported with its line up to
a cap per kind, then counted.  Reading must stay linear in the input size: 10 MiB of ``\\x01`` in one
``<loc>`` (about 10 KB gzipped) once took minutes because every repair counted the lines from the start
of its chunk.

    python benchmarks/bench_repairs.py            # 1 MiB and 10 MiB of each kind, plain and gzipped
    python benchmarks/bench_repairs.py --quick    # 64 KiB and 256 KiB (a smoke run, about a second)
    python benchmarks/bench_repairs.py --sizes 1 --kinds control   # MiB sizes and kinds to run

Each case is read in this process through ``feedmap.read`` (format detection included) and timed with
``time.perf_counter``; the script checks that the entry was read with the expected loc length and that
the diagnostics were capped, and exits 1 otherwise.  ``--feedmap-root DIR`` times the feedmap package
found in DIR instead (an older checkout from ``git archive``, to compare before and after a change; an
older one reports every repair, so its "reported" column is not capped and is flagged).
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import io
import sys
import time
from collections import Counter
from pathlib import Path
from types import ModuleType

NS = b"http://www.sitemaps.org/schemas/sitemap/0.9"
#: kind -> (the bytes repeated inside the loc, the diagnostic code each repair gets)
KINDS: dict[str, tuple[bytes, str]] = {
    "control": (b"\x01", "control-character"),
    "ampersand": (b"&", "bare-ampersand"),
    "utf8": (b"\xff", "invalid-utf8"),
    "charref": (b"&#1;", "invalid-char-ref"),
}
MIB = 1024 * 1024


def document(junk: bytes, size: int) -> bytes:
    count = max(size // len(junk), 1)
    return (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="'
        + NS
        + b'">\n<url><loc>http://e.com/'
        + junk * count
        + b"</loc></url>\n<url><loc>http://e.com/after</loc></url>\n</urlset>\n"
    )


def run_case(feedmap: ModuleType, data: bytes, code: str) -> tuple[float, int, int, bool]:
    """Read ``data``; returns (seconds, entries, diagnostics with ``code``, whether lxml refused the loc as
    longer than its 10,000,000-character text limit, which ``huge_tree=False`` keeps on purpose)."""
    start = time.perf_counter()
    with feedmap.read(io.BytesIO(data)) as doc:
        entries = list(doc.entries)
    elapsed = time.perf_counter() - start
    counts: Counter[str] = Counter(d.code for d in doc.diagnostics)
    too_long = any(d.code == "xml-not-well-formed" and "Text node too long" in d.message for d in doc.diagnostics)
    return elapsed, len(entries), counts[code], too_long


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="64 KiB and 256 KiB only (a smoke run)")
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 10], help="sizes in MiB (default: 1 10)")
    parser.add_argument("--kinds", nargs="+", choices=sorted(KINDS), default=sorted(KINDS), help="repair kinds")
    parser.add_argument("--feedmap-root", type=Path, metavar="DIR", help="time the feedmap package found in DIR")
    args = parser.parse_args(argv)
    if args.feedmap_root is not None:
        sys.path.insert(0, str(args.feedmap_root.resolve()))
    feedmap = importlib.import_module("feedmap")
    print(f"feedmap from {Path(feedmap.__file__).parent}")
    sizes = [64 * 1024, 256 * 1024] if args.quick else [int(size * MIB) for size in args.sizes]
    failures = 0
    print(f"{'kind':<10} {'size':>10} {'gzip':>5} {'stored':>10} {'seconds':>8} {'entries':>7} {'reported':>8}")
    for kind in args.kinds:
        junk, code = KINDS[kind]
        for size in sizes:
            plain = document(junk, size)
            for compressed in (False, True):
                data = gzip.compress(plain, compresslevel=9) if compressed else plain
                seconds, entries, reported, too_long = run_case(feedmap, data, code)
                ok = (entries == 2 or too_long) and 0 < reported <= 1000
                failures += not ok
                note = "  loc over lxml's text limit" if too_long else ""
                print(
                    f"{kind:<10} {size / MIB:>8.2f}Mi {'yes' if compressed else 'no':>5} {len(data):>10,} "
                    f"{seconds:>8.2f} {entries:>7} {reported:>8}{note}{'' if ok else '  UNEXPECTED'}"
                )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
