"""What a report counts about the entries it reads, in one pass and bounded memory.

One job: :class:`Tally`, given each entry once (:meth:`Tally.add`), keeps counters whose size does not grow with
the number of URLs: by month of lastmod (UTC, sitemaps.org 0.9 ``lastmod`` in W3C Datetime,
https://www.w3.org/TR/NOTE-datetime), by age against one instant (7, 30, 365 days), by host and by top path
section (RFC 3986 §3.2.2 and §3.3; the first :data:`KEPT` of each kept by name, the rest under "others": see
:class:`Capped`), by ``changefreq`` and ``priority`` (sitemaps.org 0.9), by hreflang (Google's ``xhtml:link``
alternates, the languages capped as hosts are), by images per URL (Google image sitemap 1.1, at most 1,000 a
page); per child sitemap (the file each entry's ``origin`` names; the first :data:`KEPT_FILES` files kept by
name); and the repeated URLs, through the seen-URL memory :func:`feedmap.converters.dedupe` uses
(:class:`~feedmap._io.seen_keys.SeenKeys`: a dict, then a compact table, then SQLite on disk), the first
:data:`EXAMPLES` listed.  Two spellings of one URL (an IRI and its URI) are one URL, as deduplication says.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from feedmap._core.dates import W3CDate
from feedmap._core.model import Entry
from feedmap._core.options import Options
from feedmap._io.seen_keys import SeenKeys
from feedmap.converters._duplicates import url_key

__all__ = [
    "AGES",
    "EXAMPLES",
    "IMAGE_BUCKETS",
    "KEPT",
    "KEPT_FILES",
    "OTHERS",
    "Capped",
    "FileTally",
    "Repeat",
    "Tally",
    "image_bucket",
    "priority_bucket",
    "section_of",
]

#: Names kept by each capped counter (hosts, sections, hreflang values) before the rest count under "others".
KEPT = 1000
#: Child sitemaps kept by name in the per-file table; the rest are summed on one row.
KEPT_FILES = 1000
#: Examples kept of each kind (repeated URLs here; findings of a code in :mod:`feedmap._report.findings`).
EXAMPLES = 5
#: The name the rest are counted under.
OTHERS = "(others)"
#: The ages counted: changed in the last N days before the report's instant.
AGES = (7, 30, 365)
#: Images per URL, grouped: (label, smallest, largest).
IMAGE_BUCKETS = (
    ("0", 0, 0),
    ("1", 1, 1),
    ("2", 2, 2),
    ("3-5", 3, 5),
    ("6-10", 6, 10),
    ("11-100", 11, 100),
    ("101-1,000", 101, 1000),
    ("over 1,000", 1001, 1 << 62),
)
#: Lastmod texts whose instant and month are remembered (they repeat: most sitemaps write days).
_DATES_CACHED = 1 << 16
_DAY = 86400
_FEW_IMAGES = ("0", "1", "2")


class Capped:
    """A counter of at most ``kept`` names; a name met after that many others is counted under :data:`OTHERS`.

    The names kept are the first met, their counts exact; "others" sums the rest (also for a name seen again:
    it was never kept).  Chosen over a top-k sketch (Misra-Gries, Space-Saving) because the counts shown are
    then exact, and real inputs have far fewer hosts and sections than the cap.
    """

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self.counts: dict[str, int] = {}
        self.others = 0
        #: Names counted under others (each time one was met).
        self.overflowed = False

    def add(self, name: str, count: int = 1) -> None:
        counts = self.counts
        if name in counts:
            counts[name] += count
        elif len(counts) < self.kept:
            counts[name] = count
        else:
            self.others += count
            self.overflowed = True

    def top(self, rows: int) -> list[tuple[str, int]]:
        """The ``rows`` largest counts (ties by name), then one row of :data:`OTHERS` with the rest, if any."""
        ranked = sorted(self.counts.items(), key=lambda item: (-item[1], item[0]))
        shown = ranked[:rows]
        rest = sum(count for _name, count in ranked[rows:]) + self.others
        return [*shown, (OTHERS, rest)] if rest else shown

    def total(self) -> int:
        return sum(self.counts.values()) + self.others


@dataclass
class FileTally:
    """One file's entries (a child sitemap, or an input that is no index): URLs, images, lastmod range."""

    urls: int = 0
    images: int = 0
    dated: int = 0
    earliest: W3CDate | None = None
    latest: W3CDate | None = None
    #: The order keys (:meth:`W3CDate.order_key`) of the two: compared instead of the dates (a tuple compares in C).
    ends: tuple[Any, Any] = (None, None)

    def add_date(self, lastmod: W3CDate, key: tuple[int, str, int, str]) -> None:
        self.dated += 1
        first, last = self.ends
        if first is None or key < first:
            self.earliest, first = lastmod, key
        if last is None or key > last:
            self.latest, last = lastmod, key
        self.ends = (first, last)


