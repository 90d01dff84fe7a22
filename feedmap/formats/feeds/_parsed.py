"""The feedparser path of the ``rss`` reader: a feed lxml cannot read (not well-formed, or no RSS/Atom root).

Spec: what feedparser (https://feedparser.readthedocs.io) reads of RSS 0.9x/1.0/2.0 and Atom 0.3/1.0,
mapped to entries as the streaming path maps them (:mod:`feedmap.formats.feeds._item`).  A malformed feed
gives one ``malformed-feed`` warning; every URL feedparser's recovery gives that the feed does not hold as
written is reported (``feed-recovered-url``): feedparser rewrites entity-like text in links (``?a=1&amp;b=2``
keeps ``&amp;``, ``&host;`` loses its ``;``); where the text as written is found, it is used instead.
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Iterator
from typing import Any

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.errors import ReadError
from feedmap._core.model import DocKind, DocMeta, Document, Entry, full_entry, new_position
from feedmap.formats._fields import read_loc
from feedmap.formats.feeds._repair import replace_surrogate_refs
from feedmap.formats.feeds._vocab import channel_date, describe_item, feed_date, link_relation, plain_title, real_title

__all__ = ["feedparse", "parsed_entries", "raw_links", "read_with_feedparser"]

#: Link-like text and attributes as written in the raw feed (to check feedparser's recovered URLs against).
_RAW_TEXT = re.compile(r"<(?:[\w.-]+:)?(?:link|guid|id)\b[^>]*>\s*(?:<!\[CDATA\[)?(.*?)(?:\]\]>)?\s*</", re.S)
_RAW_ATTRIBUTE = re.compile(r"\b(?:href|url|uri)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_ENTITY_LIKE = re.compile(r"&([A-Za-z0-9_]+);")  # what feedparser rewrites in links (mixin.py, "query variables")
_REFERENCE = re.compile(r"&(amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});")


def _unescape(text: str) -> str:
    """XML's predefined and character references resolved; other entity-like text kept as written."""
    return _REFERENCE.sub(lambda match: html.unescape(match.group()), text)


class _RawLinks:
    """The URLs a malformed feed holds as written, to verify those feedparser's recovery gives.

    ``written`` maps each raw text, and the forms feedparser's recovery turns it into (it keeps ``&amp;``
    in a guid, and in a link turns ``&name;`` into ``&name``), to what the XML means by it.
    """

    def __init__(self, text: str) -> None:
        raw = [match.group(1).strip() for match in _RAW_TEXT.finditer(text)]
        raw += [(match.group(1) or match.group(2) or "").strip() for match in _RAW_ATTRIBUTE.finditer(text)]
        self.values = {_unescape(value) for value in raw if value}
        self.written: dict[str, set[str]] = {}
        for value in raw:
            meant = _unescape(value)
            plain = value.replace("&amp;", "&")
            for form in (value, plain, _ENTITY_LIKE.sub(r"&\g<1>", plain)):
                self.written.setdefault(form, set()).add(meant)

    def verify(self, url: str, ctx: Context) -> str:
        """The URL as the feed writes it, when feedparser's recovery changed it; reported if it differs."""
        if url in self.values:
            return url
        meant = self.written.get(url, set())
        if len(meant) == 1:
            written = next(iter(meant))
            ctx.warning(
                "feed-recovered-url",
                f"feedparser's recovery of the malformed feed read {url!r}; the feed writes {written!r}: "
                "kept as written",
            )
            return written
        ctx.warning(
            "feed-recovered-url",
            f"{url!r} comes from feedparser's recovery of the malformed feed and is not in it as written; check it",
        )
        return url


def _atom_link(item: Any) -> str | None:
    """The entry's (or feed's) link[@rel=alternate or no rel] (feedparser's choice among several), never
    its id: feedparser makes an Atom ``<id>`` the link when there is no link."""
    links = item.get("links", [])
    alternates = [link["href"] for link in links if link_relation(link.get("rel")) == "alternate" and link.get("href")]
    link = item.get("link")
    return link if link in alternates else (alternates[0] if alternates else None)


#: The element an RSS feed writes for each of feedparser's date keys (feedparser names them as Atom does).
_RSS_DATE_NAMES = {"published": "pubDate", "updated": "dc:date", "modified": "dcterms:modified", "created": "created"}


