"""The compiled parts of feedmap, and which of them are in use (issue 19: "a compiled part must be optional").

Each hot loop that has a Cython twin is named here once, with the question its own module answers: is the
compiled one the one in use (built, loaded, ``FEEDMAP_PURE`` not set)?  :func:`compiled_parts` asks each,
``feedmap --version`` names each, and :func:`accelerated` says whether all of them are.  A new compiled part
gets its line in :data:`_PARTS`; a test holds the list to the package's ``.pyx`` sources, so none is left out.

"In use" means in use in full.  The sitemap walk counts only while it builds its entries by direct slot stores
(``DIRECT_BUILD`` of ``_walk_c.pyx``): when Entry, Image or W3CDate is not the shape its builders know (a field
added to Entry, say), the compiled walk still runs, building them the slower setattr way with the same result,
but the walk is answered ``False`` here (and so named "pure-Python" by ``--version``), so that
:func:`accelerated`, the tests and the benchmarks' check of a measured tree see the loss; with
``FEEDMAP_REQUIRE_ACCEL=1`` (CI) a read that asks for that walk is an ImportError, as a missing compiled pass is.
The JSON lines reader's compiled common line (``_jsonl_c.pyx``, its own ``DIRECT_BUILD``) is counted the same way.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["accelerated", "compiled_parts"]


def _walk() -> bool:
    from feedmap.formats.sitemap._walk import accelerated as walk_in_use

    try:
        return walk_in_use()
    except ImportError:  # no direct build, with FEEDMAP_REQUIRE_ACCEL set: not in use in full either
        return False


def _key_table() -> bool:
    from feedmap._io.seen_keys import compiled_keys

    return compiled_keys()


def _urlset_pass() -> bool:
    from feedmap.converters import _pass

    try:
        return _pass._loop() is not _pass.fused_loop
    except ImportError:  # missing, with FEEDMAP_REQUIRE_ACCEL set: not in use either
        return False


def _feed_pass() -> bool:
    from feedmap.converters import _feed_pass

    try:
        return _feed_pass._loop() is not _feed_pass.feed_loop
    except ImportError:  # missing, with FEEDMAP_REQUIRE_ACCEL set: not in use either
        return False


def _jsonl_reader() -> bool:
    from feedmap.formats.lines._jsonl import accelerated as jsonl_in_use

    return jsonl_in_use()


#: Each compiled part (its ``.pyx`` under ``feedmap/``) by the name feedmap gives it, with its module's answer.
_PARTS: tuple[tuple[str, Callable[[], bool]], ...] = (
    ("sitemap walk", _walk),
    ("key table", _key_table),
    ("urlset pass", _urlset_pass),
    ("feed pass", _feed_pass),
    ("jsonl reader", _jsonl_reader),
)


def compiled_parts() -> dict[str, bool]:
    """Each compiled part of feedmap by name, ``True`` where the compiled twin is the one in use now, in full
    (built and loaded, ``FEEDMAP_PURE`` not set, and for the sitemap walk its direct build of entries: see the
    module's docstring), ``False`` where its pure-Python twin runs, or that slower walk (same output, slower)."""
    return {name: in_use() for name, in_use in _PARTS}


def accelerated() -> bool:
    """True when every compiled part is in use (see :func:`compiled_parts` for each)."""
    return all(compiled_parts().values())
