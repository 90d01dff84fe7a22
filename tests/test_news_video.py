"""Google News and video sitemaps as typed fields of the IR (``feedmap.News``, ``feedmap.Video``): read from the
corpus with every element kept, carried through JSON lines, CSV, feeds and ``--jobs``, and validated.

The counts are made with lxml on the files themselves, against a map of each IR field to the element or
attribute it holds written here from Google's documentation (news sitemaps, video sitemaps), not from the code.
"""

from __future__ import annotations

import datetime as dt
import io
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import codes, run
from lxml import etree
from test_feed_validator import SELF_URL, Oracle, _validator, offline  # noqa: F401  (a fixture)

import feedmap
from feedmap import Entry, News, Options, Reporter, Video, VideoPrice

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
NEWS = "http://www.google.com/schemas/sitemap-news/0.9"
VIDEO = "http://www.google.com/schemas/sitemap-video/1.1"
XHTML = "http://www.w3.org/1999/xhtml"
SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "sitemap"

#: The corpus files with news, videos or hreflang links that are well-formed XML as they are (sitemap.js's
#: unescaped-lt.xml is read with repairs: what its XML holds is not what lxml reads of it).
CORPUS_FILES = [
    "advertools/news_sitemap.xml",
    "advertools/video_sitemap.xml",
    "sitemapjs/alltags.xml",
    "sitemapjs/alltags.cdata.xml",
    "sitemapjs/bad-tag-sitemap.xml",
    "sitemapjs/cli-urls.json.xml",
    "sitemapjs/cli-urls.json.bad.xml",
    "sitemapjs/video.xml",
    "crawler-commons/extension/sitemap-news.xml",
    "crawler-commons/extension/shinpaideshou-news-sitemap.xml",
    "crawler-commons/extension/hebdenbridgetimes-articles-sitemap.xml",
    "crawler-commons/extension/sitemap-videos.xml",
    "crawler-commons/extension/sitemap-videos-tvshow.xml",
    "crawler-commons/extension/sitemap-links.xml",
]

#: Each IR field of a news entry and the element it holds (Google News sitemaps).
NEWS_ELEMENTS = {
    "publication_name": "name",
    "publication_language": "language",
    "publication_date": "publication_date",
    "title": "title",
    "keywords": "keywords",
    "genres": "genres",
    "stock_tickers": "stock_tickers",
    "access": "access",
}
#: Each IR field of a video and the element it holds (a list: one element per item), or the (element,
#: attribute) of an attribute (Google video sitemaps).
VIDEO_ELEMENTS = {
    "thumbnail_loc": "thumbnail_loc",
    "title": "title",
    "description": "description",
    "content_loc": "content_loc",
    "player_loc": "player_loc",
    "duration": "duration",
    "expiration_date": "expiration_date",
    "rating": "rating",
    "view_count": "view_count",
    "publication_date": "publication_date",
    "tags": "tag",
    "family_friendly": "family_friendly",
    "prices": "price",
    "requires_subscription": "requires_subscription",
    "uploader": "uploader",
    "live": "live",
}
VIDEO_ATTRIBUTES = {
    "player_allow_embed": ("player_loc", "allow_embed"),
    "player_autoplay": ("player_loc", "autoplay"),
    "restriction_relationship": ("restriction", "relationship"),
    "platform_relationship": ("platform", "relationship"),
    "uploader_info": ("uploader", "info"),
}


# ------------------------------------------------------------------------------------------------ counting


def _counted(elements: Iterable[etree._Element]) -> tuple[Counter[str], Counter[tuple[str, str]]]:
    """The elements (by Clark tag) and attributes (by element tag and name) of ``elements`` and all inside them."""
    tags: Counter[str] = Counter()
    attributes: Counter[tuple[str, str]] = Counter()
    for element in elements:
        for node in element.iter():
            if isinstance(node.tag, str):
                tags[node.tag] += 1
                attributes.update((node.tag, str(name)) for name in node.attrib)
    return tags, attributes


