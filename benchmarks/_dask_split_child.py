"""One case of ``bench_dask.py``'s library table, in a fresh process: the 1M-URL index split into a directory of
text sitemaps with ``--jobs N`` (``feedmap.convert``) or by a running Dask cluster (``feedmap.dask.read_bag`` then
``write_split``).  Prints the seconds spent after the imports (the whole process is timed by the caller).

    python _dask_split_child.py jobs N INDEX BASE OUT
    python _dask_split_child.py bag ADDRESS INDEX BASE OUT
"""

from __future__ import annotations

import os
import sys
import time

import feedmap


def main(mode: str, where: str, index: str, base: str, out: str) -> None:
    maps = ((base, os.path.dirname(index)),)
    if mode == "jobs":
        started = time.perf_counter()
        feedmap.convert(index, out + "/", "text", feedmap.Options(jobs=int(where), maps=maps, base_url=base))
    else:
        import distributed

        from feedmap import dask as on_dask

        with distributed.Client(where):
            started = time.perf_counter()
            bag = on_dask.read_bag(index, options=feedmap.Options(maps=maps))
            on_dask.write_split(bag, out, base, "text")
    print(f"{time.perf_counter() - started:.3f}")


if __name__ == "__main__":
    main(*sys.argv[1:6])
