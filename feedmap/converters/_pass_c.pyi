"""Type stub of the compiled twin (``_pass_c.pyx``) of :func:`feedmap.converters._pass.fused_loop`."""

from collections.abc import Callable, Iterable
from typing import Any

from feedmap._core.context import Context
from feedmap._core.entry_checks import LeftOut
from feedmap._core.model import Entry
from feedmap._io.seen_keys import SeenKeys

def fused_loop(
    given: Iterable[Entry],
    ctx: Context,
    values: bool,
    replaces: Callable[[Entry, Entry], bool],
    kept: SeenKeys,
    store: Callable[[Entry], int],
    add: Callable[[Any, int], int],
    fetch: Callable[[int], Any],
    images: bool,
    left_out: LeftOut,
    repeats: Any,
) -> bool: ...
