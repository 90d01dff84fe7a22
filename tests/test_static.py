"""The package stays ruff-clean and mypy --strict clean (the checks pyproject.toml configures)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_is_clean() -> None:
    if shutil.which("ruff") is None and _run("ruff", "--version").returncode != 0:
        pytest.fail("ruff is not installed; it is part of the test extras (pip install -e '.[test]')")
    result = _run("ruff", "check", "feedmap", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean() -> None:
    result = _run("mypy", "--strict", "feedmap")
    assert result.returncode == 0, result.stdout + result.stderr
