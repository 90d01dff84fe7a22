"""The measured side of benchmarks/bench_goals.py: one case per process, the raw loops and the peers.

    python benchmarks/_goal_child.py MODE REPORT OUT ARG...

Every reading mode writes the locs it read to OUT, one a line (what ``feedmap convert -t text`` writes), so
that the driver can check that a case read every URL; every writing mode writes its XML to OUT (a folder for
``raw-split``).  REPORT receives a JSON object: ``work_s``, the in-process time of the work alone (imports and,
for the writing modes, making the entries in memory excluded), and ``entries``.

Writing modes make their entries in the process from ``_scale_data.made`` (the same loc, lastmod and one or
two images on every side) before the clock starts, and write one entry first, untimed, so that the modules a
first call imports (feedmap's formats are imported lazily) are no part of ``work_s``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _bench_child import IMAGE_NS, LOC_TAG, SITEMAP_NS, URL_TAG, _free, child_raw  # noqa: E402
from _goal_data import INDEX_BASE, ROR_NS  # noqa: E402
from _scale_data import made  # noqa: E402

PARSE = {"resolve_entities": False, "no_network": True, "load_dtd": False, "huge_tree": False}
SPLIT_LIMIT = 50_000


def _write_lines(out: str, lines: Iterator[str]) -> int:
    count = 0
    with open(out, "w", encoding="utf-8", newline="\n") as sink:
        batch: list[str] = []
        for line in lines:
            batch.append(line)
            count += 1
            if len(batch) >= 4096:
                sink.write("\n".join(batch) + "\n")
                batch.clear()
        if batch:
            sink.write("\n".join(batch) + "\n")
    return count


def _escape(text: str) -> str:
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


# ----------------------------------------------------------------------------------------------- reading: raw


def raw_bare(out: str, files: Sequence[str]) -> int:
    """A bare iterparse: each ``<url>``'s loc, nothing else read."""
    from lxml import etree

    def locs() -> Iterator[str]:
        for path in files:
            for _event, element in etree.iterparse(path, events=("end",), tag=URL_TAG, **PARSE):
                loc = element.findtext(LOC_TAG)
                if loc:
                    yield loc.strip()
                _free(element)

    return _write_lines(out, locs())


def _index_children(index: str, folder: str) -> list[str]:
    """The local files an index names (its https URLs under INDEX_BASE mapped to ``folder``)."""
    from lxml import etree

    tree = etree.parse(index, etree.XMLParser(**PARSE))
    locs = [(loc.text or "").strip() for loc in tree.iter(LOC_TAG)]
    return [str(Path(folder) / loc[len(INDEX_BASE) :]) for loc in locs]


def raw_index(out: str, index: str, folder: str) -> int:
    """The index read, then each child with ``_bench_child``'s full-field loop."""
    return int(child_raw(out, _index_children(index, folder))["entries"])


def raw_ror(out: str, path: str) -> int:
    """An iterparse over the items taking every field of a ROR item (title, link, guid, ror:*)."""
    from lxml import etree

    ror_prefix = "{" + ROR_NS + "}"

    def links() -> Iterator[str]:
        for _event, item in etree.iterparse(path, events=("end",), tag="item", **PARSE):
            fields: dict[str, str | None] = {}
            for child in item:
                tag = child.tag
                if isinstance(tag, str):
                    fields[tag[len(ror_prefix) :] if tag.startswith(ror_prefix) else tag] = child.text
            link = (fields.get("link") or "").strip()
            if link:
                yield link
            _free(item)

    return _write_lines(out, links())


def raw_text(out: str, path: str) -> int:
    """A text sitemap's lines, stripped, blank ones skipped."""

    def urls() -> Iterator[str]:
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                url = line.strip()
                if url:
                    yield url

    return _write_lines(out, urls())


# --------------------------------------------------------------------------------------------- reading: peers


def scrapy_urlset(out: str, files: Sequence[str]) -> int:
    """scrapy's ``Sitemap`` (the reader of its SitemapSpider) over each file's bytes."""
    from scrapy.utils.sitemap import Sitemap

    def locs() -> Iterator[str]:
        for path in files:
            for entry in Sitemap(Path(path).read_bytes()):
                yield entry["loc"]

    return _write_lines(out, locs())


def scrapy_index(out: str, index: str, folder: str) -> int:
    from scrapy.utils.sitemap import Sitemap

    children = [str(Path(folder) / entry["loc"][len(INDEX_BASE) :]) for entry in Sitemap(Path(index).read_bytes())]
    return scrapy_urlset(out, children)


