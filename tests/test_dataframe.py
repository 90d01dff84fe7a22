"""``feedmap.to_dataframe``: the entries of an input as a pandas DataFrame of typed columns.

The oracles are independent of feedmap's reading: the counts (URLs, images, hreflang alternates, extension
elements by namespace) of the corpus files are counted with lxml on the XML itself; the lines are lxml's
``sourceline`` of each ``<url>``; the instants are Python's own ``datetime`` of the text written.
"""

from __future__ import annotations

import datetime
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from lxml import etree
from without_modules import run_without

import feedmap
from feedmap import ChangeFreq, Diagnostic, Document, Entry, Image, Options

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SITE = "https://www.example.com/"
MAPS = ((SITE, SAMPLES / "site"),)

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"

#: The columns and their dtypes, as the library guide gives them.
NEWS_TYPE = (
    "struct<publication_name: string, publication_language: string, publication_date: string, title: string, "
    "keywords: string, genres: string, stock_tickers: string, access: string, extras: map<string, string>>"
)
VIDEOS_TYPE = (
    "list<element: struct<thumbnail_loc: string, title: string, description: string, content_loc: string, "
    "player_loc: string, player_allow_embed: bool, player_autoplay: string, duration: int64, expiration_date: "
    "string, rating: double, view_count: int64, publication_date: string, tags: list<element: string>, "
    "family_friendly: bool, restriction: list<element: string>, restriction_relationship: string, prices: "
    "list<element: struct<value: string, currency: string, type: string, resolution: string>>, "
    "requires_subscription: bool, uploader: string, uploader_info: string, platform: list<element: string>, "
    "platform_relationship: string, live: bool, extras: map<string, string>>>"
)
DTYPES = {
    "loc": "string",
    "lastmod": "datetime64[us, UTC]",
    "lastmod_precision": "category",
    "lastmod_text": "string",
    "changefreq": "category",
    "priority": "float64",
    "title": "string",
    "description": "string",
    "keywords": "list<element: string>[pyarrow]",
    "type": "string",
    "images": "list<element: struct<loc: string, caption: string, geo_location: string, title: string, license: "
    "string>>[pyarrow]",
    "alternates": "list<element: struct<hreflang: string, href: string>>[pyarrow]",
    "news": NEWS_TYPE + "[pyarrow]",
    "videos": VIDEOS_TYPE + "[pyarrow]",
    "extras": "map<string, string>[pyarrow]",
    "sitemap": "string",
    "line": "Int64",
}

#: Corpus files with images, hreflang alternates, news, video and other extensions.
CORPUS_FILES = [
    "advertools/image_sitemap.xml",
    "advertools/news_sitemap.xml",
    "advertools/video_sitemap.xml",
    "crawler-commons/extension/hebdenbridgetimes-articles-sitemap.xml",
    "crawler-commons/extension/sitemap-images.xml",
    "crawler-commons/extension/sitemap-links.xml",
    "crawler-commons/extension/sitemap-news.xml",
    "crawler-commons/extension/sitemap-videos.xml",
    "sitemapjs/alltags.xml",
    "sitemapjs/video.xml",
]


def _sitemap(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "sitemap.xml"
    path.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}">\n'
        f"{body}</urlset>\n",
        encoding="utf-8",
    )
    return path


def test_the_columns_and_their_dtypes() -> None:
    frame = feedmap.to_dataframe(SAMPLES / "sitemap" / "basic.xml")
    assert {name: str(dtype) for name, dtype in frame.dtypes.items()} == DTYPES
    assert list(frame["changefreq"].cat.categories) == [member.value for member in ChangeFreq]
    assert not frame["changefreq"].cat.ordered
    precision = frame["lastmod_precision"].cat
    assert list(precision.categories) == ["year", "month", "day", "minute", "second", "fraction"] and precision.ordered
    assert isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0


