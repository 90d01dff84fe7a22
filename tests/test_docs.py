"""The documentation site (``docs/``, ``mkdocs.yml``) and the README front page.

The site builds with ``mkdocs build --strict`` (a broken link, anchor or cross-reference is an error); its API
reference shows every public name of ``feedmap``, ``feedmap.formats`` and ``feedmap.converters`` and links to no
private module (``feedmap._...``), the docstrings' Sphinx roles rendered as links (``docs/hooks/sphinx_roles.py``);
its command-line reference holds each command's ``--help``, rendered from the parsers by the hook
``docs/hooks/cli_reference.py``; its formats table says what the registry says.

The README is a front page of at most 150 lines: the two set-up commands (the second is the one ``.ci/run``
runs), a few recipes that run as written on files that exist, links into the docs.

Every ```python block of the README and of the docs type-checks with ``mypy --strict``, but for the blocks
marked on the line before them: ``<!-- mypy: skip (why) -->`` is not meant to type-check (a skeleton);
``<!-- mypy: fails until (what) -->`` is meant to and does not yet, because of an API type still to be fixed:
it must still fail (so the marker is removed once the type is right).
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import feedmap
import feedmap.converters
import feedmap.formats
from feedmap.cli import main

#: Building the site and type-checking every example take a minute or two on a loaded machine (pytest-timeout).
pytestmark = pytest.mark.timeout(900)

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PRIVATE = re.compile(r"\bfeedmap(?:\.\w+)*\._[A-Za-z]")  # _x and _X: a private module or a private name
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def _blocks(text: str, language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(text) if lang == language]


# ----------------------------------------------------------------------------------------------- the site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as ``mkdocs build --strict`` writes it, into a temporary folder."""
    folder = tmp_path_factory.mktemp("site")
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        pytest.fail("mkdocs is not installed; it is part of the test extras (pip install -e '.[test]')")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return folder


def _html(site: Path, page: str) -> str:
    return (site / page / "index.html").read_text(encoding="utf-8")


def test_no_page_links_to_a_private_module(site: Path) -> None:
    """No link (its target or its title) and no anchor in the site names a ``feedmap._...`` module."""
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        text = page.read_text(encoding="utf-8")
        links = re.findall(r"<a\s[^>]*>", text)
        anchors = re.findall(r'\sid="([^"]*)"', text)
        assert [link for link in links if PRIVATE.search(html.unescape(link))] == [], page
        assert [anchor for anchor in anchors if PRIVATE.search(anchor)] == [], page


@pytest.mark.parametrize("module", [feedmap, feedmap.formats, feedmap.converters], ids=lambda m: m.__name__)
def test_the_api_reference_shows_every_public_name(site: Path, module: object) -> None:
    """Each name of the module's ``__all__`` has its entry (an anchor ``module.NAME``) in the API page."""
    page = _html(site, "reference/api")
    name = getattr(module, "__name__", "")
    public = [
        each for each in getattr(module, "__all__", ()) if not isinstance(getattr(module, each), type(feedmap))
    ]  # the deprecated alias module feedmap.transforms has no entry of its own
    assert f'id="{name}"' in page
    assert [each for each in public if f'id="{name}.{each}"' not in page] == []


def test_the_api_reference_shows_only_public_names(site: Path) -> None:
    page = _html(site, "reference/api")
    entries = re.findall(r'<h[2-6] id="(feedmap\.[\w.]+)"', page)
    assert entries and [entry for entry in entries if PRIVATE.search(entry)] == []


def test_the_api_reference_shows_no_raw_sphinx_role(site: Path) -> None:
    """The docstrings' roles (``:class:`Entry```) are rendered as links or code (docs/hooks/sphinx_roles.py)."""
    page = _html(site, "reference/api")
    assert re.findall(r":(?:class|func|meth|attr|mod|exc|data):<code>", page) == []
    assert '<a class="autorefs autorefs-internal" href="#feedmap.Entry"><code>Entry</code></a>' in page


