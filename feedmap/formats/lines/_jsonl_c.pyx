# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled twin of :func:`feedmap.formats.lines._jsonl._common`, the JSON lines reader's common line.

Spec: as :mod:`feedmap.formats.lines._jsonl` (JSON Lines, https://jsonlines.org/; the values of the sitemaps.org
0.9 protocol and Google image sitemaps 1.1).  :func:`common` takes the object of a line of common keys (``loc``,
``lastmod``, ``changefreq``, ``priority``, ``images``) and gives exactly what the pure twin gives: the entry
when nothing would be said of the line, None for the long way.  Its loc check is urls._PLAIN_LOC_NO_USERINFO as
a character loop (``feedmap/formats/_plain_c.pxd``, shared with the sitemap walk), its lastmod check the
plain-date loop (anything it does not take is asked of W3CDate, as the pure twin asks it of everything); the
changefreq, the priority (the fractions met before, ``_jsonl_values._EXACT``) and the images are the pure twin's
tests.  The entries, images and dates are built by direct slot stores where Entry, Image and W3CDate are the
shape the builders know (``DIRECT_BUILD``, as in ``_walk_c.pyx``), else by their setattr path (same objects).
:class:`Lines` is the twin of the reader's loop (``_jsonl._lines``): the same lines go to the common step (no
``\\u`` escape, strict UTF-8 once stripped as ``bytes.strip`` strips, one JSON value filling it, found by the
reader's own decoder, an object of common keys), every other one to the long way, in order.
tests/test_jsonl_twins.py reads lines on both sides of every decision both ways.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.object cimport PyObject_GenericSetAttr
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_SET_ITEM

from feedmap.formats._plain_c cimport alloc, plain_date, plain_loc, put, slot_offset

from decimal import Decimal as _Decimal
from types import MemberDescriptorType as _MemberDescriptor

from feedmap._core.dates import W3CDate as _W3CDate
from feedmap._core.model import Entry as _Entry
from feedmap._core.model import Image as _Image
from feedmap._core.model import Position as _Position
from feedmap._core.urls import MAX_LOC_LENGTH as _MAX_LOC_LENGTH
from feedmap.formats._fields import _CHANGEFREQS
from feedmap.formats.lines._jsonl_values import _DECODER, _EXACT

cdef extern from "Python.h":
    object PyUnicode_DecodeUTF8(const char* data, Py_ssize_t size, const char* errors)

cdef Py_ssize_t _LOC_LIMIT = _MAX_LOC_LENGTH
cdef dict _FREQS = _CHANGEFREQS
cdef dict _FRACTIONS = _EXACT  # the pure twin's own table (it fills it as the long way meets fractions)
cdef object _DECIMAL = _Decimal
cdef object _new_object = object.__new__
cdef object _new_tuple = tuple.__new__
cdef object _EMPTY = ()
#: The reader's decoder's scanner: what its raw_decode calls, at 0 here (a stripped line starts with no blank).
cdef object _scan = _DECODER.scan_once
cdef frozenset _COMMON_KEYS = frozenset(("loc", "lastmod", "changefreq", "priority", "images"))

# ------------------------------------------------------------------------------------------ the builders
# As in _walk_c.pyx: the type's tp_alloc and a store in each slot, only where every slot is a plain writable
# object member and no __setattr__ or __new__ of the classes stands in the way; else the setattr path.

cdef Py_ssize_t _ENTRY_SLOTS[14]
cdef Py_ssize_t _IMAGE_SLOTS[5]
cdef Py_ssize_t _DATE_SLOT
cdef bint _DIRECT = True

for _index_, _name_ in enumerate(
    ("loc", "lastmod", "changefreq", "priority", "title", "description", "keywords", "type", "images",
     "alternates", "extras", "origin", "news", "videos")
):
    _ENTRY_SLOTS[_index_] = slot_offset(_Entry, _name_, _MemberDescriptor)
    _DIRECT = _DIRECT and _ENTRY_SLOTS[_index_] >= 0
for _index_, _name_ in enumerate(("loc", "caption", "geo_location", "title", "license")):
    _IMAGE_SLOTS[_index_] = slot_offset(_Image, _name_, _MemberDescriptor)
    _DIRECT = _DIRECT and _IMAGE_SLOTS[_index_] >= 0
