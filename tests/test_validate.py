"""feedmap validate: each rule with an input that breaks it and one that keeps it; the command's output and exits."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import re
from pathlib import Path

import pytest
from conftest import codes, run

import feedmap
from feedmap._validate import sitemap as _validate_sitemap
from feedmap._validate import text as _validate_text
from feedmap.cli import main

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"


def rule_table() -> dict[str, dict[str, str | None]]:
    """code -> its rule (level, repaired, summary, spec), as ``feedmap codes --json`` prints the one table."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["codes", "--json"]) == 0
    return {entry["code"]: entry for entry in json.loads(out.getvalue())}


RULES = rule_table()


def urlset(*urls: str, ns: str = NS) -> bytes:
    xmlns = f' xmlns="{ns}"' if ns else ""
    body = "\n".join(urls)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset{xmlns} xmlns:image="{IMAGE}">\n{body}\n</urlset>\n'.encode()
    )


def url(loc: str = "https://example.com/a", extra: str = "") -> str:
    return f"<url><loc>{loc}</loc>{extra}</url>"


def index(*locs: str) -> bytes:
    children = "\n".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return f'<?xml version="1.0"?>\n<sitemapindex xmlns="{NS}">\n{children}\n</sitemapindex>\n'.encode()


def check(tmp_path: Path, data: bytes, name: str = "in.xml", **options: object) -> feedmap.Report:
    path = tmp_path / name
    path.write_bytes(data)
    return feedmap.validate(path, options=feedmap.Options(**options))  # type: ignore[arg-type]


GOOD = urlset(url("https://example.com/a"), url("https://example.com/b"))