def usp_string(out: str, path: str) -> int:
    """ultimate-sitemap-parser's ``sitemap_from_str`` (its parser without the fetching) over one file."""
    from usp.tree import sitemap_from_str

    sitemap = sitemap_from_str(Path(path).read_text(encoding="utf-8"))
    return _write_lines(out, (page.url for page in sitemap.all_pages()))


def advertools_df(out: str, path: str) -> int:
    """advertools' ``sitemap_to_df`` (pandas DataFrame; an index's children fetched by 8 threads)."""
    import advertools

    frame = advertools.sitemap_to_df(path if "://" in path else Path(path).resolve().as_uri())
    return _write_lines(out, (str(loc) for loc in frame["loc"] if isinstance(loc, str)))


def feedparser_feed(out: str, path: str) -> int:
    import feedparser

    parsed = feedparser.parse(path)
    return _write_lines(out, (entry["link"] for entry in parsed.entries if entry.get("link")))


# ------------------------------------------------------------------------------------------------ writing


def _made(count: int) -> list[tuple[str, str, list[str]]]:
    return [made(index) for index in range(count)]


def raw_write(out: str, items: Iterable[tuple[str, str, list[str]]]) -> None:
    """String building: a urlset with the image extension, escaped, written by the MiB."""
    with open(out, "w", encoding="utf-8", newline="\n") as sink:
        sink.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}">\n')
        parts: list[str] = []
        for loc, lastmod, images in items:
            parts.append(f"<url><loc>{_escape(loc)}</loc><lastmod>{lastmod}</lastmod>")
            for image in images:
                parts.append(f"<image:image><image:loc>{_escape(image)}</image:loc></image:image>")
            parts.append("</url>\n")
            if len(parts) >= 8192:
                sink.write("".join(parts))
                parts.clear()
        parts.append("</urlset>\n")
        sink.write("".join(parts))


def xmlfile_write(out: str, items: list[tuple[str, str, list[str]]]) -> None:
    """lxml's incremental ``etree.xmlfile`` writer, the same urlset."""
    from lxml import etree

    url_tag, loc_tag, lastmod_tag = (f"{{{SITEMAP_NS}}}{name}" for name in ("url", "loc", "lastmod"))
    image_tag, image_loc = f"{{{IMAGE_NS}}}image", f"{{{IMAGE_NS}}}loc"
    with etree.xmlfile(out, encoding="utf-8") as xf:
        xf.write_declaration()
        with xf.element(f"{{{SITEMAP_NS}}}urlset", nsmap={None: SITEMAP_NS, "image": IMAGE_NS}):
            for loc, lastmod, images in items:
                with xf.element(url_tag):
                    with xf.element(loc_tag):
                        xf.write(loc)
                    with xf.element(lastmod_tag):
                        xf.write(lastmod)
                    for image in images:
                        with xf.element(image_tag), xf.element(image_loc):
                            xf.write(image)
                xf.write("\n")


def raw_json_to_xml(out: str, path: str) -> int:
    """A whole script: JSON lines (loc, lastmod, images) read with ``json`` and written as a urlset, streamed."""
    count = 0

    def items() -> Iterator[tuple[str, str, list[str]]]:
        nonlocal count
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    entry = json.loads(line)
                    count += 1
                    yield entry["loc"], entry["lastmod"], [image["loc"] for image in entry.get("images", ())]

    raw_write(out, items())
    return count


def _ror_item(loc: str, lastmod: str, title: str) -> str:
    link = _escape(loc)
    return (
        f'<item><title>{_escape(title)}</title><link>{link}</link><guid isPermaLink="true">{link}</guid>'
        f"<ror:updated>{lastmod}</ror:updated><ror:resourceOf>sitemap</ror:resourceOf></item>\n"
    )


def raw_ror_write(out: str, items: list[tuple[str, str, list[str]]]) -> None:
    with open(out, "w", encoding="utf-8", newline="\n") as sink:
        sink.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:ror="{ROR_NS}">\n<channel>')
        sink.write("<title>Bench</title><link>https://bench.example/</link><description>ROR</description>\n")
        sink.write("".join(_ror_item(loc, lastmod, f"Product {n}") for n, (loc, lastmod, _) in enumerate(items)))
        sink.write("</channel>\n</rss>\n")


