"""The plain checks and the direct-build primitives that the compiled readers share (``cimport``-ed by
``feedmap/formats/sitemap/_walk_c.pyx`` and ``feedmap/formats/lines/_jsonl_c.pyx``; inline, so each module holds
its own copy and no module imports another).

Spec: the loc check is RFC 3986's absolute URI as :mod:`feedmap._core.urls` checks it at once (its plain-loc
expression without userinfo, ``_PLAIN_LOC_NO_USERINFO``); the date check is the W3C Datetime profile
(https://www.w3.org/TR/NOTE-datetime, and XSD's date forms) as :class:`feedmap._core.dates.W3CDate` takes it.
Each says yes only where that Python check says yes; a no means "ask the Python check" (the walk asks
``check_loc``/``W3CDate``; the JSON lines reader gives the line to its long way, or builds a W3CDate).
"""

from cpython.object cimport PyObject
from cpython.ref cimport Py_DECREF, Py_INCREF
from cpython.unicode cimport Py_UNICODE_ISSPACE

cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        const char* name
        int type
        Py_ssize_t offset
        int flags
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    ctypedef PyObject* (*_Allocate)(_Type*, Py_ssize_t)
    ctypedef struct _Type "PyTypeObject":
        _Allocate tp_alloc
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    int PyUnicode_1BYTE_KIND
    int PyUnicode_2BYTE_KIND
    ctypedef unsigned char Py_UCS1
    ctypedef unsigned short Py_UCS2
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)

cdef extern from *:
    """
    /* what each ASCII code unit is to plain_loc: 1 left out everywhere (a blank: the ASCII separators 0x1C-0x1F
       too, as str.isspace; or one of < > " { } | \\ ^ `), 2 the end of a host (/ ? # [ ] @ :), 4 the @ */
    static const unsigned char feedmap_loc_class[128] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1,
        1, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 1, 2,
        6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 1, 0,
        1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0,
    };
    """
    const unsigned char _LOC_CLASS "feedmap_loc_class"[128]


cdef extern from "structmember.h":
    int T_OBJECT_EX
    int READONLY


# ------------------------------------------------------------------------------------------ the plain values


cdef inline bint _digits(str text, Py_ssize_t start, Py_ssize_t count):
    cdef Py_ssize_t i
    cdef Py_UCS4 c
    for i in range(start, start + count):
        c = text[i]
        if c < 48 or c > 57:
            return False
    return True


cdef inline int _number(str text, Py_ssize_t start, Py_ssize_t count):
    cdef Py_ssize_t i
    cdef int value = 0
    for i in range(start, start + count):
        value = value * 10 + (<int>text[i] - 48)
    return value


cdef inline int _days_in(int year, int month):
    if month == 2:
        return 29 if (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)) else 28
    if month == 4 or month == 6 or month == 9 or month == 11:
        return 30
    return 31


cdef inline bint plain_date(str text):
    """A yes only for what W3CDate takes as written: the W3C-DTF / XSD forms of dates._W3C (``YYYY``,
    ``YYYY-MM``, ``YYYY-MM-DD``, with ``Thh:mm`` and a zone, or ``Thh:mm:ss`` and a fraction and a zone when
    given, a date with a zone), every part in the range dates._valid checks (seconds to 59 here: a leap second
    is asked of W3CDate); False means "ask W3CDate"."""
    cdef Py_ssize_t n = len(text)
    cdef Py_ssize_t i, start
    cdef int year, month, day, hours
    cdef bint seconds = False, time = False
    cdef Py_UCS4 c
    if n < 4 or not _digits(text, 0, 4):
        return False
    year = _number(text, 0, 4)
    if year < 1:
        return False
    if n == 4:
        return True
    if n < 7 or text[4] != "-" or not _digits(text, 5, 2):
        return False
    month = _number(text, 5, 2)
    if month < 1 or month > 12:
        return False
    if n == 7:
        return True
    if n < 10 or text[7] != "-" or not _digits(text, 8, 2):
        return False
    day = _number(text, 8, 2)
    if day < 1 or day > _days_in(year, month):
        return False
    i = 10
    if i == n:
        return True
    if text[i] == "T":
        time = True
        if n < i + 6 or not (_digits(text, i + 1, 2) and text[i + 3] == ":" and _digits(text, i + 4, 2)):
            return False
        if _number(text, i + 1, 2) > 23 or _number(text, i + 4, 2) > 59:
            return False
        i += 6
        if i < n and text[i] == ":":
            if n < i + 3 or not _digits(text, i + 1, 2) or _number(text, i + 1, 2) > 59:
                return False
            seconds = True
            i += 3
            if i < n and text[i] == ".":
                i += 1
                start = i
                while i < n:
                    c = text[i]
                    if c < 48 or c > 57:
                        break
                    i += 1
                if i == start:
                    return False
    if i == n:
        return not time or seconds  # a time of minutes wants a zone
    c = text[i]
    if c == "Z":
        return i + 1 == n
    if (c != "+" and c != "-") or n != i + 6:
        return False
    if not (_digits(text, i + 1, 2) and text[i + 3] == ":" and _digits(text, i + 4, 2)):
        return False
    hours = _number(text, i + 1, 2)
    if hours == 14:
        return _number(text, i + 4, 2) == 0
    return hours < 14 and _number(text, i + 4, 2) <= 59


