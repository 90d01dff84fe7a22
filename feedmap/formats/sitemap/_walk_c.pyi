"""Type stub of the compiled twins (``_walk_c.pyx``) of :func:`feedmap.formats.sitemap._walk.walk` and of
:class:`feedmap.formats.sitemap._walk.Loop`."""

from lxml import etree

from feedmap._core.model import Entry
from feedmap._xml import Elements
from feedmap.formats.sitemap._walk import ReadNode, Walked

LXML_VERSION: tuple[int, int, int, int]
DIRECT_BUILD: bool

def quiet_span(data: bytes, start: int, stop: int) -> int: ...
def plain_utf8(data: bytes) -> bool: ...
def walk(element: etree._Element, namespace: str, images: bool) -> Walked | None: ...

class Loop:
    previous: etree._Element | None
    started: etree._Element | None
    clear_parent: etree._Element | None
    count: int
    broke: Exception | None
    def __init__(self, elements: Elements, namespace: str, images: bool, source: str, read: ReadNode) -> None: ...
    def __iter__(self) -> Loop: ...
    def __next__(self) -> Entry: ...
