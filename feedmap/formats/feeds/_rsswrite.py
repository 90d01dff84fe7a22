"""Writing RSS 2.0 channels, shared by the ``rss`` and ``ror`` writers.

Spec: RSS 2.0.11 (https://www.rssboard.org/rss-specification) and the RSS Best Practices Profile: ``<rss
version="2.0">`` with one ``<channel>`` whose ``title``, ``link`` and ``description`` are present and non-empty
(plain text: markup in them is written as its text); ``lastBuildDate`` when the channel's last update is known (the
``channel_updated`` option, else the input's); each item has a ``title`` or a ``description``; ``guid`` is the
item's permalink; dates are RFC 822 with four-digit years (:func:`email.utils.format_datetime`, never the locale);
``atom:link rel="self"`` names the feed's own URL when it is known.  Extension elements (the sitemap namespace for
``changefreq``/``priority``, Dublin Core ``dc:date`` for a lastmod RFC 822 cannot hold exactly, the Google image
namespace for images, Atom ``link`` for hreflang alternates, third-party extensions' namespaces) live in namespaces
declared only when used (an unused declaration is a W3C Feed Validator warning): the writer still streams, so it
renders the first batch of items before the root, declares there the namespaces that batch uses, and declares a
namespace first used by a later item on that item's element (:class:`~feedmap.formats._namespaces.Namespaces`).
Images, alternates and third-party extension elements are written by the extensions' write hooks
(:mod:`feedmap.formats.ext`, :func:`~feedmap.formats._namespaces.extension_elements`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import BinaryIO
from urllib.parse import urlsplit

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate, to_rfc822
from feedmap._core.entry_checks import non_web_url
from feedmap._core.model import Document, Entry
from feedmap._core.urls import is_http_url
from feedmap._xml import escape_text
from feedmap.formats._namespaces import Namespaces, extension_elements, first_items
from feedmap.formats._output import SizeWatch, output_url, write_blocks
from feedmap.formats._registry import Rendered
from feedmap.formats._xmlwrite import attribute_of, loc_text, text_of
from feedmap.formats.ext import BUILTIN_FIELDS, Hooks
from feedmap.formats.feeds._html import description_html, plain_text
from feedmap.formats.feeds._vocab import GENERATOR

__all__ = [
    "EMPTY",
    "FOOTER",
    "ChannelInfo",
    "channel_head",
    "channel_info",
    "feed_header",
    "item_core",
    "parts_only",
    "peek_first",
    "plain_text_of",
    "render_channel",
    "site_of",
    "trimmed",
    "web_url_or_none",
    "write_channel",
    "written_keywords",
]

_CHANNEL = "the channel"


class ChannelInfo:
    """Channel title, link and description: options first, then the document, then derived defaults."""

    def __init__(
        self, title: str, link: str, description: str, self_url: str | None, updated: W3CDate | None = None
    ) -> None:
        self.title = title
        self.link = link
        self.description = description
        self.self_url = self_url
        self.updated = updated

    def elements(self, ctx: Context, namespaces: Namespaces) -> str:
        """The channel's title, link, description and ``atom:link``; characters XML cannot hold are reported."""
        parts = [
            "<title>",
            plain_text_of(self.title, "title", _CHANNEL, ctx),
            "</title><link>",
            text_of(self.link, "link", _CHANNEL, ctx),
            "</link><description>",
            plain_text_of(self.description, "description", _CHANNEL, ctx),
            "</description><generator>",
            GENERATOR,
            "</generator>",
        ]
        build_date = _rfc822(self.updated) if self.updated is not None else None
        if build_date is not None:
            parts += ["<lastBuildDate>", build_date, "</lastBuildDate>"]
        if self.self_url:
            self_url = attribute_of(self.self_url, "atom:link href", _CHANNEL, ctx)
            atom = namespaces.declare("atom")
            parts += [f'<atom:link{atom} href="', self_url, '" rel="self" type="application/rss+xml"/>']
        return "".join(parts)


def _rfc822(value: W3CDate) -> str | None:
    """A date as RSS 2.0 writes it (RFC 822), or None for one that has no such form (a year beyond 9999)."""
    try:
        return to_rfc822(value)
    except (ValueError, OverflowError):
        return None