def in_file(data: bytes) -> tuple[Counter[str], Counter[tuple[str, str]], int]:
    """What the news, videos and hreflang links of a sitemap hold, counted by lxml, and its alternates."""
    root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
    found = [child for url in root for child in url if child.tag in (f"{{{NEWS}}}news", f"{{{VIDEO}}}video")]
    links = [child for url in root for child in url if child.tag == f"{{{XHTML}}}link"]
    tags, attributes = _counted([*found, *links])
    alternates = sum(
        1 for link in links if link.get("rel") == "alternate" and link.get("hreflang") and link.get("href")
    )
    return tags, attributes, alternates


def _fragments(extras: dict[str, str]) -> list[etree._Element]:
    return [element for value in extras.values() for element in etree.fromstring(f"<w>{value}</w>")]


def in_entries(entries: list[Entry]) -> tuple[Counter[str], Counter[tuple[str, str]], int]:
    """The same counts made from the IR: each typed field by the element it holds, the kept children and extras
    (their XML) as lxml reads them."""
    tags: Counter[str] = Counter()
    attributes: Counter[tuple[str, str]] = Counter()
    alternates = 0
    for entry in entries:
        news = entry.news
        if news is not None:
            tags[f"{{{NEWS}}}news"] += 1
            if news.publication_name is not None or news.publication_language is not None:
                tags[f"{{{NEWS}}}publication"] += 1
            tags.update(
                f"{{{NEWS}}}{local}" for field, local in NEWS_ELEMENTS.items() if getattr(news, field) is not None
            )
            more = _counted(_fragments(dict(news.extras)))
            tags += more[0]
            attributes += more[1]
        for video in entry.videos:
            tags[f"{{{VIDEO}}}video"] += 1
            for field, local in VIDEO_ELEMENTS.items():
                value = getattr(video, field)
                count = len(value) if isinstance(value, tuple) else int(value is not None)
                tags[f"{{{VIDEO}}}{local}"] += count
            for field, (local, attribute) in VIDEO_ATTRIBUTES.items():
                attributes[(f"{{{VIDEO}}}{local}", attribute)] += getattr(video, field) is not None
            for local, relationship in (
                ("restriction", "restriction_relationship"),
                ("platform", "platform_relationship"),
            ):
                tags[f"{{{VIDEO}}}{local}"] += bool(getattr(video, local)) or getattr(video, relationship) is not None
            for price in video.prices:
                attributes.update(
                    (f"{{{VIDEO}}}price", name) for name in ("currency", "type", "resolution") if getattr(price, name)
                )
            more = _counted(_fragments(dict(video.extras)))
            tags += more[0]
            attributes += more[1]
        alternates += len(entry.alternates)
        tags[f"{{{XHTML}}}link"] += len(entry.alternates)
        attributes.update((f"{{{XHTML}}}link", name) for _ in entry.alternates for name in ("rel", "hreflang", "href"))
        kept = _counted(
            _fragments({key: value for key, value in entry.extras.items() if key.startswith(f"{{{XHTML}}}")})
        )
        tags += kept[0]
        attributes += kept[1]
    return +tags, +attributes, alternates


def read(source: Path | bytes, format: str | None = None) -> tuple[list[Entry], list[feedmap.Diagnostic]]:
    reporter = Reporter()
    given = io.BytesIO(source) if isinstance(source, bytes) else source
    with feedmap.read(given, format=format, reporter=reporter, options=Options(follow=False)) as doc:
        return list(doc), reporter.diagnostics


def written(entries: Iterable[Entry], format: str, **options: object) -> bytes:
    sink = io.BytesIO()
    feedmap.write(entries, sink, format, options=Options(**options))  # type: ignore[arg-type]
    return sink.getvalue()


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_every_news_video_and_link_element_of_the_corpus_is_kept(corpus_dir: Path, name: str) -> None:
    """Each element and attribute of each ``news:news``, ``video:video`` and ``xhtml:link`` of the file is in the
    IR (a typed field, or kept verbatim), and in the sitemap written from it, which reads back the same."""
    path = corpus_dir / name
    counts = in_file(path.read_bytes())
    assert counts[0], f"{name} holds no news, video or link"
    entries, _ = read(path)
    assert in_entries(entries) == counts
    again = written(entries, "sitemap", keep_urls=True)
    assert in_file(again) == counts
    assert read(again, "sitemap")[0] == entries


