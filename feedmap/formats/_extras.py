"""Checking XML extras before they are written, and making them fit the element they are written into.

An ``Entry.extras`` value under a Clark key ``{namespace}local`` is re-emitted verbatim by the XML writers
(see :mod:`feedmap._core.model`), so it must be markup that cannot break out of its place: one or more
well-formed elements (XML 1.0 §2.1 ``element``), each named by the key, with every prefix they use declared
on themselves (Namespaces in XML 1.0 §5, "Namespace constraint: Prefix Declared"), and nothing else between
them.  The value is parsed as the content of a wrapper element by a parser that loads no DTD, resolves no
entity and touches no network; a value that closes the wrapper early (``</url><url>...``) leaves content
after the document's end and fails.  A value that fails is dropped with an ``invalid-extra`` warning, by
the JSON lines reader and by every XML writer (entries built through the API meet only the writers).

A writer also refuses an extra named like an element it writes itself (a sitemap's ``<loc>`` or ``<url>``,
an RSS item's ``<link>`` or ``<item>``, in any namespace a reader takes for the format's): well-formed as
it is, it would add a second URL to the entry, or an entry the summary never counted, for whoever reads
the output.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Mapping
from dataclasses import replace

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.model import Entry
from feedmap._xml import SITEMAP_NAMESPACES

__all__ = ["TEXT_NAME", "extra_problem", "readable_extras", "unqualified", "valid_extras", "xml_extra"]

_LOCAL = threading.local()  # an lxml parser must not be used by two threads at once (lxml FAQ, threading)


def _parser() -> etree.XMLParser:
    parser: etree.XMLParser | None = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = _LOCAL.parser = etree.XMLParser(
            resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=False
        )
    return parser


#: An XML name as text extras' keys use it after their ``prefix:`` (ASCII only, so always a valid XML Name).
TEXT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*", re.ASCII)


def _key_tag(key: str) -> str | None:
    """The element tag a Clark key names (``{}local`` is ``local``), or None when it names none."""
    end = key.find("}")
    if not key.startswith("{") or end < 0:
        return None
    namespace, local = key[1:end], key[end + 1 :]
    if not local or ":" in local or "{" in namespace:
        return None
    return f"{{{namespace}}}{local}" if namespace else local


_SITEMAP_ELEMENTS = ("urlset", "url", "sitemapindex", "sitemap", "loc", "lastmod", "changefreq", "priority")
#: What the sitemap writers write themselves, in every namespace the readers take for the sitemap one.
_SITEMAP_OWN = frozenset(f"{{{ns}}}{local}" for ns in SITEMAP_NAMESPACES for local in _SITEMAP_ELEMENTS)
#: What the RSS and ROR writers write themselves (RSS 2.0 has no namespace), and the sitemap fields they use.
_FEED_OWN = frozenset(
    "{}" + local for local in ("rss", "channel", "item", "link", "guid", "title", "description", "pubDate")
) | frozenset(f"{{{ns}}}{local}" for ns in SITEMAP_NAMESPACES for local in ("priority", "changefreq"))

_CACHED_UP_TO = 4096  # longer values are checked each time rather than held in the cache


def extra_problem(key: str, value: str) -> str | None:
    """None when ``value`` is one or more well-formed elements named ``key`` and nothing else; else why not.

    Values up to 4 KiB are remembered (the same extra often repeats across entries).
    """
    if len(value) <= _CACHED_UP_TO:
        return _cached_problem(key, value)
    return _problem(key, value)


def _problem(key: str, value: str) -> str | None:
    tag = _key_tag(key)
    if tag is None:
        return "has a key that is not a {namespace}name"
    try:
        wrapper = etree.fromstring(f"<w>{value}</w>", _parser())
    except etree.XMLSyntaxError as exc:
        return f"is not well-formed XML on its own ({exc.msg if getattr(exc, 'msg', None) else exc})"
    except ValueError as exc:  # lxml refuses some strings outright (an encoding declaration in a str)
        return f"is not well-formed XML on its own ({exc})"
    if len(wrapper) == 0:
        return "holds no element"
    if (wrapper.text or "").strip():
        return "holds text outside its element"
    for child in wrapper:
        if child.tag != tag:
            name = child.tag if isinstance(child.tag, str) else "a comment or processing instruction"
            return f"holds {name} where only {tag} may stand"
        if (child.tail or "").strip():
            return "holds text outside its element"
    return None


_cached_problem = functools.lru_cache(maxsize=1024)(_problem)


def unqualified(value: str) -> str:
    """A checked no-namespace extra with ``xmlns=""`` on each element, for a parent with a default namespace.

    Without it the element would be read back in the parent's namespace (a sitemap's ``<url>``).
    """
    wrapper = etree.fromstring(f"<w>{value}</w>", _parser())
    out = []
    for child in wrapper:
        text = etree.tostring(child, encoding="unicode", with_tail=False)
        local = len(child.tag) + 1  # lxml writes the start tag as "<" + the name first
        out.append(f'{text[:local]} xmlns=""{text[local:]}')
    return "".join(out)


def xml_extra(key: str, value: str, loc: str, ctx: Context, *, default_namespace: bool) -> str | None:
    """The extra as it can be written, or None (reported) when it is not one that can be.

    ``default_namespace``: the element it is written into has a default namespace (sitemaps do, RSS does not).
    """
    problem = extra_problem(key, value)
    if problem is None and key in (_SITEMAP_OWN if default_namespace else _FEED_OWN):
        problem = "is named like an element the writer writes itself (a second one would change the entry)"
    if problem is not None:
        ctx.warning("invalid-extra", f"extra {key!r} of {loc} {problem}; not written")
        return None
    if default_namespace and key.startswith("{}"):
        return unqualified(value)
    return value


def valid_extras(extras: Mapping[str, str], ctx: Context, line: int) -> dict[str, str]:
    """``extras`` without the XML extras that fail :func:`extra_problem` (each one reported)."""
    kept: dict[str, str] = {}
    for key, value in extras.items():
        if key.startswith("{"):
            problem = extra_problem(key, value)
            if problem is not None:
                ctx.warning("invalid-extra", f"extra {key!r} {problem}; dropped", line)
                continue
        kept[key] = value
    return kept


def readable_extras(entry: Entry, ctx: Context) -> Entry:
    """The entry without the XML extras a reader of JSON values would refuse (``{}news:news``: an element whose
    prefix was never declared), each reported (``invalid-extra``): what the writers of JSON lines and CSV write,
    never to be lost when read."""
    problems = {key: extra_problem(key, value) for key, value in entry.extras.items() if key.startswith("{")}
    if not any(problems.values()):
        return entry
    for key, problem in problems.items():
        if problem is not None:
            ctx.warning("invalid-extra", f"extra {key!r} of {entry.loc} {problem}; not written")
    return replace(entry, extras={key: value for key, value in entry.extras.items() if problems.get(key) is None})