cdef inline bint _scheme_char(Py_UCS4 c):
    return (65 <= c <= 90) or (97 <= c <= 122) or (48 <= c <= 57) or c == "+" or c == "." or c == "-"


cdef inline bint _outside(Py_UCS4 c):
    """A character urls._HOST_PORT_REST's classes leave out everywhere: a blank (``\\s`` of a str pattern is
    ``Py_UNICODE_ISSPACE``, as ``str.isspace``: the ASCII separators 0x1C-0x1F too) or one of the excluded
    ``< > " { } | \\ ^`` and the grave accent."""
    if c < 128:
        return _LOC_CLASS[c] & 1
    return Py_UNICODE_ISSPACE(c)


cdef inline bint _rest_end(Py_UCS4 c):
    """An ``@`` or a character left out everywhere: what a plain loc's path, query or fragment never holds."""
    if c < 128:
        return _LOC_CLASS[c] & 5
    return Py_UNICODE_ISSPACE(c)


cdef inline bint _host_end(Py_UCS4 c):
    """One of ``/ ? # [ ] @ :``, or a character left out everywhere: where a host's characters end."""
    if c < 128:
        return _LOC_CLASS[c] != 0
    return Py_UNICODE_ISSPACE(c)


ctypedef fused _unit:
    Py_UCS1
    Py_UCS2
    Py_UCS4


cdef inline bint plain_loc(str loc, Py_ssize_t limit):
    """``len(loc) < limit and "@" not in loc and urls._PLAIN_LOC_NO_USERINFO.fullmatch(loc)`` in one pass: a
    scheme and ``://``, a host (an IP literal in brackets, or characters but the blanks, the excluded ones and
    ``/ ? # [ ] @ :``), a port of up to four digits after a colon, then a ``/``, ``?`` or ``#`` and characters
    but the blanks and the excluded ones to the end (no part can give back what it took: one pass decides).
    The characters are read where the string keeps them, one loop for each width (nearly every loc: one byte)."""
    cdef Py_ssize_t n = len(loc)
    cdef int kind
    if n >= limit or n < 4:
        return False
    kind = PyUnicode_KIND(loc)
    if kind == PyUnicode_1BYTE_KIND:
        return _plain_loc_units(<Py_UCS1*>PyUnicode_DATA(loc), n)
    if kind == PyUnicode_2BYTE_KIND:
        return _plain_loc_units(<Py_UCS2*>PyUnicode_DATA(loc), n)
    return _plain_loc_units(<Py_UCS4*>PyUnicode_DATA(loc), n)


cdef inline bint _plain_loc_units(_unit* p, Py_ssize_t n):
    """:func:`plain_loc` of the ``n`` code units at ``p`` (``n`` at least 4)."""
    cdef Py_ssize_t i = 1, start, digits
    cdef Py_UCS4 c = p[0]
    if not ((65 <= c <= 90) or (97 <= c <= 122)):
        return False
    while i < n and _scheme_char(p[i]):
        i += 1
    if i + 3 > n or p[i] != 58 or p[i + 1] != 47 or p[i + 2] != 47:  # "://"
        return False
    i += 3
    start = i
    if i < n and p[i] == 91:  # "[": an IP literal
        i += 1
        while i < n:
            c = p[i]
            if not ((48 <= c <= 58) or (65 <= c <= 70) or (97 <= c <= 102) or c == 46):  # 0-9 : A-F a-f .
                break
            i += 1
        if i == start + 1 or i >= n or p[i] != 93:  # "]"
            return False
        i += 1
    else:
        while i < n:
            c = p[i]
            if _host_end(c):
                break
            i += 1
        if i == start:
            return False
    if i < n and p[i] == 58:  # ":"
        i += 1
        digits = 0
        while i < n and digits < 4 and 48 <= p[i] <= 57:
            i += 1
            digits += 1
    if i == n:
        return True
    c = p[i]
    if c != 47 and c != 63 and c != 35:  # / ? #
        return False
    i += 1
    while i < n:
        c = p[i]
        if _rest_end(c):
            return False
        i += 1
    return True


# ------------------------------------------------------------------------------------------ the builders' steps


cdef inline Py_ssize_t slot_offset(object cls, str name, object member_type):
    """The offset of slot ``name`` of ``cls`` when a setattr of it is a store there (its descriptor, of
    ``member_type`` (types.MemberDescriptorType), a writable object member); else -1."""
    cdef PyMemberDef* member
    descriptor = cls.__dict__.get(name)
    if type(descriptor) is not member_type:
        return -1
    member = (<PyMemberDescrObject*>descriptor).d_member
    if member.type != T_OBJECT_EX or member.flags & READONLY:
        return -1
    return member.offset


cdef inline object alloc(object cls, Py_ssize_t items):
    """``object.__new__(cls)`` (items 0), or the empty shell of ``items`` that ``tuple.__new__`` fills."""
    cdef _Type* kind = <_Type*>cls
    cdef PyObject* made = kind.tp_alloc(kind, items)
    if made == NULL:
        raise MemoryError()
    cdef object result = <object>made
    Py_DECREF(result)  # <object> took a reference of its own
    return result


cdef inline void put(object target, Py_ssize_t offset, object value):
    """Store ``value`` in the empty slot at ``offset`` of a new ``target``."""
    Py_INCREF(value)
    (<PyObject**>((<char*><PyObject*>target) + offset))[0] = <PyObject*>value
