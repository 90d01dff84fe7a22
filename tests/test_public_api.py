"""The public API: one call style for read, write and convert; everything exported from ``feedmap`` is documented
in the docs' library guide (docs/library.md) and everything documented there is exported; the third-party format
the docs show (docs/writing-a-format.md) works through a real ``feedmap.formats`` entry point."""

from __future__ import annotations

import contextlib
import inspect
import io
import re
import shutil
from pathlib import Path

import pytest
from localsite import LocalSite

import feedmap
from feedmap._xml import SITEMAP_NS

DOCS = Path(__file__).resolve().parent.parent / "docs"
SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "sitemap" / "basic.xml"
#: The public packages, documented beside the names of ``feedmap.__all__`` (``feedmap.dask``: imported on its own,
#: with the ``dask`` extra, never by ``import feedmap``).
PUBLIC_PACKAGES = {"formats", "converters", "dask"}
#: Documented as deprecated, reachable as ``feedmap.transforms`` but kept out of ``__all__`` (``import *``).
DEPRECATED = {"transforms"}


def _page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _documented() -> set[str]:
    """The names the library guide describes: each bullet starting with ``feedmap.NAME``."""
    return set(re.findall(r"^\* `feedmap\.(\w+)", _page("library.md"), re.MULTILINE))


def test_every_exported_name_is_documented() -> None:
    assert sorted(set(feedmap.__all__) - _documented()) == []


def test_every_documented_name_is_exported() -> None:
    assert sorted(_documented() - set(feedmap.__all__) - PUBLIC_PACKAGES - DEPRECATED) == []
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


_TRANSFORMS = [
    getattr(feedmap.converters, name)
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
    """The ``feedmap.converters`` bullet names each step the package exports (or the step has its own bullet,
    as ``feedmap.enrich``)."""
    section = _page("library.md")
    bullet = section[section.index("* `feedmap.converters`") :].split("\n* ", 1)[0]
    missing = [name for name in feedmap.converters.__all__ if f"`{name}" not in bullet]
    assert [name for name in missing if f"* `feedmap.{name}(" not in section] == []


def _signature_lines() -> dict[str, str]:
    """``NAME(...)`` as each bullet of the library guide writes a function's call."""
    section = _page("library.md")
    calls = re.findall(r"^\* `feedmap\.(\w+)(\(.*?\))(?: -> [^`]+)?`", section, re.MULTILINE | re.DOTALL)
    return {name: arguments for name, arguments in calls}


def test_documented_signatures_are_the_real_ones() -> None:
    """Each ``feedmap.f(...)`` the library guide shows has the parameter names and defaults of ``f``."""
    documented = _signature_lines()
    assert {"read", "write", "convert", "enrich", "find_sitemaps", "sitemap_tree", "register"} <= set(documented)
    for name, arguments in documented.items():
        assert " ".join(arguments.split()) == _unannotated(getattr(feedmap, name)), name


def _unannotated(function: object) -> str:
    """``(a, b=None, *, c=None)``: a function's parameters as the guide writes them, without annotations."""
    parts: list[str] = []
    for parameter in inspect.signature(function).parameters.values():  # type: ignore[arg-type]
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and "*" not in parts:
            parts.append("*")
        default = "" if parameter.default is inspect.Parameter.empty else f"={parameter.default!r}"
        parts.append(f"{parameter.name}{default}")
    return f"({', '.join(parts)})"


def test_the_pipeline_recipe_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, web: LocalSite) -> None:
    """The pipeline recipe's example, run as written on the samples, its remote index served by a local site;
    what it prints last is what its comment says."""
    example = _code_blocks(_page("recipes/pipeline.md"), "python")[0]
    shutil.copytree(SAMPLE.parent.parent, tmp_path / "samples")
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
        exec(compile(code, "docs/recipes/pipeline.md", "exec"), {})
    said = re.search(r"^print\(changes\.counts\)  # (.*)$", example, re.MULTILINE)
    assert said is not None and printed.getvalue().splitlines()[-1] == said.group(1)
    assert "stopped: samples/jsonl/entries.jsonl 2 loc-not-escaped" in printed.getvalue().splitlines()
    assert not (tmp_path / "all.jsonl").exists()  # strict: the output of a stopped run is not left
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
        "sitemap-3.xml",
        "sitemap-4.xml",
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
