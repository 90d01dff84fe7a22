"""One pass for a urlset's common plan (issue 19, round 4): the checks of the URLs, the merge of repeats and the
rendering of each ``<url>`` run as one loop, where an entry that is "plain" (a plain absolute http(s) URI, a
lastmod in the XSD's form or none, images of a plain loc alone, nothing a urlset cannot hold...) is checked,
keyed and rendered in one look, and any other entry takes each step's own way.

What it writes and says must be what the steps one after the other write and say, in the same order: the
oracle is the same call with a step after the merge (``limit`` above the entries' count, or a ``wrap`` that
passes every entry on), which keeps the plan's steps apart.  The entries here sit on both sides of every line
the "plain" decision draws: the scheme's case, a port of four and five digits, userinfo, IPv6, two ``#``,
``&``, ``'``, ``%`` escapes, IRIs, blanks, control characters, a loc of 2,047 and 2,048 characters, lastmods
the XSD takes or not, priorities known or rounded or out of range, changefreqs, images with captions, geo
locations, titles and licences (nothing to escape, ``&``, ``<``, quotes, CR, text wider than one byte,
controls, surrogates, U+FFFE) or of another scheme, alternates, extras, titles.  They run on both twins
(``FEEDMAP_PURE=1`` in ``.ci/run``).
"""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Alternate, ChangeFreq, Diagnostic, Entry, Image, News, Options, Position, Video, W3CDate
from feedmap.cli import main

#: Locs on both sides of the plain decision ({n}: a number, so that some repeat).
LOCS = [
    "https://e.example/p{n}",
    "http://e.example/p{n}",
    "HTTPS://e.example/p{n}",
    "Http://e.example/p{n}",
    "https://e.example:8080/p{n}",
    "https://e.example:80801/p{n}",
    "https://e.example:/p{n}",
    "https://u:pw@e.example/p{n}",
    "https://e.example/a@b{n}",
    "https://[::1]/p{n}",
    "https://e.example/p{n}#a",
    "https://e.example/p{n}#a#b",
    "https://e.example#f{n}",
    "https://e.example?q={n}",
    "https://e.example/a&b{n}",
    "https://e.example/p{n}?a=1&b=2&amp;c",
    "https://e.example/p{n}#a&b",
    "https://e&x.example/p{n}",
    "https://e.example/a'b{n}",
    "https://e.example/%C3%BC{n}",
    "https://e.example/%zz{n}",
    "https://e.example/\u00fc{n}",
    "https://\u00e9.example/p{n}",
    "https://e.example/s p{n}",
    "https://e.example/c\x01{n}",
    "https://e.example/<{n}>",
    "https://e.example/" + "x" * 2020 + "{n:05d}",  # 2,043 characters: under the protocol's 2,048
    "https://e.example/" + "x" * 2025 + "{n:05d}",  # 2,048
    "https://e.example/" + "x" * 2024 + "{n:05d}",  # 2,047
    "ftp://e.example/p{n}",
    "javascript:alert({n})",
    "https:/e.example/p{n}",
    "https://",
    "rel/p{n}",
    "//e.example/p{n}",
]
DATES = [
    None,
    "2024-01-01",
    "2024-01-02T10:00:00Z",
    "2024-01-02T12:00:00+02:00",
    "2024-01-02T10:00:00.5-03:30",
    "2024-01-02T10:00Z",
    "2023-12",
    "2023",
    "2016-12-31T23:59:60Z",
]
PRIORITIES: list[Any] = [None, 0.5, 0.8, 0.0, 1.0, 0.1234567890123456789, 1.5, -0.1, float("nan")]
IMAGES = [
    "https://e.example/i{n}.png",
    "http://e.example/i.png",
    "HTTPS://e.example/i.png",
    "https://e.example/\u00e9{n}.png",
    "https://e.example/a&b.png",
    "https://e.example/i.png#x#y",
    "data:x",
    "i.png",
]
#: Image captions, geo locations and titles on both sides of the plain decision: nothing to escape, what XML
#: escaping alone changes (in one-byte text and wider), and characters XML 1.0 cannot hold (dropped, said).
TEXTS: list[str | None] = [
    None,
    "t",
    "c&d",
    "<b>x</b>",
    'say "x"',
    "it's",
    "cr\r",
    "tab\tnl\n",
    "t\x02",
    "del\x7f",
    "Caf\u00e9 & cr\u00e8me",
    "front \u2013 view",
    "\u2013 <x> & \x01",
    "wide \ufffe",
    "lone \ud800",
    "\U0001f600 & y",
    "",
]
#: Image licences on both sides of it.
LICENSES: list[str | None] = [
    None,
    "https://e.example/l",
    "https://e.example/l?a=1&b=2",
    "HTTPS://e.example/l",
    "https://e.example/\u00e9",
    "javascript:x",
    "l.html",
]
EXTRAS: list[dict[str, str]] = [{}, {"note": "text"}, {"{urn:x}k": "<k xmlns='urn:x'>v</k>"}, {"{urn:x}k": "<broken"}]
POLICIES: list[Any] = [None, "first", "last", "newest"]


