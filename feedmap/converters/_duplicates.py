"""Repeated locs merged (newest lastmod kept), reported or dropped, in bounded memory.

One job: the implementations, over a context, of the steps :func:`feedmap.converters.merge_duplicates`,
:func:`feedmap.converters.report_duplicates` and :func:`feedmap.converters.dedupe`, under the same names.
sitemaps.org 0.9 (https://www.sitemaps.org/protocol.html) lists a URL once; an RSS 2.0 ``guid``
(https://www.rssboard.org/rss-specification, ``<guid>`` of ``<item>``) identifies one item.  What is
kept in memory per URL is described in :mod:`feedmap.converters`.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from feedmap._core.context import Context, Options
from feedmap._core.dates import known_date
from feedmap._core.entry_checks import where
from feedmap._core.errors import SourceError
from feedmap._core.media import news_of, plain_news, plain_video, video_of
from feedmap._core.model import Alternate, ChangeFreq, Entry, Image, blank_image, new_entry, new_position
from feedmap._core.urls import encode_url, is_uri, plain_uri
from feedmap._core.wording import counted
from feedmap._io.scratch import scratch_error, scratch_file
from feedmap._io.seen_keys import SeenKeys

__all__ = [
    "DEDUPE_POLICIES",
    "LISTED_REPEATS",
    "DedupePolicy",
    "Merge",
    "dedupe",
    "dedupe_policy",
    "entry_size",
    "merge_duplicates",
    "merge_into",
    "merge_repeat",
    "newer",
    "report_duplicates",
    "url_key",
]

#: Entries kept as they are before the spool pickles them: most documents merge without pickling (a few
#: microseconds an entry, written and read back) at the cost of a few megabytes...
_ENTRIES_IN_MEMORY = 10_000
#: ... and at most this many bytes of them (:func:`entry_size`): 300 entries of 900 KB stay on disk.
_BYTES_IN_MEMORY = 8 << 20

#: What an entry costs in memory beyond its texts (the object, its tuples, a lastmod), and an image or an
#: alternate beyond theirs: a rough figure, for the byte budgets of the spool and of ``--sort``.
_ENTRY_OVERHEAD = 400
_PART_OVERHEAD = 120

#: An entry as pickled: its fields as plain values (the lastmod as its text, the changefreq as its value, each
#: image and alternate as a tuple, news and videos as their plain forms (:mod:`feedmap._core.media`), the origin
#: as (source, line)): they pickle several times faster than the
#: dataclasses and enums, which pickle through Python-level ``__reduce__`` and ``__getstate__`` calls.
_Frozen = tuple[Any, ...]


def _freeze(entry: Entry) -> _Frozen:
    lastmod = entry.lastmod.text if entry.lastmod is not None else None
    changefreq = getattr(entry.changefreq, "value", entry.changefreq)  # a str set by hand stays one
    images = tuple([(i.loc, i.caption, i.geo_location, i.title, i.license) for i in entry.images])
    alternates = tuple([(a.hreflang, a.href) for a in entry.alternates])
    origin = tuple(entry.origin) if entry.origin is not None else None
    news = plain_news(entry.news) if entry.news is not None else None
    videos = tuple([plain_video(video) for video in entry.videos]) if entry.videos else ()
    return (
        entry.loc,
        lastmod,
        changefreq,
        entry.priority,
        entry.title,
        entry.description,
        entry.keywords,
        entry.type,
        images,
        alternates,
        entry.extras,
        origin,
        news,
        videos,
    )


def _thaw(frozen: _Frozen) -> Entry:
    loc, lastmod, changefreq, priority, title, description, keywords, kind, images, alternates, *rest = frozen
    extras, origin, news, videos = rest
    entry = new_entry(
        loc,
        known_date(lastmod) if lastmod is not None else None,  # the text of a W3CDate: valid
        _CHANGEFREQS.get(changefreq, changefreq) if changefreq is not None else None,
        priority,
        tuple([_image(*image) for image in images]) if images else (),
        tuple([Alternate(hreflang=hreflang, href=href) for hreflang, href in alternates]) if alternates else (),
        extras,
        new_position(*origin) if origin is not None else None,
    )
    entry.title, entry.description, entry.keywords, entry.type = title, description, keywords, kind
    if news is not None:
        entry.news = news_of(news)
    if videos:
        entry.videos = tuple([video_of(video) for video in videos])
    return entry


def entry_size(entry: Entry) -> int:
    """About the bytes ``entry`` takes in memory: its texts' characters and a fixed overhead per part."""
    size = _ENTRY_OVERHEAD + len(entry.loc)
    if entry.title is not None:
        size += len(entry.title)
    if entry.description is not None:
        size += len(entry.description)
    if entry.keywords:  # each part tested first: most entries have none of most (this runs once per URL kept)
        for keyword in entry.keywords:
            size += len(keyword)
    for image in entry.images:
        size += _PART_OVERHEAD + len(image.loc or "")
        if image.caption is not None or image.title is not None:
            size += len(image.caption or "") + len(image.title or "")
    if entry.alternates:
        for alternate in entry.alternates:
            size += _PART_OVERHEAD + len(alternate.href)
    if entry.extras:
        for key, value in entry.extras.items():
            size += _PART_OVERHEAD + len(key) + (len(value) if isinstance(value, str) else 0)
    if entry.news is not None:
        size += _PART_OVERHEAD * 4
    for video in entry.videos:  # a video's description may be 2,048 characters
        size += _PART_OVERHEAD * 8 + len(video.description or "")
    return size


