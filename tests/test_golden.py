"""Golden files: every sample converted to every expected output, compared byte for byte.

Layout: ``samples/<fmt>/<case>.<ext>`` is an input whose format (recognised from content) must be
``<fmt>``.  Next to it:

* ``<case>.expected.jsonl`` (required): the entries as JSON lines;
* ``<case>.expected.diagnostics`` (required, may be empty): the diagnostics of reading the input, one
  ``line code`` per line (``name:line code`` when the diagnostic is about another file, e.g. an index child);
* ``<case>.expected.<target>.<ext>`` or ``<case>.expected.<ext>``: the input converted to the format
  ``<target>`` (or to the format whose file extension is ``.<ext>``: ``.txt`` is text);
* ``<case>.options.json`` (optional): read options, e.g. ``{"maps": [["https://www.example.com/", "../site"]]}``
  with directories relative to the case's folder.

Golden files are written and checked by hand; there is deliberately no option to regenerate them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

import feedmap
from feedmap import Diagnostic, Level, Options, Reporter
from feedmap.formats import _registry as registry

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "samples"


@dataclass(frozen=True)
class Case:
    fmt: str
    source: Path

    @property
    def stem(self) -> str:
        return self.source.name.split(".", 1)[0]

    def expected(self, suffix: str) -> Path:
        return self.source.with_name(f"{self.stem}.expected.{suffix}")

    def options(self) -> Options:
        path = self.source.with_name(f"{self.stem}.options.json")
        if not path.exists():
            return Options()
        raw = json.loads(path.read_text("utf-8"))
        maps = tuple((prefix, (self.source.parent / directory)) for prefix, directory in raw.get("maps", []))
        return Options(maps=maps, follow=raw.get("follow", True))

    def __str__(self) -> str:
        return f"{self.fmt}/{self.source.name}"


def _format_names() -> set[str]:
    return {spec.name for spec in registry.all_formats()}


def discover_cases() -> list[Case]:
    """Inputs under ``samples/<fmt>/`` for every registered format ``<fmt>``."""
    cases = []
    names = _format_names()
    for folder in sorted(path for path in SAMPLES_DIR.iterdir() if path.is_dir() and path.name in names):
        for path in sorted(folder.iterdir()):
            parts = path.name.split(".")
            if path.is_file() and "expected" not in parts and "options" not in parts and not path.name.startswith("."):
                cases.append(Case(folder.name, path))
    return cases


def target_of(expected: Path, stem: str) -> str | None:
    """The format an ``<stem>.expected.*`` file holds (None for the diagnostics file)."""
    rest = expected.name[len(f"{stem}.expected.") :]
    if rest == "diagnostics":
        return None
    names = _format_names()
    first = rest.split(".", 1)[0]
    if first in names:
        return first
    extension = "." + rest.rsplit(".", 1)[-1]
    writers = [spec for spec in registry.all_formats() if spec.writer is not None and extension in spec.extensions]
    assert len(writers) == 1, f"{expected.name}: cannot tell which format {extension} is; name it"
    return writers[0].name


def conversions() -> list[tuple[Case, Path]]:
    pairs = []
    for case in discover_cases():
        for expected in sorted(case.source.parent.glob(f"{case.stem}.expected.*")):
            if target_of(expected, case.stem) is not None:
                pairs.append((case, expected))
    return pairs


def diagnostic_where(diagnostic: Diagnostic, case: Case) -> tuple[str, int]:
    """The file a diagnostic is about ("" for the case's own input, else its path relative to the case) and line."""
    if diagnostic.source and Path(diagnostic.source).resolve() != case.source.resolve():
        return os.path.relpath(diagnostic.source, case.source.parent).replace(os.sep, "/"), diagnostic.line
    return "", diagnostic.line


def diagnostic_lines(diagnostics: list[Diagnostic], case: Case) -> str:
    """``line code`` per diagnostic (``name:line code`` for other files), ordered by file then line."""
    keyed = sorted(((diagnostic_where(d, case), d.code) for d in diagnostics), key=lambda item: item[0])
    return "".join(f"{name}:{line} {code}\n" if name else f"{line} {code}\n" for (name, line), code in keyed)


def convert(case: Case, target: str, out: Path) -> Reporter:
    reporter = Reporter()
    feedmap.convert(str(case.source), out, target, options=case.options(), reporter=reporter)
    return reporter


def read_diagnostics(case: Case) -> str:
    """The diagnostics of reading the case, in file and line order."""
    reporter = Reporter()
    options = case.options()
    with feedmap.read(
        str(case.source), reporter=reporter, options=feedmap.Options(maps=options.maps, follow=options.follow)
    ) as doc:
        for _ in doc:
            pass
        assert doc.format == case.fmt, f"{case} was read as {doc.format!r}"
    return diagnostic_lines(reporter.diagnostics, case)


CASES = discover_cases()


def test_samples_exist() -> None:
    """The discovery finds the hand-written samples (a guard against a silently empty parametrization)."""
    found = {str(case) for case in CASES}
    assert {
        "sitemap/basic.xml",
        "sitemap/lenient.xml",
        "sitemapindex/index.xml",
        "text/urls.txt",
        "jsonl/entries.jsonl",
        "csv/pages.csv",
        "csv/gallery.csv",
    } <= found


def test_feed_samples_exist() -> None:
    """The feed samples (rss, ror) and the feed outputs of the sitemap sample are discovered too."""
    assert {"rss/feed.xml", "rss/atom.xml", "ror/site.xml"} <= {str(case) for case in CASES}
    targets = {f"{case}->{expected.name}": target_of(expected, case.stem) for case, expected in conversions()}
    assert {
        "sitemap/basic.xml->basic.expected.ror.xml": "ror",
        "sitemap/basic.xml->basic.expected.rss.xml": "rss",
        "rss/feed.xml->feed.expected.sitemap.xml": "sitemap",
        "rss/atom.xml->atom.expected.sitemap.xml": "sitemap",
        "ror/site.xml->site.expected.sitemap.xml": "sitemap",
        "ror/site.xml->site.expected.jsonl": "jsonl",
    }.items() <= targets.items()


@pytest.mark.parametrize("case", CASES, ids=str)
def test_every_case_has_jsonl_and_diagnostics(case: Case) -> None:
    assert case.expected("jsonl").is_file(), f"{case}: {case.expected('jsonl').name} is missing"
    assert case.expected("diagnostics").is_file(), f"{case}: {case.expected('diagnostics').name} is missing"


@pytest.mark.parametrize("case", CASES, ids=str)
def test_diagnostics(case: Case) -> None:
    expected = case.expected("diagnostics")
    if not expected.is_file():
        pytest.fail(f"{expected} is missing")
    assert read_diagnostics(case) == expected.read_text("utf-8")


@pytest.mark.parametrize(("case", "expected"), conversions(), ids=lambda value: getattr(value, "name", str(value)))
def test_conversion(case: Case, expected: Path, tmp_path: Path) -> None:
    target = target_of(expected, case.stem)
    assert target is not None
    out = tmp_path / expected.name
    convert(case, target, out)
    assert out.read_bytes() == expected.read_bytes()


@pytest.mark.parametrize("case", CASES, ids=str)
def test_expected_jsonl_reads_back_to_the_same_entries(case: Case) -> None:
    """Each expected.jsonl is valid jsonl holding exactly the entries read from the input; it warns only about
    what the input itself holds (a loc with a character no URI holds is kept as read, and reported again)."""
    options = case.options()
    with feedmap.read(str(case.source), options=feedmap.Options(maps=options.maps, follow=options.follow)) as doc:
        from_input = list(doc)
        input_codes = {d.code for d in doc.diagnostics if d.level >= Level.WARNING}
    with feedmap.read(str(case.expected("jsonl")), format="jsonl") as doc:
        from_golden = list(doc)
        golden_codes = {d.code for d in doc.diagnostics if d.level >= Level.WARNING}
    assert from_golden == from_input
    assert golden_codes <= input_codes
