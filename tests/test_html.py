"""``feedmap.converters._html``: a page's title, description and keywords from its bytes (WHATWG encoding sniffing)."""

from __future__ import annotations

import pytest

from feedmap.converters._html import PageMeta, decode_page, encoding_for_label, page_meta, prescan, sniff_encoding


def page(head: str, body: str = "<p>text</p>") -> str:
    return f"<!DOCTYPE html>\n<html><head>{head}</head><body>{body}</body></html>\n"


# ------------------------------------------------------------------------------------------------ fields


def test_title_description_keywords() -> None:
    html = page(
        '<meta charset="utf-8"><title>A page</title>'
        '<meta name="description" content="What it is about.">'
        '<meta name="keywords" content="maps, feeds,sitemaps">'
    )
    assert page_meta(html.encode()) == PageMeta("A page", "What it is about.", ("maps", "feeds", "sitemaps"), "utf-8")


def test_names_are_matched_case_insensitively() -> None:
    html = page(
        '<TITLE>Upper</TITLE><META NAME="Description" CONTENT="d"><meta name=" KEYWORDS " content="k">'
        '<meta name="description-extra" content="not this">'
    )
    meta = page_meta(html.encode())
    assert (meta.title, meta.description, meta.keywords) == ("Upper", "d", ("k",))


def test_whitespace_is_collapsed_and_stripped() -> None:
    html = page('<title>\n  Two \t\r\n words  </title><meta name="description" content="  a\n\n b  ">')
    meta = page_meta(html.encode())
    assert meta.title == "Two words"
    assert meta.description == "a b"


def test_no_break_space_is_not_ascii_whitespace() -> None:
    meta = page_meta(page("<title>a&nbsp;b&nbsp;</title>").encode())
    assert meta.title == "a\u00a0b\u00a0"


def test_html_entities_are_decoded() -> None:
    html = page(
        "<title>Caf&eacute; &amp; Bar &#8211; &#x2014; &hellip; &lt;b&gt;</title>"
        '<meta name="description" content="Fish &amp; chips &ndash; &quot;fresh&quot;">'
        '<meta name="keywords" content="caf&eacute;, fish &amp; chips">'
    )
    meta = page_meta(html.encode())
    assert meta.title == "Café & Bar \u2013 \u2014 \u2026 <b>"
    assert meta.description == 'Fish & chips \u2013 "fresh"'
    assert meta.keywords == ("café", "fish & chips")


def test_an_escaped_entity_is_decoded_once() -> None:
    meta = page_meta(page("<title>&amp;amp; &amp;lt;</title>").encode())
    assert meta.title == "&amp; &lt;"


def test_keywords_split_on_commas_empties_and_duplicates_dropped() -> None:
    html = page('<meta name="keywords" content=" a , ,b,, a ,c "><meta name="keywords" content="d, b">')
    assert page_meta(html.encode()).keywords == ("a", "b", "c", "d")


def test_first_description_wins() -> None:
    html = page('<meta name="description" content="first"><meta name="description" content="second">')
    assert page_meta(html.encode()).description == "first"


def test_missing_and_empty_values_are_none() -> None:
    assert page_meta(page('<title>  </title><meta name="description" content=" ">').encode()) == PageMeta()
    assert page_meta(page('<meta name="description"><meta name="keywords" content=", ,">').encode()) == PageMeta()
    assert page_meta(b"") == PageMeta()


def test_first_title_not_an_svg_title() -> None:
    html = page("", "<svg><title>icon</title></svg><title>late</title>")
    assert page_meta(html.encode()).title == "late"
    html = page("<title>head</title>", "<title>body</title>")
    assert page_meta(html.encode()).title == "head"


def test_markup_inside_title_is_text() -> None:
    assert page_meta(page("<title>a <b>bold</b> move</title>").encode()).title == "a <b>bold</b> move"


def test_broken_html_still_gives_what_it_has() -> None:
    meta = page_meta(b"<title>unclosed <meta name=description content='x'")
    assert meta.title is not None and meta.title.startswith("unclosed")
    meta = page_meta(b'<html><meta name="description" content="no head"><title>t</title><div><p></span>')
    assert (meta.title, meta.description) == ("t", "no head")


@pytest.mark.parametrize(
    "data",
    [b"\x00\x01\x02", b"<<<>>>", b"\xff\xfe\x00", b"<!--", b"<meta", b"<?xml", "<title>\ud7ff</title>".encode()],
)
def test_garbage_does_not_raise(data: bytes) -> None:
    assert isinstance(page_meta(data), PageMeta)


def test_doctype_and_unknown_entities_are_harmless() -> None:
    html = b'<!DOCTYPE html SYSTEM "http://127.0.0.1:1/x.dtd"><html><head><title>&ext;ok</title></head></html>'
    assert page_meta(html).title == "&ext;ok"  # nothing loaded: an unknown reference stays as written


# ------------------------------------------------------------------------------------------------ encodings


