"""Every test is bounded: pytest-timeout stops a test that hangs (a blocked read, a server that never answers)
after the ``timeout`` of ``[tool.pytest.ini_options]``, fails it with its stack and goes on with the next, so
a hang costs one failure instead of the whole CI run.  The few tests that need longer carry
``@pytest.mark.timeout(SECONDS)``."""

from __future__ import annotations

import pytest

#: The most any single test may take by default; a slower one says so with its own mark.
MOST_SECONDS = 300


def test_every_test_has_a_time_bound(request: pytest.FixtureRequest) -> None:
    assert request.config.pluginmanager.hasplugin("timeout"), "pytest-timeout is part of the test extras"
    seconds = float(request.config.getini("timeout"))
    assert 0 < seconds <= MOST_SECONDS


def test_a_hanging_test_fails_and_the_run_goes_on(pytester: pytest.Pytester, request: pytest.FixtureRequest) -> None:
    """With the configured way of stopping a test (the signal method: the test fails, the session goes on),
    a test blocked in a call fails as timed out and the next test still runs and passes."""
    pytester.makepyfile(
        test_hangs="import time\n\ndef test_blocked():\n    time.sleep(60)\n\ndef test_after():\n    assert True\n"
    )
    method = f"timeout_method={request.config.getini('timeout_method')}"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-o", "timeout=1", "-o", method)
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*Timeout*"])
