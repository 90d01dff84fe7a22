"""What the command line prints of values read from inputs: nothing a terminal would act on.

Unicode character categories (https://www.unicode.org/reports/tr44/, ``Cc`` controls and ``Cf`` format
characters such as the bidirectional overrides of https://www.unicode.org/reports/tr9/) decide what is
escaped: a hostile input's ESC sequences, a CR that rewrites the line, or U+202E must not drive the terminal
or reorder the line.  Every command prints outside text (source names, URLs, messages quoting an input)
through one of these helpers: :func:`printable` for messages (Python escapes), :func:`shown_url` for a URL
printed to be used (percent-encoded, RFC 3986 §2.1: the same URI), :func:`json_text` for JSON (``\\u``
escapes, RFC 8259 §7: the same string once parsed).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from typing import Any

__all__ = ["json_text", "printable", "printable_lines", "shown_url", "unshowable"]


@functools.cache
def unshowable() -> re.Pattern[str]:
    """Characters a terminal acts on or that reorder a line: C0 and C1 controls, DEL, and the invisible format
    characters (bidirectional overrides, zero-width characters: Unicode category Cf).  Built at first use
    (a scan of every code point, 0.1 s) so that commands printing none do not pay for it."""
    formats = "".join(chr(code) for code in range(0xA0, 0x110000) if unicodedata.category(chr(code)) == "Cf")
    return re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{formats}]")


def _plain(text: str) -> bool:
    return text.isascii() and text.isprintable()


def printable(text: str) -> str:
    """``text`` with what :func:`unshowable` matches written as a Python escape (``\\x1b``, ``\\u202e``), for a
    line printed to a terminal: a value read from a hostile input cannot drive the terminal or reorder the line."""
    if _plain(text):
        return text
    return unshowable().sub(lambda found: repr(found.group())[1:-1], text)


def printable_lines(text: str) -> str:
    """:func:`printable` for text of several lines of our own (a usage message): its line breaks kept."""
    return "\n".join(printable(line) for line in text.split("\n"))


def shown_url(url: str) -> str:
    """``url`` with what :func:`unshowable` matches percent-encoded (RFC 3986 §2.1, its UTF-8 bytes), as a URI
    would write it; other characters, readable non-ASCII included, as read."""
    if _plain(url):
        return url
    return unshowable().sub(lambda found: "".join(f"%{byte:02X}" for byte in found.group().encode("utf-8")), url)


def _json_escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # RFC 8259 §7: a character outside the BMP as its UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


_LINE_BREAKS = re.compile("[\u2028\u2029]")


def json_text(value: Any) -> str:
    """``value`` as one line of JSON, UTF-8 readable, with the characters :func:`unshowable` matches and the
    Unicode line breaks (U+2028, U+2029) written as ``\\u`` escapes: parsed, it is the same value."""
    text = json.dumps(value, ensure_ascii=False)
    if _plain(text):
        return text
    return _LINE_BREAKS.sub(_json_escape, unshowable().sub(_json_escape, text))
