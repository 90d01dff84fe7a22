"""URLs as the web means them (issue 17, points 5, 6 and 14): hosts, schemes, every part of a written URL.

References: UTS #46 (https://www.unicode.org/reports/tr46/) non-transitional processing, as the WHATWG URL
Standard's "domain to ASCII" does (``faß.de`` is ``xn--fa-hia.de``; IDNA 2003 made it ``fass.de``); RFC 3986
§3.2 (userinfo, host, port) and §2 (a blank is no URI character: percent-encoded, RFC 3987 §3.1);
sitemaps.org 0.9 and RSS 2.0 (a ``loc`` and an item ``link`` are web pages' URLs).
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from conftest import run
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

import feedmap
from feedmap import Alternate, Diagnostic, Entry, Image, Level, StrictError

XML_FORMATS = ("sitemap", "sitemapindex", "rss", "ror")
FEED_FORMATS = ("rss", "ror")
GOOD = "https://www.example.com/a"
NOT_WEB = [
    "javascript://example.com/%0Aalert(1)",
    "javascript:alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html,<script>alert(1)</script>",
    "ftp://example.com/file.txt",
    "gopher://example.com/1",
]


def write(entries: list[Entry], format: str, **options: object) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    summary = feedmap.write(entries, sink, format, feedmap.Options(**options))  # type: ignore[arg-type]
    return sink.getvalue(), summary.diagnostics


def values(data: bytes) -> list[str]:
    """Every text and attribute value of an XML document."""
    root = etree.fromstring(data)
    found = [element.text for element in root.iter() if element.text]
    return found + [value for element in root.iter() for value in element.attrib.values()]


def scheme(url: str) -> str:
    return url.split(":", 1)[0] + ":"


def codes(diagnostics: list[Diagnostic], code: str) -> list[tuple[str, Level]]:
    return [(d.code, d.level) for d in diagnostics if d.code == code]


def jsonl(path: Path, *records: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), "utf-8")
    return path


# ------------------------------------------------------------------------------- point 6: web URLs only


@pytest.mark.parametrize("bad", NOT_WEB)
@pytest.mark.parametrize("format", XML_FORMATS)
def test_xml_outputs_leave_out_a_loc_that_is_no_web_url(format: str, bad: str) -> None:
    data, diagnostics = write([Entry(loc=GOOD), Entry(loc=bad)], format)
    written = values(data)
    assert GOOD in written
    assert not any(value.lower().startswith(scheme(bad)) for value in written)
    assert codes(diagnostics, "non-web-url") == [("non-web-url", Level.WARNING)]


@pytest.mark.parametrize("format", [*XML_FORMATS, "text", "jsonl"])
def test_strict_stops_at_a_loc_that_is_no_web_url(format: str) -> None:
    with pytest.raises(StrictError) as raised:
        write([Entry(loc=GOOD), Entry(loc=NOT_WEB[0])], format, strict=True)
    assert raised.value.diagnostic.code == "non-web-url"


@pytest.mark.parametrize("format", ["text", "jsonl"])
def test_text_and_json_lines_keep_a_url_of_another_scheme_with_a_warning(format: str) -> None:
    data, diagnostics = write([Entry(loc=GOOD), Entry(loc="ftp://example.com/file.txt")], format)
    assert b"ftp://example.com/file.txt" in data
    assert codes(diagnostics, "non-web-url") == [("non-web-url", Level.WARNING)]


def test_json_lines_keep_a_relative_url_without_a_scheme_warning() -> None:
    """A relative reference has no scheme: it is no other scheme's URL (the readers report it as relative)."""
    _, diagnostics = write([Entry(loc="/page.html")], "jsonl")
    assert codes(diagnostics, "non-web-url") == []


def _rich_entry() -> Entry:
    return Entry(
        loc=GOOD,
        images=[
            Image(loc="data:image/png;base64,AAAA"),
            Image(loc="https://www.example.com/i.png", license="javascript:alert(1)"),
        ],
        alternates=[
            Alternate(hreflang="de", href="ftp://example.com/de"),
            Alternate(hreflang="fr", href="https://www.example.com/fr"),
        ],
    )