_WHAT = "file for repeated URLs"


def _no_room(exc: BaseException) -> SourceError:
    return scratch_error(_WHAT, exc)


_CHANGEFREQS = {member.value: member for member in ChangeFreq}


def _image(loc: str, caption: str | None, geo_location: str | None, title: str | None, license: str | None) -> Image:
    image = blank_image()
    image.loc, image.caption, image.geo_location = loc, caption, geo_location
    image.title, image.license = title, license
    return image


#: Bytes of pickled entries gathered before they are written to the temporary file, and read from it at once
#: when the entries come back in the order they were written (the output of a merge, mostly).
_CHUNK = 1 << 20
_SMALL = 4096  # bytes read for an entry asked for out of order (a repeat)
_LENGTH = struct.Struct("<Q")  # each pickle is preceded by its length


#: Entries frozen and pickled together as one record of the temporary file, at most: one pickle call per
#: page instead of one per entry (and pickle's memo shares the texts that repeat within it, "daily", a host);
#: a page also closes when its entries reach :data:`_CHUNK` bytes (:func:`entry_size`).
_PAGE = 128
_SLOT_BITS = 12  # an offset in the file: the record's byte offset, shifted, and the entry's place in its page
_SLOTS = (1 << _SLOT_BITS) - 1
_PAGES_DECODED = 4  # pages kept unpickled, for the repeats that read entries back out of order


