"""Which locs are one URL to dedupe (issue 17, point 3): their texts as written, never a hash alone.

Two different locs whose ``hash()`` is equal are two URLs, kept both, by every policy and by the targets'
defaults, in memory and past the spill to disk; an IRI and its URI (``café`` and ``caf%C3%A9``) are one URL
to every policy, as the merge already treated them.  The colliding pair is real, not mocked: CPython hashes a
string's storage bytes, so an ASCII string and the UCS-2 string made of its byte pairs hash alike under any
seed.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import feedmap
from feedmap import Diagnostic, Entry, Image, Options
from feedmap import diff as feedmap_diff
from feedmap.cli import main
from feedmap.converters import dedupe, merge_duplicates, report_duplicates

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"


def colliding(ascii_text: str) -> str:
    """The UCS-2 string whose storage holds the bytes of ``ascii_text`` (of even length): an equal hash."""
    assert ascii_text.isascii() and len(ascii_text) % 2 == 0
    wide = "".join(chr(ord(low) | ord(high) << 8) for low, high in zip(ascii_text[::2], ascii_text[1::2], strict=True))
    if sys.byteorder != "little" or hash(wide) != hash(ascii_text):
        pytest.skip("this interpreter does not hash strings by their storage bytes")
    return wide


NARROW = "https://e.example/ab"
IRI, URI = "https://e.example/café", "https://e.example/caf%C3%A9"

POLICIES: dict[str, Callable[..., Any]] = {
    "first": lambda entries, options, **kw: dedupe(entries, Options(dedupe="first", **options), **kw),
    "last": lambda entries, options, **kw: dedupe(entries, Options(dedupe="last", **options), **kw),
    "newest": lambda entries, options, **kw: dedupe(entries, Options(dedupe="newest", **options), **kw),
    "merge_duplicates": lambda entries, options, **kw: merge_duplicates(entries, Options(**options), **kw),
}


def _repeats(found: list[Diagnostic]) -> list[str]:
    return [d.message for d in found if d.code == "loc-duplicate"]


@pytest.fixture(params=["in-memory", "spilled"])
def spilled(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[bool]:
    """Both paths: every key in a dict, or a cap of 2 keys (then SQLite), batches of 2, 1 entry held."""
    if request.param == "spilled":
        monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
        monkeypatch.setattr("feedmap._io.seen_keys.IN_MEMORY", 2)
        monkeypatch.setattr("feedmap._io.seen_keys.BATCH", 2)
        monkeypatch.setattr("feedmap.converters._duplicates._ENTRIES_IN_MEMORY", 1)
        monkeypatch.setattr("feedmap.converters._duplicates._CHUNK", 64)
    yield request.param == "spilled"
    if request.param == "spilled":
        assert list(tmp_path.iterdir()) == [], "the spill left files behind"


@pytest.mark.parametrize("policy", [*POLICIES, "report_duplicates"])
def test_locs_with_equal_hashes_are_two_urls(spilled: bool, policy: str) -> None:
    wide = colliding(NARROW)
    padding = [Entry(loc=f"https://e.example/{n}") for n in range(5)]  # past the cap of 2 keys when spilled
    entries = [*padding, Entry(loc=NARROW), Entry(loc=wide), Entry(loc=wide), Entry(loc=NARROW)]
    found: list[Diagnostic] = []
    if policy == "report_duplicates":
        out = [e.loc for e in report_duplicates(entries, Options(keep_urls=True), on_diagnostic=found.append)]
        assert out == [e.loc for e in entries]
    else:
        out = [e.loc for e in POLICIES[policy](entries, {"keep_urls": True}, on_diagnostic=found.append)]
        assert out == [e.loc for e in padding] + [NARROW, wide]
    repeats = _repeats(found)
    assert len(repeats) == 2 and all("appears 2 times" in m for m in repeats)  # not one loc "appearing 4 times"


@pytest.mark.parametrize("policy", POLICIES)
def test_an_iri_and_its_uri_are_one_url_to_every_policy(spilled: bool, policy: str) -> None:
    padding = [Entry(loc=f"https://e.example/{n}") for n in range(4)]
    entries = [*padding, Entry(loc=IRI, title="iri"), Entry(loc=URI, title="uri")]
    found: list[Diagnostic] = []
    out = list(POLICIES[policy](entries, {}, on_diagnostic=found.append))
    last = policy == "last"
    assert [(e.loc, e.title) for e in out[4:]] == [(URI, "uri") if last else (IRI, "iri")]
    assert [e.loc for e in out[:4]] == [e.loc for e in padding]
    assert [m.split()[0] for m in _repeats(found)] == [URI]  # the URL as written


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_a_text_sitemap_keeps_both_locs_of_a_hash_collision(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``-t text`` drops repeats by default: two locs with equal hashes were one, 'appears 2 times' (JSON
    lines keep a relative loc, which the wide one is)."""
    wide = colliding(NARROW)
    locs = [NARROW, wide, "https://e.example/c", NARROW]
    source = _write(tmp_path, "in.jsonl", [json.dumps({"loc": loc}) for loc in locs])
    for extra in ([], ["--keep-urls"], ["--dedupe", "first"], ["--dedupe", "first", "--keep-urls"]):
        out = tmp_path / "out.txt"
        code = main(["convert", str(source), "-t", "text", "-o", str(out), *extra])
        err = capsys.readouterr().err
        assert code == 0, err
        assert out.read_text(encoding="utf-8").splitlines() == [NARROW, wide, "https://e.example/c"], extra
        assert err.count("info[loc-duplicate]") == 1 and "appears 2 times" in err


