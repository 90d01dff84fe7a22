"""feedmap._xml: the lenient, safe XML input path (CleaningStream, iter_elements) and escape_text.

Most tests go through :func:`feedmap.read` on in-memory sitemaps, since that is how the cleaning is
used; a few drive :class:`CleaningStream` directly to compare read sizes.
"""

from __future__ import annotations

import io
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import codes
from lxml import etree

import feedmap
from feedmap import Diagnostic, Entry, Reporter
from feedmap._io.sources import PeekableStream
from feedmap._xml import CleaningStream, escape_attribute, escape_text, unwritable

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
HEADER = b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="' + NS.encode() + b'">\n'
FOOTER = b"</urlset>\n"
HEADER_LINES = HEADER.count(b"\n")  # the first <url> written right after HEADER is on line HEADER_LINES + 1


def read_sitemap(data: bytes) -> tuple[list[Entry], list[Diagnostic]]:
    """All entries and diagnostics of reading ``data`` (recognised by content)."""
    with feedmap.read(io.BytesIO(data)) as doc:
        entries = list(doc.entries)
    return entries, list(doc.diagnostics)


def located(diagnostics: list[Diagnostic], code: str) -> list[int]:
    """The lines of every diagnostic with ``code``."""
    return [d.line for d in diagnostics if d.code == code]


def urlset(*urls: bytes) -> bytes:
    """A sitemap with one ``<url>`` per line, starting at line HEADER_LINES + 1."""
    return HEADER + b"".join(url + b"\n" for url in urls) + FOOTER


def url(loc: bytes) -> bytes:
    return b"<url><loc>" + loc + b"</loc></url>"


# -------------------------------------------------------------------------------------- ampersands


def test_bare_ampersand_is_kept_as_a_literal_ampersand() -> None:
    entries, diagnostics = read_sitemap(
        urlset(url(b"http://e.com/ok"), url(b"http://e.com/?a=1&b=2"), url(b"http://e.com/?x&y&z"))
    )
    assert [e.loc for e in entries] == ["http://e.com/ok", "http://e.com/?a=1&b=2", "http://e.com/?x&y&z"]
    assert located(diagnostics, "bare-ampersand") == [HEADER_LINES + 2, HEADER_LINES + 3, HEADER_LINES + 3]
    assert all(d.level == feedmap.Level.WARNING for d in diagnostics if d.code == "bare-ampersand")


def test_reference_to_an_undeclared_entity_is_kept_as_text() -> None:
    entries, diagnostics = read_sitemap(urlset(url(b"http://e.com/?a=1&copy;b")))
    assert [e.loc for e in entries] == ["http://e.com/?a=1&copy;b"]
    assert located(diagnostics, "bare-ampersand") == [HEADER_LINES + 1]


@pytest.mark.parametrize(
    ("written", "loc"),
    [
        (b"http://e.com/?a=1&amp;b=2", "http://e.com/?a=1&b=2"),
        (b"http://e.com/?a=1&#38;b=2", "http://e.com/?a=1&b=2"),
        (b"http://e.com/?a=1&#x26;b=2", "http://e.com/?a=1&b=2"),
        (b"http://e.com/&lt;&gt;&quot;&apos;", "http://e.com/<>\"'"),
        (b"http://e.com/&#252;&#xFC;", "http://e.com/\u00fc\u00fc"),
        (b"http://e.com/&amp;amp;", "http://e.com/&amp;"),  # double escaping is the writer's problem, kept
    ],
)
def test_escaped_ampersands_and_references_are_untouched(written: bytes, loc: str) -> None:
    entries, diagnostics = read_sitemap(urlset(url(written)))
    assert [e.loc for e in entries] == [loc]
    # a loc holding characters no URI holds is kept as read and reported (loc-not-escaped)
    assert [d.code for d in diagnostics] == (["loc-not-escaped"] if set(loc) & set('<>"') else [])


def test_ampersand_inside_cdata_is_untouched() -> None:
    entries, diagnostics = read_sitemap(
        urlset(
            url(b"<![CDATA[http://e.com/?a=1&b=2&amp;c]]>"),
            url(b"http://e.com/x?<![CDATA[a&b]]>&amp;c"),  # text, CDATA and text merge into one value
        )
    )
    assert [e.loc for e in entries] == ["http://e.com/?a=1&b=2&amp;c", "http://e.com/x?a&b&c"]
    assert diagnostics == []


def test_cdata_spanning_lines_is_followed() -> None:
    data = urlset(url(b"<![CDATA[http://e.com/?a&b\n]]>"), url(b"http://e.com/?c&d"))
    entries, diagnostics = read_sitemap(data)
    assert [e.loc for e in entries] == ["http://e.com/?a&b", "http://e.com/?c&d"]
    # the CDATA's newline pushes the second <url> one line down
    assert located(diagnostics, "bare-ampersand") == [HEADER_LINES + 3]


# ---------------------------------------------------------------------------------- control characters


def test_control_characters_are_removed_with_their_line() -> None:
    entries, diagnostics = read_sitemap(
        urlset(url(b"http://e.com/clean"), url(b"http://e.com/a\x00b\x08c\x0bd\x0ce\x1ff"), url(b"http://e.com/\x01z"))
    )
    assert [e.loc for e in entries] == ["http://e.com/clean", "http://e.com/abcdef", "http://e.com/z"]
    assert located(diagnostics, "control-character") == [HEADER_LINES + 2] * 5 + [HEADER_LINES + 3]


