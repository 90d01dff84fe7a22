"""The rules an option value obeys, checked where the value is made (the CLI's parser, ``Options``, ``HttpSettings``).

One job: say what is wrong with a number or a header text before it reaches the code that uses it, so that
``--timeout nan`` or ``HttpSettings(host_delay=float("inf"))`` is refused at once, naming the option, rather
than failing deep inside (``OverflowError`` from ``time.sleep``) or silently meaning something else (a NaN
deadline compares false with everything, which disabled it).

* Numbers are finite, of the right kind (an ``int`` where a count is meant; ``bool`` is no number here), and
  within a range; seconds are at most :data:`MAX_SECONDS` (a day), well inside what a socket timeout and
  ``time.sleep`` accept.
* URLs given on the command line (``--base-url``, ``--link``, ``--self-url``) are absolute http(s) URLs
  with a host and a port that parses (RFC 3986 §4.3, RFC 9110 §4.2), without blanks or control characters.
* Text written into XML (``--title``, ``--description``) holds only XML 1.0 characters (§2.2 ``Char``).
* Header text (``User-Agent``) is an RFC 9110 §5.5 field value: visible ASCII characters with spaces or tabs
  between them (https://www.rfc-editor.org/rfc/rfc9110#section-5.5).  RFC 9110 keeps obs-text (bytes 0x80
  to 0xFF) only for old senders, and httpx encodes header text as ASCII, so nothing beyond ASCII is sent.

The functions return the problem as text (None when the value is right); :func:`check_number` and
:func:`check_header_text` raise :class:`ValueError` with the option's name, as ``Options`` does.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from urllib.parse import urlsplit

__all__ = [
    "MAX_SECONDS",
    "MAX_SIZE",
    "check_header_text",
    "check_number",
    "header_text_problem",
    "number_problem",
    "parse_size",
    "web_url_problem",
    "xml_text_problem",
]

#: The longest wait any option may ask for, in seconds (a day): timeouts, deadlines, delays.
MAX_SECONDS = 86_400.0
#: The largest size in bytes any option may give (1 PiB): far beyond any input, and a number that prints.
MAX_SIZE = 1 << 50


_SIZE = re.compile(r"(?ai)\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*")
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def parse_size(text: str) -> int:
    """A size in bytes from its text: ``100M``, ``1.5GiB``, ``500000`` (binary units: K is 1024 bytes);
    ValueError saying what is wrong (no size, not positive, more than :data:`MAX_SIZE`).

    The one parser of sizes: the CLI's ``--max-bytes`` and ``Options(max_bytes="200M")`` alike."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a size; write bytes, or a number with K, M or G")
    # exact decimal arithmetic: float() of a long number is inf, which no int holds
    value = int(Decimal(match.group(1)) * _UNITS[match.group(2).lower()])
    if value <= 0:
        raise ValueError("the size must be positive")
    if value > MAX_SIZE:
        raise ValueError(f"{text!r} is too large: give at most {MAX_SIZE // _UNITS['t']:,}T")
    return value


def number_problem(
    value: object, *, minimum: float, maximum: float | None = None, integer: bool = False, above: bool = False
) -> str | None:
    """What is wrong with ``value`` as a number from ``minimum`` (excluded when ``above``) to ``maximum``, an
    ``int`` when ``integer``; None when it is right."""
    kind = "whole number" if integer else "number"
    if isinstance(value, bool) or not isinstance(value, (int, float) if not integer else int):
        return f"give a {kind}, not {_shown(value)}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"give a finite {kind}, not {value!r}"
    low = f"more than {minimum:g}" if above else f"at least {minimum:g}"
    if value < minimum or (above and value == minimum):
        high = f" and at most {maximum:,g}" if maximum is not None else ""
        return f"{_shown(value)} is too small: give {low}{high}"
    if maximum is not None and value > maximum:
        return f"{_shown(value)} is too large: give at most {maximum:,g}"
    return None


def _shown(value: object) -> str:
    """``value`` for a message: a whole number of more than 20 digits by its length (``repr`` refuses one of
    more than 4,300 digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of some {int(value.bit_length() * 0.30103) + 1:,} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_number(
    name: str,
    value: object,
    *,
    minimum: float,
    maximum: float | None = None,
    integer: bool = False,
    above: bool = False,
) -> None:
    """:class:`ValueError` naming ``name`` when :func:`number_problem` finds something wrong with ``value``."""
    problem = number_problem(value, minimum=minimum, maximum=maximum, integer=integer, above=above)
    if problem is not None:
        raise ValueError(f"{name}: {problem}")


def header_text_problem(text: object) -> str | None:
    """What keeps ``text`` from being sent as an HTTP header value (RFC 9110 §5.5), or None."""
    if not isinstance(text, str):
        return f"give text, not {text!r}"
    if not text.strip(" \t"):
        return "give some text (it is empty)"
    for char in text:
        if not (" " <= char <= "~" or char == "\t"):
            return (
                f"{char!r} (U+{ord(char):04X}) cannot be sent in an HTTP header: "
                "use visible ASCII characters and spaces (RFC 9110 §5.5)"
            )
    return None


def check_header_text(name: str, text: object) -> None:
    """:class:`ValueError` naming ``name`` when ``text`` cannot be sent as a header value."""
    problem = header_text_problem(text)
    if problem is not None:
        raise ValueError(f"{name}: {problem}")


#: Characters XML 1.0 cannot hold (§2.2 ``Char``: not the C0 controls but tab, LF, CR; no surrogates, FFFE, FFFF).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_BLANK_OR_CONTROL = re.compile("[\x00-\x20\x7f-\x9f]")


def web_url_problem(text: object) -> str | None:
    """What keeps ``text`` from being an absolute http(s) URL with a host (and a port that parses), or None."""
    if not isinstance(text, str):
        return f"give a URL, not {text!r}"
    example = "give an absolute http(s) URL such as https://www.example.com/"
    if _BLANK_OR_CONTROL.search(text) or _NOT_XML.search(text):
        return f"{text!r} is not an absolute http(s) URL (it holds a blank or a control character): {example}"
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (a port out of range or not a number is a ValueError)
    except ValueError as exc:
        return f"{text!r} is not an absolute http(s) URL ({exc}): {example}"
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return f"{text!r} is not an absolute http(s) URL: {example}"
    return None


def xml_text_problem(text: str) -> str | None:
    """What keeps ``text`` from being written into XML 1.0 as it is, or None."""
    found = _NOT_XML.search(text)
    if found is None:
        return None
    return f"U+{ord(found[0]):04X} cannot be written in XML 1.0: leave out control characters"
