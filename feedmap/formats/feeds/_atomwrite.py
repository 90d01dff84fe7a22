"""Writing ``atom``: an Atom 1.0 feed (RFC 4287) of one ``<entry>`` per entry.

Spec: RFC 4287 (https://www.rfc-editor.org/rfc/rfc4287), with the W3C Feed Validator's reading of it
(https://validator.w3.org/feed/docs/).  The feed: ``<feed xmlns="http://www.w3.org/2005/Atom">`` with

* ``id`` (§4.2.6): the feed's own URL (``self_url``; into a directory, each file's), else the channel link, in
  the normal form §4.2.6.1 asks for (:mod:`feedmap.formats.feeds._atomid`);
* ``title`` (the channel title: the options', the input's, else ``Pages of`` the site), ``subtitle`` (the
  channel description, when the options or the input give one), ``author`` (§4.2.1: a feed whose entries name
  no author needs one: ``channel_author``, else the host of the channel link), ``generator``;
* ``updated`` (§4.2.15): ``channel_updated``, else the newest of the input's channel date and the entries'
  lastmods, else the time of the run (said: ``updated-assumed``; give ``channel_updated`` for the same bytes on
  each run);
* ``link rel="alternate"`` to the channel link and ``link rel="self"`` to the feed's own URL when known.

Each entry: ``id`` (its URL in normal form), ``title`` (the entry's, else its URL, as RSS writes it), the hreflang
alternates as Atom's own ``link rel="alternate" hreflang`` (one per language: a repeated one is left out,
``alternate-repeated``, as §4.1.1 allows one alternate link per type and language) before the entry's own ``link
rel="alternate"`` (feedparser takes the last), ``updated`` (the lastmod as RFC 3339,
:mod:`feedmap.formats.feeds._rfc3339`; when that is not the lastmod as written, a W3C Datetime one is also written
exactly as ``dc:date`` first, which feedmap reads back before ``updated``; an entry without a lastmod has the feed's
``updated``, ``updated-assumed``), ``summary`` (the description as sanitized HTML, ``type="html"``, as RSS writes
it; without one, the entry's URL as text: the validator asks each entry for textual content, and feedmap reads a
summary that is the entry's URL as none), a ``category term`` per keyword, ``sitemap:changefreq`` and
``sitemap:priority``, the extensions' elements (Google images under the prefix ``gimage``: the validator reserves
``image`` for RSS 1.0's image module) and the XML extras an entry can hold.  An entry's ``type`` has no place in
Atom (``field-dropped``), nor text extras.

The feed's ``updated`` comes before the entries and is known after the last: the entries are rendered first, held
in a spooled temporary file (memory flat), then written after the header.  The same input gives the same bytes.
"""

from __future__ import annotations

import datetime as _dt
import pickle
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO
from urllib.parse import urlsplit

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate, is_w3c_datetime
from feedmap._core.model import Alternate, Document, Entry
from feedmap._core.urls import is_uri, plain_uri
from feedmap._core.wording import counted
from feedmap._io.scratch import ScratchSpool
from feedmap._xml import IMAGE_NS, SITEMAP_NS, escape_attribute
from feedmap._xml import escape_text as _escape
from feedmap.formats._extras import xml_extra
from feedmap.formats._namespaces import Namespaces, extension_elements
from feedmap.formats._output import BATCH_CHARACTERS, SizeWatch, output_url
from feedmap.formats._registry import Rendered
from feedmap.formats._xmlwrite import attribute_of, format_priority, rdf_only, text_of
from feedmap.formats.ext import Hooks, hooks, report_broken
from feedmap.formats.ext._hreflang import link_elements
from feedmap.formats.ext._image import FEED_PREFIX
from feedmap.formats.feeds._atomid import atom_id
from feedmap.formats.feeds._html import description_html
from feedmap.formats.feeds._rfc3339 import rfc3339
from feedmap.formats.feeds._rsswrite import (
    channel_info,
    peek_first,
    plain_text_of,
    written_keywords,
)
from feedmap.formats.feeds._vocab import ATOM_NS, DC_NS, GENERATOR

__all__ = ["EMPTY", "FOOTER", "NAMESPACES", "TITLE_PREFIX", "render", "write"]