def plain_text_of(value: str, what: str, loc: str, ctx: Context) -> str:
    """``value`` escaped for an element that holds plain text (a title, the channel description): ``&`` and
    ``<`` as the hexadecimal references ``&#x26;`` and ``&#x3C;``, as the RSS Best Practices Profile asks
    ("Encoding & and <"), so that no reader, nor the W3C validator (``ContainsHTML``, ``CharacterData``),
    takes a ``&lang`` or a ``<blink>`` in the text for HTML.  Blank space around it (U+0085 and the other
    Unicode blanks too) is removed, as feed readers remove it: reported, never changed in silence."""
    if "</" not in value and escape_text(value) is value and value.strip() == value:
        return value  # the common title: no blanks around it, no end tag, nothing to escape (so nothing said)
    value = trimmed(value, what, loc, ctx)
    text = text_of(plain_text(value, what, loc, ctx), what, loc, ctx)
    if "&" not in text:
        return text
    return text.replace("&amp;", "&#x26;").replace("&lt;", "&#x3C;")


def trimmed(value: str, what: str, loc: str, ctx: Context) -> str:
    """``value`` without the blank space around it (``str.strip``: what feed readers remove), the change
    reported (``whitespace-trimmed``)."""
    stripped = value.strip()
    if stripped != value:
        ctx.info("whitespace-trimmed", f"blank space around the {what} of {loc} ({value[:40]!r}) was removed")
    return stripped


def written_keywords(keywords: tuple[str, ...], loc: str, ctx: Context, *, joined: bool) -> list[str]:
    """The keywords as a feed writes them: trimmed, an empty one left out (``keyword-changed`` for either, as a
    reader trims and drops them), and, when ``joined`` (``ror:keywords``, one comma-separated element), one
    holding a comma reported: it reads back as several; else (one ``<category>`` each) a repeat left out and
    reported, as a feed reader reads a repeated category once (feedparser does)."""
    kept: list[str] = []
    for keyword in keywords:
        stripped = keyword.strip()
        if not stripped:
            ctx.warning("keyword-changed", f"an empty keyword of {loc} is left out")
            continue
        if stripped != keyword:
            ctx.warning("keyword-changed", f"keyword {keyword!r} of {loc} is written trimmed, {stripped!r}")
        if not joined and stripped in kept:
            ctx.warning("keyword-changed", f"keyword {stripped!r} of {loc} repeats: written once (one <category>)")
            continue
        if joined and "," in stripped:
            parts = [part.strip() for part in stripped.split(",") if part.strip()]
            ctx.warning(
                "keyword-changed",
                f"keyword {stripped!r} of {loc} holds a comma: ror:keywords is a comma-separated list, so it "
                f"reads back as {len(parts)} keywords {parts!r}",
            )
        kept.append(stripped)
    return kept


#: The table :func:`parts_only` looked at last, and its answer (a run uses one table for every entry);
#: replaced as a whole, so that a thread never reads one table's answer for another.
_last_table: tuple[Hooks | None, bool] = (None, False)


def parts_only(table: Hooks) -> bool:
    """Whether the write hooks of ``table`` (its leading and other steps) write only the built-ins' fields (images,
    alternates, news, videos): then an entry without any has no hook to run."""
    global _last_table
    last = _last_table
    if last[0] is not table:
        builtin = all(step.field in BUILTIN_FIELDS for step in table.lead + table.tail)
        last = _last_table = (table, builtin)
    return last[1]


def item_core(entry: Entry, ctx: Context, namespaces: Namespaces, hooks: Hooks) -> list[str]:
    """The leading extension elements, title, link, guid and description of an RSS 2.0 item (the start tag
    included).

    The leading elements (hreflang alternates as ``atom:link rel="alternate"``) come before ``<link>``:
    feedparser takes the last alternate link of an HTML type as the item's link, so ``<link>`` must come
    after them to stay it."""
    loc = loc_text(entry, ctx)
    parts: list[str] = ["<item>"]
    for step in hooks.lead:  # a call only for a field the entry has (most have no alternates)
        if getattr(entry, step.field):
            parts += extension_elements(entry, ctx, namespaces, (step,))
    title = entry.title
    if title is None and entry.description is None:
        title = entry.loc
    if title is not None:
        parts += ["<title>", plain_text_of(title, "title", entry.loc, ctx), "</title>"]
    parts += ["<link>", loc, '</link><guid isPermaLink="true">', loc, "</guid>"]
    if entry.description is not None:
        description = description_html(entry.description, entry.loc, ctx)
        parts += ["<description>", text_of(description, "description", entry.loc, ctx), "</description>"]
    return parts