class _Spool:
    """Entries kept by offset: the first :data:`_ENTRIES_IN_MEMORY` (up to :data:`_BYTES_IN_MEMORY`) in a
    list (offsets below 0), the others gathered in pages of up to :data:`_PAGE` entries, each page pickled
    as one record (after its length) into a temporary file, written and read by the :data:`_CHUNK`, so that
    a merge of a million entries makes a few thousand pickle calls and a few hundred file calls, not millions.
    An entry's offset is its page's byte offset and its place in the page (:data:`_SLOT_BITS`); the page
    being filled is held as it is, and the few pages read last stay unpickled (:data:`_PAGES_DECODED`)."""

    def __init__(
        self,
        freeze: Callable[[Any], _Frozen] = _freeze,
        thaw: Callable[[_Frozen], Any] | None = _thaw,
        size: Callable[[Any], int] = entry_size,
    ) -> None:
        # what an item is made into to be pickled, made back from (None: as it is), and costs in memory:
        # entries by default
        self._freeze_item, self._thaw_item, self._size_of = freeze, thaw, size
        self._file: IO[bytes] | None = None  # opened with the first chunk written
        self._written = 0  # bytes in the file
        self._tail = bytearray()  # the records after those, not written yet
        self._chunk = b""  # bytes of the file read last, from offset self._chunk_at
        self._chunk_at = 0
        self._next = -1  # the offset after the record read last: the next one in order
        self._held: list[Any] = []
        self._held_bytes = 0  # past the budget: -1, every later entry paged
        self._page: list[Any] = []  # the page being filled, at file offset self._page_at
        self._page_at = 0
        self._page_bytes = 0
        self._decoded: dict[int, list[_Frozen]] = {}  # record offset -> its page, unpickled
        self._thawed: list[Any] = []  # the entries of the page read in order last (at _thawed_at)
        self._thawed_at = -1
        self._page_size = min(_PAGE, _SLOTS + 1)

    def add(self, entry: Any, size: int = -1) -> int:
        """Append ``entry`` (an entry, or an item of the kind the spool was made for; ``size``: its size when
        the caller knows it); its offset."""
        if size < 0:
            size = self._size_of(entry)
        if self._held_bytes >= 0:  # still holding entries as they are
            if len(self._held) < _ENTRIES_IN_MEMORY:
                self._held_bytes += size
                if self._held_bytes <= _BYTES_IN_MEMORY:
                    self._held.append(entry)
                    return -len(self._held)
            self._held_bytes = -1
        page = self._page
        if not page:
            self._page_at = self._written + len(self._tail)
        page.append(entry)
        offset = (self._page_at << _SLOT_BITS) | (len(page) - 1)
        self._page_bytes += size
        if len(page) >= self._page_size or self._page_bytes >= _CHUNK:
            self._close_page()
        return offset

    def _close_page(self) -> None:
        import pickle  # only when a page goes to the scratch file (start-up)

        freeze = self._freeze_item
        data = pickle.dumps([freeze(entry) for entry in self._page], protocol=pickle.HIGHEST_PROTOCOL)
        self._tail += _LENGTH.pack(len(data))
        self._tail += data
        self._page = []
        self._page_bytes = 0
        if len(self._tail) >= _CHUNK:
            self._write()

    def get(self, offset: int) -> Any:
        """The entry (or item) at ``offset``."""
        if offset < 0:
            return self._held[-offset - 1]
        at, slot = offset >> _SLOT_BITS, offset & _SLOTS
        if self._page and at == self._page_at:  # the page being filled
            return self._page[slot]
        if at == self._thawed_at:  # the page read in order last, its entries made at once
            return self._thawed[slot]
        page = self._decoded.get(at)
        if page is None:
            in_order = at == self._next  # the output of a merge reads the pages one after the other
            page = self._decode(at)
            if in_order:
                thaw = self._thaw_item
                self._thawed, self._thawed_at = page if thaw is None else [thaw(frozen) for frozen in page], at
                return self._thawed[slot]
        thaw = self._thaw_item
        return page[slot] if thaw is None else thaw(page[slot])

    def _decode(self, at: int) -> list[_Frozen]:
        """The page whose record starts at ``at``, unpickled (and kept among the last few)."""
        import pickle

        if at >= self._written:  # not written yet
            start = at - self._written + _LENGTH.size
            (length,) = _LENGTH.unpack_from(self._tail, start - _LENGTH.size)
            page: list[_Frozen] = pickle.loads(self._tail[start : start + length])
        else:
            chunk, start = self._chunk, at - self._chunk_at
            if not 0 <= start <= len(chunk) - _LENGTH.size or (end := start + _record(chunk, start)) > len(chunk):
                chunk, start = self._read(at, _CHUNK if at == self._next else _SMALL), 0
                end = _record(chunk, 0)
            self._next = at + end - start
            # our own temporary file, written by add
            page = pickle.loads(memoryview(chunk)[start + _LENGTH.size : end])
        if len(self._decoded) >= _PAGES_DECODED:
            del self._decoded[next(iter(self._decoded))]  # the oldest read
        self._decoded[at] = page
        return page

    def _write(self) -> None:
        try:  # a temporary folder that is missing or full: said as such, not as a traceback
            if self._file is None:
                self._file = scratch_file("feedmap-dedupe-", _WHAT)
            self._file.seek(self._written)
            self._file.write(self._tail)
            self._file.flush()  # a full disk shows here, not at a later read
        except OSError as exc:
            raise _no_room(exc) from exc
        self._written += len(self._tail)
        self._tail = bytearray()

    def _read(self, offset: int, size: int) -> bytes:
        """At least the whole entry at ``offset`` and up to ``size`` bytes, read from the file."""
        assert self._file is not None  # an offset below self._written
        try:
            self._file.seek(offset)
            chunk = self._file.read(max(size, _LENGTH.size))  # the record is whole in the file: its length field too
            if _record(chunk, 0) > len(chunk):  # an entry larger than size
                chunk += self._file.read(_record(chunk, 0) - len(chunk))
        except OSError as exc:
            raise _no_room(exc) from exc
        self._chunk, self._chunk_at = chunk, offset
        return chunk

    def close(self) -> None:
        self._held.clear()
        self._page, self._decoded, self._thawed, self._thawed_at = [], {}, [], -1
        self._tail = bytearray()
        self._chunk = b""
        if self._file is not None:
            with contextlib.suppress(OSError):  # a full disk: the data not flushed is dropped, not raised again
                self._file.close()
            self._file = None


