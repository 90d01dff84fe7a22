"""The data of benchmarks/bench_goals.py (issue 19's table), generated deterministically into a scratch folder.

Every case of a row reads the same file(s).  The URLs and dates are those of ``_scale_data`` (``PREFIX``,
``_loc``, ``_lastmod``, ``made``); the 50,000-URL image sitemap of the first row is ``_bench_data``'s
realistic one (every field, one or two images a URL).

* :func:`write_index`: a sitemaps.org 0.9 sitemap index naming ``children`` sitemaps of ``per_child`` URLs (a
  ``<lastmod>`` each, no repeated URL) by https URLs under :data:`INDEX_BASE` (feedmap reads them with
  ``--map INDEX_BASE=DIR``), and a second index naming the same files by ``file://`` URLs (for the peers
  that fetch every child with urllib);
* :func:`write_ror`: an RSS 2.0 feed of ``items`` ROR items (http://rorweb.com/0.1/: ``ror:updated``,
  ``ror:updatePeriod``, ``ror:resourceOf``), each with a title, a link and a permalink guid;
* :func:`write_text`: a text sitemap (sitemaps.org "Text file": one URL a line, UTF-8).
"""

from __future__ import annotations

import random
from pathlib import Path

from _scale_data import _lastmod, _loc

INDEX_BASE = "https://bench.example/index/"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
ROR_NS = "http://rorweb.com/0.1/"
_PERIODS = ("day", "week", "month", "year")


def write_index(root: Path, children: int, per_child: int, seed: int = 21) -> tuple[Path, Path]:
    """The index (https child URLs) and the same index with ``file://`` child URLs; the children in ``root``."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    names = []
    for child in range(children):
        name = f"child-{child + 1:03d}.xml"
        names.append(name)
        with open(root / name, "w", encoding="utf-8") as out:
            out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}">\n')
            lines = []
            for number in range(child * per_child, (child + 1) * per_child):
                lines.append(f"<url><loc>{_loc(number)}</loc><lastmod>{_lastmod(rng)}</lastmod></url>\n")
            out.write("".join(lines))
            out.write("</urlset>\n")
    index = root / "index.xml"
    local = root / "index-file-urls.xml"
    for path, base in ((index, INDEX_BASE), (local, root.resolve().as_uri() + "/")):
        with open(path, "w", encoding="utf-8") as out:
            out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SITEMAP_NS}">\n')
            for name in names:
                out.write(f"<sitemap><loc>{base}{name}</loc><lastmod>2024-06-01</lastmod></sitemap>\n")
            out.write("</sitemapindex>\n")
    return index, local


def write_ror(path: Path, items: int, seed: int = 22) -> None:
    """An RSS 2.0 feed of ``items`` ROR items."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:ror="{ROR_NS}">\n<channel>')
        out.write("<title>Bench</title><link>https://bench.example/</link><description>ROR sitemap</description>\n")
        lines = []
        for number in range(items):
            loc = _loc(number)
            lines.append(
                f"<item><title>Product {number} &amp; more</title><link>{loc}</link>"
                f'<guid isPermaLink="true">{loc}</guid><ror:updated>{_lastmod(rng)}</ror:updated>'
                f"<ror:updatePeriod>{rng.choice(_PERIODS)}</ror:updatePeriod>"
                "<ror:resourceOf>sitemap</ror:resourceOf></item>\n"
            )
        out.write("".join(lines))
        out.write("</channel>\n</rss>\n")


def text_url(number: int) -> str:
    """URL ``number`` of the text sitemaps, as written (a text sitemap escapes nothing)."""
    return _loc(number).replace("&amp;", "&")


def write_text(path: Path, urls: int) -> None:
    """A text sitemap of ``urls`` URLs, one a line."""
    with open(path, "w", encoding="utf-8") as out:
        for start in range(0, urls, 10_000):
            out.write("".join(text_url(number) + "\n" for number in range(start, min(start + 10_000, urls))))
