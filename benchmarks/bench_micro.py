#!/usr/bin/env python3
"""The small measurements behind choices the code explains (each module says which case is its own):

    python benchmarks/bench_micro.py              # every case, best of 5 (about half a minute)
    python benchmarks/bench_micro.py --quick      # a smoke run: tiny inputs, one repeat

* ``control``: finding a C0 control byte in a chunk, ``bytes.translate`` against the regex
  (``feedmap._xml._cleaning._has_control``);
* ``noncharacter``: looking for U+FFFE/U+FFFF by their one-byte lead first, against the three-byte search
  (``feedmap._xml._decoding._has_noncharacter``);
* ``escape``: writing ``<url><loc>`` by string building through ``escape_text``, against ``lxml.etree.xmlfile``
  (``feedmap.formats._xmlwrite``), for locs with nothing to escape and with ``&`` in each;
* ``entry``: building a :class:`feedmap.Entry` against a frozen dataclass of the same fields (``feedmap._core.model``);
* ``sqlite``: inserting and looking up keys in one transaction, SQLite ``locking_mode`` NORMAL against
  EXCLUSIVE (``feedmap._diff.diff``);
* ``feedparser``: the cumulative import time of feedparser, which ``feedmap.formats.feeds._parsed`` imports
  only when a feed needs it.

Each line prints the case, the time of one operation each way (best of ``--repeat``) and the second over the
first: how many times faster the way the code takes (always the first) is.  These are
micro-benchmarks on a shared machine: read the ratios, not the absolute times.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import timeit
from collections.abc import Callable

from lxml import etree

import feedmap
from feedmap._xml import escape_text
from feedmap._xml._cleaning import _CONTROL, _has_control
from feedmap._xml._decoding import _has_noncharacter


def best(call: Callable[[], object], repeat: int) -> float:
    """Seconds per call, the best of ``repeat`` rounds."""
    number, _ = timeit.Timer(call).autorange()
    return min(timeit.Timer(call).repeat(repeat=repeat, number=number)) / number


def report(case: str, what: str, first: float, second: float) -> None:
    print(f"{case:<12} {what:<58} {first * 1e6:>12,.1f} us {second * 1e6:>12,.1f} us  x{second / first:,.1f}")


def control(size: int, repeat: int) -> None:
    data = bytes(range(32, 127)) * (size // 95)
    report("control", "translate / regex search, no control byte", best(lambda: _has_control(data), repeat),
           best(lambda: _CONTROL.search(data), repeat))  # fmt: skip


def noncharacter(size: int, repeat: int) -> None:
    data = b"a" * size
    report("noncharacter", "one-byte lead first / three-byte search", best(lambda: _has_noncharacter(data), repeat),
           best(lambda: data.find(b"\xef\xbf\xbe") >= 0 or data.find(b"\xef\xbf\xbf") >= 0, repeat))  # fmt: skip


def _xmlfile(locs: list[str]) -> bytes:
    out = io.BytesIO()
    with etree.xmlfile(out) as xf, xf.element("urlset"):
        for loc in locs:
            with xf.element("url"), xf.element("loc"):
                xf.write(loc)
    return out.getvalue()


def escape(count: int, repeat: int) -> None:
    for label, locs in (("plain", [f"https://e.com/{n}/page" for n in range(count)]),
                        ("with &", [f"https://e.com/{n}?a=1&b=2" for n in range(count)])):  # fmt: skip
        built = best(lambda locs=locs: "".join(f"<url><loc>{escape_text(loc)}</loc></url>\n" for loc in locs).encode(),
                     repeat)  # fmt: skip
        report("escape", f"string building / lxml xmlfile, {count:,} locs {label}", built,
               best(lambda locs=locs: _xmlfile(locs), repeat))  # fmt: skip


def entry(repeat: int) -> None:
    fields = [
        (f.name, f.type, dataclasses.field(default=f.default, default_factory=f.default_factory, compare=f.compare))
        for f in dataclasses.fields(feedmap.Entry)
    ]
    frozen = dataclasses.make_dataclass("FrozenEntry", fields, frozen=True, slots=True, kw_only=True)
    report("entry", "feedmap.Entry / the same fields frozen (no checks)",
           best(lambda: feedmap.Entry(loc="https://e.com/a"), repeat),
           best(lambda: frozen(loc="https://e.com/a"), repeat))  # fmt: skip


def _keys(mode: str, count: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        db = sqlite3.connect(os.path.join(folder, "keys.sqlite3"), isolation_level=None)
        for pragma in ("journal_mode = OFF", "synchronous = OFF", f"locking_mode = {mode}"):
            db.execute(f"PRAGMA {pragma}")
        db.execute("CREATE TABLE k (loc TEXT PRIMARY KEY, line INTEGER)")
        db.execute("BEGIN")
        db.executemany("INSERT INTO k VALUES (?, ?)", ((f"https://e.com/{n}", n) for n in range(count)))
        for n in range(0, count, 2):
            db.execute("SELECT line FROM k WHERE loc = ?", (f"https://e.com/{n}",)).fetchone()
        db.close()


def sqlite(count: int, repeat: int) -> None:
    report("sqlite", f"EXCLUSIVE / NORMAL locking, {count:,} keys", best(lambda: _keys("EXCLUSIVE", count), repeat),
           best(lambda: _keys("NORMAL", count), repeat))  # fmt: skip


def feedparser_import() -> None:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import feedparser"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    found = re.search(r"\|\s*(\d+) \| feedparser$", done.stderr, re.MULTILINE)
    microseconds = int(found.group(1)) if found else 0
    print(f"{'feedparser':<12} {'import feedparser, cumulative':<58} {microseconds:>12,.1f} us")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="tiny inputs, one repeat (a smoke run)")
    parser.add_argument("--repeat", type=int, default=5, help="rounds per timing; the best is kept (default 5)")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    control(1_000 if args.quick else 100_000, repeat)
    noncharacter(1_000 if args.quick else 100_000, repeat)
    escape(100 if args.quick else 10_000, repeat)
    entry(repeat)
    sqlite(1_000 if args.quick else 50_000, repeat)
    feedparser_import()
    return 0


if __name__ == "__main__":
    sys.exit(main())
