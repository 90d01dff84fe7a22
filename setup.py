"""Build of feedmap's optional compiled accelerators (everything else is declared in pyproject.toml).

The sitemap reader's per-entry walk has a compiled twin, ``feedmap/formats/sitemap/_walk_c.pyx`` (Cython over
lxml's C API, whose headers the lxml wheel ships: ``lxml.get_include()``), and so has the memory of repeated
URLs, ``feedmap/_io/_keys_c.pyx`` (Cython, C arrays; it needs no lxml), and so has the one pass of a urlset's
checks, merge and rendering, ``feedmap/converters/_pass_c.pyx`` (Cython; no lxml).  Each is built where Cython (and, for
the walk, lxml) and a C compiler are at hand; where any of them is missing or a build fails, a warning says so
and the install goes on without it: the pure-Python twin (``_walk.py``, ``seen_keys.py``) then gives the same
results, a little slower (``_pass.py`` for the pass).  So has the one pass of a feed's checks, merge and items,
``feedmap/converters/_feed_pass_c.pyx`` (Cython; no lxml; its twin ``_feed_pass.py``), and so has the JSON lines
reader's common line, ``feedmap/formats/lines/_jsonl_c.pyx`` (Cython; no lxml; its twin ``_common`` in ``_jsonl.py``).
Both passes cimport the plain URL loop of ``feedmap/converters/_plain_web.pxd``, and the walk and the JSON lines
reader the inline checks of ``feedmap/formats/_plain_c.pxd`` (inline functions, compiled into each: no extension
of their own; Cython finds them next to their users, and recompiles those when they change).
"""

from __future__ import annotations

import sys
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

_WHY = "feedmap's compiled {} is not built ({}); the pure-Python twin is used instead (same output)"

#: Each extension's dotted name, its source and what it is called in a warning.
_WALK = ("feedmap.formats.sitemap._walk_c", "feedmap/formats/sitemap/_walk_c.pyx", "sitemap walk")
_KEYS = ("feedmap._io._keys_c", "feedmap/_io/_keys_c.pyx", "key table")
_PASS = ("feedmap.converters._pass_c", "feedmap/converters/_pass_c.pyx", "urlset pass")
_FEED_PASS = ("feedmap.converters._feed_pass_c", "feedmap/converters/_feed_pass_c.pyx", "feed pass")
_JSONL = ("feedmap.formats.lines._jsonl_c", "feedmap/formats/lines/_jsonl_c.pyx", "jsonl reader")
_WHAT = {name: what for name, _, what in (_WALK, _KEYS, _PASS, _FEED_PASS, _JSONL)}


def _warn(why: str, what: str = "sitemap walk, key table, urlset pass, feed pass and jsonl reader") -> None:
    print("WARNING: " + _WHY.format(what, why), file=sys.stderr)


class _OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing (no compiler, no headers, a compile error)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # any failure of the optional build leaves the pure twin
            _warn(f"{type(exc).__name__}: {exc}")

    def build_extension(self, ext: Any) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            _warn(f"{ext.name}: {type(exc).__name__}: {exc}", _WHAT.get(ext.name, ext.name))


def _extensions() -> list[Any]:
    try:
        from Cython.Build import cythonize
        from setuptools import Extension
    except ImportError as exc:
        _warn(f"{exc.name or exc} is not installed")
        return []
    extensions = []
    try:
        import lxml

        extensions.append(Extension(_WALK[0], [_WALK[1]], include_dirs=lxml.get_include()))
    except ImportError as exc:
        _warn(f"{exc.name or exc} is not installed", _WALK[2])
    extensions.append(Extension(_KEYS[0], [_KEYS[1]]))
    extensions.append(Extension(_PASS[0], [_PASS[1]]))
    extensions.append(Extension(_FEED_PASS[0], [_FEED_PASS[1]]))
    extensions.append(Extension(_JSONL[0], [_JSONL[1]]))
    built = []
    for extension in extensions:  # one at a time: a Cython error in one leaves the other built
        try:
            built.extend(cythonize([extension], quiet=True, compiler_directives={"language_level": "3"}))
        except Exception as exc:
            _warn(f"Cython: {type(exc).__name__}: {exc}", _WHAT[extension.name])
    return built


setup(ext_modules=_extensions(), cmdclass={"build_ext": _OptionalBuildExt})
