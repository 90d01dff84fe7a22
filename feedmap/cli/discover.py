"""``feedmap discover``: find a site's sitemaps (robots.txt, then the usual locations) and show their tree.

The rules are those of :mod:`feedmap._web.discover` (robots.txt ``Sitemap:`` lines per RFC 9309 and
sitemaps.org; ``/sitemap.xml`` and ``/sitemap_index.xml`` when robots.txt names none), and ``--tree`` those
of :mod:`feedmap._web.sitemaptree` (the sitemaps.org index, children on the index's site).  The sitemap URLs
go to stdout, one per line, so they can be piped; how each was found goes to stderr with ``--verbose``.
``--tree`` also starts from a sitemap named as SITE_URL (:func:`given_sitemap`: a local file, or a URL with a path,
read to find out whether it is a sitemap) instead of from robots.txt.

Exit codes: 0 a sitemap was found, 1 none was found (what was tried is printed) or, with ``--tree``, a
sitemap of the tree could not be read (missing, off-site, not a sitemap: as ``convert`` exits 1 for it; a
loop back to an index being read is no failure), 2 a usage error or a site that cannot be reached.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from feedmap._core.context import Options
from feedmap._core.errors import Diagnostic, FormatError, Level, Reporter, SourceError
from feedmap._core.wording import counted
from feedmap._io.sources import DEFAULT_MAX_BYTES
from feedmap.cli._advice import ADVICE
from feedmap.cli._common import (
    DiagnosticPrinter,
    add_http_options,
    add_map_option,
    http_settings,
    json_text,
    parse_size,
    printable,
    shown_url,
)

if TYPE_CHECKING:  # discovery is imported when discover runs: the other commands do not load it
    from feedmap._web.discover import Discovery
    from feedmap._web.sitemaptree import SitemapNode

__all__ = ["add_parser", "given_sitemap", "run", "tree_lines"]

_EPILOG = """\
how sitemaps are found:
  1. SITE/robots.txt: every "Sitemap:" line, in any case, inside or outside User-agent groups.
     These may point to other sites (allowed in robots.txt) and are listed as written.
  2. Only when robots.txt names none (or there is no robots.txt): SITE/sitemap.xml, then
     SITE/sitemap_index.xml, each listed when it answers 2xx with a sitemap, a sitemap index, a feed
     or a text sitemap (an HTML page answering 200 is not one; a redirect is followed).
  SITE is the root of SITE_URL: example.com means https://example.com/ (https unless you write
  http://), and https://example.com/blog/ means https://example.com/.

--tree reads each sitemap found and, for an index, its children (concurrently, nested indexes too,
up to 5 levels), and prints one line per sitemap with its entry count:
  https://example.com/sitemap_index.xml  index, 2 sitemaps, 1,234 URLs
    https://example.com/sitemap-posts.xml.gz  1,000 URLs
    https://example.com/sitemap-pages.xml  234 URLs
A sitemap that cannot be read shows error[CODE] (http-404, timeout, not-a-sitemap, child-off-site,
index-loop, ...) and the rest goes on.

--tree also starts from a sitemap or index you name instead of the site's robots.txt: a local file (or a
file: URL), or a URL whose path is not the site's root (https://example.com/sitemap_index.xml).  Such a URL
is read first: a sitemap, index, text sitemap or feed is the tree's root; a page that is none (an HTML page)
stands for its site, whose sitemaps are then found as above.  A site's root (example.com,
https://example.com/) always means the site.  Without --tree, any URL means its site.

examples:
  feedmap discover example.com                           the sitemap URLs, one per line
  feedmap discover -v https://example.com/               ... and how each was found (stderr)
  feedmap discover https://example.com/ --tree           the index tree with URL counts
  feedmap discover https://example.com/ --tree --json    the same as one JSON object
  feedmap discover https://example.com/ --tree --map https://example.com/=public/
                                                         check a static-site build directory
  feedmap discover --tree https://example.com/sitemap_index.xml
                                                         the tree of this index (robots.txt not read)
  feedmap discover --tree public/sitemap_index.xml --map https://example.com/=public/
                                                         the tree of a local index, its children read from public/
  feedmap convert "$(feedmap discover example.com | head -n1)" -t text
                                                         every URL of the first sitemap found

exit codes: 0 a sitemap was found, 1 none was found or (--tree) a sitemap of the tree could not be read
  (error[CODE] on its line; an index loop is no failure), 2 usage error or the site cannot be reached
