"""A run's start-up imports only what the run uses (issue 19: every whole-process row pays it).

Lines of URLs converted to text need no XML parser and no package metadata: ``lxml`` is imported when an
input may be XML (it starts with ``<`` or may be UTF-16/32), the extensions' hooks when an XML format asks
for them, and ``importlib.metadata`` only when an installed distribution may declare a ``feedmap.formats``
entry point (its ``entry_points.txt`` names the group, or cannot be parsed: then it is asked, as before).
Each run is a fresh interpreter calling ``feedmap.cli.main``; what it loaded is read from ``sys.modules``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import urlset_xml

ROOT = Path(__file__).resolve().parent.parent

#: What a run over lines of URLs has no use for (named as strings; never imported here).
XML_AND_METADATA = ("lxml", "lxml.etree", "importlib.metadata", "feedmap._xml", "feedmap.formats.ext")
#: What only the commands that print JSON or explain codes use.
JSON_AND_CODES = ("json", "feedmap._core.rules")

_SCRIPT = """\
import sys
from feedmap.cli import main
code = main(sys.argv[1:])
modules = sorted(sys.modules)
sys.stdout.flush()
import json
print(json.dumps({"code": code, "modules": modules}), file=sys.stderr)
"""


def _run(*argv: str | Path, cwd: Path, path: Path | None = None) -> tuple[int, str, list[str]]:
    """``feedmap argv...`` in a fresh interpreter (``path`` first on its ``sys.path``): exit code, stdout,
    and the modules it had loaded at the end."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path), *filter(None, [env.get("PYTHONPATH")])])
    command = [sys.executable, "-c", _SCRIPT, *map(str, argv)]
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stderr.splitlines()[-1])
    return shown["code"], result.stdout, shown["modules"]


def _loaded(modules: list[str], names: tuple[str, ...] = XML_AND_METADATA) -> list[str]:
    return [name for name in modules if name in names]


@pytest.fixture
def lines(tmp_path: Path) -> Path:
    path = tmp_path / "urls.txt"
    path.write_text("https://example.com/a\nhttps://example.com/b\nhttps://example.com/c\n", encoding="utf-8")
    return path


