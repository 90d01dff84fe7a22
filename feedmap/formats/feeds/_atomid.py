"""An Atom ``id`` from a URL: the normal form RFC 4287 §4.2.6 asks ``atom:id`` values to be written in.

Spec: RFC 4287 §4.2.6.1 ("the following normalization strategy SHOULD be applied when generating atom:id
elements"), which is RFC 3986 §6.2.2 (syntax-based) and §6.2.3 (scheme-based) normalization: the scheme and
the host in lower case, the default port left out, percent-encoding only where it is essential and in upper
case (``%7E`` is ``~``, ``%c3`` is ``%C3``), no dot-segments in the path, ``/`` for an empty path of a URL with a
host; characters in NFC, non-ASCII ones percent-encoded in UTF-8.  The W3C Feed Validator compares each id with
this form (``NonCanonicalURI``).  Only ids are normalised: a link keeps the URL as written.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote, unquote_to_bytes

__all__ = ["atom_id"]

#: RFC 3986 appendix B: scheme, authority, path, query, fragment.
_PARTS = re.compile(r"(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?", re.DOTALL)
_SUB_DELIMS = "!$&'()*+,;="
#: What a path segment holds as it is (RFC 3986 §3.3 ``pchar``: unreserved, sub-delims, ``:`` and ``@``).
_PCHAR = "-._~" + _SUB_DELIMS + ":@"
#: Reserved characters (RFC 3986 §2.2): percent-encoded, they mean something else than written; they stay so.
_RESERVED = frozenset(":/?#[]@" + _SUB_DELIMS)
_OCTET = re.compile(r"%[0-9A-Fa-f]{2}|[^%]|%")
_DEFAULT_PORTS = {"http": "80", "https": "443", "ftp": "21"}


def atom_id(url: str) -> str:
    """``url`` in the normal form of an ``atom:id`` (RFC 4287 §4.2.6.1); a URL without scheme as it is."""
    match = _PARTS.fullmatch(url)
    if match is None or match[1] is None:
        return url
    scheme, authority, path, query, fragment = match.groups()
    scheme = scheme.lower()
    parts = [scheme, ":"]
    if authority is not None:
        parts += ["//", _authority(authority, _DEFAULT_PORTS.get(scheme))]
        path = path or "/"
    parts.append("/".join(_component(segment, _PCHAR) for segment in _without_dots(path).split("/")))
    if query is not None:
        parts += ["?", _component(query, _PCHAR + "/?")]
    if fragment is not None:
        parts += ["#", _component(fragment, _PCHAR + "/?")]
    return "".join(parts)


def _authority(authority: str, default_port: str | None) -> str:
    """The user information as written, the host in lower case without a trailing dot, the port unless the
    scheme's default (or empty)."""
    userinfo, at, host = authority.rpartition("@")
    port = ""
    if ":" in host and not host.endswith("]"):
        host, _, port = host.rpartition(":")
    host = host.lower()
    if host.endswith(".") and "." in host[:-2]:
        host = host[:-1]
    if port and port != default_port:
        host = f"{host}:{port}"
    return f"{userinfo}{at}{host}" if userinfo else host


def _without_dots(path: str) -> str:
    """The path without ``.`` and ``..`` segments (RFC 3986 §5.2.4, ``remove_dot_segments``)."""
    if "." not in path:
        return path
    output: list[str] = []
    segments = path.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == ".":
            if last:
                output.append("")
        elif segment == "..":
            if len(output) > 1 or (output and output[0]):
                output.pop()
            if last:
                output.append("")
        else:
            output.append(segment)
    return "/".join(output)


def _component(text: str, safe: str) -> str:
    """``text`` with only the essential percent-encoding, in upper case: an encoded unreserved character
    decoded, an encoded reserved one kept encoded (it means something else written plain), the rest encoded
    from its UTF-8 bytes (NFC first)."""
    if "%" not in text and text.isascii() and all(char.isalnum() or char in safe for char in text):
        return text  # the common case: nothing to change
    out: list[str] = []
    pending = bytearray()
    for octet in _OCTET.findall(text):
        if len(octet) == 3:
            value = int(octet[1:], 16)
            if chr(value) in _RESERVED and chr(value) in safe:
                out.append(_encoded(pending, safe))
                pending.clear()
                out.append(octet.upper())
                continue
            pending += unquote_to_bytes(octet)
        else:
            pending += octet.encode("utf-8", "surrogatepass")
    out.append(_encoded(pending, safe))
    return "".join(out)


def _encoded(octets: bytearray, safe: str) -> str:
    """UTF-8 ``octets`` as NFC text percent-encoded but for ``safe`` and the unreserved characters."""
    if not octets:
        return ""
    text = bytes(octets).decode("utf-8", "surrogateescape")
    return quote(unicodedata.normalize("NFC", text), safe=safe, errors="surrogateescape")