# ------------------------------------------------------------------------------------------------ round trips

SAMPLE_FILES = [SAMPLES / "news.xml", SAMPLES / "video.xml"]


@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=lambda path: path.name)
@pytest.mark.parametrize("through", ["jsonl", "csv", "parquet", "rss", "ror", "atom"])
def test_a_sitemap_through_another_format_is_written_back_byte_for_byte(sample: Path, through: str) -> None:
    """sitemap -> X -> sitemap writes the bytes sitemap -> sitemap writes (the writer is canonical)."""
    entries, _ = read(sample)
    direct = written(entries, "sitemap")
    there = written(entries, through)
    back, _ = read(there, through)
    assert [(entry.news, entry.videos) for entry in back] == [(entry.news, entry.videos) for entry in entries]
    if through == "atom":  # Atom gives every entry an updated (a lastmod read back) and a title: only theirs differ
        back = [
            replace(one, lastmod=entry.lastmod, title=entry.title) for one, entry in zip(back, entries, strict=True)
        ]
    assert written(back, "sitemap") == direct


def test_a_written_sitemap_is_a_fixed_point() -> None:
    for sample in SAMPLE_FILES:
        once = written(read(sample)[0], "sitemap")
        assert written(read(once, "sitemap")[0], "sitemap") == once


def _index(tmp_path: Path) -> tuple[Path, Options]:
    """An index of the two samples (and of a copy of each, so that a worker reads more than one child)."""
    folder = tmp_path / "site"
    folder.mkdir()
    names = []
    for sample in SAMPLE_FILES:
        for copy in ("", "-2"):
            name = sample.stem + copy + ".xml"
            (folder / name).write_bytes(sample.read_bytes())
            names.append(name)
    children = "".join(f"<sitemap><loc>https://www.example.com/{name}</loc></sitemap>" for name in names)
    (folder / "index.xml").write_text(f'<sitemapindex xmlns="{SM}">{children}</sitemapindex>')
    return folder / "index.xml", Options(maps=(("https://www.example.com/", folder),))


@pytest.mark.parametrize("target", ["sitemap", "jsonl", "ror"])
def test_workers_write_what_one_process_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    """--jobs 2: the children's news and videos travel from the worker processes as they are."""
    index, options = _index(tmp_path)
    outputs = []
    for jobs in (1, 2):
        said: list[feedmap.Diagnostic] = []
        (tmp_path / f"jobs-{jobs}").mkdir()
        monkeypatch.chdir(tmp_path / f"jobs-{jobs}")  # the output's name, which the messages give, is the same
        feedmap.convert(str(index), "out", target, Options(maps=options.maps, jobs=jobs), on_diagnostic=said.append)
        outputs.append((Path("out").read_bytes(), [str(one) for one in said]))
    assert outputs[1] == outputs[0]
    assert outputs[0][0].count(b"thumbnail_loc") >= 4 and outputs[0][0].count(b"publication_date") >= 3


