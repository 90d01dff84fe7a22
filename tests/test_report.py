"""``feedmap report`` and ``feedmap.report``: the page's numbers, hostile text, nothing fetched, the same bytes,
bounded memory, exit codes, and the page opened in a real headless Chromium (tests/browser.py).

The expected numbers are counted here from the data each test generates, not from feedmap.
"""

from __future__ import annotations

import datetime as dt
import os
import pty
import re
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from browser import REQUIRE_BROWSER, chromium_path, open_page
from conftest import SITEMAP_NS, index_xml, run
from jobsite import SITE, jobs_site

import feedmap

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"
NOW = "2024-07-01"
FREQS = ("daily", "weekly", "monthly", None)


class _Page(HTMLParser):
    """The tables of a page (by caption: rows of cell texts), its text, and every tag with its attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[str]]] = {}
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self._caption: str | None = None
        self._rows: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self._in_caption = False
        self._in_head_row = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self._rows, self._caption = [], ""
        elif tag == "caption":
            self._in_caption = True
        elif tag == "tr" and self._rows is not None:
            self._rows.append([])
        elif tag in ("td", "th") and self._rows is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th") and self._rows is not None and self._cell is not None:
            self._rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "table" and self._rows is not None:
            self.tables[self._caption or ""] = self._rows[1:]  # the header row left out
            self._rows = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_caption:
            self._caption = (self._caption or "") + data
        elif self._cell is not None:
            self._cell.append(data)


def parsed(page: Path) -> _Page:
    reader = _Page()
    reader.feed(page.read_text(encoding="utf-8"))
    return reader


def counts(table: list[list[str]]) -> dict[str, int]:
    """A table of names and counts (name, URLs, share, bar) as name -> count."""
    return {row[0]: int(row[1].replace(",", "")) for row in table}


def _url(i: int) -> dict[str, object]:
    """The values of URL number ``i`` of the generated sitemap (every fifth one repeats an earlier URL)."""
    host = ("https://www.example.com", "https://shop.example.com")[i % 2]
    section = ("blog", "docs", "news")[i % 3]
    number = i - 7 if i % 5 == 4 and i >= 7 else i  # every fifth URL repeats the one seven before it
    loc = f"{host}/{section}/page-{number}.html" if number == i else str(_url(number)["loc"])
    lastmod = None if i % 6 == 0 else f"2024-{1 + i % 6:02d}-{1 + i % 28:02d}"
    return {
        "loc": loc,
        "lastmod": lastmod,
        "changefreq": FREQS[i % 4],
        "priority": None if i % 3 == 0 else round((i % 11) / 10, 1),
        "images": i % 4,
        "alternates": ("de", "fr") if i % 8 == 0 else (),
    }


def _sitemap_xml(rows: list[dict[str, object]]) -> str:
    parts = [
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}" '
        f'xmlns:xhtml="{XHTML_NS}">'
    ]
    for row in rows:
        fields = [f"<loc>{row['loc']}</loc>"]
        if row["lastmod"]:
            fields.append(f"<lastmod>{row['lastmod']}</lastmod>")
        if row["changefreq"]:
            fields.append(f"<changefreq>{row['changefreq']}</changefreq>")
        if row["priority"] is not None:
            fields.append(f"<priority>{row['priority']}</priority>")
        images = int(str(row["images"]))
        fields += [f"<image:image><image:loc>{row['loc']}.img{k}.png</image:loc></image:image>" for k in range(images)]
        alternates = row["alternates"]
        assert isinstance(alternates, tuple)
        fields += [
            f'<xhtml:link rel="alternate" hreflang="{lang}" href="{row["loc"]}?hl={lang}"/>' for lang in alternates
        ]
        parts.append(f"<url>{''.join(fields)}</url>")
    parts.append("</urlset>\n")
    return "\n".join(parts)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, object]], Path]:
    """A sitemap of 120 URLs with known values, its rows, and its report (with charts) written at NOW."""
    folder = tmp_path_factory.mktemp("generated")
    rows = [_url(i) for i in range(120)]
    source = folder / "sitemap.xml"
    source.write_text(_sitemap_xml(rows), encoding="utf-8")
    page = folder / "report.html"
    feedmap.report(source, page, now=NOW)
    return source, rows, page


def test_the_sections_hold_the_numbers_of_the_input(generated: tuple[Path, list[dict[str, object]], Path]) -> None:
    source, rows, page = generated
    tables = parsed(page).tables
    hosts = Counter(urlsplit(str(row["loc"])).hostname for row in rows)
    sections = Counter("/" + urlsplit(str(row["loc"])).path.split("/")[1] + "/" for row in rows)
    assert counts(tables["URLs per host"]) == dict(hosts)
    assert counts(tables["URLs per top path section"]) == dict(sections)
    freqs = Counter(str(row["changefreq"] or "none") for row in rows)
    assert {name: n for name, n in counts(tables["URLs by changefreq"]).items() if n} == dict(freqs)
    priorities = Counter("none" if row["priority"] is None else f"{row['priority']:.1f}" for row in rows)
    assert {name: n for name, n in counts(tables["URLs by priority"]).items() if n} == dict(priorities)
    years = Counter(str(row["lastmod"])[:4] for row in rows if row["lastmod"])
    assert counts(tables["URLs by year of lastmod"]) == dict(years)
    now = dt.date.fromisoformat(NOW)
    dated = [dt.date.fromisoformat(str(row["lastmod"])) for row in rows if row["lastmod"]]
    ages = counts(tables["URLs changed in"])
    for days in (7, 30, 365):
        assert ages[f"the last {days} days"] == sum(1 for day in dated if (now - day).days <= days)
    assert ages["no lastmod"] == len(rows) - len(dated)
    images = Counter(int(str(row["images"])) for row in rows)
    by_bucket = Counter(str(k) if k <= 2 else "3-5" for k in images.elements())  # the images are 0 to 3 a URL
    assert {name: n for name, n in counts(tables["URLs by images per URL"]).items() if n} == dict(by_bucket)
    alternates = Counter(lang for row in rows for lang in row["alternates"])  # type: ignore[attr-defined]
    assert counts(tables["Alternates by hreflang"]) == dict(alternates)
    (file_row,) = tables["Files read"]
    assert file_row[0] == str(source)
    assert file_row[1:5] == ["urlset", f"{len(rows):,}", f"{sum(images[k] * k for k in images):,}", _kib(source)]
    assert file_row[5:7] == [min(map(str, dated)), max(map(str, dated))]


def _kib(path: Path) -> str:
    return f"{path.stat().st_size / 1024:,.1f} KiB"


def test_duplicates_are_counted_with_their_places(generated: tuple[Path, list[dict[str, object]], Path]) -> None:
    source, rows, page = generated
    locs = [str(row["loc"]) for row in rows]
    repeated = len(locs) - len(set(locs))
    assert repeated > 5
    reader = parsed(page)
    text = " ".join(reader.text)
    assert f"{repeated:,} of the {len(rows):,} URLs repeat a URL listed before them" in text
    examples = reader.tables["The first 5 repeats"]
    assert len(examples) == 5
    first_repeat = next(i for i, loc in enumerate(locs) if loc in locs[:i])
    loc = locs[first_repeat]
    lines = source.read_text(encoding="utf-8").splitlines()
    at = [n for n, line in enumerate(lines, 1) if f"<loc>{loc}</loc>" in line]
    assert examples[0] == [loc, f"{source}:{at[0]}", f"{source}:{at[1]}"]


def test_the_summary_says_what_the_page_says(tmp_path: Path) -> None:
    rows = [_url(i) for i in range(30)]
    source = tmp_path / "s.xml"
    source.write_text(_sitemap_xml(rows).replace("<priority>1.0</priority>", "<priority>2</priority>"), "utf-8")
    summary = feedmap.report(source, tmp_path / "r.html", now=NOW)
    locs = [str(row["loc"]) for row in rows]
    assert (summary.urls, summary.distinct, summary.files) == (30, len(set(locs)), 1)
    assert summary.bytes == source.stat().st_size
    assert summary.codes.get("loc-duplicate") == len(locs) - len(set(locs))
    assert summary.now == dt.datetime(2024, 7, 1, tzinfo=dt.timezone.utc)
    table = parsed(tmp_path / "r.html").tables["Validation findings"]
    assert {row[0]: int(row[2]) for row in table} == summary.codes
    assert summary.ok is (summary.errors == 0)


def test_an_index_with_broken_children(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = jobs_site(tmp_path / "site", count=60)
    page = tmp_path / "report.html"
    code, _out, err = run(capsys, "report", tmp_path / "site" / "index.xml", "--map", f"{SITE}={tmp_path / 'site'}",
                          "-o", page, "--now", NOW)  # fmt: skip
    assert code == 1, err  # validation found errors (a child cut off, a page that is no sitemap)
    assert err.startswith(f"{page}: ")
    reader = parsed(page)
    rows = {row[0]: row for row in reader.tables["Files read"]}
    for name, times in (("c0.xml", 1), ("c1.xml", 2)):  # c1 is named by the index and by inner.xml: read twice
        row = rows[str(tmp_path / "site" / name)]
        assert int(row[2]) == times * files[name].count(b"<url>")
        assert row[4] == f"{len(files[name]) / 1024:,.1f} KiB"
    gz = rows[str(tmp_path / "site" / "c5.xml.gz")]
    assert int(gz[2]) == 60  # its URLs, and its size decompressed
    findings = {row[0]: row for row in reader.tables["Validation findings"]}
    index_lines = files["index.xml"].decode().splitlines()
    missing_line = next(n for n, line in enumerate(index_lines, 1) if "missing.xml" in line)
    assert f"index.xml:{missing_line}:" in findings["child-unreadable"][3]
    assert "xml-not-well-formed" in findings
    assert int(rows[str(tmp_path / "site" / "c3.xml")][7]) >= 1  # its error, on its row


def test_the_same_input_gives_the_same_bytes(tmp_path: Path) -> None:
    source = tmp_path / "s.xml"
    source.write_text(_sitemap_xml([_url(i) for i in range(40)]), encoding="utf-8")
    feedmap.report(source, tmp_path / "a.html", now=NOW)
    feedmap.report(source, tmp_path / "b.html", now=NOW)
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()
    feedmap.report(source, tmp_path / "c.html", now="2024-07-02")
    assert (tmp_path / "a.html").read_bytes() != (tmp_path / "c.html").read_bytes()  # the instant is said


def test_the_children_read_by_workers_give_the_same_page(tmp_path: Path) -> None:
    jobs_site(tmp_path / "site", count=30)
    options = feedmap.Options(maps=((SITE, tmp_path / "site"),))
    feedmap.report(tmp_path / "site" / "index.xml", tmp_path / "one.html", options, now=NOW)
    workers = feedmap.Options(maps=((SITE, tmp_path / "site"),), jobs=2)
    feedmap.report(tmp_path / "site" / "index.xml", tmp_path / "two.html", workers, now=NOW)
    assert (tmp_path / "one.html").read_bytes() == (tmp_path / "two.html").read_bytes()


HOSTILE = '<script>alert("x")</script>'


def _hostile_input(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / 'in<b>"put\u202e.xml'
    loc = 'https://example.com/a?q=&lt;script&gt;alert("x")&lt;/script&gt;&amp;b=&quot;'
    rows = "".join(f"<url><loc>{loc}</loc><lastmod>not a date {HOSTILE}</lastmod></url>" for _ in range(2))
    host = f"<url><loc>https://{HOSTILE.replace('<', '&lt;')}.example/</loc></url>"
    source.write_text(f'<urlset xmlns="{SITEMAP_NS}">{rows}{host}</urlset>', encoding="utf-8")
    return source


def test_text_from_the_input_is_escaped(tmp_path: Path) -> None:
    source = _hostile_input(tmp_path / "in")
    page = tmp_path / "report.html"
    feedmap.report(source, page, now=NOW, title=f"title {HOSTILE}")
    written = page.read_text(encoding="utf-8")
    assert "<script" not in written.lower()
    assert "\u202e" not in written  # shown as an escape, not reordering the line
    reader = parsed(page)
    assert [tag for tag, _attrs in reader.tags if tag in ("script", "b", "iframe", "img", "object")] == []
    text = "".join(reader.text)
    assert HOSTILE in text  # shown as text, whole
    assert 'in<b>"put\\u202e.xml' in text
    assert 'https://example.com/a?q=<script>alert("x")</script>&b="' in text  # the repeated URL, as read


def test_nothing_names_a_resource_to_fetch(generated: tuple[Path, list[dict[str, object]], Path]) -> None:
    _source, _rows, page = generated
    written = page.read_text(encoding="utf-8")
    reader = parsed(page)
    assert reader.tags
    for tag, attrs in reader.tags:
        for name in ("src", "srcset", "data", "poster", "action", "formaction", "background"):
            assert name not in attrs, (tag, attrs)
        assert attrs.get("href") is None or str(attrs["href"]).startswith("#"), (tag, attrs)
        assert attrs.get("xlink:href") is None or str(attrs["xlink:href"]).startswith("#"), (tag, attrs)
    assert {tag for tag, _attrs in reader.tags}.isdisjoint({"script", "link", "iframe", "img", "object", "embed"})
    assert "@import" not in written and re.search(r"url\(\s*['\"]?(?!#)", written) is None
    assert re.search(r"https?://", written.split("<main>")[0]) is None  # the head and its style sheet name none
    assert "<svg" in written  # the charts are inline (matplotlib is a test dependency)


def test_many_hosts_are_kept_in_bounded_counters(tmp_path: Path) -> None:
    from feedmap._report.tally import KEPT

    total = KEPT + 600
    source = tmp_path / "urls.txt"
    source.write_text("".join(f"https://h{i}.example/s{i}/p\n" for i in range(total)), encoding="utf-8")
    page = tmp_path / "report.html"
    summary = feedmap.report(source, page, now=NOW, validate=False)
    assert summary.urls == total
    hosts = parsed(page).tables["URLs per host"]
    assert len(hosts) == 21  # the 20 largest, then the rest
    assert hosts[-1][0] == "(others)" and int(hosts[-1][1].replace(",", "")) == total - 20
    from feedmap._report.tally import Tally

    tally = Tally(now=dt.datetime(2024, 7, 1, tzinfo=dt.timezone.utc))
    try:
        for i in range(total):
            tally.add(feedmap.Entry(loc=f"https://h{i}.example/s{i}/p"), "x")
        assert len(tally.hosts.counts) == KEPT and tally.hosts.others == total - KEPT
        assert len(tally.sections.counts) == KEPT and tally.sections.others == total - KEPT
    finally:
        tally.close()


def test_dates_at_the_ends_of_the_calendar_are_counted(tmp_path: Path) -> None:
    """A zone can move a lastmod out of the years 1 to 9999 in UTC: counted in the first or last month."""
    from feedmap._report.tally import Tally

    tally = Tally(now=dt.datetime(2024, 7, 1, tzinfo=dt.timezone.utc))
    try:
        for lastmod in ("9999-12-31T23:00:00-05:00", "0001-01-01T01:00:00+05:00", "2024-06-30"):
            tally.add(feedmap.Entry(loc="https://example.com/", lastmod=lastmod), "x")
    finally:
        tally.close()
    assert tally.months == {"9999-12": 1, "0001-01": 1, "2024-06": 1}
    assert (tally.ages["future"], tally.ages["7"], tally.repeated) == (1, 1, 2)


def test_standard_input_is_read_for_both_passes(tmp_path: Path) -> None:
    source = tmp_path / "s.xml"
    source.write_text(_sitemap_xml([_url(i) for i in range(12)]), encoding="utf-8")
    with source.open("rb") as stream:
        result = subprocess.run(
            [sys.executable, "-m", "feedmap", "report", "-", "-o", "-", "--now", NOW],
            stdin=stream,
            capture_output=True,
            check=False,
        )
    assert result.returncode == 0, result.stderr
    page = tmp_path / "p.html"
    page.write_bytes(result.stdout)
    rows = parsed(page).tables["Files read"]
    assert [row[:3] for row in rows] == [["<stdin>", "urlset", "12"]]
    assert result.stderr.decode().startswith("<stdout>: 12 URLs; 1 file validated: 0 errors")


def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.xml"
    good.write_text(f'<urlset xmlns="{SITEMAP_NS}"><url><loc>https://example.com/</loc></url></urlset>', "utf-8")
    warned = tmp_path / "warned.xml"
    warned.write_text(f'<urlset xmlns="{SITEMAP_NS}">' + "<url><loc>https://example.com/</loc></url>" * 2 + "</urlset>")
    page = tmp_path / "r.html"
    assert run(capsys, "report", good, "-o", page)[0] == 0
    assert run(capsys, "report", warned, "-o", page)[0] == 0
    assert run(capsys, "report", warned, "-o", page, "--strict")[0] == 1
    page.unlink()
    assert run(capsys, "report", tmp_path / "missing.xml", "-o", page)[0] == 2
    assert not page.exists()
    code, _out, err = run(capsys, "report", good)
    assert code == 2 and "-o" in err
    html_page = tmp_path / "page.html"
    html_page.write_text("<!DOCTYPE html><html><body>hi</body></html>", "utf-8")
    code, _out, err = run(capsys, "report", html_page, "-o", page)
    assert code == 1 and page.is_file()  # written, saying the input is no sitemap
    assert "html-page" in page.read_text("utf-8") or "unknown-format" in page.read_text("utf-8")


def test_a_terminal_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "s.xml"
    source.write_bytes(index_xml("https://example.com/a.xml"))
    controller, terminal = pty.openpty()
    try:
        with os.fdopen(terminal, "wb", closefd=False) as out, pytest.raises(feedmap.WriteError, match="terminal"):
            feedmap.report(source, out, now=NOW)
    finally:
        os.close(controller)
        os.close(terminal)


def test_options_the_report_cannot_use_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="channel_title"):
        feedmap.report(tmp_path / "x.xml", tmp_path / "r.html", feedmap.Options(channel_title="t"))
    with pytest.raises(ValueError, match="now"):
        feedmap.report(tmp_path / "x.xml", tmp_path / "r.html", now="yesterday")


def test_without_matplotlib_the_page_has_its_tables(tmp_path: Path) -> None:
    """In a process where matplotlib cannot be imported (as without the report extra)."""
    source = tmp_path / "s.xml"
    source.write_text(_sitemap_xml([_url(i) for i in range(20)]), encoding="utf-8")
    script = (
        "import sys\n"
        "class Blocked:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'matplotlib':\n"
        "            raise ImportError('blocked', name=name)\n"
        "sys.meta_path.insert(0, Blocked())\n"
        "import feedmap\n"
        f"summary = feedmap.report({str(source)!r}, {str(tmp_path / 'r.html')!r}, now={NOW!r})\n"
        "print(summary.charts)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
    written = (tmp_path / "r.html").read_text("utf-8")
    assert "<svg" not in written and "pip install &#x27;feedmap[report]&#x27;" in written
    assert "URLs per host" in written


# ------------------------------------------------------------------------------------------- in a real browser


def _ink(png: bytes) -> tuple[int, int]:
    """The screenshot's size in pixels and the number of its distinct colours (Pillow)."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20) or []
        return image.width * image.height, len(colours)