def test_an_empty_input_has_every_column() -> None:
    frame = feedmap.to_dataframe(Document(entries=[]))
    assert len(frame) == 0
    assert {name: str(dtype) for name, dtype in frame.dtypes.items()} == DTYPES


def test_each_value_in_its_column(tmp_path: Path) -> None:
    path = _sitemap(
        tmp_path,
        "<url><loc>https://example.com/a</loc><lastmod>2024-05-03</lastmod><changefreq>daily</changefreq>"
        "<priority>0.8</priority></url>\n"
        "<url><loc>https://example.com/b</loc><lastmod>2024-05-02T09:30:00+02:00</lastmod>"
        "<image:image><image:loc>https://example.com/b.png</image:loc><image:caption>B</image:caption></image:image>"
        "</url>\n"
        "<url><loc>https://example.com/c</loc><lastmod>2024-05-02T09:30:00.25Z</lastmod></url>\n"
        "<url><loc>https://example.com/d</loc></url>\n",
    )
    frame = feedmap.to_dataframe(path)
    utc = datetime.timezone.utc
    assert list(frame["lastmod"]) == [
        datetime.datetime(2024, 5, 3, tzinfo=utc),  # a date: its first instant, in UTC
        datetime.datetime(2024, 5, 2, 7, 30, tzinfo=utc),  # +02:00: the same instant in UTC
        datetime.datetime(2024, 5, 2, 9, 30, 0, 250000, tzinfo=utc),
        pd.NaT,
    ]
    assert list(frame["lastmod_text"].fillna("-")) == [
        "2024-05-03",
        "2024-05-02T09:30:00+02:00",
        "2024-05-02T09:30:00.25Z",
        "-",
    ]
    assert list(frame["lastmod_precision"].astype(object).fillna("-")) == ["day", "second", "fraction", "-"]
    assert list(frame["changefreq"].astype(object).fillna("-")) == ["daily", "-", "-", "-"]
    assert frame["priority"].iloc[0] == 0.8 and frame["priority"].iloc[1:].isna().all()
    assert frame["images"].iloc[1] == [
        {"loc": "https://example.com/b.png", "caption": "B", "geo_location": None, "title": None, "license": None}
    ]
    assert frame["images"].iloc[0] == [] and frame["title"].isna().all()
    assert list(frame["line"]) == [_url_lines(path)[i] for i in range(4)]


def _url_lines(path: Path) -> list[int]:
    """The line of each ``<url>`` (lxml's own count)."""
    root = etree.parse(str(path)).getroot()
    return [url.sourceline for url in root if isinstance(url.tag, str) and etree.QName(url).localname == "url"]


_NEWS = "{http://www.google.com/schemas/sitemap-news/0.9}news"
_VIDEO = "{http://www.google.com/schemas/sitemap-video/1.1}video"


def _counted(path: Path) -> tuple[int, list[int], list[int], Counter[str]]:
    """What lxml finds in a sitemap: its URLs, the images and hreflang alternates of each, and the other extension
    elements by namespace (news and videos have columns of their own: :func:`_media`)."""
    root = etree.parse(str(path), etree.XMLParser(resolve_entities=False)).getroot()
    urls = [url for url in root if isinstance(url.tag, str) and etree.QName(url).localname == "url"]
    images = [len(url.findall(f"{{{IMAGE_NS}}}image")) for url in urls]
    alternates = [
        sum(1 for link in url.findall(f"{{{XHTML_NS}}}link") if link.get("rel") == "alternate" and link.get("hreflang"))
        for url in urls
    ]
    own = {root.nsmap.get(None), IMAGE_NS, XHTML_NS}
    extensions = Counter(
        etree.QName(child).namespace
        for url in urls
        for child in url
        if isinstance(child.tag, str) and etree.QName(child).namespace not in own and child.tag not in (_NEWS, _VIDEO)
    )
    return len(urls), images, alternates, extensions


