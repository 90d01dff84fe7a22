"""Type stub of the compiled twin (``_jsonl_c.pyx``) of :func:`feedmap.formats.lines._jsonl._common`."""

from typing import Any

from feedmap._core.model import Entry

DIRECT_BUILD: bool

def common(obj: dict[str, Any], name: str, line: int) -> Entry | None: ...
