"""URL checks and IRI-to-URI encoding for sitemap ``<loc>`` values.

sitemaps.org 0.9: a ``loc`` is an absolute URL with its scheme, "less than 2,048 characters", and must be
URL-escaped as RFC 3986 asks; the protocol's example turns ``http://www.example.com/ümlat.html&q=name``
into ``http://www.example.com/%C3%BCmlat.html&amp;q=name`` (the ``&amp;`` is the XML entity escaping the
writer adds).  :func:`encode_url` does the RFC 3987 §3.1 mapping: a non-ASCII host through
:func:`encode_host` (UTS #46 non-transitional processing, https://www.unicode.org/reports/tr46/, as the
WHATWG URL Standard's "domain to ASCII" and browsers do: ``faß.de`` is ``xn--fa-hia.de``, never IDNA 2003's
``fass.de``; a host it refuses is kept as read and said so), every other non-ASCII or unsafe character, in
the userinfo, host and port too, as UTF-8 percent-escapes (a tab or line break as ``%09``/``%0A``: RFC 3986
holds no blank, and nothing is deleted), existing ``%XX`` escapes and reserved characters kept.

The scope of a sitemap (sitemaps.org "Sitemap file location": its site, and the URLs under its directory)
is :func:`scope_check`, comparing paths in their RFC 3986 §6.2.2 normal form (:func:`normalised_path`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from urllib.parse import quote, urlsplit

__all__ = [
    "MAX_LOC_LENGTH",
    "URI_AS_WRITTEN",
    "all_uris",
    "check_loc",
    "encode_host",
    "encode_url",
    "encode_url_checked",
    "has_scheme",
    "in_scope",
    "is_absolute_url",
    "is_http_url",
    "is_uri",
    "normalised_escapes",
    "normalised_path",
    "not_in_iris",
    "origin",
    "plain_uri",
    "plain_web_uri",
    "same_site",
    "scope_check",
]

MAX_LOC_LENGTH = 2048
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#]+")
_SPACE = re.compile(r"\s")  # the same characters as str.isspace(), found in C rather than per character
# RFC 3986 pchar (unreserved, sub-delims, ':' '@') plus '/' and '%' so that existing escapes survive;
# queries and fragments also allow '?'.
_PATH_SAFE = "!$&'()*+,;=:@/%-._~"
_QUERY_SAFE = _PATH_SAFE + "?"
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def is_absolute_url(value: str) -> bool:
    """True for ``scheme://host...`` (the only form a sitemap ``loc`` may take)."""
    return _ABSOLUTE.match(value) is not None


# An absolute URL without white space or characters no URI holds, and with a well-formed authority (no stray
# '[', ']' or '@', a port of at most four digits: five may be out of range): what
# nearly every loc is (one regex call on the hot path).  Anything else is looked at by urlsplit.
_SCHEME = r"[A-Za-z][A-Za-z0-9+.-]*://"
_HOST_PORT_REST = (
    r"(?:\[[0-9A-Fa-f:.]+\]|[^\s/?#\[\]@:<>\"{}|\\^`]+)(?::[0-9]{0,4})?"
    r"(?:[/?#][^\s<>\"{}|\\^`]*)?"
)
_PLAIN_LOC = re.compile(_SCHEME + r"(?:[^\s/?#\[\]@]*@)?" + _HOST_PORT_REST)
# The same without the userinfo, for a loc holding no '@' (the optional userinfo cannot match there, and
# trying it scans the host twice: a quarter of the check's time).
_PLAIN_LOC_NO_USERINFO = re.compile(_SCHEME + _HOST_PORT_REST)
#: Printable ASCII that RFC 3986 §2 allows nowhere in a URI (RFC 3986 Appendix C: "excluded" delimiters).
_NOT_IN_URIS = re.compile(r"[<>\"{}|\\^`]")