_DATE_SLOT = slot_offset(_W3CDate, "text", _MemberDescriptor)
_DIRECT = (
    _DIRECT
    and _DATE_SLOT >= 0
    and len(_Entry.__slots__) == 14
    and len(_Image.__slots__) == 5
    and _Entry.__setattr__ is object.__setattr__
    and _Image.__setattr__ is object.__setattr__
    and _Entry.__new__ is object.__new__
    and _Image.__new__ is object.__new__
    and _W3CDate.__new__ is object.__new__
    and _Position.__mro__[1] is tuple
)
#: Whether entries are built by direct slot stores (see above); the entries are the same either way.
DIRECT_BUILD = _DIRECT


cdef object _image(object loc):
    """``model.blank_image()`` with its loc set (the pure twin's common image)."""
    cdef object image
    if not _DIRECT:
        image = _new_object(_Image)
        image.loc = loc
        image.caption = image.geo_location = image.title = image.license = None
        return image
    image = alloc(_Image, 0)
    put(image, _IMAGE_SLOTS[0], loc)
    put(image, _IMAGE_SLOTS[1], None)
    put(image, _IMAGE_SLOTS[2], None)
    put(image, _IMAGE_SLOTS[3], None)
    put(image, _IMAGE_SLOTS[4], None)
    return image


cdef object _plain_w3cdate(str text):
    """The W3CDate of a ``text`` found plain, without W3CDate's checks."""
    cdef object date
    if not _DIRECT:
        date = _new_object(_W3CDate)
        PyObject_GenericSetAttr(date, "text", text)
        return date
    date = alloc(_W3CDate, 0)
    put(date, _DATE_SLOT, text)
    return date


cdef object _position(str source, object line):
    """``model.new_position(source, line)``."""
    cdef object position
    if not _DIRECT:
        return _new_tuple(_Position, (source, line))
    position = alloc(_Position, 2)
    Py_INCREF(source)
    PyTuple_SET_ITEM(position, 0, source)
    Py_INCREF(line)
    PyTuple_SET_ITEM(position, 1, line)
    return position


cdef object _new_entry(object loc, object lastmod, object changefreq, object priority, object images, object origin):
    """``model.full_entry(loc, lastmod, changefreq, priority, None, None, (), None, images, (), {}, origin)``."""
    cdef object entry
    if not _DIRECT:
        entry = _new_object(_Entry)
        entry.loc = loc
        entry.lastmod = lastmod
        entry.changefreq = changefreq
        entry.priority = priority
        entry.images = images
        entry.alternates = ()
        entry.news = None
        entry.videos = ()
        entry.extras = {}
        entry.title = None
        entry.description = None
        entry.keywords = ()
        entry.type = None
        entry.origin = origin
        return entry
    entry = alloc(_Entry, 0)
    put(entry, _ENTRY_SLOTS[0], loc)
    put(entry, _ENTRY_SLOTS[1], lastmod)
    put(entry, _ENTRY_SLOTS[2], changefreq)
    put(entry, _ENTRY_SLOTS[3], priority)
    put(entry, _ENTRY_SLOTS[4], None)
    put(entry, _ENTRY_SLOTS[5], None)
    put(entry, _ENTRY_SLOTS[6], _EMPTY)
    put(entry, _ENTRY_SLOTS[7], None)
    put(entry, _ENTRY_SLOTS[8], images)
    put(entry, _ENTRY_SLOTS[9], _EMPTY)
    put(entry, _ENTRY_SLOTS[10], {})
    put(entry, _ENTRY_SLOTS[11], origin)
    put(entry, _ENTRY_SLOTS[12], None)
    put(entry, _ENTRY_SLOTS[13], _EMPTY)
    return entry


# ------------------------------------------------------------------------------------------ the common line


def common(dict obj not None, str name not None, object line):
    """See :func:`feedmap.formats.lines._jsonl._common`."""
    return _common(obj, name, line)


