"""Python code run in a fresh interpreter in which some modules cannot be imported: an optional extra missing
(``pandas``, ``pyarrow``, ``dask.dataframe``), as on a machine where it was never installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_BLOCKER = """
import sys
class _Blocked:
    def find_spec(self, name, path=None, target=None):
        if any(name == one or name.startswith(one + ".") for one in {blocked!r}):
            raise ImportError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, _Blocked())
"""


def run_without(blocked: set[str], script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -c script args...`` in the repository's root, each module of ``blocked`` (and those under it)
    refused as a missing one is."""
    return subprocess.run(
        [sys.executable, "-c", _BLOCKER.format(blocked=sorted(blocked)) + script, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
