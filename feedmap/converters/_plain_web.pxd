# cython: language_level=3
# The plain http(s) URL of both compiled passes (``_pass_c.pyx``, a urlset's; ``_feed_pass_c.pyx``, a feed's),
# once: :data:`feedmap.converters._pass.PLAIN_WEB` as a character loop over CPython's code units (PEP 393).
#
# sitemaps.org 0.9 (https://www.sitemaps.org/protocol.html) and RSS 2.0 (https://www.rssboard.org/rss-specification)
# want a loc that is an absolute http(s) URL (RFC 3986, https://www.rfc-editor.org/rfc/rfc3986): ``https?://``, a
# host of unreserved and sub-delim characters (but ``&``), a port of at most four digits, then a path or query of
# those and ``:/?@`` and at most one ``#`` fragment of the same.  An ``&`` in the path, query or fragment is taken
# when the caller asks (a urlset writes it escaped), else the URL is not plain (a feed writes a plain loc as it
# is).  A text of code units wider than one byte is no plain URL (its characters are not ASCII).
#
# Inline functions only: each module that cimports them compiles its own copy; nothing is imported at run time.


cdef extern from "Python.h":
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_ssize_t PyUnicode_GET_LENGTH(object text)


cdef extern from *:
    """
    /* feedmap's plain URL characters, a bit of a code unit's class each (built by the compiler from the sets) */
    #define FEEDMAP_BIT(c) (1ULL << ((c) & 63))
    #define FEEDMAP_RUN(c, count) (((1ULL << (count)) - 1) << ((c) & 63))
    /* a host's: [A-Za-z0-9._~!$()*+,;=-], code units 0-63 and 64-127 */
    #define FEEDMAP_HOST_LOW (FEEDMAP_RUN('0', 10) | FEEDMAP_BIT('!') | FEEDMAP_BIT('$') | FEEDMAP_RUN('(', 6) \
        | FEEDMAP_BIT('-') | FEEDMAP_BIT('.') | FEEDMAP_BIT(';') | FEEDMAP_BIT('='))
    #define FEEDMAP_HOST_HIGH (FEEDMAP_RUN('A', 26) | FEEDMAP_RUN('a', 26) | FEEDMAP_BIT('_') | FEEDMAP_BIT('~'))
    /* a path's, query's or fragment's: a host's and :/?@ */
    #define FEEDMAP_REST_LOW (FEEDMAP_HOST_LOW | FEEDMAP_BIT(':') | FEEDMAP_BIT('/') | FEEDMAP_BIT('?'))
    #define FEEDMAP_REST_HIGH (FEEDMAP_HOST_HIGH | FEEDMAP_BIT('@'))
    #define FEEDMAP_IN(set, c) ((((c) < 64 ? set##_LOW : set##_HIGH) >> ((c) & 63)) & 1)
    /* 1: a host's, 2: a path's, 4: the & */
    #define FEEDMAP_CLASS(c) (FEEDMAP_IN(FEEDMAP_HOST, c) | FEEDMAP_IN(FEEDMAP_REST, c) << 1 | ((c) == '&') << 2)
    #define FEEDMAP_CLASS4(c) FEEDMAP_CLASS(c), FEEDMAP_CLASS((c) + 1), FEEDMAP_CLASS((c) + 2), FEEDMAP_CLASS((c) + 3)
    #define FEEDMAP_CLASS16(c) FEEDMAP_CLASS4(c), FEEDMAP_CLASS4((c) + 4), FEEDMAP_CLASS4((c) + 8), FEEDMAP_CLASS4((c) + 12)
    #define FEEDMAP_CLASS64(c) FEEDMAP_CLASS16(c), FEEDMAP_CLASS16((c) + 16), FEEDMAP_CLASS16((c) + 32), \
        FEEDMAP_CLASS16((c) + 48)
    static const unsigned char feedmap_web_class[128] = {FEEDMAP_CLASS64(0), FEEDMAP_CLASS64(64)};
    """
    const unsigned char _CLASS "feedmap_web_class"[128]


cdef enum:
    _HOST = 1
    _REST = 2
    _AMP = 4


cdef inline bint _is(const unsigned char* d, Py_ssize_t i, Py_ssize_t n, unsigned char what) noexcept:
    """``d[i]`` (``i < n``) is of the classes ``what``."""
    return i < n and d[i] < 128 and (_CLASS[d[i]] & what) != 0


cdef inline int plain_web(object text, Py_ssize_t longest, bint amp):
    """``PLAIN_WEB.fullmatch(text)`` for a str (and shorter than ``longest``; 0: any length): 0 when it does not
    match (or holds an ``&`` and ``amp`` is false: no ``&`` taken), 1 when it does, 2 when it does and holds an
    ``&``."""
    if PyUnicode_KIND(text) != 1:
        return 0
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
    if longest and n >= longest:
        return 0
    cdef const unsigned char* d = <const unsigned char*>PyUnicode_DATA(text)
    cdef Py_ssize_t i
    if n >= 8 and d[0] == ord("h") and d[1] == ord("t") and d[2] == ord("t") and d[3] == ord("p"):
        i = 4
        if d[i] == ord("s"):
            i += 1
        if not (d[i] == ord(":") and d[i + 1] == ord("/") and i + 2 < n and d[i + 2] == ord("/")):
            return 0
        i += 3
    else:
        return 0
    cdef Py_ssize_t start = i
    while _is(d, i, n, _HOST):
        i += 1
    if i == start:
        return 0
    cdef Py_ssize_t digits
    if i < n and d[i] == ord(":"):
        i += 1
        digits = 0
        while digits < 4 and i < n and ord("0") <= d[i] <= ord("9"):
            i += 1
            digits += 1
    cdef unsigned char rest = _REST | _AMP if amp else _REST  # without an &, one ends the URL
    cdef bint found = False
    if i < n and (d[i] == ord("/") or d[i] == ord("?")):
        i += 1
        while _is(d, i, n, rest):
            if d[i] == ord("&"):
                found = True
            i += 1
    if i < n and d[i] == ord("#"):
        i += 1
        while _is(d, i, n, rest):
            if d[i] == ord("&"):
                found = True
            i += 1
    if i != n:
        return 0
    return 2 if found else 1
