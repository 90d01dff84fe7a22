"""One pass per entry for a feed's common plan: the checks, the merge of repeats and the ``<item>`` in one go.

RSS 2.0 (https://www.rssboard.org/rss-specification, ``<item>``; ROR, http://rorweb.com/0.1/, adds its
``ror:*`` elements): a feed lists a URL once, absolute, as an http(s) page.  The plan of a conversion or a write
to ``ror`` or ``rss`` (:func:`feedmap.converters._pipeline.plan`) ends with the checks
(:func:`~feedmap._core.entry_checks.check_values` for entries built in code,
:func:`~feedmap._core.entry_checks.check_web_urls`, :func:`~feedmap._core.entry_checks.keep_absolute`), then the
merge of repeated locs (then, for ROR, the count of untitled entries).  :func:`fused_feed` makes the checks and
the merge one step, a :class:`~feedmap.converters._pass.CheckedMerge`: iterated, it is those steps one after the
other, as before; taken by the feed writer that merges rendered records
(:mod:`feedmap.converters._feed_records`), it runs :func:`feed_merge_into`, one loop over the entries as given.

Per entry, one look decides whether the entry is *plain*: a loc that is a plain http(s) URI
(:data:`feedmap.converters._pass.PLAIN_WEB` without an ``&``, shorter than 2,048 characters: every check
accepts it, and it is written and keyed as it is), a title absent or of printable ASCII with nothing to escape nor trim
(:data:`PLAIN_TITLE`), a lastmod whose ``pubDate`` is known at once (ROR: absent or of the forms
:func:`feedmap.formats.feeds._pubdate.pubdate` formats itself; RSS: present, of the forms
:func:`~feedmap.formats.feeds._pubdate.exact_pubdate` knows read back exactly) and nothing else (no description,
keywords, changefreq, priority, type, images, alternates, news, videos or extras).  A plain entry says nothing on
any step: it is keyed and, when kept, rendered here, the bytes of :func:`feedmap.formats.feeds._rorwrite.ror_item` /
:func:`feedmap.formats.feeds._rssitem.rss_item`.  Every other entry takes the long way, each step's own per-entry
function in the steps' order (the urlset pass's :func:`~feedmap.converters._pass.long_way`), so each diagnostic
is said where and in the order it is said today.

The compiled twin (:mod:`feedmap.converters._feed_pass_c`, Cython) runs the same loop; it is used where it is
built, unless ``FEEDMAP_PURE`` is set (not to ``0``).  ``FEEDMAP_REQUIRE_ACCEL=1`` makes a missing one an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate
from feedmap._core.entry_checks import LeftOut, check_values, check_web_urls, keep_absolute
from feedmap._core.model import Entry
from feedmap._core.urls import MAX_LOC_LENGTH
from feedmap._io.seen_keys import SeenKeys
from feedmap.converters._duplicates import Merge, _as_written, _Repeats, dedupe, dedupe_policy, merge_duplicates
from feedmap.converters._pass import PLAIN_WEB, CheckedMerge, compiled_or, keep_plain, long_way
from feedmap.formats.feeds._pubdate import exact_pubdate, pubdate

__all__ = [
    "PLAIN_TITLE",
    "checked_feed_merge",
    "feed_loop",
    "feed_merge_into",
    "fused_feed",
    "plain_item",
    "replayer",
]

#: A title written as it is: printable ASCII but ``" & ' < >`` (what :func:`feedmap._xml.escape_text` escapes),
#: not blank at either end (nothing to trim), so :func:`~feedmap.formats.feeds._rsswrite.plain_text_of` says
#: nothing and gives it back.
PLAIN_TITLE = re.compile(r"[!#-%(-;=?-~](?:[ !#-%(-;=?-~]*[!#-%(-;=?-~])?")
_plain_title = PLAIN_TITLE.fullmatch
_plain_web = PLAIN_WEB.fullmatch
#: The forms of a lastmod :func:`~feedmap.formats.feeds._pubdate.pubdate` formats itself (year 0 aside).
_PUBDATE_FORMS = re.compile(
    r"\d{4}-\d\d-\d\d(?:T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?", re.ASCII
)
#: The forms :func:`~feedmap.formats.feeds._pubdate.exact_pubdate` knows read back exactly without a round
#: trip: seconds and ``Z``, or seconds and a non-zero offset of at most 13 hours; a year of 1000 or later.
_EXACT_FORMS = re.compile(r"[1-9]\d{3}-\d\d-\d\dT(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:Z|[+-](?:0\d|1[0-3]):[0-5]\d)")
_pubdate_form = _PUBDATE_FORMS.fullmatch
_exact_form = _EXACT_FORMS.fullmatch
_RESOURCE_OF = "<ror:resourceOf>sitemap</ror:resourceOf>"


def fused_feed(steps: list[Any], target: str) -> list[Any]:
    """``steps`` (a plan's, for ``target`` ``ror`` or ``rss``) with its checks and merge of repeats made one
    step (:func:`checked_feed_merge`) when they are the plan's last (before ROR's count of untitled entries);
    else ``steps`` as they are."""
    from feedmap.converters._pipeline import on_entries, sitemap_to_ror

    end = len(steps) - 1 if target == "ror" and steps and steps[-1] is sitemap_to_ror else len(steps)
    merges = (on_entries(merge_duplicates), on_entries(dedupe))
    if target not in ("ror", "rss") or end < 3 or steps[end - 1] not in merges:
        return steps
    web = on_entries(check_web_urls, xml=True, parts=True)
    if steps[end - 3] != web or steps[end - 2] != on_entries(keep_absolute, target=target):
        return steps
    values = end > 3 and steps[end - 4] == on_entries(check_values)
    merged = on_entries(checked_feed_merge, values=values, dedupe_step=steps[end - 1] == merges[1], target=target)
    return [*steps[: end - (4 if values else 3)], merged, *steps[end:]]


def checked_feed_merge(
    entries: Iterable[Entry], ctx: Context, values: bool, dedupe_step: bool, target: str
) -> Iterator[Entry]:
    """The step of the checks of a feed's URLs (``values``: :func:`check_values` first) then the merge of repeats
    (``dedupe_step``: by ``ctx.options.dedupe``; else the newest lastmod kept): a
    :class:`~feedmap.converters._pass.CheckedMerge`, or the steps (``dedupe=first``, which streams)."""
    policy = dedupe_policy(ctx.options.dedupe if dedupe_step else None)
    if policy.replaces is None:
        checked = check_values(entries, ctx) if values else entries
        return dedupe(keep_absolute(check_web_urls(checked, ctx, xml=True, parts=True), ctx, target), ctx)
    return CheckedMerge(entries, ctx, policy.replaces, policy.kept_what, values=values, target=target)


def plain_item(entry: Entry, ror: bool) -> str | None:
    """The ``<item>`` of ``entry`` (``ror``: a ROR item, else an RSS one) when it is plain (see the module's
    docstring: nothing to say on any step), else None."""
    loc = entry.loc
    title = entry.title
    if (
        loc.__class__ is not str
        or len(loc) >= MAX_LOC_LENGTH
        or _plain_web(loc) is None
        or "&" in loc  # PLAIN_WEB takes an & the urlset's pass escapes; here a loc is written as it is
        or entry.description is not None
        or entry.priority is not None
        or entry.changefreq is not None
        or entry.type is not None
        or entry.keywords
        or entry.extras
        or entry.images
        or entry.alternates
        or entry.news is not None
        or entry.videos
    ):
        return None
    if title is None:
        title = loc  # RSS wants a title or a description: the loc, plain already
    elif title.__class__ is not str or _plain_title(title) is None:
        return None
    lastmod = entry.lastmod
    head = f'<item><title>{title}</title><link>{loc}</link><guid isPermaLink="true">{loc}</guid>'
    if lastmod is None:
        return f"{head}{_RESOURCE_OF}</item>\n" if ror else None
    if lastmod.__class__ is not W3CDate:
        return None
    text = lastmod.text
    if ror:
        if text.__class__ is not str or _pubdate_form(text) is None or text.startswith("0000") or not _valid(text):
            return None
        return f"{head}<pubDate>{pubdate(lastmod)}</pubDate><ror:updated>{text}</ror:updated>{_RESOURCE_OF}</item>\n"
    if text.__class__ is not str or _exact_form(text) is None or text.endswith(("+00:00", "-00:00")):
        return None
    if not _valid(text):
        return None
    return f"{head}<pubDate>{exact_pubdate(lastmod)}</pubDate></item>\n"


_MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _valid(text: str) -> bool:
    """Whether the date ``text`` starts with (``YYYY-MM-DD``, digits) is a day of the calendar."""
    year, month, day = int(text[:4]), int(text[5:7]), int(text[8:10])
    if not 1 <= month <= 12 or not 1 <= day <= _MONTH_DAYS[month - 1]:
        return False
    return month != 2 or day < 29 or (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0))


def feed_loop(
    given: Iterable[Entry],
    ctx: Context,
    values: bool,
    replaces: Callable[[Entry, Entry], bool],
    kept: SeenKeys,
    store: Callable[[Entry], int],
    add: Callable[[Any, int], int],
    fetch: Callable[[int], Any],
    ror: bool,
    left_out: LeftOut,
    repeats: _Repeats,
) -> None:
    """The loop of :func:`feed_merge_into` (the pure-Python twin of the compiled one): ``store`` keeps an entry's
    record the long way (rendered, what was said held), ``add`` a plain entry's ``(record, size)``."""
    written = _as_written(ctx)
    for entry in given:
        text = plain_item(entry, ror)
        if text is not None:  # plain: nothing to say on any step; written and keyed as it is
            record = (entry.loc, entry.lastmod, entry.origin, text, None, None, None, entry.title is None)
            keep_plain(entry, record, ctx, replaces, kept, add, fetch, repeats)
        else:
            long_way(entry, ctx, values, written, left_out, replaces, kept, store, fetch, repeats)