def test_a_dask_bag_holds_what_one_process_reads(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    from localcluster import local_cluster

    import feedmap.dask

    index, options = _index(tmp_path)
    with feedmap.read(str(index), options=options) as doc:
        here = list(doc)
    with local_cluster() as cluster, distributed.Client(cluster):
        there = feedmap.dask.read_bag(str(index), options=options).compute()
    assert there == here
    assert sum(len(entry.videos) for entry in there) == 4 and sum(entry.news is not None for entry in there) == 6


# ------------------------------------------------------------------------------------------------ reading


def urlset(body: str) -> bytes:
    return (
        f'<urlset xmlns="{SM}" xmlns:news="{NEWS}" xmlns:video="{VIDEO}"><url><loc>https://e.com/a</loc>{body}</url>'
        "</urlset>"
    ).encode()


NEWS_XML = (
    "<news:news><news:publication><news:name>N</news:name><news:language>en</news:language></news:publication>"
    "<news:publication_date>2024-06-01</news:publication_date><news:title>T</news:title></news:news>"
)


def test_a_second_news_is_kept_verbatim_and_said() -> None:
    (entry,), diagnostics = read(urlset(NEWS_XML + NEWS_XML.replace(">T<", ">U<")), "sitemap")
    assert entry.news == News(publication_name="N", publication_language="en", publication_date="2024-06-01", title="T")
    assert list(entry.extras) == [f"{{{NEWS}}}news"] and ">U<" in entry.extras[f"{{{NEWS}}}news"]
    assert codes(diagnostics) == ["element-repeated"]
    data = written([entry], "sitemap")
    assert [title.text for title in etree.fromstring(data).iter(f"{{{NEWS}}}title")] == ["T", "U"]


@pytest.mark.parametrize(
    ("body", "code", "kept"),
    [
        (
            "<news:publication><news:name>N</news:name><news:name>M</news:name></news:publication>",
            "news-value-invalid",
            "publication",
        ),
        ("<news:title><b>T</b></news:title>", "news-value-invalid", "title"),
        ("<news:title lang='en'>T</news:title>", "news-value-invalid", "title"),
        ("<news:publication_date>2024-13-01</news:publication_date>", "news-value-invalid", "publication_date"),
        ("<news:title>T</news:title><news:title>U</news:title>", "element-repeated", "title"),
        ("<news:edition>morning</news:edition>", "unknown-element", "edition"),
    ],
)
def test_what_a_news_part_cannot_hold_is_kept_where_it_stands(body: str, code: str, kept: str) -> None:
    (entry,), diagnostics = read(urlset(f"<news:news>{body}</news:news>"), "sitemap")
    assert entry.news is not None and f"{{{NEWS}}}{kept}" in entry.news.extras
    assert codes(diagnostics) == [code]
    data = written([entry], "sitemap")
    assert data.count(f"<news:{kept}".encode()) == body.count(f"<news:{kept}")  # written back, nothing lost
    assert written(read(data, "sitemap")[0], "sitemap") == data  # (an element kept may declare in another order)


@pytest.mark.parametrize(
    ("child", "code"),
    [
        ("<video:duration>10 min</video:duration>", "video-value-invalid"),
        ("<video:rating>high</video:rating>", "video-value-invalid"),
        ("<video:view_count>-1</video:view_count>", "video-value-invalid"),
        ("<video:live>maybe</video:live>", "video-value-invalid"),
        ("<video:player_loc allow_embed='sometimes'>https://e.com/p</video:player_loc>", "video-value-invalid"),
        ("<video:uploader kind='x'>U</video:uploader>", "video-value-invalid"),
        ("<video:uploader>U</video:uploader><video:uploader>V</video:uploader>", "element-repeated"),
        ("<video:clip>c</video:clip>", "unknown-element"),
        ("<video:category>Baking</video:category>", None),
    ],
)
def test_what_a_video_part_cannot_hold_is_kept_and_written_back(child: str, code: str | None) -> None:
    (entry,), diagnostics = read(urlset(f"<video:video>{child}</video:video>"), "sitemap")
    (video,) = entry.videos
    assert video.extras and codes(diagnostics) == ([code] if code else [])
    data = written([entry], "sitemap")
    assert read(data, "sitemap")[0] == [entry]


def test_the_typed_values_of_a_video() -> None:
    body = (
        "<video:video><video:duration>0600</video:duration><video:rating>4.50</video:rating>"
        "<video:family_friendly>No</video:family_friendly>"
        "<video:restriction relationship='deny'> IE  GB </video:restriction>"
        "<video:price type='rent'></video:price></video:video>"
    )
    (entry,), diagnostics = read(urlset(body), "sitemap")
    assert entry.videos == (
        Video(
            duration=600,
            rating=4.5,
            family_friendly=False,
            restriction=("IE", "GB"),
            restriction_relationship="deny",
            prices=(VideoPrice(type="rent"),),
        ),
    )
    assert codes(diagnostics) == ["whitespace-trimmed"]
    assert b"<video:duration>600</video:duration><video:rating>4.5</video:rating>" in written([entry], "sitemap")


def test_news_and_videos_are_built_from_plain_values() -> None:
    news = News(publication_date=dt.date(2024, 6, 1))
    assert news.publication_date == feedmap.W3CDate("2024-06-01")
    video = Video(tags=["a", "b"], expiration_date="2024-06-01T10:00:00Z")
    assert video.tags == ("a", "b") and video.expiration_date == feedmap.W3CDate("2024-06-01T10:00:00Z")
    with pytest.raises(ValueError, match=r"Video\.publication_date"):
        Video(publication_date="yesterday")
    with pytest.raises(TypeError, match=r"Entry\.news"):
        Entry(loc="https://e.com/a", news="N")  # type: ignore[arg-type]


def test_a_json_line_with_a_news_of_the_wrong_shape_is_skipped_and_said() -> None:
    lines = b'{"loc": "https://e.com/a", "news": {"title": 5}}\n{"loc": "https://e.com/b", "videos": [{"x": 1}]}\n'
    entries, diagnostics = read(lines, "jsonl")
    assert entries == [] and codes(diagnostics) == ["invalid-value", "invalid-value"]
    assert "news 'title' must be a string" in diagnostics[0].message
    assert "unknown video keys: x" in diagnostics[1].message


def test_a_format_that_cannot_hold_them_says_so() -> None:
    entries, _ = read(SAMPLES / "news.xml")
    sink = io.BytesIO()
    summary = feedmap.write([*entries, *read(SAMPLES / "video.xml")[0]], sink, "text")
    assert [(d.code, d.message) for d in summary.diagnostics] == [
        ("field-dropped", "format 'text' cannot hold lastmod, news, videos; they are not written")
    ]


# ------------------------------------------------------------------------------------------------ validate

FRESH = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def news(name: str = "N", language: str = "en", date: str = FRESH, title: str = "T") -> str:
    parts = "".join(
        f"<news:{tag}>{text}</news:{tag}>" for tag, text in (("name", name), ("language", language)) if text
    )
    rest = "".join(
        f"<news:{tag}>{text}</news:{tag}>" for tag, text in (("publication_date", date), ("title", title)) if text
    )
    return f"<news:news><news:publication>{parts}</news:publication>{rest}</news:news>"


def video(**changes: str) -> str:
    parts = {
        "thumbnail_loc": "https://e.com/t.jpg",
        "title": "V",
        "description": "D",
        "content_loc": "https://e.com/v.mp4",
        "duration": "600",
        "rating": "4.2",
    } | changes
    return (
        "<video:video>"
        + "".join(f"<video:{tag}>{text}</video:{tag}>" for tag, text in parts.items() if text)
        + "</video:video>"
    )


def urls(*bodies: str) -> bytes:
    body = "".join(f"<url><loc>https://e.com/{n}</loc>{one}</url>" for n, one in enumerate(bodies))
    return f'<urlset xmlns="{SM}" xmlns:news="{NEWS}" xmlns:video="{VIDEO}">{body}</urlset>'.encode()


# code -> (a sitemap breaking the rule, one keeping it)
RULE_CASES: dict[str, tuple[bytes, bytes]] = {
    "news-incomplete": (urls(news(name="")), urls(news())),
    "news-value-invalid": (urls(news(language="English")), urls(news(language="zh-tw"))),
    "news-old": (urls(news(date="2008-12-23")), urls(news())),
    "news-too-many": (urls(*[news()] * 1001), urls(*[news()] * 1000)),
    "video-incomplete": (urls(video(content_loc="")), urls(video(content_loc="", player_loc="https://e.com/p"))),
    "video-url-invalid": (urls(video(thumbnail_loc="/t.jpg")), urls(video())),
    "video-description-too-long": (urls(video(description="d" * 2049)), urls(video(description="d" * 2048))),
    "video-duration-invalid": (urls(video(duration="28801")), urls(video(duration="28800"))),
    "video-rating-invalid": (urls(video(rating="5.1")), urls(video(rating="5.0"))),
    "video-value-invalid": (urls(video(live="perhaps")), urls(video(live="YES"))),
}


@pytest.mark.parametrize("code", sorted(RULE_CASES))
def test_each_rule_fails_and_passes(tmp_path: Path, code: str) -> None:
    bad, good = RULE_CASES[code]
    for data, expected in ((bad, True), (good, False)):
        path = tmp_path / "in.xml"
        path.write_bytes(data)
        assert (code in codes(feedmap.validate(path))) is expected, (code, expected)


def test_a_news_date_is_checked_against_the_two_days() -> None:
    yesterday = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=1)).strftime("%Y-%m-%d")
    three_days = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert codes(feedmap.validate(io.BytesIO(urls(news(date=yesterday))))) == []
    assert codes(feedmap.validate(io.BytesIO(urls(news(date=three_days))))) == ["news-old"]


