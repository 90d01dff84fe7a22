"""HTML in written feeds: item descriptions sanitized, titles and the channel description as plain text.

Spec: RSS 2.0 (https://www.rssboard.org/rss-specification) says an item ``description`` may hold
entity-encoded HTML, and the RSS Best Practices Profile (https://www.rssboard.org/rss-profile) keeps
``title`` and the channel ``description`` plain text; the W3C Feed Validator checks both (``NotHtml``: an
element HTML does not define in a description, ``ContainsHTML``: an HTML end tag in plain text).

* A description holding an element or attribute outside an allow-list is written as the HTML the ammonia
  sanitizer (the ``nh3`` binding) makes of it: paragraphs, links, images, emphasis, lists, tables ... stay,
  everything else is removed (MathML, SVG, ``<script>``, unknown elements, event handler attributes) and
  reported (``html-sanitized``).  A description with nothing to remove is written as it is (the text read
  back is the text written), even where the sanitizer would spell it differently (``&`` as ``&amp;``),
  but for an ``&`` before a letter, a digit or ``#`` that starts no character reference (``Paws&Toebeans``):
  the same text in HTML (the HTML standard's "named character reference state"), yet a parse error to a
  strict HTML parser (the validator's ``NotHtml``), so it is written ``&amp;``.
* A title (or channel description) holding an HTML end tag (``</b>``) is written as its text content
  (``markup-in-text``), read with :mod:`lxml.html`.
"""

from __future__ import annotations

import html.entities
import re
from collections.abc import Iterator

import lxml.html
import nh3
from lxml import etree
from lxml.html import defs

from feedmap._core.context import Context
from feedmap._xml import unwritable
from feedmap.formats._xmlwrite import report_unwritable

__all__ = ["description_html", "plain_text"]

#: ammonia's allow-list, plus the attributes ordinary feed HTML carries that are harmless.
_GENERIC = {"class", "id", "title", "lang", "dir"}
_ATTRIBUTES: dict[str, set[str]] = {tag: set(names) for tag, names in nh3.ALLOWED_ATTRIBUTES.items()}
_ATTRIBUTES["*"] = _ATTRIBUTES.get("*", set()) | _GENERIC
_ATTRIBUTES["a"] = _ATTRIBUTES.get("a", set()) | {"title", "name", "target"}
_ATTRIBUTES["img"] = _ATTRIBUTES.get("img", set()) | {"title"}

_TAGS = frozenset(nh3.ALLOWED_TAGS)
_SCHEMES = frozenset(nh3.ALLOWED_URL_SCHEMES)
_URL_ATTRIBUTES = frozenset({"href", "src", "cite"})
#: A URL's scheme (RFC 3986 §3.1), blanks before it ignored as browsers do.
_SCHEME = re.compile(r"\s*([A-Za-z][A-Za-z0-9+.-]*):")

#: An end tag of an HTML element (the validator's test for markup in plain text).
_END_TAG = re.compile(r"</(\w+)>")
_HTML_TAGS = frozenset(defs.tags)
#: Below the depth at which lxml's HTML parser stops nesting (255 elements) and drops what is deeper unreported.
_MAX_DEPTH = 250
_TOO_DEEP = f"what is nested over {_MAX_DEPTH} levels deep (unchecked: sanitized)"


def _disallowed(fragment: str) -> list[str]:
    """What the sanitizer will remove from an HTML fragment, as lxml's HTML parser reads it: elements and
    attributes outside the allow-list (``<mathml>``, ``p@onclick``), URLs of other schemes (``a@href=javascript:``)."""
    try:
        root = lxml.html.fragment_fromstring(fragment, create_parent="div")
    except (etree.LxmlError, ValueError):
        return []
    found: set[str] = {_TOO_DEEP} if _too_deep(root) else set()
    for element in root.iterdescendants():
        if not isinstance(element.tag, str):
            continue  # a comment or processing instruction: the sanitizer drops it, as it is no content
        tag = element.tag.rpartition("}")[2].lower()
        if tag not in _TAGS:
            found.add(f"<{tag}>")
            continue
        found.update(_attributes(tag, element))
    return sorted(found)


def _too_deep(root: lxml.html.HtmlElement) -> bool:
    """Whether the tree reaches the depth past which lxml's HTML parser (libxml2) silently drops elements: what
    it dropped went unchecked, so such a fragment is sanitized rather than trusted."""
    depth = 0
    for event, _element in etree.iterwalk(root, events=("start", "end")):
        depth += 1 if event == "start" else -1
        if depth >= _MAX_DEPTH:
            return True
    return False