def test_a_missing_browser_skips_unless_required(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a folder without chromium
    monkeypatch.delenv(REQUIRE_BROWSER, raising=False)
    with pytest.raises(pytest.skip.Exception, match="no chromium"):
        chromium_path()
    monkeypatch.setenv(REQUIRE_BROWSER, "1")
    with pytest.raises(pytest.fail.Exception, match=REQUIRE_BROWSER):
        chromium_path()


@pytest.mark.timeout(180)
def test_the_page_renders_in_chromium(generated: tuple[Path, list[dict[str, object]], Path]) -> None:
    _source, _rows, page = generated
    wide = open_page(page, width=1200, height=900, evaluate="document.querySelectorAll('svg.chart').length")
    assert wide.errors == [] and wide.console == []
    assert wide.requests == [page.resolve().as_uri()]  # the page itself, nothing else
    assert wide.value == 4  # the charts drawn: months, changefreq, priority, images
    pixels, colours = _ink(wide.screenshot)
    assert pixels >= 1200 * 900 and colours > 20  # not blank: text, bars and charts
    narrow = open_page(page, width=390, height=844, evaluate="document.documentElement.scrollWidth")
    assert narrow.errors == [] and narrow.value <= 390  # readable on a phone: nothing wider than the screen


@pytest.mark.timeout(120)
def test_the_browser_test_sees_errors_and_fetches(tmp_path: Path) -> None:
    """The harness is not blind: a page that logs an error and asks for an image is caught doing both (the image
    is blocked by the report's own Content Security Policy, which logs its refusal)."""
    source = tmp_path / "s.xml"
    source.write_text(_sitemap_xml([_url(i) for i in range(5)]), encoding="utf-8")
    good = tmp_path / "good.html"
    feedmap.report(source, good, now=NOW)
    bad = tmp_path / "bad.html"
    html = good.read_text("utf-8").replace(
        "<main>", '<main><img src="http://127.0.0.1:9/x.png" alt=""><svg><script>console.error("boom")</script></svg>'
    )
    bad.write_text(html, "utf-8")
    opened = open_page(bad, width=800, height=600)
    assert any("Content Security Policy" in error or "Refused" in error for error in opened.errors), opened.console
