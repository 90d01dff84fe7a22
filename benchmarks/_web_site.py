"""The local web site of benchmarks/bench_web.py, served from its own process (so that the server's Python
does not share a GIL with the client being measured).

    python benchmarks/_web_site.py --pages 2000 --children 20 --urls 5000 --latency 0.05

Prints the site's base URL on one line once it listens, then serves until its standard input closes.
Every response (pages and sitemaps alike) is sent ``--latency`` seconds after the request arrives,
standing in for network latency.  It uses tests/localsite.py, the real HTTP/1.1 server of the tests.

* ``/pages.xml``: a sitemap of the ``--pages`` HTML pages ``/page/N.html`` (title, meta description and
  keywords, entities, about 4 KB each) -- the input of the enrichment runs;
* ``/index.xml``: a sitemap index of ``--children`` sitemaps of ``--urls`` URLs each, every other one
  served gzip-compressed (``.xml.gz``) -- the input of the index-following runs; ``/robots.txt`` names it.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from localsite import LocalSite

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
FILLER = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. " * 40


def page(number: int) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f"<title>Page {number} &amp; friends \u2013 caf\u00e9</title>"
        f'<meta name="description" content="All about item {number}: prices &amp; reviews.">'
        f'<meta name="keywords" content="item{number}, shop, caf&eacute;">'
        f"</head><body><h1>Item {number}</h1><p>{FILLER}</p></body></html>\n"
    )


def urlset(locs: list[str], lastmod: str) -> str:
    body = "".join(f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod></url>\n" for loc in locs)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}">\n{body}</urlset>\n'


def build(site: LocalSite, args: argparse.Namespace) -> None:
    latency = args.latency
    html = "text/html; charset=utf-8"
    for number in range(args.pages):
        site.add(f"/page/{number}.html", page(number), content_type=html, delay=latency)
    pages = [site.url(f"/page/{n}.html") for n in range(args.pages)]
    site.add("/pages.xml", urlset(pages, "2024-06-01"), delay=latency)
    children = []
    for child in range(args.children):
        locs = [site.url(f"/item/{child}/{n}") for n in range(args.urls)]
        body = urlset(locs, f"2024-{1 + child % 12:02d}-15T10:00:00Z").encode()
        if child % 2:
            path = f"/sitemaps/{child}.xml.gz"
            site.add(path, gzip.compress(body), content_type="application/gzip", delay=latency)
        else:
            path = f"/sitemaps/{child}.xml"
            site.add(path, body, delay=latency)
        children.append(site.url(path))
    entries = "".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in children)
    index = f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SM}">\n{entries}</sitemapindex>\n'
    site.add("/index.xml", index, delay=latency)
    site.add("/robots.txt", f"User-agent: *\nAllow: /\nSitemap: {site.url('/index.xml')}\n", content_type="text/plain")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--children", type=int, default=20)
    parser.add_argument("--urls", type=int, default=5000)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    with LocalSite() as site:
        build(site, args)
        print(site.base, flush=True)
        sys.stdin.read()  # serve until the benchmark closes our standard input
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
