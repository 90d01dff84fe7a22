"""feedmap.formats.ext: the extension hooks the XML formats read and write through, and third-party
extensions from the ``feedmap.extensions`` entry-point group (a real distribution put on ``sys.path``)."""

from __future__ import annotations

import importlib.metadata
import io
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from conftest import codes
from lxml import etree

import feedmap
from feedmap import Diagnostic, Entry, Reporter, StrictError
from feedmap.formats import Context
from feedmap.formats import ext as _ext
from feedmap.formats.ext import Extension, hooks

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
EX = "http://example.com/ns/rating"
_MODULE = "feedmap_rating"
#: The built-in extensions, in the order they are loaded (before any entry point's).
BUILTINS = ["image", "hreflang", "news", "video"]

#: The docs' example, verbatim: a complete third-party extension (at most 20 lines) and its entry point.
_SECTION = (Path(__file__).resolve().parent.parent / "docs" / "writing-an-extension.md").read_text(encoding="utf-8")
RATING = re.search(r"```python\n(.*?)```", _SECTION, re.DOTALL).group(1)  # type: ignore[union-attr]
ENTRY_POINT = re.search(r"```toml\n(.*?)```", _SECTION, re.DOTALL).group(1)  # type: ignore[union-attr]


def install(folder: Path, module_source: str, value: str = f"{_MODULE}:EXTENSION", *, line: str | None = None) -> None:
    """A distribution as pip installs it: a .dist-info folder (METADATA, entry_points.txt) and a module."""
    info = folder / "feedmap_rating-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: feedmap-rating\nVersion: 0\n")
    (info / "entry_points.txt").write_text(f"[feedmap.extensions]\n{line or f'rating = {value}'}\n")
    (folder / f"{_MODULE}.py").write_text(module_source)


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """tmp_path on sys.path and an extension registry that has loaded nothing yet (restored afterwards)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(_ext, "_registry", _ext._Registry())
    yield tmp_path
    sys.modules.pop(_MODULE, None)


def urlset(body: str) -> bytes:
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}" xmlns:ex="{EX}">\n'
    return f"{head}{body}\n</urlset>\n".encode()


def read(data: bytes) -> tuple[list[Entry], list[Diagnostic]]:
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), format="sitemap", reporter=reporter) as doc:
        return list(doc), reporter.diagnostics


def write(entries: Iterable[Entry]) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    summary = feedmap.write(entries, sink, "sitemap")
    return sink.getvalue(), summary.diagnostics


RATED = urlset("<url><loc>https://e.com/a</loc><ex:rating>4</ex:rating></url>")


def test_the_documented_example_is_short_and_its_entry_point_is_the_one_installed() -> None:
    """The page's complete, typed extension stays a page's worth (it was a 20-line untyped sketch)."""
    assert len(RATING.splitlines()) <= 40
    assert "from feedmap.formats import Context, Extension, Fields" in RATING  # public names, not a private module
    assert f'[project.entry-points."feedmap.extensions"]\nrating = "{_MODULE}:EXTENSION"\n' == ENTRY_POINT


def test_third_party_extension_reads_into_the_ir_and_writes_back(plugins: Path) -> None:
    install(plugins, RATING)
    (entry,), diagnostics = read(RATED)
    assert entry.extras == {"ex:rating": "4"}  # read by the hook, not kept verbatim under "{EX}rating"
    assert codes(diagnostics) == []
    data, diagnostics = write([entry])
    assert codes(diagnostics) == []  # the text extra is the hook's to write: no field-dropped
    root = etree.fromstring(data)
    assert root.nsmap == {None: SM, "ex": EX}  # declared once, on the root; no namespace the entry does not use
    (url,) = root
    assert [child.tag for child in url] == [f"{{{SM}}}loc", f"{{{EX}}}rating"]
    assert url[1].text == "4"
    # and what it wrote reads back the same
    assert read(data)[0] == [entry]


def test_what_an_extension_read_survives_json_lines(plugins: Path) -> None:
    install(plugins, RATING)
    entries, _ = read(RATED)
    lines = io.BytesIO()
    feedmap.write(entries, lines, "jsonl")
    with feedmap.read(io.BytesIO(lines.getvalue()), format="jsonl") as doc:
        back = list(doc)
    assert back == entries
    data, diagnostics = write(back)
    assert codes(diagnostics) == []
    assert etree.fromstring(data)[0][1].text == "4"


def test_an_element_the_hook_does_not_claim_is_kept_verbatim(plugins: Path) -> None:
    install(plugins, RATING)
    (entry,), _ = read(urlset("<url><loc>https://e.com/a</loc><ex:rating>lots</ex:rating></url>"))
    assert entry.extras == {f"{{{EX}}}rating": f'<ex:rating xmlns:ex="{EX}">lots</ex:rating>'}


def test_without_the_extension_the_element_is_an_xml_extra(plugins: Path) -> None:
    (entry,), _ = read(RATED)
    assert entry.extras == {f"{{{EX}}}rating": f'<ex:rating xmlns:ex="{EX}">4</ex:rating>'}
    _, diagnostics = write([Entry(loc="https://e.com/a", extras={"ex:rating": "4"})])
    assert codes(diagnostics) == ["field-dropped"]  # no hook writes it


def test_extensions_load_lazily_and_once(plugins: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(plugins, RATING)
    scans: list[str] = []
    real = importlib.metadata.entry_points  # what the extensions are found with, when a distribution may declare one

    def counted(*, group: str) -> object:
        scans.append(group)
        return real(group=group)

    monkeypatch.setattr(importlib.metadata, "entry_points", counted)
    assert _MODULE not in sys.modules  # nothing loaded before a format needs it
    for _ in range(2):
        assert read(RATED)[0][0].extras == {"ex:rating": "4"}
        write([Entry(loc="https://e.com/a", extras={"ex:rating": "4"})])
    assert _MODULE in sys.modules
    assert scans == ["feedmap.extensions"]
    assert [ext.name for ext in _ext.extensions()] == [*BUILTINS, "rating"]


@pytest.mark.parametrize(
    ("source", "value", "reason"),
    [
        ("", "feedmap_no_such_extension_module:EXTENSION", "cannot be loaded: ModuleNotFoundError"),
        ("raise RuntimeError('boom')\n", f"{_MODULE}:EXTENSION", "cannot be loaded: RuntimeError: boom"),
        ("EXTENSION = 42\n", f"{_MODULE}:EXTENSION", "is not a feedmap Extension but int"),
        (RATING.replace('prefix="ex"', 'prefix="image"'), f"{_MODULE}:EXTENSION", "uses the prefix 'image'"),
    ],
    ids=["missing-module", "import-fails", "not-an-extension", "prefix-taken"],
)
def test_a_broken_extension_is_reported_not_raised(plugins: Path, source: str, value: str, reason: str) -> None:
    install(plugins, source, value)
    (entry,), diagnostics = read(RATED)
    assert entry.extras == {f"{{{EX}}}rating": f'<ex:rating xmlns:ex="{EX}">4</ex:rating>'}  # as without it
    assert codes(diagnostics) == ["extension-broken"]
    assert reason in diagnostics[0].message
    assert reason in _ext.broken_extensions()["rating"]
    assert [ext.name for ext in _ext.extensions()] == BUILTINS
    _, diagnostics = write([entry])
    assert codes(diagnostics) == ["extension-broken"]


def test_unreadable_entry_points_are_reported_not_raised(plugins: Path) -> None:
    install(plugins, RATING, line="rating\n = feedmap_rating:EXTENSION")  # importlib.metadata raises on it
    assert [ext.name for ext in _ext.extensions()] == BUILTINS
    reporter = Reporter()
    _ext.report_broken(Context(reporter=reporter, name="in.xml"))
    assert codes(reporter.diagnostics) == ["extension-broken"]
    assert "cannot be read: TypeError" in reporter.diagnostics[0].message
    assert set(hooks("sitemap").read) == {
        "{http://www.google.com/schemas/sitemap-image/1.1}image",
        "{http://www.w3.org/1999/xhtml}link",
        "{http://www.google.com/schemas/sitemap-news/0.9}news",
        "{http://www.google.com/schemas/sitemap-video/1.1}video",
    }


def test_a_failing_hook_is_reported_with_its_line(plugins: Path) -> None:
    failing = RATING.replace("    value = ", "    1 / 0\n    value = ")  # in both hooks
    install(plugins, failing)
    (entry,), diagnostics = read(RATED)
    assert entry.extras == {f"{{{EX}}}rating": f'<ex:rating xmlns:ex="{EX}">4</ex:rating>'}  # kept verbatim
    assert [(d.code, d.line) for d in diagnostics] == [("extension-failed", 3)]
    assert "ZeroDivisionError" in diagnostics[0].message
    data, diagnostics = write([Entry(loc="https://e.com/a", extras={"ex:rating": "4"})])
    assert codes(diagnostics) == ["extension-failed"]
    assert b"rating>" not in data


def test_a_hook_reporting_under_strict_stops_as_feedmap_does(plugins: Path) -> None:
    install(plugins, RATING)  # its read hook warns rating-invalid for a value outside 0-5
    data = io.BytesIO(urlset("<url><loc>https://e.com/a</loc><ex:rating>9</ex:rating></url>"))
    # the StrictError of its own diagnostic goes through, not caught and reported as a failing hook
    strict = feedmap.Options(strict=True)
    with pytest.raises(StrictError) as raised, feedmap.read(data, format="sitemap", options=strict) as doc:
        list(doc)
    assert raised.value.diagnostic.code == "rating-invalid"


def test_the_builtin_hooks_serve_every_xml_format() -> None:
    image = "{http://www.google.com/schemas/sitemap-image/1.1}image"
    link = "{http://www.w3.org/1999/xhtml}link"
    for fmt in ("sitemap", "sitemapindex", "rss", "ror"):
        table = hooks(fmt)
        assert set(table.read) >= {image, link}
        assert [field for field, _ in table.write][:2] == ["images", "alternates"]
        prefix = "image" if fmt in ("sitemap", "sitemapindex") else "gimage"  # feeds: see test_news_video.py
        assert table.namespaces[prefix] == image[1:].split("}")[0]
    assert hooks("text") == _ext.Hooks()
    assert isinstance(_ext.extensions()[0], Extension)


# ------------------------------------------------------------------------------------------------------ feeds

FEEDS = ("rss", "ror")


def convert(data: bytes, target: str, source: str | None = None) -> tuple[bytes, list[Diagnostic]]:
    sink = io.BytesIO()
    reporter = Reporter()
    feedmap.convert(io.BytesIO(data), sink, target, source_format=source, reporter=reporter)
    # ror notes a page without a title (which has none in a sitemap): not what these tests are about
    return sink.getvalue(), [d for d in reporter.diagnostics if d.code != "title-missing"]


def feed_items(data: bytes) -> list[etree._Element]:
    """The items of a written feed that are pages (not ROR's header item)."""
    return [item for item in etree.fromstring(data).iter("item") if "#ror-sitemap" not in item.findtext("guid", "")]


@pytest.mark.parametrize("target", FEEDS)
def test_a_third_party_extension_goes_through_feeds_and_back(plugins: Path, target: str) -> None:
    """sitemap -> rss / ror -> sitemap keeps what the extension read: the feed writers run its write hook
    (declaring its namespace) and the feed readers its read hook."""
    install(plugins, RATING)
    feed, diagnostics = convert(RATED, target)
    assert codes(diagnostics) == []  # no field-dropped: the hook writes extras["ex:rating"]
    root = etree.fromstring(feed)
    assert root.nsmap["ex"] == EX  # used by the first items: declared on the root
    (item,) = feed_items(feed)
    assert [child.text for child in item.iter(f"{{{EX}}}rating")] == ["4"]
    with feedmap.read(io.BytesIO(feed), format=target) as doc:
        assert [entry.extras.get("ex:rating") for entry in doc] == ["4"]
    back, diagnostics = convert(feed, "sitemap", target)
    assert codes(diagnostics) == []
    assert read(back)[0][0].extras == {"ex:rating": "4"}


def test_a_third_party_extension_goes_through_atom_and_back(plugins: Path) -> None:
    """An Atom feed holds a third-party extension's elements in its entries (the namespace declared on the root,
    where the entries' are) and reads them back as every feed is read."""
    install(plugins, RATING)
    feed, diagnostics = convert(RATED, "atom")
    assert "field-dropped" not in codes(diagnostics)
    root = etree.fromstring(feed)
    assert root.nsmap["ex"] == EX
    assert [rating.text for rating in root.iter(f"{{{EX}}}rating")] == ["4"]
    with feedmap.read(io.BytesIO(feed)) as doc:
        assert [entry.extras.get("ex:rating") for entry in doc] == ["4"]


@pytest.mark.parametrize("target", FEEDS)
def test_a_feed_declares_an_extension_namespace_only_where_it_is_used(plugins: Path, target: str) -> None:
    install(plugins, RATING)
    other = {"{urn:x}y": '<x:y xmlns:x="urn:x"/>'}
    entries = [Entry(loc=f"https://e.com/{number}", extras=other) for number in range(600)]
    entries.append(Entry(loc="https://e.com/rated", extras={"ex:rating": "5"}))
    sink = io.BytesIO()
    feedmap.write(entries, sink, target)
    root = etree.fromstring(sink.getvalue())
    assert "ex" not in root.nsmap  # the first items (the root's batch) have extras, but no rating
    rated = feed_items(sink.getvalue())[-1]
    assert rated.find(f"{{{EX}}}rating") is not None
    assert f'<ex:rating xmlns:ex="{EX}">5</ex:rating>'.encode() in sink.getvalue()


@pytest.mark.parametrize("source", FEEDS)
def test_a_broken_extension_is_reported_by_the_feed_formats_too(plugins: Path, source: str) -> None:
    install(plugins, "raise RuntimeError('boom')\n")
    feed, diagnostics = convert(RATED, source)
    assert codes(diagnostics) == ["extension-broken", "extension-broken"]  # the sitemap read, the feed written
    reporter = Reporter()
    with feedmap.read(io.BytesIO(feed), format=source, reporter=reporter) as doc:
        (entry,) = doc
    assert codes(reporter.diagnostics) == ["extension-broken"]
    assert entry.extras == {f"{{{EX}}}rating": f'<ex:rating xmlns:ex="{EX}">4</ex:rating>'}  # kept verbatim


@pytest.mark.parametrize(
    ("prefix", "namespace"), [("atom", EX), ("dc", EX), ("ror", EX), ("xhtml", EX)], ids=lambda value: value
)
def test_an_extension_may_not_take_a_prefix_the_writers_use_for_another_namespace(
    plugins: Path, prefix: str, namespace: str
) -> None:
    install(plugins, RATING.replace('prefix="ex"', f'prefix="{prefix}"'))
    assert [ext.name for ext in _ext.extensions()] == BUILTINS
    assert f"uses the prefix {prefix!r}" in _ext.broken_extensions()["rating"]


def test_the_hreflang_extension_writes_atom_links_first_in_feed_items() -> None:
    for fmt in FEEDS:
        table = hooks(fmt)
        assert [(step.field, step.prefix) for step in table.lead] == [("alternates", "atom")]
        assert [(step.field, step.prefix) for step in table.tail] == [
            ("images", "gimage"),
            ("news", "news"),
            ("videos", "video"),
        ]
        assert "{http://www.w3.org/2005/Atom}link" in table.read
        assert "xhtml" not in table.namespaces  # read there, never written
    for fmt in ("sitemap", "sitemapindex"):
        table = hooks(fmt)
        assert table.lead == ()
        assert [step.prefix for step in table.tail] == (
            ["image", "xhtml", "news", "video"] if fmt == "sitemap" else ["image", "xhtml"]
        )
        assert "{http://www.w3.org/2005/Atom}link" not in table.read


def test_a_read_only_extension_keeps_its_namespace_on_the_sitemap_root(plugins: Path) -> None:
    """Only the read-only variants of the built-ins (hreflang's xhtml:link in feeds) declare nothing; a third
    party's read-only extension's namespace is declared on the root when an element of it (one its hook left to
    the reader, kept verbatim) is written, and only then."""
    install(plugins, RATING.replace("read=read, write=write", "read=read"))
    assert hooks("sitemap").namespaces["ex"] == EX
    data, _ = write([Entry(loc="https://e.com/a")])
    assert "ex" not in etree.fromstring(data).nsmap
    kept = {f"{{{EX}}}rating": f'<ex:rating xmlns:ex="{EX}">lots</ex:rating>'}
    data, _ = write([Entry(loc="https://e.com/a", extras=kept)])
    assert etree.fromstring(data).nsmap["ex"] == EX
    assert b"<ex:rating>lots</ex:rating>" in data  # declared once, on the root