# code -> (an input breaking the rule, an input keeping it); XML sitemaps unless named .txt
CASES: dict[str, tuple[bytes, bytes]] = {
    "xml-not-well-formed": (b'<urlset xmlns="' + NS.encode() + b'">\n<url><loc>x</loc></urlx>\n</urlset>', GOOD),
    "namespace-wrong": (urlset(url(), ns="http://example.com/ns"), GOOD),
    "namespace-variant": (urlset(url(), ns="http://www.google.com/schemas/sitemap/0.84"), GOOD),
    "unknown-element": (urlset(url(extra="<title>A</title>")), urlset(url(extra="<other xmlns='urn:x'/>"))),
    "element-repeated": (
        urlset(url(extra="<lastmod>2024-01-01</lastmod><lastmod>2024-01-02</lastmod>")),
        urlset(url(extra="<lastmod>2024-01-01</lastmod>")),
    ),
    "element-order": (
        urlset(url(extra="<priority>0.5</priority><lastmod>2024-01-01</lastmod>")),
        urlset(url(extra="<lastmod>2024-01-01</lastmod><priority>0.5</priority>")),
    ),
    "loc-too-short": (urlset(url("http://a.io")), urlset(url("http://ab.io/"))),
    "loc-missing": (urlset("<url><lastmod>2024-01-01</lastmod></url>"), GOOD),
    "loc-not-absolute": (urlset(url("/relative/page.html")), GOOD),
    "loc-not-escaped": (
        urlset(url("https://example.com/caf\u00e9 menu")),
        urlset(url("https://example.com/caf%C3%A9%20menu")),
    ),
    "loc-too-long": (
        urlset(url("https://example.com/" + "a" * 2048)),
        urlset(url("https://example.com/" + "a" * 2000)),
    ),
    "loc-duplicate": (urlset(url(), url()), GOOD),
    "changefreq-invalid": (
        urlset(url(extra="<changefreq>Daily</changefreq>")),
        urlset(url(extra="<changefreq>daily</changefreq>")),
    ),
    "priority-invalid": (urlset(url(extra="<priority>1.5</priority>")), urlset(url(extra="<priority>1.0</priority>"))),
    "lastmod-invalid": (
        urlset(url(extra="<lastmod>2024-13-01</lastmod>")),
        urlset(url(extra="<lastmod>2024-12-01</lastmod>")),
    ),
    "lastmod-not-xsd": (
        urlset(url(extra="<lastmod>2024-06</lastmod>")),
        urlset(url(extra="<lastmod>2024-06-01</lastmod>")),
    ),
    "lastmod-no-zone": (
        urlset(url(extra="<lastmod>2024-06-01T10:00:00</lastmod>")),
        urlset(url(extra="<lastmod>2024-06-01T10:00:00+02:00</lastmod>")),
    ),
    "lastmod-future": (
        urlset(url(extra="<lastmod>2999-01-01</lastmod>")),
        urlset(url(extra="<lastmod>2001-01-01</lastmod>")),
    ),
    "too-many-images": (
        urlset(url(extra="<image:image><image:loc>https://example.com/i.png</image:loc></image:image>" * 1001)),
        urlset(url(extra="<image:image><image:loc>https://example.com/i.png</image:loc></image:image>" * 1000)),
    ),
    "image-loc-invalid": (
        urlset(url(extra="<image:image><image:loc>/i.png</image:loc></image:image>")),
        urlset(url(extra="<image:image><image:loc>https://example.com/i.png</image:loc></image:image>")),
    ),
    "urlset-empty": (urlset(), GOOD),
    "index-empty": (index(), index("https://example.com/s1.xml")),
    "urlset-lists-sitemaps": (
        urlset(url("https://example.com/s1.xml"), url("https://example.com/s2.xml.gz")),
        urlset(url("https://example.com/s1.xml"), url("https://example.com/page")),
    ),
    "index-lists-pages": (
        index("https://example.com/about.html", "https://example.com/"),
        index("https://example.com/about.html", "https://example.com/sitemap-2.xml"),
    ),
    "loc-out-of-scope.txt": (b"https://example.com/a\nftp://example.com/b\n", b"https://example.com/a\n"),
    "not-utf8.txt": (b"https://example.com/caf\xe9\n", b"https://example.com/caf%C3%A9\n"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_rule_fails_and_passes(tmp_path: Path, case: str) -> None:
    code, _, ext = case.partition(".")
    bad, good = CASES[case]
    name = f"in.{ext or 'xml'}"
    expected = "loc-not-absolute" if case == "loc-out-of-scope.txt" else code
    assert expected in codes(check(tmp_path, bad, name, follow=False))
    assert expected not in codes(check(tmp_path, good, name, follow=False))
    assert check(tmp_path, good, name, follow=False).ok or RULES[expected]["level"] == "warning"


def test_changefreq_is_an_exact_word(tmp_path: Path) -> None:
    (finding,) = check(tmp_path, urlset(url(extra="<changefreq> daily</changefreq>"))).findings
    assert finding.code == "changefreq-invalid" and "no blanks" in finding.message


def test_a_field_after_an_extension_element_is_out_of_order(tmp_path: Path) -> None:
    image = "<image:image><image:loc>https://example.com/i.png</image:loc></image:image>"
    assert codes(check(tmp_path, urlset(url(extra=image + "<lastmod>2024-01-01</lastmod>")))) == ["element-order"]
    assert codes(check(tmp_path, urlset(url(extra="<lastmod>2024-01-01</lastmod>" + image)))) == []


def test_well_formedness_has_line_and_column(tmp_path: Path) -> None:
    (finding,) = check(tmp_path, CASES["xml-not-well-formed"][0]).findings
    assert (finding.code, finding.level, finding.line) == ("xml-not-well-formed", feedmap.Level.ERROR, 2)
    assert finding.column > 0


def test_an_entity_is_never_expanded(tmp_path: Path) -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
        + urlset(url("https://example.com/&b;")).split(b"?>", 1)[1]
    )
    report = check(tmp_path, bomb)
    assert "aaaaaaaaaa" not in " ".join(f.message for f in report.findings)


def test_an_external_entity_is_never_loaded(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE")
    doctype = f'<!DOCTYPE urlset [<!ENTITY x SYSTEM "{secret.as_uri()}">]>'
    data = urlset(url("https://example.com/&x;")).replace(b"?>\n", b"?>\n" + doctype.encode() + b"\n", 1)
    report = check(tmp_path, data, follow=False)
    assert "TOP-SECRET-VALUE" not in " ".join(f.message for f in report.findings)


@pytest.mark.parametrize(
    ("value", "expected"), [("high", "priority-invalid"), ("1e-1", "priority-invalid"), (".5", None), ("0", None)]
)
def test_priority_is_an_xsd_decimal(tmp_path: Path, value: str, expected: str | None) -> None:
    found = codes(check(tmp_path, urlset(url(extra=f"<priority>{value}</priority>"))))
    assert found == ([expected] if expected else [])


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024", "lastmod-not-xsd"),
        ("2024-06-01T10:00Z", "lastmod-not-xsd"),
        ("2024-06-01+02:00", "lastmod-no-zone"),
        ("yesterday", "lastmod-invalid"),
        ("2024-06-01 10:00:00", "lastmod-invalid"),
        ("2024-06-01T10:00:00.5Z", None),
    ],
)
def test_lastmod_w3c_against_the_xsd(tmp_path: Path, value: str, expected: str | None) -> None:
    found = codes(check(tmp_path, urlset(url(extra=f"<lastmod>{value}</lastmod>"))))
    assert found == ([expected] if expected else [])


