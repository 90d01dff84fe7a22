# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled twins of :func:`feedmap.formats.sitemap._walk.walk` and of its read loop
(:class:`feedmap.formats.sitemap._walk.Loop`), over lxml's C API.

Spec: as :mod:`feedmap.formats.sitemap._walk` (sitemaps.org 0.9, Google image sitemaps 1.1).  It walks the
libxml2 nodes of one entry without making an lxml proxy for each child, and gives exactly what the pure twin
gives for every element: the same nodes count as children (lxml's ``_isElement``: elements, comments,
processing instructions, entity references), the same text (lxml's ``textOf``, which is ``.text``) and the
same tests on it.  The loop takes the same steps as the pure one (the same elements freed, the same ones
given to the full reader); where it checks a value in C (a loc, a lastmod) it says yes only to values the pure
twin's checks accept, and asks those checks about the rest (the checks of ``feedmap/formats/_plain_c.pxd``, shared
with the JSON lines reader's compiled twin).  It must stay step for step with the pure twin;
tests/test_accelerator.py runs both.  The entries of the common case are built here without a Python call per
field (the type's allocator and a store in each slot: see "the builders"), the same objects the pure twin's
``model.new_entry`` makes (tests/test_entry_build.py).

It also holds the cleaning stream's two compiled checks (:func:`quiet_span`, :func:`plain_utf8`), which the
sitemap reader hands to :class:`feedmap._xml._cleaning.CleaningStream`: one pass over a chunk's bytes that says
"nothing to repair here" where the stream's Python passes (XML 1.0 §2.2 characters, §4.1 references, CDATA,
UTF-8) would pass the chunk on as it is and report nothing; any other chunk takes those passes.  Their twin is
the long way itself (no check): tests/test_byte_checks.py reads hostile bytes both ways.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.object cimport PyObject, PyObject_GenericSetAttr
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_SET_ITEM
from cpython.unicode cimport Py_UNICODE_ISSPACE
from libc.stdint cimport uint64_t
from libc.string cimport memcmp, memcpy, strcmp

from feedmap.formats._plain_c cimport alloc as _alloc
from feedmap.formats._plain_c cimport plain_date as _plain_date
from feedmap.formats._plain_c cimport plain_loc
from feedmap.formats._plain_c cimport put as _put
from feedmap.formats._plain_c cimport slot_offset

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree

from lxml import etree as _etree

from feedmap._core.dates import W3CDate as _W3CDate
from feedmap._core.limits import PROTOCOL_MAX_IMAGES as _MAX_IMAGES
from feedmap._core.model import Entry as _Entry
from feedmap._core.model import Image as _Image
from feedmap._core.model import Position as _Position
from feedmap._core.urls import MAX_LOC_LENGTH as _MAX_LOC_LENGTH
from feedmap._core.urls import check_loc as _check_loc
from feedmap._xml import IMAGE_NS as _IMAGE_NS_TEXT
from feedmap.formats._fields import PLAIN_PRIORITIES as _PRIORITIES
from feedmap.formats.sitemap._walk import CHANGEFREQ_VALUES as _CHANGEFREQS

cetree.import_lxml__etree()

#: The lxml this module was compiled against (the loader refuses it under another one).
LXML_VERSION = _etree.LXML_VERSION

cdef bytes _IMAGE_NS = _IMAGE_NS_TEXT.encode("utf-8")
cdef object _new_object = object.__new__
cdef object _new_tuple = tuple.__new__
cdef object _SyntaxError = _etree.XMLSyntaxError
cdef Py_ssize_t _LOC_LIMIT = _MAX_LOC_LENGTH
cdef Py_ssize_t _IMAGE_LIMIT = _MAX_IMAGES
cdef const char* _FIELDS[4]
_FIELDS[0] = b"loc"
_FIELDS[1] = b"lastmod"
_FIELDS[2] = b"changefreq"
_FIELDS[3] = b"priority"
cdef const char* _IMAGE_FIELDS[5]
_IMAGE_FIELDS[0] = b"loc"
_IMAGE_FIELDS[1] = b"caption"
_IMAGE_FIELDS[2] = b"geo_location"
_IMAGE_FIELDS[3] = b"title"
_IMAGE_FIELDS[4] = b"license"


cdef inline bint _in(tree.xmlNode* node, const char* href):
    """The node is in namespace ``href`` (NULL: in no namespace)."""
    if href == NULL:
        return node.ns == NULL
    return node.ns != NULL and node.ns.href != NULL and strcmp(<const char*>node.ns.href, href) == 0


cdef inline int _index(tree.xmlNode* node, const char** names, int count):
    cdef int i
    for i in range(count):
        if strcmp(<const char*>node.name, names[i]) == 0:
            return i
    return -1


cdef inline bint _has_children(tree.xmlNode* node):
    """lxml's ``len(element) != 0``."""
    cdef tree.xmlNode* child = node.children
    while child != NULL:
        if cetree._isElement(child):
            return True
        child = child.next
    return False


cdef inline bint _plain(str text):
    """``len(text.strip()) == len(text)`` for a text that is not empty (str.strip strips Py_UNICODE_ISSPACE)."""
    return not Py_UNICODE_ISSPACE(text[0]) and not Py_UNICODE_ISSPACE(text[len(text) - 1])


cdef object _image(tree.xmlNode* node, const char* image_ns):
    cdef list values = [None, None, None, None, None]
    cdef bint seen[5]
    cdef int index
    cdef tree.xmlNode* child = node.children
    cdef object text
    cdef object image
    seen[:] = [False, False, False, False, False]
    while child != NULL:
        if cetree._isElement(child):
            if child.type != tree.XML_ELEMENT_NODE or not _in(child, image_ns):
                return None
            index = _index(child, _IMAGE_FIELDS, 5)
            if index < 0 or seen[index] or _has_children(child):
                return None
            seen[index] = True
            text = cetree.textOf(child)
            if not text or not _plain(text):
                return None
            values[index] = text
        child = child.next
    if values[0] is None:
        return None
    return _new_image(values[0], values[1], values[2], values[3], values[4])


def walk(cetree._Element element not None, str namespace not None, bint images):
    """See :func:`feedmap.formats.sitemap._walk.walk`."""
    cdef bytes held = namespace.encode("utf-8")
    cdef const char* href = NULL
    if namespace:
        href = <const char*>held
    return _walk(element, href, images)


cdef object _walk(cetree._Element element, const char* href, bint images):
    cdef list values = [None, None, None, None]
    cdef list found = []
    if not _fields(element, href, images, values, found):
        return None
    return (_line(element), values[0], values[1], values[2], values[3], found)


cdef bint _fields(cetree._Element element, const char* href, bint images, list values, list found) except -1:
    """The walk of :func:`_walk` into ``values`` (loc, lastmod, changefreq, priority: each None or its text, as
    given) and ``found`` (the images, appended): True for the common case, False where the walk gives None."""
    cdef const char* image_ns = <const char*>_IMAGE_NS
    cdef bint seen[4]
    cdef int index
    cdef object text, image
    cdef tree.xmlNode* child = element._c_node.children
    seen[:] = [False, False, False, False]
    while child != NULL:
        if cetree._isElement(child):
            if child.type != tree.XML_ELEMENT_NODE:
                return False  # a comment, processing instruction or entity reference
            index = _index(child, _FIELDS, 4) if _in(child, href) else -1
            if index >= 0:
                if seen[index] or _has_children(child):
                    return False
                seen[index] = True
                text = cetree.textOf(child)
                if not text or (index == 0 and not _plain(text)):
                    return False
                values[index] = text
            elif images and _in(child, image_ns) and strcmp(<const char*>child.name, b"image") == 0:
                image = _image(child, image_ns)
                if image is None:
                    return False
                found.append(image)
            else:
                return False
        child = child.next
    return True


cdef inline object _line(cetree._Element element):
    """``element.sourceline`` or 0 (the pure twin's line): libxml2 keeps an element's line in ``node.line`` below
    65,535; at 65,535 the real line is elsewhere (``xmlGetLineNo`` looks at the children's text nodes, which
    libxml2's own functions, not exported from lxml's wheel, know how to read): lxml's property is asked then."""
    cdef unsigned short line = element._c_node.line
    if line != 65535:
        return line  # 0 where lxml's sourceline is None (no line recorded)
    found = element.sourceline
    return found if found is not None else 0


# ------------------------------------------------------------------------------------------ the builders
# An Entry, Image or W3CDate is built as object.__new__ and a setattr of each slot (model.new_entry,
# model.blank_image, dates' unchecked W3CDate); a Position as tuple.__new__(Position, (source, line))
# (model.new_position).  Here the same objects are made with the type's own tp_alloc (what object.__new__ and
# tuple.__new__ call: these types define no __new__ of their own and are not abstract) and each value stored
# in its slot (what the slot's member descriptor, found on the class itself, does on a setattr) -- only when
# every slot is a plain writable object member of the class and no __setattr__ of Entry/Image stands in the
# way; else the module keeps the setattr path (DIRECT_BUILD says which).

from types import MemberDescriptorType as _MemberDescriptor


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


cdef object _new_image(object loc, object caption, object geo_location, object title, object license):
    """As ``model.blank_image()`` then filled."""
    cdef object image
    if not _DIRECT:
        image = _new_object(_Image)
        image.loc = loc
        image.caption = caption
        image.geo_location = geo_location
        image.title = title
        image.license = license
        return image
    image = _alloc(_Image, 0)
    _put(image, _IMAGE_SLOTS[0], loc)
    _put(image, _IMAGE_SLOTS[1], caption)
    _put(image, _IMAGE_SLOTS[2], geo_location)
    _put(image, _IMAGE_SLOTS[3], title)
    _put(image, _IMAGE_SLOTS[4], license)
    return image


cdef object _plain_w3cdate(str text):
    """The W3CDate of a ``text`` found plain, without W3CDate's checks."""
    cdef object date
    if not _DIRECT:
        date = _new_object(_W3CDate)
        PyObject_GenericSetAttr(date, "text", text)
        return date
    date = _alloc(_W3CDate, 0)
    _put(date, _DATE_SLOT, text)
    return date


cdef object _position(str source, object line):
    """``model.new_position(source, line)``."""
    cdef object position
    if not _DIRECT:
        return _new_tuple(_Position, (source, line))
    position = _alloc(_Position, 2)
    Py_INCREF(source)
    PyTuple_SET_ITEM(position, 0, source)
    Py_INCREF(line)
    PyTuple_SET_ITEM(position, 1, line)
    return position


cdef object _EMPTY = ()


cdef object _new_entry(
    object loc, object lastmod, object changefreq, object priority, object images, object origin
):
    """``model.new_entry(loc, lastmod, changefreq, priority, images, (), {}, origin)``."""
    cdef object entry
    if not _DIRECT:
        entry = _new_object(_Entry)
        entry.loc = loc
        entry.lastmod = lastmod
        entry.changefreq = changefreq
        entry.priority = priority
        entry.title = None
        entry.description = None
        entry.keywords = ()
        entry.type = None
        entry.images = images
        entry.alternates = ()
        entry.news = None
        entry.videos = ()
        entry.extras = {}
        entry.origin = origin
        return entry
    entry = _alloc(_Entry, 0)
    _put(entry, _ENTRY_SLOTS[0], loc)
    _put(entry, _ENTRY_SLOTS[1], lastmod)
    _put(entry, _ENTRY_SLOTS[2], changefreq)
    _put(entry, _ENTRY_SLOTS[3], priority)
    _put(entry, _ENTRY_SLOTS[4], None)
    _put(entry, _ENTRY_SLOTS[5], None)
    _put(entry, _ENTRY_SLOTS[6], _EMPTY)
    _put(entry, _ENTRY_SLOTS[7], None)
    _put(entry, _ENTRY_SLOTS[8], images)
    _put(entry, _ENTRY_SLOTS[9], _EMPTY)
    _put(entry, _ENTRY_SLOTS[10], {})
    _put(entry, _ENTRY_SLOTS[11], origin)
    _put(entry, _ENTRY_SLOTS[12], None)
    _put(entry, _ENTRY_SLOTS[13], _EMPTY)
    return entry


# ------------------------------------------------------------------------------------------------ the loop


cdef class Loop:
    """See :class:`feedmap.formats.sitemap._walk.Loop`."""

    cdef public object previous
    cdef public object started
    cdef public object clear_parent
    cdef public Py_ssize_t count
    cdef public object broke
    cdef object _elements
    cdef object _events
    cdef object _cleaner
    cdef object _read
    cdef str _source
    cdef bytes _href_bytes
    cdef const char* _href
    cdef bint _images
    cdef object _pending
    cdef object _pending_parent
    cdef list _values  # the walk's values and images of the element being read (emptied for each)
    cdef list _found

    def __init__(self, elements, str namespace not None, bint images, str source not None, read):
        self.previous = self.started = self.clear_parent = self.broke = None
        self.count = 0
        self._elements = elements
        self._events = elements.events
        self._cleaner = elements.cleaner
        self._read = read
        self._source = source
        self._href_bytes = namespace.encode("utf-8")
        self._href = NULL
        if namespace:
            self._href = <const char*>self._href_bytes
        self._images = images
        self._pending = self._pending_parent = None
        self._values = [None, None, None, None]
        self._found = []

    def __iter__(self):
        return self

    def __next__(self):
        cdef cetree._Element element
        cdef tree.xmlNode* c_parent
        cdef object parent, entry, offset, pair, pending
        pending = self._pending
        if pending is not None:
            parent = self._pending_parent
            self._pending = self._pending_parent = None
            self._release(<cetree._Element>pending, parent)
        while True:
            try:
                pair = next(self._events)
            except (_SyntaxError, UnicodeDecodeError) as exc:
                self.broke = exc
                raise StopIteration
            if (<tuple>pair)[0] == "start":
                self.started = (<tuple>pair)[1]
                continue
            element = <cetree._Element>(<tuple>pair)[1]
            c_parent = element._c_node.parent
            if c_parent == NULL or not cetree._isElement(c_parent):
                parent = None  # lxml's getparent()
            elif self.clear_parent is not None and c_parent == (<cetree._Element>self.clear_parent)._c_node:
                parent = self.clear_parent
            else:
                parent = element.getparent()
                if not self._elements.accept(self, element, parent):
                    continue
            offset = self._cleaner.line_offset
            entry = None
            if self._href == NULL or element._c_node.ns != NULL:  # in no namespace inside one: read fully
                entry = self._plain(element, offset)
            if entry is None:  # not the common case, or a value to report: the full reader reads it
                entry = self._read(element, offset)
            if entry is not None:
                self._pending = element
                self._pending_parent = parent
                self.count += 1
                return entry
            self._release(element, parent)

    cdef _release(self, cetree._Element element, object parent):
        """As Elements.release: here when the only sibling before the element is the previous one."""
        cdef tree.xmlNode* before
        if parent is not None:
            before = cetree.previousElement(element._c_node)
            if before != NULL:
                if (
                    self.previous is None
                    or before != (<cetree._Element>self.previous)._c_node
                    or cetree.previousElement(before) != NULL
                ):
                    self._elements.release(self, element, parent)  # siblings to report: the Python steps
                    return
                element.clear()
                del parent[0]
                self.previous = element
                return
        element.clear()
        self.previous = element

    cdef object _plain(self, cetree._Element element, object offset):
        """As _walk.plain_entry(_walk.walk(...)): the entry, or None for the full reader."""
        cdef list values = self._values
        cdef list found = self._found
        cdef object loc, lastmod, changefreq, priority, date, freq, weight, images
        values[0] = values[1] = values[2] = values[3] = None
        if found:
            del found[:]
        if not _fields(element, self._href, self._images, values, found):
            return None
        loc = values[0]
        if loc is None:
            return None
        if not plain_loc(loc, _LOC_LIMIT) and _check_loc(loc) is not None:
            return None
        lastmod = values[1]
        date = None
        if lastmod is not None:
            if _plain_date(lastmod):
                date = _plain_w3cdate(lastmod)
            else:
                try:
                    date = _W3CDate(lastmod)
                except (TypeError, ValueError):
                    return None
        changefreq = values[2]
        freq = None
        if changefreq is not None:
            freq = _CHANGEFREQS.get(changefreq)
            if freq is None:
                return None
        priority = values[3]
        weight = None
        if priority is not None:
            weight = _PRIORITIES.get(priority)
            if weight is None:
                return None
        if len(found) > _IMAGE_LIMIT:
            return None  # reported by the full reader
        images = tuple(found) if found else _EMPTY
        return _new_entry(loc, date, freq, weight, images, _position(self._source, _line(element) + offset))


# ------------------------------------------------------------------------------------------ the byte checks

#: What each byte is to :func:`quiet_span`: 0 nothing to look at, 1 a line feed, 2 a C0 control XML 1.0 §2.2
#: forbids (the cleaning stream's ``_CONTROL_BYTES``), 3 ``&``, 4 ``<``.
cdef unsigned char _KIND[256]
for _byte in range(256):
    _KIND[_byte] = 0
for _byte in range(0x20):
    _KIND[_byte] = 2
_KIND[0x09] = 0
_KIND[0x0D] = 0
_KIND[0x0A] = 1
_KIND[0x26] = 3
_KIND[0x3C] = 4


cdef inline bint _allowed_char(Py_ssize_t code):
    """XML 1.0 §2.2 ``Char`` (as the cleaning stream's ``_allowed_char``)."""
    if code < 0x20:
        return code == 0x9 or code == 0xA or code == 0xD
    return code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF


cdef inline int _hex_digit(unsigned char c):
    if 0x30 <= c <= 0x39:
        return c - 0x30
    if 0x41 <= c <= 0x46:
        return c - 0x41 + 10
    if 0x61 <= c <= 0x66:
        return c - 0x61 + 10
    return -1


cdef Py_ssize_t _reference_end(const unsigned char* p, Py_ssize_t i, Py_ssize_t stop):
    """The end of the reference the ``&`` at ``i`` begins, when it is one the stream leaves as it is and it
    ends before ``stop``: a predefined entity (``&amp;`` ``&lt;`` ``&gt;`` ``&quot;`` ``&apos;``) or a
    character reference (``&#`` 1 to 7 digits or ``&#x`` 1 to 6 hex digits, then ``;``) to a character XML
    allows; else -1 (a bare ``&``, any other entity, a forbidden character, or a reference cut by ``stop``)."""
    cdef Py_ssize_t j = i + 1, digits = 0, code = 0
    cdef int digit
    if j + 3 <= stop and (memcmp(p + j, b"lt;", 3) == 0 or memcmp(p + j, b"gt;", 3) == 0):
        return j + 3
    if j + 4 <= stop and memcmp(p + j, b"amp;", 4) == 0:
        return j + 4
    if j + 5 <= stop and (memcmp(p + j, b"quot;", 5) == 0 or memcmp(p + j, b"apos;", 5) == 0):
        return j + 5
    if j >= stop or p[j] != 0x23:  # "#"
        return -1
    j += 1
    if j < stop and p[j] == 0x78:  # "x": 1 to 6 hex digits
        j += 1
        while j < stop and digits < 7:
            digit = _hex_digit(p[j])
            if digit < 0:
                break
            code = code * 16 + digit
            digits += 1
            j += 1
        if digits < 1 or digits > 6:
            return -1
    else:  # 1 to 7 decimal digits
        while j < stop and digits < 8 and 0x30 <= p[j] <= 0x39:
            code = code * 10 + (p[j] - 0x30)
            digits += 1
            j += 1
        if digits < 1 or digits > 7:
            return -1
    if j >= stop or p[j] != 0x3B:  # ";"
        return -1
    return j + 1 if _allowed_char(code) else -1


def quiet_span(bytes data, Py_ssize_t start, Py_ssize_t stop):
    """The number of line feeds in ``data[start:stop]`` when the cleaning stream has nothing to repair there:
    no C0 control XML 1.0 §2.2 forbids, every ``&`` a reference it leaves as it is, all of it before
    ``stop`` (see :func:`_reference_end`), and no ``<![CDATA[`` beginning in it (its bytes may run past
    ``stop``, as the stream's ``find`` sees them).  Else -1: the stream's own passes read the span."""
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t i, lines = 0
    cdef unsigned char kind
    if start < 0 or stop > size or start > stop:
        return -1
    i = start
    while True:
        while i + 4 <= stop and (_KIND[p[i]] | _KIND[p[i + 1]] | _KIND[p[i + 2]] | _KIND[p[i + 3]]) == 0:
            i += 4  # most bytes: four at a time
        while i < stop and _KIND[p[i]] == 0:
            i += 1
        if i >= stop:
            return lines
        kind = _KIND[p[i]]
        if kind == 1:
            lines += 1
            i += 1
        elif kind == 3:
            i = _reference_end(p, i, stop)
            if i < 0:
                return -1
        elif kind == 4:
            if i + 9 <= size and p[i + 1] == 0x21 and memcmp(p + i, b"<![CDATA[", 9) == 0:
                return -1
            i += 1
        else:
            return -1


def plain_utf8(bytes data):
    """True when ``data`` is UTF-8 (RFC 3629: no overlong form, no surrogate, nothing past U+10FFFF, no
    sequence cut at its end) and holds neither U+FFFE nor U+FFFF (XML 1.0 §2.2): what the stream's strict
    decode and its noncharacter search would pass as it is.  False for anything else (those passes read it)."""
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t i = 0
    cdef unsigned char c, low, high
    cdef int follow
    cdef uint64_t word
    while i < size:
        c = p[i]
        if c < 0x80:
            i += 1
            while i + 8 <= size:  # ASCII eight bytes at a time
                memcpy(&word, p + i, 8)
                if word & 0x8080808080808080ULL:
                    break
                i += 8
            continue
        low = 0x80
        high = 0xBF
        if 0xC2 <= c <= 0xDF:
            follow = 1
        elif 0xE0 <= c <= 0xEF:
            follow = 2
            if c == 0xE0:
                low = 0xA0
            elif c == 0xED:
                high = 0x9F
            elif c == 0xEF and i + 2 < size and p[i + 1] == 0xBF and (p[i + 2] == 0xBE or p[i + 2] == 0xBF):
                return False  # U+FFFE, U+FFFF
        elif 0xF0 <= c <= 0xF4:
            follow = 3
            if c == 0xF0:
                low = 0x90
            elif c == 0xF4:
                high = 0x8F
        else:
            return False
        if i + follow >= size:
            return False
        if not (low <= p[i + 1] <= high):
            return False
        if follow >= 2 and not (0x80 <= p[i + 2] <= 0xBF):
            return False
        if follow == 3 and not (0x80 <= p[i + 3] <= 0xBF):
            return False
        i += follow + 1
    return True
