"""What a page says about itself: its ``<title>``, ``<meta name="description">`` and ``<meta name="keywords">``.

Where the rules come from (WHATWG HTML Living Standard):

* **Character encoding**, §13.2.3.2 "Determining the character encoding": a byte order mark wins (BOM
  sniffing, as in the Encoding Standard's *decode*); then the transport layer (the ``charset`` of the HTTP
  ``Content-Type``); then "prescan a byte stream to determine its encoding" over the first 1024 bytes
  (``<meta charset>`` or ``<meta http-equiv="Content-Type" content="...; charset=...">``, comments and
  other tags skipped, "get an attribute" and "extracting character encodings from meta elements" step by
  step; a ``utf-16`` declaration there means UTF-8, ``x-user-defined`` windows-1252), and "get an XML
  encoding" for a page that starts with ``<?xml ... encoding=...?>``; then the default, chosen as the spec
  lets a user agent guess: UTF-8 when the bytes decode as UTF-8, else windows-1252.
* **Labels**, WHATWG Encoding Standard §4.2 "Names and labels" ("get an encoding"), through
  ``webencodings`` (the table html5lib uses, with the "replacement" and "x-user-defined" decoders Python
  lacks): ``iso-8859-1``, ``latin1`` and ``ascii`` are windows-1252, ``shift_jis`` is windows-31J, ...  A
  name that is no label of the Standard is ignored and the next step decides, even when Python has a codec
  of that name (``utf-7``, ``unicode_escape``, ``idna``, ``punycode``, ``undefined``): those would crash
  the decoding or turn inert bytes into markup (UTF-7 spells ``<`` as ``+ADw-``).
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

import re
from dataclasses import dataclass

import webencodings
from lxml import etree

__all__ = ["PageMeta", "decode_page", "encoding_for_label", "page_meta", "prescan", "sniff_encoding"]

#: How many bytes the prescan looks at (§13.2.3.2 step 5: "the first 1024 bytes").
PRESCAN_BYTES = 1024

_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xfe\xff", "utf-16be"), (b"\xff\xfe", "utf-16le"))
_UTF16 = frozenset({"utf-16le", "utf-16be"})
_SPACE = " \t\n\f\r"
_ASCII_SPACE = re.compile(r"[ \t\n\f\r]+")


def encoding_for_label(label: str) -> str | None:
    """The Encoding Standard's "get an encoding": the encoding's name for a label, or None if it is no label.

    Only the Standard's labels count (``webencodings`` holds its table): Python codecs that are no web
    encoding (``utf-7``, ``unicode_escape``, ``idna``, ``punycode``, ``undefined``, ``rot13``) are unknown.
    """
    encoding = webencodings.lookup(label) if label.isascii() else None  # every label is ASCII
    return encoding.name if encoding is not None else None


def _declared(label: str) -> str | None:
    """The encoding a ``<meta>`` or XML declaration names: a UTF-16 one means UTF-8 and x-user-defined means
    windows-1252 (§13.2.3.2, prescan steps for ``charset``); None for an unknown label."""
    encoding = encoding_for_label(label)
    if encoding in _UTF16:
        return "utf-8"
    return "windows-1252" if encoding == "x-user-defined" else encoding


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
    return _declared(charset), pos


_XML_ENCODING = re.compile(rb"""<\?xml[^>]*?encoding[ \t\n\f\r]*=[ \t\n\f\r]*(["'])([^"'>]*)\1""")


def xml_encoding(data: bytes) -> str | None:
    """ "Get an XML encoding": the ``encoding`` of a leading ``<?xml ...?>`` declaration, or None."""
    if not data.startswith(b"<?xml"):
        return None
    match = _XML_ENCODING.match(data, 0, PRESCAN_BYTES)
    if match is None:
        return None
    return _declared(match.group(2).decode("latin-1"))


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


def sniff_encoding(data: bytes, http_charset: str | None = None) -> str:
    """The name of the encoding a page is in (§13.2.3.2: BOM, transport, prescan, then a guess)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    transport = encoding_for_label(http_charset) if http_charset else None
    if transport is not None:
        return transport
    declared = prescan(data)
    if declared is not None:
        return declared
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "windows-1252"
    return "utf-8"


def decode_page(data: bytes, http_charset: str | None = None) -> tuple[str, str]:
    """The page's text and the name of the encoding it was decoded with (bytes that do not decode become
    U+FFFD; the "replacement" encoding, for labels like ``iso-2022-kr``, decodes everything to U+FFFD)."""
    text, encoding = webencodings.decode(data, sniff_encoding(data, http_charset))  # also drops the BOM
    return text, encoding.name


# ------------------------------------------------------------------------------------------------ parsing


@dataclass(frozen=True, slots=True)
class PageMeta:
    """What a page says about itself; None or ``()`` for what it does not say."""

    title: str | None = None
    description: str | None = None
    keywords: tuple[str, ...] = ()
    #: The name of the encoding the page was decoded with (the Encoding Standard's, lower case).
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