@st.composite
def entries_drawn(draw: st.DrawFn) -> list[Entry]:
    """Up to 25 entries, most of them plain, some one field away from it, repeated with older, newer, equal and
    missing lastmods."""
    out: list[Entry] = []
    for number in range(draw(st.integers(min_value=0, max_value=25))):
        n = draw(st.integers(min_value=0, max_value=4))
        odd = draw(st.integers(min_value=0, max_value=9))  # 0-4: only the loc and lastmod may be odd
        images = tuple(
            Image(
                loc=draw(st.sampled_from(IMAGES)).format(n=n),
                title=draw(st.sampled_from(TEXTS)) if odd == 5 else None,
                caption=draw(st.sampled_from(TEXTS)) if odd in (4, 5, 6) else None,
                geo_location=draw(st.sampled_from(TEXTS)) if odd == 4 else None,
                license=draw(st.sampled_from(LICENSES)) if odd in (4, 7) else None,
            )
            for _ in range(draw(st.integers(min_value=0, max_value=2)))
        )
        loc = draw(st.sampled_from(LOCS[:6] if odd < 3 else LOCS)).format(n=n)
        out.append(
            Entry(
                loc=loc,
                lastmod=None if (text := draw(st.sampled_from(DATES))) is None else W3CDate(text),
                changefreq=draw(st.sampled_from([None, ChangeFreq.DAILY, ChangeFreq.NEVER])),
                priority=draw(st.sampled_from(PRIORITIES)),
                title=f"t{number}" if odd == 8 else None,
                description="d&<x>" if odd == 9 and n % 2 else None,
                keywords=("k",) if odd == 9 and not n % 2 else (),
                images=images,
                alternates=(Alternate(hreflang="de", href=f"https://e.example/de/{n}"),) if odd == 6 else (),
                extras=dict(draw(st.sampled_from(EXTRAS))) if odd == 7 else {},
                origin=draw(st.sampled_from([None, Position("in.jsonl", number + 1)])),
            )
        )
    return out


def _said(seen: list[Diagnostic]) -> list[str]:
    return [f"{d.level.name} {d.code} {d.message} {d.source}:{d.line}" for d in seen]


def _write(entries: list[Entry], options: Options) -> tuple[bytes, list[str], str]:
    """Bytes written to a stream (what reached it when an error stopped the run), diagnostics, the error."""
    seen: list[Diagnostic] = []
    out = io.BytesIO()
    error = ""
    try:
        feedmap.write(entries, out, "sitemap", options, on_diagnostic=seen.append)
    except feedmap.FeedmapError as exc:
        error = f"{type(exc).__name__}: {exc}"
    return out.getvalue(), _said(seen), error


def _convert(source: Path, fmt: str, options: Options, *, apart: bool) -> tuple[bytes, list[str], str]:
    """``feedmap.convert`` to a stream; ``apart``: with a ``wrap`` after the steps, which keeps them apart."""
    seen: list[Diagnostic] = []
    out = io.BytesIO()
    error = ""
    wrap = (lambda entries: entries) if apart else None
    try:
        feedmap.convert(source, out, fmt, options, wrap=wrap, on_diagnostic=seen.append)
    except feedmap.FeedmapError as exc:
        error = f"{type(exc).__name__}: {exc}"
    return out.getvalue(), _said(seen), error


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=entries_drawn(), strict=st.booleans(), keep=st.booleans())
def test_a_write_in_one_pass_says_and_writes_what_the_steps_do(
    policy: Any, entries: list[Entry], strict: bool, keep: bool
) -> None:
    """``feedmap.write`` of entries built in code (the readers' checks first), against the same call with a
    limit above their count (the steps apart, then the merge)."""
    options: dict[str, Any] = {"dedupe": policy, "strict": strict, "keep_urls": keep}
    assert _write(entries, Options(**options)) == _write(entries, Options(**options, limit=10**6))


