"""The cyclic garbage collector spaced out while a run streams entries.

Python's collector (https://docs.python.org/3/library/gc.html, ``gc.set_threshold``) looks at the youngest
objects after every 700 container allocations more than frees, by default.  A streaming run allocates and frees
a few objects per entry (the entry, its position, its date, a record), which reference counting frees without the
collector, but each pass of the collector still walks the objects alive at that moment: measured on a 200,000-URL
index converted to text, 9% of the instructions of the run (``valgrind --tool=callgrind``).  While a run streams,
:func:`spaced_collections` raises the youngest generation's threshold to :data:`THRESHOLD` (the older
generations' are kept), and puts back what it found when the run ends.  Objects in reference cycles are still
collected, after at most that many allocations: memory stays bounded, it does not grow with the entries.  A
collector that is off, or already spaced as much, is left as it is.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["THRESHOLD", "spaced_collections"]

#: Container allocations (more than frees) between two passes over the youngest objects while a run streams.
THRESHOLD = 50_000


@contextlib.contextmanager
def spaced_collections() -> Iterator[None]:
    """Within the block, the youngest generation is collected after :data:`THRESHOLD` allocations at the most;
    the thresholds found are put back after it (also when it raises)."""
    youngest, middle, oldest = gc.get_threshold()
    if not gc.isenabled() or youngest == 0 or youngest >= THRESHOLD:
        yield
        return
    gc.set_threshold(THRESHOLD, middle, oldest)
    try:
        yield
    finally:
        gc.set_threshold(youngest, middle, oldest)