def _record(data: bytes, start: int) -> int:
    """The length of the record at ``start`` of ``data``: the length field and the pickle after it."""
    return _LENGTH.size + int(_LENGTH.unpack_from(data, start)[0])


def newer(candidate: Entry, current: Entry) -> bool:
    """True when ``candidate``'s lastmod is a later instant than ``current``'s (a missing one is oldest)."""
    if candidate.lastmod is None:
        return False
    if current.lastmod is None:
        return True
    return candidate.lastmod > current.lastmod  # the order of W3CDate: by instant, a tie by precision


def _later(candidate: Entry, current: Entry) -> bool:
    """Always True: the last entry of a loc replaces the one kept (``--dedupe last``)."""
    return True


#: ``--dedupe`` policies: which entry of a repeated loc is kept (by :func:`dedupe`).
DEDUPE_POLICIES = ("first", "last", "newest")


#: How many repeated locs are reported one by one (``loc-duplicate``); the rest are counted.
LISTED_REPEATS = 100


class _Repeats:
    """The locs seen more than once: how often, and where each was first seen.

    The first :data:`LISTED_REPEATS` repeated locs are listed one by one; repeats of the others are only
    counted (``more-duplicates``), so an input that repeats every URL neither holds a record per URL here nor
    prints a line per URL.
    """

    def __init__(self, where: str) -> None:
        self.seen: dict[str, list[Any]] = {}  # loc -> [count, source, line], for the listed locs only
        self.total = 0
        self.unlisted = 0  # repeats of locs past the listed ones
        self.where = where  # what the line reported is: the first occurrence, or the first repeat

    def add(self, loc: str, first: Callable[[], tuple[str, int]]) -> None:
        self.total += 1
        record = self.seen.get(loc)
        if record is not None:
            record[0] += 1
        elif len(self.seen) < LISTED_REPEATS:
            self.seen[loc] = [2, *first()]
        else:
            self.unlisted += 1

    def report(self, ctx: Context, merged: str) -> None:
        """Report each listed repeated loc, then the rest and the total; ``merged`` says what became of them."""
        what = f"merged, {merged}" if merged else "every one kept"
        for loc, (count, source, line) in self.seen.items():
            ctx.reporter.info("loc-duplicate", f"{loc} appears {count} times ({self.where}); {what}", source, line)
        if self.unlisted:
            more = counted(self.unlisted, "more repeat")
            ctx.info("more-duplicates", f"{more} of other URLs, not listed one by one; {what}")
        if merged and self.total:
            ctx.info("duplicates-merged", f"{counted(self.total, 'repeated URL')} merged, {merged}")


def _as_written(ctx: Context) -> Callable[[str], str]:
    return url_key(ctx.options)


