"""Which compiled parts the measured tree uses (issue 19): ``feedmap.compiled_parts()`` asked of that tree.

An archived tree built with ``python setup.py build_ext --inplace`` where Cython is missing builds nothing and
says nothing, and its figures are then those of the pure-Python twins.  :func:`tree_parts` runs the measured
tree's interpreter (``sys.executable``) with the environment its cases run with and the tree as working folder
(so ``python -c`` imports the tree's own ``feedmap/``), and reads what it answers; :func:`parts_line` and
:func:`parts_warning` say it in the table and on stderr.  A tree older than ``compiled_parts()`` answers
``None`` (unknown).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

_SCRIPT = """\
import json, feedmap
parts = getattr(feedmap, "compiled_parts", None)
print(json.dumps({"feedmap": feedmap.__file__, "parts": None if parts is None else parts()}))
"""


def pure_on_purpose(env: dict[str, str]) -> bool:
    """Whether the run forces the pure twins (``FEEDMAP_PURE`` set, not to ``0``): False parts are meant then."""
    return env.get("FEEDMAP_PURE", "0") not in ("", "0")


def tree_parts(feedmap_root: Path, env: dict[str, str]) -> dict[str, Any]:
    """``{"feedmap": its __file__, "parts": compiled_parts() or None, "pure": FEEDMAP_PURE set}`` of the tree;
    SystemExit when the tree's feedmap does not import, or another feedmap answers."""
    command = [sys.executable, "-c", _SCRIPT]
    completed = subprocess.run(command, cwd=feedmap_root, env=env, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise SystemExit(f"feedmap.compiled_parts() in {feedmap_root}: exit {completed.returncode}\n{completed.stderr}")
    answer: dict[str, Any] = json.loads(completed.stdout.splitlines()[-1])
    if not str(answer["feedmap"]).startswith(str(feedmap_root.resolve() / "feedmap")):
        raise SystemExit(f"compiled parts: asked {answer['feedmap']!r}, not the feedmap of {feedmap_root}")
    answer["pure"] = pure_on_purpose(env)
    return answer


def parts_line(answer: dict[str, Any]) -> str:
    """The table's line of the tree's compiled parts, each ``name True/False`` (marked where one is False)."""
    parts: dict[str, bool] | None = answer["parts"]
    if parts is None:
        return "compiled parts: unknown (this feedmap has no compiled_parts())"
    said = ", ".join(f"{name} {in_use}" for name, in_use in parts.items())
    line = f"compiled parts: {said}"
    if answer["pure"]:
        return line + " (FEEDMAP_PURE set: the pure-Python twins, on purpose)"
    if not all(parts.values()):
        return f"**WARNING: not every compiled part is in use** ({line}): these figures measure pure-Python twins"
    return line


def parts_warning(answer: dict[str, Any], feedmap_root: Path) -> str | None:
    """The stderr warning when a part of the tree is not in use and FEEDMAP_PURE was not set; else None."""
    parts: dict[str, bool] | None = answer["parts"]
    if parts is None or answer["pure"] or all(parts.values()):
        return None
    missing = ", ".join(name for name, in_use in parts.items() if not in_use)
    return (
        f"WARNING: {feedmap_root}: compiled parts not in use: {missing}.  The figures of this run measure their"
        " pure-Python twins.  Build them in that tree first (pip install cython; then python setup.py build_ext"
        " --inplace there), or set FEEDMAP_PURE=1 to measure the pure twins on purpose."
    )
