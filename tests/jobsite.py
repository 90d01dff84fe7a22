"""The site the ``--jobs`` and ``--dask`` tests read: an index whose children are broken in the ways reading reports
(a truncated file, a missing one, an HTML page, bad dates and priorities, a relative URL, a nested index, a gzip
child) and repeat each other's URLs, so that merges and their diagnostics span partitions."""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from pathlib import Path

from conftest import SITEMAP_NS, index_xml

SITE = "https://example.com/"


def urlset(child: int, count: int) -> str:
    rows = []
    for i in range(count):
        loc = f"{SITE}page-{(child * count + i) % (count * 3)}.html"  # children repeat each other's URLs
        lastmod = f"<lastmod>2024-{1 + (child + i) % 12:02d}-{1 + i % 28:02d}</lastmod>" if i % 4 else ""
        if i % 61 == 0:
            lastmod = "<lastmod>yesterday</lastmod>"
        priority = "<priority>1.5</priority>" if i % 53 == 0 else "<priority>0.5</priority>"
        image = f"<image:image><image:loc>{SITE}i{i}.png</image:loc></image:image>" if i % 7 == 0 else ""
        rows.append(f"<url><loc>{loc}</loc>{lastmod}<changefreq>daily</changefreq>{priority}{image}</url>")
    if child == 2:
        rows.insert(5, "<url><loc>relative/page.html</loc></url>")
    head = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}" '
        'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n'
    )
    return head + "\n".join(rows) + "\n</urlset>\n"


def jobs_site(folder: Path, count: int = 400) -> dict[str, bytes]:
    """The files of a site whose index names good, broken and nested children (path under the site: bytes)."""
    files = {f"c{child}.xml": urlset(child, count).encode() for child in range(6)}
    files["c3.xml"] = files["c3.xml"][: len(files["c3.xml"]) // 2]  # breaks off inside an entry
    files["c5.xml.gz"] = gzip.compress(files.pop("c5.xml"))
    files["page.html"] = b"<!DOCTYPE html><html><head><title>no sitemap</title></head><body></body></html>"
    files["inner.xml"] = index_xml(f"{SITE}c4.xml", f"{SITE}c1.xml")
    names = ["c0.xml", "c1.xml", "c2.xml", "c3.xml", "missing.xml", "page.html", "inner.xml", "c4.xml", "c5.xml.gz"]
    files["index.xml"] = index_xml(*(SITE + name for name in names))
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        (folder / name).write_bytes(body)
    return files


def files_in(folder: Path) -> dict[str, bytes]:
    """Each file of ``folder`` (not below it) by name: what a run wrote there, to compare with another's."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def descendants(pid: int) -> Iterator[int]:
    """The processes below ``pid`` (Linux: each process's parent from /proc/PID/stat)."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            parents[int(name)] = int(stat.rsplit(")", 1)[1].split()[1])
    below = {pid}
    grew = True
    while grew:
        found = {child for child, parent in parents.items() if parent in below} - below
        grew = bool(found)
        below |= found
        yield from found