"""


def _site(text: str) -> str:
    """SITE_URL as given (a site, any URL of it, or for --tree a sitemap's URL or file), checked: a usage error
    for what is neither a local file nor an http(s) site."""
    from feedmap._web.discover import site_root

    if _local(text):
        return text
    try:
        site_root(text)
    except SourceError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _local(text: str) -> bool:
    """Whether SITE_URL names a local file (an existing regular file, or a ``file:`` URL)."""
    return text.startswith("file:") or os.path.isfile(text)


def given_sitemap(text: str) -> str | None:
    """The sitemap ``--tree`` starts from when SITE_URL names one, else None (a site: robots.txt first).

    A local file (or ``file:`` URL) is one; so is an http(s) URL whose path is not the site's root
    (``https://example.com/sitemap_index.xml``, ``example.com/sitemap.xml``), read to find out: a page that is no
    sitemap stands for its site after all.  A site's root (``example.com``, ``https://example.com/``) is a site.
    """
    if _local(text):
        return text
    url = text.strip()
    if "://" not in url:
        url = "https://" + url.lstrip("/")
    return url if urlsplit(url).path not in ("", "/") else None


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "discover",
        help="find a site's sitemaps (robots.txt, /sitemap.xml, /sitemap_index.xml); --tree for the index tree",
        description="Find the sitemaps of the site SITE_URL belongs to and print their URLs, one per line.\n"
        "With --tree, read them and print the sitemap index tree with the number of URLs of each sitemap.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    inputs = parser.add_argument_group("input")
    inputs.add_argument(
        "site",
        type=_site,
        metavar="SITE_URL",
        help="the site: example.com, https://example.com/ or any URL of it; with --tree also the sitemap or index "
        "to start from: its URL (a URL with a path is read: a page that is no sitemap stands for its site) or a "
        "local file",
    )
    add_map_option(inputs, "robots.txt and sitemaps too, e.g. a static-site build directory")
    inputs.add_argument(
        "--max-bytes",
        type=parse_size,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help="largest (decompressed) sitemap to read, e.g. 200M (default: 100M); a local regular file (--map) that "
        "is not compressed is read whole",
    )
    output = parser.add_argument_group("output")
    output.add_argument("--tree", action="store_true", help="read the sitemaps and print their tree with entry counts")
    output.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: site, sitemaps (url, via, source), tried (url, code, found, message) "
        "and with --tree the tree (url, kind, format, entries, urls, error, children)",
    )
    output.add_argument(
        "-v", "--verbose", action="store_true", help="say on stderr what was tried and how each sitemap was found"
    )
    add_http_options(parser)
    parser.set_defaults(run=run)


def _count(number: int, word: str) -> str:
    return f"{number:,} {word}{'' if number == 1 else 's'}"


def _describe(node: SitemapNode) -> str:
    """What follows a sitemap's URL on its line of the tree."""
    if node.error is not None:
        return f"error[{node.code}]: {node.error}{ADVICE.get(node.code or '', '')}"
    if node.kind == "index":
        parts = ["index", _count(node.entries, "sitemap"), _count(node.urls, "URL")]
        failed = node.failed
        if failed:
            parts.append(f"{failed:,} not read")
        return ", ".join(parts)
    urls = _count(node.entries, "URL")
    return urls if node.kind == "urlset" else f"{node.kind}, {urls}"


def tree_lines(root: SitemapNode) -> list[str]:
    """The lines of a :class:`~feedmap._web.sitemaptree.SitemapNode`'s tree, two spaces of indent per level."""
    return [f"{'  ' * depth}{shown_url(node.url)}  {printable(_describe(node))}" for depth, node in root.walk()]


def _given_tree(given: str, options: Options, reporter: Reporter) -> tuple[Discovery, SitemapNode]:
    """The tree of the sitemap SITE_URL names, and a discovery of it as the one sitemap found (``via``:
    ``given``); when it was fetched and is no sitemap (an HTML page of the site), its site's sitemaps found
    instead, the page among what was tried."""
    from feedmap._web.discover import Discovery, Found, Probe, discover, site_root
    from feedmap._web.sitemaptree import sitemap_tree

    tree = sitemap_tree(given, options, reporter=reporter)
    if tree.code == "not-a-sitemap" and not _local(given):
        found = discover(given, options, reporter=reporter)
        found.tried.insert(0, Probe(given, "not-a-sitemap", f"{tree.error}; the site's sitemaps are read instead"))
        return found, tree
    found = Discovery(None if _local(given) else site_root(given))
    found.sitemaps.append(Found(tree.url, "given", given))
    return found, tree


def _found(args: argparse.Namespace, options: Options, reporter: Reporter) -> tuple[Discovery, list[SitemapNode]]:
    """The sitemaps found (from robots.txt, or the one SITE_URL names with ``--tree``) and, with ``--tree``, their
    trees."""
    from feedmap._web.discover import discover
    from feedmap._web.sitemaptree import sitemap_trees

    given = given_sitemap(args.site) if args.tree else None
    if given is None and _local(args.site):
        raise FormatError(
            f"{args.site} is a local file: discover finds the sitemaps of a web site; give --tree to print the tree "
            "of this sitemap"
        )
    if given is not None:
        found, tree = _given_tree(given, options, reporter)
        if found.sitemaps and found.sitemaps[0].via == "given":
            return found, [tree]
    else:
        found = discover(args.site, options, reporter=reporter)
    # SITE_URL names a site, or a page of the site that is no sitemap: the trees of the site's sitemaps
    return found, sitemap_trees(found.urls, options, reporter=reporter) if args.tree and found.sitemaps else []


def run(args: argparse.Namespace) -> int:
    printer = DiagnosticPrinter(quiet=not args.verbose)
    reporter = Reporter(handler=printer)
    options = Options(
        max_bytes=args.max_bytes, concurrency=args.concurrency, http=http_settings(args), maps=tuple(args.maps)
    )
    found, trees = _found(args, options, reporter)
    if args.verbose:
        for probe in found.tried:
            print(printable(str(Diagnostic(Level.INFO, probe.code, probe.message, probe.url))), file=sys.stderr)
    printer.finish()
    if args.json:
        result = found.to_dict()
        if args.tree:
            result["tree"] = [tree.to_dict() for tree in trees]
        print(json_text(result))
    elif args.tree:
        for tree in trees:
            print("\n".join(tree_lines(tree)))
    else:
        for url in found.urls:
            print(shown_url(url))
    if not found.sitemaps:
        print(printable(f"feedmap: no sitemap found for {found.site}; tried:"), file=sys.stderr)
        for probe in found.tried:
            print(printable(f"  {probe.url}: {probe.message}"), file=sys.stderr)
        return 1
    unread = sum(1 for tree in trees for _, node in tree.walk() if not node.ok and node.code != "index-loop")
    if unread:
        unread_text = counted(unread, "sitemap")
        print(f"feedmap: {unread_text} of the tree could not be read (its error[CODE] says why)", file=sys.stderr)
        return 1
    return 0
