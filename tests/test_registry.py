"""feedmap.formats._registry: recognising formats (content first, file extension second), names, registration,
and third-party formats through the ``feedmap.formats`` entry-point group."""

from __future__ import annotations

import dataclasses
import io
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

import feedmap
from feedmap import DocMeta, Document, Entry, FormatError, FormatSpec, Reporter, UnknownFormatError
from feedmap._io.sources import PeekableStream, open_source
from feedmap.formats import Context, Source
from feedmap.formats import _registry as registry
from feedmap.formats._registry import Sniffed, detect, sniff

NS09 = "http://www.sitemaps.org/schemas/sitemap/0.9"
URL = b"<url><loc>http://e.com/</loc></url>"


@pytest.fixture
def isolated_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let a test register formats and rescan entry points; the registry is restored afterwards."""
    monkeypatch.setattr(registry, "_loaded", dict(registry._loaded))
    monkeypatch.setattr(registry, "_lazy", dict(registry._lazy))
    monkeypatch.setattr(registry, "_declared", dict(registry._declared))
    monkeypatch.setattr(registry, "_entry_points_loaded", registry._entry_points_loaded)
    monkeypatch.setattr(registry, "_broken", dict(registry._broken))
    monkeypatch.setattr(registry, "_refused", list(registry._refused))
    monkeypatch.setattr(registry, "_origin", dict(registry._origin))
    monkeypatch.setattr(registry, "_media_claims", dict(registry._media_claims))


def readable_names() -> list[str]:
    return [spec.name for spec in registry.all_formats() if spec.reader is not None]


def sniffed(data: bytes) -> Sniffed:
    return sniff(PeekableStream(io.BytesIO(data)))


def detected(data: bytes, path: Path | None = None) -> str:
    """The name of the format detected for ``data`` (as if read from ``path``, when given)."""
    if path is not None:
        path.write_bytes(data)
        with open_source(path, reporter=Reporter()) as opened:
            return detect(opened).name
    with open_source(io.BytesIO(data), reporter=Reporter()) as opened:
        return detect(opened).name


def urlset(namespace: str | None) -> bytes:
    xmlns = f' xmlns="{namespace}"'.encode() if namespace is not None else b""
    return b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset' + xmlns + b">" + URL + b"</urlset>\n"


# --------------------------------------------------------------------------------------- by content


@pytest.mark.parametrize(
    "namespace",
    [
        NS09,
        NS09 + "/",
        "https://www.sitemaps.org/schemas/sitemap/0.9",
        None,
        "http://www.google.com/schemas/sitemap/0.84",
        "http://example.com/not-a-sitemap-namespace",
    ],
)
def test_urlset_in_any_namespace_is_a_sitemap(namespace: str | None) -> None:
    data = urlset(namespace)
    assert sniffed(data).kind == "xml"
    assert detected(data) == "sitemap"
    with feedmap.read(io.BytesIO(data)) as doc:
        assert [e.loc for e in doc.entries] == ["http://e.com/"]
        assert doc.format == "sitemap"
    warned = [d.code for d in doc.diagnostics]
    assert warned == (["unknown-namespace"] if namespace == "http://example.com/not-a-sitemap-namespace" else [])


def test_urlset_with_a_prefix_is_a_sitemap() -> None:
    data = b'<?xml version="1.0"?><sm:urlset xmlns:sm="' + NS09.encode() + b'"></sm:urlset>'
    root = sniffed(data).root
    assert root is not None and (root.namespace, root.local) == (NS09, "urlset")
    assert detected(data) == "sitemap"


def test_root_is_found_after_comments_doctype_and_blank_lines() -> None:
    data = b'\n\n<?xml version="1.0"?>\n<!-- generated -->\n<!DOCTYPE urlset>\n<?pi x?>\n' + urlset(NS09)[39:]
    root = sniffed(data).root
    assert root is not None
    assert root.local == "urlset"
    assert root.line == 7  # the line in the input as given, blank lines included
    assert detected(data) == "sitemap"


@pytest.mark.parametrize(
    ("blanks", "data", "name"),
    [
        (b" ", b'<?xml version="1.0"?>' + urlset(NS09)[39:], "sitemap"),  # repaired: leading-whitespace
        (b"\n", urlset(NS09)[39:], "sitemap"),  # well-formed XML: blanks may precede the root
        (b"\r\n", b"https://e.com/a\nhttps://e.com/b\n", "text"),
        (b"\n", b'{"loc":"https://e.com/a"}\n', "jsonl"),
    ],
    ids=["xml-declaration", "root", "text", "jsonl"],
)
def test_content_after_more_than_64_kib_of_blanks_is_recognised(blanks: bytes, data: bytes, name: str) -> None:
    """The sniffer looked at the first 64 KiB only: a file starting with more blank lines was called empty."""
    padded = blanks * (100_000 // len(blanks)) + data
    assert sniffed(padded).kind != "empty"
    assert detected(padded) == name
    with feedmap.read(io.BytesIO(padded)) as doc:
        assert len(list(doc.entries)) >= 1


def test_sitemapindex() -> None:
    data = (
        b'<?xml version="1.0"?><sitemapindex xmlns="' + NS09.encode() + b'">'
        b"<sitemap><loc>http://e.com/s1.xml</loc></sitemap></sitemapindex>"
    )
    assert detected(data) == "sitemapindex"


@pytest.mark.parametrize(
    "data",
    [
        b"http://e.com/a\nhttp://e.com/b\n",
        b"\xef\xbb\xbfhttp://e.com/a\r\nhttp://e.com/b\r\n",  # BOM and CRLF
        b"\r\n\r\n  https://e.com/a  \r\n",
        b"http://e.com/a",  # no final newline
    ],
)
def test_text_sitemap(data: bytes) -> None:
    assert sniffed(data).kind == "text"
    assert detected(data) == "text"


def test_text_sitemap_with_bom_and_crlf_reads_clean_urls() -> None:
    with feedmap.read(io.BytesIO(b"\xef\xbb\xbfhttp://e.com/a\r\nhttp://e.com/b\r\n")) as doc:
        assert [e.loc for e in doc.entries] == ["http://e.com/a", "http://e.com/b"]
    assert doc.diagnostics == []


@pytest.mark.parametrize(
    "data",
    [
        b'{"loc": "http://e.com/"}\n{"loc": "http://e.com/b"}\n',
        b'\n  {"loc": "http://e.com/"}',
        b'\xef\xbb\xbf{"a": 1}',
    ],
)
def test_json_lines(data: bytes) -> None:
    assert sniffed(data).kind == "json"
    assert detected(data) == "jsonl"


def test_utf16_xml_is_sniffed_as_xml() -> None:
    data = urlset(NS09).decode().replace("UTF-8", "UTF-16").encode("utf-16")
    assert sniffed(data).kind == "xml"
    assert detected(data) == "sitemap"


def test_sniffing_consumes_nothing() -> None:
    data = urlset(NS09)
    stream = PeekableStream(io.BytesIO(data))
    sniff(stream)
    assert stream.read(len(data) + 10) == data


@pytest.mark.parametrize("data", [b"", b"   \n\t\r\n", b"\xef\xbb\xbf", b"\xef\xbb\xbf\n \n"])
def test_empty_input_is_unknown(data: bytes) -> None:
    assert sniffed(data).kind == "empty"
    with pytest.raises(UnknownFormatError) as caught:
        detected(data)
    for name in readable_names():  # the message tells the user which names -f accepts
        assert name in str(caught.value)


@pytest.mark.parametrize(
    "data",
    [
        bytes(range(256)) * 8,
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        b"PK\x03\x04\x14\x00\x00\x00",  # zip
        b"BZh91AY&SY",  # bzip2
        b"just some words\nand no urls\n",
        b"\xff\xd8\xff\xe0 jpeg \xc3\x28\xa0\xa1 not utf-8 at all \xff\xfe\xfd" * 10,
    ],
)
def test_binary_junk_is_unknown(data: bytes) -> None:
    assert sniffed(data).kind == "binary"
    with pytest.raises(UnknownFormatError) as caught:
        detected(data)
    assert isinstance(caught.value, FormatError)
    assert isinstance(caught.value, LookupError)
    for name in readable_names():
        assert name in str(caught.value)


def test_unknown_xml_root_is_unknown() -> None:
    with pytest.raises(UnknownFormatError):
        detected(b"<html><body>not a sitemap</body></html>")


def test_a_cut_utf8_character_at_the_sniff_window_end_is_still_text() -> None:
    line = "http://e.com/\u00fc\u00fc\u00fc\u00fc\n".encode()
    # pad the first line so that the 4,096-byte sample sniff decodes ends inside a two-byte character
    data = next(
        padded
        for padded in (b"http://e.com/" + b"a" * k + b"\n" + line * 200 for k in range(len(line)))
        if padded[4095] == 0xC3
    )
    with pytest.raises(UnicodeDecodeError):
        data[:4096].decode("utf-8")
    assert sniffed(data).kind == "text"


# ------------------------------------------------------------------------------------- by extension


@pytest.mark.parametrize(
    ("filename", "expected"),
    [
        ("urls.txt", "text"),
        ("urls.TXT", "text"),
        ("urls.txt.gz", "text"),
        ("items.jsonl", "jsonl"),
        ("x.xml", "sitemap"),
    ],
)
def test_extension_decides_for_ambiguous_non_xml_input(tmp_path: Path, filename: str, expected: str) -> None:
    data = b"just some words\nand no urls\n"
    assert sniffed(data).kind == "binary"
    assert detected(data, tmp_path / filename) == expected


def test_content_wins_over_the_extension(tmp_path: Path) -> None:
    assert detected(urlset(NS09), tmp_path / "looks-like.txt") == "sitemap"
    assert detected(b"http://e.com/a\n", tmp_path / "looks-like.xml") == "text"
    assert detected(b'{"loc": "http://e.com/"}\n', tmp_path / "looks-like.txt") == "jsonl"


def test_extension_is_not_used_for_xml_nobody_reads(tmp_path: Path) -> None:
    with pytest.raises(UnknownFormatError):
        detected(b"<html><body>hello</body></html>", tmp_path / "page.xml")


def test_extension_is_not_used_for_empty_input(tmp_path: Path) -> None:
    with pytest.raises(UnknownFormatError):
        detected(b"", tmp_path / "empty.txt")


def test_unknown_extension_is_unknown(tmp_path: Path) -> None:
    with pytest.raises(UnknownFormatError):
        detected(b"just some words\n", tmp_path / "notes.md")


# ----------------------------------------------------------------------------------------------- names


def test_get_known_names() -> None:
    for name in ("sitemap", "sitemapindex", "text", "jsonl"):
        spec = registry.get(name)
        assert spec.name == name
        assert spec.reader is not None and spec.writer is not None
    assert registry.get("  SiteMap ") is registry.get("sitemap")


def test_get_unknown_name_lists_the_known_names() -> None:
    with pytest.raises(FormatError) as caught:
        registry.get("no-such-format")
    assert not isinstance(caught.value, UnknownFormatError)  # that one is for unrecognised content
    assert isinstance(caught.value, LookupError)
    for spec in registry.all_formats():
        assert spec.name in str(caught.value)


def test_read_with_an_unknown_format_name_fails_before_reading() -> None:
    with pytest.raises(FormatError):
        feedmap.read(io.BytesIO(urlset(NS09)), format="no-such-format")


def test_all_formats_is_sorted_and_complete() -> None:
    names = [spec.name for spec in registry.all_formats()]
    assert names == sorted(names)
    assert {"sitemap", "sitemapindex", "text", "jsonl"} <= set(names)
    assert all(isinstance(spec, FormatSpec) for spec in registry.all_formats())


def test_explicit_format_overrides_detection() -> None:
    with feedmap.read(io.BytesIO(b"http://e.com/a\n"), format="text") as doc:
        assert [e.loc for e in doc.entries] == ["http://e.com/a"]
    with pytest.raises(feedmap.ReadError):  # read as a sitemap, a text file has no XML root
        feedmap.read(io.BytesIO(b"http://e.com/a\n"), format="sitemap")


# ---------------------------------------------------------------------------------------- registration

LINKS_NS = "urn:feedmap-test:links"


def _read_links(source: Source, *, ctx: Context) -> Document:
    from lxml import etree

    root = etree.fromstring(source.stream.read())
    entries = [Entry(loc=str(node.get("href"))) for node in root.iter(f"{{{LINKS_NS}}}a")]
    return Document(DocMeta(), iter(entries))


def _write_links(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    locs = [entry.loc for entry in doc.entries]
    sink.write(("links:" + ",".join(locs)).encode())
    return len(locs)


LINKS = FormatSpec(
    name="links-demo",
    title="<links> of <a href> (test format)",
    extensions=(".links",),
    roots=((LINKS_NS, "links"),),
    priority=5,
    reader=_read_links,
    writer=_write_links,
    fields=frozenset({"loc"}),
)
LINKS_DOC = f'<links xmlns="{LINKS_NS}"><a href="http://e.com/1"/><a href="http://e.com/2"/></links>'.encode()


@pytest.mark.usefixtures("isolated_registry")
def test_registered_format_is_used_by_read_and_write() -> None:
    with pytest.raises(UnknownFormatError):
        feedmap.read(io.BytesIO(LINKS_DOC))
    feedmap.register(LINKS)
    assert registry.get("links-demo") is LINKS
    assert LINKS in registry.all_formats()
    with feedmap.read(io.BytesIO(LINKS_DOC)) as doc:  # recognised by its root element
        assert [e.loc for e in doc.entries] == ["http://e.com/1", "http://e.com/2"]
    assert doc.format == "links-demo"
    out = io.BytesIO()
    summary = feedmap.write([Entry(loc="http://e.com/a")], out, format="links-demo")
    assert (summary.entries, out.getvalue()) == (1, b"links:http://e.com/a")


@pytest.mark.usefixtures("isolated_registry")
def test_registered_format_converts_from_builtins(tmp_path: Path) -> None:
    feedmap.register(LINKS)
    source = tmp_path / "in.txt"
    source.write_bytes(b"http://e.com/x\nhttp://e.com/y\n")
    target = tmp_path / "out.links"
    summary = feedmap.convert(source, target, format="links-demo")
    assert summary.entries == 2
    assert target.read_bytes() == b"links:http://e.com/x,http://e.com/y"


@pytest.mark.usefixtures("isolated_registry")
def test_lazy_registration_by_dotted_path() -> None:
    feedmap.register(f"{__name__}:LINKS", name="links-demo")
    assert registry.get("links-demo") is LINKS


@pytest.mark.usefixtures("isolated_registry")
def test_a_lazy_path_to_a_format_of_another_name_is_a_format_error() -> None:
    feedmap.register(f"{__name__}:LINKS", name="links-lazy")
    with pytest.raises(FormatError, match="named 'links-demo'"):
        registry.get("links-lazy")


@pytest.mark.usefixtures("isolated_registry")
def test_lazy_registration_needs_a_name() -> None:
    with pytest.raises(ValueError):
        feedmap.register(f"{__name__}:LINKS")


@pytest.mark.usefixtures("isolated_registry")
def test_lazy_path_to_a_missing_module_is_a_format_error() -> None:
    feedmap.register("feedmap_no_such_module_xyz:FORMAT", name="ghost")
    with pytest.raises(FormatError):
        registry.get("ghost")


@pytest.mark.usefixtures("isolated_registry")
def test_lazy_path_to_something_else_is_a_format_error() -> None:
    feedmap.register(f"{__name__}:NS09", name="not-a-spec")
    with pytest.raises(FormatError):
        registry.get("not-a-spec")


@pytest.mark.usefixtures("isolated_registry")
def test_a_registered_format_can_replace_a_builtin() -> None:
    replacement = FormatSpec(name="text", title="replacement", content="text", reader=_read_links)
    with pytest.raises(ValueError, match="taken by the built-in format"):
        feedmap.register(replacement)
    feedmap.register(replacement, replace=True)
    assert registry.get("text") is replacement


# ---------------------------------------------------------------------------------------- entry points

_PLUGIN_MODULE = "feedmap_test_plugin_demo_mod"


def _install_plugin(folder: Path, entry_points: str, module_source: str) -> None:
    """A distribution as pip would install it: a .dist-info folder and a module, side by side."""
    info = folder / "feedmap_plugin_demo-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: feedmap-plugin-demo\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    (folder / f"{_PLUGIN_MODULE}.py").write_text(textwrap.dedent(module_source))


@pytest.fixture
def plugin_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_registry: None) -> Iterator[Path]:
    """tmp_path on sys.path, the entry points not yet scanned; the plugin module is forgotten afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    yield tmp_path
    sys.modules.pop(_PLUGIN_MODULE, None)