# ---------------------------------------------------------------------------------------- what a sitemap says


def root_declarations(data: bytes) -> dict[str | None, str]:
    return dict(etree.fromstring(data).nsmap)


def test_a_sitemap_declares_only_the_namespaces_it_uses() -> None:
    plain = written([Entry(loc="https://e.com/a")], "sitemap")
    assert root_declarations(plain) == {None: SM}
    news_only = written(read(SAMPLES / "news.xml")[0], "sitemap")
    assert root_declarations(news_only) == {None: SM, "news": NEWS}
    both = written([*read(SAMPLES / "news.xml")[0], *read(SAMPLES / "video.xml")[0]], "sitemap")
    assert root_declarations(both) == {None: SM, "news": NEWS, "video": VIDEO}


def test_the_merge_declares_on_the_root_what_any_entry_uses() -> None:
    """The default write renders every entry before the root (the merge of repeated URLs): a video of the last
    entry is declared there, on the root, and nowhere else."""
    entries = [Entry(loc=f"https://e.com/{number}") for number in range(2000)]
    entries.append(Entry(loc="https://e.com/v", videos=(Video(title="V"),)))
    data = written(entries, "sitemap")
    assert root_declarations(data) == {None: SM, "video": VIDEO}
    assert data.count(f'xmlns:video="{VIDEO}"'.encode()) == 1