def _commands() -> list[str]:
    """The commands ``feedmap`` accepts, as its own usage error lists them."""
    with contextlib.redirect_stderr(io.StringIO()) as said:
        assert main(["no-such-command"]) == 2
    choices = said.getvalue().split("choose from", 1)[1]
    return re.findall(r"'([\w-]+)'", choices)


def _help(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COLUMNS", "100")  # the width the page is rendered at (docs/hooks/cli_reference.py)
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert main(argv) == 0
    return printed.getvalue()


def test_the_cli_reference_is_every_commands_help(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page holds ``feedmap --help`` and, for every command feedmap accepts, ``feedmap COMMAND --help``
    as it prints (each option line of it)."""
    page = html.unescape(re.sub(r"<[^>]+>", "", _html(site, "reference/cli")))
    commands = _commands()
    assert {"convert", "validate", "diff"} <= set(commands)
    for argv in [["--help"], *([command, "--help"] for command in commands)]:
        lines = [line.strip() for line in _help(argv, monkeypatch).splitlines() if line.strip()]
        assert [line for line in lines if line not in page] == [], argv


def _formats_table() -> dict[str, tuple[bool, bool, bool]]:
    text = (DOCS / "formats.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (yes|no) \| (yes|no) \| (yes|no) \|", text, re.MULTILINE)
    return {name: (read == "yes", write == "yes", split == "yes") for name, read, write, split in rows}


def test_the_formats_table_says_what_the_registry_says(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["formats", "--json"]) == 0
    specs = json.loads(capsys.readouterr().out)
    listed = {spec["name"]: (spec["read"], spec["write"], spec["split"]) for spec in specs}
    assert _formats_table() == listed


def test_the_hook_is_ruff_and_mypy_clean() -> None:
    hooks = DOCS / "hooks"
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", str(hooks)], cwd=ROOT, capture_output=True, text=True)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *map(str, sorted(hooks.glob("*.py")))],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr


def test_the_hook_reads_no_deprecated_alias() -> None:
    """Building the API reference reads every public name but the deprecated ``feedmap.transforms`` (reading it
    would print its DeprecationWarning into every ``mkdocs build``); a fresh process, where it was never read."""
    script = (
        "import sys, warnings; sys.path.insert(0, 'docs/hooks'); import sphinx_roles\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    names = sphinx_roles.public_names()\n"
        "print(sorted({str(w.message) for w in caught if 'feedmap.transforms' in str(w.message)}))\n"
        "print('feedmap.converters.dedupe' in names, 'feedmap.transforms' in names)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[]", "True False"]


# ------------------------------------------------------------------------------------------------ the README


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def test_the_readme_is_a_front_page() -> None:
    text = _readme()
    assert len(text.splitlines()) <= 150
    for page in re.findall(r"\]\((docs/[^)#]+)", text):  # its links into the docs lead to pages
        assert (ROOT / page).is_file(), page
    assert "docs/reference/api.md" in text and "docs/quickstart.md" in text


def test_the_readme_has_the_two_set_up_commands_ci_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exactly two commands: one installs and runs the main job on samples/, one installs and runs the tests,
    the line ``.ci/run`` runs (it adds only ``-q`` to pip)."""
    try_it, test = (block.strip() for block in _blocks(_section(_readme(), "Set up"), "sh"))
    install, _, job = try_it.rpartition(" && .venv/bin/feedmap ")
    assert install == "python3 -m venv .venv && .venv/bin/pip install ."
    monkeypatch.chdir(ROOT)
    assert main(shlex.split(job)) == 0
    assert capsys.readouterr().out.startswith('{"loc":')
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci.replace(" install -q ", " install ") == test
    assert test.endswith(" && .venv/bin/python -m pytest")


def _samples_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ROOT / "samples", tmp_path / "samples")
    monkeypatch.chdir(tmp_path)


def test_every_file_the_readme_names_exists() -> None:
    names = set()
    for language in ("sh", "python"):
        for block in _blocks(_readme(), language):
            names |= set(re.findall(r"\bsamples/[\w./-]*[\w/]", block))
    assert len(names) >= 5
    assert sorted(name for name in names if not (ROOT / name).exists()) == []


@dataclass
class Command:
    argv: list[str]
    status: int  # what its comment says: "exit 1", else 0


def _recipes() -> list[Command]:
    """The README's recipe commands: each ``feedmap ...`` line, with the exit status its comment gives."""
    (block,) = _blocks(_section(_readme(), "Recipes"), "sh")
    commands: list[Command] = []
    for line in block.splitlines():
        if line.startswith("feedmap "):
            command, _, comment = line.partition("  #")
            commands.append(Command(shlex.split(command)[1:], 0))
        else:
            comment = line.strip().removeprefix("#")
        if commands and "exit 1" in comment:
            commands[-1].status = 1
    return commands


def test_the_readme_recipes_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _samples_in(tmp_path, monkeypatch)
    commands = _recipes()
    assert len(commands) >= 5
    for command in commands:
        assert main(command.argv) == command.status, (command.argv, capsys.readouterr().err)
    (example,) = _blocks(_readme(), "python")
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(example, "README.md", "exec"), {})