cdef object _common(dict obj, str name, object line):
    cdef object loc = obj.get("loc")
    cdef object lastmod, changefreq, priority, images, item, image_loc
    cdef object date = None, freq = None, weight = None
    cdef list pictures
    if type(loc) is not str or not plain_loc(<str>loc, _LOC_LIMIT):
        return None
    lastmod = obj.get("lastmod")
    if lastmod is not None:
        if type(lastmod) is not str:
            return None
        if plain_date(<str>lastmod):
            date = _plain_w3cdate(<str>lastmod)
        else:
            try:
                date = _W3CDate(lastmod)
            except ValueError:
                return None
    changefreq = obj.get("changefreq")
    if changefreq is not None:
        try:
            freq = _FREQS.get(changefreq)  # as the protocol spells it; unhashable: TypeError
        except TypeError:
            return None
        if freq is None:
            return None
    priority = obj.get("priority")
    if priority is not None:
        if type(priority) is not _DECIMAL:
            return None
        try:
            weight = _FRACTIONS.get(priority)  # a fraction met before, exact and in range
        except TypeError:
            return None
        if weight is None:
            return None
    images = obj.get("images")
    if images is None:
        images = _EMPTY
    elif type(images) is list:
        pictures = []
        for item in <list>images:
            if type(item) is not dict or len(<dict>item) != 1:
                return None
            image_loc = (<dict>item).get("loc")
            if type(image_loc) is not str:
                return None
            pictures.append(_image(image_loc))
        images = tuple(pictures)
    else:
        return None
    return _new_entry(loc, date, freq, weight, images, _position(name, line))


# ------------------------------------------------------------------------------------------------ the loop


cdef inline bint _blank(unsigned char c):
    """What ``bytes.strip()`` strips: ASCII blanks (space, \\t \\n \\v \\f \\r)."""
    return c == 32 or 9 <= c <= 13


cdef object _common_object(bytes raw):
    """The object of a line when the pure loop would hand it to the common step: no ``\\u`` escape in it, strict
    UTF-8 once stripped, one JSON value filling it, an object of common keys; else None (the long way)."""
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(raw)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(raw)
    cdef Py_ssize_t i, start = 0, stop = n
    cdef object text, obj, end, key
    for i in range(n - 1):
        if p[i] == 92 and p[i + 1] == 117:  # "\\u"
            return None
    while start < stop and _blank(p[start]):
        start += 1
    while stop > start and _blank(p[stop - 1]):
        stop -= 1
    try:
        text = PyUnicode_DecodeUTF8(<const char*>p + start, stop - start, NULL)  # strict
        obj, end = _scan(text, 0)  # raw_decode(text) less its look for blanks first (none) and its frame
    except (ValueError, RecursionError, StopIteration):  # UnicodeDecodeError too: a line the long way reports
        return None
    if end != len(<str>text) or type(obj) is not dict:
        return None
    for key in <dict>obj:
        if key not in _COMMON_KEYS:
            return None
    return obj


cdef class Lines:
    """The compiled twin of :func:`feedmap.formats.lines._jsonl._lines`: the entries of the lines of ``blocks``
    (after line ``line``), each common line by :func:`common`, any other by ``long_way(raw, line)``."""

    cdef object _blocks
    cdef object _block
    cdef Py_ssize_t _at
    cdef Py_ssize_t _size
    cdef Py_ssize_t _line
    cdef str _name
    cdef object _long_way

    def __init__(self, blocks, Py_ssize_t line, str name not None, long_way):
        self._blocks = iter(blocks)
        self._block = ()
        self._at = self._size = 0
        self._line = line
        self._name = name
        self._long_way = long_way

    def __iter__(self):
        return self

    def __next__(self):
        cdef object raw, obj, entry, line
        while True:
            if self._at >= self._size:
                self._block = next(self._blocks)  # StopIteration: the end
                self._at = 0
                self._size = len(self._block)
                continue
            raw = self._block[self._at]
            self._at += 1
            self._line += 1
            line = self._line
            if raw is not None:
                obj = _common_object(<bytes>raw)
                if obj is not None:
                    entry = _common(<dict>obj, self._name, line)
                    if entry is not None:
                        return entry
            entry = self._long_way(raw, line)
            if entry is not None:
                return entry
