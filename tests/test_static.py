"""The package stays ruff-clean (complexity 15 at most), mypy --strict clean, in modules of one concept each
(600 lines at most),
and keeps the architecture that pyproject.toml declares as import-linter contracts."""

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


@pytest.mark.timeout(600)  # mypy --strict of the whole package, from a cold cache
def test_mypy_strict_is_clean() -> None:
    result = _run("mypy", "--strict", "feedmap")
    assert result.returncode == 0, result.stdout + result.stderr


MAX_MODULE_LINES = 600


def test_no_module_is_over_600_lines() -> None:
    """Small modules with one job each: none of the package's modules passes 600 lines."""
    long = {
        str(path.relative_to(ROOT)): count
        for path in sorted((ROOT / "feedmap").rglob("*.py"))
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split them by job): {long}"


def test_the_import_contracts_hold() -> None:
    """The architecture in ``.importlinter`` (layers, formats independent of each other, nothing outside
    ``feedmap.cli`` importing it) holds, imports made inside functions included."""
    script = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