def parsed_entries(parsed: Any, ctx: Context, raw: _RawLinks | None, skip: int = 0) -> Iterator[Entry]:
    """The entries feedparser found, after the first ``skip`` items; URLs checked against ``raw``."""
    # feedparser reads an Atom <id> like an RSS guid and makes it the link when no link came first;
    # an Atom id is an identifier, not the entry's page (only link[@rel=alternate or no rel] is)
    atom = str(parsed.get("version", "")).startswith("atom")
    for index, item in enumerate(itertools.islice(parsed.entries, skip, None), start=skip + 1):
        loc_text = _atom_link(item) if atom else item.get("link")
        if not loc_text:
            ctx.warning(
                "loc-missing", f"{describe_item(item.get('title'), index)} has no link and no permalink guid; skipped"
            )
            continue
        if raw is not None:
            loc_text = raw.verify(loc_text, ctx)
        loc = read_loc(loc_text, ctx, 0, fallback_base=parsed.feed.get("link") or None)
        if loc is None:
            continue
        lastmod = None
        for key in ("updated", "published", "modified", "created"):
            text = dict.get(item, key)  # not item.get: feedparser maps a missing "updated" to "published", warning
            if text:
                lastmod = feed_date(text, key if atom else _RSS_DATE_NAMES[key], ctx)
                if lastmod is not None:
                    break
        keywords = tuple(tag["term"].strip() for tag in item.get("tags", []) if tag.get("term", "").strip())
        title = real_title(_feed_title(item) or None, loc_text, loc)
        summary = real_title(item.get("summary") or None, loc_text, loc)
        origin = new_position(ctx.name, 0)
        yield full_entry(loc, lastmod, None, None, title, summary, keywords, None, (), (), {}, origin)


def _feed_title(node: Any) -> str:
    """feedparser's title, as plain text when its type says it holds markup (as the lxml path reads it)."""
    title = str(node.get("title") or "")
    detail = node.get("title_detail") or {}
    return plain_title(title, str(detail.get("type", ""))) if title else title


def _feed_description(feed: Any, atom: bool) -> str:
    """feedparser's subtitle or description; an Atom subtitle as plain text when its type says it holds
    markup (RSS 2.0's channel description is plain text; the lxml path reads it so)."""
    text = str(feed.get("subtitle") or feed.get("description") or "")
    detail = feed.get("subtitle_detail") or {}
    return plain_title(text, str(detail.get("type", ""))) if atom and text else text


def feedparse(data: bytes, ctx: Context, broken: etree.LxmlError | None) -> Any:
    """feedparser's reading of the whole input; ``broken`` is lxml's error when lxml could not read it."""
    import feedparser  # only when needed (most feeds are streamed by lxml): its import is slow (benchmarks/README.md)

    try:
        parsed = feedparser.parse(data, sanitize_html=False, resolve_relative_uris=False)
    except Exception as error:  # feedparser has its own failure modes on damaged input (found by fuzzing)
        raise ReadError(f"feedparser cannot read this feed ({error})", source=ctx.name, code="not-a-feed") from error
    if broken is not None:
        line = broken.lineno if isinstance(broken, etree.XMLSyntaxError) and broken.lineno else 0
        message = broken.msg if isinstance(broken, etree.XMLSyntaxError) and broken.msg else str(broken)
        ctx.warning("malformed-feed", f"the feed is not well-formed ({message}); read leniently", line)
    elif parsed.get("bozo"):
        exc = parsed.get("bozo_exception")
        line = exc.getLineNumber() if hasattr(exc, "getLineNumber") else 0
        message = exc.getMessage() if hasattr(exc, "getMessage") else str(exc)
        ctx.warning("malformed-feed", f"the feed is not well-formed ({message}); read leniently", line)
    return parsed


def raw_links(parsed: Any, data: bytes) -> _RawLinks | None:
    """The raw links of a feed feedparser had to recover (None when it read the feed as well-formed)."""
    if not parsed.get("bozo"):
        return None
    encoding = str(parsed.get("encoding") or "utf-8")
    try:
        text = data.decode(encoding, "replace")
    except LookupError:
        text = data.decode("utf-8", "replace")
    return _RawLinks(text)


def read_with_feedparser(
    data: bytes, ctx: Context, broken: etree.LxmlError | None = None, *, reported: int = 0
) -> Document:
    """The whole feed read by feedparser (the path for what lxml cannot read); the first ``reported``
    surrogate references were reported already."""
    data = replace_surrogate_refs(data, ctx.reporter, ctx.name, skip=reported)
    parsed = feedparse(data, ctx, broken)
    if not parsed.get("version") and not parsed.entries:
        raise ReadError("not a feed that feedparser understands", source=ctx.name, code="not-a-feed")
    feed = parsed.feed
    atom = str(parsed.get("version", "")).startswith("atom")
    meta = DocMeta(
        kind=DocKind.FEED,
        title=_feed_title(feed) or None,
        link=(_atom_link(feed) if atom else feed.get("link")) or None,
        description=_feed_description(feed, atom) or None,
        updated=channel_date(str(dict.get(feed, "updated") or "")),
    )
    return Document(meta, parsed_entries(parsed, ctx, raw_links(parsed, data)), diagnostics=ctx.reporter.diagnostics)