@pytest.mark.parametrize("fmt", ["sitemap", "text"])
@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=entries_drawn(), strict=st.booleans())
def test_a_conversion_in_one_pass_says_and_writes_what_the_steps_do(
    tmp_path_factory: pytest.TempPathFactory, fmt: str, policy: Any, entries: list[Entry], strict: bool
) -> None:
    """``feedmap.convert`` of a JSON lines file (each entry as read, with its line), against the same call with
    a ``wrap`` that passes every entry on."""
    source = tmp_path_factory.mktemp("in") / "in.jsonl"
    feedmap.write(entries, source, "jsonl", Options(keep_urls=True))
    options = Options(dedupe=policy, strict=strict)
    assert _convert(source, fmt, options, apart=False) == _convert(source, fmt, options, apart=True)


@pytest.mark.parametrize("loc", [loc.format(n=1) for loc in LOCS])
def test_each_side_of_the_plain_decision_is_written_as_the_steps_write_it(loc: str) -> None:
    """One loc at a time (first, then repeated with a newer lastmod and a plain image), the same bytes and
    diagnostics as the steps apart."""
    entries = [
        Entry(loc=loc, lastmod=W3CDate("2024-01-01"), origin=Position("in", 1)),
        Entry(loc="https://e.example/next", origin=Position("in", 2)),
        Entry(loc=loc, lastmod=W3CDate("2024-01-02"), images=(Image(loc="https://e.example/i.png"),)),
    ]
    new = _write(entries, Options())
    assert new == _write(entries, Options(limit=10**6))
    assert new[0].count(b"<url>") in (1, 2)


@pytest.mark.parametrize("field", ["caption", "geo_location", "title", "license"])
@pytest.mark.parametrize("text", [text for text in {*TEXTS, *LICENSES} if text is not None])
def test_each_image_text_on_each_side_of_the_plain_decision_is_written_as_the_steps_write_it(
    field: str, text: str
) -> None:
    """One image text at a time (a caption, geo location, title or licence) in an entry kept first and in one
    that replaces an entry before it, the same bytes and diagnostics as the steps apart."""

    def entry(loc: str, lastmod: str, value: str, line: int) -> Entry:
        image = Image(loc="https://e.example/i.png?w=1&h=2", **{field: value})
        return Entry(loc=loc, lastmod=W3CDate(lastmod), images=(image,), origin=Position("in", line))

    entries = [
        entry("https://e.example/p?a=1&b=2", "2024-01-01", text, 1),
        Entry(loc="https://e.example/next", origin=Position("in", 2)),
        entry("https://e.example/q", "2024-01-01", text + "&", 3),
        entry("https://e.example/p?a=1&b=2", "2023-01-01", text + "&", 4),  # older: the first stays
        entry("https://e.example/q", "2025-01-01", text, 5),  # newer: takes its place
    ]
    for options in (Options(), Options(keep_urls=True)):
        new = _write(entries, options)
        assert new == _write(entries, dataclasses.replace(options, limit=10**6))
        assert new[0].count(b"<url>") == 3


def _urlset(tmp_path: Path) -> Path:
    """A urlset of plain URLs and others, some repeated, with the lines diagnostics name."""
    body = "\n".join(
        [
            "<url><loc>https://e.example/a</loc><lastmod>2024-01-01</lastmod></url>",
            "<url><loc>https://e.example/b</loc><priority>0.5</priority></url>",
            "<url><loc>HTTPS://e.example/c</loc></url>",
            "<url><loc>https://e.example/a</loc><lastmod>2024-01-03T10:00Z</lastmod></url>",
            "<url><loc>javascript:x</loc></url>",
            "<url><loc>https://e.example/d?x=1&amp;y=2</loc><changefreq>daily</changefreq></url>",
            "<url><loc>https://e.example/b</loc><priority>1.5</priority></url>",
            "<url><loc>https://e.example/\u00e9</loc><image:image><image:loc>https://e.example/i.png</image:loc>"
            "<image:title>T</image:title></image:image></url>",
            "<url><loc>https://e.example/a</loc><lastmod>2023</lastmod></url>",
        ]
    )
    path = tmp_path / "in.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n' + body + "\n</urlset>\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("target", ["sitemap", "text"])