#: What a derived feed title starts with ("Pages of https://host/"), as RSS derives it.
TITLE_PREFIX = "Pages of"
#: Every namespace an entry may use, by prefix (declared on the root when used).
NAMESPACES = {"dc": DC_NS, "sitemap": SITEMAP_NS, FEED_PREFIX: IMAGE_NS}
FOOTER = "</feed>\n"
EMPTY = "no entries: wrote an Atom feed without entries"
_FEED = "the feed"
#: Where an entry without a lastmod has the feed's ``updated``, known once every entry is rendered: a character
#: no XML text holds (the writers drop it), so it stands for nothing else in a rendered entry.
_UPDATED = "\x00feedmap-feed-updated\x00"
#: Rendered entries held in memory before the spool moves them to a temporary file.
_IN_MEMORY = 8 << 20
#: Entries pickled together in the spool of a renderer (whose blocks keep their entries).
_PAGE = 512


@dataclass
class _Tally:
    """What rendering the entries found, said once at the end: the newest lastmod, the entries without one, the
    lastmods RFC 3339 cannot hold as written, the extras already said dropped."""

    newest: W3CDate | None = None
    undated: int = 0
    first_undated: str = ""
    reshaped: int = 0
    first_reshaped: str = ""
    dropped: set[str] = field(default_factory=set)

    def dated(self, lastmod: W3CDate) -> None:
        if self.newest is None or lastmod > self.newest:
            self.newest = lastmod


def _url(entry: Entry, ctx: Context) -> str:
    """The entry's URL as written (encoded unless ``keep_urls``; each change reported), not escaped yet."""
    loc, options = entry.loc, ctx.options
    if plain_uri(loc) is not None or ((not options.keep_urls or options.encode_urls) and is_uri(loc)):
        return loc
    return output_url(loc, ctx, entry)


def _alternates(entry: Entry, ctx: Context) -> tuple[Alternate, ...]:
    """The entry's alternates, one per language: Atom holds one alternate link per type and language (RFC 4287
    §4.1.2), and the entry's own link has none; a blank or repeated ``hreflang`` is left out, said."""
    seen: set[str] = set()
    kept: list[Alternate] = []
    for alternate in entry.alternates:
        hreflang = alternate.hreflang.strip()
        if not hreflang or hreflang in seen:
            why = "has no hreflang" if not hreflang else f"repeats the language {hreflang!r}"
            ctx.warning(
                "alternate-repeated",
                f"alternate {alternate.href} of {entry.loc} {why}: an Atom entry holds one alternate link per "
                "language; not written",
            )
            continue
        seen.add(hreflang)
        kept.append(alternate if hreflang == alternate.hreflang else Alternate(hreflang=hreflang, href=alternate.href))
    return tuple(kept)


def _updated(entry: Entry, namespaces: Namespaces, tally: _Tally) -> list[str]:
    """The entry's ``updated`` (and ``dc:date`` first, when RFC 3339 does not hold the lastmod as written)."""
    lastmod = entry.lastmod
    if lastmod is None:
        tally.undated += 1
        tally.first_undated = tally.first_undated or entry.loc
        return ["<updated>", _UPDATED, "</updated>"]
    tally.dated(lastmod)
    written = rfc3339(lastmod)
    if written == lastmod.text:
        return ["<updated>", written, "</updated>"]
    if is_w3c_datetime(lastmod.text):  # read back first, exactly: dc:date takes every W3C Datetime form
        namespaces.use("dc")
        return ["<dc:date>", lastmod.text, "</dc:date><updated>", written, "</updated>"]
    tally.reshaped += 1
    tally.first_reshaped = tally.first_reshaped or f"{lastmod.text} of {entry.loc} as {written}"
    return ["<updated>", written, "</updated>"]


def _entry(entry: Entry, ctx: Context, namespaces: Namespaces, table: Hooks, tally: _Tally) -> str:
    """The entry's ``<entry>`` (``namespaces``: the prefixes used, declared on the root)."""
    loc = entry.loc
    url = _url(entry, ctx)
    text = text_of(url, "loc", loc, ctx)
    title = entry.title if entry.title and not entry.title.isspace() else url  # Atom requires a title, not blank
    parts = ["<entry><id>", _escape(atom_id(url)), "</id><title>", plain_text_of(title, "title", loc, ctx), "</title>"]
    if entry.alternates:
        parts += link_elements(_alternates(entry, ctx), entry, ctx)
    parts += ['<link rel="alternate" href="', escape_attribute(url), '"/>']
    parts += _updated(entry, namespaces, tally)
    description = entry.description
    if description and not description.isspace():
        description = description_html(description, loc, ctx)
    if description and not description.isspace():
        parts += ['<summary type="html">', text_of(description, "description", loc, ctx), "</summary>"]
    else:  # no description (or a blank one, or none left once sanitized): the URL, which reads back as none
        parts += ["<summary>", text, "</summary>"]
    for keyword in written_keywords(entry.keywords, loc, ctx, joined=False) if entry.keywords else ():
        parts += ['<category term="', attribute_of(keyword, "keyword", loc, ctx), '"/>']
    parts += _sitemap_fields(entry, ctx, namespaces)
    if table.lead or table.tail:
        parts += extension_elements(entry, ctx, namespaces, table.lead + table.tail)
    if entry.extras:
        parts += _extras(entry, tally.dropped, ctx, table.keys)
    parts.append("</entry>\n")
    return "".join(parts)