@pytest.mark.parametrize(
    "loc", ["https://example.com/a&lt;b", "https://example.com/&quot;q&quot;", "https://example.com/a%zz"]
)
def test_unescaped_characters_name_the_escaped_form(tmp_path: Path, loc: str) -> None:
    (finding,) = check(tmp_path, urlset(url(loc))).findings
    assert finding.code == "loc-not-escaped"
    assert re.search(r"write https://example\.com/\S*%", finding.message)


# A URL problem reading and validate both see, and the one code both give it (one check: reading keeps the loc
# and warns, validate fails the file).
ONE_CODE_PER_URL_PROBLEM = [
    ("https://example.com/a b", "loc-not-escaped"),
    ("https://example.com/a&lt;b&gt;", "loc-not-escaped"),
    ("https://example.com:99999/a", "loc-not-absolute"),  # a port out of range
    ("https://example.com:8o/a", "loc-not-absolute"),  # a port that is no number
    ("http://[::1/a", "loc-not-absolute"),  # an IPv6 literal never closed
    ("https://example.com/" + "a" * 2048, "loc-too-long"),
]


@pytest.mark.parametrize(("loc", "code"), ONE_CODE_PER_URL_PROBLEM)
def test_reading_and_validate_give_a_url_problem_the_same_code(tmp_path: Path, loc: str, code: str) -> None:
    data = urlset(url(loc))
    (finding,) = check(tmp_path, data).findings
    assert (finding.code, finding.level) == (code, feedmap.Level.ERROR)
    reporter = feedmap.Reporter()
    with feedmap.read(io.BytesIO(data), format="sitemap", reporter=reporter) as doc:
        assert len(list(doc)) == 1  # reading keeps it as written
    assert [(d.code, d.level) for d in reporter.diagnostics] == [(code, feedmap.Level.WARNING)]


@pytest.mark.parametrize("port", ["65536", "99999", "8o", "-1"])
def test_validate_refuses_a_port_that_does_not_parse(tmp_path: Path, port: str) -> None:
    """validate passed ``https://example.com:99999/a`` (its fast check took five digits) and ``:8o``, which
    reading already reported; both now fail as reading's check says."""
    (finding,) = check(tmp_path, urlset(url(f"https://example.com:{port}/a"))).findings
    assert finding.code == "loc-not-absolute"
    assert not check(tmp_path, urlset(url("https://example.com:65535/a"))).findings


def test_scope_with_a_base_url(tmp_path: Path) -> None:
    data = urlset(
        url("https://example.com/shop/a"), url("https://example.com/blog/b"), url("http://example.com/shop/c")
    )
    report = check(tmp_path, data, base_url="https://example.com/shop/sitemap.xml")
    (finding,) = report.findings  # once for the file, with a count, at convert's level (issue 17, point 9)
    assert (finding.code, finding.level, finding.line) == ("loc-out-of-scope", feedmap.Level.INFO, 0)
    assert "2 URLs" in finding.message and "line 4" in finding.message and report.ok
    assert codes(check(tmp_path, data)) == []  # no URL known: no scope