@pytest.mark.parametrize("dedupe", ["first"])
def test_a_streamed_sitemap_declares_a_late_namespace_where_it_is_used(dedupe: str) -> None:
    """Streamed (no merge to run first: ``dedupe="first"``), the root declares what the first entries use, and
    an element first used later declares its namespace itself: valid XML, the same entries."""
    entries = [Entry(loc=f"https://e.com/{number}") for number in range(2000)]
    entries.append(Entry(loc="https://e.com/v", videos=(Video(title="V"),)))
    data = written(entries, "sitemap", dedupe=dedupe)
    assert root_declarations(data) == {None: SM}
    assert f'<video:video xmlns:video="{VIDEO}">'.encode() in data
    assert read(data, "sitemap")[0] == entries


FEED = f"""<?xml version="1.0"?>
<rss version="2.0" xmlns:slash="http://purl.org/rss/1.0/modules/slash/" xmlns:wfw="http://wellformedweb.org/CommentAPI/"
     xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0"
     xmlns:news="{NEWS}"><channel><title>T</title><link>https://e.com/</link><description>D</description>
<item><title>A</title><link>https://e.com/a</link><dc:creator>Ann</dc:creator><slash:comments>3</slash:comments>
<wfw:commentRss>https://e.com/a/comments</wfw:commentRss><mobile:mobile/>{NEWS_XML}</item>
<item><title>B</title><link>https://e.com/b</link><slash:comments>0</slash:comments></item>
</channel></rss>""".encode()


def test_a_feeds_own_elements_are_not_carried_into_a_sitemap() -> None:
    sink, reporter = io.BytesIO(), Reporter()
    feedmap.convert(io.BytesIO(FEED), sink, "sitemap", reporter=reporter)
    data = sink.getvalue()
    assert b"slash:" not in data and b"wfw:" not in data and b"commentRss" not in data
    assert b"<mobile:mobile" in data and b"<news:news>" in data  # a sitemap extension's, and the news
    dropped = [d.message for d in reporter.diagnostics if d.code == "extra-dropped"]
    assert len(dropped) == 2 and all("keep_feed_extras" in message for message in dropped)  # once an element
    assert {message.split("'")[1] for message in dropped} == {
        "{http://purl.org/rss/1.0/modules/slash/}comments",
        "{http://wellformedweb.org/CommentAPI/}commentRss",
    }
    kept = io.BytesIO()
    feedmap.convert(io.BytesIO(FEED), kept, "sitemap", options=Options(keep_feed_extras=True))
    assert kept.getvalue().count(b"<slash:comments") == 2 and b"<wfw:commentRss" in kept.getvalue()
    lines = io.BytesIO()
    feedmap.convert(io.BytesIO(FEED), lines, "jsonl")  # JSON lines keep everything read
    assert lines.getvalue().count(b"slash/}comments") == 2