@dataclass(frozen=True, slots=True)
class Repeat:
    """A URL listed again: the URL, where it was first listed and where it was listed again (file, line)."""

    loc: str
    first: tuple[str, int]
    again: tuple[str, int]


def section_of(path: str) -> str:
    """The top path section of a URL's path: ``/blog/`` for ``/blog/2024/post``, ``/`` for ``/about.html`` or
    an empty path."""
    head, slash, _rest = path.lstrip("/").partition("/")
    return f"/{head}/" if slash and head else "/"


def priority_bucket(priority: float | None) -> str:
    """The priority as one of 0.0, 0.1, ... 1.0 (rounded to the tenth), "none" when absent, "out of range"."""
    if priority is None:
        return "none"
    if not 0.0 <= priority <= 1.0:
        return "out of range"
    return f"{round(priority * 10) / 10:.1f}"


def image_bucket(count: int) -> str:
    for label, smallest, largest in IMAGE_BUCKETS:
        if smallest <= count <= largest:
            return label
    return IMAGE_BUCKETS[-1][0]  # pragma: no cover - the buckets cover every count


@dataclass
class Tally:
    """The counts of one report (see the module's docstring); :meth:`add` each entry, :meth:`close` at the end."""

    #: The instant the ages are counted back from (UTC).
    now: dt.datetime
    urls: int = 0
    images: int = 0
    with_alternates: int = 0
    alternates: int = 0
    months: Counter[str] = field(default_factory=Counter)
    #: URLs changed in the last N days, by N (:data:`AGES`); "future" those dated after ``now``.
    ages: Counter[str] = field(default_factory=Counter)
    hosts: Capped = field(default_factory=Capped)
    sections: Capped = field(default_factory=Capped)
    languages: Capped = field(default_factory=Capped)
    changefreqs: Counter[str] = field(default_factory=Counter)
    priorities: Counter[str] = field(default_factory=Counter)
    images_per_url: Counter[str] = field(default_factory=Counter)
    #: The files in the order their first entry came, the first :data:`KEPT_FILES` of them by name.
    files: dict[str, FileTally] = field(default_factory=dict)
    #: The entries of the files past the first :data:`KEPT_FILES`, summed.
    other_files: FileTally = field(default_factory=FileTally)
    repeated: int = 0
    repeats: list[Repeat] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._seen = SeenKeys()  # URL as written -> where it was first listed (file number << 32 | line)
        self._key = url_key(Options())
        self._names: list[str] = []  # file number -> name (one per file, not per URL)
        self._numbers: dict[str, int] = {}
        self._dates: dict[str, tuple[tuple[int, str, int, str], str]] = {}
        self.whole = FileTally()  # the lastmod range of every entry
        self._priorities: dict[float | None, str] = {}
        self._now = int(self.now.timestamp())
        self._file_name = ""
        self._file: FileTally = self.other_files
        self._file_number = 0

    def add(self, entry: Entry, source: str) -> None:
        """Count one entry, read from ``source`` when it has no origin."""
        self.urls += 1
        origin = entry.origin
        name, line = (origin.source, origin.line) if origin is not None else (source, 0)
        if name != self._file_name:
            self._switch(name)
        tally = self._file
        tally.urls += 1
        self._repeat(entry.loc, line)
        self._place(entry.loc)
        lastmod = entry.lastmod
        if lastmod is not None:
            key = self._date(lastmod)
            tally.add_date(lastmod, key)
        self.changefreqs[entry.changefreq.value if entry.changefreq is not None else "none"] += 1
        priority = entry.priority
        bucket = self._priorities.get(priority)
        if bucket is None:
            bucket = priority_bucket(priority)
            if len(self._priorities) < 1024:
                self._priorities[priority] = bucket
        self.priorities[bucket] += 1
        images = len(entry.images)
        if images:
            self.images += images
            tally.images += images
        self.images_per_url[image_bucket(images) if images > 2 else _FEW_IMAGES[images]] += 1
        if entry.alternates:
            self.with_alternates += 1
            self.alternates += len(entry.alternates)
            for alternate in entry.alternates:
                self.languages.add(alternate.hreflang)

    def _switch(self, name: str) -> None:
        number = self._numbers.get(name)
        if number is None:
            number = self._numbers[name] = len(self._names)
            self._names.append(name)
        self._file_name, self._file_number = name, number
        if name in self.files:
            self._file = self.files[name]
        elif len(self.files) < KEPT_FILES:
            self._file = self.files[name] = FileTally()
        else:
            self._file = self.other_files

    def _repeat(self, loc: str, line: int) -> None:
        key = self._key(loc)
        if self._seen.add_new(key, self._file_number << 32 | min(line, 0xFFFFFFFF)):
            return
        first = self._seen.get(key)
        assert first is not None
        self.repeated += 1
        if len(self.repeats) < EXAMPLES:
            at = (self._names[first >> 32], first & 0xFFFFFFFF)
            self.repeats.append(Repeat(loc, at, (self._file_name, line)))

    def _place(self, loc: str) -> None:
        host, path = _host_and_path(loc)
        self.hosts.add(host or "(no host)")
        self.sections.add(section_of(path))

    def _date(self, lastmod: W3CDate) -> tuple[int, str, int, str]:
        """Count one lastmod; its order key."""
        text = lastmod.text
        known = self._dates.get(text)
        if known is None:
            key = lastmod.order_key()
            known = (key, _month(key[0]))
            if len(self._dates) >= _DATES_CACHED:
                self._dates.clear()
            self._dates[text] = known
        key, month = known
        self.months[month] += 1
        age = self._now - key[0]
        if age < 0:
            self.ages["future"] += 1
        else:
            for days in AGES:
                if age <= days * _DAY:
                    self.ages[str(days)] += 1
        self.whole.add_date(lastmod, key)
        return key

    def file_rows(self) -> Iterator[tuple[str, FileTally]]:
        """The files by name in the order their entries came, then the others summed (if any)."""
        yield from self.files.items()
        others = len(self._names) - len(self.files)
        if others:
            yield f"{OTHERS}: {others:,} more files", self.other_files

    @property
    def earliest(self) -> W3CDate | None:
        return self.whole.earliest

    @property
    def latest(self) -> W3CDate | None:
        return self.whole.latest

    @property
    def dated(self) -> int:
        return self.whole.dated

    @property
    def distinct(self) -> int:
        return self.urls - self.repeated

    def close(self) -> None:
        """Forget the URLs seen (the seen-URL memory's files on disk removed)."""
        self._seen.close()