def _media(path: Path) -> tuple[list[int], list[int]]:
    """The news (0 or 1) and the videos of each URL of a sitemap, as lxml finds them."""
    root = etree.parse(str(path), etree.XMLParser(resolve_entities=False)).getroot()
    urls = [url for url in root if isinstance(url.tag, str) and etree.QName(url).localname == "url"]
    return [len(url.findall(_NEWS)) for url in urls], [len(url.findall(_VIDEO)) for url in urls]


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_counts_on_the_corpus(corpus_dir: Path, name: str) -> None:
    path = corpus_dir / name
    urls, images, alternates, extensions = _counted(path)
    frame = feedmap.to_dataframe(path)
    assert len(frame) == urls
    assert [len(one) for one in frame["images"]] == images
    assert [len(one) for one in frame["alternates"]] == alternates
    found = Counter(key[1:].split("}")[0] for extras in frame["extras"] for key, _ in extras if key.startswith("{"))
    assert {space: found[space] for space in extensions} == dict(extensions)
    news, videos = _media(path)
    assert [int(isinstance(one, dict)) for one in frame["news"]] == news
    assert [len(one) if isinstance(one, list) else 0 for one in frame["videos"]] == videos
    assert set(frame["sitemap"]) == {str(path)}
    assert list(frame["line"]) == _url_lines(path)


def test_news_is_carried_in_its_column(corpus_dir: Path) -> None:
    path = corpus_dir / "advertools" / "news_sitemap.xml"
    news = "{http://www.google.com/schemas/sitemap-news/0.9}"
    frame = feedmap.to_dataframe(path)
    carried = [one["title"] for one in frame["news"]]
    root = etree.parse(str(path)).getroot()
    # read as every value is, blank space around it trimmed (whitespace-trimmed)
    assert carried == [
        (url.findtext(f"{news}news/{news}title") or "").strip() for url in root.iter(f"{{{SITEMAP_NS}}}url")
    ]
    assert all(carried)


def test_an_index_followed_gives_each_entrys_child_and_line() -> None:
    index = SAMPLES / "sitemapindex" / "index.xml"
    frame = feedmap.to_dataframe(index, Options(maps=MAPS))
    pages, posts = SAMPLES / "site" / "sitemap-pages.xml", SAMPLES / "site" / "sitemap-posts.xml.gz"
    expected = [(str(pages), line) for line in _url_lines(pages)] + [(str(posts), line) for line in _url_lines(posts)]
    assert [(sitemap, line) for sitemap, line in zip(frame["sitemap"], frame["line"], strict=True)] == expected
    with feedmap.read(index, options=Options(maps=MAPS)) as doc:
        assert list(frame["loc"]) == [entry.loc for entry in doc.entries]


def test_diagnostics_are_those_of_read() -> None:
    lenient = SAMPLES / "sitemap" / "lenient.xml"
    said: list[Diagnostic] = []
    frame = feedmap.to_dataframe(lenient, on_diagnostic=said.append)
    read_said: list[Diagnostic] = []
    with feedmap.read(lenient, on_diagnostic=read_said.append) as doc:
        count = sum(1 for _ in doc.entries)
    assert len(frame) == count and said == read_said and said


def test_strict_and_the_selection_are_reads() -> None:
    with pytest.raises(feedmap.StrictError):
        feedmap.to_dataframe(SAMPLES / "sitemap" / "lenient.xml", Options(strict=True))
    frame = feedmap.to_dataframe(SAMPLES / "sitemap" / "basic.xml", Options(sort="-lastmod", limit=2))
    with feedmap.read(SAMPLES / "sitemap" / "basic.xml", options=Options(sort="-lastmod", limit=2)) as doc:
        assert list(frame["loc"]) == [entry.loc for entry in doc.entries]
    with pytest.raises(ValueError, match="max_urls"):
        feedmap.to_dataframe(SAMPLES / "sitemap" / "basic.xml", Options(max_urls=3))