def test_index_children_off_site(tmp_path: Path) -> None:
    data = index("https://example.com/s1.xml", "https://other.example/s2.xml")
    report = check(tmp_path, data, base_url="https://example.com/sitemap_index.xml", follow=False)
    assert codes(report) == ["child-off-site"]


def test_limits_of_entries_and_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    three = urlset(*(url(f"https://example.com/{n}") for n in range(3)))
    for module in (_validate_sitemap, _validate_text):
        monkeypatch.setattr(module, "PROTOCOL_MAX_URLS", 3)
        monkeypatch.setattr(module, "PROTOCOL_MAX_BYTES", len(three))  # at the limit: allowed
    xml = urlset(*(url(f"https://example.com/{n}") for n in range(4)))
    assert codes(check(tmp_path, xml)) == ["too-many-entries", "too-many-bytes"]
    assert codes(check(tmp_path, three)) == []
    big_index = index(*(f"https://example.com/{n}.xml" for n in range(4)))
    assert "too-many-entries" in codes(check(tmp_path, big_index, follow=False))
    small_index = index(*(f"https://example.com/{n}.xml" for n in range(3)))
    assert "too-many-entries" not in codes(check(tmp_path, small_index, follow=False))
    text = "".join(f"https://example.com/{n}\n" for n in range(30)).encode()
    assert codes(check(tmp_path, text, "in.txt")) == ["too-many-entries", "too-many-bytes"]
    assert codes(check(tmp_path, text[:66], "in.txt")) == []


def test_the_bytes_counted_are_uncompressed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_validate_sitemap, "PROTOCOL_MAX_BYTES", 1000)
    data = urlset(*(url(f"https://example.com/{n}") for n in range(40)))
    assert len(gzip.compress(data)) < 1000 < len(data)
    assert codes(check(tmp_path, gzip.compress(data), "in.xml.gz")) == ["too-many-bytes"]


def test_text_sitemap_lines(tmp_path: Path) -> None:
    data = b"https://example.com/a\n\n/b\nhttps://example.com/a b\nhttps://example.com/a\n"
    report = check(tmp_path, data, "in.txt")
    assert [(f.code, f.line) for f in report.findings] == [
        ("loc-not-absolute", 3),
        ("loc-not-escaped", 4),
        ("loc-duplicate", 5),
    ]
    assert report.entries == 4


def test_fifty_thousand_urls_validate_without_error(tmp_path: Path) -> None:
    path = tmp_path / "big.xml.gz"
    with gzip.open(path, "wb", compresslevel=1) as out:
        out.write(f'<?xml version="1.0"?>\n<urlset xmlns="{NS}">\n'.encode())
        for n in range(50_000):
            out.write(f"<url><loc>https://example.com/p/{n}</loc><lastmod>2024-01-01</lastmod></url>\n".encode())
        out.write(b"</urlset>\n")
    report = feedmap.validate(path)
    assert (report.ok, report.errors, report.entries, report.files) == (True, 0, 50_000, 1)


def test_an_index_is_followed_each_child_named(web: object) -> None:
    site = web  # tests/localsite.py LocalSite
    good = site.add("/s1.xml", urlset(url(site.url("/a"))))  # type: ignore[attr-defined]
    bad = site.add("/s2.xml", urlset(url(site.url("/b"), "<priority>2</priority>")))  # type: ignore[attr-defined]
    nested = site.add("/nested.xml", index(good))  # type: ignore[attr-defined]
    missing = site.url("/missing.xml")  # type: ignore[attr-defined]
    top = site.add("/index.xml", index(good, bad, nested, missing))  # type: ignore[attr-defined]
    report = feedmap.validate(top)
    found = {(f.code, f.source, f.line) for f in report.findings}
    assert ("priority-invalid", bad, 3) in found
    assert ("nested-index", top, 5) in found
    assert ("child-unreadable", top, 6) in found
    assert report.files == 4 and report.entries == 4 + 2 + 1  # the index, s1 and s2 once, the nested index
    assert feedmap.validate(top, options=feedmap.Options(follow=False)).files == 1