def test_http_charset_wins_over_meta() -> None:
    data = page('<meta charset="utf-8"><title>caf\u00e9</title>').encode("cp1252")
    meta = page_meta(data, "windows-1252")
    assert meta.title == "café"
    assert meta.encoding == "windows-1252"


def test_meta_charset() -> None:
    data = page('<meta charset="koi8-r"><title>\u041f\u0440\u0438\u0432\u0435\u0442</title>').encode("koi8-r")
    assert page_meta(data).title == "Привет"


def test_meta_http_equiv_content_type() -> None:
    head = '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"><title>\u20ac caf\u00e9</title>'
    data = page(head).encode("cp1252")
    meta = page_meta(data)
    assert meta.title == "€ café"  # ISO-8859-1 is read as windows-1252: 0x80 is the euro sign
    assert meta.encoding == "windows-1252"


def test_content_without_http_equiv_is_not_a_declaration() -> None:
    data = page('<meta content="text/html; charset=koi8-r"><title>caf\u00e9</title>').encode("utf-8")
    assert page_meta(data).title == "café"


def test_meta_after_1024_bytes_is_not_seen() -> None:
    head = "<script>" + "x" * 1100 + '</script><meta charset="koi8-r"><title>caf\u00e9</title>'
    assert prescan(page(head).encode("utf-8")) is None
    assert page_meta(page(head).encode("utf-8")).title == "café"  # utf-8 because it decodes, not koi8-r
    assert prescan(page(head.replace("x" * 1100, "x")).encode("utf-8")) == "koi8-r"


def test_meta_inside_a_comment_is_skipped() -> None:
    data = page('<!-- <meta charset="koi8-r"> --><title>caf\u00e9</title>').encode("utf-8")
    assert prescan(data) is None
    assert page_meta(data).title == "café"


def test_meta_after_other_tags_with_quoted_brackets() -> None:
    data = b'<html lang="en" data-x="a>b"><head><link rel=x href="/a?b=>"><meta charset=windows-1252><title>\xe9'
    assert prescan(data) == "windows-1252"


def test_fallback_windows_1252_when_not_utf8() -> None:
    data = page("<title>caf\u00e9 \u2013 na\u00efve</title>").encode("cp1252")
    meta = page_meta(data)
    assert meta.title == "caf\u00e9 \u2013 na\u00efve"
    assert meta.encoding == "windows-1252"


def test_fallback_utf8_when_it_decodes() -> None:
    meta = page_meta(page("<title>\u65e5\u672c caf\u00e9</title>").encode("utf-8"))
    assert (meta.title, meta.encoding) == ("日本 café", "utf-8")


def test_utf8_bom() -> None:
    data = b"\xef\xbb\xbf" + page("<title>caf\u00e9</title>").encode("utf-8")
    meta = page_meta(data)
    assert (meta.title, meta.encoding) == ("café", "utf-8")


def test_bom_wins_over_http_charset_and_meta() -> None:
    data = b"\xef\xbb\xbf" + page('<meta charset="koi8-r"><title>caf\u00e9</title>').encode("utf-8")
    assert page_meta(data, "iso-8859-1").title == "café"


def test_utf16_bom() -> None:
    data = page("<title>caf\u00e9</title>").encode("utf-16")  # with its BOM
    assert page_meta(data).title == "café"


def test_meta_utf16_means_utf8() -> None:
    data = page('<meta charset="utf-16"><title>caf\u00e9</title>').encode("utf-8")
    assert sniff_encoding(data) == "utf-8"


def test_unknown_labels_are_ignored() -> None:
    data = page('<meta charset="no-such-thing"><title>caf\u00e9</title>').encode("cp1252")
    assert page_meta(data, "x-bogus").title == "café"  # neither label: windows-1252 because not UTF-8
    assert encoding_for_label("rot13") is None  # a Python codec, but no text encoding
    assert encoding_for_label("") is None


def test_xml_declaration_encoding() -> None:
    data = b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<html><head><title>caf\xe9</title></head></html>'
    assert page_meta(data).title == "café"


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("ISO-8859-1", "windows-1252"),
        ("latin1", "windows-1252"),
        ("US-ASCII", "windows-1252"),
        ("Shift_JIS", "shift_jis"),
        ("gb2312", "gbk"),
        (" UTF8 ", "utf-8"),
        ("euc-jp", "euc-jp"),
        ("koi8-r", "koi8-r"),
        ("iso-2022-kr", "replacement"),
        ("utf-7", None),
        ("unicode_escape", None),
        ("idna", None),
        ("\u212aoi8-r", None),  # KELVIN SIGN: labels match ASCII case-insensitively only
    ],
)
def test_labels(label: str, codec: str | None) -> None:
    assert encoding_for_label(label) == codec


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        (b"<meta charset=koi8-r>", "koi8-r"),
        (b"<meta charset='koi8-r'/>", "koi8-r"),
        (b"<meta/charset=koi8-r>", "koi8-r"),
        (b'<META HTTP-EQUIV="content-type" CONTENT="text/html;charset=KOI8-R">', "koi8-r"),
        (b"<meta http-equiv=content-type content='text/html; charset = \"koi8-r\"'>", "koi8-r"),
        (b'<meta content="text/html; charset=koi8-r" http-equiv="Content-Type">', "koi8-r"),
        (b'<meta charset="koi8-r" charset="utf-8">', "koi8-r"),
        (b"<metacharset=koi8-r>", None),
        (b'<meta name="charset" content="koi8-r">', None),
    ],
)
def test_prescan_forms(tag: bytes, expected: str | None) -> None:
    assert prescan(tag) == expected


