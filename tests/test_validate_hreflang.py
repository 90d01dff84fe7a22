"""``feedmap validate`` checks hreflang alternates (Google's localized versions): values, hrefs, each page's own set,
and the return links across every file read (two children of an index, inputs given together), the same with
``--jobs`` and ``--dask``, in bounded memory; ``convert`` and ``read`` stay lenient (none of these codes).

Sitemaps are built here line by line, so that each expected line is where the test wrote the element; the
expected codes and URLs come from what the test wrote, never from a run.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from conftest import SITEMAP_NS, codes, index_xml, run, run_in
from localcluster import local_cluster

import feedmap
import feedmap._validate._subtags as subtags
import feedmap._validate.report as report_module
import feedmap._validate.return_links as return_links
from feedmap import Diagnostic, Level, Options

XHTML_NS = "http://www.w3.org/1999/xhtml"
SITE = "https://example.com/"
LANGUAGES = ("en", "de", "fr")
HREFLANG_CODES = frozenset(
    {
        "hreflang-invalid",
        "hreflang-language-unknown",
        "hreflang-region-unknown",
        "hreflang-duplicate",
        "alternate-href-invalid",
        "alternate-self-missing",
        "alternate-no-return",
        "alternate-not-checked",
        "alternate-incomplete",
    }
)


def link(hreflang: str, href: str, rel: str = "alternate") -> str:
    return f'<xhtml:link rel="{rel}" hreflang="{hreflang}" href="{href}"/>'


def page(loc: str, *links: str) -> list[str]:
    """One ``<url>``, its loc and each link on a line of their own."""
    return ["<url>", f"<loc>{loc}</loc>", *links, "</url>"]


def urlset(*pages: list[str]) -> str:
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}">',
    ]
    return "\n".join([*head, *(line for one in pages for line in one), "</urlset>", ""])


def line_of(text: str, fragment: str, after: str = "") -> int:
    """The line of ``text`` (1-based) holding ``fragment``, the first after the line holding ``after``."""
    lines = text.splitlines()
    start = next(number for number, line in enumerate(lines) if after in line) if after else 0
    return next(number + 1 for number, line in enumerate(lines) if number >= start and fragment in line)


def url_line(text: str, url: str) -> int:
    """The line of the ``<url>`` whose loc is ``url`` (the line before its loc's)."""
    return line_of(text, f"<loc>{url}</loc>") - 1


def cluster(number: int, languages: Sequence[str] = LANGUAGES, default: str | None = "en") -> list[list[str]]:
    """The pages of one page translated into ``languages``, each naming all of them (itself too) and x-default."""
    urls = {language: f"{SITE}{language}/page-{number}" for language in languages}
    links = [link(language, url) for language, url in urls.items()]
    if default is not None:
        links.append(link("x-default", urls[default]))
    return [page(url, *links) for url in urls.values()]


def hreflang_findings(found: Sequence[Diagnostic] | feedmap.Report) -> list[tuple[str, str, int]]:
    diagnostics = found.findings if isinstance(found, feedmap.Report) else found
    return [(one.code, one.source, one.line) for one in diagnostics if one.code in HREFLANG_CODES]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- one file --


def test_a_cluster_of_three_languages_and_x_default_is_clean(tmp_path: Path) -> None:
    sitemap = write(tmp_path / "sitemap.xml", urlset(*cluster(1), *cluster(2)))
    report = feedmap.validate(sitemap)
    assert report.findings == []
    assert report.entries == 6


def _problem_sitemap() -> str:
    return urlset(
        page(f"{SITE}en/a", link("en", f"{SITE}en/a"), link("en_US", f"{SITE}en/a")),
        page(f"{SITE}en/b", link("en", f"{SITE}en/b"), link("jp", f"{SITE}en/b"), link("en-UK", f"{SITE}en/b")),
        page(f"{SITE}en/c", link("en", f"{SITE}en/c"), link("de", "/de/c"), link("fr", "ftp://example.com/fr/c")),
        page(f"{SITE}en/d", link("en", f"{SITE}en/d"), link("EN", f"{SITE}en/d2")),
        page(f"{SITE}en/e", link("en", f"{SITE}en/e"), link("x-default", f"{SITE}e"), link("x-default", f"{SITE}f")),
        page(f"{SITE}en/g", link("de", f"{SITE}de/g")),
        page(f"{SITE}en/h", link("en", f"{SITE}en/h"), '<xhtml:link rel="alternate" href="https://example.com/x"/>'),
    )


@pytest.mark.parametrize(
    ("code", "fragment", "after"),
    [
        ("hreflang-invalid", 'hreflang="en_US"', ""),
        ("hreflang-language-unknown", 'hreflang="jp"', ""),
        ("hreflang-region-unknown", 'hreflang="en-UK"', ""),
        ("alternate-href-invalid", 'href="/de/c"', ""),
        ("alternate-href-invalid", 'href="ftp://', ""),
        ("hreflang-duplicate", 'hreflang="EN"', ""),
        ("hreflang-duplicate", f'href="{SITE}f"', ""),
        ("alternate-self-missing", "<url>", f"<loc>{SITE}en/e</loc>"),  # the <url> after en/e's: en/g's
        ("alternate-incomplete", 'href="https://example.com/x"', ""),
    ],
)
def test_each_problem_of_one_page_is_reported_at_its_line(tmp_path: Path, code: str, fragment: str, after: str) -> None:
    text = _problem_sitemap()
    sitemap = write(tmp_path / "sitemap.xml", text)
    found = hreflang_findings(feedmap.validate(sitemap))
    assert (code, str(sitemap), line_of(text, fragment, after)) in found


def test_one_page_problems_are_warnings_said_once_each(tmp_path: Path) -> None:
    sitemap = write(tmp_path / "sitemap.xml", _problem_sitemap())
    report = feedmap.validate(sitemap)
    per_page = [one for one in report.findings if one.code in HREFLANG_CODES - {"alternate-not-checked"}]
    assert {one.level for one in per_page} == {Level.WARNING}
    assert codes(per_page).count("hreflang-duplicate") == 2  # EN for another URL; x-default twice
    assert codes(per_page).count("alternate-href-invalid") == 2
    assert report.ok  # warnings only
    assert not feedmap.validate(sitemap, options=Options(strict=True)).ok


@pytest.mark.parametrize(
    "value",
    ["de", "DE-at", "zh-Hant", "zh-Hant-TW", "sr-Latn-RS", "de-CH-1901", "en-US-x-twain", "X-Default", "pt-BR"],
)
def test_values_google_reads_are_accepted(tmp_path: Path, value: str) -> None:
    url = f"{SITE}{value}/"
    sitemap = write(tmp_path / "sitemap.xml", urlset(page(url, link(value, url))))
    assert feedmap.validate(sitemap).findings == []


@pytest.mark.parametrize(
    ("value", "code", "said"),
    [
        ("en_GB", "hreflang-invalid", "write 'en-GB'"),
        ("english-", "hreflang-invalid", ""),
        ("de-419-DE", "hreflang-invalid", ""),  # two regions: no BCP 47 tag
        ("e", "hreflang-invalid", ""),
        ("jp", "hreflang-language-unknown", "write 'ja'"),
        ("eng", "hreflang-language-unknown", "write 'en'"),  # ISO 639-2, whose ISO 639-1 code is en
        ("ger-DE", "hreflang-language-unknown", "write 'de'"),
        ("fil", "hreflang-language-unknown", ""),  # a language ISO 639-1 has no code for
        ("us", "hreflang-language-unknown", "country"),
        ("i-klingon", "hreflang-language-unknown", "grandfathered"),
        ("x-pirate", "hreflang-language-unknown", "private-use"),
        ("en-UK", "hreflang-region-unknown", "write 'GB'"),
        ("es-419", "hreflang-region-unknown", "UN M.49"),
        ("en-EU", "hreflang-region-unknown", ""),
    ],
)
def test_values_google_cannot_read_are_said_with_what_to_write(
    tmp_path: Path, value: str, code: str, said: str
) -> None:
    url = f"{SITE}page/"
    sitemap = write(tmp_path / "sitemap.xml", urlset(page(url, link(value, url))))
    [finding] = feedmap.validate(sitemap).findings
    assert (finding.code, finding.level) == (code, Level.WARNING)
    assert repr(value) in finding.message and said in finding.message


def test_links_that_are_no_hreflang_alternates_are_left_alone(tmp_path: Path) -> None:
    url = f"{SITE}page/"
    sitemap = write(
        tmp_path / "sitemap.xml",
        urlset(
            page(
                url,
                '<xhtml:link rel="amphtml" href="https://example.com/page.amp"/>',
                '<xhtml:link rel="alternate" href="android-app://com.example/page"/>',
            )
        ),
    )
    assert feedmap.validate(sitemap).findings == []


# -- return links --


def _message(page_url: str, hreflang: str, other: str, where: str, back: str = "does not name it back") -> str:
    return f"{page_url} names {other} as its {hreflang} alternate, but {other} ({where}) {back}"


def test_a_missing_return_link_names_both_urls_at_the_line_of_the_link(tmp_path: Path) -> None:
    de, fr = f"{SITE}de/", f"{SITE}fr/"
    text = urlset(page(de, link("de", de), link("fr", fr)), page(fr, link("fr", fr)))
    sitemap = write(tmp_path / "sitemap.xml", text)
    [finding] = [one for one in feedmap.validate(sitemap).findings if one.code == "alternate-no-return"]
    assert (finding.source, finding.line, finding.level) == (
        str(sitemap),
        line_of(text, 'hreflang="fr"'),
        Level.WARNING,
    )
    where = f"{sitemap} line {url_line(text, fr)}"
    assert finding.message == _message(de, "fr", fr, where)


def test_a_page_named_twice_is_reported_once_and_each_side_of_a_one_way_pair(tmp_path: Path) -> None:
    de, fr, it = f"{SITE}de/", f"{SITE}fr/", f"{SITE}it/"
    # de names fr twice (fr and x-default); fr names it, which names nobody back
    text = urlset(
        page(de, link("de", de), link("fr", fr), link("x-default", fr)),
        page(fr, link("fr", fr), link("it", it)),
        page(it),
    )
    sitemap = write(tmp_path / "sitemap.xml", text)
    found = [one for one in feedmap.validate(sitemap).findings if one.code == "alternate-no-return"]
    assert [one.line for one in found] == [line_of(text, 'hreflang="fr"'), line_of(text, 'hreflang="it"')]
    assert found[1].message.endswith(f"{it} ({sitemap} line {url_line(text, it)}) names no alternates")


def test_alternates_off_the_input_are_counted_once_not_checked(tmp_path: Path) -> None:
    pages = [
        page(f"{SITE}en/{n}", link("en", f"{SITE}en/{n}"), link("de", f"https://example.de/{n}")) for n in range(5)
    ]
    sitemap = write(tmp_path / "sitemap.xml", urlset(*pages))
    report = feedmap.validate(sitemap)
    [finding] = report.findings
    assert (finding.code, finding.level, finding.line) == ("alternate-not-checked", Level.INFO, 0)
    assert "5 alternates" in finding.message


def _two_children(folder: Path) -> tuple[Path, str, str]:
    """An index whose two children hold a cluster split between them, one page not naming another back."""
    folder.mkdir(parents=True, exist_ok=True)
    de, fr = f"{SITE}de/", f"{SITE}fr/"
    first = urlset(*cluster(1), page(de, link("de", de), link("fr", fr)))
    second = urlset(*cluster(2), page(fr, link("fr", fr), link("en", f"{SITE}en/page-1")))
    write(folder / "a.xml", first)
    write(folder / "b.xml", second)
    (folder / "index.xml").write_bytes(index_xml(f"{SITE}a.xml", f"{SITE}b.xml"))
    return folder / "index.xml", first, second


def test_return_links_across_two_children_of_an_index(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    index, first, second = _two_children(tmp_path / "site")
    code, out, _err = run(capsys, "validate", index, "--map", f"{SITE}={index.parent}")
    a, b = index.parent / "a.xml", index.parent / "b.xml"
    de_line, fr_line = line_of(first, 'hreflang="fr"', f"<loc>{SITE}de/</loc>"), url_line(second, f"{SITE}fr/")
    fr_link = line_of(second, f'href="{SITE}en/page-1"', f"<loc>{SITE}fr/</loc>")
    en_line = url_line(first, f"{SITE}en/page-1")
    assert code == 0  # warnings
    lines = [line for line in out.splitlines() if "alternate-no-return" in line]
    assert lines == [
        f"{a}:{de_line}: warning[alternate-no-return]: "
        + _message(f"{SITE}de/", "fr", f"{SITE}fr/", f"{b} line {fr_line}"),
        f"{b}:{fr_link}: warning[alternate-no-return]: "
        + _message(f"{SITE}fr/", "en", f"{SITE}en/page-1", f"{a} line {en_line}"),
    ]


def test_return_links_across_inputs_given_together(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    index, _first, _second = _two_children(tmp_path / "site")
    a, b = index.parent / "a.xml", index.parent / "b.xml"
    together = feedmap.validate([a, b])
    assert codes(together).count("alternate-no-return") == 2 and "alternate-not-checked" not in codes(together)
    alone = feedmap.validate(a)  # fr is not in the input: its return link cannot be checked
    assert "alternate-no-return" not in codes(alone) and "alternate-not-checked" in codes(alone)
    code, out, _err = run(capsys, "validate", a, b, "--json")
    assert code == 0
    found = json.loads(out)["findings"]
    assert [one["code"] for one in found].count("alternate-no-return") == 2
    assert json.loads(out)["counts"]["warnings"] == 2


def test_a_text_sitemap_given_with_it_lists_pages(tmp_path: Path) -> None:
    de, fr = f"{SITE}de/", f"{SITE}fr/"
    sitemap = write(tmp_path / "sitemap.xml", urlset(page(de, link("de", de), link("fr", fr))))
    text = write(tmp_path / "urls.txt", f"{SITE}en/\n{fr}\n")
    [finding] = feedmap.validate([sitemap, text]).findings
    assert finding.code == "alternate-no-return"
    assert finding.message.endswith(f"{fr} ({text} line 2) names no alternates")


def test_urls_compare_as_repeated_urls_do(tmp_path: Path) -> None:
    """An IRI and its escaped form are one page (the key dedupe uses)."""
    iri, uri = f"{SITE}café/", f"{SITE}caf%C3%A9/"
    en = f"{SITE}en/"
    sitemap = write(
        tmp_path / "sitemap.xml",
        urlset(page(en, link("en", en), link("fr", iri)), page(uri, link("fr", uri), link("en", en))),
    )
    assert hreflang_findings(feedmap.validate(sitemap)) == []


# -- workers --


def _site_with_workers(folder: Path) -> list[str]:
    """An index of four children, clusters spanning them, some pages not naming others back."""
    folder.mkdir(parents=True)
    pages = [one for number in range(40) for one in cluster(number, default=None if number % 3 else "en")]
    broken = [
        page(f"{SITE}de/lonely-{n}", link("de", f"{SITE}de/lonely-{n}"), link("en", f"{SITE}en/page-{n}"))
        for n in range(5)
    ]
    pages[7:7] = broken
    names = []
    for child in range(4):
        name = f"c{child}.xml"
        write(folder / name, urlset(*pages[child::4]))  # each cluster spread over children
        names.append(f"{SITE}{name}")
    (folder / "index.xml").write_bytes(index_xml(*names))
    return [str(folder / "index.xml"), "--map", f"{SITE}={folder}"]


def test_findings_are_the_same_with_jobs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["validate", *_site_with_workers(tmp_path / "site")]
    one = run_in(capsys, tmp_path / "one", [*argv, "--jobs", "1"])
    two = run_in(capsys, tmp_path / "two", [*argv, "--jobs", "2"])
    assert two == one
    assert one[1].count("alternate-no-return") == 5


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    with local_cluster() as cluster:
        yield cluster.scheduler_address


def test_findings_are_the_same_on_a_dask_cluster(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scheduler: str
) -> None:
    argv = ["validate", *_site_with_workers(tmp_path / "site"), "--json"]
    one = run_in(capsys, tmp_path / "one", [*argv, "--jobs", "1"])
    cluster = run_in(capsys, tmp_path / "dask", [*argv, "--dask", scheduler])
    assert cluster == one
    assert [found["code"] for found in json.loads(one[1])["findings"]].count("alternate-no-return") == 5


# -- reading stays lenient --


def test_convert_and_read_report_none_of_these(tmp_path: Path) -> None:
    sitemap = write(tmp_path / "sitemap.xml", _problem_sitemap())
    seen: list[Diagnostic] = []
    entries = list(feedmap.read(sitemap, on_diagnostic=seen.append).entries)
    assert [one.code for one in seen if one.code in HREFLANG_CODES - {"alternate-incomplete"}] == []
    assert sum(len(entry.alternates) for entry in entries) == 15  # every alternate kept, bad ones too


# -- memory: the store on disk --


class _Watched(return_links.ReturnLinks):
    """The run's store, its in-memory holdings noted after each page (the most it held)."""

    most: ClassVar[dict[str, int]] = {}
    folders: ClassVar[list[Path]] = []

    def page(self, *args: Any, **kwargs: Any) -> None:
        super().page(*args, **kwargs)
        held = {
            "named": len(self._named),
            "links": len(self._links),
            "rows": len(self._plain),
            "chars": self._plain_size,
        }
        for name, value in held.items():
            _Watched.most[name] = max(_Watched.most.get(name, 0), value)
        if self.folder is not None and self.folder not in _Watched.folders:
            _Watched.folders.append(self.folder)


def _big_site(folder: Path, clusters: int, plain: int, broken: int) -> list[str]:
    """An index of three children: ``plain`` pages without alternates, then clusters of three languages spread over
    two children; ``broken`` pages of the last child name a page without alternates of the first."""
    folder.mkdir(parents=True)
    write(folder / "c0.xml", urlset(*(page(f"{SITE}plain/{n}") for n in range(plain))))
    pages = [one for number in range(clusters) for one in cluster(number)]
    write(folder / "c1.xml", urlset(*pages[0::2]))
    lonely = [
        page(f"{SITE}lonely/{n}", link("en", f"{SITE}lonely/{n}"), link("de", f"{SITE}plain/{n}"))
        for n in range(broken)
    ]
    write(folder / "c2.xml", urlset(*pages[1::2], *lonely))
    (folder / "index.xml").write_bytes(index_xml(*(f"{SITE}c{n}.xml" for n in range(3))))
    return [str(folder / "index.xml"), "--map", f"{SITE}={folder}"]


@pytest.fixture
def small_caps(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Memory caps a small site goes past; the scratch space in the test's folder; the store watched."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setattr(return_links, "BATCH", 100)
    monkeypatch.setattr(return_links, "PLAIN_IN_MEMORY", 2000)
    monkeypatch.setattr(return_links, "_CHUNK", 10)
    monkeypatch.setattr(report_module, "ReturnLinks", _Watched)
    monkeypatch.setattr(_Watched, "most", {})
    monkeypatch.setattr(_Watched, "folders", [])
    return scratch


def test_pages_go_to_disk_past_the_caps_and_the_findings_are_the_same(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, small_caps: Path
) -> None:
    _big_site(tmp_path / "site", clusters=1500, plain=1000, broken=4)
    seen_on_disk: list[tuple[int, int]] = []
    capped: list[Diagnostic] = []

    def found(finding: Diagnostic) -> None:
        capped.append(finding)
        if finding.code == "alternate-no-return" and not seen_on_disk:  # said while the store is there
            [folder] = _Watched.folders
            with sqlite3.connect(f"file:{folder / 'links.sqlite3'}?mode=ro", uri=True) as db:
                counted = [db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in ("pages", "links")]
            seen_on_disk.append((counted[0], counted[1]))

    options = Options(maps=((SITE, tmp_path / "site"),))
    feedmap.validate(tmp_path / "site" / "index.xml", options=options, on_diagnostic=found)
    # every page; each alternate naming another page: en names de and fr, de and fr name the two others and x-default
    assert seen_on_disk == [(1000 + 1500 * 3 + 4, 1500 * (2 + 3 + 3) + 4)]
    assert _Watched.most["named"] <= 100 and _Watched.most["links"] < 100 + 4  # a batch, and one page's alternates
    assert _Watched.most["rows"] <= 10 and _Watched.most["chars"] < 2000 + 10 * 40
    assert list(small_caps.iterdir()) == []  # the database and the scratch file removed
    assert [one.code for one in capped] == ["alternate-no-return"] * 4
    first = tmp_path / "site" / "c0.xml"  # read back from the scratch file: past the cap of plain pages
    plain_3 = url_line(first.read_text(encoding="utf-8"), f"{SITE}plain/3")
    assert capped[3].message.endswith(f"({first} line {plain_3}) names no alternates")
    monkeypatch.undo()  # the caps of a run: never reached by this site, nothing on disk; the same findings
    assert feedmap.validate(tmp_path / "site" / "index.xml", options=options).findings == capped


def test_missing_return_links_past_the_first_listed_are_counted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(return_links, "LISTED", 3)
    argv = _big_site(tmp_path / "site", clusters=5, plain=10, broken=7)
    report = feedmap.validate(argv[0], options=Options(maps=((SITE, tmp_path / "site"),)))
    found = [one for one in report.findings if one.code == "alternate-no-return"]
    assert [one.line > 0 for one in found] == [True, True, True, False]
    assert found[-1].message.startswith("and 4 more pages") and found[-1].source == ""
    assert [one.message.split()[0] for one in found[:3]] == [f"{SITE}lonely/{n}" for n in range(3)]


# -- the corpus --


@pytest.mark.parametrize(
    ("name", "self_missing"),
    [
        ("sitemapjs/alltags.xml", "let-s-watch-2018-house-party-part-2"),
        ("sitemapjs/alltags.cdata.xml", "let-s-watch-2018-house-party-part-2"),
        ("sitemapjs/bad-tag-sitemap.xml", "let-s-watch-2018-house-party-part-2"),
        ("crawler-commons/extension/sitemap-links.xml", None),
    ],
)
def test_corpus_files_with_alternates(corpus_dir: Path, name: str, self_missing: str | None) -> None:
    """sitemap.js's files name two alternates on another site (test.com) but not the page itself (and an app link
    and an amphtml link, which are no hreflang alternates); crawler-commons' is a whole cluster."""
    path = corpus_dir / name
    text = path.read_text(encoding="utf-8")
    expected = []
    if self_missing is not None:
        expected = [("alternate-self-missing", str(path), line_of(text, f"{self_missing}</loc>") - 1)]
        expected.append(("alternate-not-checked", "", 0))
    assert hreflang_findings(feedmap.validate(path, options=Options(follow=False))) == expected
    alternates = [alternate for entry in feedmap.read(path).entries for alternate in entry.alternates]
    assert len(alternates) == text.count('rel="alternate" hreflang=')  # every alternate read


def test_the_code_tables_are_iso_codes_where_debian_has_them() -> None:
    """The generated tables (tools/make_subtags.py) against Debian's iso-codes, where it is installed."""
    folder = Path("/usr/share/iso-codes/json")
    if not (folder / "iso_639-2.json").is_file():
        pytest.skip("Debian's iso-codes is not installed (apt-get install iso-codes)")
    languages = json.loads((folder / "iso_639-2.json").read_text(encoding="utf-8"))["639-2"]
    countries = json.loads((folder / "iso_3166-1.json").read_text(encoding="utf-8"))["3166-1"]
    assert {one["alpha_2"] for one in languages if "alpha_2" in one} == subtags.ISO_639_1
    assert {one["alpha_2"] for one in countries} == subtags.ISO_3166_1
    for one in languages:
        if "alpha_2" in one:
            assert subtags.ISO_639_2_TO_1[one["alpha_3"]] == one["alpha_2"]