def test_control_characters_inside_cdata_are_removed() -> None:
    entries, diagnostics = read_sitemap(urlset(url(b"http://e.com/"), url(b"<![CDATA[http://e.com/a\x02b]]>")))
    assert [e.loc for e in entries] == ["http://e.com/", "http://e.com/ab"]
    assert located(diagnostics, "control-character") == [HEADER_LINES + 2]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_noncharacters_fffe_ffff_become_replacement_characters_and_the_entries_after_them_are_kept(
    encoding: str,
) -> None:
    """U+FFFE and U+FFFF are valid UTF-8 but not XML characters (XML 1.0 §2.2): lxml stopped there, so one of
    them dropped every entry after it (like the invalid UTF-8 byte of issue 8); they become U+FFFD, reported."""
    text = urlset(
        url(b"http://e.com/a\xef\xbf\xbfb"), url(b"<![CDATA[http://e.com/\xef\xbf\xbe]]>"), url(b"http://e.com/z")
    )
    data = text.decode("utf-8").replace('encoding="UTF-8"', f'encoding="{encoding}"').encode(encoding)
    entries, diagnostics = read_sitemap(data)
    assert [e.loc for e in entries] == ["http://e.com/a\ufffdb", "http://e.com/\ufffd", "http://e.com/z"]
    assert located(diagnostics, "invalid-character") == [HEADER_LINES + 1, HEADER_LINES + 2]
    assert "xml-not-well-formed" not in codes(diagnostics)


def test_characters_sharing_the_noncharacters_lead_byte_are_kept_and_a_noncharacter_after_them_is_found() -> None:
    """The noncharacter search starts at the first 0xEF byte: U+FF01 (EF BC 81) and U+FFFD (EF BF BD) are
    characters like any other, and a U+FFFE after them is still replaced and reported."""
    first = url("http://e.com/\uff01\ufffd".encode())
    entries, diagnostics = read_sitemap(urlset(first, url("http://e.com/\uff01\ufffe".encode())))
    assert [e.loc for e in entries] == ["http://e.com/\uff01\ufffd", "http://e.com/\uff01\ufffd"]
    assert located(diagnostics, "invalid-character") == [HEADER_LINES + 2]


def test_many_noncharacters_are_reported_up_to_the_cap_then_counted() -> None:
    from feedmap._xml import REPORT_CAP

    entries, diagnostics = read_sitemap(urlset(url(b"http://e.com/" + b"\xef\xbf\xbf" * 1000)))
    assert [e.loc for e in entries] == ["http://e.com/" + "\ufffd" * 1000]
    assert len(located(diagnostics, "invalid-character")) == REPORT_CAP
    assert [d.message.split()[:3] for d in diagnostics if d.code == "more-repairs"] == [
        [f"{1000 - REPORT_CAP:,}", "more", "invalid-character"]
    ]


def test_allowed_white_space_characters_are_kept() -> None:
    # tab, LF and CR are allowed in XML; the loc's surrounding blanks are trimmed by the reader (INFO)
    entries, diagnostics = read_sitemap(urlset(url(b"\t\r\nhttp://e.com/t \t\r\n")))
    assert [e.loc for e in entries] == ["http://e.com/t"]
    assert "control-character" not in codes(diagnostics)


# ----------------------------------------------------------------------------- leading white space


@pytest.mark.parametrize(
    ("prefix", "blank_lines"),
    [
        (b"\n", 1),
        (b"\n\n  \n", 3),
        (b"  \t ", 0),
        (b"\r\n\r\n", 2),
        (b"\xef\xbb\xbf\n\n", 2),  # a BOM, then blank lines
        (b"\n" * 400, 400),  # more blanks than one small look-ahead window
    ],
)
def test_blanks_before_the_xml_declaration_are_removed(prefix: bytes, blank_lines: int) -> None:
    body = urlset(
        url(b"http://e.com/1"),
        b"<url><loc>http://e.com/2?a&b</loc><lastmod>not a date</lastmod></url>",
        b"<url><loc>http://e.com/3</loc></urx>",  # malformed: mismatched end tag
    )
    entries, diagnostics = read_sitemap(prefix + body)
    # the <url> the mismatched end tag breaks is kept with its complete <loc> (truncated-entry)
    assert [e.loc for e in entries] == ["http://e.com/1", "http://e.com/2?a&b", "http://e.com/3"]
    assert located(diagnostics, "leading-whitespace") == [1]
    # every later diagnostic and origin carries the line of the ORIGINAL input
    first = blank_lines + HEADER_LINES + 1
    assert [e.origin.line if e.origin else None for e in entries] == [first, first + 1, first + 2]
    assert located(diagnostics, "bare-ampersand") == [first + 1]
    assert located(diagnostics, "lastmod-invalid") == [first + 1]
    assert located(diagnostics, "xml-not-well-formed") == [first + 2]


def test_no_leading_whitespace_diagnostic_for_a_clean_document() -> None:
    entries, diagnostics = read_sitemap(urlset(url(b"http://e.com/")))
    assert [e.loc for e in entries] == ["http://e.com/"]
    assert diagnostics == []


def test_bom_alone_is_fine() -> None:
    entries, diagnostics = read_sitemap(b"\xef\xbb\xbf" + urlset(url(b"http://e.com/")))
    assert [e.loc for e in entries] == ["http://e.com/"]
    assert diagnostics == []