def test_unknown_and_unchecked_formats(tmp_path: Path) -> None:
    assert codes(check(tmp_path, b'<svg xmlns="http://www.w3.org/2000/svg"/>')) == ["unknown-format"]
    report = check(tmp_path, b'{"loc": "https://example.com/a"}\n', "in.jsonl")
    assert codes(report) == ["no-rules"] and report.entries == 1 and report.ok


def test_every_rule_has_a_level_and_a_line_of_explanation() -> None:
    for code, entry in RULES.items():
        assert re.fullmatch(r"[a-z0-9-]+|http-NNN", code) and entry["level"] in ("error", "warning", "info")
        assert entry["summary"] and "\n" not in str(entry["summary"]) and entry["spec"]


def test_strict_makes_warnings_count(tmp_path: Path) -> None:
    data = urlset(url(), url())
    assert check(tmp_path, data).ok
    assert not check(tmp_path, data, strict=True).ok


# the command


def test_cli_lines_summary_and_exit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.xml").write_bytes(
        urlset(url(extra="<priority>high</priority>"), url("https://example.com/b", "<priority>1</priority>"))
    )
    (tmp_path / "dup.txt").write_bytes(b"https://example.com/a\nhttps://example.com/a\n")
    code, out, _ = run(capsys, "validate", str(tmp_path / "bad.xml"), str(tmp_path / "dup.txt"))
    lines = out.splitlines()
    assert code == 1
    assert (
        lines[0]
        == f"{tmp_path / 'bad.xml'}:3: error[priority-invalid]: priority 'high' is not a decimal number such as 0.8"
    )
    assert re.fullmatch(r".*dup\.txt:2: warning\[loc-duplicate\]: .*", lines[1])
    assert lines[-1] == "1 error, 1 warning in 2 files, 4 entries"


def test_cli_column_of_a_syntax_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "broken.xml").write_bytes(CASES["xml-not-well-formed"][0])
    code, out, _ = run(capsys, "validate", str(tmp_path / "broken.xml"))
    assert code == 1 and re.match(r".*broken\.xml:2:\d+: error\[xml-not-well-formed\]: ", out)


def test_cli_exit_zero_and_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ok.xml").write_bytes(GOOD)
    (tmp_path / "warn.xml").write_bytes(urlset())
    assert run(capsys, "validate", str(tmp_path / "ok.xml"))[:2] == (0, "0 errors, 0 warnings in 1 file, 2 entries\n")
    assert run(capsys, "validate", str(tmp_path / "warn.xml"))[0] == 0
    assert run(capsys, "validate", str(tmp_path / "warn.xml"), "--strict")[0] == 1


def test_cli_unreadable_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ok.xml").write_bytes(GOOD)
    code, out, _ = run(capsys, "validate", str(tmp_path / "missing.xml"), str(tmp_path / "ok.xml"))
    assert code == 2
    assert "error[unreadable]" in out and out.endswith("1 error, 0 warnings in 1 file, 2 entries\n")


def test_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.xml").write_bytes(urlset(url("/rel")))
    code, out, _ = run(capsys, "validate", str(tmp_path / "bad.xml"), "--json")
    document = json.loads(out)
    assert code == 1 and set(document) == {"findings", "counts", "ok"} and document["ok"] is False
    assert document["findings"] == [
        {
            "file": str(tmp_path / "bad.xml"),
            "line": 3,
            "column": 0,
            "level": "error",
            "code": "loc-not-absolute",
            "message": "'/rel' is not an absolute http(s) URL",
        }
    ]
    assert document["counts"] == {"errors": 1, "warnings": 0, "infos": 0, "files": 1, "entries": 1}


def test_cli_quiet_hides_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in.jsonl").write_bytes(b'{"loc": "https://example.com/a"}\n')
    assert "info[no-rules]" in run(capsys, "validate", str(tmp_path / "in.jsonl"))[1]
    assert (
        run(capsys, "validate", str(tmp_path / "in.jsonl"), "-q")[1]
        == "0 errors, 0 warnings, 1 note in 1 file, 1 entry\n"
    )


