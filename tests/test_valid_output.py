"""Valid output by default (issue 9): URLs encoded in XML outputs, gzip output, foreign elements, feed warnings.

References: RFC 3986 §2 (the characters of a URI) and RFC 3987 §3.1 (IRI to URI), sitemaps.org "Entity
escaping" (``ümlat`` -> ``%C3%BC``), RFC 1952 (gzip: FNAME optional, MTIME 0 = none), RSS 2.0.11.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
from conftest import run
from lxml import etree

import feedmap
from feedmap import Diagnostic, Entry, Level, Options, Reporter

IRI = "http://www.example.com/ümlat.html&q=name"
URI = "http://www.example.com/%C3%BCmlat.html&q=name"
XML_FORMATS = ("sitemap", "sitemapindex", "rss", "ror")


def write(entries: list[Entry], format: str, **options: bool) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    summary = feedmap.write(entries, sink, format, feedmap.Options(**options))
    return sink.getvalue(), summary.diagnostics


# ------------------------------------------------------------------------------------- item 2: URLs


@pytest.mark.parametrize("format", XML_FORMATS)
def test_xml_outputs_encode_iris_by_default(format: str) -> None:
    data, diagnostics = write([Entry(loc=IRI)], format)
    root = etree.fromstring(data)
    site = "http://www.example.com/"  # the channel link, derived from the site
    channel = (site, site + "#ror-sitemap")
    written = [element.text for element in root.iter("{*}loc", "link", "guid") if element.text not in channel]
    assert written and set(written) == {URI}
    assert [(d.code, d.level) for d in diagnostics if d.code == "url-encoded"] == [("url-encoded", Level.INFO)]


@pytest.mark.parametrize("format", XML_FORMATS)
def test_keep_urls_writes_them_as_read(format: str) -> None:
    data, diagnostics = write([Entry(loc=IRI)], format, keep_urls=True)
    assert IRI.replace("&", "&amp;").encode() in data
    assert "url-encoded" not in {d.code for d in diagnostics}
    assert "url-not-encoded" not in {d.code for d in diagnostics}  # an IRI is what --keep-urls asks to keep


@pytest.mark.parametrize("format", ["jsonl", "text"])
def test_jsonl_and_text_keep_what_was_read(format: str) -> None:
    data, diagnostics = write([Entry(loc=IRI)], format)
    assert IRI.encode() in data
    assert diagnostics == []


@pytest.mark.parametrize("format", XML_FORMATS)
@pytest.mark.parametrize("loc", ['https://e.example/a"b', "https://e.example/<x>", "https://e.example/a b"])
def test_characters_no_uri_holds_never_pass_silently(format: str, loc: str) -> None:
    encoded, diagnostics = write([Entry(loc=loc)], format)
    assert "url-encoded" in {d.code for d in diagnostics}
    assert b"%22" in encoded or b"%3C" in encoded or b"%20" in encoded
    _, kept_diagnostics = write([Entry(loc=loc)], format, keep_urls=True)
    assert [d.code for d in kept_diagnostics if d.code == "url-not-encoded"] == ["url-not-encoded"]


@pytest.mark.parametrize("loc", ['https://e.example/a"b', "https://e.example/<x>", "https://e.example/{a}|^`"])
def test_reading_a_loc_no_uri_holds_is_reported(loc: str) -> None:
    reporter = Reporter()
    with feedmap.read(io.BytesIO(f"{loc}\n".encode()), format="text", reporter=reporter) as doc:
        assert [entry.loc for entry in doc] == [loc]
    assert [d.code for d in reporter.diagnostics] == ["loc-not-escaped"]


def test_cli_keep_urls_and_encode_urls(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text(IRI + "\n", encoding="utf-8")
    code, out, err = run(capsys, "convert", source, "-t", "sitemap")
    assert code == 0 and URI.replace("&", "&amp;") in out and "[url-encoded]" in err
    code, out, err = run(capsys, "convert", source, "-t", "sitemap", "--keep-urls")
    assert code == 0 and IRI.replace("&", "&amp;") in out and "url-encoded" not in err
    code, out, _ = run(capsys, "convert", source, "-t", "text")
    assert code == 0 and out == IRI + "\n"
    code, out, _ = run(capsys, "convert", source, "-t", "text", "--encode-urls")
    assert code == 0 and out == URI + "\n"
    code, out, err = run(capsys, "convert", source, "-t", "sitemap", "--keep-urls", "--encode-urls")
    assert code == 2 and out == "" and "not allowed with" in err


def test_an_unparsable_url_is_encoded_without_a_traceback() -> None:
    data, _ = write([Entry(loc="http://[::1/x ü")], "rss")
    assert b"http://%5B::1/x%20%C3%BC" in data


# ------------------------------------------------------------------------------------- item 8: .gz output


def test_gz_output_is_deterministic_gzip(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("https://e.example/a\nhttps://e.example/b\n", encoding="utf-8")
    first, second = tmp_path / "one.xml.gz", tmp_path / "two.XML.GZ"
    assert run(capsys, "convert", source, "-o", first)[0] == 0
    assert run(capsys, "convert", source, "-o", second)[0] == 0
    data = first.read_bytes()
    assert data[:2] == b"\x1f\x8b"  # RFC 1952 ID1 ID2
    assert data[3] & 0x08 == 0  # FLG.FNAME unset: no file name in the header
    assert data[4:8] == b"\0\0\0\0"  # MTIME 0
    assert data == second.read_bytes()
    root = etree.fromstring(gzip.decompress(data))
    assert root.tag == "{http://www.sitemaps.org/schemas/sitemap/0.9}urlset"  # the format from "one.xml"


def test_gz_output_through_the_library(tmp_path: Path) -> None:
    target = tmp_path / "feed.rss.gz"
    feedmap.write([Entry(loc="https://e.example/a")], target, "rss")
    assert etree.fromstring(gzip.decompress(target.read_bytes())).tag == "rss"
    plain = tmp_path / "feed.rss"
    feedmap.write([Entry(loc="https://e.example/a")], plain, "rss")
    assert plain.read_bytes().startswith(b"<?xml")


# ------------------------------------------------------------------------------------- item 5: feed warnings


def _declared(data: bytes) -> set[str]:
    """The prefixes declared on the root element."""
    head = data.split(b"\n", 2)[1].decode()
    return {part.split("=")[0] for part in head.split(" xmlns:")[1:]}


def test_rss_declares_only_the_namespaces_it_uses() -> None:
    plain, _ = write([Entry(loc="https://e.example/a")], "rss")
    assert _declared(plain) == set()
    full = Entry(
        loc="https://e.example/a",
        lastmod=feedmap.W3CDate("2024-01-02"),
        priority=0.5,
        images=(feedmap.Image(loc="https://e.example/i.png"),),
    )
    data, _ = write([full], "rss")
    assert _declared(data) == {"dc", "sitemap", "gimage"}  # Google's image namespace: not the reserved "image"
    ror, _ = write([Entry(loc="https://e.example/a")], "ror")
    assert _declared(ror) == {"ror"}


def test_a_namespace_first_used_after_the_first_batch_is_declared_on_the_element() -> None:
    entries = [Entry(loc=f"https://e.example/{n}") for n in range(600)]
    entries.append(Entry(loc="https://e.example/last", priority=0.5))
    data, _ = write(entries, "rss")
    assert _declared(data) == set()
    root = etree.fromstring(data)  # well-formed: the prefix is declared where it is used
    assert root.findtext("channel/item[last()]/{http://www.sitemaps.org/schemas/sitemap/0.9}priority") == "0.5"


@pytest.mark.parametrize(
    ("lastmod", "element"),
    [
        ("2024-03-05T10:30:00+01:00", "pubDate"),
        ("2024-03-05T10:30:00Z", "pubDate"),
        ("2024-01-02", "dc:date"),
        ("2024-04-01T08:15:30.25Z", "dc:date"),
        ("2024-03-05T10:30:00+00:00", "dc:date"),
    ],
)
def test_rss_keeps_the_exact_lastmod_in_one_place(lastmod: str, element: str) -> None:
    entry = Entry(loc="https://e.example/a", lastmod=feedmap.W3CDate(lastmod))
    data, _ = write([entry], "rss")
    assert (b"<pubDate>" in data, b"<dc:date>" in data) == (element == "pubDate", element == "dc:date")
    with feedmap.read(io.BytesIO(data), format="rss") as doc:  # sitemap -> rss -> sitemap stays lossless
        assert [e.lastmod for e in doc] == [entry.lastmod]


def test_the_ror_header_item_has_a_guid_of_its_own() -> None:
    data, _ = write([Entry(loc="https://e.example/")], "ror")
    guids = [guid.text for guid in etree.fromstring(data).iter("guid")]
    assert len(guids) == 2 and len(set(guids)) == 2
    with feedmap.read(io.BytesIO(data), format="ror") as doc:
        assert [e.loc for e in doc] == ["https://e.example/"]


def test_atom_html_titles_become_plain_text(tmp_path: Path) -> None:
    source = tmp_path / "feed.atom"
    source.write_text(
        '<feed xmlns="http://www.w3.org/2005/Atom"><title type="html">A &lt;b&gt;bold&lt;/b&gt; feed</title>'
        '<entry><title type="html">&lt;em&gt;Hi&lt;/em&gt; there</title><link href="https://e.example/a"/></entry>'
        '<entry><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">X <b>y</b></div></title>'
        '<link href="https://e.example/b"/></entry>'
        '<entry><title>a &lt;b&gt; text</title><link href="https://e.example/c"/></entry></feed>',
        encoding="utf-8",
    )
    with feedmap.read(str(source)) as doc:
        assert [e.title for e in doc] == ["Hi there", "X y", "a <b> text"]
        assert doc.meta.title == "A bold feed"


# ------------------------------------------------------------------------------------- item 4: foreign elements


@pytest.mark.parametrize("format", ["rss", "ror"])
def test_rss_1_0_rdf_markup_is_left_out_of_rss_2_0_items(format: str) -> None:
    permalink = '<l:permalink xmlns:l="http://purl.org/rss/1.0/modules/link/" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" rdf:resource="https://e.example/p"/>'  # noqa: E501
    key = "{http://purl.org/rss/1.0/modules/link/}permalink"
    keep = '<x:keep xmlns:x="urn:x">1</x:keep>'
    entry = Entry(loc="https://e.example/a", extras={key: permalink, "{urn:x}keep": keep})
    data, diagnostics = write([entry], format)
    assert b"permalink" not in data and b"x:keep" in data
    assert [d.code for d in diagnostics if d.code == "extra-dropped"] == ["extra-dropped"]
    # a feed module's element means nothing in a sitemap: left out and said, unless kept (extensions are allowed)
    sitemap, sitemap_diagnostics = write([entry], "sitemap")
    assert b"permalink" not in sitemap and "extra-dropped" in {d.code for d in sitemap_diagnostics}
    sitemap, sitemap_diagnostics = write([entry], "sitemap", keep_feed_extras=True)
    assert b"permalink" in sitemap and "extra-dropped" not in {d.code for d in sitemap_diagnostics}


@pytest.mark.parametrize("format", ["sitemap", "sitemapindex"])
def test_no_namespace_extras_are_written_outside_the_sitemap_namespace(format: str) -> None:
    entry = Entry(loc="https://e.example/a", extras={"{}random_tag": "<random_tag>x</random_tag>"})
    data, _ = write([entry], format)
    assert etree.fromstring(data).find(".//random_tag") is not None


# ------------------------------------------------------------------------------------- W3C Feed Validator events


@pytest.mark.parametrize("format", ["rss", "ror"])
def test_channel_link_and_self_url_are_written_as_uris(tmp_path: Path, format: str) -> None:
    """An IRI channel link (the input's feed link) or self URL is encoded like every item link (UriNotIri)."""
    source = tmp_path / "feed.atom"
    source.write_text(
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><link href="http://www.詹姆斯.com/iri/"/>'
        '<entry><title>a</title><link href="http://www.詹姆斯.com/iri/a"/></entry></feed>',
        encoding="utf-8",
    )
    out = io.BytesIO()
    options = Options(self_url="https://e.example/ü.xml")
    feedmap.convert(str(source), out, format, options=options, reporter=Reporter())
    root = etree.fromstring(out.getvalue())
    links = [link.text for link in root.iter("link")]
    assert links and all(link == link.encode("ascii", "replace").decode() for link in links)
    assert "http://www.xn--8ws00zhy3a.com/iri/" in links
    self_link = root.find("channel/{http://www.w3.org/2005/Atom}link")
    assert self_link is not None and self_link.get("href") == "https://e.example/%C3%BC.xml"


@pytest.mark.parametrize("format", ["rss", "ror"])
def test_plain_text_titles_encode_amp_and_lt_as_hex_references(tmp_path: Path, format: str) -> None:
    """RSS Best Practices Profile, "Encoding & and <": plain text (titles, the channel description) holds them
    as ``&#x26;`` and ``&#x3C;``, so ``&lang=en`` or ``<blink>`` is not taken for HTML (ContainsHTML,
    CharacterData); the text read back is unchanged."""
    source = tmp_path / "feed.atom"
    source.write_text(
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>History of the &lt;blink&gt; tag</title>'
        "<subtitle>Q &amp; A</subtitle>"
        '<entry><link href="https://e.example/a?x=1&amp;lang=en"/><title>a &amp;lang &lt;b&gt;</title></entry></feed>',
        encoding="utf-8",
    )
    out = io.BytesIO()
    feedmap.convert(str(source), out, format, reporter=Reporter())
    data = out.getvalue()
    assert b"<title>History of the &#x3C;blink&gt; tag</title>" in data
    assert b"<description>Q &#x26; A</description>" in data
    assert b"<title>a &#x26;lang &#x3C;b&gt;</title>" in data
    assert b"&amp;lang=en</link>" in data  # links keep the plain escape
    titles = [title.text for title in etree.fromstring(data).iter("title")]
    assert "History of the <blink> tag" in titles and "a &lang <b>" in titles


@pytest.mark.parametrize("kind", ["html", "xhtml"])
def test_atom_markup_subtitles_become_plain_channel_descriptions(tmp_path: Path, kind: str) -> None:
    """RSS 2.0's channel description is plain text (the validator's ContainsHTML): an Atom subtitle of type
    html or xhtml is read as its text content, on the lxml and the feedparser paths alike."""
    subtitle = (
        "A &lt;em&gt;lot&lt;/em&gt; of effort"
        if kind == "html"
        else '<div xmlns="http://www.w3.org/1999/xhtml">A <em>lot</em> of effort</div>'
    )
    text = (
        f'<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><subtitle type="{kind}">{subtitle}</subtitle>'
        '<entry><title>a</title><link href="https://e.example/a"/></entry></feed>'
    )
    source = tmp_path / "feed.atom"
    source.write_text(text, encoding="utf-8")
    with feedmap.read(str(source)) as doc:
        assert doc.meta.description == "A lot of effort"
        list(doc)
    import feedparser

    from feedmap.formats.feeds._parsed import _feed_description

    parsed = feedparser.parse(text.encode(), sanitize_html=False, resolve_relative_uris=False)
    assert _feed_description(parsed.feed, atom=True) == "A lot of effort"


@pytest.mark.parametrize("format", ["rss", "ror"])
def test_extras_holding_atom_elements_are_left_out_of_rss_2_0_items(format: str) -> None:
    """An APP ``<app:collection>`` with its own ``<atom:title>``: in an RSS item the validator takes that title
    for the item's (DuplicateDescriptionSemantics); the extra is left out, reported, and a sitemap keeps it when
    asked (keep_feed_extras)."""
    collection = (
        '<a:collection xmlns:a="http://www.w3.org/2007/app" xmlns="http://www.w3.org/2005/Atom" href="https://e.example/">'
        "<title>Foo</title></a:collection>"
    )
    key = "{http://www.w3.org/2007/app}collection"
    keep = '<x:keep xmlns:x="urn:x">1</x:keep>'
    entry = Entry(loc="https://e.example/a", extras={key: collection, "{urn:x}keep": keep})
    data, diagnostics = write([entry], format)
    assert b"collection" not in data and b"x:keep" in data
    assert [d.code for d in diagnostics if d.code == "extra-dropped"] == ["extra-dropped"]
    sitemap, sitemap_diagnostics = write([entry], "sitemap")  # APP is a feed's vocabulary: kept only when asked
    assert b"collection" not in sitemap and "extra-dropped" in {d.code for d in sitemap_diagnostics}
    sitemap, sitemap_diagnostics = write([entry], "sitemap", keep_feed_extras=True)
    assert b"collection" in sitemap and "extra-dropped" not in {d.code for d in sitemap_diagnostics}
