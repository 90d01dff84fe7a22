"""A local web site serving a sitemap index of up to 100M URLs without storing them (issue 20, "scale on paper").

    python benchmarks/_big_index_site.py --children 2000 --urls 50000

The server of benchmarks/bench_cluster_scale.py, in its own process (so that its Python does not share a GIL or
a core's time slice with the client being measured).  It prints the site's base URL on one line once it listens,
then serves until its standard input closes, as benchmarks/_web_site.py does; it uses tests/localsite.py, the
real HTTP/1.1 server of the tests.

* ``/index.xml``: a sitemap index of ``--children`` sitemaps ``/sitemaps/N.xml``;
* ``/sitemaps/N.xml``: a urlset of ``--urls`` URLs ``LOC_BASE/item/N/M`` (M from 0), each with a ``<lastmod>``,
  generated when it is asked for (nothing is kept between requests): the same bytes for the same N every time,
  and every loc of the site distinct (N and M are in its path).  ``--loc-base`` is ``https://www.example.com`` by
  default, not the server's own ``http://127.0.0.1:PORT``: a real site's locs have no port, and a loc whose port
  has five digits (as the server's does) is checked by ``urlsplit`` instead of feedmap's one-regex fast path
  (feedmap/_core/urls.py ``_PLAIN_LOC``), which made reading a child about twice as slow;
* ``/stats``: ``children bytes`` -- how many child sitemaps were sent, and their bytes, so far.

The default, 2,000 x 50,000, is 100M URLs (about 9 GB of XML sent); each child is built in a few milliseconds
from per-site parts made once (its lines differ only in N and M).
"""

from __future__ import annotations

import argparse
import sys
import threading
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from localsite import LocalSite, Route

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
HEAD = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}">\n'
TAIL = "</urlset>\n"


def lastmod(number: int) -> str:
    """The lastmod of the URL numbered ``number`` in its child: a date of 2024 and a time, both from ``number``."""
    day = date(2024, 1, 1) + timedelta(days=number % 366)
    minutes = (number * 7) % 1440
    return f"{day.isoformat()}T{minutes // 60:02d}:{minutes % 60:02d}:00Z"


class BigIndex:
    """The site's documents, built on request from parts made once; counts what it sent."""

    def __init__(self, base: str, loc_base: str, children: int, urls: int) -> None:
        self.base = base
        self.loc_base = loc_base
        self.children = children
        # what follows "<url><loc>BASE/item/N/" on each line: the same for every child
        self._tails = [f"{n}</loc><lastmod>{lastmod(n)}</lastmod></url>\n" for n in range(urls)]
        self._lock = threading.Lock()
        self.sent_children = 0
        self.sent_bytes = 0

    def index(self) -> bytes:
        entries = "".join(f"<sitemap><loc>{self.base}/sitemaps/{n}.xml</loc></sitemap>\n" for n in range(self.children))
        return (
            f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SM}">\n{entries}</sitemapindex>\n'.encode()
        )

    def child(self, number: int) -> bytes:
        """The urlset of child ``number``: deterministic, built now."""
        start = f"<url><loc>{self.loc_base}/item/{number}/"
        body = (HEAD + start + start.join(self._tails) + TAIL).encode()
        with self._lock:
            self.sent_children += 1
            self.sent_bytes += len(body)
        return body

    def stats(self) -> bytes:
        with self._lock:
            return f"{self.sent_children} {self.sent_bytes}\n".encode()


def build(site: LocalSite, loc_base: str, children: int, urls: int) -> BigIndex:
    big = BigIndex(site.base, loc_base or site.base, children, urls)
    index = big.index()
    site.add_responder("/index.xml", lambda _headers: Route(index))
    for number in range(children):
        site.add_responder(f"/sitemaps/{number}.xml", lambda _headers, n=number: Route(big.child(n)))
    site.add_responder("/stats", lambda _headers: Route(big.stats(), content_type="text/plain"))
    return big


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--children", type=int, default=2000, help="child sitemaps of the index (default 2000)")
    parser.add_argument("--urls", type=int, default=50_000, help="URLs of each child (default 50000)")
    parser.add_argument(
        "--loc-base", default="https://www.example.com", help="what each loc starts with ('': the server's base)"
    )
    args = parser.parse_args()
    with LocalSite() as site:
        build(site, args.loc_base, args.children, args.urls)
        print(site.base, flush=True)
        sys.stdin.read()  # serve until the benchmark closes our standard input
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