def test_the_cli_keeps_a_feeds_elements_when_asked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    feed = tmp_path / "feed.xml"
    feed.write_bytes(FEED)
    for flags, kept in (([], False), (["--keep-feed-extras"], True)):
        out = tmp_path / "out.xml"
        code, _, err = run(capsys, "convert", feed, "-t", "sitemap", "-o", out, *flags)
        assert code == 0
        assert (b"<slash:comments" in out.read_bytes()) is kept
        assert ("info[extra-dropped]" in err) is not kept


# --------------------------------------------------------------------------------- the W3C Feed Validator


@pytest.mark.usefixtures("offline")
@pytest.mark.parametrize("target", ["rss", "ror", "atom"])
def test_feeds_with_images_news_and_videos_give_the_validator_nothing_to_say(corpus_dir: Path, target: str) -> None:
    """The image namespace takes the prefix ``gimage`` in a feed: ``image`` is the RSS 1.0 image module's, and
    the validator warns (ReservedPrefix) of another namespace bound to it.  Nothing else is said but the
    namespaces it does not know (Google's, and ROR's)."""
    oracle = Oracle(*_validator(corpus_dir))
    entries = [
        *read(Path(__file__).resolve().parent.parent / "samples" / "sitemap" / "basic.xml")[0],
        *read(SAMPLES / "news.xml")[0],
        *read(SAMPLES / "video.xml")[0],
    ]
    sink = io.BytesIO()
    feedmap.write(entries, sink, target, options=Options(self_url=SELF_URL))
    data = sink.getvalue()
    assert b"<gimage:image" in data and b"<news:news" in data and b"<video:video" in data
    events = oracle.events(data, SELF_URL)
    names = [type(event).__name__ for event in events]
    assert "ReservedPrefix" not in names
    # the warning the prefix avoids: the same feed with the image namespace bound to "image"
    as_before = data.replace(b"gimage:", b"image:").replace(b"xmlns:gimage=", b"xmlns:image=")
    assert "ReservedPrefix" in [type(event).__name__ for event in oracle.events(as_before, SELF_URL)]
    unknown = {str(event.params.get("namespace")) for event in events if type(event).__name__ == "UnknownNamespace"}
    # Atom: the entries without a lastmod share the feed's updated (updated-assumed), which the validator notes
    assert set(names) <= {"UnknownNamespace"} | ({"DuplicateUpdated"} if target == "atom" else set()), names
    assert unknown <= {
        "http://www.google.com/schemas/sitemap-image/1.1",
        NEWS,
        VIDEO,
        "http://www.sitemaps.org/schemas/sitemap/0.9",
        "http://rorweb.com/0.1/",
    }


# ------------------------------------------------------------------ values no typed part holds exactly (review)


@pytest.mark.parametrize(
    ("child", "value"),
    [
        ("rating", "9" * 401),  # a decimal a float makes infinite
        ("rating", "0.1234567890123456789"),  # a float would round it
        ("duration", "9" * 5000),  # Python refuses int() of over 4,300 digits
        ("view_count", str(2**63)),  # past an int64 (Parquet's column, pandas')
    ],
    ids=["rating-infinite", "rating-rounded", "duration-5000-digits", "view-count-past-int64"],
)
@pytest.mark.parametrize("through", ["jsonl", "csv", "parquet", "sitemap"])
def test_a_value_no_part_holds_exactly_is_kept_as_written(child: str, value: str, through: str) -> None:
    data = urls(video(**{child: value}))
    entries, said = read(data, "sitemap")
    assert "video-value-invalid" in codes(said)
    (one,) = entries[0].videos
    assert getattr(one, child) is None and value in "".join(one.extras.values())
    back, _ = read(written(entries, through), through)
    assert back == entries
    assert f"<video:{child}>{value}</video:{child}>".encode() in written(back, "sitemap")