def _host_and_path(loc: str) -> tuple[str, str]:
    """The host (lower-cased, without user or port) and path of a URL (RFC 3986 §3): by hand for a plain
    ``http(s)://host[:port]/path`` (most locs), else by :func:`urllib.parse.urlsplit`."""
    scheme_end = loc.find("://")
    if 4 <= scheme_end <= 5 and loc[:scheme_end].lower() in ("http", "https"):
        start = scheme_end + 3
        end = len(loc)
        for stop in "/?#":
            found = loc.find(stop, start, end)
            if found >= 0:
                end = found
        authority = loc[start:end]
        if "@" not in authority and "[" not in authority:
            host = authority.partition(":")[0].lower()
            rest = loc[end:]
            cut = min((at for at in (rest.find("?"), rest.find("#")) if at >= 0), default=len(rest))
            return host, rest[:cut]
    try:
        parts = urlsplit(loc)
        return parts.hostname or "", parts.path
    except ValueError:  # a port that is no number, a bracket without its pair
        return "", ""


def _month(seconds: int) -> str:
    """``YYYY-MM`` of an instant in POSIX seconds (UTC); the first or last month of the calendar for an instant
    its zone moves out of it (``9999-12-31T23:00:00-05:00`` is in the year 10000 in UTC)."""
    ordinal = min(max(_EPOCH_ORDINAL + seconds // _DAY, 1), _LAST_ORDINAL)
    day = dt.date.fromordinal(ordinal)
    return f"{day.year:04d}-{day.month:02d}"


_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()
_LAST_ORDINAL = dt.date.max.toordinal()