def test_a_document_read_already() -> None:
    entries = [Entry(loc="https://example.com/a", priority=0.5), Entry(loc="https://example.com/b")]
    frame = feedmap.to_dataframe(Document(entries=entries))
    assert list(frame["loc"]) == ["https://example.com/a", "https://example.com/b"]
    assert frame["sitemap"].isna().all() and frame["line"].isna().all()
    with pytest.raises(ValueError, match="read already"):
        feedmap.to_dataframe(Document(entries=entries), Options(strict=True))


def test_explode_images_gives_a_row_per_image(corpus_dir: Path) -> None:
    path = corpus_dir / "advertools" / "news_sitemap.xml"  # an entry without image among entries with one
    _, images, _, _ = _counted(path)
    frame = feedmap.to_dataframe(path, explode="images")
    assert len(frame) == sum(max(1, count) for count in images) and 0 in images
    assert "images" not in frame.columns
    parts = ["image_loc", "image_caption", "image_geo_location", "image_title", "image_license"]
    assert list(frame.columns[10:15]) == parts and all(str(frame[part].dtype) == "string" for part in parts)
    root = etree.parse(str(path)).getroot()
    image_locs = [(element.text or "").strip() for element in root.iter(f"{{{IMAGE_NS}}}loc")]  # blanks trimmed
    assert [loc for loc in frame["image_loc"] if not pd.isna(loc)] == image_locs
    whole = feedmap.to_dataframe(path)
    assert list(frame["loc"].drop_duplicates()) == list(whole["loc"])


def test_explode_alternates_and_keywords(tmp_path: Path, corpus_dir: Path) -> None:
    path = corpus_dir / "crawler-commons" / "extension" / "sitemap-links.xml"
    _, _, alternates, _ = _counted(path)
    frame = feedmap.to_dataframe(path, explode="alternates")
    assert len(frame) == sum(max(1, count) for count in alternates)
    assert [name for name in frame.columns if name.startswith("alternate")] == ["alternate_hreflang", "alternate_href"]
    entries = [Entry(loc="https://example.com/a", keywords=("x", "y")), Entry(loc="https://example.com/b")]
    words = feedmap.to_dataframe(Document(entries=entries), explode="keywords")
    assert list(words["keyword"].fillna("-")) == ["x", "y", "-"]
    with pytest.raises(ValueError, match="explode='title'"):
        feedmap.to_dataframe(path, explode="title")


def test_a_frame_is_built_from_batches_of_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """The frame is the concatenation of record batches (never one list of every entry): with batches of 3 rows,
    10 entries make 4 batches, and the frame is the same."""
    from feedmap._table import batches

    entries = [
        Entry(loc=f"https://example.com/{n}", images=(Image(loc=f"https://example.com/{n}.png"),) * (n % 3))
        for n in range(10)
    ]
    whole = feedmap.to_dataframe(Document(entries=entries))
    made = list(batches.record_batches(entries, "test"))
    assert [batch.num_rows for batch in made] == [10]
    monkeypatch.setattr(batches, "ROWS", 3)
    assert [batch.num_rows for batch in batches.record_batches(entries, "test")] == [3, 3, 3, 1]
    pd.testing.assert_frame_equal(feedmap.to_dataframe(Document(entries=entries)), whole)


@pytest.mark.parametrize("blocked", [{"pandas"}, {"pyarrow"}])
def test_without_the_extra_the_error_says_what_to_install(blocked: set[str]) -> None:
    script = (
        "import feedmap\n"
        "try:\n"
        "    feedmap.to_dataframe('samples/sitemap/basic.xml')\n"
        "except feedmap.FormatError as error:\n"
        "    print(error)\n"
    )
    result = run_without(blocked, script)
    assert result.returncode == 0, result.stderr
    assert "pip install 'feedmap[dataframe]'" in result.stdout and next(iter(blocked)) in result.stdout


def test_import_feedmap_loads_no_pandas() -> None:
    script = "import sys, feedmap; feedmap.to_dataframe; print(sorted({'pandas', 'pyarrow'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.stdout.strip() == "[]", result.stderr
