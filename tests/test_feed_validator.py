"""Conformance of written RSS 2.0, ROR and Atom 1.0 against the W3C Feed Validator (issues 9 and 22).

The oracle is the W3C Feed Validation Service's own code (``w3c-feedvalidator/src`` in the external corpus;
``feedvalidator.validateString(text, firstOccurrenceOnly=1)``, events filtered by ``compatibility.AA``: the
errors and warnings the online service shows).  The inputs are every test feed of the validator that it
finds valid (no Error), and every file of the rest of the corpus.  Each is converted to ``rss``, ``ror`` and
``atom``; each output must show no error and no warning except

* ``UnknownNamespace`` for ``http://rorweb.com/0.1/`` (ROR's namespace is unknown to the validator);
* ``UnknownNamespace`` for a namespace the input itself uses (a sitemap's ``sitemap:priority`` or a
  Google image written into the feed: the data is the input's, the namespace unknown to the validator);
* ``DuplicateUpdated`` in Atom (two entries of the same ``updated``) when the input has two lastmods of one
  instant, or an entry without one beside others (Atom requires a date of each entry: it has the feed's);
* what the input itself carries (the event classes the validator reports for the input).

Every sitemap written from the same inputs is checked against the sitemaps.org XSD (extension elements
checked laxly, as in ``test_xsd.py``); an empty ``<urlset>`` is the documented exception (the XSD wants
one ``<url>``).  Each output holds at most ``MAX_ITEMS`` items (the validator would take minutes over the
corpus's list of a million URLs).

Every input is checked (about 7 s); the counts are printed (``-s``).
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import itertools
import socket
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from lxml import etree

import feedmap
from feedmap import Entry, FeedmapError, Options, Reporter

ROR_NS = "http://rorweb.com/0.1/"
#: As a user publishing a feed would: with its own address (else the validator's MissingAtomSelfLink).
SELF_URL = "https://feeds.example.com/feed.xml"
OPTIONS = Options(follow=False, self_url=SELF_URL)
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
#: Items written per output: the validator needs minutes for the corpus's 1,000,000-URL list.
MAX_ITEMS = 2_000
_LOOPBACK = ("127.0.0.1", "::1", "localhost")


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The validator fetches external DTDs and looks up e-mail domains: only the loopback is reachable."""
    real = socket.getaddrinfo

    def loopback_only(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in _LOOPBACK and host is not None:
            raise socket.gaierror(socket.EAI_NONAME, "no network in tests")
        return real(host, *args, **kwargs)

    def no_lookup(host: str) -> str:
        raise socket.gaierror(socket.EAI_NONAME, "no network in tests")

    monkeypatch.setattr(socket, "getaddrinfo", loopback_only)
    monkeypatch.setattr(socket, "gethostbyname", no_lookup)


def _validator(corpus: Path) -> tuple[ModuleType, ModuleType]:
    source = corpus / "w3c-feedvalidator" / "src"
    if not (source / "feedvalidator").is_dir():
        pytest.skip(f"the W3C Feed Validator is not in {source}")
    pytest.importorskip("html5lib")
    if str(source) not in sys.path:
        sys.path.insert(0, str(source))
    import feedvalidator
    from feedvalidator import compatibility

    return feedvalidator, compatibility


@dataclass
class Oracle:
    feedvalidator: ModuleType
    compatibility: ModuleType

    def events(self, data: bytes, base: str = "") -> list[Any]:
        """The errors and warnings of a document (as its own test suite calls it: a US-ASCII fallback for
        a document without an encoding declaration, the test feed's address as its base)."""
        try:
            result = self.feedvalidator.validateString(data, firstOccurrenceOnly=1, fallback="US-ASCII", base=base)
        except Exception as exc:  # the validator's own failures on odd input: count as "not a valid feed"
            return [exc]
        events: list[Any] = self.compatibility.AA(result["loggedEvents"])
        return events

    def is_error(self, event: Any) -> bool:
        return isinstance(event, Exception | self.feedvalidator.logging.Error)


@dataclass(frozen=True)
class Input:
    path: Path
    carried: frozenset[str]  # event classes the validator reports for the input itself
    namespaces: frozenset[str]  # namespace URIs the input uses


def _namespaces(data: bytes) -> frozenset[str]:
    found: set[str] = set()
    try:
        for _event, (_prefix, uri) in etree.iterparse(
            io.BytesIO(data), events=("start-ns",), resolve_entities=False, no_network=True, recover=True
        ):
            found.add(uri)
    except (etree.LxmlError, ValueError):
        pass
    return frozenset(found)


def _inputs(corpus: Path, oracle: Oracle) -> tuple[list[Input], int]:
    """(the inputs, how many of the validator's test feeds it finds valid)."""
    cases = corpus / "w3c-feedvalidator" / "testcases"
    inputs: list[Input] = []
    for path in sorted(cases.rglob("*.xml")):
        data = path.read_bytes()
        events = oracle.events(data, f"http://www.feedvalidator.org/testcases/{path.relative_to(cases).as_posix()}")
        if not any(oracle.is_error(event) for event in events):
            carried = frozenset(type(event).__name__ for event in events)
            inputs.append(Input(path, carried, _namespaces(data)))
    valid_feeds = len(inputs)
    skip = {"w3c-feedvalidator", "xsd"}
    others = [
        path
        for path in sorted(corpus.rglob("*"))
        if path.is_file()
        and not skip & set(path.relative_to(corpus).parts)
        and path.name not in ("README.md", "LICENSE")
    ]
    for path in others:
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":  # what feedmap reads from a gzip file is what it holds
            with contextlib.suppress(OSError, EOFError):
                data = gzip.decompress(data)
        events = oracle.events(data)
        carried = frozenset(type(event).__name__ for event in events if not oracle.is_error(event))
        inputs.append(Input(path, carried, _namespaces(data)))
    return inputs, valid_feeds


def _first_entries(entries: Iterable[Entry]) -> Iterable[Entry]:
    return itertools.islice(entries, MAX_ITEMS)


def _convert(path: Path, target: str) -> bytes | None:
    out = io.BytesIO()
    try:
        feedmap.convert(str(path), out, target, options=OPTIONS, reporter=Reporter(), wrap=_first_entries)
    except FeedmapError:
        return None
    return out.getvalue()


@dataclass
class Tally:
    converted: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    unexpected: Counter[tuple[str, str]] = field(default_factory=Counter)
    examples: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def note(self, target: str, name: str, where: str) -> None:
        key = (target, name)
        self.unexpected[key] += 1
        self.examples.setdefault(key, [])
        if len(self.examples[key]) < 3:
            self.examples[key].append(where)


def _allowed(event: Any, target: str, source: Input) -> bool:
    name = type(event).__name__
    if name in source.carried:
        return True
    if name == "DuplicateUpdated" and target == "atom":
        return _updated_shared(source.path)
    if name == "InvalidUriChar" and (_ipv6_literal(event) or _input_url(event, source)):
        return True
    if name == "UnknownNamespace":
        namespace = str(getattr(event, "params", {}).get("namespace", ""))
        return (target == "ror" and namespace == ROR_NS) or namespace in source.namespaces
    return False


@functools.cache
def _updated_shared(path: Path) -> bool:
    """Whether two of the entries written from ``path`` have one ``updated`` whatever the writer does: two lastmods
    of the same instant, or an entry without one (Atom gives it the feed's, the newest lastmod) beside another.  The
    validator's ``DuplicateUpdated`` then says what the input holds (read as the conversion reads it)."""
    try:
        with feedmap.read(str(path), options=Options(follow=False), reporter=Reporter()) as doc:
            lastmods = [entry.lastmod for entry in _first_entries(doc.entries)]
    except FeedmapError:
        return False
    instants = [lastmod.to_datetime() for lastmod in lastmods if lastmod is not None]
    return len(set(instants)) < len(instants) or (None in lastmods and len(lastmods) > 1)


def _input_url(event: Any, source: Input) -> bool:
    """A URL the input holds as written, characters no URI holds in its host (``http://example.com&><'"/``
    of sitemap.js's unescaped-lt.xml, its only entry kept since a cut first entry is): feedmap reads it with
    ``loc-not-escaped`` and keeps it, as it keeps every URL it cannot repair without guessing."""
    value = str(getattr(event, "params", {}).get("value", ""))
    host = value.split("://", 1)[-1].split("/", 1)[0]
    if not value or not any(char in host for char in "<>\"'&"):
        return False
    escaped = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").encode()
    return escaped in source.path.read_bytes()


def _ipv6_literal(event: Any) -> bool:
    """An RSS link's bracket on an IPv6 literal host: the validator checks RSS links against RFC 2396, which
    predates IPv6 literals (RFC 2732, RFC 3986 3.2.2); the input's host has no other spelling, so the event
    is the input's (its Atom href passes the validator's IRI check)."""
    params = getattr(event, "params", {})
    value = str(params.get("value", ""))
    host = value.partition("://")[2].split("/", 1)[0].rpartition("@")[2]
    return params.get("char") in ("'['", "']'") and host.startswith("[") and "]" in host


def _iter_outputs(inputs: list[Input]) -> Iterator[tuple[Input, str, bytes | None]]:
    for source in inputs:
        for target in ("rss", "ror", "atom"):
            yield source, target, _convert(source.path, target)


@pytest.mark.usefixtures("offline")
@pytest.mark.timeout(600)  # every corpus case through the external validator: 120 s on a busy machine
def test_written_feeds_pass_the_w3c_feed_validator(corpus_dir: Path) -> None:
    oracle = Oracle(*_validator(corpus_dir))
    inputs, valid_feeds = _inputs(corpus_dir, oracle)
    tally = Tally()
    for source, target, data in _iter_outputs(inputs):
        if data is None:
            tally.refused[target] += 1
            continue
        tally.converted[target] += 1
        for event in oracle.events(data, SELF_URL):
            if not _allowed(event, target, source):
                tally.note(target, type(event).__name__, str(source.path.relative_to(corpus_dir)))
    print(
        f"\nW3C Feed Validator: {valid_feeds} valid test feeds + {len(inputs) - valid_feeds} corpus files; "
        f"converted rss {tally.converted['rss']}, ror {tally.converted['ror']}, atom {tally.converted['atom']} "
        f"(not convertible: rss {tally.refused['rss']}, ror {tally.refused['ror']}, atom {tally.refused['atom']}); "
        f"unexpected events: {sum(tally.unexpected.values())}"
    )
    for (target, name), count in tally.unexpected.most_common():
        print(f"  {target} {name}: {count} e.g. {tally.examples[(target, name)]}")
    assert tally.converted["rss"] > 0 and tally.converted["ror"] > 0 and tally.converted["atom"] > 0
    # none is left: a class of event, even once, fails the test (see the note below)
    assert not tally.unexpected, {f"{target} {name}": count for (target, name), count in tally.unexpected.items()}


# Nothing remains in the full run (858 valid test feeds + 554 corpus files, each to rss and ror).  The last
# two classes were fixed on the writer's side:
#
# * MisplacedXHTMLContent (``sitemapjs/alltags*.xml``, ``sitemapjs/bad-tag-sitemap.xml``): a sitemap's
#   ``xhtml:link`` that is no hreflang alternate (``rel="amphtml"``, an ``android-app:`` alternate without
#   ``hreflang``), kept verbatim as an extra, is left out of feed items (``extra-dropped``): an RSS item
#   cannot hold XHTML, and as an ``atom:link`` it could not be told apart, read back, from a feed's own links.
# * NotHtml (``ror-wild/CAPTAINTOEBEANS__pawsntoebeans-sitemap1__ror.xml``): a bare ``&`` before letters in a
#   description (``Paws&Toebeans``) is written ``&amp;``, the same HTML text without a parse error.
#
# None of the warnings issue 9 names (ReservedPrefix, unused UnknownNamespace, DuplicateItemSemantics,
# MissingGuid, MissingAtomSelfLink), nor SlashDate, ContainsHTML or NotHtml, is left.


@pytest.mark.usefixtures("offline")
@pytest.mark.timeout(600)  # every corpus case through the external validator: 120 s on a busy machine
def test_written_sitemaps_are_valid_against_the_xsd(corpus_dir: Path) -> None:
    """Every sitemap written from the same inputs is valid against the sitemaps.org XSD (extension elements
    stripped and checked well-formed, as in test_xsd.py); an empty ``<urlset>`` is the documented exception."""
    from test_xsd import strip_extensions

    folder = corpus_dir / "xsd"
    schema = etree.XMLSchema(etree.parse(str(folder / "sitemap-0.9.xsd")))
    inputs, _ = _inputs(corpus_dir, Oracle(*_validator(corpus_dir)))
    written = empty = 0
    invalid: list[str] = []
    for source in inputs:
        data = _convert(source.path, "sitemap")
        if data is None:
            continue
        root, _ = strip_extensions(data)
        if len(root) == 0:
            empty += 1
            continue
        written += 1
        if not schema.validate(root):
            invalid.append(f"{source.path.relative_to(corpus_dir)}: {schema.error_log.last_error}")
    print(f"\nsitemaps.org XSD: {written} sitemaps written, {empty} empty (no entry), {len(invalid)} invalid")
    assert written > 0
    assert not invalid, invalid[:5]