def test_validate_says_what_is_wrong_with_a_count_of_thousands_of_digits() -> None:
    found = codes(feedmap.validate(io.BytesIO(urls(video(duration="9" * 5000, view_count=str(2**63))))))
    assert "video-duration-invalid" in found and "video-value-invalid" in found


@pytest.mark.parametrize(
    ("build", "error"),
    [
        (lambda: Video(family_friendly="no"), TypeError),  # a non-empty string would be written "yes"
        (lambda: Video(duration=12.7), TypeError),  # would be written 12
        (lambda: Video(duration="ten"), TypeError),
        (lambda: Video(rating="high"), TypeError),
        (lambda: Video(tags=("a", 2)), TypeError),
        (lambda: Video(extras={"{x}y": 3}), TypeError),
        (lambda: News(title=3), TypeError),
        (lambda: Video(duration=-1), ValueError),
        (lambda: Video(view_count=2**63), ValueError),
        (lambda: Video(rating=float("nan")), ValueError),
    ],
)
def test_a_part_given_a_value_of_another_kind_is_refused(build: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        build()  # type: ignore[operator]


def test_values_of_their_kind_are_taken() -> None:
    one = Video(family_friendly=False, duration=12, rating=4, view_count=2**63 - 1, tags=["a"])
    assert (one.family_friendly, one.duration, one.rating, one.tags) == (False, 12, 4, ("a",))


def test_csv_encodes_a_videos_urls_as_the_xml_writers_do() -> None:
    entry = Entry(
        loc="https://e.com/é",
        videos=[Video(thumbnail_loc="https://e.com/ü.jpg", content_loc="https://e.com/ö.mp4", title="V")],
    )
    # CSV keeps URLs as read unless told to encode them (encode_urls); the XML writers encode by default
    sitemap, csv = written([entry], "sitemap"), written([entry], "csv", encode_urls=True).decode()
    for url in ("https://e.com/%C3%BC.jpg", "https://e.com/%C3%B6.mp4"):
        assert url.encode() in sitemap and url in csv
    assert "ü" not in csv and "ö" not in csv and "https://e.com/%C3%A9," in csv


def test_a_sitemap_written_with_more_than_1000_news_says_so_once() -> None:
    entries = [replace(entry, loc=f"https://e.com/{n}") for n in range(1001) for entry in read(urls(news()))[0]]
    said: list[feedmap.Diagnostic] = []
    feedmap.write(entries, io.BytesIO(), "sitemap", on_diagnostic=said.append)
    assert codes(said) == ["news-too-many"]
    said.clear()
    feedmap.write(entries[:1000], io.BytesIO(), "sitemap", on_diagnostic=said.append)
    assert codes(said) == []


def test_files_of_at_most_1000_urls_hold_the_news_google_reads(tmp_path: Path) -> None:
    entries = [replace(entry, loc=f"https://e.com/{n}") for n in range(1001) for entry in read(urls(news()))[0]]
    said: list[feedmap.Diagnostic] = []
    options = Options(max_urls=1000, base_url="https://e.com/")
    feedmap.split(entries, tmp_path / "out", "sitemap", options=options, on_diagnostic=said.append)
    assert "news-too-many" not in codes(said)
    roots = [etree.parse(path).getroot() for path in sorted((tmp_path / "out").glob("*.xml"))]
    held = [len(root.findall(f".//{{{NEWS}}}news")) for root in roots if root.tag == f"{{{SM}}}urlset"]
    assert held == [1000, 1]


def test_validate_places_news_and_video_where_they_belong() -> None:
    twice = codes(feedmap.validate(io.BytesIO(urls(news() + news()))))
    assert twice.count("element-repeated") == 1
    index = (
        f'<sitemapindex xmlns="{SM}" xmlns:news="{NEWS}"><sitemap><loc>https://e.com/s.xml</loc>{news()}'
        "</sitemap></sitemapindex>"
    ).encode()
    assert "unknown-element" in codes(feedmap.validate(io.BytesIO(index), options=Options(follow=False)))