def site_of(url: str) -> str | None:
    """``scheme://host/`` of a URL, or None (also for one whose authority cannot be parsed)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme and parts.netloc:
        return f"{parts.scheme}://{parts.netloc}/"
    return None


def peek_first(doc: Document) -> tuple[Entry | None, Iterator[Entry]]:
    """The first entry (to derive channel defaults from) and an iterator over all entries."""
    entries = iter(doc.entries)
    first = next(entries, None)
    if first is None:
        return None, entries
    return first, itertools.chain((first,), entries)


def web_url_or_none(url: str | None, what: str, ctx: Context) -> str | None:
    """``url`` when it is an http(s) URL; another one (``javascript:``, ``data:``, relative) is reported
    (WARNING ``non-web-url``) and None returned: the channel's link and self URL are web URLs (RSS 2.0
    ``link``: "The URL to the HTML website corresponding to the channel")."""
    if url and not is_http_url(url):
        non_web_url(url, what, ctx, kept=False)
        return None
    return url


def channel_info(doc: Document, first: str | None, ctx: Context, *, title_prefix: str) -> ChannelInfo:
    """The channel of ``doc`` whose first item's loc is ``first`` (None: no items)."""
    options = ctx.options
    link = (
        web_url_or_none(options.channel_link, "channel link option", ctx)
        or web_url_or_none(doc.meta.link, "channel link", ctx)
        or (web_url_or_none(site_of(first), "channel link derived from the first URL", ctx) if first else None)
    )
    if not link:
        link = "https://example.invalid/"
        why = "no entries" if first is None else f"the first URL, {first}, names no site"
        ctx.warning("channel-link-missing", f"no channel link known ({why})")
    title = options.channel_title or doc.meta.title or f"{title_prefix} {link}"
    description = options.channel_description or doc.meta.description or f"{title_prefix} {link}"
    # The channel link and the self URL are URIs like every item link (an IRI is the validator's UriNotIri).
    self_url = web_url_or_none(options.self_url, "self URL", ctx)
    self_url = output_url(self_url, ctx) if self_url else None
    updated = options.channel_updated or doc.meta.updated
    return ChannelInfo(title, output_url(link, ctx), description, self_url, updated)


def render_channel(
    doc: Document,
    ctx: Context,
    *,
    namespaces: Namespaces,
    title_prefix: str,
    item: Callable[[Entry, set[str]], str],
    after_channel: Callable[[ChannelInfo], str] = lambda channel: "",
) -> Rendered:
    """``<rss version="2.0">`` with one channel and an item per entry, in parts.

    ``item`` renders one entry (its second argument collects extras already reported as dropped), declaring
    its namespaces through ``namespaces``; ``after_channel`` renders what comes between the channel elements
    and the items (ROR's header item).  The first :data:`FIRST_BATCH` items are rendered before the header is
    made, so that the root declares the namespaces they use: the header is final when returned.
    """
    first, entries = peek_first(doc)
    head = channel_head(doc, first.loc if first is not None else None, ctx, namespaces, title_prefix, after_channel)
    dropped: set[str] = set()
    items = ((entry, item(entry, dropped)) for entry in entries)
    first_batch = first_items(items)
    return Rendered(feed_header(namespaces, head), itertools.chain(first_batch, items), FOOTER, EMPTY)


#: What closes a feed, and the warning of a feed without items.
FOOTER = "</channel>\n</rss>\n"
EMPTY = "no entries: wrote a feed channel without items"


def channel_head(
    doc: Document,
    first: str | None,
    ctx: Context,
    namespaces: Namespaces,
    title_prefix: str,
    after_channel: Callable[[ChannelInfo], str],
) -> str:
    """The channel's start tag, its elements and what ``after_channel`` writes before the items (the channel of
    :func:`channel_info`; ``first``: the first item's loc)."""
    channel = channel_info(doc, first, ctx, title_prefix=title_prefix)
    if ctx.options.channel_author is not None:
        ctx.info(
            "field-dropped",
            "the feed's author (channel_author) is not written: RSS 2.0 has no place for a name (its managingEditor "
            "is an e-mail address)",
        )
    return f"<channel>{channel.elements(ctx, namespaces)}\n{after_channel(channel)}"


def feed_header(namespaces: Namespaces, head: str) -> str:
    """The declaration, the root (declaring what the items rendered so far use: :meth:`Namespaces.close_root`)
    and ``head``."""
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"{namespaces.close_root()}>\n{head}'


def write_channel(sink: BinaryIO, ctx: Context, rendered: Rendered) -> int:
    """Write a rendered channel (:func:`render_channel`); returns the item count."""
    return write_blocks(sink, rendered, SizeWatch(ctx, "items"))
