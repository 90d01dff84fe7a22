"""A read's start-up does each thing once and imports only what the input needs (issue 19, the read rows).

Every whole-process row pays the start-up: an XML read asks twice whether an installed distribution may declare
an entry point (the formats' group, then the extensions'), and that look reads each installed
``entry_points.txt`` once for both; a feed read loads the HTML parser only for a title that holds markup, the
table of HTML entities only for a text escaped twice, ``base64`` only for Atom's base64 content.  Each run is a
fresh interpreter calling ``feedmap.cli.main``; what it loaded is read from ``sys.modules`` and what it opened
from the ``open`` audit events.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import urlset_xml

_SCRIPT = """\
import os, sys
watched = os.environ.get("WATCHED_DIR", "\\0")
opened = []
def audit(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].startswith(watched):
        opened.append(args[0])
sys.addaudithook(audit)
from feedmap.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
import json
print(json.dumps({"code": code, "modules": sorted(sys.modules), "opened": opened}), file=sys.stderr)
"""


def _run(*argv: str | Path, cwd: Path, site: Path | None = None) -> tuple[int, str, list[str], list[str]]:
    """``feedmap argv...`` in a fresh interpreter (``site`` first on its ``sys.path``): exit code, stdout, the
    modules loaded at the end and the files under ``site`` it opened, in order."""
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(site), *filter(None, [env.get("PYTHONPATH")])])
        env["WATCHED_DIR"] = str(site) + os.sep
    command = [sys.executable, "-c", _SCRIPT, *map(str, argv)]
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stderr.splitlines()[-1])
    return shown["code"], result.stdout, shown["modules"], shown["opened"]


def _distribution(folder: Path, name: str, entry_points: str) -> Path:
    """A distribution as pip installs one: ``NAME-0.dist-info`` with METADATA and entry_points.txt (returned)."""
    info = folder / f"{name}-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0\n", encoding="utf-8")
    path = info / "entry_points.txt"
    path.write_text(textwrap.dedent(entry_points), encoding="utf-8")
    return path


def _urlset(tmp_path: Path) -> Path:
    path = tmp_path / "sitemap.xml"
    path.write_bytes(urlset_xml("https://example.com/a"))
    return path


def test_an_xml_read_reads_each_installed_entry_points_file_once(tmp_path: Path) -> None:
    """Both groups are asked about (the format is recognised, the sitemap's extensions are looked up), from one
    reading of the files."""
    site = tmp_path / "site"
    unrelated = _distribution(site, "other_tool", "[console_scripts]\nother = other_tool:main\n")
    code, out, modules, opened = _run("convert", _urlset(tmp_path), "-t", "text", cwd=tmp_path, site=site)
    assert (code, out) == (0, "https://example.com/a\n")
    assert "importlib.metadata" not in modules
    assert opened == [str(unrelated)]


def test_a_distribution_declaring_either_group_is_still_seen(tmp_path: Path) -> None:
    """The siblings: the file read once still answers for each group: an extension declared (the second group
    asked) makes the run read the package metadata, and so does a format plugin (the first)."""
    for group in ("feedmap.extensions", "feedmap.formats"):
        site = tmp_path / group / "site"
        declared = _distribution(site, "feedmap_read_startup", f"[{group}]\nnothing = feedmap_read_startup_mod:X\n")
        code, _, modules, opened = _run("convert", _urlset(tmp_path), "-t", "text", cwd=tmp_path, site=site)
        assert code == 0
        assert "importlib.metadata" in modules, group
        assert str(declared) in opened


_ROR = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:ror="http://rorweb.com/0.1/"><channel><title>T</title><link>https://example.com/</link>
<description>D</description><item><title>{title}</title><link>https://example.com/a</link>
<ror:updated>2024-06-01</ror:updated><ror:resourceOf>sitemap</ror:resourceOf></item></channel></rss>
"""
#: What a feed read loads only for the values that need them: the HTML parser (a title holding markup), the
#: table of HTML entities (a text escaped twice), base64 (Atom's base64 content).
FEED_EXTRAS = ("lxml.html", "html", "html.entities", "base64")


def test_reading_ror_loads_no_html_parser_entities_or_base64(tmp_path: Path) -> None:
    path = tmp_path / "feed.ror"
    path.write_text(_ROR.format(title="A"), encoding="utf-8")
    code, out, modules, _ = _run("convert", path, "-f", "ror", "-t", "jsonl", cwd=tmp_path)
    assert code == 0 and '"title":"A"' in out.replace(" ", "")
    assert [name for name in FEED_EXTRAS if name in modules] == []


def test_a_title_escaped_twice_loads_the_entities_and_is_unescaped(tmp_path: Path) -> None:
    path = tmp_path / "feed.ror"
    path.write_text(_ROR.format(title="Fish &amp;amp; chips"), encoding="utf-8")
    code, out, modules, _ = _run("convert", path, "-f", "ror", "-t", "jsonl", cwd=tmp_path)
    assert code == 0 and '"title":"Fish&chips"' in out.replace(" ", "")
    assert "html.entities" in modules


_ATOM = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><id>urn:t</id><updated>2024-06-01T00:00:00Z</updated>
<entry><title type="html">&lt;b&gt;Bold&lt;/b&gt; news</title><id>urn:a</id><link href="https://example.com/a"/>
<updated>2024-06-01T00:00:00Z</updated><summary type="application/octet-stream">aGVsbG8=</summary></entry></feed>
"""


def test_an_atom_title_of_markup_and_a_base64_summary_load_what_they_need(tmp_path: Path) -> None:
    path = tmp_path / "feed.atom"
    path.write_text(_ATOM, encoding="utf-8")
    code, out, modules, _ = _run("convert", path, "-t", "jsonl", cwd=tmp_path)
    assert code == 0
    entry = json.loads(out.splitlines()[-1])  # after the document's own line
    assert (entry["title"], entry["description"]) == ("Bold news", "hello")
    assert "lxml.html" in modules and "base64" in modules


_RSS = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>T</title><link>https://example.com/</link><description>D</description>
<item><title>A</title><link>https://example.com/a</link></item></channel></rss>
"""
#: What only writing a feed uses: the RSS writer and the HTML parsing and cleaning of descriptions.
RSS_WRITER = ("feedmap.formats.feeds._rsswrite", "feedmap.formats.feeds._html", "lxml.html", "nh3")


def test_reading_rss_loads_no_feed_writer_and_writing_it_does(tmp_path: Path) -> None:
    path = tmp_path / "feed.rss"
    path.write_text(_RSS, encoding="utf-8")
    code, out, modules, _ = _run("convert", path, "-t", "text", cwd=tmp_path)
    assert (code, out) == (0, "https://example.com/a\n")
    assert [name for name in RSS_WRITER if name in modules] == []
    code, out, modules, _ = _run("convert", path, "-t", "rss", cwd=tmp_path)
    assert code == 0 and "<link>https://example.com/a</link>" in out
    assert [name for name in RSS_WRITER if name in modules] == list(RSS_WRITER)


def test_a_read_that_spills_nothing_imports_no_tempfile(tmp_path: Path) -> None:
    """The scratch space's ``tempfile`` (and its ``random``) is imported when a spill first needs it; a read to
    text spills nothing.  Its siblings, spills that do need it and say what went wrong there, are
    tests/test_scratch.py's (a child sitemap copied past its memory part, a full disk, a TMPDIR naming no
    folder)."""
    code, out, modules, _ = _run("convert", _urlset(tmp_path), "-t", "text", cwd=tmp_path)
    assert (code, out) == (0, "https://example.com/a\n")
    assert "feedmap._io.scratch" in modules
    assert not {"tempfile", "random"} & set(modules)
