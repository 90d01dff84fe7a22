"""benchmarks/bench_repairs.py still runs: its --quick pass reads every kind of repair and checks the cap.

No timing is asserted (that depends on the machine); only that each case read both entries and capped
its diagnostics (the script's own checks, reflected in its exit status).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_repairs.py"


def test_quick_run_passes_its_checks(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_repairs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert "UNEXPECTED" not in out
    assert len(out.splitlines()) == 2 + 4 * 2 * 2  # where feedmap is, header, 4 kinds x 2 sizes x plain/gzip