def feedgen_write(out: str, items: list[tuple[str, str, list[str]]]) -> None:
    """feedgen's RSS 2.0 generator: a channel, one entry per item (appended in order), ``rss_file``."""
    from feedgen.feed import FeedGenerator

    feed = FeedGenerator()
    feed.title("Bench")
    feed.link(href="https://bench.example/")
    feed.description("ROR")
    for number, (loc, lastmod, _images) in enumerate(items):
        entry = feed.add_entry(order="append")
        entry.title(f"Product {number}")
        entry.link(href=loc)
        entry.guid(loc, permalink=True)
        entry.pubDate(lastmod)
    feed.rss_file(out)


def feedmap_write(out: str, items: list[tuple[str, str, list[str]]], target: str) -> Callable[[], object]:
    """``feedmap.write`` of the entries (made before the clock starts), to a sitemap or a ROR feed."""
    import feedmap

    if target == "ror":
        entries = [
            feedmap.Entry(loc=loc, lastmod=feedmap.W3CDate(lastmod), title=f"Product {number}")
            for number, (loc, lastmod, _images) in enumerate(items)
        ]
        options = feedmap.Options(channel_title="Bench", channel_link="https://bench.example/")
        return lambda: feedmap.write(entries, out, "ror", options)
    entries = [
        feedmap.Entry(loc=loc, lastmod=feedmap.W3CDate(lastmod), images=tuple(feedmap.Image(loc=i) for i in images))
        for loc, lastmod, images in items
    ]
    return lambda: feedmap.write(entries, out, "sitemap")


def raw_split(out: str, path: str, base: str) -> int:
    """A text sitemap split into urlsets of 50,000 URLs and an index naming them (sitemaps.org 0.9)."""
    folder = Path(out)
    folder.mkdir(exist_ok=True)
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}">\n'
    names: list[str] = []
    count = 0
    sink = None
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            url = line.strip()
            if not url:
                continue
            if count % SPLIT_LIMIT == 0:
                if sink is not None:
                    sink.write("</urlset>\n")
                    sink.close()
                names.append(f"sitemap-{len(names) + 1}.xml")
                sink = open(folder / names[-1], "w", encoding="utf-8", newline="\n")  # noqa: SIM115
                sink.write(head)
            sink.write(f"<url><loc>{_escape(url)}</loc></url>\n")  # type: ignore[union-attr]
            count += 1
    if sink is not None:
        sink.write("</urlset>\n")
        sink.close()
    with open(folder / "sitemap_index.xml", "w", encoding="utf-8", newline="\n") as index:
        index.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SITEMAP_NS}">\n')
        index.write("".join(f"<sitemap><loc>{base}{name}</loc></sitemap>\n" for name in names))
        index.write("</sitemapindex>\n")
    return count


READERS: dict[str, Callable[..., int]] = {
    "raw-bare": lambda out, *files: raw_bare(out, files),
    "raw-fields": lambda out, *files: int(child_raw(out, files)["entries"]),
    "raw-index": raw_index,
    "raw-ror": raw_ror,
    "raw-text": raw_text,
    "raw-json2xml": raw_json_to_xml,
    "raw-split": raw_split,
    "scrapy-urlset": lambda out, *files: scrapy_urlset(out, files),
    "scrapy-index": scrapy_index,
    "usp": usp_string,
    "advertools": advertools_df,
    "feedparser": feedparser_feed,
}
WRITERS: dict[str, Callable[[str, list[tuple[str, str, list[str]]]], Callable[[], object]]] = {
    "raw-write": lambda out, items: lambda: raw_write(out, items),
    "xmlfile": lambda out, items: lambda: xmlfile_write(out, items),
    "raw-rorwrite": lambda out, items: lambda: raw_ror_write(out, items),
    "feedgen": lambda out, items: lambda: feedgen_write(out, items),
    "feedmap-write": lambda out, items: feedmap_write(out, items, "sitemap"),
    "feedmap-rorwrite": lambda out, items: feedmap_write(out, items, "ror"),
}


def main(argv: Sequence[str]) -> int:
    if len(argv) < 4:
        print("usage: _goal_child.py MODE REPORT OUT ARG...", file=sys.stderr)
        return 2
    mode, report, out, *args = argv
    if mode in WRITERS:
        items = _made(int(args[0]))
        WRITERS[mode](out + ".warm", items[:1])()  # untimed: what the first call imports or sets up
        Path(out + ".warm").unlink()
        work = WRITERS[mode](out, items)
        started = time.perf_counter()
        work()
        result: dict[str, Any] = {"work_s": time.perf_counter() - started, "entries": len(items)}
    elif mode in READERS:
        started = time.perf_counter()
        entries = READERS[mode](out, *args)
        result = {"work_s": time.perf_counter() - started, "entries": entries}
    else:
        print(f"unknown mode {mode!r}", file=sys.stderr)
        return 2
    with open(report, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
