"""The architecture pyproject.toml declares holds: the import-linter contracts (imports made inside functions
count), ruff's complexity rule (C901, at most 15) and no module of the package over 400 lines.

The modules of the feeds restructure still under way are listed in PENDING: their tests are expected to
fail, strictly, so that the list (and the ruff exemption of ror.py) goes as soon as the work lands.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "feedmap"
MAX_LINES = 400
#: The feed modules being restructured (issue 10): over the size limit, importing another format.
PENDING = frozenset({"formats/rss.py", "formats/ror.py", "formats/_feedstream.py"})
_PENDING = pytest.mark.xfail(strict=True, reason="the feeds restructure of issue 10 is not merged yet")


def _lint_imports(contract: str) -> subprocess.CompletedProcess[str]:
    command = Path(sys.executable).with_name("lint-imports")
    if not command.exists():
        pytest.fail("import-linter is not installed; it is part of the test extras (pip install -e '.[test]')")
    return subprocess.run(
        [str(command), "--contract", contract], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_the_layers_contract_holds() -> None:
    result = _lint_imports("layers")
    assert result.returncode == 0, result.stdout + result.stderr


@_PENDING
def test_the_formats_are_independent_of_each_other() -> None:
    result = _lint_imports("formats-independent")
    assert result.returncode == 0, result.stdout + result.stderr


def _modules() -> list[str]:
    return sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize(
    "module", [pytest.param(name, marks=[_PENDING] if name in PENDING else []) for name in _modules()]
)
def test_no_module_is_over_400_lines(module: str) -> None:
    with (PACKAGE / module).open(encoding="utf-8") as lines:
        assert sum(1 for _ in lines) <= MAX_LINES


@_PENDING
def test_ror_needs_no_complexity_exemption() -> None:
    """pyproject.toml exempts formats/ror.py from C901 until its restructure lands; then the exemption goes."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "C901", "--config", "lint.per-file-ignores={}",
         "feedmap/formats/ror.py"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
