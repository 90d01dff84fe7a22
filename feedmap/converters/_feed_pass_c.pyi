"""Type stub of the compiled twin (``_feed_pass_c.pyx``) of :func:`feedmap.converters._feed_pass.feed_loop`."""

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from feedmap._core.context import Context
from feedmap._core.entry_checks import LeftOut
from feedmap._core.model import Entry
from feedmap._io.seen_keys import SeenKeys

def plain_item(entry: Entry, ror: bool) -> str | None: ...
def feed_loop(
    given: Iterable[Entry],
    ctx: Context,
    values: bool,
    replaces: Callable[[Entry, Entry], bool],
    kept: SeenKeys,
    store: Callable[[Entry], int],
    add: Callable[[Any, int], int],
    fetch: Callable[[int], Any],
    ror: bool,
    left_out: LeftOut,
    repeats: Any,
) -> None: ...
def replay(
    offsets: Iterator[int], spool: Any, namespaces: Any, ctx: Context, name: str, untitled: bool
) -> Iterator[tuple[Any, str]]: ...