def _sitemap_fields(entry: Entry, ctx: Context, namespaces: Namespaces) -> list[str]:
    parts: list[str] = []
    if entry.changefreq is not None:
        namespaces.use("sitemap")
        parts += ["<sitemap:changefreq>", entry.changefreq.value, "</sitemap:changefreq>"]
    if entry.priority is not None:
        priority = format_priority(entry.priority, ctx, entry.loc)
        if priority is not None:
            namespaces.use("sitemap")
            parts += ["<sitemap:priority>", priority, "</sitemap:priority>"]
    return parts


def _extras(entry: Entry, dropped: set[str], ctx: Context, claimed: frozenset[str]) -> list[str]:
    """The XML extras an Atom entry can hold (foreign elements, written as they are); the others are reported:
    text extras (but those an extension writes) once each, ``field-dropped``; XHTML, RDF and Atom markup
    (:func:`~feedmap.formats._xmlwrite.rdf_only`), ``extra-dropped``."""
    parts: list[str] = []
    for key, value in entry.extras.items():
        if key.startswith("{"):
            if rdf_only(key, value, entry.loc, ctx, holder="an Atom entry"):
                continue
            text = xml_extra(key, value, entry.loc, ctx, default_namespace=True)
            if text is not None:
                parts.append(text)
        elif key not in dropped and key not in claimed:
            dropped.add(key)
            ctx.info("field-dropped", f"extra {key!r} has no place in Atom and is not written")
    return parts


# --- the feed ---------------------------------------------------------------------------------------------------


def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def _feed_updated(doc: Document, tally: _Tally, ctx: Context) -> str:
    """The feed's ``updated``: the option, else the newest of the input's channel date and the lastmods, else now."""
    given = ctx.options.channel_updated
    if given is not None:
        return rfc3339(given)
    newest = tally.newest
    if doc.meta.updated is not None and (newest is None or doc.meta.updated > newest):
        newest = doc.meta.updated
    if newest is not None:
        return rfc3339(newest)
    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
    written = now.isoformat().replace("+00:00", "Z")
    ctx.info(
        "updated-assumed",
        f"no entry has a lastmod: the feed's updated, which Atom requires, is the time of this run ({written}); "
        "give the feed's updated (channel_updated) for the same output on every run",
    )
    return written


def _report(tally: _Tally, updated: str, ctx: Context) -> None:
    if tally.undated:
        have = "has" if tally.undated == 1 else "have"
        ctx.info(
            "updated-assumed",
            f"{counted(tally.undated, 'entry', 'entries')} without a lastmod (the first: {tally.first_undated}) {have} "
            f"the feed's updated, {updated}, which Atom requires of every entry: read back, it is their lastmod",
        )
    if tally.reshaped:
        ctx.info(
            "lastmod-as-rfc3339",
            f"{counted(tally.reshaped, 'lastmod')} neither RFC 3339 nor W3C Datetime (a time without zone, a date with "
            f"one) written as the instant it starts at, which is what reads back (the first: {tally.first_reshaped})",
        )


def _header(doc: Document, first: str | None, updated: str, namespaces: Namespaces, ctx: Context) -> str:
    """The declaration, the root (declaring the prefixes the entries use) and the feed's own elements."""
    options = ctx.options
    channel = channel_info(doc, first, ctx, title_prefix=TITLE_PREFIX)
    parts = [
        f'<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="{ATOM_NS}"{namespaces.close_root()}>\n<id>',
        _escape(atom_id(channel.self_url or channel.link)),
        "</id><title>",
        plain_text_of(channel.title, "title", _FEED, ctx),
        "</title>",
    ]
    subtitle = options.channel_description or doc.meta.description
    if subtitle:
        parts += ["<subtitle>", plain_text_of(subtitle, "subtitle", _FEED, ctx), "</subtitle>"]
    author = options.channel_author or _host(channel.link) or channel.link
    parts += ["<updated>", updated, "</updated><author><name>", plain_text_of(author, "author", _FEED, ctx)]
    parts += ["</name></author><generator>", GENERATOR, '</generator><link rel="alternate" href="']
    parts += [attribute_of(channel.link, "link", _FEED, ctx), '"/>']
    if channel.self_url:
        self_url = attribute_of(channel.self_url, "self link", _FEED, ctx)
        parts += ['<link rel="self" type="application/atom+xml" href="', self_url, '"/>']
    parts.append("\n")
    return "".join(parts)