def check_loc(loc: str) -> tuple[str, str] | None:
    """What is wrong with a ``loc`` as the protocol defines it, as ``(code, message)``, or None when nothing is.

    The one check of a URL that reading and ``feedmap validate`` share: ``loc-not-absolute`` (no scheme and
    host, or an authority that does not parse: a bad IPv6 literal or port), ``loc-too-long`` (2,048
    characters or more), ``loc-not-escaped`` (white space, or characters RFC 3986 §2 allows nowhere).
    Validate adds its stricter rules (http(s) only, every character escaped, the XSD's minimum length).
    """
    if len(loc) < MAX_LOC_LENGTH and (_PLAIN_LOC if "@" in loc else _PLAIN_LOC_NO_USERINFO).fullmatch(loc) is not None:
        return None
    if not is_absolute_url(loc):
        return "loc-not-absolute", f"{loc!r} is not an absolute URL with a scheme and host"
    if len(loc) >= MAX_LOC_LENGTH:
        return "loc-too-long", f"URL is {len(loc):,} characters long; the protocol allows fewer than {MAX_LOC_LENGTH:,}"
    blanks = _SPACE.findall(loc)
    if blanks:
        escapes = " ".join(f"{char!r} as {quote(char)}" for char in dict.fromkeys(blanks))
        return "loc-not-escaped", (
            f"{loc!r} contains white space; XML outputs write {escapes} unless told to keep URLs as read"
        )
    bad = _NOT_IN_URIS.findall(loc)
    if bad:
        shown = " ".join(dict.fromkeys(bad))
        return "loc-not-escaped", (
            f"{loc!r} contains {shown}, which a URI cannot hold; XML outputs encode them unless told to keep URLs"
        )
    try:
        urlsplit(loc).port  # noqa: B018 - parses the authority: a bad IPv6 literal or port raises
    except ValueError as exc:
        return "loc-not-absolute", f"{loc!r} is not a valid URL ({exc})"
    return None


#: A URI of RFC 3986 §2 characters, with at most one ``#`` and neither ``%`` nor what XML text escapes
#: (``&``, ``'``): nearly every URL written.  :func:`is_uri` holds for it, so no output mode changes it
#: (:func:`feedmap.formats._output.output_url` returns it as it is, with no diagnostic, whether URLs are encoded
#: or kept), and :func:`feedmap._xml.escape_text` returns it unchanged: one regex call says all.
_PLAIN_URI = re.compile(r"[A-Za-z0-9\-._~:/?@!$()*+,;=]*(?:#[A-Za-z0-9\-._~:/?@!$()*+,;=]*)?")
plain_uri = _PLAIN_URI.fullmatch


#: A URI as written, as a regex: only RFC 3986 §2 characters, no ``%`` (so no escape to check), at most one ``#``:
#: :func:`is_uri` holds for it, and it is ASCII with no blank or line break (``&`` and ``'`` are in: a text
#: sitemap, a line of its own, does not escape them).
URI_AS_WRITTEN = r"[A-Za-z0-9\-._~:/?@!$&'()*+,;=]*(?:#[A-Za-z0-9\-._~:/?@!$&'()*+,;=]*)?"

#: A web URL (``http://`` or ``https://``, as :func:`feedmap._core.entry_checks.check_web_urls` first looks) that
#: is a URI as written (:data:`URI_AS_WRITTEN`): the line of a text sitemap as it is, with nothing to report.
plain_web_uri = re.compile(f"https?://{URI_AS_WRITTEN}").fullmatch

#: The characters of :data:`URI_AS_WRITTEN` but ``#``, as bytes: what :func:`all_uris` deletes.
_URI_BYTES = b"!$&'()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~"


def all_uris(locs: Sequence[str], joined: str) -> bool:
    """True when :func:`is_uri` holds for each of ``locs`` (``joined``: the locs joined by LF), in a few calls:
    the URI characters deleted from the bytes, only the line feeds between locs may be left, and the ``#`` and
    ``%`` that only the locs holding them, looked at one by one, say are right.  Five times faster than a regex
    a loc, and a batch with a percent-encoded path (common) is known the same way."""
    if not locs:
        return True
    if not joined.isascii():
        return False  # a URI is ASCII
    rest = joined.encode("ascii").translate(None, _URI_BYTES)
    if rest.translate(None, b"#%\n") or rest.count(b"\n") != len(locs) - 1:
        return False  # a character no URI holds, or a loc with a line break
    if len(rest) == len(locs) - 1:
        return True  # neither '#' nor '%'
    return all(map(is_uri, [loc for loc in locs if "%" in loc or "#" in loc]))


