"""What the command line prints of values read from inputs: nothing a terminal would act on.

Unicode character categories (https://www.unicode.org/reports/tr44/, ``Cc`` controls and ``Cf`` format
characters such as the bidirectional overrides of https://www.unicode.org/reports/tr9/) decide what is
escaped: a hostile input's ESC sequences or U+202E must not drive the terminal or reorder the line.
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = ["printable", "unshowable"]


@functools.cache
def unshowable() -> re.Pattern[str]:
    """Characters a terminal acts on or that reorder a line: C0 and C1 controls, DEL, and the invisible format
    characters (bidirectional overrides, zero-width characters: Unicode category Cf).  Built at first use
    (a scan of every code point, 0.1 s) so that commands printing none do not pay for it."""
    formats = "".join(chr(code) for code in range(0xA0, 0x110000) if unicodedata.category(chr(code)) == "Cf")
    return re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{formats}]")


def printable(text: str) -> str:
    """``text`` with what :func:`unshowable` matches written as a Python escape (``\\x1b``, ``\\u202e``), for a
    line printed to a terminal: a value read from a hostile input cannot drive the terminal or reorder the line."""
    if text.isascii() and text.isprintable():
        return text
    return unshowable().sub(lambda found: repr(found.group())[1:-1], text)
