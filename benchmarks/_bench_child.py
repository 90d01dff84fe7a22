"""The measured side of benchmarks/bench_read.py: one case per process (kept small so that start-up
time and peak RSS are the case's own, not the benchmark driver's).

    python benchmarks/_bench_child.py raw REPORT OUT FILE...         (a) plain lxml iterparse -> text
    python benchmarks/_bench_child.py api-text REPORT OUT FILE...    (c) feedmap._api.convert(..., to="text")

REPORT receives a JSON object: in-process work time, entries, diagnostics.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from typing import Any

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"


def child_raw(out: str, files: Sequence[str]) -> dict[str, Any]:
    """(a) The raw limit: plain iterparse, the same fields feedmap reads, locs written one per line."""
    from lxml import etree

    url_tag = f"{{{SITEMAP_NS}}}url"
    loc_tag = f"{{{SITEMAP_NS}}}loc"
    lastmod_tag = f"{{{SITEMAP_NS}}}lastmod"
    changefreq_tag = f"{{{SITEMAP_NS}}}changefreq"
    priority_tag = f"{{{SITEMAP_NS}}}priority"
    image_tag = f"{{{IMAGE_NS}}}image"
    image_loc_tag = f"{{{IMAGE_NS}}}loc"
    caption_tag = f"{{{IMAGE_NS}}}caption"
    count = images = 0
    started = time.perf_counter()
    with open(out, "wb") as sink:
        pending: list[str] = []
        for path in files:
            context = etree.iterparse(
                path,
                events=("end",),
                tag=url_tag,
                resolve_entities=False,
                no_network=True,
                load_dtd=False,
                huge_tree=False,
                remove_comments=True,
                remove_pis=True,
            )
            for _event, element in context:
                loc = lastmod = changefreq = priority = None
                found: list[tuple[str | None, str | None]] = []
                for child in element:
                    tag = child.tag
                    if tag == loc_tag:
                        loc = (child.text or "").strip()
                    elif tag == lastmod_tag:
                        lastmod = child.text
                    elif tag == changefreq_tag:
                        changefreq = child.text
                    elif tag == priority_tag:
                        priority = child.text
                    elif tag == image_tag:
                        image_loc = caption = None
                        for sub in child:
                            if sub.tag == image_loc_tag:
                                image_loc = sub.text
                            elif sub.tag == caption_tag:
                                caption = sub.text
                        found.append((image_loc, caption))
                del lastmod, changefreq, priority
                images += len(found)
                if loc:
                    pending.append(loc)
                    count += 1
                element.clear(keep_tail=False)
                parent = element.getparent()
                if parent is not None:
                    while element.getprevious() is not None:
                        del parent[0]
                if len(pending) >= 4096:
                    sink.write(("\n".join(pending) + "\n").encode("utf-8"))
                    pending.clear()
            del context
        if pending:
            sink.write(("\n".join(pending) + "\n").encode("utf-8"))
    return {"work_s": time.perf_counter() - started, "entries": count, "images": images, "diagnostics": 0}


def child_api(out: str, files: Sequence[str], to: str = "text") -> dict[str, Any]:
    """(c) The library path: ``feedmap._api.convert([...], out, to=...)``."""
    started = time.perf_counter()
    from feedmap import _api as api

    imported = time.perf_counter()
    summary = api.convert(list(files), out, to=to)
    done = time.perf_counter()
    return {
        "work_s": done - imported,
        "import_s": imported - started,
        "entries": summary.entries,
        "diagnostics": sum(summary.reporter.counts.values()),
        "warnings": summary.reporter.warnings,
        "diagnostic_codes": dict(summary.reporter.counts),
    }


def child_main(argv: Sequence[str]) -> int:
    if len(argv) < 4:
        print("usage: _bench_child.py raw|api-FORMAT REPORT OUT FILE...", file=sys.stderr)
        return 2
    mode, report, out, *files = argv
    if mode == "raw":
        result = child_raw(out, files)
    elif mode.startswith("api-"):
        result = child_api(out, files, to=mode[4:])
    else:
        print(f"unknown child mode {mode!r}", file=sys.stderr)
        return 2
    with open(report, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))
