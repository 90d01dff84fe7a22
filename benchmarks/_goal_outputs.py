"""Reading back what a case of benchmarks/bench_goals.py wrote: its locs, in order, to compare with the raw loop's.

* ``lines``: one URL a line (a text sitemap, what every reading case writes);
* ``urlset``: a sitemaps.org 0.9 ``<urlset>``: each ``<url>``'s ``<loc>``;
* ``rss``: an RSS 2.0 feed: each ``<item>``'s ``<link>``, but for ROR's item about the sitemap itself
  (``ror:about`` = sitemap, which feedmap writes first and holds no page);
* ``split``: a folder of urlsets and its ``sitemap_index.xml``: the locs of each file the index names, in the
  index's order (each name the index's loc less the base URL).
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
ROR_ABOUT = "{http://rorweb.com/0.1/}about"
PARSE = {"resolve_entities": False, "no_network": True, "load_dtd": False, "huge_tree": True}


def _urlset(path: Path) -> list[str]:
    locs = []
    for _event, element in etree.iterparse(str(path), events=("end",), tag=f"{SITEMAP_NS}url", **PARSE):
        locs.append((element.findtext(f"{SITEMAP_NS}loc") or "").strip())
        element.clear()
    return locs


def _rss(path: Path) -> list[str]:
    links = []
    for _event, element in etree.iterparse(str(path), events=("end",), tag="item", **PARSE):
        if element.find(ROR_ABOUT) is None:
            links.append((element.findtext("link") or "").strip())
        element.clear()
    return links


def _split(folder: Path, base: str) -> list[str]:
    tree = etree.parse(str(folder / "sitemap_index.xml"), etree.XMLParser(**PARSE))
    locs: list[str] = []
    for loc in tree.iter(f"{SITEMAP_NS}loc"):
        name = (loc.text or "").strip()
        if not name.startswith(base):
            raise ValueError(f"{folder}: the index names {name!r}, not under {base}")
        locs += _urlset(folder / name[len(base) :])
    return locs


def locs_of(out: Path, check: str, base: str = "") -> list[str]:
    if check == "lines":
        return [line for line in out.read_text(encoding="utf-8").splitlines() if line]
    if check == "urlset":
        return _urlset(out)
    if check == "rss":
        return _rss(out)
    if check == "split":
        return _split(out, base)
    raise ValueError(f"unknown check {check!r}")