_DEMO_MODULE = """
    from feedmap._core.model import DocMeta, Document, Entry
    from feedmap.formats._registry import FormatSpec


    def read(source, *, ctx):
        words = source.stream.read().decode("utf-8").split()
        return Document(DocMeta(), iter([Entry(loc="http://demo.example/" + word) for word in words]))


    FORMAT = FormatSpec(name="demo", title="demo plugin format", extensions=(".demo",), reader=read)
"""


def test_third_party_format_through_entry_points(plugin_path: Path) -> None:
    _install_plugin(plugin_path, f"[feedmap.formats]\ndemo = {_PLUGIN_MODULE}:FORMAT\n", _DEMO_MODULE)
    spec = registry.get("demo")
    assert spec.name == "demo"
    assert type(spec) is FormatSpec
    assert sys.modules[_PLUGIN_MODULE].FORMAT is spec
    assert "demo" in [s.name for s in registry.all_formats()]
    # and read uses it: by name, and by its extension for content nothing else recognises
    source = plugin_path / "words.demo"
    source.write_bytes(b"alpha beta\n")
    for fmt in ("demo", None):
        with feedmap.read(source, format=fmt) as doc:
            assert [e.loc for e in doc.entries] == ["http://demo.example/alpha", "http://demo.example/beta"]
        assert doc.format == "demo"