class _Held:
    """Rendered entries held until the feed's ``updated`` is known: a spooled temporary file (memory flat) of their
    UTF-8 bytes, or, for a renderer, of pickled pages of (entry, block)."""

    def __init__(self, keep_entries: bool) -> None:
        self.keep_entries = keep_entries
        self.spool = ScratchSpool(_IN_MEMORY, "file for the rendered Atom entries")
        self.page: list[tuple[Entry, str]] = []
        self.count = 0
        self.characters = 0

    def add(self, entry: Entry, block: str) -> None:
        self.count += 1
        if not self.keep_entries:
            self.spool.write(block.encode("utf-8"))
            return
        self.page.append((entry, block))
        self.characters += len(block)
        if len(self.page) >= _PAGE or self.characters >= BATCH_CHARACTERS:
            self._flush()

    def _flush(self) -> None:
        if self.page:
            pickle.dump(self.page, self.spool, protocol=pickle.HIGHEST_PROTOCOL)
            self.page, self.characters = [], 0

    def blocks(self, updated: str) -> Iterator[tuple[Entry, str]]:
        """The held (entry, block) pairs in order, each undated entry's ``updated`` filled in."""
        self._flush()
        self.spool.seek(0)
        try:
            while True:
                try:
                    page: list[tuple[Entry, str]] = pickle.load(self.spool)
                except EOFError:
                    return
                for entry, block in page:
                    yield entry, block.replace(_UPDATED, updated) if entry.lastmod is None else block
        finally:
            self.spool.close()

    def copy_to(self, sink: BinaryIO, updated: str) -> int:
        """Write the held bytes to ``sink``, each undated entry's ``updated`` filled in; the bytes written.  Each
        chunk read ends at a line's end: no mark is cut (a mark lies inside one ``<updated>``)."""
        self.spool.seek(0)
        mark, value = _UPDATED.encode("utf-8"), updated.encode("utf-8")
        written = 0
        try:
            while True:
                chunk = self.spool.read(BATCH_CHARACTERS)
                if not chunk:
                    return written
                if not chunk.endswith(b"\n"):
                    chunk += self.spool.readline()
                if mark in chunk:
                    chunk = chunk.replace(mark, value)
                sink.write(chunk)
                written += len(chunk)
        finally:
            self.spool.close()


def _rendered(doc: Document, ctx: Context, keep_entries: bool) -> tuple[str, _Held, str, _Tally]:
    """Every entry rendered and held, then the header: (header, the held entries, the feed's updated, tally)."""
    report_broken(ctx)
    table = hooks("atom")
    namespaces = Namespaces(NAMESPACES, hooks=table)
    tally = _Tally()
    first, entries = peek_first(doc)
    held = _Held(keep_entries)
    try:
        for entry in entries:
            held.add(entry, _entry(entry, ctx, namespaces, table, tally))
    except BaseException:
        held.spool.close()
        raise
    updated = _feed_updated(doc, tally, ctx)
    _report(tally, updated, ctx)
    header = _header(doc, first.loc if first is not None else None, updated, namespaces, ctx)
    return header, held, updated, tally


def render(doc: Document, *, ctx: Context) -> Rendered:
    """The feed in parts (:class:`~feedmap.formats._registry.Rendered`): every entry is rendered before the
    header is made (the feed's ``updated`` is the newest lastmod), so the header is final when returned."""
    header, held, updated, _ = _rendered(doc, ctx, keep_entries=True)
    return Rendered(header, held.blocks(updated), FOOTER, EMPTY)


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    """Write the feed; returns the number of entries written."""
    header, held, updated, _ = _rendered(doc, ctx, keep_entries=False)
    watch = SizeWatch(ctx, "entries")
    if held.count == 0:
        ctx.warning("empty-document", EMPTY)
    head = header.encode("utf-8")
    sink.write(head)
    size = len(head) + held.copy_to(sink, updated)
    foot = FOOTER.encode("utf-8")
    sink.write(foot)
    watch.add(held.count, size + len(foot))
    return held.count
