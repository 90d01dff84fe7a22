"""Shared fixtures for the whole test suite.

* ``samples_dir``: the repository's ``samples/`` folder (hand-written inputs and their golden outputs).
* ``corpus_dir``: the external conformance corpus, the folder named by ``$FEEDMAP_CORPUS`` (the repository
  names no place outside itself); a test that asks for it is skipped, with the reason, when
  the folder is absent, unless ``$FEEDMAP_REQUIRE_CORPUS`` is set (CI sets it): then every skip for want
  of the corpus is a failure.  Corpus files are read in place and never copied into the repository.
* ``web``: a real HTTP server on 127.0.0.1 with programmable routes (``tests/localsite.py``).
* ``refused_port``: a port on 127.0.0.1 that refuses connections for the whole test (bound, not listening).

Plain helpers shared by the test files (``from conftest import codes, run``), one definition each:

* ``run(capsys, *argv)``: ``feedmap ARGV...`` in-process through :func:`feedmap.cli.main`, as (exit code,
  stdout, stderr); ``run_words`` gives stdout as its words.
* ``codes(diagnostics_or_report, at_least=Level.INFO)``: the diagnostic codes, in order.
* ``urlset_xml(*locs)`` and ``index_xml(*locs)``: a minimal sitemap and sitemap index listing these URLs.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from localsite import LocalSite, refusing_port

import feedmap
from feedmap import Diagnostic, Level
from feedmap.cli import main

#: ``pytester`` runs a small pytest session in-process (the test of FEEDMAP_REQUIRE_CORPUS below).
pytest_plugins = ("pytester",)

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = REPO_ROOT / "samples"


SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """Run ``feedmap argv...`` in-process; return (exit code, stdout, stderr)."""
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_in(capsys: pytest.CaptureFixture[str], where: Path, argv: list[str]) -> tuple[int, str, str, dict[str, bytes]]:
    """Run ``feedmap argv`` in the folder ``where`` (made): exit code, stdout, stderr, and every file it wrote there
    (by path relative to ``where``)."""
    where.mkdir(parents=True)
    here = Path.cwd()
    os.chdir(where)
    try:
        code, out, err = run(capsys, *argv)
    finally:
        os.chdir(here)
    files = {str(path.relative_to(where)): path.read_bytes() for path in sorted(where.rglob("*")) if path.is_file()}
    return code, out, err, files


def run_words(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, list[str], str]:
    """:func:`run`, with stdout split into its words (one URL a line, for the text format)."""
    code, out, err = run(capsys, *argv)
    return code, out.split(), err


def codes(found: Iterable[Diagnostic] | feedmap.Report, at_least: Level = Level.INFO) -> list[str]:
    """The codes of these diagnostics (or of a :func:`feedmap.validate` report's findings) of level
    ``at_least`` or above, in the order they came."""
    diagnostics = found.findings if isinstance(found, feedmap.Report) else found
    return [diagnostic.code for diagnostic in diagnostics if diagnostic.level >= at_least]


def urlset_xml(*locs: str) -> bytes:
    """A sitemap (``<urlset>``) listing ``locs`` as they are written."""
    body = "".join(f"<url><loc>{loc}</loc></url>\n" for loc in locs)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}">\n{body}</urlset>\n'.encode()


def index_xml(*locs: str) -> bytes:
    """A sitemap index listing ``locs`` as they are written (markup in a loc stays markup)."""
    body = "".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SITEMAP_NS}">\n'
    return f"{head}{body}</sitemapindex>\n".encode()


def find_corpus() -> Path | None:
    """The corpus folder ($FEEDMAP_CORPUS), or None when it is unset or names no folder."""
    configured = os.environ.get("FEEDMAP_CORPUS")
    return Path(configured) if configured and Path(configured).is_dir() else None


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    """The repository's ``samples/`` folder."""
    assert SAMPLES_DIR.is_dir(), f"{SAMPLES_DIR} is missing"
    return SAMPLES_DIR


#: Set (to 1) by CI (.ci/run): a test that would be skipped for want of the corpus fails instead.
REQUIRE_CORPUS = "FEEDMAP_REQUIRE_CORPUS"


def env_flag(name: str) -> bool:
    """An environment switch such as FEEDMAP_REQUIRE_CORPUS=1 is on (unset, empty and 0 are off)."""
    return os.environ.get(name, "") not in ("", "0")


def corpus_required() -> bool:
    return env_flag(REQUIRE_CORPUS)


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The external conformance corpus; skips the test when it is absent (fails under FEEDMAP_REQUIRE_CORPUS=1)."""
    corpus = find_corpus()
    if corpus is None:
        configured = os.environ.get("FEEDMAP_CORPUS")
        message = (
            f"external corpus not found at {configured} (FEEDMAP_CORPUS names no folder)"
            if configured
            else "external corpus not given: set FEEDMAP_CORPUS to its folder"
        )
        if corpus_required():
            pytest.fail(f"{message}; {REQUIRE_CORPUS} is set, so conformance tests may not be skipped")
        pytest.skip(message)
    return corpus


def _skipped_for_the_corpus(report: pytest.CollectReport | pytest.TestReport) -> bool:
    """A skip whose reason names the corpus (a fixture, a module-level skip, a missing corpus file)."""
    if not report.skipped or not isinstance(report.longrepr, tuple):
        return False
    return "corpus" in str(report.longrepr[2]).lower()


def _fail_instead(report: pytest.CollectReport | pytest.TestReport) -> None:
    if corpus_required() and _skipped_for_the_corpus(report):
        assert isinstance(report.longrepr, tuple)
        reason = report.longrepr[2]
        report.outcome = "failed"
        report.longrepr = f"{reason} ({REQUIRE_CORPUS} is set: conformance tests may not be skipped)"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under FEEDMAP_REQUIRE_CORPUS, every skip for want of the corpus (whoever wrote it) is a failure."""
    outcome = yield
    _fail_instead(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    """The same for a module skipped as a whole (``pytest.skip(allow_module_level=True)``)."""
    outcome = yield
    _fail_instead(outcome.get_result())


@pytest.fixture
def web() -> Iterator[LocalSite]:
    """A real HTTP server on 127.0.0.1 with programmable routes (see tests/localsite.py)."""
    with LocalSite() as site:
        yield site


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections for the whole test: bound by it and never listening, so
    no other program can take it meanwhile (unlike a port bound and closed again, or a well-known one)."""
    with refusing_port() as port:
        yield port


@pytest.fixture
def mount_tmpfs(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """mount_tmpfs("size=64k") -> a folder with a fresh tmpfs of these options; unmounted afterwards."""
    mounted: list[Path] = []

    def mount(options: str) -> Path:
        folder = tmp_path / f"disk{len(mounted)}"
        folder.mkdir()
        try:
            done = subprocess.run(
                ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True, text=True
            )
        except FileNotFoundError:
            pytest.skip("no mount command to make a small file system")
        if done.returncode != 0:
            pytest.skip(f"mounting a tmpfs is not permitted here ({done.stderr.strip()})")
        mounted.append(folder)
        return folder

    try:
        yield mount
    finally:
        for folder in mounted:
            subprocess.run(["umount", "-l", str(folder)], check=False)


def release_fifo_reader(fifo: Path) -> None:
    """Let a reader blocked opening ``fifo`` go on, without ever waiting: a blocking open for writing would wait
    for ever if the reader had gone meanwhile (the sibling of test_local_cap's writer release)."""
    with contextlib.suppress(OSError):  # ENXIO: no reader is left to release
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
