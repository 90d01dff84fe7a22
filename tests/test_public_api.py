"""The public API: one call style for read, write and convert; everything exported from ``feedmap`` is documented
in the README's "Library API" section and everything documented there is exported; the third-party format the
README shows works through a real ``feedmap.formats`` entry point."""

from __future__ import annotations

import contextlib
import inspect
import io
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from localsite import LocalSite

import feedmap
from feedmap._xml import SITEMAP_NS
from feedmap.formats import _registry as registry

README = Path(__file__).resolve().parent.parent / "README.md"
SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "sitemap" / "basic.xml"


def _section(title: str, level: str = "##") -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n{level} {title}\n")
    end = text.find(f"\n{level} ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _documented() -> set[str]:
    """The names the API section describes: each bullet starting with ``feedmap.NAME``."""
    section = _section("Library API")
    return set(re.findall(r"^\* `feedmap\.(\w+)", section, re.MULTILINE))


def test_every_exported_name_is_documented() -> None:
    assert sorted(set(feedmap.__all__) - _documented()) == []


def test_every_documented_name_is_exported() -> None:
    assert sorted(_documented() - set(feedmap.__all__)) == []
    assert all(hasattr(feedmap, name) for name in feedmap.__all__)


def test_read_write_and_convert_take_options_the_same_way() -> None:
    """One style: data, the format name, one Options, then where diagnostics go (by keyword)."""
    for call in (feedmap.read, feedmap.write, feedmap.convert):
        parameters = inspect.signature(call).parameters
        names = list(parameters)
        assert names[names.index("format") + 1] == "options", call.__name__
        assert parameters["on_diagnostic"].kind is inspect.Parameter.KEYWORD_ONLY
        assert parameters["reporter"].kind is inspect.Parameter.KEYWORD_ONLY
        assert set(names) <= {"source", "sources", "doc", "sink", "format", "source_format", "options", "wrap",
                              "split", "on_diagnostic", "reporter"}, call.__name__  # fmt: skip


def test_options_take_maps_as_strings_or_paths(tmp_path: Path) -> None:
    options = feedmap.Options(maps=[("https://e.com/", str(tmp_path))])
    assert options.maps == (("https://e.com/", tmp_path),)


def _code_blocks(section: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section, re.DOTALL)


@pytest.fixture
def readme_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The README's third-party format installed as pip would: a module and a .dist-info with its entry point."""
    section = _section("A third-party format", "###")
    (module_source,) = _code_blocks(section, "python")
    (pyproject,) = _code_blocks(section, "toml")
    assert len(module_source.splitlines()) <= 20
    group, entry = re.match(r'\[project\.entry-points\."([\w.]+)"\]\n(\w+ = "[\w.:]+")\n', pyproject).groups()  # type: ignore[union-attr]
    name, _, target = entry.partition(" = ")
    module = target.strip('"').partition(":")[0]
    info = tmp_path / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{name} = {target.strip(chr(34))}\n")
    (tmp_path / f"{module}.py").write_text(module_source)
    monkeypatch.syspath_prepend(str(tmp_path))
    for table in ("_loaded", "_lazy", "_declared", "_broken"):
        monkeypatch.setattr(registry, table, dict(getattr(registry, table)))
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    yield name
    sys.modules.pop(module, None)


def test_the_readme_third_party_format_works_through_its_entry_point(readme_format: str, tmp_path: Path) -> None:
    assert readme_format == "tsv"
    out = tmp_path / "pages.tsv"
    summary = feedmap.convert(SAMPLE, out, "tsv")
    with feedmap.read(SAMPLE) as doc:
        locs = [entry.loc for entry in doc.entries]
    assert summary.entries == len(locs) > 0
    assert out.read_text(encoding="utf-8").splitlines()[0] == f"{locs[0]}\t"
    out.write_text("https://e.com/a\tA page\nhttps://e.com/b\t\n", encoding="utf-8")
    with feedmap.read(out, "tsv") as doc:
        assert [(entry.loc, entry.title) for entry in doc.entries] == [
            ("https://e.com/a", "A page"),
            ("https://e.com/b", None),
        ]
    sink = io.BytesIO()
    feedmap.write([feedmap.Entry(loc="https://e.com/c", title="C")], sink, "tsv")
    assert sink.getvalue() == b"https://e.com/c\tC\n"
    assert "tsv" in registry.readable_names()


_TRANSFORMS = [
    getattr(feedmap.converters._steps, name)
    for name in ("resolve_relative", "keep_absolute", "check_values", "merge_duplicates", "report_duplicates")
]


@pytest.mark.parametrize("call", [feedmap.enrich, feedmap.find_sitemaps, feedmap.sitemap_tree, *_TRANSFORMS])
def test_the_web_functions_and_transforms_take_options_as_read_does(call: object) -> None:
    """The same style beyond read/write/convert: the data, one Options, then where diagnostics go."""
    parameters = inspect.signature(call).parameters  # type: ignore[arg-type]
    assert list(parameters)[1:] == ["options", "on_diagnostic", "reporter"]
    assert parameters["options"].default is None
    assert parameters["options"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert parameters["on_diagnostic"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["reporter"].kind is inspect.Parameter.KEYWORD_ONLY


def test_every_public_transform_is_documented() -> None:
    """The ``feedmap.transforms`` bullet names each function the module exports."""
    section = _section("Library API")
    bullet = section[section.index("* `feedmap.transforms`") :].split("\n* ", 1)[0]
    assert sorted(name for name in feedmap.converters._steps.__all__ if f"`{name}" not in bullet) == []


def _signature_lines() -> dict[str, str]:
    """``NAME(...)`` as each bullet of the API section writes a function's call."""
    section = _section("Library API")
    calls = re.findall(r"^\* `feedmap\.(\w+)(\(.*?\))(?: -> [^`]+)?`", section, re.MULTILINE | re.DOTALL)
    return {name: arguments for name, arguments in calls}


def test_documented_signatures_are_the_real_ones() -> None:
    """Each ``feedmap.f(...)`` the README shows has the parameter names and defaults of ``f``."""
    documented = _signature_lines()
    assert {"read", "write", "convert", "enrich", "find_sitemaps", "sitemap_tree", "register"} <= set(documented)
    for name, arguments in documented.items():
        assert " ".join(arguments.split()) == _unannotated(getattr(feedmap, name)), name


def _unannotated(function: object) -> str:
    """``(a, b=None, *, c=None)``: a function's parameters as the README writes them, without annotations."""
    parts: list[str] = []
    for parameter in inspect.signature(function).parameters.values():  # type: ignore[arg-type]
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and "*" not in parts:
            parts.append("*")
        default = "" if parameter.default is inspect.Parameter.empty else f"={parameter.default!r}"
        parts.append(f"{parameter.name}{default}")
    return f"({', '.join(parts)})"


def test_the_readme_library_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, web: LocalSite) -> None:
    """The API section's example, run as written on the samples, its remote index served by a local site."""
    example = _code_blocks(_section("Library API"), "python")[0]
    samples = SAMPLE.parent.parent
    (tmp_path / "samples" / "sitemap").mkdir(parents=True)
    shutil.copy(SAMPLE, tmp_path / "samples" / "sitemap" / "basic.xml")
    shutil.copy(SAMPLE, tmp_path / "a.xml")
    shutil.copy(samples / "rss" / "feed.xml", tmp_path / "feed.xml")
    (tmp_path / "b.txt").write_text("https://e.com/b1\nhttps://e.com/b2\n", encoding="utf-8")
    page = web.add("/page.html", "<html><head><title>Page one</title></head></html>", content_type="text/html")
    child = web.add("/pages.xml", f'<urlset xmlns="{SITEMAP_NS}"><url><loc>{page}</loc></url></urlset>')
    old = web.add("/old.xml", f'<urlset xmlns="{SITEMAP_NS}"><url><loc>{web.url("/old")}</loc></url></urlset>')
    web.add(
        "/sitemap_index.xml",
        f'<sitemapindex xmlns="{SITEMAP_NS}"><sitemap><loc>{child}</loc><lastmod>2026-01-02</lastmod></sitemap>'
        f"<sitemap><loc>{old}</loc><lastmod>2020-01-02</lastmod></sitemap></sitemapindex>",
    )
    assert example.count("https://example.com/sitemap_index.xml") == 1
    monkeypatch.chdir(tmp_path)
    code = example.replace("https://example.com/sitemap_index.xml", web.url("/sitemap_index.xml"))
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(code, "README.md", "exec"), {})
    assert printed.getvalue().splitlines()[-1] == "{'added': 0, 'removed': 0, 'changed': 0, 'unchanged': 4}"
    assert len((tmp_path / "recent.jsonl").read_text(encoding="utf-8").splitlines()) == 3
    assert "<title>Page one</title>" in (tmp_path / "ror.xml").read_text(encoding="utf-8")
    assert web.hits("/old.xml") == 0  # the follow filter left the old child out
    assert (tmp_path / "news.txt").read_text(encoding="utf-8").split() == [
        "https://www.example.com/news/2024-04-01.html"
    ]
    with feedmap.read(tmp_path / "all.xml") as written, feedmap.read(SAMPLE) as sample:
        locs = {entry.loc for entry in written.entries}
        assert {entry.loc for entry in sample.entries} < locs  # and the feed's
    assert sorted(path.name for path in (tmp_path / "public" / "maps").iterdir()) == [
        "sitemap-1.xml",
        "sitemap-2.xml",
        "sitemap_index.xml",
    ]
    with feedmap.read(tmp_path / "public" / "maps" / "sitemap-1.xml") as newest:
        newest_first = [entry.lastmod.text for entry in newest.entries if entry.lastmod is not None]
    assert newest_first == ["2024-04-01T08:15:30.25Z", "2024-03-05T10:30:00+01:00"]


def test_options_given_where_the_format_goes_is_a_clear_type_error() -> None:
    with pytest.raises(TypeError, match="options="):
        feedmap.read(SAMPLE, feedmap.Options())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="options="):
        feedmap.write([feedmap.Entry(loc="https://e.com/")], io.BytesIO(), feedmap.Options())  # type: ignore[arg-type]
