"""Type stub of the compiled twins (``_jsonl_c.pyx``) of :func:`feedmap.formats.lines._jsonl._common` and of the
reader's loop, :func:`feedmap.formats.lines._jsonl._lines`."""

from collections.abc import Iterable
from typing import Any

from feedmap._core.model import Entry
from feedmap.formats.lines._common import Block
from feedmap.formats.lines._jsonl import LongWay

DIRECT_BUILD: bool

def common(obj: dict[str, Any], name: str, line: int) -> Entry | None: ...

class Lines:
    def __init__(self, blocks: Iterable[Block], line: int, name: str, long_way: LongWay) -> None: ...
    def __iter__(self) -> Lines: ...
    def __next__(self) -> Entry: ...
