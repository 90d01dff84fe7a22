"""The merge of repeated URLs as rendered records (issue 19, round 3): a writer that renders records (a urlset)
gets each URL's record rendered as its entry arrives, a repeat that replaces the kept entry re-rendered in
its slot, and the records written in first-seen order; what it writes and says must be what the merge of
entries (then the writer) writes and says, in the same order:

* the readers' checks, then ``loc-duplicate`` / ``more-duplicates`` / ``duplicates-merged``, then the
  writer's diagnostics of the kept entries in output order (``field-dropped`` of a text extra once, from the
  first entry in output order that has it), then the fields the format cannot hold, then the size caps;
* under ``strict``, the same bytes on a stream that cannot be taken back, and the same error.

The merge of entries is still feedmap's own path wherever a step comes after the merge (a ``wrap``, a
``limit``): the oracle here, public and unchanged, runs the same entries both ways.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Alternate, ChangeFreq, Diagnostic, Entry, Image, Options, Position, W3CDate

DATES = [None, "2024-01-01", "2024-01-02T10:00:00Z", "2024-01-02T12:00:00+02:00", "2024-01-02T10:00Z", "2023"]
PATHS = ["p{n}", "\u00fc{n}", "%C3%BC{n}", "a&b'{n}", "s p{n}", "c\x01{n}", "x#a#{n}"]
EXTRAS: list[dict[str, str]] = [
    {},
    {"note": "text"},
    {"other": "t", "note": "u"},
    {"{urn:x}k": "<k xmlns='urn:x'>v</k>"},
    {"{urn:x}k": "<broken"},
]
IMAGES = ["https://e.example/i{n}.png", "https://e.example/\u00e9{n}.png", "data:x", "https://e.example/a&b.png"]
FORMATS = ["sitemap", "ror", "rss", "jsonl", "text"]
POLICIES: list[Any] = [None, "first", "last", "newest"]
CHANNEL: dict[str, Any] = {"channel_title": "T", "channel_link": "https://e.example/"}


@st.composite
def entries_drawn(draw: st.DrawFn) -> list[Entry]:
    """Up to 30 entries of up to 4 URLs each: repeats with missing, equal, older and newer lastmods, IRIs and
    their URI spelling, bad values, images, alternates, text and XML extras, fields a urlset cannot hold."""
    out: list[Entry] = []
    for number in range(draw(st.integers(min_value=0, max_value=30))):
        n = draw(st.integers(min_value=0, max_value=3))
        rich = draw(st.integers(min_value=0, max_value=15))
        images = tuple(
            Image(loc=draw(st.sampled_from(IMAGES)).format(n=number), title="t\x02" if rich & 8 else None)
            for _ in range(draw(st.integers(min_value=0, max_value=2)))
        )
        start = (
            draw(st.sampled_from(["https://e.example/", "rel/", "javascript:"])) if rich == 15 else "https://e.example/"
        )
        out.append(
            Entry(
                loc=start + draw(st.sampled_from(PATHS)).format(n=n),
                lastmod=None if (text := draw(st.sampled_from(DATES))) is None else W3CDate(text),
                changefreq=ChangeFreq.DAILY if rich & 2 else None,
                priority=draw(st.sampled_from([None, 0.5, 0.1234567890123456789, 1.5, float("nan")])),
                title=f"t{number}" if rich & 4 else None,
                description="d&<x>" if rich & 1 else None,
                images=images,
                alternates=(Alternate(hreflang="de", href=f"https://e.example/de/{number}"),) if rich & 2 else (),
                extras=dict(draw(st.sampled_from(EXTRAS))),
                origin=Position("in.jsonl", number + 1),
            )
        )
    return out


def _options(fmt: str, policy: Any, **more: Any) -> Options:
    return Options(dedupe=policy, **(CHANNEL if fmt in ("ror", "rss") else {}), **more)


def _said(seen: list[Diagnostic]) -> list[str]:
    return [f"{d.level.name} {d.code} {d.message} {d.source}:{d.line}" for d in seen]


def _write(entries: list[Entry], fmt: str, options: Options) -> tuple[bytes, list[str], str]:
    """Bytes written to a stream (what reached it when an error stopped the run), diagnostics, the error."""
    seen: list[Diagnostic] = []
    out = io.BytesIO()
    error = ""
    try:
        feedmap.write(entries, out, fmt, options, on_diagnostic=seen.append)
    except feedmap.FeedmapError as exc:
        error = f"{type(exc).__name__}: {exc}"
    return out.getvalue(), _said(seen), error


def _convert(source: Path, fmt: str, options: Options, *, old: bool) -> tuple[bytes, list[str], str]:
    seen: list[Diagnostic] = []
    out = io.BytesIO()
    error = ""
    try:
        if old:  # a last step after the merge (a wrap making an iterator of its own; one that returns its
            # argument is no step): the merge of entries, then the writer
            wrap = lambda entries: (entry for entry in entries)  # noqa: E731
            feedmap.convert(source, out, fmt, options, wrap=wrap, on_diagnostic=seen.append)
        else:
            feedmap.convert(source, out, fmt, options, on_diagnostic=seen.append)
    except feedmap.FeedmapError as exc:
        error = f"{type(exc).__name__}: {exc}"
    return out.getvalue(), _said(seen), error


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=entries_drawn(), strict=st.booleans())
def test_write_says_and_writes_what_the_merge_of_entries_does(
    fmt: str, policy: Any, entries: list[Entry], strict: bool
) -> None:
    """``feedmap.write`` of entries built in code, against the same call with a limit above their count (a
    step after the merge: the merge of entries, the writer after it)."""
    new = _write(entries, fmt, _options(fmt, policy, strict=strict))
    old = _write(entries, fmt, _options(fmt, policy, strict=strict, limit=10**6))
    assert new == old


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=entries_drawn(), strict=st.booleans())
def test_convert_says_and_writes_what_the_merge_of_entries_does(
    tmp_path_factory: pytest.TempPathFactory, fmt: str, policy: Any, entries: list[Entry], strict: bool
) -> None:
    """``feedmap.convert`` of a JSON lines file (each entry as read, with its line), against the same call
    with a ``wrap`` that passes every entry on through a generator of its own."""
    source = tmp_path_factory.mktemp("in") / "in.jsonl"
    feedmap.write(entries, source, "jsonl")
    options = _options(fmt, policy, strict=strict)
    assert _convert(source, fmt, options, old=False) == _convert(source, fmt, options, old=True)


def _entry(loc: str, line: int, **fields: Any) -> Entry:
    return Entry(loc=f"https://e.example/{loc}", origin=Position("in", line), **fields)


def test_the_diagnostics_keep_their_order_when_a_repeat_replaces_the_kept_entry() -> None:
    """Today's order, pinned: the readers' checks of every entry (a bad priority, a no-web URL, the relative
    one left out at the end of the stream), then the merge's lines, then what the writer says of each entry kept
    in output order: the first URL's newer entry (an IRI image, seconds added) before the second URL, which has the text
    extra that the replaced entry had too, so ``field-dropped`` comes from it; then the fields a urlset cannot
    hold, a title."""
    entries = [
        _entry("a", 1, lastmod=W3CDate("2024-01-01"), extras={"note": "x"}),
        _entry("b", 2, extras={"note": "y"}, title="T"),
        _entry("a", 3, lastmod=W3CDate("2024-01-02T10:00Z"), images=(Image(loc="https://e.example/\u00e9.png"),)),
        _entry("c", 4, priority=2.0, lastmod=W3CDate("2023")),
        Entry(loc="javascript:alert(1)", origin=Position("in", 5)),
        Entry(loc="rel/x", origin=Position("in", 6)),
        _entry("b", 7),
    ]
    _, said, error = _write(entries, "sitemap", Options())
    assert not error
    codes = [line.split(" ")[1] for line in said]
    assert codes == [
        "priority-invalid",  # check_values: the checks of entries built in code
        "loc-not-absolute",
        "non-web-url",
        "relative-url",
        "relative-url-left-out",  # at the end of the stream
        "loc-duplicate",
        "loc-duplicate",
        "duplicates-merged",
        "lastmod-seconds-added",  # a's newer entry, written first
        "url-encoded",
        "field-dropped",  # b's text extra: the replaced entry of a had one too, and is not written
        "lastmod-not-xsd",  # c
        "field-dropped",  # the title b holds
    ]
    assert "'note'" in said[10] and "2024-01-02T10:00Z" in said[8]
    assert "title" in said[12]


def test_a_text_extra_of_the_entry_kept_is_said_at_its_place() -> None:
    """The replacing entry holds the text extra: ``field-dropped`` comes at its place (first in output order),
    not at the place of the other URL that holds it too."""
    entries = [
        _entry("a", 1, lastmod=W3CDate("2024-01-01")),
        _entry("b", 2, extras={"note": "y"}, lastmod=W3CDate("2023")),
        _entry("a", 3, lastmod=W3CDate("2024-01-02"), extras={"note": "x"}),
    ]
    _, said, _ = _write(entries, "sitemap", Options())
    assert [line.split(" ")[1] for line in said] == [
        "loc-duplicate",
        "duplicates-merged",
        "field-dropped",
        "lastmod-not-xsd",
    ]


@pytest.mark.parametrize("at", [3, 600])
def test_strict_stops_at_the_writers_first_warning_with_what_was_written_before(at: int) -> None:
    """Under ``strict`` a writer's warning stops the run at the entry that has it: on a stream, the batches
    of 512 blocks before it are there (the header with the first), nothing after; with a repeat replaced."""
    entries = [_entry(f"p{n}", n, lastmod=W3CDate("2024-01-01")) for n in range(1000)]
    entries[at] = _entry(f"p{at}", at, lastmod=W3CDate("2023"))  # lastmod-not-xsd: a warning
    entries.append(_entry("p1", 1000, lastmod=W3CDate("2024-02-01")))
    data, said, error = _write(entries, "sitemap", Options(strict=True))
    assert error.startswith("StrictError") and "2023" in error
    assert [line.split(" ")[1] for line in said] == ["loc-duplicate", "duplicates-merged"]
    blocks = data.count(b"<url>")
    assert blocks == (0 if at < 512 else 512)
    assert data.startswith(b"<?xml") == (blocks > 0)
    if blocks:
        assert b"<lastmod>2024-02-01</lastmod>" in data  # p1's newer entry, at p1's place


def test_the_record_merge_spills_past_its_budget_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records past the memory budget go to a scratch file, read back in order and, for the repeats, out of
    order; the output is the merge of entries' and the file is gone at the end."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr("feedmap.converters._duplicates._ENTRIES_IN_MEMORY", 0)
    monkeypatch.setattr("feedmap.converters._duplicates._PAGE", 3)
    monkeypatch.setattr("feedmap.converters._duplicates._CHUNK", 256)
    entries = [_entry(f"p{n % 40}", n, lastmod=W3CDate(f"2024-01-{1 + n // 40:02d}"), title="x") for n in range(200)]
    assert _write(entries, "sitemap", Options()) == _write(entries, "sitemap", Options(limit=10**6))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("images", "alternates", "kept_images", "kept_alternates", "said"),
    [
        ((Image(loc="https://e.example/i.png"),), (), 1, 0, 0),
        ((Image(loc="HTTP://e.example/i.png"),), (), 1, 0, 0),
        ((Image(loc="https://e.example/i.png", license="https://e.example/l"),), (), 1, 0, 0),
        ((Image(loc="https://e.example/i.png", license="javascript:x"),), (), 1, 0, 1),
        ((Image(loc="https://e.example/i.png"), Image(loc="data:x")), (), 1, 0, 1),
        ((), (Alternate(hreflang="de", href="https://e.example/de"),), 0, 1, 0),
        ((), (Alternate(hreflang="de", href="Https://e.example/de"),), 0, 1, 0),
        ((Image(loc="https://e.example/i.png"),), (Alternate(hreflang="de", href="ftp://e.example/de"),), 1, 0, 1),
    ],
)
def test_only_web_urls_are_written_in_an_entrys_parts(
    images: tuple[Image, ...], alternates: tuple[Alternate, ...], kept_images: int, kept_alternates: int, said: int
) -> None:
    """The images (their loc and license) and alternates of an http(s) page: each one that is no http(s) URL
    (any case of the scheme is one) is left out of a urlset and said (``non-web-url``); the others are written
    as they are, nothing said."""
    entry = _entry("p", 1, images=images, alternates=alternates)
    data, lines, _ = _write([entry], "sitemap", Options())
    assert data.count(b"<image:image>") == kept_images
    assert data.count(b'<xhtml:link rel="alternate"') == kept_alternates
    assert data.count(b"<image:license>") == sum(
        1 for image in images if image.license is not None and image.license.startswith("https:")
    )
    assert [line.split(" ")[1] for line in lines] == ["non-web-url"] * said