@pytest.mark.parametrize("format", ["sitemap", "rss", "ror"])
def test_xml_outputs_leave_out_images_licenses_and_alternates_that_are_no_web_urls(format: str) -> None:
    data, diagnostics = write([_rich_entry()], format)
    written = values(data)
    assert {GOOD, "https://www.example.com/i.png", "https://www.example.com/fr"} <= set(written)
    assert not any(value.startswith(("data:", "javascript:", "ftp:")) for value in written)
    assert codes(diagnostics, "non-web-url") == [("non-web-url", Level.WARNING)] * 3


def test_json_lines_keep_images_and_alternates_of_other_schemes_with_warnings() -> None:
    data, diagnostics = write([_rich_entry()], "jsonl")
    record = json.loads(data)
    assert record["images"][0]["loc"] == "data:image/png;base64,AAAA"
    assert record["images"][1]["license"] == "javascript:alert(1)"
    assert record["alternates"][0]["href"] == "ftp://example.com/de"
    assert codes(diagnostics, "non-web-url") == [("non-web-url", Level.WARNING)] * 3


@pytest.mark.parametrize("format", FEED_FORMATS)
def test_a_first_entry_of_another_scheme_never_becomes_the_channel_link(format: str) -> None:
    data, diagnostics = write([Entry(loc="javascript://evil.example/%0Aalert(1)"), Entry(loc=GOOD)], format)
    root = etree.fromstring(data)
    assert root.findtext("channel/link") == "https://www.example.com/"
    assert "evil.example" not in data.decode()
    assert codes(diagnostics, "non-web-url") == [("non-web-url", Level.WARNING)]


@pytest.mark.parametrize("field", ["channel_link", "self_url"])
@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/plain,x"])
def test_a_channel_link_and_self_url_of_another_scheme_are_refused_when_the_options_are_made(
    field: str, url: str
) -> None:
    """As ``--link`` and ``--self-url`` refuse them: nothing is written with them (the writers also leave out a
    feed's own link of another scheme: the next test)."""
    with pytest.raises(ValueError, match=f"^{field}: .*absolute http"):
        feedmap.Options(**{field: url})  # type: ignore[arg-type]


def test_a_feed_channel_link_of_another_scheme_is_replaced_by_the_site(tmp_path: Path) -> None:
    feed = tmp_path / "feed.rss"
    feed.write_text(
        '<rss version="2.0"><channel><title>T</title><link>javascript:alert(1)</link><description>D</description>'
        f"<item><title>A</title><link>{GOOD}</link></item></channel></rss>",
        "utf-8",
    )
    for format in FEED_FORMATS:
        sink = io.BytesIO()
        summary = feedmap.convert(str(feed), sink, format)
        assert "javascript" not in sink.getvalue().decode()
        assert codes(summary.diagnostics, "non-web-url") == [("non-web-url", Level.WARNING)]


def test_a_ror_header_link_of_another_scheme_is_not_written(tmp_path: Path) -> None:
    ror = tmp_path / "in.ror"
    ror.write_text(
        '<rss version="2.0" xmlns:ror="http://rorweb.com/0.1/"><channel><title>T</title>'
        "<link>https://www.example.com/</link><description>D</description>"
        "<item><title>H</title><link>javascript:alert(1)</link><ror:about>sitemap</ror:about>"
        "<ror:type>SiteMap</ror:type></item>"
        f"<item><title>A</title><link>{GOOD}</link></item></channel></rss>",
        "utf-8",
    )
    sink = io.BytesIO()
    summary = feedmap.convert(str(ror), sink, "ror")
    data = sink.getvalue()
    assert "javascript" not in data.decode()
    assert etree.fromstring(data).findtext("channel/item/link") == "https://www.example.com/"  # the header item's
    assert codes(summary.diagnostics, "non-web-url") == [("non-web-url", Level.WARNING)]