def test_decode_page_replaces_undecodable_bytes() -> None:
    text, encoding = decode_page(b"<title>\xff\xfe!</title>", "utf-8")
    assert encoding == "utf-8"
    assert "\ufffd" in text


# Python codecs that are no label of the Encoding Standard: they crashed the decoding (idna, punycode,
# undefined) or turned inert bytes into markup (utf-7, unicode_escape); rot13 is no text codec at all.
NOT_LABELS = ["idna", "punycode", "undefined", "utf-7", "unicode_escape", "raw_unicode_escape", "rot13", "utf-32"]
#: A title that UTF-7 or unicode_escape would turn into a script element, and a byte that is not UTF-8.
ATTACK = b"<title>+ADw-script+AD4-alert(1)+ADw-/script+AD4- \\u003cb\\u003e caf\xe9</title>"
ATTACK_TITLE = "+ADw-script+AD4-alert(1)+ADw-/script+AD4- \\u003cb\\u003e caf\u00e9"


def declared(where: str, label: str) -> tuple[bytes, str | None]:
    """(page, HTTP charset) declaring ``label`` in one of the four places a page's encoding comes from."""
    name = label.encode("ascii")
    if where == "header":
        return ATTACK, label
    if where == "meta":
        return b'<meta charset="' + name + b'">' + ATTACK, None
    if where == "http-equiv":
        return b'<meta http-equiv="Content-Type" content="text/html; charset=' + name + b'">' + ATTACK, None
    return b'<?xml version="1.0" encoding="' + name + b'"?>' + ATTACK, None


PLACES = ["header", "meta", "http-equiv", "xml"]


@pytest.mark.parametrize("where", PLACES)
@pytest.mark.parametrize("label", NOT_LABELS)
def test_python_codecs_that_are_no_web_encoding_are_ignored(where: str, label: str) -> None:
    data, charset = declared(where, label)
    meta = page_meta(data, charset)
    assert (meta.title, meta.encoding) == (ATTACK_TITLE, "windows-1252")  # as if undeclared: not UTF-8


@pytest.mark.parametrize("where", PLACES)
@pytest.mark.parametrize("label", ["replacement", "iso-2022-kr", "hz-gb-2312"])
def test_replacement_labels_decode_to_nothing_readable(where: str, label: str) -> None:
    data, charset = declared(where, label)
    text, encoding = decode_page(data, charset)
    assert encoding == "replacement"
    assert set(text) == {"\ufffd"}  # no markup survives, so no title
    assert page_meta(data, charset).title is None


def test_x_user_defined_from_the_header_and_from_a_declaration() -> None:
    meta = page_meta(ATTACK, "x-user-defined")
    assert meta.encoding == "x-user-defined"
    assert meta.title == ATTACK_TITLE.replace("\u00e9", "\uf7e9")  # bytes 80-FF are U+F780-U+F7FF
    for where in ("meta", "http-equiv", "xml"):
        data, charset = declared(where, "x-user-defined")
        assert page_meta(data, charset).encoding == "windows-1252", where  # what the prescan makes of it


@pytest.mark.parametrize("label", ["utf-16", "UTF-16LE", "utf-16be", "unicodefffe", "ucs-2"])
@pytest.mark.parametrize("where", ["meta", "http-equiv", "xml"])
def test_a_declared_utf16_means_utf8(where: str, label: str) -> None:
    data, charset = declared(where, label)
    data = data.replace(b"caf\xe9", "caf\u00e9".encode())
    meta = page_meta(data, charset)
    assert (meta.title, meta.encoding) == (ATTACK_TITLE, "utf-8")


def test_http_utf16_is_honoured() -> None:
    data = page("<title>caf\u00e9</title>").encode("utf-16-le")  # no BOM: only the header says so
    assert page_meta(data, "utf-16").title == "café"


def test_shift_jis_is_windows_31j() -> None:
    data = page('<meta charset="shift_jis"><title>\u2460 \u2170</title>').encode("cp932")  # not in JIS X 0208
    assert page_meta(data).title == "\u2460 \u2170"


@pytest.mark.parametrize("charset", ["caf\u00e9", "\udcff", "utf-8\x00", " "])
def test_odd_header_charsets_are_ignored(charset: str) -> None:
    assert page_meta(page("<title>caf\u00e9</title>").encode(), charset).title == "café"