@pytest.mark.parametrize(
    ("target", "mark"), [("sitemap", "<loc>"), ("text", "\n"), ("jsonl", '"loc"'), ("rss", "<item>")]
)
def test_dedupe_first_writes_an_iri_and_its_uri_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, mark: str
) -> None:
    """``--dedupe first`` keyed on the URL as read: both spellings were written, as the same URL in XML."""
    source = _write(tmp_path, "in.jsonl", [json.dumps({"loc": IRI}), json.dumps({"loc": URI})])
    out = tmp_path / f"out.{target}"
    code = main(["convert", str(source), "-t", target, "--dedupe", "first", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    written = out.read_text(encoding="utf-8")
    assert written.count(mark) == 1, written
    assert "info[loc-duplicate]" in err


def test_the_text_default_drops_the_uri_of_an_iri_written_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _write(tmp_path, "in.txt", [IRI, "https://e.example/x", URI])
    code = main(["convert", str(source), "-t", "text"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.splitlines() == [IRI, "https://e.example/x"]
    assert "info[loc-duplicate]" in captured.err


def test_locs_too_long_for_the_memory_budget_spill_and_stay_distinct(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Keys are texts now: a few long locs fill the byte budget (not the count) and move to disk."""
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.setattr("feedmap._io.seen_keys.IN_MEMORY_BYTES", 10_000)
    monkeypatch.setattr("feedmap._io.seen_keys.BATCH_BYTES", 10_000)
    made: list[Path] = []
    real = __import__("tempfile").mkdtemp

    def watched(*args: Any, **kwargs: Any) -> str:
        made.append(Path(real(*args, **kwargs)))
        return str(made[-1])

    monkeypatch.setattr("tempfile.mkdtemp", watched)
    locs = [f"https://e.example/{n}/" + "x" * 3000 for n in range(12)]
    out = [e.loc for e in dedupe([Entry(loc=loc) for loc in locs + locs[::-1]], Options(dedupe="first"))]
    assert out == locs
    assert made and not made[0].exists()  # spilled, then removed


def test_diff_compares_urls_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The sibling in ``diff``: an IRI in OLD and its URI in NEW (what a conversion writes) are one URL, not a
    removal and an addition; both spellings in one input are one URL, merged."""
    old = _write(tmp_path, "old.txt", [IRI, "https://e.example/x"])
    new = _write(tmp_path, "new.txt", [URI, "https://e.example/x", IRI])
    code = main(["diff", str(old), str(new)])
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err
    assert "info[duplicates-merged]" in captured.err
    with feedmap_diff(old, new) as changes:
        assert list(changes) == []
        assert changes.counts == {"added": 0, "removed": 0, "changed": 0, "unchanged": 2}


@pytest.mark.parametrize("format", ["sitemap", "sitemapindex", "rss", "ror", "text", "jsonl"])
@pytest.mark.parametrize("dedupe_policy", [None, "first"])
def test_a_lone_surrogate_in_a_url_built_in_python_is_dropped_and_reported(
    spilled: bool, format: str, dedupe_policy: str | None
) -> None:
    """No UTF-8 holds a lone surrogate: in a loc's path, query, userinfo or image it ended every XML write
    (and a spilled dedupe) in UnicodeEncodeError; it is dropped with ``character-dropped``, as in any field."""
    locs = [f"https://e.example/{n}\ud800?q=\udfff" for n in range(5)] + ["https://u\ud800@e.example/x"]
    entries = [Entry(loc=loc) for loc in locs] + [Entry(loc=locs[0])]
    entries.append(Entry(loc="https://e.example/i", images=(Image(loc="https://e.example/i\udc00.png"),)))
    sink = io.BytesIO()
    summary = feedmap.write(entries, sink, format, Options(dedupe=dedupe_policy))  # type: ignore[arg-type]
    text = sink.getvalue().decode("utf-8")
    assert "https://e.example/4?q=" in text and "https://u@e.example/x" in text
    assert "character-dropped" in {d.code for d in summary.diagnostics}
    assert len([d for d in summary.diagnostics if d.code == "loc-duplicate"]) == 1
