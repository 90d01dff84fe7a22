"""The data of benchmarks/bench_scale.py, generated deterministically from a seed into a scratch directory.

* :func:`write_repeats`: sitemaps.org 0.9 sitemaps of at most 50,000 ``<url>`` each, N entries in all, 10% of
  them repeating an earlier loc with another ``<lastmod>`` (the input of ``--dedupe``).
* :func:`write_images`: N URLs, each with one or two Google image extension ``<image:image>``, as JSON lines
  (https://jsonlines.org/, feedmap's ``jsonl`` schema: ``loc``, ``lastmod``, ``images`` as ``[{"loc": ...}]``),
  the input both splitters read.
* :func:`write_images_xml`: the same URLs and images as one sitemaps.org 0.9 ``<urlset>`` with the Google
  image extension (a single file far over the protocol's 50,000 URLs: the input a splitter is for).
* :func:`made`: the fields of entry N of the cases that make their entries in the process (no file read);
  ``npm_sitemap_split.js`` makes the same items when given ``--made`` instead of a file.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

PREFIX = "https://bench.example/"
PER_FILE = 50_000
REPEATS = 0.10
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def _lastmod(rng: random.Random) -> str:
    day = rng.randrange(365)
    return f"2024-{1 + day // 31 % 12:02d}-{1 + day % 28:02d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:00Z"


def _loc(index: int) -> str:
    return f"{PREFIX}products/item-{index}/details?ref=bench&amp;n={index % 97}"


def write_repeats(root: Path, count: int, seed: int = 11) -> tuple[list[Path], int]:
    """``count`` entries in sitemaps of :data:`PER_FILE`; the paths and the number of distinct locs."""
    rng = random.Random(seed)
    paths: list[Path] = []
    distinct = 0
    for start in range(0, count, PER_FILE):
        path = root / f"repeats-{start // PER_FILE + 1:03d}.xml"
        with open(path, "w", encoding="utf-8") as out:
            out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n')
            for _ in range(start, min(start + PER_FILE, count)):
                if distinct and rng.random() < REPEATS:
                    index = rng.randrange(distinct)
                else:
                    index, distinct = distinct, distinct + 1
                out.write(f"<url><loc>{_loc(index)}</loc><lastmod>{_lastmod(rng)}</lastmod></url>\n")
            out.write("</urlset>\n")
        paths.append(path)
    return paths, distinct


def write_images(path: Path, count: int, seed: int = 12) -> int:
    """``count`` URLs with one or two images each as JSON lines; the number of images."""
    rng = random.Random(seed)
    images = 0
    with open(path, "w", encoding="utf-8") as out:
        for index in range(count):
            loc = f"{PREFIX}catalogue/product-{index}"
            pictures = [{"loc": f"{PREFIX}img/{index}-{n}.jpg"} for n in range(rng.randint(1, 2))]
            images += len(pictures)
            line = {"loc": loc, "lastmod": _lastmod(rng), "images": pictures}
            out.write(json.dumps(line, separators=(",", ":")) + "\n")
    return images


def write_images_xml(jsonl: Path, path: Path) -> None:
    """The entries of :func:`write_images`' file ``jsonl`` as one XML sitemap at ``path``."""
    image_ns = 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    with open(jsonl, encoding="utf-8") as lines, open(path, "w", encoding="utf-8") as out:
        out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS} {image_ns}>\n')
        for line in lines:
            entry = json.loads(line)
            pictures = "".join(
                f"<image:image><image:loc>{image['loc']}</image:loc></image:image>" for image in entry["images"]
            )
            out.write(f"<url><loc>{entry['loc']}</loc><lastmod>{entry['lastmod']}</lastmod>{pictures}</url>\n")
        out.write("</urlset>\n")


def made(index: int) -> tuple[str, str, list[str]]:
    """The loc, lastmod and image locs of entry ``index`` made in the process: one or two images, as
    :func:`write_images` (``made`` in ``npm_sitemap_split.js`` is the same function)."""
    day = index * 7919 % 365
    lastmod = f"2024-{1 + day // 31 % 12:02d}-{1 + day % 28:02d}T{index % 24:02d}:{index * 31 % 60:02d}:00Z"
    images = [f"{PREFIX}img/{index}-{n}.jpg" for n in range(1 + index % 2)]
    return f"{PREFIX}catalogue/product-{index}", lastmod, images