def test_split_output_leaves_out_urls_of_other_schemes(tmp_path: Path) -> None:
    entries = [Entry(loc=GOOD), Entry(loc=NOT_WEB[0]), Entry(loc="https://www.example.com/b")]
    options = feedmap.Options(base_url="https://www.example.com/maps/")
    summary = feedmap.split(entries, tmp_path / "out", "sitemap", options)
    assert summary.entries == 2
    written = (tmp_path / "out" / "sitemap-1.xml").read_text("utf-8")
    assert "javascript" not in written and GOOD in written
    assert codes(summary.diagnostics, "non-web-url") == [("non-web-url", Level.WARNING)]


def test_cli_drops_a_url_of_another_scheme_from_xml_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.txt"
    source.write_text(f"{GOOD}\njavascript://example.com/%0Aalert(1)\n", "utf-8")
    code, out, err = run(capsys, "convert", source, "-t", "sitemap", "-o", "-")
    assert code == 0
    assert "javascript" not in out and GOOD in out
    assert f"{source}:2: warning[non-web-url]" in err


@pytest.mark.parametrize("format", ["sitemap", "rss", "ror", "text"])
def test_cli_strict_stops_at_a_url_of_another_scheme(
    format: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.txt"
    source.write_text(f"{GOOD}\nftp://example.com/file.txt\n", "utf-8")
    code, _, err = run(capsys, "convert", source, "-t", format, "-o", tmp_path / "out", "--strict")
    assert code == 1
    assert "non-web-url" in err


INDEX = (
    '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    "<sitemap><loc>https://www.example.com/s1.xml</loc></sitemap>\n"
    "<sitemap><loc>ftp://www.example.com/s2.xml</loc></sitemap>\n"
    "</sitemapindex>\n"
)


def test_cli_index_children_of_another_scheme_are_left_out_of_an_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "index.xml"
    source.write_text(INDEX, "utf-8")
    code, out, err = run(capsys, "convert", source, "--no-follow", "-t", "sitemapindex", "-o", "-")
    assert code == 0
    assert [element.text for element in etree.fromstring(out.encode()).iter("{*}loc")] == [
        "https://www.example.com/s1.xml"
    ]
    assert f"{source}:3: warning[non-web-url]" in err
    code, _, err = run(
        capsys, "convert", source, "--no-follow", "-t", "sitemapindex", "-o", tmp_path / "o.xml", "--strict"
    )
    assert code == 1
    assert "non-web-url" in err


def test_cli_text_output_keeps_a_url_of_another_scheme_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.txt"
    source.write_text(f"{GOOD}\nftp://example.com/file.txt\n", "utf-8")
    code, out, err = run(capsys, "convert", source, "-t", "text", "-o", "-")
    assert code == 0
    assert out.splitlines() == [GOOD, "ftp://example.com/file.txt"]
    assert f"{source}:2: warning[non-web-url]" in err


def test_cli_reports_an_image_of_another_scheme_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = jsonl(
        tmp_path / "in.jsonl",
        {"loc": GOOD},
        {"loc": "https://www.example.com/b", "images": [{"loc": "data:image/png;base64,AAAA"}]},
    )
    code, out, err = run(capsys, "convert", source, "-t", "sitemap", "-o", "-")
    assert code == 0
    assert "data:" not in out and "https://www.example.com/b" in out
    assert f"{source}:2: warning[non-web-url]" in err


# --------------------------------------------------------------------------------- point 5: UTS 46 hosts

HOSTS = [
    ("faß.de", "xn--fa-hia.de"),  # IDNA 2003: fass.de, another host
    ("straße.de", "xn--strae-oqa.de"),  # IDNA 2003: strasse.de
    ("βόλος.com", "xn--nxasmm1c.com"),  # the final sigma kept (IDNA 2003 made it a medial one)
    ("\uff26\uff21\u00df\uff0ede", "xn--fa-hia.de"),  # mapped: full-width letters and dot, case folded
    ("☃.net", "xn--n3h.net"),  # a symbol: valid in UTS 46 (browsers write it so), refused by IDNA 2008's table
    ("\U0001f600.example", "xn--e28h.example"),  # an emoji, as every browser's URL bar writes it
]


@pytest.mark.parametrize(("host", "ascii"), HOSTS)
@pytest.mark.parametrize("format", XML_FORMATS)
def test_hosts_are_written_by_uts46_nontransitional_processing(format: str, host: str, ascii: str) -> None:
    data, diagnostics = write([Entry(loc=f"https://{host}/p")], format)
    assert f"https://{ascii}/p" in values(data)
    assert f"{'https://' + host + '/p'!r} written as https://{ascii}/p" in [d.message for d in diagnostics]


@pytest.mark.parametrize(("host", "ascii"), HOSTS)
def test_text_output_encodes_hosts_the_same_way_when_asked(host: str, ascii: str) -> None:
    data, _ = write([Entry(loc=f"https://{host}/p")], "text", encode_urls=True)
    assert data.decode().splitlines() == [f"https://{ascii}/p"]


def test_a_host_with_a_joiner_is_kept_as_read_and_reported_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """IDNA 2003 deleted U+200D: two hosts became one.  UTS 46 non-transitional keeps it, and IDNA 2008
    (CONTEXTJ) refuses it after a letter: the host has no A-label and is written as read, with a warning."""
    joined = "https://a\u200db.example/"
    source = jsonl(tmp_path / "in.jsonl", {"loc": "https://ab.example/"}, {"loc": joined})
    code, out, err = run(capsys, "convert", source, "-t", "sitemap", "-o", "-")
    assert code == 0
    assert [element.text for element in etree.fromstring(out.encode()).iter("{*}loc")] == [
        "https://ab.example/",
        joined,
    ]
    assert f"{source}:2: warning[host-not-encoded]" in err
    code, _, err = run(capsys, "convert", source, "-t", "sitemap", "-o", tmp_path / "out.xml", "--strict")
    assert code == 1
    assert "host-not-encoded" in err


def test_a_symbol_host_and_its_a_label_are_one_url_with_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``☃.net`` is ``xn--n3h.net`` to a browser (UTS 46 takes symbols and emoji, IDNA 2008's table does
    not): written as that A-label, not kept as read with a warning, so that ``--strict`` takes it."""
    source = jsonl(tmp_path / "in.jsonl", {"loc": "https://☃.net/a"}, {"loc": "https://xn--n3h.net/a"})
    code, out, err = run(capsys, "convert", source, "-t", "sitemap", "-o", "-", "--strict", "--dedupe", "first")
    assert code == 0, err
    assert [element.text for element in etree.fromstring(out.encode()).iter("{*}loc")] == ["https://xn--n3h.net/a"]
    assert "host-not-encoded" not in err


def test_a_host_label_too_long_for_dns_is_kept_as_read_with_a_warning() -> None:
    loc = "https://" + "é" * 70 + ".example/"
    data, diagnostics = write([Entry(loc=loc)], "sitemap")
    assert loc in values(data)
    assert codes(diagnostics, "host-not-encoded") == [("host-not-encoded", Level.WARNING)]


def test_split_index_locs_carry_the_uts46_host_of_the_base_url(tmp_path: Path) -> None:
    options = feedmap.Options(base_url="https://faß.de/maps/")
    feedmap.split([Entry(loc="https://faß.de/maps/a")], tmp_path / "out", "sitemap", options)
    index = etree.parse(str(tmp_path / "out" / "sitemap_index.xml"))
    assert [element.text for element in index.iter("{*}loc")] == ["https://xn--fa-hia.de/maps/sitemap-1.xml"]
    page = etree.parse(str(tmp_path / "out" / "sitemap-1.xml"))
    assert [element.text for element in page.iter("{*}loc")] == ["https://xn--fa-hia.de/maps/a"]


# ------------------------------------------------------------------ point 14: every part encoded as said

WRITTEN = [
    ("http://us er:p<w@example.com/x", "http://us%20er:p%3Cw@example.com/x"),  # userinfo
    ('http://u"v@example.com/x', "http://u%22v@example.com/x"),
    ("http://example.com:8 0/x", "http://example.com:8%200/x"),  # port: the warning promised %20
    ("https://example.com/a\tb\nc", "https://example.com/a%09b%0Ac"),  # urlsplit deleted them
    ("HTTPS://example.com/é?", "HTTPS://example.com/%C3%A9?"),  # urlsplit lowercased, dropped the '?'
    ("https://example.com/é#", "https://example.com/%C3%A9#"),
]


@pytest.mark.parametrize(("read", "written"), WRITTEN)
@pytest.mark.parametrize("format", XML_FORMATS)
def test_every_part_of_a_url_is_written_as_the_diagnostic_says(format: str, read: str, written: str) -> None:
    data, diagnostics = write([Entry(loc=read)], format)
    assert written in values(data)
    encoded = [d.message for d in diagnostics if d.code == "url-encoded" and d.message.startswith(repr(read))]
    assert encoded == [f"{read!r} written as {written}"]


@pytest.mark.parametrize(("read", "written"), [WRITTEN[0], WRITTEN[2], WRITTEN[3]])
def test_the_white_space_warning_names_the_escapes_written(
    read: str, written: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = jsonl(tmp_path / "in.jsonl", {"loc": read})
    code, out, err = run(capsys, "convert", source, "-t", "sitemap", "-o", "-")
    assert code == 0
    assert [element.text for element in etree.fromstring(out.encode()).iter("{*}loc")] == [written]
    (warning,) = [line for line in err.splitlines() if "warning[loc-not-escaped]" in line]
    promised = re.findall(r"%[0-9A-F]{2}", warning)
    assert promised and all(escape in written for escape in promised)


@settings(max_examples=200, deadline=None)
@given(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="%"), max_size=20),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="%@/?#[]"), max_size=8),
)
def test_a_written_url_holds_every_character_read(path: str, userinfo: str) -> None:
    """Hostile locs (controls, blanks, line breaks, any Unicode): an XML output writes a URI, and decoding
    its escapes gives back the URL read, character for character: nothing deleted, nothing added."""
    loc = f"https://u{userinfo}@www.example.com/{path}"
    data, diagnostics = write([Entry(loc=loc)], "sitemap")
    (written,) = [element.text for element in etree.fromstring(data).iter("{*}loc")]
    assert written is not None and written.isascii() and not any(char.isspace() for char in written)
    assert unquote(written) == loc
    assert (written != loc) == bool(codes(diagnostics, "url-encoded"))


def split_at_an_idn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A split written with ``--base-url https://faß.de/maps/``: its index names ``https://xn--fa-hia.de/...``."""
    source = tmp_path / "in.txt"
    source.write_text("https://faß.de/maps/a\nhttps://faß.de/maps/b\n", "utf-8")
    out = tmp_path / "out"
    code, _, err = run(
        capsys, "convert", source, "-o", f"{out}/", "--base-url", "https://faß.de/maps/", "--max-urls", "1"
    )
    assert code == 0, err
    assert "https://xn--fa-hia.de/maps/sitemap-1.xml" in (out / "sitemap_index.xml").read_text("utf-8")
    return out


def test_an_idn_and_its_a_label_are_one_site_to_the_children_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``faß.de`` and ``xn--fa-hia.de`` are one host to a browser: the index's children written under the
    A-label are on the site given as an IRI, not ``child-off-site``."""
    out = split_at_an_idn(tmp_path, capsys)
    index = out / "sitemap_index.xml"
    mapping = f"https://xn--fa-hia.de/maps/={out}"
    code, _, err = run(capsys, "validate", index, "--base-url", "https://faß.de/maps/", "--map", mapping)
    assert code == 0, err
    assert "child-off-site" not in err


@pytest.mark.parametrize("command", ["convert", "validate"])
def test_a_map_prefix_given_as_an_iri_covers_the_urls_written_from_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """``--map https://faß.de/maps/=DIR``, the base URL the split was written with, reads its children
    ``https://xn--fa-hia.de/maps/sitemap-N.xml`` from DIR (they were fetched from the network)."""
    out = split_at_an_idn(tmp_path, capsys)
    extra = ["-t", "text"] if command == "convert" else []
    code, stdout, err = run(capsys, command, out / "sitemap_index.xml", "--map", f"https://faß.de/maps/={out}", *extra)
    assert code == 0, err
    if command == "convert":
        assert stdout.splitlines() == ["https://xn--fa-hia.de/maps/a", "https://xn--fa-hia.de/maps/b"]
