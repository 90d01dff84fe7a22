# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled twin of :func:`feedmap.converters._feed_pass.feed_loop`: the same loop, the same "plain" decision.

RSS 2.0 (https://www.rssboard.org/rss-specification, ``<item>``, ``<pubDate>`` in RFC 822 form with RFC 1123's
four-digit year) and ROR (http://rorweb.com/0.1/).  The regular expressions the twin asks per entry are
character loops here over CPython's code units (PEP 393): :data:`feedmap.converters._pass.PLAIN_WEB` (the loc,
without an ``&``: the urlset pass's loop, ``_plain_web.pxd``),
:data:`feedmap.converters._feed_pass.PLAIN_TITLE` (the title) and the lastmod forms whose ``pubDate`` is known
at once; the ``pubDate`` itself (weekday, day, month, year, time, zone) is written from the lastmod's digits, as
:func:`feedmap.formats.feeds._pubdate.pubdate` writes it.  A text of code units wider than one byte is none of
these (its characters are not ASCII).  Every entry that is not plain goes through the same Python functions as
the twin's.
"""

from libc.string cimport memcpy

from feedmap.converters._plain_web cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND, plain_web

from feedmap._core.dates import W3CDate
from feedmap._core.urls import MAX_LOC_LENGTH
from feedmap.converters._duplicates import _PART_OVERHEAD, _as_written, merge_repeat


cdef Py_ssize_t _LONGEST = MAX_LOC_LENGTH
cdef const char* _DAYS = b"SunMonTueWedThuFriSat"
cdef const char* _MONTHS = b"JanFebMarAprMayJunJulAugSepOctNovDec"
cdef int _MONTH_DAYS[12]
_MONTH_DAYS[:] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
cdef int _SHIFTS[12]
_SHIFTS[:] = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4]


cdef inline bint _title(const unsigned char* d, Py_ssize_t i) noexcept:
    """``d[i]`` is a character of :data:`~feedmap.converters._feed_pass.PLAIN_TITLE` but the space: printable
    ASCII but ``" & ' < >``."""
    return 0x21 <= d[i] <= 0x7E and d[i] not in b"\"&'<>"


cdef bint _plain_title(object text):
    """``PLAIN_TITLE.fullmatch(text)`` for a str."""
    if PyUnicode_KIND(text) != 1:
        return False
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
    cdef const unsigned char* d = <const unsigned char*>PyUnicode_DATA(text)
    if n == 0 or not (_title(d, 0) and _title(d, n - 1)):
        return False
    cdef Py_ssize_t i
    for i in range(1, n - 1):
        if d[i] != ord(" ") and not _title(d, i):
            return False
    return True


cdef inline int _number(const unsigned char* d, Py_ssize_t i, Py_ssize_t count) noexcept:
    """The digits ``d[i:i + count]`` as a number, or -1 when one is no digit."""
    cdef int value = 0
    cdef Py_ssize_t k
    for k in range(i, i + count):
        if not (ord("0") <= d[k] <= ord("9")):
            return -1
        value = value * 10 + (d[k] - ord("0"))
    return value


cdef object _pubdate(object text, bint ror):
    """The ``pubDate`` of a lastmod's ``text`` when it is of a plain form, else None: ROR, the forms
    :func:`~feedmap.formats.feeds._pubdate.pubdate` formats itself; RSS, those
    :func:`~feedmap.formats.feeds._pubdate.exact_pubdate` knows read back exactly (a valid day of the calendar)."""
    if PyUnicode_KIND(text) != 1:
        return None
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
    cdef const unsigned char* d = <const unsigned char*>PyUnicode_DATA(text)
    if n < 10 or d[4] != ord("-") or d[7] != ord("-"):
        return None
    cdef int year = _number(d, 0, 4), month = _number(d, 5, 2), day = _number(d, 8, 2)
    if year < (1 if ror else 1000) or not 1 <= month <= 12 or not 1 <= day <= _MONTH_DAYS[month - 1]:
        return None
    if month == 2 and day == 29 and not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)):
        return None
    cdef char out[32]
    cdef int k
    cdef int y = year - (month < 3)
    cdef int weekday = (y + y // 4 - y // 100 + y // 400 + _SHIFTS[month - 1] + day) % 7
    for k in range(3):
        out[k] = _DAYS[3 * weekday + k]
        out[8 + k] = _MONTHS[3 * (month - 1) + k]
    memcpy(out + 3, b", ", 2)
    out[5], out[6] = d[8], d[9]
    out[7] = out[11] = out[16] = 32  # a space
    memcpy(out + 12, d, 4)
    if n == 10:  # a date: midnight UTC
        if not ror:
            return None
        memcpy(out + 17, b"00:00:00 GMT", 12)
        return out[:29].decode("ascii")
    if n < 20 or d[10] != ord("T") or d[13] != ord(":") or d[16] != ord(":"):  # seconds and a zone: 20 or more
        return None
    cdef int hours = _number(d, 11, 2), minutes = _number(d, 14, 2), seconds = _number(d, 17, 2)
    if not (0 <= hours <= 23 and 0 <= minutes <= 59 and 0 <= seconds <= 59):
        return None
    memcpy(out + 17, d + 11, 8)
    cdef Py_ssize_t i = 19
    if i < n and d[i] == ord("."):
        if not ror:
            return None
        i += 1
        if not (i < n and ord("0") <= d[i] <= ord("9")):
            return None
        while i < n and ord("0") <= d[i] <= ord("9"):
            i += 1
    if i + 1 == n and d[i] == ord("Z"):
        memcpy(out + 25, b" GMT", 4)
        return out[:29].decode("ascii")
    if i + 6 != n or not (d[i] == ord("+") or d[i] == ord("-")) or d[i + 3] != ord(":"):
        return None
    hours, minutes = _number(d, i + 1, 2), _number(d, i + 4, 2)
    if not (0 <= hours <= 23 and 0 <= minutes <= 59):
        return None
    if hours == 0 and minutes == 0:
        if not ror:
            return None
        memcpy(out + 25, b" GMT", 4)
        return out[:29].decode("ascii")
    if not ror and hours > 13:
        return None
    out[25], out[26], out[27], out[28], out[29], out[30] = 32, d[i], d[i + 1], d[i + 2], d[i + 4], d[i + 5]
    return out[:31].decode("ascii")


cdef object _plain_item(object entry, bint ror):
    """:func:`feedmap.converters._feed_pass.plain_item`."""
    loc = entry.loc
    if (
        type(loc) is not str
        or plain_web(loc, _LONGEST, False) == 0  # no &: a feed writes a plain loc as it is
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
    title = entry.title
    if title is None:
        title = loc
    elif type(title) is not str or not _plain_title(title):
        return None
    lastmod = entry.lastmod
    if lastmod is None:
        if not ror:
            return None
        return (
            f'<item><title>{title}</title><link>{loc}</link><guid isPermaLink="true">{loc}</guid>'
            f"<ror:resourceOf>sitemap</ror:resourceOf></item>\n"
        )
    if type(lastmod) is not W3CDate:
        return None
    text = lastmod.text
    if type(text) is not str:
        return None
    pub_date = _pubdate(text, ror)
    if pub_date is None:
        return None
    if ror:
        return (
            f'<item><title>{title}</title><link>{loc}</link><guid isPermaLink="true">{loc}</guid>'
            f"<pubDate>{pub_date}</pubDate><ror:updated>{text}</ror:updated>"
            f"<ror:resourceOf>sitemap</ror:resourceOf></item>\n"
        )
    return (
        f'<item><title>{title}</title><link>{loc}</link><guid isPermaLink="true">{loc}</guid>'
        f"<pubDate>{pub_date}</pubDate></item>\n"
    )


def plain_item(entry, bint ror):
    """:func:`feedmap.converters._feed_pass.plain_item`, compiled (for the tests of the twins)."""
    return _plain_item(entry, ror)


def feed_loop(given, ctx, bint values, replaces, kept, store, add, fetch, bint ror, left_out, repeats):
    """:func:`feedmap.converters._feed_pass.feed_loop`, compiled."""
    from feedmap.converters._pass import Stored, long_way

    written = _as_written(ctx)
    kept_get = kept.get
    keep = kept.add
    cdef Py_ssize_t overhead = _PART_OVERHEAD
    for entry in given:
        text = _plain_item(entry, ror)
        if text is not None:  # plain: nothing to say on any step; written and keyed as it is
            loc = entry.loc
            key = hash(loc)
            offset = kept_get(key)
            record = (loc, entry.lastmod, entry.origin, text, None, None, None, entry.title is None)
            if offset is None:
                keep(key, add(record, overhead + len(text) + len(loc)))
            else:
                merge_repeat(entry, loc, key, offset, ctx, replaces, kept, Stored(record, add), fetch, repeats)
            continue
        # the long way (the twin's own function): each step's own look at this entry, in the plan's order
        long_way(entry, ctx, values, written, left_out, replaces, kept, store, fetch, repeats)


def replay(offsets, spool, namespaces, ctx, name, bint untitled):
    """:func:`feedmap.converters._feed_records._replay`, compiled: the records at ``offsets``, in order, what
    was said rendering each said, its marks made declarations, its block; then ``title-missing`` and the fields
    the format cannot hold."""
    from feedmap.converters._feed_records import _MARK
    from feedmap.converters._records import _say
    from feedmap.converters._unheld import report_unheld
    from feedmap.converters._sitemap_to_ror import say_untitled

    reporter = ctx.reporter
    told = set()  # the extras said dropped: once, at the first item written
    found = set()
    cdef Py_ssize_t count = 0
    get = spool.get
    for offset in offsets:
        record = get(offset)
        text = record[3]
        said = record[4]
        uses = record[5]
        fields = record[6]
        if said is not None:
            _say(said, reporter, told)
        if fields is not None:
            found.update(fields)
        if record[7]:
            count += 1
        if type(text) is not str:
            raise text
        if uses is not None:
            for prefix in uses:
                namespaces.use(prefix)
                text = text.replace(f"{_MARK}{prefix}{_MARK}", namespaces.xmlns(prefix))
        yield None, text
    if untitled:
        say_untitled(count, ctx)
    if found:
        report_unheld(found, name, ctx)