def test_utf16_input_is_read() -> None:
    text = HEADER.decode().replace("UTF-8", "UTF-16") + "<url><loc>http://e.com/\u00fc</loc></url>\n</urlset>\n"
    entries, diagnostics = read_sitemap(text.encode("utf-16"))
    assert [e.loc for e in entries] == ["http://e.com/\u00fc"]
    assert diagnostics == []


# ------------------------------------------------------------------------------------ chunk boundaries

# Each dense entry holds every construct the cleaner must not split: '&amp;', a bare '&', a character
# reference, a CDATA section with an '&' inside, and ']]>'.
_DENSE = b"<url><loc>http://e.com/%d?a&amp;b&c&#38;d<![CDATA[&e]]>&#x26;f</loc></url>\n"
_DENSE_LOC = "http://e.com/%d?a&b&c&d&e&f"
_FILLER = b"<url><loc>http://e.com/f%d/" + b"p" * 1900 + b"</loc></url>\n"
_BOUNDARY = 64 * 1024


def _boundary_document() -> tuple[bytes, list[str], list[int]]:
    """A sitemap > 200 KB (without shift): fillers, and around each multiple of 64 KiB a run of dense
    entries spanning [boundary - 1000, boundary + 400].  Returns (body after HEADER, locs, lines of the
    expected bare-ampersand diagnostics)."""
    parts: list[bytes] = []
    locs: list[str] = []
    bare_lines: list[int] = []
    pos = len(HEADER)
    line = HEADER_LINES + 1
    index = 0

    def add(chunk: bytes, loc: str, bare: bool) -> None:
        nonlocal pos, line, index
        parts.append(chunk)
        locs.append(loc)
        if bare:
            bare_lines.append(line)
        pos += len(chunk)
        line += 1
        index += 1

    for boundary in (_BOUNDARY, 2 * _BOUNDARY, 3 * _BOUNDARY):
        while pos + len(_FILLER % index) < boundary - 1000:
            filler = _FILLER % index
            add(filler, filler[10:-13].decode(), False)
        while pos < boundary + 400:
            add(_DENSE % index, _DENSE_LOC % index, True)
    while pos < 210_000:
        filler = _FILLER % index
        add(filler, filler[10:-13].decode(), False)
    return b"".join(parts), locs, bare_lines


def test_chunk_boundaries_never_split_a_repair() -> None:
    body, expected_locs, expected_bare = _boundary_document()
    assert len(HEADER) + len(body) > 200_000
    longest = max(len(_DENSE % i) for i in range(len(expected_locs)))
    # Spaces after the root's start tag shift the body one byte at a time: over a whole dense entry's
    # length every byte of it (so every split of every construct) crosses every 64 KiB boundary, and
    # the 64-byte hold-back point before it.
    for shift in range(longest + 1):
        entries, diagnostics = read_sitemap(HEADER + b" " * shift + body + FOOTER)
        assert [e.loc for e in entries] == expected_locs, f"shift {shift}"
        assert located(diagnostics, "bare-ampersand") == expected_bare, f"shift {shift}"
        assert codes(diagnostics) == ["bare-ampersand"] * len(expected_bare), f"shift {shift}"


def _clean(data: bytes, size: int) -> tuple[bytes, list[tuple[str, int]]]:
    reporter = Reporter()
    stream = CleaningStream(PeekableStream(io.BytesIO(data)), reporter=reporter, name="t")
    out = []
    while chunk := stream.read(size):
        out.append(chunk)
    return b"".join(out), [(d.code, d.line) for d in reporter.diagnostics]


def test_cleaning_does_not_depend_on_read_sizes() -> None:
    body, _, _ = _boundary_document()
    data = b"\n\n" + HEADER + body[:150_000] + b"\x01\n<!-- & -->" + FOOTER
    reference = _clean(data, 1 << 24)  # one read: the whole input is cleaned at once
    assert reference[0].startswith(HEADER)
    assert b"\x01" not in reference[0]
    assert (b"a&amp;b&amp;c&#38;d<![CDATA[&e]]>&#x26;f") in reference[0]
    for size in (1, 7, 100, 4096, 32768, 65536, 65537):
        assert _clean(data, size) == reference, f"read size {size}"


# ----------------------------------------------------------------------------------- truncated input


@pytest.mark.parametrize("cut", [b"<url><loc>http://e.com/4</lo", b"<url><loc>http://e", b"<ur", b"<url><loc>"])
def test_truncated_xml_keeps_the_entries_before_the_break(cut: bytes) -> None:
    data = HEADER + b"".join(url(b"http://e.com/%d" % i) + b"\n" for i in range(1, 4)) + cut
    entries, diagnostics = read_sitemap(data)
    assert [e.loc for e in entries] == ["http://e.com/1", "http://e.com/2", "http://e.com/3"]
    assert codes(diagnostics) == ["xml-not-well-formed"]


def test_truncated_large_xml_keeps_every_complete_entry() -> None:
    body = b"".join(url(b"http://e.com/page/%06d" % i) + b"\n" for i in range(5000))
    data = HEADER + body[: len(body) - 20]  # cut inside the last entry
    entries, diagnostics = read_sitemap(data)
    assert len(entries) == 4999
    assert entries[-1].loc == "http://e.com/page/004998"
    assert codes(diagnostics) == ["xml-not-well-formed"]