def url_key(options: Options) -> Callable[[str], str]:
    """The URL an XML output writes for a loc, what every policy (and ``diff``) keys on: two spellings of one
    URL (an IRI and its URI) are one URL (and one guid); with ``keep_urls``, the loc as read."""
    if options.keep_urls and not options.encode_urls:
        return _unchanged
    return _encoded


def _unchanged(loc: str) -> str:
    return loc


def _encoded(loc: str) -> str:
    """``loc`` as a URI (a lone surrogate, from an entry built in Python, is kept: :func:`encode_url`)."""
    return loc if is_uri(loc) else encode_url(loc)


def merge_duplicates(
    entries: Iterable[Entry],
    ctx: Context,
    replaces: Callable[[Entry, Entry], bool] = newer,
    kept_what: str = "the newest lastmod kept",
) -> Iterator[Entry]:
    """Each loc once, in first-seen order; ``replaces(candidate, current)``: whether a repeat takes the place of
    the entry kept (default: when its lastmod is newer; ties to the first).

    Only each loc's hash and offset in the spool stay in memory; a repeated loc reads the kept entry back.
    The merge starts when its first entry is asked for; until then a writer that renders records may run it
    instead (:class:`Merge`, :mod:`feedmap.converters._records`).
    """
    return Merge(entries, ctx, replaces, kept_what)


class Merge(Iterator[Entry]):
    """A merge of repeated locs not started yet: iterated, the merge of entries (:func:`_merged`); or taken
    (:meth:`take`) by a writer that merges rendered records in its place, the same loop over another store
    (:func:`merge_into`)."""

    def __init__(
        self, entries: Iterable[Entry], ctx: Context, replaces: Callable[[Entry, Entry], bool], kept_what: str
    ) -> None:
        self.entries, self.ctx, self.replaces, self.kept_what = entries, ctx, replaces, kept_what
        self._run: Iterator[Entry] | None = None

    @property
    def started(self) -> bool:
        return self._run is not None

    def take(self, run: Iterator[Any]) -> None:
        """Mark the merge as run by ``run`` (closed by :meth:`close`) instead of by iterating it."""
        assert self._run is None
        self._run = run

    def __iter__(self) -> Iterator[Entry]:
        if self._run is None:
            return self  # not started: still a merge a writer can take (``iter`` of it, a pass-through wrap)
        return self._run  # the generator itself: no layer per entry

    def __next__(self) -> Entry:
        if self._run is None:
            self._run = _merged(self.entries, self.ctx, self.replaces, self.kept_what)
        return next(self._run)

    def close(self) -> None:
        close = getattr(self._run, "close", None)
        if close is not None:
            close()


def merge_into(
    entries: Iterable[Entry],
    ctx: Context,
    replaces: Callable[[Entry, Entry], bool],
    kept: SeenKeys,
    store: Callable[[Entry], int],
    fetch: Callable[[int], Any],
) -> _Repeats:
    """The merge's loop: each loc's first entry stored (``store``: its offset, kept under the loc's key), a
    repeat that ``replaces`` the one kept (``fetch``: by its offset; anything with its ``loc``, ``lastmod`` and
    ``origin``) stored in its place; returns the repeats seen, to report."""
    # hash(loc) -> offset of the kept entry, in first-seen order; the kept entry's loc confirms the match: a
    # loc whose hash another loc has (rare, or crafted) is keyed by itself (a str never equals an int), so it
    # keeps its place in that order too
    repeats = _Repeats("first here")
    written = _as_written(ctx)
    kept_get, keep = kept.get, kept.add  # bound once: called per URL
    for entry in entries:
        loc = entry.loc
        if plain_uri(loc) is None:  # a plain URI is written as it is in every mode
            loc = written(loc)
        key: int | str = hash(loc)
        offset = kept_get(key)
        if offset is None:  # the common case: a loc seen first
            keep(key, store(entry))
            continue
        merge_repeat(entry, loc, key, offset, ctx, replaces, kept, store, fetch, repeats)
    return repeats


