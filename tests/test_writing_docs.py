"""The "Writing a format" and "Writing an extension" pages (docs/) run as they are written.

Each page is run in a temporary folder as a reader would: a ```python block whose first line is ``# NAME.py``
is that module, saved; the ```toml block's ``[project.entry-points."GROUP"]`` table is installed as pip
installs a distribution (a ``.dist-info`` folder with its ``entry_points.txt``, beside the module); every other
```python block runs in a fresh interpreter in that folder, in page order, and prints exactly what the
```text block after it shows.  A fresh interpreter is what a user has: entry points scanned on first use,
nothing registered by another test.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import feedmap
import feedmap.formats

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.DOTALL | re.MULTILINE)
MODULE = re.compile(r"# (\w+)\.py")


def _install(folder: Path, pyproject: str) -> None:
    """The entry points of a pyproject table as an installed distribution's metadata (``entry_points.txt``
    is an INI file of the same groups and lines, without the quotes)."""
    table = re.fullmatch(r'\[project\.entry-points\."([\w.]+)"\]\n((?:\w+ = "[\w.:]+"\n)+)', pyproject)
    assert table is not None, pyproject
    info = folder / "feedmap_docs_example-0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: feedmap-docs-example\nVersion: 0\n")
    (info / "entry_points.txt").write_text(f"[{table.group(1)}]\n" + table.group(2).replace('"', ""))


def run_page(page: str, folder: Path) -> list[tuple[str, str, str]]:
    """Run a page's examples in ``folder``: (example, what it printed, what the page says it prints)."""
    blocks = BLOCK.findall((DOCS / page).read_text(encoding="utf-8"))
    results: list[tuple[str, str, str]] = []
    for number, (language, code) in enumerate(blocks):
        module = MODULE.fullmatch(code.split("\n", 1)[0])
        if language == "toml":
            _install(folder, code)
        elif language == "python" and module is not None:
            (folder / f"{module.group(1)}.py").write_text(code, encoding="utf-8")
        elif language == "python":
            script = folder / f"example_{number}.py"
            script.write_text(code, encoding="utf-8")
            done = subprocess.run(
                [sys.executable, script.name], cwd=folder, capture_output=True, text=True, timeout=120, check=False
            )
            assert done.returncode == 0, f"{page}, example {number}:\n{code}\n{done.stderr}"
            following = blocks[number + 1] if number + 1 < len(blocks) else ("", "")
            results.append((code, done.stdout, following[1] if following[0] == "text" else ""))
    return results


@pytest.mark.parametrize("page", ["writing-a-format.md", "writing-an-extension.md"])
def test_each_example_of_the_page_prints_what_the_page_shows(page: str, tmp_path: Path) -> None:
    results = run_page(page, tmp_path)
    assert results  # the page has examples to run
    for code, printed, shown in results:
        assert printed == shown, code


def test_the_tsv_format_of_the_page_is_recognised_read_and_written(tmp_path: Path) -> None:
    """The page's TSV format, installed: a .tsv of URLs and titles is read as tsv (not as a text sitemap,
    which would turn 'https://e.com/a<TAB>Page A' into one URL), and written back byte for byte."""
    run_page("writing-a-format.md", tmp_path)
    assert (tmp_path / "again.tsv").read_bytes() == b"https://example.com/a\tPage A\nhttps://example.com/b\t\n"
    assert (tmp_path / "lists" / "tsv-1.tsv").read_bytes() == b"https://example.com/a\tPage A\n"
    check = """
import io, feedmap
from feedmap.formats import registry
data = "\\ufeffhttps://e.com/a\\tPage A\\r\\nhttps://e.com/b\\tB\\tand a tab\\r\\n".encode()
with feedmap.read(io.BytesIO(data)) as doc:
    entries = list(doc.entries)
print(doc.format, [(entry.loc, entry.title) for entry in entries])
sink = io.BytesIO()
summary = feedmap.write(entries, sink, "text/tab-separated-values")
print(sink.getvalue(), [diagnostic.code for diagnostic in summary.diagnostics])
print(registry()["tsv"].accept(b"https://e.com/a\\n"), "tsv" in registry())
"""
    done = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "tsv [('https://e.com/a', 'Page A'), ('https://e.com/b', 'B\\tand a tab')]",
        "b'https://e.com/a\\tPage A\\nhttps://e.com/b\\tB and a tab\\n' ['tsv-title-changed']",
        "False True",
    ]


def test_the_extension_of_the_page_reads_a_made_up_namespace_and_writes_it_back(tmp_path: Path) -> None:
    run_page("writing-an-extension.md", tmp_path)
    written = (tmp_path / "again.xml").read_text(encoding="utf-8")
    assert "<ex:rating>4</ex:rating>" in written
    assert 'xmlns:ex="http://example.com/ns/rating"' in written
    check = """
import feedmap
with feedmap.read("again.xml") as doc:
    print([entry.extras for entry in doc.entries])
"""
    done = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[{'ex:rating': '4'}]\n"


def test_the_pages_import_only_public_names() -> None:
    """The examples use what ``feedmap`` and ``feedmap.formats`` export, never a private module."""
    for page in ("writing-a-format.md", "writing-an-extension.md"):
        code = "\n".join(code for language, code in BLOCK.findall((DOCS / page).read_text()) if language == "python")
        assert re.search(r"feedmap\.?\w*\._", code) is None, page
        for module, names in re.findall(r"^from (feedmap(?:\.formats)?) import (.+)$", code, re.MULTILINE):
            exported = feedmap.formats.__all__ if module == "feedmap.formats" else feedmap.__all__
            assert sorted(set(names.replace(" ", "").split(",")) - set(exported)) == [], (page, module)