def test_mismatched_tag_stops_reading_with_its_line() -> None:
    """The <url> whose end tag is misspelled is kept with its complete <loc>, whether or not blanks follow
    the </loc> (it was dropped when none did); nothing after the break is read."""
    data = urlset(url(b"http://e.com/1"), b"<url><loc>http://e.com/2</loc></urx>", url(b"http://e.com/3"))
    entries, diagnostics = read_sitemap(data)
    assert [e.loc for e in entries] == ["http://e.com/1", "http://e.com/2"]
    assert located(diagnostics, "xml-not-well-formed") == [HEADER_LINES + 2]
    assert located(diagnostics, "truncated-entry") == [HEADER_LINES + 2]


# ------------------------------------------------------------------------------------------- safety


def _all_text(entries: list[Entry]) -> str:
    return "\n".join(e.loc + "".join(e.extras.values()) for e in entries)


def test_xxe_external_entity_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    data = (
        b'<?xml version="1.0"?>\n'
        b'<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file:///etc/passwd">'
        b'<!ENTITY leak SYSTEM "' + secret.as_uri().encode() + b'">]>\n'
        b'<urlset xmlns="' + NS.encode() + b'">\n'
        b"<url><loc>http://e.com/&xxe;</loc></url>\n"
        b"<url><loc>http://e.com/&leak;</loc><x:y xmlns:x='urn:x'>&leak;</x:y></url>\n"
        b"</urlset>\n"
    )
    entries, diagnostics = read_sitemap(data)
    text = _all_text(entries)
    assert "TOP-SECRET-CONTENT" not in text
    assert "root:" not in text
    assert entries == []  # a loc with an entity that is not expanded is no URL: both entries are skipped
    assert sorted(located(diagnostics, "unresolved-entity")) == [4, 4, 5, 5, 5]  # 3 references, 2 locs skipped


def test_xxe_external_parameter_entity_is_never_loaded(tmp_path: Path) -> None:
    evil = tmp_path / "evil.dtd"
    evil.write_text('<!ENTITY leak "TOP-SECRET-CONTENT">')
    data = (
        b'<?xml version="1.0"?>\n'
        b'<!DOCTYPE urlset [<!ENTITY % ext SYSTEM "' + evil.as_uri().encode() + b'"> %ext;]>\n'
        b'<urlset xmlns="' + NS.encode() + b'">\n'
        b"<url><loc>http://e.com/&leak;</loc></url>\n"
        b"</urlset>\n"
    )
    entries, _ = read_sitemap(data)
    assert "TOP-SECRET-CONTENT" not in _all_text(entries)


def test_billion_laughs_is_inert() -> None:
    entities = [b'<!ENTITY lol0 "lol">']
    for level in range(1, 10):
        entities.append(b'<!ENTITY lol%d "%s">' % (level, b"&lol%d;" % (level - 1) * 10))
    data = (
        b'<?xml version="1.0"?>\n<!DOCTYPE urlset [\n'
        + b"\n".join(entities)
        + b'\n]>\n<urlset xmlns="'
        + NS.encode()
        + b'">\n<url><loc>http://e.com/&lol9;</loc></url>\n</urlset>\n'
    )
    entries, diagnostics = read_sitemap(data)
    assert entries == []
    # said once for the DOCTYPE, once for the reference, once for the loc; nothing points into the DTD
    assert codes(diagnostics) == ["doctype-ignored", "unresolved-entity", "unresolved-entity"]
    assert [d.line for d in diagnostics] == [2, 15, 15]


