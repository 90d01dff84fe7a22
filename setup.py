"""Build of feedmap's optional compiled accelerator (everything else is declared in pyproject.toml).

The sitemap reader's per-entry walk has a compiled twin, ``feedmap/formats/sitemap/_walk_c.pyx`` (Cython over
lxml's C API, whose headers the lxml wheel ships: ``lxml.get_include()``).  It is built where Cython, lxml and a
C compiler are at hand; where any of them is missing or the build fails, a warning says so and the install goes
on without it: the pure-Python twin (``_walk.py``) then reads the same entries, a little slower.
"""

from __future__ import annotations

import sys
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

_WHY = "feedmap's compiled sitemap walk is not built ({}); the pure-Python twin is used instead (same output)"


def _warn(why: str) -> None:
    print("WARNING: " + _WHY.format(why), file=sys.stderr)


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
            _warn(f"{ext.name}: {type(exc).__name__}: {exc}")


def _extensions() -> list[Any]:
    try:
        import lxml
        from Cython.Build import cythonize
        from setuptools import Extension
    except ImportError as exc:
        _warn(f"{exc.name or exc} is not installed")
        return []
    walk = Extension(
        "feedmap.formats.sitemap._walk_c",
        ["feedmap/formats/sitemap/_walk_c.pyx"],
        include_dirs=lxml.get_include(),
    )
    try:
        return list(cythonize([walk], quiet=True, compiler_directives={"language_level": "3"}))
    except Exception as exc:  # a Cython error leaves the pure twin too
        _warn(f"Cython: {type(exc).__name__}: {exc}")
        return []


setup(ext_modules=_extensions(), cmdclass={"build_ext": _OptionalBuildExt})
