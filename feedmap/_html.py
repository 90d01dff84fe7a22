"""What a page says about itself: its ``<title>``, ``<meta name="description">`` and ``<meta name="keywords">``.

Where the rules come from (WHATWG HTML Living Standard):

* **Character encoding**, §13.2.3.2 "Determining the character encoding": a byte order mark wins (BOM
  sniffing, as in the Encoding Standard's *decode*); then the transport layer (the ``charset`` of the HTTP
  ``Content-Type``); then "prescan a byte stream to determine its encoding" over the first 1024 bytes
  (``<meta charset>`` or ``<meta http-equiv="Content-Type" content="...; charset=...">``, comments and
  other tags skipped, "get an attribute" and "extracting character encodings from meta elements" step by
  step; a ``utf-16`` declaration there means UTF-8), and "get an XML encoding" for a page that starts
  with ``<?xml ... encoding=...?>``; then the default, chosen as the spec lets a user agent guess: UTF-8
  when the bytes decode as UTF-8, else windows-1252.  Labels are resolved as the Encoding Standard's
  table does for the common cases (``iso-8859-1``, ``latin1`` and ``ascii`` are windows-1252,
  ``shift_jis`` is windows-31J, ...); an unknown label is ignored and the next step decides.
* **Title**, §4.2.2 "The title element" and the ``document.title`` getter: the first ``title`` element (not one
  inside ``<svg>`` or ``<math>``), its text with ASCII whitespace stripped and collapsed.
* **Description and keywords**, §4.2.5.1 "Standard metadata names": ``name`` is matched ASCII
  case-insensitively; the description is the first ``content`` (whitespace collapsed, as for the title);
  the keywords are the ``content`` of every ``keywords`` element split on commas, each token stripped,
  empty ones and duplicates removed.

HTML character references (``&eacute;``, ``&#8217;``) are decoded by the parser.  Parsing is lxml's
(libxml2's) HTML parser with ``no_network``: nothing is fetched, no DTD or entity is loaded; the bytes
are decoded here and handed over as UTF-8, so the parser never guesses the encoding on its own.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from lxml import etree

__all__ = ["PageMeta", "decode_page", "encoding_for_label", "page_meta", "prescan", "sniff_encoding"]

#: How many bytes the prescan looks at (§13.2.3.2 step 5: "the first 1024 bytes").
PRESCAN_BYTES = 1024

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
)

# Encoding Standard labels whose meaning differs from Python's codec of the same name (or that Python lacks).
_LABEL_GROUPS = {
    "cp1252": "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 iso88591 "
    "iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252 x-user-defined",
    "cp1254": "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 l5 latin5 "
    "windows-1254 x-cp1254",
    "cp874": "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874",
    "gbk": "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk",
    "cp932": "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
    "cp949": "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 "
    "windows-949",
    "big5hkscs": "big5 big5-hkscs cn-big5 csbig5 x-x-big5",
    "utf-8": "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8",
    "utf-16-le": "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le",
    "utf-16-be": "unicodefffe utf-16be",
}
_LABELS = {label: codec for codec, labels in _LABEL_GROUPS.items() for label in labels.split()}
_UTF16 = frozenset({"utf-16-le", "utf-16-be"})
_SPACE = " \t\n\f\r"
_ASCII_SPACE = re.compile(r"[ \t\n\f\r]+")


def encoding_for_label(label: str) -> str | None:
    """The Python codec for an encoding label (Encoding Standard "get an encoding"), or None if unknown."""
    key = label.strip(_SPACE).lower()
    if not key:
        return None
    known = _LABELS.get(key)
    if known is not None:
        return known
    try:
        b"x".decode(key)  # a LookupError also for codecs that are no text encoding (rot13, base64)
    except LookupError:
        return None
    except ValueError:
        pass  # a text encoding that cannot decode b"x" (utf-16, utf-32): still one
    return codecs.lookup(key).name


# ------------------------------------------------------------------------------------------------ prescan


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _SPACE:
        pos += 1
    return pos


def _get_attribute(text: str, pos: int) -> tuple[str, str, int] | None:
    """§13.2.3.3 "get an attribute": (name, value, position after it), or None at the end of the tag."""
    while pos < len(text) and (text[pos] in _SPACE or text[pos] == "/"):
        pos += 1
    if pos >= len(text) or text[pos] == ">":
        return None
    name: list[str] = []
    while pos < len(text):
        char = text[pos]
        if char == "=" and name:
            pos += 1
            break
        if char in _SPACE:
            pos = _skip_space(text, pos)
            if pos >= len(text) or text[pos] != "=":
                return "".join(name), "", pos
            pos += 1
            break
        if char in "/>":
            return "".join(name), "", pos
        name.append(char.lower())
        pos += 1
    pos = _skip_space(text, pos)
    if pos >= len(text):
        return "".join(name), "", pos
    quote = text[pos]
    if quote in "\"'":
        end = text.find(quote, pos + 1)
        if end < 0:
            return "".join(name), text[pos + 1 :].lower(), len(text)
        return "".join(name), text[pos + 1 : end].lower(), end + 1
    if quote == ">":
        return "".join(name), "", pos
    start = pos
    while pos < len(text) and text[pos] not in _SPACE and text[pos] != ">":
        pos += 1
    return "".join(name), text[start:pos].lower(), pos


def charset_from_content(content: str) -> str | None:
    """§2.6.2 "algorithm for extracting a character encoding from a meta element" (a ``content`` value)."""
    lowered = content.lower()
    pos = 0
    while True:
        found = lowered.find("charset", pos)
        if found < 0:
            return None
        pos = _skip_space(lowered, found + len("charset"))
        if pos < len(lowered) and lowered[pos] == "=":
            break
    pos = _skip_space(lowered, pos + 1)
    if pos >= len(lowered):
        return None
    quote = lowered[pos]
    if quote in "\"'":
        end = lowered.find(quote, pos + 1)
        return lowered[pos + 1 : end] if end > pos + 1 else None
    end = pos
    while end < len(lowered) and lowered[end] not in _SPACE and lowered[end] != ";":
        end += 1
    return lowered[pos:end] or None


def _meta_encoding(text: str, pos: int) -> tuple[str | None, int]:
    """The encoding a ``<meta`` tag at ``pos`` declares (or None) and the position after the tag."""
    seen: set[str] = set()
    got_pragma = False
    need_pragma: bool | None = None
    charset: str | None = None
    while True:
        attribute = _get_attribute(text, pos)
        if attribute is None:
            break
        name, value, pos = attribute
        if name in seen:
            continue
        seen.add(name)
        if name == "http-equiv" and value == "content-type":
            got_pragma = True
        elif name == "content" and charset is None:
            extracted = charset_from_content(value)
            if extracted is not None:
                charset, need_pragma = extracted, True
        elif name == "charset":
            charset, need_pragma = value, False
    if need_pragma is None or (need_pragma and not got_pragma) or charset is None:
        return None, pos
    encoding = encoding_for_label(charset)
    if encoding in _UTF16:
        encoding = "utf-8"
    return encoding, pos


_XML_ENCODING = re.compile(rb"""<\?xml[^>]*?encoding[ \t\n\f\r]*=[ \t\n\f\r]*(["'])([^"'>]*)\1""")


def xml_encoding(data: bytes) -> str | None:
    """ "Get an XML encoding": the ``encoding`` of a leading ``<?xml ...?>`` declaration, or None."""
    if not data.startswith(b"<?xml"):
        return None
    match = _XML_ENCODING.match(data, 0, PRESCAN_BYTES)
    if match is None:
        return None
    encoding = encoding_for_label(match.group(2).decode("latin-1"))
    return "utf-8" if encoding in _UTF16 else encoding


def prescan(data: bytes) -> str | None:
    """The encoding a ``<meta>`` (or a leading XML declaration) in the first 1024 bytes declares, or None."""
    return _prescan_meta(data) or xml_encoding(data)


def _prescan_meta(data: bytes) -> str | None:
    """ "Prescan a byte stream to determine its encoding" (§13.2.3.2), its ``<meta>`` part."""
    text = data[:PRESCAN_BYTES].decode("latin-1")  # one character per byte; only ASCII matters here
    pos = 0
    size = len(text)
    while pos < size:
        if text.startswith("<!--", pos):
            end = text.find("-->", pos + 2)
            if end < 0:
                return None
            pos = end + 3
            continue
        if text[pos] != "<":
            pos += 1
            continue
        after = text[pos + 1 : pos + 2]
        if text[pos + 1 : pos + 5].lower() == "meta" and text[pos + 5 : pos + 6] in (*_SPACE, "/"):
            encoding, pos = _meta_encoding(text, pos + 6)
            if encoding is not None:
                return encoding
            continue
        if after.isascii() and (after.isalpha() or (after == "/" and text[pos + 2 : pos + 3].isalpha())):
            pos += 2
            while pos < size and text[pos] not in _SPACE and text[pos] != ">":
                pos += 1
            while (attribute := _get_attribute(text, pos)) is not None:
                pos = attribute[2]
            pos += 1
            continue
        if after in ("!", "/", "?"):
            end = text.find(">", pos + 1)
            if end < 0:
                return None
            pos = end + 1
            continue
        pos += 1
    return None


# ------------------------------------------------------------------------------------------------ decoding


def sniff_encoding(data: bytes, http_charset: str | None = None) -> tuple[str, int]:
    """The encoding of a page and the length of its byte order mark (0 when there is none)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding, len(bom)
    if http_charset:
        transport = encoding_for_label(http_charset)
        if transport is not None:
            return transport, 0
    declared = prescan(data)
    if declared is not None:
        return declared, 0
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "cp1252", 0
    return "utf-8", 0


def decode_page(data: bytes, http_charset: str | None = None) -> tuple[str, str]:
    """The page's text and the encoding it was decoded with (bytes that do not decode become U+FFFD)."""
    encoding, skip = sniff_encoding(data, http_charset)
    return data[skip:].decode(encoding, errors="replace"), encoding


# ------------------------------------------------------------------------------------------------ parsing


@dataclass(frozen=True, slots=True)
class PageMeta:
    """What a page says about itself; None or ``()`` for what it does not say."""

    title: str | None = None
    description: str | None = None
    keywords: tuple[str, ...] = ()
    #: The Python codec the page was decoded with.
    encoding: str = "utf-8"


def collapse(text: str) -> str:
    """Strip and collapse ASCII whitespace (the ``document.title`` rule)."""
    return _ASCII_SPACE.sub(" ", text).strip(_SPACE)


def _str(value: str | bytes) -> str:
    return value if isinstance(value, str) else value.decode("utf-8", "replace")


class _Collector:
    """An lxml parser target: keeps the first title's text and the ``meta`` names and contents, nothing else."""

    def __init__(self) -> None:
        self.title: list[str] | None = None
        self.in_title = False
        self.foreign = 0  # depth inside <svg> or <math>, whose <title> is not the document's
        self.description: str | None = None
        self.keywords: list[str] = []

    def start(self, tag: str | bytes, attrib: dict[str | bytes, str | bytes]) -> None:
        if tag in ("svg", "math"):
            self.foreign += 1
        elif tag == "title" and self.title is None and not self.foreign:
            self.title = []
            self.in_title = True
        elif tag == "meta":
            name = _str(attrib.get("name", "")).strip(_SPACE).lower()
            found = attrib.get("content")
            if found is None:
                return
            content = _str(found)
            if name == "description" and self.description is None:
                self.description = content
            elif name == "keywords":
                self.keywords.append(content)

    def end(self, tag: str | bytes) -> None:
        if tag in ("svg", "math") and self.foreign:
            self.foreign -= 1
        elif tag == "title":
            self.in_title = False

    def data(self, data: str | bytes) -> None:
        if self.in_title and self.title is not None:
            self.title.append(_str(data))

    def comment(self, text: str | bytes) -> None:
        pass

    def close(self) -> _Collector:
        return self


def page_meta(data: bytes, http_charset: str | None = None) -> PageMeta:
    """Title, description and keywords of an HTML page given as bytes (and its HTTP charset, if any)."""
    text, encoding = decode_page(data, http_charset)
    collector = _Collector()
    if text.strip():
        parser = etree.HTMLParser(target=collector, encoding="utf-8", no_network=True, remove_comments=True)
        try:
            parser.feed(text.encode("utf-8", errors="replace"))
            parser.close()
        except etree.LxmlError:
            pass  # recover mode gives up only on hopeless input: keep what was collected
    title = collapse("".join(collector.title)) if collector.title is not None else ""
    description = collapse(collector.description) if collector.description is not None else ""
    keywords: dict[str, None] = {}
    for content in collector.keywords:
        for token in content.split(","):
            token = collapse(token)
            if token:
                keywords.setdefault(token, None)
    return PageMeta(title or None, description or None, tuple(keywords), encoding)