class _Recorder:
    """A local TCP server that records every connection (and answers 404), so a fetch can be seen."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.05)
        self.port: int = self.server.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.server.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            with conn:
                conn.sendall(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n")

    def __enter__(self) -> _Recorder:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.server.close()


def _network_document(port: int) -> bytes:
    base = b"http://127.0.0.1:%d" % port
    return (
        b'<?xml version="1.0"?>\n'
        b'<!DOCTYPE urlset SYSTEM "' + base + b'/sitemap.dtd" [<!ENTITY remote SYSTEM "' + base + b'/e">]>\n'
        b'<urlset xmlns="' + NS.encode() + b'" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        b'xsi:schemaLocation="' + NS.encode() + b" " + base + b'/sitemap.xsd">\n'
        b"<url><loc>http://e.com/&remote;</loc></url>\n"
        b"<url><loc>http://e.com/2</loc></url>\n"
        b"</urlset>\n"
    )


def test_no_network_access_for_dtds_or_entities() -> None:
    with _Recorder() as recorder:
        entries, diagnostics = read_sitemap(_network_document(recorder.port))
    assert recorder.connections == 0
    assert [e.loc for e in entries] == ["http://e.com/2"]
    assert "xml-not-well-formed" not in codes(diagnostics)


def test_unreachable_external_dtd_is_no_error(refused_port: int) -> None:
    entries, diagnostics = read_sitemap(_network_document(refused_port))
    assert [e.loc for e in entries] == ["http://e.com/2"]
    assert all(d.level < feedmap.Level.ERROR for d in diagnostics)
    assert "xml-not-well-formed" not in codes(diagnostics)


# ------------------------------------------------------------------------------------------- writing


@pytest.mark.parametrize(
    ("value", "escaped"),
    [
        ("a&b", "a&amp;b"),
        ("<tag>", "&lt;tag&gt;"),
        ("say \"hi\" & 'bye'", "say &quot;hi&quot; &amp; &apos;bye&apos;"),
        ("&amp;", "&amp;amp;"),  # text is escaped as text, never interpreted
        ("a\x00b\x01c\x08d\x0be\x0cf\x1fg", "abcdefg"),
        ("x\ufffey\uffffz", "xyz"),
        ("lone \ud800 surrogate", "lone  surrogate"),
        ("<\x00&>", "&lt;&amp;&gt;"),
        ("cr\r crlf\r\n", "cr&#13; crlf&#13;\n"),  # raw, a CR reads back as LF (XML 1.0 §2.11)
    ],
)
def test_escape_text(value: str, escaped: str) -> None:
    assert escape_text(value) == escaped


@pytest.mark.parametrize("value", ["", "plain", "tab\tnewline\n", "\u00fcml\u00e4ut \U0001f600", "\x7f\x85"])
def test_escape_text_keeps_what_xml_allows(value: str) -> None:
    assert escape_text(value) is value


def test_escape_attribute_keeps_line_ends_and_tabs_as_references() -> None:
    assert escape_attribute("a\tb\nc\rd&\x01") == "a&#9;b&#10;c&#13;d&amp;"
    assert escape_attribute("plain") == "plain"


@pytest.mark.parametrize("value", ["a\x00b", "\ufffe", "x\ud800", "\x1f"])
def test_unwritable_names_what_escaping_drops(value: str) -> None:
    dropped = unwritable(value)
    assert dropped and escape_text(value) == "".join(char for char in value if char not in dropped)


def _round_trips() -> Iterator[str]:
    yield "a&b<c>d\"e'f"
    yield "line\r\nends\rand\ttabs\n"
    yield "\x00\x1f\ufffe forbidden dropped & kept"
    yield "]]> and <![CDATA[ are plain text"


@pytest.mark.parametrize("value", list(_round_trips()))
def test_escaped_text_parses_back(value: str) -> None:
    element = etree.fromstring(f'<a b="{escape_attribute(value)}">{escape_text(value)}</a>'.encode())
    expected = "".join(ch for ch in value if ch not in "\x00\x1f\ufffe")
    assert element.text == expected
    assert element.get("b") == expected


# ------------------------------------------------------------------------- character references, encodings


@pytest.mark.parametrize(
    "document",
    [
        b'<urlset xmlns="&#xD800;"><url><loc>http://e.com/</loc></url></urlset>',
        HEADER + b'<url><loc>http://e.com/</loc><x:y xmlns:x="&#xDFFF;">a</x:y></url>\n' + FOOTER,
        HEADER + b'<url><loc>http://e.com/</loc><x:y xmlns:x="urn:x" a="&#55296;">b&#xD800;</x:y></url>\n' + FOOTER,
        HEADER + b"<url><loc>http://e.com/&#1;</loc></url>\n" + FOOTER,
        HEADER + b"<url><loc>http://e.com/&#x110000;&#xFFFE;</loc></url>\n" + FOOTER,
    ],
)
def test_character_references_to_forbidden_characters_are_replaced(document: bytes) -> None:
    entries, diagnostics = read_sitemap(document)
    assert len(entries) == 1
    assert entries[0].loc.startswith("http://e.com/")
    assert "invalid-char-ref" in codes(diagnostics)
    assert "xml-not-well-formed" not in codes(diagnostics)
    assert "\ud800" not in _all_text(entries)


def test_forbidden_character_reference_in_a_loc_is_reported_with_its_line() -> None:
    entries, diagnostics = read_sitemap(urlset(url(b"http://e.com/a"), url(b"http://e.com/&#xD800;b")))
    assert [e.loc for e in entries] == ["http://e.com/a", "http://e.com/\ufffdb"]
    assert located(diagnostics, "invalid-char-ref") == [HEADER_LINES + 2]


def test_cli_prints_no_traceback_for_a_surrogate_namespace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from feedmap.cli import main

    source = tmp_path / "s.xml"
    source.write_bytes(b'<urlset xmlns="&#xD800;"/>')
    code = main(["convert", str(source), "-t", "text", "-o", str(tmp_path / "out.txt")])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "invalid-char-ref" in err
    assert code == 0


def test_invalid_utf8_is_replaced_and_later_entries_survive() -> None:
    entries, diagnostics = read_sitemap(
        urlset(
            url(b"http://e.com/a"), url(b"http://e.com/caf\xe9"), url(b"http://e.com/c\xff\xfe"), url(b"http://e.com/d")
        )
    )
    assert [e.loc for e in entries] == [
        "http://e.com/a",
        "http://e.com/caf\ufffd",
        "http://e.com/c\ufffd\ufffd",
        "http://e.com/d",
    ]
    assert located(diagnostics, "invalid-utf8") == [HEADER_LINES + 2, HEADER_LINES + 3, HEADER_LINES + 3]
    assert "xml-not-well-formed" not in codes(diagnostics)


class _Trickle:
    """A stream that hands out ``step`` bytes per read at most: every multi-byte character gets split."""

    def __init__(self, data: bytes, step: int) -> None:
        self._data = io.BytesIO(data)
        self._step = step

    def read(self, size: int = -1, /) -> bytes:
        return self._data.read(self._step if size < 0 else min(size, self._step))


@pytest.mark.parametrize("step", [1, 2, 3, 5])
def test_utf8_characters_split_between_reads_are_not_errors(step: int) -> None:
    # past the first 64 KiB (which the format sniffing peeks at once) the stream trickles
    data = urlset(*(url("http://e.com/\u00e9\u20ac\U0001f600/%d".encode() % i) for i in range(1700)))
    assert len(data) > 70_000
    data = data.replace(b"/1690<", b"/1690\xff<")  # and one real error, with its line
    reporter = Reporter()
    stream = CleaningStream(PeekableStream(_Trickle(data, step)), reporter=reporter, name="t")
    out = b"".join(iter(lambda: stream.read(7), b""))
    assert out == data.replace(b"\xff", "\ufffd".encode())
    assert [(d.code, d.line) for d in reporter.diagnostics] == [("invalid-utf8", HEADER_LINES + 1691)]


def test_utf8_repairs_do_not_depend_on_read_sizes() -> None:
    data = HEADER + b"".join(url(b"http://e.com/\xc3\xa9\xe9/%d" % i) + b"\n" for i in range(300)) + FOOTER
    reference = _clean(data, 1 << 24)
    assert reference[1][:2] == [("invalid-utf8", HEADER_LINES + 1), ("invalid-utf8", HEADER_LINES + 2)]
    for size in (1, 3, 100, 65536):
        assert _clean(data, size) == reference, f"read size {size}"


def test_a_declared_single_byte_encoding_is_not_checked_as_utf8() -> None:
    data = HEADER.replace(b"UTF-8", b"ISO-8859-1") + url(b"http://e.com/caf\xe9") + b"\n" + FOOTER
    entries, diagnostics = read_sitemap(data)
    assert [e.loc for e in entries] == ["http://e.com/caf\u00e9"]
    assert diagnostics == []


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("declared", [True, False])
def test_utf16_without_a_byte_order_mark_is_read(codec: str, declared: bool) -> None:
    text = urlset(url("http://e.com/\u00fc".encode()), url(b"http://e.com/2")).decode()
    if not declared:
        text = text.split("\n", 1)[1]
    entries, diagnostics = read_sitemap(text.encode(codec))
    assert [e.loc for e in entries] == ["http://e.com/\u00fc", "http://e.com/2"]
    assert codes(diagnostics) == ["missing-bom"]


def test_utf16_input_gets_the_same_repairs() -> None:
    text = HEADER.decode().replace("UTF-8", "UTF-16") + "<url><loc>http://e.com/?a&b</loc></url>\n</urlset>\n"
    entries, diagnostics = read_sitemap(text.encode("utf-16"))
    assert [e.loc for e in entries] == ["http://e.com/?a&b"]
    assert located(diagnostics, "bare-ampersand") == [HEADER_LINES + 1]


# -------------------------------------------------------------------------------------- long prologs


@pytest.mark.parametrize(
    "prolog",
    [
        b"<!--" + b"x" * 100_000 + b"-->\n",
        b"<!--" + b"line\n" * 30_000 + b"-->\n",
        b"<!DOCTYPE urlset [\n<!-- " + b"y" * 100_000 + b" -->\n]>\n",
        b"<?pi " + b"z" * 200_000 + b"?>\n",
    ],
)
@pytest.mark.parametrize("format", [None, "sitemap"])
def test_root_after_a_long_prolog_is_found(prolog: bytes, format: str | None) -> None:
    data = b'<?xml version="1.0" encoding="UTF-8"?>\n' + prolog + b'<urlset xmlns="' + NS.encode() + b'">\n'
    data += url(b"http://e.com/a") + b"\n" + FOOTER
    with feedmap.read(io.BytesIO(data), format=format) as doc:
        entries = list(doc.entries)
    assert [e.loc for e in entries] == ["http://e.com/a"]
    line = data.count(b"\n", 0, data.index(b"<url>")) + 1
    assert [e.origin.line for e in entries if e.origin] == [line]


# ------------------------------------------------------------------------------------------ the DTD


def test_doctype_entities_are_reported_once_and_never_written_into_a_url() -> None:
    data = (
        b'<?xml version="1.0"?>\n<!DOCTYPE urlset [\n<!ENTITY site "http://example.com">\n]>\n'
        b'<urlset xmlns="' + NS.encode() + b'" xmlns:x="urn:x">\n'
        b"<url><loc>&site;/page.html</loc></url>\n"
        b"<url><loc>http://e.com/&site;</loc></url>\n"
        b"<url><loc>http://e.com/ok?a&b</loc><x:note>by &site; here</x:note></url>\n"
        b"</urlset>\n"
    )
    entries, diagnostics = read_sitemap(data)
    assert [e.loc for e in entries] == ["http://e.com/ok?a&b"]
    assert entries[0].extras == {"{urn:x}note": '<x:note xmlns:x="urn:x">by  here</x:note>'}
    assert [(d.code, d.line) for d in diagnostics if d.code == "doctype-ignored"] == [("doctype-ignored", 2)]
    assert sorted(located(diagnostics, "unresolved-entity")) == [6, 6, 7, 7, 8]
    assert located(diagnostics, "bare-ampersand") == [8]  # the DTD itself is never "repaired"


def test_a_doctype_without_entities_is_a_note() -> None:
    data = b'<?xml version="1.0"?>\n<!DOCTYPE urlset SYSTEM "sitemap.dtd">\n' + HEADER.split(b"\n", 1)[1]
    entries, diagnostics = read_sitemap(data + url(b"http://e.com/") + b"\n" + FOOTER)
    assert [e.loc for e in entries] == ["http://e.com/"]
    assert [(d.code, d.level) for d in diagnostics] == [("doctype-ignored", feedmap.Level.INFO)]


# ------------------------------------------------------------------------------ many repairs, capped


@pytest.mark.parametrize(
    ("junk", "code", "loc"),
    [
        (b"\x01", "control-character", "http://e.com/"),
        (b"&", "bare-ampersand", "http://e.com/" + "&" * 1000),
        (b"\xff", "invalid-utf8", "http://e.com/" + "\ufffd" * 1000),
        (b"&#1;", "invalid-char-ref", "http://e.com/" + "\ufffd" * 1000),
    ],
)
def test_many_repairs_are_reported_up_to_the_cap_then_counted(junk: bytes, code: str, loc: str) -> None:
    from feedmap._xml import REPORT_CAP

    entries, diagnostics = read_sitemap(urlset(url(b"http://e.com/" + junk * 1000)))
    assert [e.loc for e in entries] == [loc]
    repairs = [d for d in diagnostics if d.code == code]
    assert len(repairs) == REPORT_CAP
    assert all(d.line == HEADER_LINES + 1 for d in repairs)
    summary = [d for d in diagnostics if d.code == "more-repairs"]
    assert len(summary) == 1
    assert f"{1000 - REPORT_CAP:,} more {code} repairs" in summary[0].message


def test_capped_repairs_spread_over_lines_and_chunks_keep_their_lines() -> None:
    lines = [url(b"http://e.com/%d\x01&" % i) for i in range(3000)]
    entries, diagnostics = read_sitemap(urlset(*lines))
    assert len(entries) == 3000
    assert located(diagnostics, "control-character")[:100] == [HEADER_LINES + 1 + i for i in range(100)]
    assert located(diagnostics, "bare-ampersand")[:100] == [HEADER_LINES + 1 + i for i in range(100)]
    assert [d.message.split()[:3] for d in diagnostics if d.code == "more-repairs"] == [
        ["2,900", "more", "control-character"],
        ["2,900", "more", "bare-ampersand"],
    ]


# ------------------------------------------------------------------------------- truncated entries


@pytest.mark.parametrize(
    ("tail", "kept"),
    [
        (b"<url><loc>http://e.com/b</loc>", ("http://e.com/b", None)),
        (b"<url><loc>http://e.com/b</loc>\n", ("http://e.com/b", None)),
        (b"<url><loc>http://e.com/b</loc><lastmod>2024-01-02</lastmod>", ("http://e.com/b", "2024-01-02")),
        (b"<url><loc>http://e.com/b</loc><lastmod>2024-01-02</lastmod> ", ("http://e.com/b", "2024-01-02")),
        (b"<url><loc>http://e.com/b</loc><lastmod>2024-01-02</lastmod><chan", ("http://e.com/b", "2024-01-02")),
        (
            b"<url><loc>http://e.com/b</loc><lastmod>2024-01-02</lastmod><changefreq>da",
            ("http://e.com/b", "2024-01-02"),
        ),
        (b"<url><loc>http://e.com/b</loc><lastmod>2024-01-0", ("http://e.com/b", None)),
    ],
)
def test_an_entry_cut_after_its_loc_is_kept(tail: bytes, kept: tuple[str, str | None]) -> None:
    entries, diagnostics = read_sitemap(HEADER + url(b"http://e.com/a") + b"\n" + tail)
    assert [(e.loc, e.lastmod.text if e.lastmod else None) for e in entries] == [("http://e.com/a", None), kept]
    assert codes(diagnostics) == ["xml-not-well-formed", "truncated-entry"]
    assert located(diagnostics, "truncated-entry") == [HEADER_LINES + 2]


@pytest.mark.parametrize("tail", [b"<url><loc>http://e.com/b", b"<url><loc>http://e.com/b</lo", b"<url>", b"<url><lo"])
def test_an_entry_cut_inside_its_loc_is_dropped(tail: bytes) -> None:
    entries, diagnostics = read_sitemap(HEADER + url(b"http://e.com/a") + b"\n" + tail)
    assert [e.loc for e in entries] == ["http://e.com/a"]
    assert codes(diagnostics) == ["xml-not-well-formed"]


def test_an_entity_reference_in_an_attribute_never_vanishes_from_a_url() -> None:
    # lxml would expand it to nothing, leaving href="/de" (a different URL) without a word
    data = (
        b'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY site "http://example.com">]>\n'
        b'<urlset xmlns="' + NS.encode() + b'" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
        b'<url><loc>http://e.com/a</loc><xhtml:link rel="alternate" hreflang="de" href="&site;/de"/></url>\n'
        b"</urlset>\n"
    )
    entries, diagnostics = read_sitemap(data)
    assert [a.href for a in entries[0].alternates] == ["%EF%BF%BD/de"]
    assert located(diagnostics, "unresolved-entity") == [4]


def test_long_entity_names_across_chunk_boundaries_stay_references() -> None:
    name = b"e" * 40
    body = b"".join(url(b"http://e.com/%d&" % i + name + b";") + b"\n" for i in range(3000))
    data = b'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY ' + name + b' "x">]>\n' + HEADER.split(b"\n", 1)[1]
    for size in (1000, 65536):
        out, found = _clean(data + body + FOOTER, size)
        assert out.count(b"&" + name + b";") == 3000, f"read size {size}"
        assert [code for code, _ in found].count("unresolved-entity") == 100  # capped (finish() adds the count)


def test_utf16_that_cannot_be_decoded_is_replaced_and_reported() -> None:
    text = HEADER.decode().replace("UTF-8", "UTF-16") + "<url><loc>http://e.com/X</loc></url>\n</urlset>\n"
    data = text.encode("utf-16-le").replace("X".encode("utf-16-le"), b"\x00\xd8")  # a lone surrogate
    entries, diagnostics = read_sitemap(data)
    assert [e.loc for e in entries] == ["http://e.com/\ufffd"]
    assert codes(diagnostics) == ["missing-bom", "encoding-error"]


@pytest.mark.parametrize(
    ("encoding", "bad", "loc"),
    [
        (b"windows-1252", b"\x81\xe9", "http://e.com/\ufffd\u00e9"),  # 0x81 is undefined in windows-1252
        (b"Shift_JIS", b"\x82\xa0\xff", "http://e.com/\u3042\ufffd"),
    ],
)
def test_bytes_a_declared_encoding_cannot_decode_are_replaced_and_later_entries_survive(
    encoding: bytes, bad: bytes, loc: str
) -> None:
    data = urlset(url(b"http://e.com/a"), url(b"http://e.com/" + bad), url(b"http://e.com/c"))
    entries, diagnostics = read_sitemap(data.replace(b"UTF-8", encoding))
    assert [e.loc for e in entries] == ["http://e.com/a", loc, "http://e.com/c"]
    assert [(d.code, d.line) for d in diagnostics] == [("encoding-error", HEADER_LINES + 2)]


@pytest.mark.parametrize("declared", [b"no-such-encoding", b"UTF-16"])
def test_an_encoding_that_cannot_be_used_is_read_as_utf8(declared: bytes) -> None:
    data = urlset(url("http://e.com/\u00e9".encode()), url(b"http://e.com/c")).replace(b"UTF-8", declared)
    entries, diagnostics = read_sitemap(data)
    assert [e.loc for e in entries] == ["http://e.com/\u00e9", "http://e.com/c"]
    assert [(d.code, d.line) for d in diagnostics] == [("unknown-encoding", 1)]


@pytest.mark.parametrize("declared", [b"utf-7", b"idna", b"punycode", b"unicode_escape", b"undefined", b"replacement"])
def test_python_codecs_that_are_no_document_encoding_are_read_as_utf8(declared: bytes) -> None:
    # utf-7 would turn "+ADw-" into "<"; idna and punycode cannot even decode with an error handler
    data = urlset(url(b"http://e.com/+ADw-x"), url(b"http://e.com/c")).replace(b"UTF-8", declared)
    entries, diagnostics = read_sitemap(data)
    assert [e.loc for e in entries] == ["http://e.com/+ADw-x", "http://e.com/c"]
    assert [(d.code, d.line) for d in diagnostics] == [("unknown-encoding", 1)]


def test_blanks_before_the_declaration_longer_than_the_first_window_are_removed() -> None:
    data = b"\n" * 70_000 + urlset(url(b"http://e.com/"))
    with feedmap.read(io.BytesIO(data), format="sitemap") as doc:
        entries = list(doc.entries)
    assert [e.loc for e in entries] == ["http://e.com/"]
    assert [(d.code, d.line) for d in doc.diagnostics] == [("leading-whitespace", 1)]
    assert [e.origin.line for e in entries if e.origin] == [70_000 + HEADER_LINES + 1]


def test_cli_shows_how_many_repairs_were_not_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from feedmap.cli import main

    source = tmp_path / "s.xml"
    source.write_bytes(urlset(url(b"http://e.com/" + b"\x01" * 1000)))
    assert main(["convert", str(source), "-t", "text", "-o", str(tmp_path / "out.txt")]) == 0
    err = capsys.readouterr().err
    assert "warning[more-repairs]: 900 more control-character repairs" in err


# ------------------------------------------------------------------- undeclared prefixes and the break


UNDECLARED = b'<url><loc>http://e.com/a</loc><xhtml:link rel="alternate" hreflang="de" href="http://e.com/de"/></url>'


def test_an_undeclared_prefix_is_not_reported_as_the_point_where_the_xml_breaks_off() -> None:
    """lxml reads on past an undeclared prefix (a namespace error is not fatal) and raises at the end: every
    entry was read, so the warning must not say that the document broke off there."""
    entries, diagnostics = read_sitemap(urlset(UNDECLARED, url(b"http://e.com/b"), url(b"http://e.com/c")))
    assert [e.loc for e in entries] == ["http://e.com/a", "http://e.com/b", "http://e.com/c"]
    (warning,) = [d for d in diagnostics if d.code == "xml-not-well-formed"]
    assert "Namespace prefix xhtml" in warning.message and "breaks off" not in warning.message
    assert warning.line == HEADER_LINES + 1


def test_a_break_after_an_undeclared_prefix_is_reported_where_it_is() -> None:
    """The first error in lxml's message was the namespace one: the truncation two lines later was never named,
    and the entry cut after its loc was judged by the wrong message."""
    data = HEADER + UNDECLARED + b"\n" + url(b"http://e.com/b") + b"\n<url><loc>http://e.com/c</loc><lastmod>2024"
    entries, diagnostics = read_sitemap(data)
    assert [e.loc for e in entries] == ["http://e.com/a", "http://e.com/b", "http://e.com/c"]
    breaks = [d for d in diagnostics if d.code == "xml-not-well-formed"]
    assert [d.line for d in breaks] == [HEADER_LINES + 1, HEADER_LINES + 3]
    assert "breaks off" in breaks[1].message and "Namespace" not in breaks[1].message
    assert located(diagnostics, "truncated-entry") == [HEADER_LINES + 3]
