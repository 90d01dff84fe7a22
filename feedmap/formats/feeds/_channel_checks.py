"""The RSS 2.0 and ROR rules of ``feedmap validate``: one streaming pass over the raw document.

Specs: RSS 2.0 (https://www.rssboard.org/rss-specification, 2.0.11) with the W3C Feed Validator's reading of it
(https://validator.w3.org/feed/docs/, the event each rule corresponds to is named in the rule table,
:data:`feedmap._core.rules.RULES`), ROR in RSS 2.0 (http://rorweb.com/0.1/), XML 1.0 well-formedness
(https://www.w3.org/TR/xml/).  The values are checked in :mod:`feedmap.formats.feeds._channel_values`.

The raw bytes go to lxml's ``iterparse`` with feedmap's hardened settings (no DTD, no entities, no network:
:func:`feedmap._xml.make_iterparse`) and no repairs: the first well-formedness error is reported with its line
and column (``xml-not-well-formed``) and ends the check.  Each channel child and each item is checked when it
ends, then cleared and unlinked, so memory stays flat whatever the number of items; the one exception is the
guids seen, for duplicate detection: a :class:`feedmap._io.seen_keys.SeenKeys` (a dict up to 250,000 guids,
about 100-150 bytes each, then SQLite on disk).

RSS 0.91 and 0.92 get the same rules (as the W3C validator does) except the ``atom:link rel="self"`` advice,
which is RSS 2.0's.  RSS 1.0 (RDF) and Atom inputs are only checked for well-formedness here: an info
(``feed-not-rss2``) says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import BinaryIO

from lxml import etree

from feedmap._core.errors import Diagnostic, Level
from feedmap._io.seen_keys import SeenKeys
from feedmap._xml import line_of, local_name, make_iterparse, namespace_of
from feedmap.formats.feeds._channel_values import (
    ROR_NS,
    Finding,
    check_date,
    check_link,
    check_permalink,
    check_ror_type,
    check_update_period,
    is_ror_namespace,
)

__all__ = ["validate_feed"]

ATOM_NS = "http://www.w3.org/2005/Atom"
_OTHER_FEEDS = {
    "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}RDF": "RSS 1.0 (RDF)",
    f"{{{ATOM_NS}}}feed": "Atom 1.0",
    "{http://purl.org/atom/ns#}feed": "Atom 0.3",
}
_VERSIONS = ("0.91", "0.92", "2.0")
_POSITION = re.compile(r"\s*,?\s*line \d+, column \d+$")  # lxml's message ends with the position the finding holds
_CHANNEL_REQUIRED = ("title", "link", "description")


class _Walk:
    """The state of one pass: where the walk is, what the channel held, the guids seen."""

    def __init__(self, name: str, report: Callable[[Diagnostic], None], base_url: str | None) -> None:
        self.name, self.report, self.base_url = name, report, base_url
        self.items = 0
        self.depth = 0
        self.rss = False  # the root is <rss>: the RSS rules apply
        self.version = ""
        self.core = ""  # "{ns}" when the RSS elements are in a namespace (rare), else ""
        self.channels = 0
        self.in_channel = False
        self.channel_line = 0
        self.channel_seen: dict[str, str] = {}
        self.self_link = False
        self.guids = SeenKeys()
        self.namespaces: list[str] = []

    def say(self, level: Level, code: str, message: str, line: int = 0, column: int = 0) -> None:
        self.report(Diagnostic(level, code, message, source=self.name, line=line, column=column))

    def found(self, finding: Finding | None, line: int) -> None:
        if finding is not None:
            self.say(finding[0], finding[1], finding[2], line)

    def run(self, stream: BinaryIO) -> None:
        context = make_iterparse(stream, "*", events=("start", "end", "start-ns"))
        try:
            for event, thing in context:
                if event == "start-ns":
                    self.namespaces.append(thing[1])
                elif event == "start":
                    self.depth += 1
                    self.start(thing)
                else:
                    self.end(thing)
                    self.depth -= 1
        except etree.XMLSyntaxError as exc:
            line, column = exc.position
            message = _POSITION.sub("", " ".join((exc.msg or str(exc)).split()))
            self.say(Level.ERROR, "xml-not-well-formed", message, line, column)

    def start(self, element: etree._Element) -> None:
        if self.namespaces:
            for uri in self.namespaces:
                if is_ror_namespace(uri) and uri != ROR_NS:
                    self.say(
                        Level.WARNING, "ror-namespace", f"the ROR namespace is {ROR_NS}, not {uri}", line_of(element)
                    )
            self.namespaces = []
        if self.depth == 1:
            self.root(element)
        elif self.depth == 2 and self.rss and element.tag == self.core + "channel":
            self.channels += 1
            self.in_channel = self.channels == 1
            self.channel_line = line_of(element)
            if self.channels == 2:
                self.say(
                    Level.ERROR,
                    "rss-channel",
                    "<rss> holds more than one <channel>; the others are not checked",
                    line_of(element),
                )

    def root(self, element: etree._Element) -> None:
        tag = element.tag
        if local_name(tag) == "rss":
            self.rss = True
            namespace = namespace_of(tag)
            self.core = f"{{{namespace}}}" if namespace else ""
            self.version = (element.get("version") or "").strip()
            if "version" not in element.attrib:
                self.say(
                    Level.ERROR, "rss-version", '<rss> has no version attribute: write version="2.0"', line_of(element)
                )
            elif self.version not in _VERSIONS:
                self.say(
                    Level.ERROR,
                    "rss-version",
                    f'<rss version="{self.version}"> is no RSS version: write "2.0"',
                    line_of(element),
                )
        elif tag in _OTHER_FEEDS:
            self.say(
                Level.INFO,
                "feed-not-rss2",
                f"{_OTHER_FEEDS[tag]}: only well-formedness is checked, the RSS 2.0 and ROR rules do not apply",
                line_of(element),
            )
        else:
            self.say(
                Level.ERROR,
                "rss-root",
                f"the root element is <{local_name(tag)}>, not <rss>: not an RSS feed",
                line_of(element),
            )

    def end(self, element: etree._Element) -> None:
        if self.depth == 3 and self.in_channel:
            self.channel_child(element)
        elif self.depth == 2:
            if self.rss and element.tag == self.core + "channel" and self.in_channel:
                self.channel_end()
                self.in_channel = False
            elif not self.rss and local_name(element.tag) in ("item", "entry"):
                self.items += 1  # an RSS 1.0 item or an Atom entry: counted, not checked
        elif self.depth == 1 and self.rss and self.channels == 0:
            self.say(Level.ERROR, "rss-channel", "<rss> holds no <channel>", line_of(element))
        if self.depth in (2, 3):
            _forget(element)

    def channel_child(self, element: etree._Element) -> None:
        tag = element.tag
        line = line_of(element)
        if tag == self.core + "item":
            self.items += 1
            _Item(self, element).check()
            return
        if tag == f"{{{ATOM_NS}}}link":
            self.atom_link(element)
            return
        name = local_name(tag) if namespace_of(tag) == self.core.strip("{}") else ""
        if name in _CHANNEL_REQUIRED and name not in self.channel_seen:
            self.channel_seen[name] = _text(element)
            if name == "link" and self.channel_seen[name]:
                self.found(check_link(self.channel_seen[name], "channel link"), line)
        elif name in ("pubDate", "lastBuildDate"):
            self.found(check_date(element.text or "", name), line)

    def atom_link(self, element: etree._Element) -> None:
        if (element.get("rel") or "").strip() != "self":
            return
        self.self_link = True
        href = (element.get("href") or "").strip()
        if self.base_url and href != self.base_url:
            self.say(
                Level.WARNING,
                "rss-self-link-mismatch",
                f'atom:link rel="self" is {href!r}, but the feed is read from {self.base_url}',
                line_of(element),
            )

    def channel_end(self) -> None:
        for name in _CHANNEL_REQUIRED:
            text = self.channel_seen.get(name)
            if text is None:
                self.say(Level.ERROR, f"rss-channel-{name}", f"the channel has no <{name}>", self.channel_line)
            elif not text:
                self.say(Level.ERROR, f"rss-channel-{name}", f"the channel's <{name}> is empty", self.channel_line)
        if self.version == "2.0" and not self.self_link:
            link = (
                f'<atom:link rel="self" href="{self.base_url}" type="application/rss+xml"/>'
                if self.base_url
                else ('<atom:link rel="self"> naming its own URL')
            )
            self.say(
                Level.WARNING,
                "rss-self-link",
                f'the channel has no {link} (xmlns:atom="{ATOM_NS}"): advised, so that readers know the feed\'s URL',
                self.channel_line,
            )

    def close(self) -> None:
        self.guids.close()


class _Item:
    """One complete ``<item>``: its children gathered, then checked."""

    def __init__(self, walk: _Walk, element: etree._Element) -> None:
        self.walk = walk
        self.line = line_of(element)
        self.element = element

    def check(self) -> None:
        walk, core = self.walk, self.walk.core
        texts: dict[str, str] = {}
        for child in self.element:
            tag = child.tag
            if not isinstance(tag, str):
                continue
            line = line_of(child)
            namespace = namespace_of(tag)
            if is_ror_namespace(namespace):
                self.ror(local_name(tag), child, line)
                continue
            if namespace != core.strip("{}"):
                continue
            name = local_name(tag)
            if name in ("title", "description"):
                texts.setdefault(name, _text(child))
            elif name == "link":
                walk.found(check_link(child.text or "", "link"), line)
            elif name == "guid":
                self.guid(child, line)
            elif name == "pubDate":
                walk.found(check_date(child.text or "", "pubDate"), line)
        if not any(texts.values()):
            what = "an empty <title> and <description>" if texts else "neither <title> nor <description>"
            walk.say(Level.ERROR, "rss-item-title-or-description", f"the item has {what}", self.line)

    def guid(self, child: etree._Element, line: int) -> None:
        walk = self.walk
        value = (child.text or "").strip()
        permalink = child.get("isPermaLink")
        if permalink is not None and permalink not in ("true", "false"):
            walk.say(Level.ERROR, "rss-guid-ispermalink", f'isPermaLink="{permalink}": write "true" or "false"', line)
        elif permalink != "false":
            walk.found(check_permalink(value), line)
        if not value:
            return
        first = walk.guids.get(value)
        if first is None:
            walk.guids.add(value, line)
        else:
            walk.say(
                Level.ERROR, "rss-duplicate-guid", f"<guid> {value!r} is the guid of the item on line {first} too", line
            )

    def ror(self, name: str, child: etree._Element, line: int) -> None:
        if name == "updatePeriod":
            self.walk.found(check_update_period(child.text or ""), line)
        elif name == "type":
            self.walk.found(check_ror_type(child.text or ""), line)


def _text(element: etree._Element) -> str:
    """The element's text, markup inside it included as text, blanks trimmed."""
    return "".join(text for text in element.itertext() if isinstance(text, str)).strip()


def _forget(element: etree._Element) -> None:
    """Free a checked element and the siblings before it (lxml keeps every parsed node until told)."""
    element.clear()
    parent = element.getparent()
    if parent is not None:
        while element.getprevious() is not None:
            del parent[0]


def validate_feed(
    stream: BinaryIO, name: str, report: Callable[[Diagnostic], None], *, base_url: str | None = None
) -> int:
    """Check an RSS 2.0 / ROR document against the RSS and ROR rules of :data:`feedmap._core.rules.RULES`; each
    finding goes to ``report``.

    ``base_url`` is the feed's own URL when known (remote input or ``--base-url``): the ``atom:link rel="self"``
    advice names it and a different self link is reported.  Returns the number of items (RSS 1.0 items and Atom
    entries are counted too).  An ``OSError`` from ``stream`` is not caught: the input could not be read.
    """
    walk = _Walk(name, report, base_url)
    try:
        walk.run(stream)
    finally:
        walk.close()
    return walk.items
