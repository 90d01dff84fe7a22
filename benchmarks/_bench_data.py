"""The data of benchmarks/bench_read.py: large image sitemaps (sitemaps.org 0.9 with the Google image
extension), generated once and deterministically from a seed, and reused while their manifest matches.

The URLs, captions and dates vary like real ones (query strings, entities to escape, non-ASCII captions,
every W3C Datetime precision), so the reader does the work a real file asks of it.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

GENERATOR_VERSION = 1
DEFAULT_SEED = 20240601

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"

_WORD_LIST = (
    "acme alpine amber anchor apple arctic autumn azure bamboo basil beacon birch blossom breeze bronze "
    "canyon cedar cherry cloud cobalt copper coral cotton crystal dawn delta desert ember falcon fern "
    "forest frost garden garnet glacier granite harbor hazel horizon indigo island ivory jade juniper "
    "lagoon lantern lemon lotus maple marble meadow mint mist navy oak ocean olive onyx orchid pebble "
    "pine plum prairie quartz rain raven reef river ruby saffron sage sand sapphire shadow sierra silver "
    "slate spruce stone storm summit sunset thistle thunder timber topaz valley velvet willow winter"
)
_WORDS = tuple(_WORD_LIST.split())
_SECTION_LIST = (
    "products shop catalog blog news articles guides category collections brands stores help "
    "de/produkte fr/produits es/productos en-gb/shop"
)
_SECTIONS = tuple(_SECTION_LIST.split())
_PARAMS = ("color", "size", "ref", "utm_source", "utm_medium", "page", "sort", "variant", "lang", "sessionid")
_CAPTION_EXTRA = (
    "",
    " & accessories",
    " \u2013 front view",
    " (caf\u00e9 edition)",
    " <new>",
    " \u201cbestseller\u201d",
)
_CHANGEFREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
_PRIORITIES = ("0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0", "0.25", "0.75")


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _zone(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.5:
        return "Z"
    hours = rng.choice((0, 1, 2, 3, 5, 8, 9, 10))
    minutes = rng.choice((0, 0, 0, 30, 45))
    return f"{rng.choice('+-')}{hours:02d}:{minutes:02d}"


def _lastmod(rng: random.Random) -> str:
    """A W3C Datetime of one of the six granularities (weighted towards day and seconds)."""
    year = rng.randint(2015, 2024)
    month = rng.randint(1, 12)
    day = rng.randint(1, 28)
    hour, minute, second = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    kind = rng.choices(range(6), weights=(2, 3, 35, 10, 40, 10))[0]
    if kind == 0:
        return f"{year}"
    if kind == 1:
        return f"{year}-{month:02d}"
    if kind == 2:
        return f"{year}-{month:02d}-{day:02d}"
    if kind == 3:
        return f"{year}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}{_zone(rng)}"
    if kind == 4:
        return f"{year}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{_zone(rng)}"
    fraction = str(rng.randint(1, 999999)).rstrip("0") or "5"
    return f"{year}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{fraction}{_zone(rng)}"


def _slug(rng: random.Random, low: int, high: int) -> str:
    return "-".join(rng.choice(_WORDS) for _ in range(rng.randint(low, high)))


def _page_url(rng: random.Random, host: str, index: int) -> str:
    section = rng.choice(_SECTIONS)
    depth = rng.randint(0, 2)
    path = "/".join([section, *(_slug(rng, 1, 2) for _ in range(depth)), f"{_slug(rng, 2, 6)}-{index}"])
    url = f"https://{host}/{path}"
    roll = rng.random()
    if roll < 0.35:
        url += ".html"
    if rng.random() < 0.3:  # a query string of 1-3 parameters: '&' in the URL
        params = rng.sample(_PARAMS, rng.randint(1, 3))
        url += "?" + "&".join(f"{name}={rng.choice(_WORDS)}{rng.randint(1, 99)}" for name in params)
    elif rng.random() < 0.03:
        url += "/%C3%A9t%C3%A9"  # percent-encoded non-ASCII
    return url


def _url_block(rng: random.Random, domain: str, index: int) -> str:
    loc = _page_url(rng, "www." + domain, index)
    parts = [
        "  <url>\n    <loc>",
        _xml_escape(loc),
        "</loc>\n    <lastmod>",
        _lastmod(rng),
        "</lastmod>\n    <changefreq>",
        rng.choice(_CHANGEFREQS),
        "</changefreq>\n    <priority>",
        rng.choice(_PRIORITIES),
        "</priority>\n",
    ]
    for number in range(rng.randint(1, 2)):
        image = f"https://cdn.{domain}/images/{rng.randint(2015, 2024)}/{rng.randint(1, 12):02d}/{_slug(rng, 1, 4)}"
        image += f"-{index}-{number + 1}.{rng.choice(('jpg', 'jpg', 'png', 'webp'))}"
        if rng.random() < 0.1:
            image += f"?w={rng.choice((320, 640, 1280))}&h={rng.choice((240, 480, 960))}"
        parts += ["    <image:image>\n      <image:loc>", _xml_escape(image), "</image:loc>\n"]
        if rng.random() < 0.4:
            caption = _slug(rng, 2, 8).replace("-", " ").capitalize() + rng.choice(_CAPTION_EXTRA)
            parts += ["      <image:caption>", _xml_escape(caption), "</image:caption>\n"]
        parts.append("    </image:image>\n")
    parts.append("  </url>\n")
    return "".join(parts)


def generate_sitemap(path: Path, *, urls: int, seed: int, index: int) -> None:
    """Write one sitemap of ``urls`` URLs; the same (seed, index, urls) always gives the same bytes."""
    rng = random.Random(f"feedmap-bench-v{GENERATOR_VERSION}-{seed}-{index}")
    domain = f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-shop{index}.example.com"
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "w", encoding="utf-8", newline="\n") as out:
        out.write(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}"\n        xmlns:image="{IMAGE_NS}">\n'
        )
        batch: list[str] = []
        for number in range(urls):
            batch.append(_url_block(rng, domain, index * urls + number))
            if len(batch) >= 2000:
                out.write("".join(batch))
                batch.clear()
        out.write("".join(batch))
        out.write("</urlset>\n")
    os.replace(tmp, path)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def ensure_data(data_dir: Path, *, files: int, urls: int, seed: int, log: bool = True) -> list[Path]:
    """The ``files`` sitemaps for these parameters, generating those missing or not matching the manifest."""
    data_dir.mkdir(parents=True, exist_ok=True)
    manifest_path = data_dir / "manifest.json"
    try:
        manifest: dict[str, Any] = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = {}
    paths: list[Path] = []
    changed = False
    for index in range(files):
        name = f"sitemap-v{GENERATOR_VERSION}-s{seed}-u{urls}-{index:03d}.xml"
        path = data_dir / name
        recorded = manifest.get(name)
        params = {"generator": GENERATOR_VERSION, "seed": seed, "urls": urls, "index": index}
        if (
            isinstance(recorded, dict)
            and recorded.get("params") == params
            and path.is_file()
            and path.stat().st_size == recorded.get("bytes")
        ):
            paths.append(path)
            continue
        if log:
            print(f"generating {path} ({urls:,} URLs)...", file=sys.stderr, flush=True)
        generate_sitemap(path, urls=urls, seed=seed, index=index)
        manifest[name] = {"params": params, "bytes": path.stat().st_size, "sha256": sha256_of(path)}
        changed = True
        paths.append(path)
    if changed:
        tmp = manifest_path.with_suffix(".json.part")
        tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, manifest_path)
    return paths