def test_cli_explain(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--explain", "loc-not-escaped")
    assert code == 0 and out.startswith("loc-not-escaped (error): ")
    code, _, err = run(capsys, "validate", "--explain", "no-such-code")
    assert code == 2 and "feedmap codes" in err
    code, out, _ = run(capsys, "validate", "--explain")
    assert code == 0 and len(out.splitlines()) >= len(RULES)
    assert run(capsys, "validate")[0] == 2


def test_cli_since_is_refused_not_ignored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """validate checks every child of an index: --since (taken by the shared reading options) did nothing."""
    path = tmp_path / "urls.txt"
    path.write_text("https://example.com/a\n")
    code, _, err = run(capsys, "validate", str(path), "--since", "2024-01-01")
    assert code == 2 and "--since" in err
    assert run(capsys, "validate", str(path))[0] == 0


def test_the_documented_example_is_the_real_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "recipes" / "validate.md").read_text(encoding="utf-8")
    section = page[page.index("\n## An example\n") :]
    document = section.split("```xml\n", 1)[1].split("```", 1)[0]
    session = section.split("```\n$ feedmap validate sitemap.xml\n", 1)[1].split("```", 1)[0]
    shown, status = session.split("$ echo $?\n")
    (tmp_path / "sitemap.xml").write_text(document, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "validate", "sitemap.xml")
    assert (out, code) == (shown, int(status))


def test_a_fetched_sitemap_is_its_own_scope(web: object) -> None:
    site = web  # tests/localsite.py LocalSite
    inside = site.url("/shop/a")  # type: ignore[attr-defined]
    outside = site.url("/blog/b")  # type: ignore[attr-defined]
    remote = site.add("/shop/sitemap.xml", urlset(url(inside), url(outside)))  # type: ignore[attr-defined]
    report = feedmap.validate(remote)
    assert [(f.code, f.line, f.source) for f in report.findings] == [("loc-out-of-scope", 0, remote)]
    assert f"1 URL not under {site.url('/shop/')}" in report.findings[0].message  # type: ignore[attr-defined]


