# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled twin of :func:`feedmap.formats.sitemap._walk.walk`, over lxml's C API.

Spec: as :mod:`feedmap.formats.sitemap._walk` (sitemaps.org 0.9, Google image sitemaps 1.1).  It walks the
libxml2 nodes of one entry without making an lxml proxy for each child, and gives exactly what the pure twin
gives for every element: the same nodes count as children (lxml's ``_isElement``: elements, comments,
processing instructions, entity references), the same text (lxml's ``textOf``, which is ``.text``) and the
same tests on it.  It must stay step for step with the pure twin; tests/test_accelerator.py runs both.
"""

from cpython.unicode cimport Py_UNICODE_ISSPACE
from libc.string cimport strcmp

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree

from lxml import etree as _etree

from feedmap._core.model import Image as _Image

cetree.import_lxml__etree()

#: The lxml this module was compiled against (the loader refuses it under another one).
LXML_VERSION = _etree.LXML_VERSION

cdef bytes _IMAGE_NS = b"http://www.google.com/schemas/sitemap-image/1.1"
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

#: The entries' namespaces as UTF-8, as libxml2 holds them (a few per run).
cdef dict _encoded = {}


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
    image = _Image.__new__(_Image)  # as feedmap._core.model.blank_image, then filled
    image.loc = values[0]
    image.caption = values[1]
    image.geo_location = values[2]
    image.title = values[3]
    image.license = values[4]
    return image


def walk(cetree._Element element not None, str namespace not None, bint images):
    """See :func:`feedmap.formats.sitemap._walk.walk`."""
    cdef bytes encoded = _encoded.get(namespace)  # held here: href points into it while the walk runs
    if encoded is None:
        if len(_encoded) > 64:
            _encoded.clear()
        encoded = _encoded[namespace] = namespace.encode("utf-8")
    cdef const char* href = NULL
    if namespace:
        href = <const char*>encoded
    cdef const char* image_ns = <const char*>_IMAGE_NS
    cdef list values = [None, None, None, None]
    cdef bint seen[4]
    cdef list found = []
    cdef int index
    cdef object text, image
    cdef tree.xmlNode* child = element._c_node.children
    cdef object line
    seen[:] = [False, False, False, False]
    while child != NULL:
        if cetree._isElement(child):
            if child.type != tree.XML_ELEMENT_NODE:
                return None  # a comment, processing instruction or entity reference
            index = _index(child, _FIELDS, 4) if _in(child, href) else -1
            if index >= 0:
                if seen[index] or _has_children(child):
                    return None
                seen[index] = True
                text = cetree.textOf(child)
                if not text or (index == 0 and not _plain(text)):
                    return None
                values[index] = text
            elif images and _in(child, image_ns) and strcmp(<const char*>child.name, b"image") == 0:
                image = _image(child, image_ns)
                if image is None:
                    return None
                found.append(image)
            else:
                return None
        child = child.next
    line = element.sourceline  # lxml's, as libxml2's own functions are not exported from lxml's wheel
    return (line if line is not None else 0, values[0], values[1], values[2], values[3], found)