# ---------------------------------------------------------------------------------- the examples of the docs

#: The pages whose Python examples run on the samples as they are; the pipeline recipe reads a remote index
#: too (run with a local site by tests/test_public_api.py), the extension pages install a plugin (run by
#: tests/test_public_api.py and tests/test_extensions.py).
RUNNABLE = sorted([DOCS / "quickstart.md", *(DOCS / "recipes").glob("*.md")])


@pytest.mark.parametrize("page", [page for page in RUNNABLE if page.name != "pipeline.md"], ids=lambda p: p.stem)
def test_the_docs_python_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    examples = _blocks(page.read_text(encoding="utf-8"), "python")
    assert examples, page
    _samples_in(tmp_path, monkeypatch)
    for example in examples:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(example, str(page.relative_to(ROOT)), "exec"), {})


@dataclass(frozen=True)
class Example:
    page: Path
    number: int
    code: str
    marker: str  # the comment on the line before the block, if any

    @property
    def module(self) -> str:
        return re.sub(r"\W", "_", str(self.page.relative_to(ROOT).with_suffix(""))) + f"_{self.number}"


def _examples() -> list[Example]:
    examples = []
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        for number, match in enumerate(re.finditer(r"^```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL)):
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marker = before if before.startswith("<!-- mypy:") else ""
            examples.append(Example(page, number, match.group(1), marker))
    return examples


EXAMPLES = _examples()


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """``mypy --strict`` over every example at once (each its own module): the errors of each, by module."""
    folder = tmp_path_factory.mktemp("examples")
    for example in EXAMPLES:
        (folder / f"{example.module}.py").write_text(example.code, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(folder / ".cache"), "."],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(ROOT)},
    )
    assert result.returncode in (0, 1), result.stdout + result.stderr
    errors: dict[str, list[str]] = {}
    for line in result.stdout.splitlines():
        module, _, rest = line.partition(".py:")
        if ": error:" in rest:
            errors.setdefault(module, []).append(rest)
    return errors


def test_examples_are_found() -> None:
    assert len(EXAMPLES) >= 8
    assert all(re.fullmatch(r"<!-- mypy: (skip|fails until) .+ -->", e.marker) for e in EXAMPLES if e.marker)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.module)
def test_the_python_examples_type_check(
    example: Example, mypy_errors: dict[str, list[str]], request: pytest.FixtureRequest
) -> None:
    if example.marker.startswith("<!-- mypy: skip"):
        pytest.skip(example.marker)
    if example.marker.startswith("<!-- mypy: fails until"):
        request.applymarker(pytest.mark.xfail(strict=True, reason=example.marker))
    assert mypy_errors.get(example.module, []) == []
