"""``feedmap.transforms``, the first name of ``feedmap.converters``, kept one release as a deprecated alias: its
import (or the first read of ``feedmap.transforms``) warns, naming ``feedmap.converters``, at the caller's line;
``import feedmap`` alone neither loads it nor warns; its names are the very objects of ``feedmap.converters``.

The warnings are watched in fresh interpreters: a module warns only when it is first imported."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import feedmap.converters

_WATCH = """
import json, sys, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
{body}
print(json.dumps({{
    "loaded": "feedmap.transforms" in sys.modules,
    "warnings": [[w.category.__name__, str(w.message), w.filename, w.lineno] for w in caught],
}}))
"""


def _watch(tmp_path: Path, *lines: str) -> tuple[dict[str, object], Path]:
    """Run ``lines`` in a fresh interpreter (in a script file); what it loaded and the warnings it got."""
    script = tmp_path / "script.py"
    script.write_text(_WATCH.format(body="\n".join(f"    {line}" for line in lines)), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True, cwd=tmp_path)
    return json.loads(done.stdout), script


def test_import_feedmap_neither_loads_the_alias_nor_warns(tmp_path: Path) -> None:
    seen, _ = _watch(tmp_path, "import feedmap", "feedmap.converters.merge_duplicates")
    assert seen == {"loaded": False, "warnings": []}


@pytest.mark.parametrize(
    "asking",
    ["import feedmap; feedmap.transforms", "import feedmap.transforms", "from feedmap import transforms",
     "from feedmap.transforms import merge_duplicates"],
)  # fmt: skip
def test_asking_for_the_alias_warns_once_naming_converters_at_the_callers_line(tmp_path: Path, asking: str) -> None:
    seen, script = _watch(tmp_path, asking, "import feedmap", "feedmap.transforms.dedupe")
    assert seen["loaded"] is True
    warned = seen["warnings"]
    assert isinstance(warned, list) and len(warned) == 1
    category, message, filename, line = warned[0]
    assert category == "DeprecationWarning"
    assert "feedmap.converters" in message and "feedmap.transforms" in message
    assert (Path(filename), line) == (script, 6)  # the line of `asking` in the script, not the import system's


def test_the_alias_holds_the_very_names_of_converters() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        transforms = importlib.import_module("feedmap.transforms")
    assert sorted(transforms.__all__) == sorted(feedmap.converters.__all__)
    assert all(getattr(transforms, name) is getattr(feedmap.converters, name) for name in feedmap.converters.__all__)


def test_a_star_import_and_dir_do_not_load_the_deprecated_alias() -> None:
    """``from feedmap import *`` (and tools that walk ``dir(feedmap)``) get no warning for a module never asked
    for, even with warnings as errors."""
    code = (
        "import warnings; warnings.simplefilter('error')\n"
        "from feedmap import *\n"
        "import feedmap\n"
        "[getattr(feedmap, name) for name in dir(feedmap)]\n"
        "import sys; print('feedmap.transforms' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "False"), done.stderr