def test_lines_of_urls_converted_load_no_xml_parser_nor_package_metadata(lines: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    code, _, modules = _run("convert", lines, "-t", "text", "-q", "-o", out, cwd=tmp_path)
    assert code == 0
    assert "https://example.com/c" in out.read_text(encoding="utf-8")
    assert _loaded(modules) == []


def test_lines_of_urls_on_stdout_are_the_same_without_them(lines: Path, tmp_path: Path) -> None:
    code, out, modules = _run("convert", lines, "-t", "text", cwd=tmp_path)
    assert (code, out) == (0, "https://example.com/a\nhttps://example.com/b\nhttps://example.com/c\n")
    assert _loaded(modules) == []


def test_a_conversion_to_text_loads_no_json_nor_the_table_of_codes(lines: Path, tmp_path: Path) -> None:
    code, _, modules = _run("convert", lines, "-t", "text", "-q", "-o", tmp_path / "out.txt", cwd=tmp_path)
    assert code == 0
    assert _loaded(modules, JSON_AND_CODES) == []


@pytest.mark.parametrize(
    ("argv", "needs"),
    [
        (["codes", "loc-duplicate"], ["feedmap._core.rules"]),
        (["codes", "--json", "loc-duplicate"], ["feedmap._core.rules", "json"]),
        (["formats", "--json"], ["json"]),
    ],
)
def test_the_commands_that_use_them_load_them(argv: list[str], needs: list[str], tmp_path: Path) -> None:
    """The sibling: what the check above looks for is seen when a command loads it."""
    code, out, modules = _run(*argv, cwd=tmp_path)
    assert code == 0
    assert out
    assert [name for name in needs if name in modules] == needs


def test_an_xml_input_loads_the_xml_parser_it_needs(tmp_path: Path) -> None:
    """The sibling: the check above sees lxml when a run imports it (a urlset, here), so it can fail."""
    path = tmp_path / "sitemap.xml"
    path.write_bytes(urlset_xml("https://example.com/a"))
    code, out, modules = _run("convert", path, "-t", "text", cwd=tmp_path)
    assert (code, out) == (0, "https://example.com/a\n")
    assert "lxml.etree" in modules


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("lead", ["", " \n"])
def test_utf16_and_utf32_inputs_are_still_recognised_as_xml(tmp_path: Path, codec: str, lead: str) -> None:
    """XML 1.0 Appendix F's forms, with a byte-order mark (``utf-16``, ``utf-32``) or without, blank space
    before the root or not: the look that spares lines of URLs the XML machinery lets every one through."""
    path = tmp_path / "sitemap.xml"
    body = urlset_xml("https://example.com/\u00fc").decode("utf-8").split("\n", 1)[1]
    path.write_bytes((lead + body).encode(codec))
    code, out, modules = _run("convert", path, "-t", "text", cwd=tmp_path)
    assert (code, out) == (0, "https://example.com/\u00fc\n")
    assert "lxml.etree" in modules


def _distribution(folder: Path, name: str, entry_points: str) -> None:
    """A distribution as pip installs one: ``NAME-0.dist-info`` with METADATA and entry_points.txt."""
    info = folder / f"{name}-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points), encoding="utf-8")


_PLUGIN = """
    from feedmap.formats import FormatSpec

    FORMAT = FormatSpec(name="startupdemo", title="a format of the start-up test", extensions=(".demo",))
"""


def test_an_installed_format_plugin_is_still_found(lines: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    _distribution(site, "feedmap_startup_demo", "[feedmap.formats]\nstartupdemo = feedmap_startup_demo_mod:FORMAT\n")
    (site / "feedmap_startup_demo_mod.py").write_text(textwrap.dedent(_PLUGIN), encoding="utf-8")
    code, out, modules = _run("formats", cwd=tmp_path, path=site)
    assert code == 0
    assert "a format of the start-up test" in out
    code, _, modules = _run("convert", lines, "-t", "text", "-q", "-o", tmp_path / "out.txt", cwd=tmp_path, path=site)
    assert code == 0
    assert "importlib.metadata" in modules  # a distribution names the group: its entry points are read


def test_an_unrelated_distribution_does_not_make_a_run_read_metadata(lines: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    _distribution(site, "other_tool", "[console_scripts]\nother = other_tool:main\n")
    code, _, modules = _run("convert", lines, "-t", "text", "-q", "-o", tmp_path / "out.txt", cwd=tmp_path, path=site)
    assert code == 0
    assert "importlib.metadata" not in modules


def test_entry_points_that_cannot_be_parsed_are_still_reported(tmp_path: Path) -> None:
    """An unrelated distribution's ``entry_points.txt`` with a line that is no ``name = value`` pair makes
    ``importlib.metadata.entry_points`` fail: ``feedmap formats`` says so, as it did when it always asked."""
    site = tmp_path / "site"
    _distribution(site, "broken_tool", "[console_scripts]\nnot a pair\n")
    code, out, modules = _run("formats", cwd=tmp_path, path=site)
    assert code == 0
    assert "the installed entry points cannot be read" in out
    assert "importlib.metadata" in modules


#: What an XML read has no use for unless a distribution may declare an extension, an RSS date is read, or a
#: host is not ASCII: the package metadata, the RFC 822 dates, the IDNA tables.
XML_READ_SPARES = ("importlib.metadata", "email.utils", "idna")
#: What only writing a feed uses: the feed writer and the HTML cleaning of descriptions.
FEED_WRITER = ("feedmap.formats.feeds._rsswrite", "feedmap.formats.feeds._rorwrite", "nh3")

_ROR = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:ror="http://rorweb.com/0.1/"><channel><title>T</title><link>https://example.com/</link>
<description>D</description><item><title>A</title><link>https://example.com/a</link>
<ror:updated>2024-06-01</ror:updated><ror:resourceOf>sitemap</ror:resourceOf></item></channel></rss>
"""


def test_an_xml_read_loads_no_metadata_dates_of_rss_or_idna_it_does_not_use(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_bytes(urlset_xml("https://example.com/a"))
    code, out, modules = _run("convert", path, "-t", "text", cwd=tmp_path)
    assert (code, out) == (0, "https://example.com/a\n")
    assert "lxml.etree" in modules
    assert _loaded(modules, XML_READ_SPARES) == []


def test_a_non_ascii_host_loads_idna_and_an_extension_is_still_found(tmp_path: Path) -> None:
    """The siblings: the names above are seen when a run needs them (a host to encode, an extension
    declared by an installed distribution)."""
    site = tmp_path / "site"
    _distribution(site, "feedmap_startup_ext", "[feedmap.extensions]\nnothing = feedmap_startup_ext_mod:EXT\n")
    path = tmp_path / "sitemap.xml"
    path.write_bytes(urlset_xml("https://b\u00fccher.example/a"))
    code, out, modules = _run("convert", path, "-t", "sitemap", cwd=tmp_path, path=site)
    assert code == 0 and "xn--bcher-kva.example" in out
    assert "idna" in modules
    assert "importlib.metadata" in modules  # a distribution names the group: its entry points are read


def test_reading_ror_loads_no_feed_writer(tmp_path: Path) -> None:
    path = tmp_path / "feed.ror"
    path.write_text(_ROR, encoding="utf-8")
    code, out, modules = _run("convert", path, "-f", "ror", "-t", "text", cwd=tmp_path)
    assert (code, out) == (0, "https://example.com/a\n")
    assert _loaded(modules, FEED_WRITER) == []
    code, out, modules = _run("convert", path, "-f", "ror", "-t", "ror", cwd=tmp_path)
    assert code == 0 and "<ror:updated>2024-06-01</ror:updated>" in out
    assert sorted(_loaded(modules, FEED_WRITER)) == sorted(FEED_WRITER)