def feed_merge_into(
    merge: Merge,
    ctx: Context,
    kept: SeenKeys,
    store: Callable[[Entry], int],
    add: Callable[[Any, int], int],
    fetch: Callable[[int], Any],
    *,
    ror: bool,
    plain: bool,
) -> _Repeats:
    """The merge of ``merge`` into records: when it is a :class:`~feedmap.converters._pass.CheckedMerge` and
    ``plain`` entries may be rendered here (no hook of a field they have), its checks and merge in one loop over
    the entries as given (what :func:`~feedmap.converters._duplicates.merge_into` of its ``entries`` does, said
    in the same order); else the merge's loop of its entries.  The repeats, to report."""
    if not plain or not isinstance(merge, CheckedMerge):
        from feedmap.converters._duplicates import merge_into

        return merge_into(merge.entries, ctx, merge.replaces, kept, store, fetch)
    left_out = LeftOut()
    repeats = _Repeats("first here")
    _loop()(merge.given, ctx, merge.values, merge.replaces, kept, store, add, fetch, ror, left_out, repeats)
    left_out.report(ctx, merge.target)
    return repeats


def _loop() -> Callable[..., None]:
    """The loop in use: the compiled one where built (unless ``FEEDMAP_PURE``), else :func:`feed_loop`."""
    return compiled_or(feed_loop, "feedmap.converters._feed_pass_c", "feed_loop")


def replayer(twin: Callable[..., Iterator[tuple[Any, str]]]) -> Callable[..., Iterator[tuple[Any, str]]]:
    """The replay of a feed's records in use (:func:`feedmap.converters._feed_records._replay`, the ``twin``):
    the compiled one where built (unless ``FEEDMAP_PURE``), else ``twin``."""
    return compiled_or(twin, "feedmap.converters._feed_pass_c", "replay")
