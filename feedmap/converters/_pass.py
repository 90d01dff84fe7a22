"""One pass per entry for a urlset's common plan: the checks, the merge of repeats and the ``<url>`` in one go.

sitemaps.org 0.9 (https://www.sitemaps.org/protocol.html) lists a URL once, absolute, as an http(s) page.  The
plan of a conversion or a write to a ``sitemap`` (:func:`feedmap.converters._pipeline.plan`) ends with the
checks (:func:`~feedmap._core.entry_checks.check_values` for entries built in code,
:func:`~feedmap._core.entry_checks.check_web_urls`, :func:`~feedmap._core.entry_checks.keep_absolute`), then the
merge of repeated locs.  :func:`checked_merge` is those steps as one (:class:`CheckedMerge`): iterated, it is
those steps one after the other, as before; taken by the writer that merges rendered records
(:mod:`feedmap.converters._records`), it runs :func:`fused_into`, one loop over the entries as given.

Per entry, one look decides whether the entry is *plain*: a loc that is a plain http(s) URI (:data:`PLAIN_WEB`,
shorter than :data:`~feedmap._core.urls.MAX_LOC_LENGTH`: every check accepts it and it is written and keyed
as it is, an ``&`` escaped), a lastmod absent or already in the XSD's form, a changefreq, a priority whose
text is known, images whose loc (and licence) is plain too and whose caption, geo location and title hold no
character XML cannot hold (escaped as :func:`~feedmap._xml.escape_text` escapes them), and nothing else (no
alternates, news, videos, extras, or fields a urlset cannot hold).  A plain entry says nothing on any step: it is keyed
and, when kept, rendered here (the same bytes as :func:`feedmap.formats.sitemap._urlset.blocks`).  Every
other entry takes the long way (:func:`long_way`), each step's own per-entry function in the steps' order, so
each diagnostic is said where and in the order it is said today.  The long way, the keeping of a plain record
(:func:`keep_plain`, :class:`Stored`) and the record's shape are the feed pass's too
(:mod:`feedmap.converters._feed_pass`), and both compiled loops call them.

The compiled twin (:mod:`feedmap.converters._pass_c`, Cython) runs the same loop; it is used where it is built,
unless ``FEEDMAP_PURE`` is set (not to ``0``).  ``FEEDMAP_REQUIRE_ACCEL=1`` makes a missing one an error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar, cast

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate
from feedmap._core.entry_checks import LeftOut, check_values, check_web_urls, keep_absolute, values_checked, web_checked
from feedmap._core.model import ChangeFreq, Entry
from feedmap._core.urls import MAX_LOC_LENGTH, is_absolute_url, plain_uri
from feedmap._io.seen_keys import SeenKeys
from feedmap._xml import escape_text, unwritable
from feedmap.converters._duplicates import (
    _PART_OVERHEAD,
    Merge,
    _as_written,
    _Repeats,
    dedupe,
    dedupe_policy,
    merge_repeat,
)
from feedmap.formats._xmlwrite import PRIORITY_TEXTS, xsd_shape

__all__ = [
    "PLAIN_WEB",
    "CheckedMerge",
    "Stored",
    "checked_merge",
    "compiled_or",
    "fused_into",
    "fused_loop",
    "keep_plain",
    "long_way",
    "plain_block",
]

#: The characters of :func:`feedmap._core.urls.plain_uri` but ``#`` (and, in a host, ``:/?@``), and ``&``.
_PLAIN_NO_HASH = r"[A-Za-z0-9\-._~:/?@!$&()*+,;=]*"
#: A plain http(s) URL: a lowercase ``http://`` or ``https://`` (``check_web_urls``' common spelling), a host of
#: plain characters, a port of at most four digits, then plain characters or ``&`` with at most one ``#``.  What
#: it matches, :func:`~feedmap._core.urls.is_uri` matches (written and keyed as it is, only an ``&`` escaped),
#: and so do :func:`~feedmap._core.urls.check_loc` (no problem, below :data:`MAX_LOC_LENGTH`),
#: :func:`~feedmap._core.urls.not_in_iris` (nothing) and :func:`~feedmap._core.urls.is_absolute_url`.
PLAIN_WEB = re.compile(
    r"https?://[A-Za-z0-9\-._~!$()*+,;=]+(?::[0-9]{0,4})?(?:[/?]" + _PLAIN_NO_HASH + ")?(?:#" + _PLAIN_NO_HASH + ")?"
)


def _web_text(url: Any) -> str | None:
    """``url`` as a plain entry writes it (a plain http(s) URL, :data:`PLAIN_WEB`, its ``&`` escaped), or None."""
    if url.__class__ is not str or _plain_web(url) is None:
        return None
    return url.replace("&", "&amp;") if "&" in url else url


def _plain_text(value: Any) -> str | None:
    """``value`` escaped as :func:`~feedmap.formats._xmlwrite.text_of` writes it when it says nothing (no
    character XML cannot hold), or None."""
    if value.__class__ is not str:
        return None
    text = escape_text(value)
    if text is not value and unwritable(value):
        return None
    return text


class CheckedMerge(Merge):
    """The checks of a urlset's URLs then the merge of repeats, not started: iterated (or its ``entries``), the
    steps one after the other; or run as one loop by :func:`fused_into`, over :attr:`given`."""

    def __init__(
        self,
        given: Iterable[Entry],
        ctx: Context,
        replaces: Callable[[Entry, Entry], bool],
        kept_what: str,
        *,
        values: bool,
        target: str,
    ) -> None:
        self.given, self.values, self.target = given, values, target
        checked = check_values(given, ctx) if values else given
        super().__init__(
            keep_absolute(check_web_urls(checked, ctx, xml=True, parts=True), ctx, target), ctx, replaces, kept_what
        )


def checked_merge(entries: Iterable[Entry], ctx: Context, values: bool, dedupe_step: bool) -> Iterator[Entry]:
    """The step of the checks of a ``sitemap``'s URLs (``values``: :func:`check_values` first) then the merge of
    repeats (``dedupe_step``: :func:`~feedmap.converters.dedupe`'s, by ``ctx.options.dedupe``; else the
    default merge, the newest lastmod kept): a :class:`CheckedMerge`, or the steps (``dedupe=first``)."""
    policy = dedupe_policy(ctx.options.dedupe if dedupe_step else None)
    if policy.replaces is None:
        checked = check_values(entries, ctx) if values else entries
        return dedupe(keep_absolute(check_web_urls(checked, ctx, xml=True, parts=True), ctx, "sitemap"), ctx)
    return CheckedMerge(entries, ctx, policy.replaces, policy.kept_what, values=values, target="sitemap")


def plain_block(entry: Entry, images: bool) -> str | None:
    """The ``<url>`` of ``entry`` when it is plain (see the module's docstring: nothing to say on any step),
    with its end tag; else None.  ``images``: the image extension writes images (else an entry with images
    is not plain)."""
    loc = entry.loc
    if (
        loc.__class__ is not str
        or len(loc) >= MAX_LOC_LENGTH
        or entry.extras
        or entry.alternates
        or entry.news is not None
        or entry.videos
        or entry.title is not None
        or entry.description is not None
        or entry.keywords
        or entry.type is not None
    ):
        return None
    loc_text = _web_text(loc)
    if loc_text is None:
        return None
    lastmod, changefreq, priority = entry.lastmod, entry.changefreq, entry.priority
    if lastmod is None:
        block = "<url><loc>" + loc_text + "</loc>"
    elif lastmod.__class__ is W3CDate and xsd_shape(lastmod.text) is not None:
        block = "<url><loc>" + loc_text + "</loc><lastmod>" + lastmod.text + "</lastmod>"
    else:
        return None
    if changefreq is not None:
        if changefreq.__class__ is not ChangeFreq:
            return None
        block += "<changefreq>" + changefreq.value + "</changefreq>"
    if priority is not None:
        text = PRIORITY_TEXTS.get(priority) if priority.__class__ is float else None
        if text is None:
            return None
        block += "<priority>" + text + "</priority>"
    if entry.images:
        if not images:
            return None
        for image in entry.images:
            image_loc = _web_text(image.loc)
            if image_loc is None:
                return None
            block += "<image:image><image:loc>" + image_loc + "</image:loc>"
            caption, geo_location, title, license_url = image.caption, image.geo_location, image.title, image.license
            if caption is not None or geo_location is not None or title is not None or license_url is not None:
                texts = _image_texts(caption, geo_location, title, license_url)
                if texts is None:
                    return None
                block += texts
            block += "</image:image>"
    return block + "</url>\n"


def _image_texts(caption: Any, geo_location: Any, title: Any, license_url: Any) -> str | None:
    """An image's caption, geo location, title and licence elements as a plain entry writes them, or None."""
    parts = ""
    for value, name in ((caption, "caption"), (geo_location, "geo_location"), (title, "title")):
        if value is not None:
            text = _plain_text(value)
            if text is None:
                return None
            parts += "<image:" + name + ">" + text + "</image:" + name + ">"
    if license_url is not None:
        text = _web_text(license_url)
        if text is None:
            return None
        parts += "<image:license>" + text + "</image:license>"
    return parts


_plain_web = PLAIN_WEB.fullmatch


def fused_loop(
    given: Iterable[Entry],
    ctx: Context,
    values: bool,
    replaces: Callable[[Entry, Entry], bool],
    kept: SeenKeys,
    store: Callable[[Entry], int],
    add: Callable[[Any, int], int],
    fetch: Callable[[int], Any],
    images: bool,
    left_out: LeftOut,
    repeats: _Repeats,
) -> bool:
    """The loop of :func:`fused_into` (the pure-Python twin of the compiled one): ``store`` keeps an entry's
    record the long way (rendered, what was said held), ``add`` a plain entry's ``(record, size)``; ``images``:
    as :func:`plain_block` takes it.  Whether a plain record holds images (its root must declare their
    namespace)."""
    written = _as_written(ctx)
    imaged = False
    for entry in given:
        block = plain_block(entry, images)
        if block is not None:  # plain: nothing to say on any step; written and keyed as it is
            if not imaged and entry.images:
                imaged = True
            lastmod = entry.lastmod  # a plain record holds the lastmod's text (no object for the collector)
            record = (entry.loc, None if lastmod is None else lastmod.text, entry.origin, block, None, None)
            keep_plain(entry, record, ctx, replaces, kept, add, fetch, repeats)
        else:
            long_way(entry, ctx, values, written, left_out, replaces, kept, store, fetch, repeats)
    return imaged


def keep_plain(
    entry: Entry,
    record: tuple[Any, ...],
    ctx: Context,
    replaces: Callable[[Entry, Entry], bool],
    kept: SeenKeys,
    add: Callable[[Any, int], int],
    fetch: Callable[[int], Any],
    repeats: _Repeats,
) -> None:
    """A plain ``entry`` keyed by its loc as it is, its ``record`` (rendered already: a :class:`Stored`'s shape)
    added when the loc is new, else merged with the one kept (:func:`merge_repeat`)."""
    loc = record[0]
    key = hash(loc)
    offset = kept.get(key)
    if offset is None:
        kept.add(key, add(record, _PART_OVERHEAD + len(record[3]) + len(loc)))
    else:
        merge_repeat(entry, loc, key, offset, ctx, replaces, kept, Stored(record, add), fetch, repeats)


def long_way(
    entry: Entry,
    ctx: Context,
    values: bool,
    written: Callable[[str], str],
    left_out: LeftOut,
    replaces: Callable[[Entry, Entry], bool],
    kept: SeenKeys,
    store: Callable[[Entry], int],
    fetch: Callable[[int], Any],
    repeats: _Repeats,
) -> None:
    """An entry that is not plain, the long way (a urlset's or a feed's pass, either twin): each step's own look
    at it, in the plan's order (:func:`values_checked` when ``values``, :func:`web_checked`, then a relative loc
    left out, said at the end by ``left_out``), then keyed by its loc as written (``written``, for one not plain
    already) and kept by ``store`` when new, else merged with the one kept (:func:`merge_repeat`)."""
    checked = web_checked(values_checked(entry, ctx) if values else entry, ctx, xml=True, parts=True)
    if checked is None:
        return
    loc = checked.loc
    if not is_absolute_url(loc):
        left_out.add(checked, ctx)
        return
    if plain_uri(loc) is None:
        loc = written(loc)
    key = hash(loc)
    offset = kept.get(key)
    if offset is None:
        kept.add(key, store(checked))
    else:
        merge_repeat(checked, loc, key, offset, ctx, replaces, kept, store, fetch, repeats)


class Stored:
    """A plain entry's store (a urlset's or a feed's pass, either twin): its record, rendered already, added
    (called with the entry, by :func:`merge_repeat`).  A record's shape, as both passes make it: the loc, the
    lastmod (or its text), the origin and the rendered text first; its size, the text's and the loc's."""

    __slots__ = ("add", "record")

    def __init__(self, record: tuple[Any, ...], add: Callable[[Any, int], int]) -> None:
        self.record, self.add = record, add

    def __call__(self, entry: Entry) -> int:
        record = self.record
        return self.add(record, _PART_OVERHEAD + len(record[3]) + len(record[0]))


def fused_into(
    merge: CheckedMerge,
    kept: SeenKeys,
    store: Callable[[Entry], int],
    add: Callable[[Any, int], int],
    fetch: Callable[[int], Any],
    images: bool,
) -> tuple[_Repeats, bool]:
    """The checks and the merge of ``merge`` (what :func:`~feedmap.converters._duplicates.merge_into` of its
    ``entries`` does, said in the same order) in one loop over the entries as given; the repeats, to report,
    and whether a plain record (rendered here) holds images."""
    ctx = merge.ctx
    left_out = LeftOut()
    repeats = _Repeats("first here")
    loop = _loop()
    imaged = loop(merge.given, ctx, merge.values, merge.replaces, kept, store, add, fetch, images, left_out, repeats)
    left_out.report(ctx, merge.target)
    return repeats, bool(imaged)


def _loop() -> Callable[..., bool]:
    """The loop in use: the compiled one where built (unless ``FEEDMAP_PURE``), else :func:`fused_loop`."""
    return compiled_or(fused_loop, "feedmap.converters._pass_c", "fused_loop")


_Twin = TypeVar("_Twin", bound=Callable[..., Any])


def compiled_or(twin: _Twin, module: str, name: str) -> _Twin:
    """The compiled twin of ``twin`` (``name`` in the compiled ``module``: either pass's) where it is built and
    loads, unless ``FEEDMAP_PURE`` is set (not to ``0``); else ``twin``.  A missing one is an ImportError with
    ``FEEDMAP_REQUIRE_ACCEL`` set (not to ``0``)."""
    if os.environ.get("FEEDMAP_PURE", "0") not in ("", "0"):
        return twin
    try:
        compiled = getattr(__import__(module, fromlist=[name]), name, None)
        if compiled is None:
            raise ImportError(f"cannot import name {name!r} from {module!r}", name=module)
    except ImportError:
        if os.environ.get("FEEDMAP_REQUIRE_ACCEL", "0") not in ("", "0"):
            raise
        return twin
    return cast(_Twin, compiled)
