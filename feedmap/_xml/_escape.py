"""Escaping text and attribute values for XML output.

XML 1.0 (https://www.w3.org/TR/xml/) §2.4, §2.11, §3.3.3: :func:`escape_text` escapes ``& < > " '`` and CR,
:func:`escape_attribute` also LF and tab; both drop the characters XML cannot hold (§2.2 ``Char``), which
:func:`unwritable` names for the writers' diagnostics.
"""

from __future__ import annotations

import re

__all__ = ["escape_attribute", "escape_text", "unwritable"]

#: XML 1.0 §2.2 ``Char``: what a document can hold at all (C0 controls but tab, LF and CR; U+FFFE, U+FFFF;
#: surrogates, which no UTF-8 text can carry either).
_INVALID_XML_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
#: Text: ``& < >`` and both quotes; CR as ``&#13;`` (a raw CR reads back as LF, XML 1.0 §2.11).
_TEXT_ESCAPES = {
    ord("&"): "&amp;",
    ord("<"): "&lt;",
    ord(">"): "&gt;",
    ord('"'): "&quot;",
    ord("'"): "&apos;",
    ord("\r"): "&#13;",
}
#: Attributes also keep LF and tab as references (raw, attribute-value normalization reads them as spaces, §3.3.3).
_ATTRIBUTE_ESCAPES = {**_TEXT_ESCAPES, ord("\n"): "&#10;", ord("\t"): "&#9;"}
_NEEDS_ESCAPE = re.compile("[&<>\"'\r\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_NEEDS_ATTRIBUTE_ESCAPE = re.compile("[&<>\"'\r\n\t\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def escape_text(value: str) -> str:
    """Escape a string for XML text; drop characters XML 1.0 forbids (:func:`unwritable` finds them).

    The common case, nothing to escape, is one regex search and returns ``value`` itself, so a writer can
    tell by identity (``escape_text(v) is not v``) that it should look for dropped characters.
    """
    if _NEEDS_ESCAPE.search(value) is None:
        return value
    if _INVALID_XML_CHARS.search(value) is not None:
        value = _INVALID_XML_CHARS.sub("", value)
    return _replaced(value, _TEXT_ESCAPES)


def escape_attribute(value: str) -> str:
    """Escape a string for a double-quoted attribute: as :func:`escape_text`, and LF, tab as references."""
    if _NEEDS_ATTRIBUTE_ESCAPE.search(value) is None:
        return value
    if _INVALID_XML_CHARS.search(value) is not None:
        value = _INVALID_XML_CHARS.sub("", value)
    return _replaced(value, _ATTRIBUTE_ESCAPES)


def _replaced(value: str, escapes: dict[int, str]) -> str:
    """``value.translate(escapes)``, by one ``str.replace`` per character present (``&`` first, so that no
    reference made is escaped again): translate looks each character up in a dict, some 30 times slower
    on a URL holding a ``&`` (a query string)."""
    for code, reference in escapes.items():
        char = chr(code)
        if char in value:
            value = value.replace(char, reference)
    return value


def unwritable(value: str) -> list[str]:
    """The characters of ``value`` that no XML 1.0 document can hold (what :func:`escape_text` drops)."""
    return _INVALID_XML_CHARS.findall(value)
