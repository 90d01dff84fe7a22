# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled twin of :func:`feedmap.converters._pass.fused_loop`: the same loop, the same "plain" decision.

sitemaps.org 0.9 (https://www.sitemaps.org/protocol.html).  The two regular expressions the twin asks per
entry are character loops here over CPython's code units (PEP 393): :data:`feedmap.converters._pass.PLAIN_WEB`
(``https?://`` + host + port of at most four digits + ``[/?]`` path + ``#`` fragment, plain characters only;
the loc shorter than 2,048), the feed pass's loop too (``_plain_web.pxd``; an ``&`` taken here, escaped), and
:func:`feedmap.formats._xmlwrite.xsd_shape` (a date, or a date and time with seconds of at most 59, a fraction,
a zone).  A text of code units wider than one byte is no plain URL (its characters are not ASCII) and no XSD
date.  Everything else, and every entry that is not plain, goes through
the same Python functions as the twin's.
"""

from feedmap.converters._plain_web cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND, plain_web

from feedmap._core.dates import W3CDate
from feedmap._core.model import ChangeFreq
from feedmap._core.urls import MAX_LOC_LENGTH
from feedmap._xml import escape_text, unwritable
from feedmap.converters._duplicates import _PART_OVERHEAD, _as_written, merge_repeat
from feedmap.formats._xmlwrite import PRIORITY_TEXTS


cdef Py_ssize_t _LONGEST = MAX_LOC_LENGTH


cdef object _web_text(object url, Py_ssize_t longest):
    """:func:`feedmap.converters._pass._web_text` (and shorter than ``longest``; 0: any length)."""
    if type(url) is not str:
        return None
    cdef int plain = plain_web(url, longest, True)
    if plain == 0:
        return None
    if plain == 2:
        return url.replace("&", "&amp;")
    return url


cdef object _plain_text(object value):
    """:func:`feedmap.converters._pass._plain_text`: a text of one-byte code units looked at here."""
    if type(value) is not str:
        return None
    cdef Py_ssize_t n, i
    cdef const unsigned char* d
    cdef unsigned char c
    cdef bint special = False
    if PyUnicode_KIND(value) == 1:
        n = PyUnicode_GET_LENGTH(value)
        d = <const unsigned char*>PyUnicode_DATA(value)
        for i in range(n):
            c = d[i]
            if c < 0x20:
                if c == 0x0D:
                    special = True
                elif c != 0x09 and c != 0x0A:
                    return None  # a character XML 1.0 cannot hold: dropped and said
            elif c == ord("&") or c == ord("<") or c == ord(">") or c == ord('"') or c == ord("'"):
                special = True
        return escape_text(value) if special else value
    text = escape_text(value)
    if text is not value and unwritable(value):
        return None
    return text


cdef inline bint _digits(const unsigned char* d, Py_ssize_t i, Py_ssize_t count) noexcept:
    cdef Py_ssize_t k
    for k in range(i, i + count):
        if not (ord("0") <= d[k] <= ord("9")):
            return False
    return True


cdef bint _xsd_shape(object text):
    """``xsd_shape(text) is not None`` for a str."""
    if PyUnicode_KIND(text) != 1:
        return False
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
    cdef const unsigned char* d = <const unsigned char*>PyUnicode_DATA(text)
    if n < 10 or not (_digits(d, 0, 4) and d[4] == ord("-") and _digits(d, 5, 2) and d[7] == ord("-") and _digits(d, 8, 2)):
        return False
    if n == 10:
        return True
    if n < 19 or not (d[10] == ord("T") and _digits(d, 11, 2) and d[13] == ord(":") and _digits(d, 14, 2) and d[16] == ord(":")):
        return False
    if not (ord("0") <= d[17] <= ord("5") and _digits(d, 18, 1)):
        return False
    cdef Py_ssize_t i = 19
    if i < n and d[i] == ord("."):
        i += 1
        if not (i < n and _digits(d, i, 1)):
            return False
        while i < n and _digits(d, i, 1):
            i += 1
    if i < n:
        if d[i] == ord("Z"):
            i += 1
        elif d[i] == ord("+") or d[i] == ord("-"):
            if not (i + 6 <= n and _digits(d, i + 1, 2) and d[i + 3] == ord(":") and _digits(d, i + 4, 2)):
                return False
            i += 6
    return i == n


cdef object _plain_block(object entry, bint images):
    """:func:`feedmap.converters._pass.plain_block`."""
    loc = entry.loc
    if (
        type(loc) is not str
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
    loc_text = _web_text(loc, _LONGEST)
    if loc_text is None:
        return None
    lastmod, changefreq, priority = entry.lastmod, entry.changefreq, entry.priority
    cdef list parts
    if lastmod is None:
        parts = ["<url><loc>", loc_text, "</loc>"]
    elif type(lastmod) is W3CDate:
        text = lastmod.text
        if type(text) is not str or not _xsd_shape(text):
            return None
        parts = ["<url><loc>", loc_text, "</loc><lastmod>", text, "</lastmod>"]
    else:
        return None
    if changefreq is not None:
        if type(changefreq) is not ChangeFreq:
            return None
        parts += ["<changefreq>", changefreq.value, "</changefreq>"]
    if priority is not None:
        known = PRIORITY_TEXTS.get(priority) if type(priority) is float else None
        if known is None:
            return None
        parts += ["<priority>", known, "</priority>"]
    pictures = entry.images
    if pictures:
        if not images:
            return None
        for image in pictures:
            image_loc = _web_text(image.loc, 0)
            if image_loc is None:
                return None
            caption, geo_location, title, license_url = image.caption, image.geo_location, image.title, image.license
            if caption is None and geo_location is None and title is None and license_url is None:
                parts += ["<image:image><image:loc>", image_loc, "</image:loc></image:image>"]
                continue
            parts += ["<image:image><image:loc>", image_loc, "</image:loc>"]
            if caption is not None:
                text = _plain_text(caption)
                if text is None:
                    return None
                parts += ["<image:caption>", text, "</image:caption>"]
            if geo_location is not None:
                text = _plain_text(geo_location)
                if text is None:
                    return None
                parts += ["<image:geo_location>", text, "</image:geo_location>"]
            if title is not None:
                text = _plain_text(title)
                if text is None:
                    return None
                parts += ["<image:title>", text, "</image:title>"]
            if license_url is not None:
                text = _web_text(license_url, 0)
                if text is None:
                    return None
                parts += ["<image:license>", text, "</image:license>"]
            parts.append("</image:image>")
    parts.append("</url>\n")
    return "".join(parts)


def fused_loop(given, ctx, bint values, replaces, kept, store, add, fetch, bint images, left_out, repeats):
    """:func:`feedmap.converters._pass.fused_loop`, compiled."""
    from feedmap.converters._pass import Stored, long_way

    written = _as_written(ctx)
    kept_get = kept.get
    keep = kept.add
    cdef Py_ssize_t overhead = _PART_OVERHEAD
    cdef bint imaged = False
    for entry in given:
        block = _plain_block(entry, images)
        if block is not None:  # plain: nothing to say on any step; written and keyed as it is
            if not imaged and entry.images:
                imaged = True
            loc = entry.loc
            key = hash(loc)
            offset = kept_get(key)
            lastmod = entry.lastmod  # a plain record holds the lastmod's text (no object for the collector)
            record = (loc, None if lastmod is None else lastmod.text, entry.origin, block, None, None)
            if offset is None:
                keep(key, add(record, overhead + len(block) + len(loc)))
            else:
                merge_repeat(entry, loc, key, offset, ctx, replaces, kept, Stored(record, add), fetch, repeats)
            continue
        # the long way (the twin's own function): each step's own look at this entry, in the plan's order
        long_way(entry, ctx, values, written, left_out, replaces, kept, store, fetch, repeats)
    return imaged
