"""Memory with big entries (issue 17, point 15): batches and spills are bounded by bytes, not by counts.

80 entries of 900 KB descriptions (72 MB of JSON lines) were held whole by the writers' batches (1,024
lines, 512 blocks), by the merge's spool (10,000 entries kept as they are) and by ``--sort`` (100,000
entries a run).  The peak of Python's allocations (:mod:`tracemalloc`, in this process: no timing, no other
process counted) stays far below the input's size now.
"""

from __future__ import annotations

import json
import tempfile
import tracemalloc
from pathlib import Path

import pytest

from feedmap.cli import main

ENTRIES = 80
DESCRIPTION = 900_000
INPUT_MB = ENTRIES * DESCRIPTION / 1e6


@pytest.fixture(scope="module")
def big_input(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for n in range(ENTRIES):
            entry = {"loc": f"https://e.example/{n % 70}", "title": f"t{n}", "description": f"{n}" + "d" * DESCRIPTION}
            out.write(json.dumps(entry) + "\n")
    return path


def _peak_mb(argv: list[str], capsys: pytest.CaptureFixture[str]) -> float:
    tracemalloc.start()
    try:
        code = main(argv)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert code == 0, err
    return peak / 1e6


@pytest.mark.parametrize(
    ("target", "extra", "bound_mb"),
    [
        ("jsonl", [], 16),  # report only: the writer's batch was every line (72 MB, joined, encoded)
        ("rss", [], 32),  # the merge's spool held every entry; the first 512 items were rendered at once
        ("sitemap", [], 32),
        ("jsonl", ["--dedupe", "first"], 16),
        ("jsonl", ["--sort", "loc"], 56),  # runs of 32 MB (RUN_BYTES), then merged from disk
        ("rss", ["--sort", "-lastmod", "--limit", "60"], 56),  # the first 60 kept: cut batches, then runs
    ],
)
def test_big_entries_are_converted_in_bounded_memory(
    big_input: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    target: str,
    extra: list[str],
    bound_mb: int,
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    out = tmp_path / f"out.{target}"
    peak = _peak_mb(["convert", str(big_input), "-t", target, "-o", str(out), "--max-bytes", "1G", *extra], capsys)
    assert peak < bound_mb, f"peak {peak:.0f} MB for {INPUT_MB:.0f} MB of input"
    written = out.read_text(encoding="utf-8")
    assert written.count("https://e.example/") >= 60  # 70 distinct URLs; the first 60 with --limit
    if target != "sitemap":  # a sitemap holds no description
        assert len(written) > 60 * DESCRIPTION
    assert [path.name for path in tmp_path.iterdir()] == [out.name]  # no spill left behind
