"""Detection in one pass: recognising a format imports no format module but the one chosen, and the head of
an input is parsed once (what sniffing found is handed to the reader on the stream)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

import feedmap
from feedmap import Detection, Reporter
from feedmap._io.sources import open_source
from feedmap._xml import _peek
from feedmap.formats import _registry as registry
from feedmap.formats._detection import BUILTINS

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
SITEMAP = f'<?xml version="1.0"?>\n<urlset xmlns="{NS}"><url><loc>https://e.com/a</loc></url></urlset>\n'.encode()
INDEX = f'<?xml version="1.0"?>\n<sitemapindex xmlns="{NS}"><sitemap><loc>https://e.com/s.xml</loc></sitemap></sitemapindex>'
ROR = (
    b'<rss version="2.0" xmlns:ror="http://rorweb.com/0.1/"><channel><title>t</title><link>https://e.com/</link>'
    b"<item><link>https://e.com/a</link><ror:about>sitemap</ror:about></item></channel></rss>"
)
RSS = b'<rss version="2.0"><channel><title>t</title><item><link>https://e.com/a</link></item></channel></rss>'

_IMPORTED = """
import io, json, sys
from feedmap.formats import _registry as registry
from feedmap._core.errors import Reporter
from feedmap._io.sources import open_source
if sys.argv[1] == "detect":
    with open_source(io.BytesIO(sys.argv[2].encode()), reporter=Reporter()) as opened:
        registry.detect(opened)
else:
    registry.get(sys.argv[2])
print(json.dumps(sorted(m for m in sys.modules if m.startswith("feedmap."))))
"""


def _imported(*argv: str) -> list[str]:
    """The feedmap modules a fresh interpreter has imported after ``detect CONTENT`` or ``get NAME``."""
    done = subprocess.run([sys.executable, "-c", _IMPORTED, *argv], capture_output=True, text=True, check=True)
    modules: list[str] = json.loads(done.stdout)
    return modules


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("https://e.com/a\nhttps://e.com/b\n", "text"),
        (SITEMAP.decode(), "sitemap"),
        ('{"loc": "https://e.com/"}\n', "jsonl"),
    ],
)
def test_detecting_imports_only_the_chosen_format(content: str, expected: str) -> None:
    """Detecting imports what loading the chosen format imports, nothing more (no other format module)."""
    assert _imported("detect", content) == _imported("get", expected)


class _CountingEtree:
    """lxml.etree as the root peeker (``feedmap._xml._peek``) sees it, counting the pull parsers it makes."""

    def __init__(self) -> None:
        self.root_parses = 0

    def XMLPullParser(self, *args: Any, **kwargs: Any) -> etree.XMLPullParser:
        if "start-ns" in kwargs.get("events", ()):
            self.root_parses += 1
        return etree.XMLPullParser(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(etree, name)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> _CountingEtree:
    counter = _CountingEtree()
    monkeypatch.setattr(_peek, "etree", counter)
    return counter


@pytest.mark.parametrize(
    ("data", "format", "expected"),
    [
        (SITEMAP, None, "sitemap"),
        (INDEX.encode(), None, "sitemapindex"),
        (INDEX.encode(), "sitemap", "sitemapindex"),  # the sitemap reader hands an index to the index reader
        (ROR, None, "ror"),
        (RSS, None, "rss"),
        (SITEMAP, "sitemap", "sitemap"),
    ],
)
def test_the_head_is_parsed_once(counting: _CountingEtree, data: bytes, format: str | None, expected: str) -> None:
    options = feedmap.Options(follow=False)
    with feedmap.read(io.BytesIO(data), format, options) as doc:
        list(doc.entries)
    assert doc.format == expected
    assert counting.root_parses == 1


def test_a_read_forgets_what_was_peeked() -> None:
    """What peek_root found describes the head as it is: once bytes are consumed, it is looked for again."""
    with open_source(io.BytesIO(SITEMAP), reporter=Reporter()) as opened:
        first = _peek.peek_root(opened.stream)
        assert first is not None and first.local == "urlset"
        assert _peek.peek_root(opened.stream) is first
        opened.stream.read(len(b'<?xml version="1.0"?>\n<urlset'))
        assert _peek.peek_root(opened.stream) != first


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_declared_detection_matches_the_format(name: str) -> None:
    """The registry's table says what each built-in format's own FormatSpec says."""
    _, declared = BUILTINS[name]
    found = registry.get(name).detection
    assert (found.extensions, found.roots, found.requires_namespaces, found.content, found.priority) == (
        declared.extensions,
        declared.roots,
        declared.requires_namespaces,
        declared.content,
        declared.priority,
    )
    assert found.media_types == declared.media_types
    assert declared.readable == found.readable


@pytest.mark.parametrize(("media_type", "name"), [("application/rss+xml", "rss"), ("application/x-ndjson", "jsonl")])
def test_a_media_type_names_its_format(media_type: str, name: str) -> None:
    assert registry.get(media_type).name == name


def test_lazy_registration_with_detection_is_not_imported_to_detect(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(registry, "_lazy", dict(registry._lazy))
    monkeypatch.setattr(registry, "_declared", dict(registry._declared))
    feedmap.register("feedmap_no_such_module:FORMAT", "never", detection=Detection(extensions=(".never",)))
    assert "never" in registry.readable_names()
    with feedmap.read(io.BytesIO(SITEMAP)) as doc:  # detecting a sitemap does not load "never"
        assert [entry.loc for entry in doc.entries] == ["https://e.com/a"]
    assert "feedmap_no_such_module" not in sys.modules