def test_entry_point_is_loaded_lazily(plugin_path: Path) -> None:
    _install_plugin(plugin_path, f"[feedmap.formats]\ndemo = {_PLUGIN_MODULE}:FORMAT\n", _DEMO_MODULE)
    registry.get("sitemap")
    assert _PLUGIN_MODULE not in sys.modules  # naming another format imports no plugin
    registry.get("demo")
    assert _PLUGIN_MODULE in sys.modules


def test_entry_point_does_not_shadow_a_builtin(plugin_path: Path) -> None:
    _install_plugin(plugin_path, f"[feedmap.formats]\nsitemap = {_PLUGIN_MODULE}:FORMAT\n", _DEMO_MODULE)
    assert registry.get("sitemap").title != "demo plugin format"
    ((name, reason),) = registry.refused_entry_points()
    assert name == "sitemap"
    assert "taken by the built-in format" in reason


def test_broken_entry_point_is_a_format_error(plugin_path: Path) -> None:
    _install_plugin(plugin_path, "[feedmap.formats]\nbroken = feedmap_no_such_plugin_module:FORMAT\n", "")
    with pytest.raises(FormatError):
        registry.get("broken")


def test_broken_entry_point_does_not_stop_reading_builtin_formats(plugin_path: Path) -> None:
    _install_plugin(plugin_path, "[feedmap.formats]\nbroken = feedmap_no_such_plugin_module:FORMAT\n", "")
    with feedmap.read(io.BytesIO(urlset(NS09))) as doc:
        assert [e.loc for e in doc.entries] == ["http://e.com/"]


