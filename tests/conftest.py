"""Shared fixtures for the whole test suite.

* ``samples_dir``: the repository's ``samples/`` folder (hand-written inputs and their golden outputs).
* ``corpus_dir``: the external conformance corpus, ``../shared/corpus`` relative to the repository root
  or the folder named by ``$FEEDMAP_CORPUS``; a test that asks for it is skipped, with the reason, when
  the folder is absent.  Corpus files are read in place and never copied into the repository.
* ``web``: a real HTTP server on 127.0.0.1 with programmable routes (``tests/localsite.py``).
* ``refused_port``: a port on 127.0.0.1 that refuses connections for the whole test (bound, not listening).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from localsite import LocalSite, refusing_port

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = REPO_ROOT / "samples"


def find_corpus() -> Path | None:
    """The corpus folder ($FEEDMAP_CORPUS, else ../shared/corpus next to the repository), or None."""
    configured = os.environ.get("FEEDMAP_CORPUS")
    candidate = Path(configured) if configured else REPO_ROOT.parent / "shared" / "corpus"
    return candidate if candidate.is_dir() else None


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    """The repository's ``samples/`` folder."""
    assert SAMPLES_DIR.is_dir(), f"{SAMPLES_DIR} is missing"
    return SAMPLES_DIR


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The external conformance corpus; skips the test when it is absent."""
    corpus = find_corpus()
    if corpus is None:
        where = os.environ.get("FEEDMAP_CORPUS") or str(REPO_ROOT.parent / "shared" / "corpus")
        pytest.skip(f"external corpus not found at {where} (set FEEDMAP_CORPUS to its folder)")
    return corpus


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