def merge_repeat(
    entry: Entry,
    loc: str,
    key: int | str,
    offset: int,
    ctx: Context,
    replaces: Callable[[Entry, Entry], bool],
    kept: SeenKeys,
    store: Callable[[Entry], int],
    fetch: Callable[[int], Any],
    repeats: _Repeats,
) -> None:
    """:func:`merge_into` of an entry whose loc (``loc``, as written) has a key (``key``: its hash) kept already
    (at ``offset``): a repeat counted, stored in the kept one's place if it ``replaces`` it; or a loc of the same
    hash, kept under itself."""
    current = fetch(offset)
    if _as_written(ctx)(current.loc) != loc:  # another loc of the same hash
        key = loc
        found = kept.get(loc)
        if found is None:
            kept.add(key, store(entry))
            return
        current = fetch(found)
    repeats.add(loc, lambda: where(current, ctx))
    if replaces(entry, current):
        kept.replace(key, store(entry))  # an existing key keeps its place


def _merged(
    entries: Iterable[Entry], ctx: Context, replaces: Callable[[Entry, Entry], bool], kept_what: str
) -> Iterator[Entry]:
    """The merge of entries: each kept one in the spool, read back in first-seen order."""
    kept = SeenKeys()
    spool = _Spool()
    try:
        merge_into(entries, ctx, replaces, kept, spool.add, spool.get).report(ctx, merged=kept_what)
        for offset in kept.values():
            yield spool.get(offset)
    finally:
        kept.close()
        spool.close()


def report_duplicates(
    entries: Iterable[Entry], ctx: Context, *, drop: bool = False, kept_what: str = "the URL written once"
) -> Iterator[Entry]:
    """Every entry passed on, streamed, each repeated loc reported; ``drop``: repeats are left out as well.

    Dropping is right where only the loc is written (a text sitemap): the output is that of
    :func:`merge_duplicates`, streamed.  Only the set of the locs as written grows with the input (the text
    itself, not a hash: two locs are one only when their texts are).
    """
    seen = SeenKeys()  # loc as written -> 0
    repeats = _Repeats("first repeated here")
    written = _as_written(ctx)
    first_time = seen.add_new
    try:
        for entry in entries:
            loc = written(entry.loc)
            if not first_time(loc, 0):
                repeats.add(loc, lambda: where(entry, ctx))  # noqa: B023 (called at once)
                if drop:
                    continue
            yield entry
    finally:
        seen.close()
    repeats.report(ctx, merged=kept_what if drop else "")


@dataclass(frozen=True, slots=True)
class DedupePolicy:
    """What a ``--dedupe`` rule keeps of a repeated loc (:func:`dedupe_policy`)."""

    #: Whether a repeat takes the place of the entry kept (None: the first is kept, the repeats dropped as
    #: they come, :func:`report_duplicates`; else :func:`merge_duplicates` with it).
    replaces: Callable[[Entry, Entry], bool] | None
    #: What became of the repeats, as ``loc-duplicate`` and ``duplicates-merged`` say.
    kept_what: str
    #: The line each ``loc-duplicate`` names: the loc's first occurrence (a merge) or its first repeat.
    where: str


def dedupe_policy(rule: str | None) -> DedupePolicy:
    """The policy of ``options.dedupe`` (None: ``newest``), as :func:`dedupe` and the fused passes run it (and
    a Dask bag's dedupe across partitions, :mod:`feedmap._web.bag_dedupe`)."""
    if rule == "first":
        return DedupePolicy(None, "the first kept", "first repeated here")
    if rule == "last":
        return DedupePolicy(_later, "the last kept", "first here")
    return DedupePolicy(newer, "the newest lastmod kept", "first here")


def dedupe(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """Each loc once by ``ctx.options.dedupe`` (None: ``newest``), in first-seen order: ``first`` streams
    (only the set of locs seen grows), ``last`` and ``newest`` merge as :func:`merge_duplicates` does."""
    policy = dedupe_policy(ctx.options.dedupe)
    if policy.replaces is None:
        return report_duplicates(entries, ctx, drop=True, kept_what=policy.kept_what)
    return merge_duplicates(entries, ctx, policy.replaces, policy.kept_what)