def test_a_cut_gzip_is_said_and_the_break_located(tmp_path: Path) -> None:
    data = gzip.compress(urlset(*(url(f"https://example.com/{n}") for n in range(200))))
    report = check(tmp_path, data[: len(data) // 2], "cut.xml.gz")
    assert {"truncated-gzip", "xml-not-well-formed"} <= set(codes(report))
    assert all(code in RULES for code in codes(report))


def test_feeds_go_to_the_feed_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An RSS or ROR input is checked by the feed rules (feedmap.formats.feeds._channel_checks), its items
    counted, their codes
    explained by --explain."""
    rss = (
        b'<rss version="2.0"><channel><title>T</title><link>https://example.com/</link><description>D</description>'
        b"<item><link>https://example.com/a</link></item><item><title>B</title></item></channel></rss>"
    )
    report = check(tmp_path, rss, "feed.xml", base_url="https://example.com/feed.xml")
    assert "rss-item-title-or-description" in codes(report)
    assert (report.entries, report.ok) == (2, False)
    code, out, _err = run(capsys, "validate", "--explain", "rss-item-title-or-description")
    assert code == 0 and out.startswith("rss-item-title-or-description (error): ")


def test_findings_given_to_a_handler_are_counted_not_kept(tmp_path: Path) -> None:
    """A million bad URLs are a million findings: streamed to the handler, the report keeps only their counts."""
    data = urlset(*(url(f"https://example.com/bad {n}") for n in range(500)), url("/relative"))
    path = tmp_path / "bad.xml"
    path.write_bytes(data)
    seen: list[feedmap.Diagnostic] = []
    report = feedmap.validate(path, on_diagnostic=seen.append)
    assert report.findings == []
    assert (report.errors, report.entries, report.ok) == (501, 501, False)
    assert [finding.code for finding in seen].count("loc-not-escaped") == 500
    kept = feedmap.validate(path)  # no handler: the report holds them
    assert [finding.code for finding in kept.findings] == [finding.code for finding in seen]
    assert kept.errors == 501


def test_cli_json_with_many_findings_is_one_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("".join(f"https://example.com/a b{n}\n" for n in range(300)) + 'https://example.com/"q"\n')
    code, out, _err = run(capsys, "validate", "--json", str(path))
    assert code == 1
    found = json.loads(out)
    assert found["counts"]["errors"] == len(found["findings"]) == 301
    assert found["findings"][-1]["line"] == 301 and found["ok"] is False
    assert out.count("\n") == 1  # one line: one object


def test_a_huge_value_makes_a_message_of_bounded_size(tmp_path: Path) -> None:
    """A hostile value (a text node of megabytes) is named in the finding, not copied whole into it."""
    report = check(tmp_path, urlset(url(extra=f"<priority>{'9' * 2_000_000}</priority>")))
    (finding,) = [finding for finding in report.findings if finding.code == "priority-invalid"]
    assert len(finding.message) < 5100 and finding.message.endswith("(cut: 2,000,036 characters)")
    feed = b'<rss version="2.0"><channel><title>T</title><link>https://e.com/</link><description>D</description>'
    feed += b"<item><title>A</title><guid>" + b"x" * 1_000_000 + b"</guid></item></channel></rss>"
    report = check(tmp_path, feed, "feed.xml")
    assert report.errors and max(len(finding.message) for finding in report.findings) < 5100


def test_cli_lines_carry_no_terminal_control_characters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A text sitemap can hold ESC and bidi overrides; a finding quoting such a line must not drive the terminal."""
    line = "https://example.com/\x1b[2Jx\u202eevil\n"
    path = tmp_path / "hostile.txt"
    path.write_text(line + line, encoding="utf-8")
    code, out, _err = run(capsys, "validate", str(path))
    assert code == 1
    assert "\x1b" not in out and "\u202e" not in out
    assert "\\x1b[2Jx\\u202eevil is also on line 1" in out  # shown escaped, as Python writes it


def test_max_line_bytes_is_not_offered_where_it_does_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "validate", "--help")
    assert code == 0 and "--max-line-bytes" not in out


def test_the_follow_filter_leaves_children_out(tmp_path: Path) -> None:
    """``Options(follow_child=...)`` (what ``--since`` makes) is honoured: a child it refuses is not validated."""
    sitemap = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    sitemap += "<url><loc>https://example.com/p</loc></url></urlset>"
    (tmp_path / "old.xml").write_text(sitemap.replace("/p<", "/p&<"), encoding="utf-8")  # an error, if validated
    (tmp_path / "new.xml").write_text(sitemap, encoding="utf-8")
    (tmp_path / "index.xml").write_text(
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<sitemap><loc>https://example.com/old.xml</loc><lastmod>2020-01-01</lastmod></sitemap>\n"
        "<sitemap><loc>https://example.com/new.xml</loc><lastmod>2024-06-01</lastmod></sitemap>\n"
        "</sitemapindex>\n",
        encoding="utf-8",
    )
    seen: list[tuple[str, str | None]] = []

    def recent(loc: str, lastmod: feedmap.W3CDate | None) -> bool:
        seen.append((loc, None if lastmod is None else lastmod.text))
        return lastmod is None or lastmod >= feedmap.W3CDate("2024-01-01")

    options = feedmap.Options(maps=(("https://example.com/", tmp_path),), follow_child=recent)
    report = feedmap.validate(tmp_path / "index.xml", options=options)
    assert seen == [("https://example.com/old.xml", "2020-01-01"), ("https://example.com/new.xml", "2024-06-01")]
    assert (report.files, report.entries) == (2, 3)  # the index and new.xml
    assert [(f.code, f.line) for f in report.findings] == [("child-skipped", 2)]
    everything = feedmap.validate(tmp_path / "index.xml", options=feedmap.Options(maps=options.maps))
    assert everything.files == 3 and everything.errors
