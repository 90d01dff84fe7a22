"""Type stub of the compiled twin (``_walk_c.pyx``) of :func:`feedmap.formats.sitemap._walk.walk`."""

from lxml import etree

from feedmap.formats.sitemap._walk import Walked

LXML_VERSION: tuple[int, int, int, int]

def walk(element: etree._Element, namespace: str, images: bool) -> Walked | None: ...