# RFC 3986 §2: unreserved, reserved and pct-encoded characters, nothing else; '[' and ']' (legal only around
# an IP literal host) and a second '#' are left to encode_url, which knows where they stand.
_URI_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]*")


def is_uri(url: str) -> bool:
    """True when ``url`` holds only characters a URI may hold (RFC 3986 §2), every ``%`` starting an
    escape, and at most one ``#``: :func:`encode_url` would leave it as it is."""
    if _URI_CHARACTERS.fullmatch(url) is None or url.count("#") > 1:
        return False
    return "%" not in url or _LONE_PERCENT.search(url) is None


_BLANK_OR_EXCLUDED = re.compile(r"[ \t\n\r<>\"{}|\\^`]")


def not_in_iris(url: str) -> str:
    """The blanks and RFC 3986 "excluded" characters in ``url`` (no URI or IRI holds them), shown; "" if none."""
    found = _BLANK_OR_EXCLUDED.findall(url)
    return " ".join(repr(char) for char in dict.fromkeys(found))


def encode_host(host: str) -> str:
    """A host name as a URI holds it: an ASCII host as it is, any other through UTS #46 non-transitional
    processing as the WHATWG URL Standard's "domain to ASCII" runs it and browsers do (``☃.net`` is
    ``xn--n3h.net``): mapped (``ß``, final sigma and joiners kept), each non-ASCII label checked by the
    UTS #46 validity criteria (NFC, no leading combining mark, CheckJoiners, CheckBidi; CheckHyphens and
    UseSTD3ASCIIRules off: not IDNA 2008's stricter code point table, which refuses symbols and emoji that
    browsers and DNS registries take) and written as its ``xn--`` A-label.

    Raises UnicodeError (``idna.IDNAError`` is one) for a host that has no such form (a code point UTS #46
    disallows, a joiner out of its context, a label of more than 63 octets).  ASCII labels are left as
    mapped, underscores and all.
    """
    if host.isascii():
        return host
    import idna  # non-ASCII hosts only: the common run never loads its tables

    mapped = idna.uts46_remap(host, std3_rules=False, transitional=False)  # raises for a disallowed code point
    return ".".join(_a_label(label) for label in mapped.split("."))


def _a_label(label: str) -> str:
    """One label of a mapped host as UTS #46 §4.1 ToASCII writes it (CheckJoiners, CheckBidi on)."""
    if label.isascii():
        return label
    import idna

    idna.check_nfc(label)
    idna.check_initial_combiner(label)
    for position, char in enumerate(label):
        if char in "\u200c\u200d" and not idna.valid_contextj(label, position):
            raise idna.IDNAError(f"joiner U+{ord(char):04X} at position {position + 1} of {label!r} is out of context")
    idna.check_bidi(label)
    written = "xn--" + label.encode("punycode").decode("ascii")
    if len(written) > 63:
        raise idna.IDNAError(f"label {label!r} is {len(written)} octets long as an A-label; DNS allows 63")
    return written


# RFC 3986 Appendix B, the scheme as §3.1 defines it: splits any string (every group may be empty or
# absent), keeping an empty query or fragment and every character (urlsplit lowercases the scheme, drops
# an empty '?' or '#', and deletes tabs, line breaks and leading blanks: silent changes).
_URI_PARTS = re.compile(r"(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?", re.DOTALL)
# RFC 3986 §3.2.1 userinfo and §3.2.2 reg-name: unreserved, sub-delims (':' in the userinfo), pct-encoded.
_USERINFO_SAFE = "!$&'()*+,;=:%-._~"
_REG_NAME_SAFE = "!$&'()*+,;=%-._~"
_IP_LITERAL_SAFE = "[]:.%"
#: What no URI or IRI holds (blanks, controls, RFC 3986 "excluded"): escaped even in a host kept as read.
_NOT_IN_IRIS = re.compile(r"[\x00-\x20\x7f<>\"{}|\\^`\[\]]")