@pytest.mark.parametrize(
    "more", [[], ["--dedupe", "first"], ["--dedupe", "last"], ["--dedupe", "newest"], ["--strict"]]
)
def test_the_cli_says_and_writes_what_the_steps_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, more: list[str]
) -> None:
    """``feedmap convert`` of a urlset: the same output file, messages (``file:line``) and exit code as with a
    limit above the URLs' count (the steps apart)."""
    source = _urlset(tmp_path)

    def run(*extra: str) -> tuple[int, str, str, bytes]:
        out = tmp_path / "out"  # one name: the messages name it
        code = main(["convert", str(source), "-o", str(out), "-t", target, *more, *extra])
        captured = capsys.readouterr()
        written = out.read_bytes() if out.exists() else b""
        out.unlink(missing_ok=True)
        return code, captured.out, captured.err, written

    assert run() == run("--limit", "1000000")


def test_a_plain_repeat_takes_the_place_of_the_entry_kept_and_the_order_of_what_is_said_holds() -> None:
    """Today's order, pinned: a plain entry replaced by a newer plain one in its slot, one that is not plain
    (an IRI) replaced by a plain one of the same URL, what the checks say as the entries come, then the merge's
    lines, then what the writer says of each entry kept in output order."""
    entries = [
        Entry(loc="https://e.example/a", lastmod=W3CDate("2024-01-01"), origin=Position("in", 1)),
        Entry(loc="https://e.example/\u00fc", lastmod=W3CDate("2024-01-01"), origin=Position("in", 2)),
        Entry(loc="https://e.example/b", priority=7.0, origin=Position("in", 3)),
        Entry(loc="https://e.example/a", lastmod=W3CDate("2024-01-02"), origin=Position("in", 4)),
        Entry(loc="https://e.example/%C3%BC", lastmod=W3CDate("2024-02-01"), origin=Position("in", 5)),
        Entry(loc="rel", origin=Position("in", 6)),
        Entry(loc="https://e.example/c", lastmod=W3CDate("2024-01-02T10:00Z"), origin=Position("in", 7)),
    ]
    data, said, error = _write(entries, Options())
    assert not error
    assert [line.split(" ")[1] for line in said] == [
        "priority-invalid",
        "relative-url",
        "relative-url-left-out",
        "loc-duplicate",
        "loc-duplicate",
        "duplicates-merged",
        "lastmod-seconds-added",
    ]
    assert said[3].endswith("in:1") and said[4].endswith("in:2")
    urls = data.decode().split("<url>")[1:]
    assert urls[0].startswith("<loc>https://e.example/a</loc><lastmod>2024-01-02</lastmod>")
    assert urls[1].startswith("<loc>https://e.example/%C3%BC</loc><lastmod>2024-02-01</lastmod>")
    assert urls[2] == "<loc>https://e.example/b</loc></url>\n"
    assert urls[3].startswith("<loc>https://e.example/c</loc><lastmod>2024-01-02T10:00:00Z</lastmod>")


#: A value of each field of an entry other than its loc and origin, not the default: one entry holds it, the
#: others are plain. A field added to ``Entry`` without a value here fails the test below, so the plain decision
#: is held to every field there is.
FIELD_VALUES: dict[str, Any] = {
    "lastmod": W3CDate("2024-01-02"),
    "changefreq": ChangeFreq.DAILY,
    "priority": 0.5,
    "title": "T",
    "description": "D",
    "keywords": ("k",),
    "type": "article",
    "images": (Image(loc="https://e.example/i.png"),),
    "alternates": (Alternate(href="https://e.example/de", hreflang="de"),),
    "news": News(publication_name="N", publication_language="en", publication_date="2024-01-02", title="T"),
    "videos": (
        Video(thumbnail_loc="https://e.example/t.png", title="V", description="D", player_loc="https://e.example/p"),
    ),
    "extras": {"note": "x"},
}


@pytest.mark.parametrize(
    "name", [field.name for field in dataclasses.fields(Entry) if field.name not in ("loc", "origin")]
)
def test_every_field_of_an_entry_is_written_and_said_as_the_steps_do(name: str) -> None:
    """An entry holding any one field (each field ``Entry`` has), between plain ones, is written and said as the
    steps apart write and say it."""
    assert name in FIELD_VALUES, f"a value of the new field {name!r} is missing from FIELD_VALUES"
    entries = [Entry(loc=f"https://e.example/p{n}", origin=Position("in", n + 1)) for n in range(3)]
    entries.insert(1, Entry(loc="https://e.example/held", origin=Position("in", 9), **{name: FIELD_VALUES[name]}))
    new = _write(entries, Options())
    assert not new[2]
    assert new == _write(entries, Options(limit=10**6))