def _attributes(tag: str, element: lxml.html.HtmlElement) -> Iterator[str]:
    for name, value in element.attrib.items():
        name = name.lower()
        if name not in _ATTRIBUTES["*"] and name not in _ATTRIBUTES.get(tag, ()):
            yield f"{tag}@{name}"
        elif name in _URL_ATTRIBUTES:
            scheme = _SCHEME.match(value)
            if scheme is not None and scheme[1].lower() not in _SCHEMES:
                yield f"{tag}@{name}={scheme[1]}:"


def _writable(value: str, what: str, loc: str, ctx: Context) -> str:
    """``value`` without the characters XML cannot hold (reported as the XML writers report them), before
    it is parsed: the parsers cannot take a lone surrogate, and would drop a control character unreported."""
    lost = unwritable(value)
    if not lost:
        return value
    report_unwritable(value, what, loc, ctx)
    dropped = set(lost)  # once: a set built per character made a description of control characters quadratic
    return "".join(char for char in value if char not in dropped)


#: An ``&`` before what could start a character reference (a letter, a digit, ``#``), and what follows it.
_AMPERSAND = re.compile(r"&(?=[A-Za-z0-9#])([A-Za-z0-9]{1,32};?|#[xX][0-9A-Fa-f]|#[0-9]|)")
#: The names of HTML's named character references, with and without their ``;`` (the legacy ones).
_NAMED = frozenset(html.entities.html5)
_LONGEST_NAME = max(len(name) for name in _NAMED)


def _spelled(match: re.Match[str]) -> str:
    following = match[1]
    if not following:
        return "&amp;"  # ``&#`` before no digit
    if following.startswith("#"):
        return match[0]  # a numeric character reference
    if any(following[:size] in _NAMED for size in range(min(len(following), _LONGEST_NAME), 1, -1)):
        return match[0]  # a named one (HTML reads the longest name it knows: ``&copy`` in ``&copyright``)
    return "&amp;" + following


def unambiguous_ampersands(value: str) -> str:
    """``value`` with each ``&`` that is followed by a letter, a digit or ``#`` but starts no character
    reference (``Paws&Toebeans``) written ``&amp;``: the same text for an HTML reader (the HTML standard
    reads such an ``&`` as itself), and no parse error for a strict one (the W3C validator's ``NotHtml``)."""
    if "&" not in value:
        return value
    return _AMPERSAND.sub(_spelled, value)


def _ampersands_escaped(value: str, loc: str, ctx: Context) -> str:
    written = unambiguous_ampersands(value)
    if written != value:
        ctx.info(
            "ampersand-escaped",
            f"description of {loc}: an '&' that starts no character reference is written '&amp;' (the same "
            "text as HTML; read back, the description holds '&amp;')",
        )
    return written


def description_html(value: str, loc: str, ctx: Context) -> str:
    """``value`` as the HTML an item description may hold: sanitized when it holds what HTML descriptions
    must not (reported: ``html-sanitized``), else as it is but for an ampersand a strict HTML parser could
    take for a character reference (:func:`unambiguous_ampersands`; reported, INFO ``ampersand-escaped``: the
    same HTML, but the description read back holds ``&amp;``)."""
    if "<" not in value:
        return _ampersands_escaped(value, loc, ctx)
    value = _writable(value, "description", loc, ctx)
    removed = _disallowed(value)
    if not removed:  # written as it is, so it reads back as it is (ammonia would respell ``&`` as ``&amp;``)
        return _ampersands_escaped(value, loc, ctx)
    ctx.warning(
        "html-sanitized",
        f"description of {loc}: {', '.join(removed)} removed (not HTML an RSS description may safely hold)",
    )
    return nh3.clean(value, attributes=_ATTRIBUTES, link_rel=None)


def plain_text(value: str, what: str, loc: str, ctx: Context) -> str:
    """``value`` as plain text: when it holds an HTML end tag, its text content (reported: ``markup-in-text``);
    markup with no text at all (``<b></b>``) is kept as written rather than leave the element empty."""
    if "</" not in value or not any(tag.lower() in _HTML_TAGS for tag in _END_TAG.findall(value)):
        return value
    value = _writable(value, what, loc, ctx)
    try:
        root = lxml.html.fragment_fromstring(value, create_parent="div")
    except (etree.LxmlError, ValueError):
        return value
    text = " ".join(root.text_content().split())
    if not text:
        return value
    ctx.warning("markup-in-text", f"{what} of {loc} holds HTML markup; written as its text {text[:60]!r}")
    return text