def test_broken_entry_point_keeps_its_reason_and_is_listed(plugin_path: Path) -> None:
    _install_plugin(plugin_path, "[feedmap.formats]\nbroken = feedmap_no_such_plugin_module:FORMAT\n", "")
    for _ in range(2):  # the second lookup must say the same, not "unknown format"
        with pytest.raises(FormatError, match="cannot be loaded"):
            registry.get("broken")
    assert "broken" in registry.broken_formats()
    assert "broken" not in {spec.name for spec in registry.all_formats()}


_RACE = """
import threading
from concurrent.futures import ThreadPoolExecutor
from feedmap.formats import _registry as registry
barrier = threading.Barrier(8)
def load(_):
    barrier.wait()
    return [spec.name for spec in registry.all_formats()]
with ThreadPoolExecutor(8) as pool:
    results = list(pool.map(load, range(8)))
assert all(result == results[0] for result in results), results
print(len(results[0]))
"""


def test_formats_load_safely_from_several_threads_at_once() -> None:
    """Index children and discover --tree detect formats on pool threads: the lazy loading must not race.

    Each run is a fresh interpreter, where nothing is loaded yet (in this one the registry already is).
    """
    import subprocess
    import sys

    for _ in range(5):
        done = subprocess.run([sys.executable, "-c", _RACE], capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        assert int(done.stdout) >= 6


def test_unreadable_entry_points_do_not_stop_reading(plugin_path: Path) -> None:
    """Another distribution's ``entry_points.txt`` that importlib.metadata cannot parse (a line with no ``=``)
    is listed as broken; the built-in formats still read, detected or named."""
    _install_plugin(plugin_path, "[feedmap.formats]\nrating\n", "")
    for fmt in (None, "sitemap"):
        with feedmap.read(io.BytesIO(urlset(NS09)), format=fmt) as doc:
            assert [e.loc for e in doc.entries] == ["http://e.com/"]
    assert "cannot be read" in registry.broken_formats()["feedmap.formats"]
    with pytest.raises(FormatError):
        registry.get("rating")


def _tsv_renderer(doc: feedmap.Document, *, ctx: object) -> feedmap.Rendered:
    items = ((entry, f"{entry.loc}\t{entry.title or ''}\n") for entry in doc.entries)
    return feedmap.Rendered(header="url\ttitle\n", items=items, footer="", empty="no entries: wrote a header only")


def _tsv_writer(doc: feedmap.Document, sink: BinaryIO, *, ctx: object) -> int:
    entries = list(doc.entries)
    sink.write("".join(f"{entry.loc}\t{entry.title or ''}\n" for entry in entries).encode())
    return len(entries)


TSV = feedmap.FormatSpec(
    name="tsv-demo",
    title="URL and title, tab-separated",
    extensions=(".tsv",),
    writer=_tsv_writer,
    renderer=_tsv_renderer,
    fields=frozenset({"loc", "title"}),
)


@pytest.mark.usefixtures("isolated_registry")
def test_a_registered_format_with_a_renderer_can_be_split(tmp_path: Path) -> None:
    feedmap.register(TSV)
    entries = [feedmap.Entry(loc=f"https://e.com/{n}", title=f"page {n}") for n in range(5)]
    options = feedmap.Options(base_url="https://e.com/lists/", max_urls=2)
    summary = feedmap.split(entries, tmp_path / "out", "tsv-demo", options)
    assert summary.files == ("tsv-demo-1.tsv", "tsv-demo-2.tsv", "tsv-demo-3.tsv")
    first = "url\ttitle\nhttps://e.com/0\tpage 0\nhttps://e.com/1\tpage 1\n"
    assert (tmp_path / "out" / "tsv-demo-1.tsv").read_text() == first
    assert (tmp_path / "out" / "tsv-demo-3.tsv").read_text() == "url\ttitle\nhttps://e.com/4\tpage 4\n"
    index = (tmp_path / "out" / "sitemap_index.xml").read_text()
    assert "<loc>https://e.com/lists/tsv-demo-2.tsv</loc>" in index


@pytest.mark.usefixtures("isolated_registry")
def test_a_registered_format_without_a_renderer_cannot_be_split(tmp_path: Path) -> None:
    feedmap.register(dataclasses.replace(TSV, renderer=None))
    options = feedmap.Options(base_url="https://e.com/lists/")
    with pytest.raises(feedmap.FormatError, match="cannot be split into files"):
        feedmap.split([feedmap.Entry(loc="https://e.com/")], tmp_path / "out", "tsv-demo", options)
    assert not (tmp_path / "out").exists()