_LONE_SURROGATE = re.compile(r"([\ud800-\udfff])")


def _quote(text: str, safe: str) -> str:
    """:func:`urllib.parse.quote`, but for a lone surrogate (no UTF-8 holds one: only a ``str`` built in
    Python has it), left as it is for the writer's check of what XML and UTF-8 cannot hold to drop and
    report (``character-dropped``), as it does in every other field."""
    try:
        return quote(text, safe=safe)
    except UnicodeEncodeError:
        parts = _LONE_SURROGATE.split(text)  # the surrogates at the odd places
        return "".join(part if number % 2 else quote(part, safe=safe) for number, part in enumerate(parts))


def _escape_not_in_iris(text: str) -> str:
    return _NOT_IN_IRIS.sub(lambda match: quote(match.group()), text)


def _encode_authority(authority: str) -> tuple[str, str | None]:
    """The authority with each part encoded; the second item says why a non-ASCII host was kept as read."""
    userinfo, at, hostport = authority.rpartition("@")
    problem = None
    if hostport.startswith("[") and "]" in hostport:  # an IP literal (RFC 3986 §3.2.2), then ':port'
        end = hostport.index("]") + 1
        host, port = _quote(hostport[:end], _IP_LITERAL_SAFE), hostport[end:]
    else:
        host, colon, port = hostport.partition(":")
        port = colon + port
        try:
            host = _quote(encode_host(host), _REG_NAME_SAFE)
        except UnicodeError as exc:
            problem = f"host {host!r} has no IDNA form (UTS #46: {exc}); kept as read"
            host = _escape_not_in_iris(host)
    return _quote(userinfo, _USERINFO_SAFE) + at + host + _quote(port, ":"), problem


def encode_url_checked(url: str) -> tuple[str, str | None]:
    """:func:`encode_url`, and why the URL's host was kept as read (it has no IDNA form), or None."""
    url = _LONE_PERCENT.sub("%25", url)
    match = _URI_PARTS.fullmatch(url)
    assert match is not None  # every group is optional: any string matches
    scheme, authority, path, query, fragment = match.groups()
    parts = [scheme, ":"] if scheme is not None else []
    problem = None
    if authority is not None:
        authority, problem = _encode_authority(authority)
        parts += ["//", authority]
    parts.append(_quote(path, _PATH_SAFE))
    if query is not None:
        parts += ["?", _quote(query, _QUERY_SAFE)]
    if fragment is not None:
        parts += ["#", _quote(fragment, _QUERY_SAFE)]
    return "".join(parts), problem


def encode_url(url: str) -> str:
    """Turn an IRI into a URI: IDNA host (:func:`encode_host`), UTF-8 percent-encoding, existing escapes and
    reserved characters kept.

    Characters RFC 3986 does not allow where they stand (non-ASCII, blanks, tabs and line breaks, controls,
    ``"<>\\^`{|}``, ``[``/``]`` outside an IP-literal host, a second ``#``), in the userinfo, host, port, path,
    query or fragment, are percent-encoded; a ``%`` that does not start an escape becomes ``%25``; nothing is
    deleted, the scheme's case and an empty query or fragment are kept.  A host with no IDNA form is kept as
    read (:func:`encode_url_checked` says why), but for what no IRI holds.  Applying it twice changes nothing
    more.
    """
    return encode_url_checked(url)[0]


def is_http_url(text: str) -> bool:
    """True for an ``http://`` or ``https://`` URL (the scheme in any case): a web URL."""
    return text.startswith(("https://", "http://")) or text[:8].lower().startswith(("http://", "https://"))


_SCHEME_ONLY = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def has_scheme(text: str) -> bool:
    """True when ``text`` starts with a URI scheme and its ':' (RFC 3986 §3.1): ``data:``, ``mailto:``..."""
    return _SCHEME_ONLY.match(text) is not None


def origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a URL, the port made explicit and the host as written (an IDN as its
    A-labels); the site a URL belongs to.

    Raises ValueError for a URL whose authority cannot be parsed (``http://[::1/x``).
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = _site_host((parts.hostname or "").rstrip("."))
    port = parts.port  # None when absent or empty (RFC 3986 6.2.3); 0 is a port, not "no port"
    return scheme, host, port if port is not None else (443 if scheme == "https" else 80)


def _site_host(host: str) -> str:
    """The host as written (:func:`encode_host`), so that ``faß.de`` and ``xn--fa-hia.de``, one host to a
    browser, are one site; a host with no IDNA form is compared as read."""
    if host.isascii():
        return host
    try:
        return encode_host(host)
    except UnicodeError:
        return host


def same_site(url: str, base: str) -> bool:
    """True when ``url`` has the scheme, host and port of ``base`` (sitemaps.org "Sitemap file location").

    A URL that cannot be parsed is on no site.
    """
    try:
        return origin(url) == origin(base)
    except ValueError:
        return False


# ------------------------------------------------------------------------------------------------ scope

_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")  # RFC 3986 §2.3
#: What in a path tail makes its text differ from its normal form: an escape, a backslash, a dot segment.
_NOT_PLAIN_TAIL = re.compile(r"[%\\]|(?:^|/)\.")


def _percent_case(match: re.Match[str]) -> str:
    char = chr(int(match[0][1:], 16))
    return char if char in _UNRESERVED else match[0].upper()


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4 on an absolute path: ``/a/./b/../c`` -> ``/a/c``."""
    out: list[str] = []
    segments = path.split("/")
    last = len(segments) - 1
    for number, segment in enumerate(segments):
        if segment in (".", ".."):
            if segment == ".." and len(out) > 1:
                out.pop()
            if number == last:
                out.append("")
        else:
            out.append(segment)
    return "/".join(out) if out != [""] else "/"


def normalised_escapes(text: str) -> str:
    """RFC 3986 §6.2.2.1-2: escapes of unreserved characters decoded (``%7E`` is ``~``), the others upper-cased."""
    return _PERCENT_ESCAPE.sub(_percent_case, text) if "%" in text else text


def normalised_path(path: str) -> str:
    """A URL path in its RFC 3986 §6.2.2 normal form: :func:`normalised_escapes` (``%2e`` is ``.``), then dot
    segments removed (§5.2.4); an empty path is ``/``."""
    return _remove_dot_segments(normalised_escapes(path) or "/")


def _scope_path(path: str) -> str:
    # WHATWG URL: in http(s) URLs a backslash is a path separator, as browsers and servers read it
    return normalised_path(path.replace("\\", "/"))


def scope_check(base: str, *, directory: bool = True) -> Callable[[str], bool]:
    """Whether a URL is in the scope of a sitemap at ``base`` (sitemaps.org "Sitemap file location"): on
    its scheme, host and port (:func:`same_site`) and, with ``directory``, under its directory.

    Paths are compared in their normal form (:func:`normalised_path`, a backslash read as ``/`` as the
    WHATWG URL standard does for http(s)), so ``/maps/../secret/x`` and ``/maps/%2e%2e/secret/x`` are not
    under ``/maps/``.  A URL that cannot be parsed is in no scope.
    """
    try:
        parts = urlsplit(base)
    except ValueError:
        return lambda url: False
    folder = _scope_path(parts.path).rpartition("/")[0] + "/"
    written = parts.path.rpartition("/")[0] + "/"
    prefix = f"{parts.scheme}://{parts.netloc}{written}"  # the base's directory as written: the fast test

    def check(url: str) -> bool:
        if not directory:
            return same_site(url, base)
        if url.startswith(prefix):
            tail = url[len(prefix) :].partition("#")[0].partition("?")[0]
            if _NOT_PLAIN_TAIL.search(tail) is None:
                return True
        if not same_site(url, base):
            return False
        try:
            path = urlsplit(url).path
        except ValueError:
            return False
        return _scope_path(path).startswith(folder)

    return check


def in_scope(url: str, base: str, *, directory: bool = True) -> bool:
    """Whether ``url`` is in the scope of a sitemap at ``base`` (see :func:`scope_check`)."""
    return scope_check(base, directory=directory)(url)
