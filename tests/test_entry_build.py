"""The entries the compiled sitemap walk builds itself (issue 19, the read path per entry).

Where the compiled walk is built, a common ``<url>`` (its loc, lastmod, changefreq, priority and images fine as
written) is made into its :class:`~feedmap.Entry`, :class:`~feedmap.Image`, :class:`~feedmap.W3CDate` and
:class:`~feedmap.Position` without a Python call per field (the direct build; where those classes are not the
shape the walk knows, it builds them the setattr way, and says so: ``feedmap.compiled_parts()`` answers the walk
``False``, and ``FEEDMAP_REQUIRE_ACCEL=1`` makes a read an ImportError).  Those objects must be the ones the pure twin
(``FEEDMAP_PURE=1``) and the public constructors make: equal, of the same types, each its own (an entry's
``extras`` is a dict of its own), usable as any entry (``dataclasses.replace``, pickling, hashing of the
values), and nothing kept alive after the document is dropped.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import json
import os
import pickle
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from conftest import env_flag
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import ChangeFreq, Entry, Image, Options, Position, Reporter, W3CDate

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
PURE = "FEEDMAP_PURE"
REQUIRE_ACCEL = "FEEDMAP_REQUIRE_ACCEL"


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled walk in use (skips where it was not built; fails then under CI)."""
    monkeypatch.delenv(PURE, raising=False)
    if not feedmap.accelerated():
        message = "the compiled sitemap walk is not built here (pip install with a C compiler builds it)"
        if env_flag(REQUIRE_ACCEL):
            pytest.fail(f"{message}; {REQUIRE_ACCEL} is set")
        pytest.skip(message)


def urlset(body: str) -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}" xmlns:image="{IMAGE}">\n{body}</urlset>\n'
    ).encode()


def read(data: bytes, monkeypatch: pytest.MonkeyPatch, *, pure: bool) -> tuple[list[Entry], list[object]]:
    if pure:
        monkeypatch.setenv(PURE, "1")
    else:
        monkeypatch.delenv(PURE, raising=False)
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), options=Options(follow=False), reporter=reporter) as doc:
        entries = list(doc)
    return entries, [str(diagnostic) for diagnostic in reporter.diagnostics]


def shape(entry: Entry) -> tuple[object, ...]:
    """Every field with its type, the origin too (entry equality leaves it out)."""
    fields = tuple((name, type(value), value) for name, value in dataclasses.asdict(entry).items())
    images = tuple(type(image) for image in entry.images)
    return fields, images, type(entry.lastmod), type(entry.origin), entry.origin


COMMON = (
    "<url><loc>https://example.com/a</loc><lastmod>2024-06-01</lastmod><changefreq>daily</changefreq>"
    "<priority>0.5</priority></url>\n"
    "<url><loc>https://example.com/b?x=1#f</loc><lastmod>2024-06-01T10:20:30.5+02:00</lastmod>"
    "<image:image><image:loc>https://example.com/i.png</image:loc><image:caption>A</image:caption>"
    "<image:title>T</image:title><image:license>https://example.com/l</image:license>"
    "<image:geo_location>Here</image:geo_location></image:image>"
    "<image:image><image:loc>https://example.com/j.png</image:loc></image:image></url>\n"
    "<url><loc>http://example.com:8080/</loc></url>\n"
)


def test_a_common_entry_is_what_the_constructors_make(compiled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    entries, said = read(urlset(COMMON), monkeypatch, pure=False)
    assert said == []
    expected = [
        Entry(
            loc="https://example.com/a",
            lastmod=W3CDate("2024-06-01"),
            changefreq=ChangeFreq.DAILY,
            priority=0.5,
            origin=Position("<stream>", 3),
        ),
        Entry(
            loc="https://example.com/b?x=1#f",
            lastmod=W3CDate("2024-06-01T10:20:30.5+02:00"),
            images=(
                Image(
                    loc="https://example.com/i.png",
                    caption="A",
                    title="T",
                    license="https://example.com/l",
                    geo_location="Here",
                ),
                Image(loc="https://example.com/j.png"),
            ),
            origin=Position("<stream>", 4),
        ),
        Entry(loc="http://example.com:8080/", origin=Position("<stream>", 5)),
    ]
    assert [shape(entry) for entry in entries] == [
        shape(dataclasses.replace(entry, origin=Position(got.origin.source, entry.origin.line)))  # type: ignore[union-attr]
        for entry, got in zip(expected, entries, strict=True)
    ]
    assert [entry.origin.line for entry in entries] == [3, 4, 5]  # type: ignore[union-attr]


def test_each_entry_has_its_own_extras_and_works_as_any_entry(compiled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    entries, _ = read(urlset(COMMON * 3), monkeypatch, pure=False)
    assert len({id(entry.extras) for entry in entries}) == len(entries)
    entries[0].extras["{urn:x}y"] = "<y/>"  # type: ignore[index]
    assert all(entry.extras == {} for entry in entries[1:])
    for entry in entries:
        assert pickle.loads(pickle.dumps(entry)) == entry
        assert pickle.loads(pickle.dumps(entry.origin)) == entry.origin
        changed = dataclasses.replace(entry, priority=0.25)
        assert changed.loc == entry.loc and changed.priority == 0.25
        if entry.lastmod is not None:
            assert hash(entry.lastmod) == hash(W3CDate(entry.lastmod.text))
        origin = entry.origin
        assert origin is not None
        assert tuple(origin) == (origin.source, origin.line)
        assert str(origin) == f"{origin.source}:{origin.line}"
    date = entries[1].lastmod
    assert date is not None
    with pytest.raises(AttributeError):
        date.text = "2000"


def test_reading_keeps_nothing_alive_once_the_entries_are_dropped(
    compiled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "".join(
        f"<url><loc>https://example.com/{number}</loc><lastmod>2024-06-01</lastmod><priority>0.5</priority>"
        f"<image:image><image:loc>https://example.com/{number}.png</image:loc></image:image></url>\n"
        for number in range(3000)
    )
    data = urlset(body)

    def once() -> None:
        entries, _ = read(data, monkeypatch, pure=False)
        assert len(entries) == 3000

    once()  # what the first read imports and caches
    gc.collect()
    tracemalloc.start()
    try:
        once()
        gc.collect()
        first, _ = tracemalloc.get_traced_memory()
        for _ in range(3):
            once()
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert after - first < 100_000  # a leaked loc, date, image or position per entry would be ~0.3 MB a read


# ------------------------------------------------------------------------------- the direct build, said when off

#: A fresh interpreter reads the urlset ``argv[1]``: what ``compiled_parts()`` and ``accelerated()`` answer, then
#: the entries read (their repr), or the error of the read.  With ``argv[2] == "grown"`` Entry first gets a
#: ``__setattr__`` of its own, before the walk is loaded: a shape of Entry the direct build does not know (as a
#: field added would be), so the compiled walk builds its entries the setattr way.
_READ = """\
import io, json, sys
import feedmap
if sys.argv[2] == "grown":
    def _setattr(self, name, value):
        object.__setattr__(self, name, value)
    feedmap.Entry.__setattr__ = _setattr
said = {"parts": feedmap.compiled_parts(), "accelerated": feedmap.accelerated()}
try:
    with feedmap.read(sys.argv[1], options=feedmap.Options(follow=False)) as doc:
        said["entries"] = [repr(entry) + " " + repr(entry.origin) for entry in doc]
except ImportError as exc:
    said["error"] = str(exc)
print(json.dumps(said))
"""


def _read_fresh(path: Path, shape: str, **env: str) -> dict[str, object]:
    environ = {key: value for key, value in os.environ.items() if key not in (PURE, REQUIRE_ACCEL)}
    command = [sys.executable, "-c", _READ, str(path), shape]
    result = subprocess.run(command, env={**environ, **env}, capture_output=True, text=True, timeout=120, check=True)
    said: dict[str, object] = json.loads(result.stdout.splitlines()[-1])
    return said


def test_an_entry_the_direct_build_does_not_know_turns_the_walk_off_in_compiled_parts(
    compiled: None, tmp_path: Path
) -> None:
    """FEEDMAP_REQUIRE_ACCEL not set: the walk still reads (the same entries as the pure twin's), but it is no
    longer counted in use, so ``accelerated()`` is False; so is the JSON lines reader, which builds its entries
    the same direct way (tests/test_jsonl_twins.py reads with it); every other part is as it was."""
    path = tmp_path / "in.xml"
    path.write_bytes(urlset(COMMON))
    known = _read_fresh(path, "known")
    grown = _read_fresh(path, "grown")
    pure = _read_fresh(path, "known", **{PURE: "1"})
    assert known["parts"]["sitemap walk"] is True and known["accelerated"] is True  # type: ignore[index]
    assert grown["parts"] == {**known["parts"], "sitemap walk": False, "jsonl reader": False}  # type: ignore[dict-item]
    assert grown["accelerated"] is False
    assert len(pure["entries"]) == 3  # type: ignore[arg-type]
    assert grown["entries"] == known["entries"] == pure["entries"]


def test_require_accel_makes_a_read_without_the_direct_build_an_error(compiled: None, tmp_path: Path) -> None:
    """CI sets FEEDMAP_REQUIRE_ACCEL=1: a compiled walk that cannot build entries directly fails the read (as a
    missing compiled pass fails), and compiled_parts() answers it False without raising; FEEDMAP_PURE=1 (the
    pure twins on purpose) still reads, and so does the walk Entry is known to."""
    path = tmp_path / "in.xml"
    path.write_bytes(urlset(COMMON))
    grown = _read_fresh(path, "grown", **{REQUIRE_ACCEL: "1"})
    assert grown["parts"]["sitemap walk"] is False  # type: ignore[index]
    assert "entries" not in grown
    assert "DIRECT_BUILD is off" in grown["error"] and REQUIRE_ACCEL in grown["error"]  # type: ignore[operator]
    pure = _read_fresh(path, "grown", **{REQUIRE_ACCEL: "1", PURE: "1"})
    known = _read_fresh(path, "known", **{REQUIRE_ACCEL: "1"})
    assert "error" not in pure and "error" not in known
    assert pure["entries"] == known["entries"]
    assert len(known["entries"]) == 3  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------ twins on hostile urlsets

#: Locs whose every character but one is what a plain loc holds: the one is not (check_loc reports or mends it).
ODD_LOCS = [
    "https://example.com/a b",
    "https://example.com/a&lt;b",
    "https://example.com/a&gt;b",
    'https://example.com/a"b',
    "https://example.com/a{b}",
    "https://example.com/a|b",
    "https://example.com/a\\b",
    "https://example.com/a^b",
    "https://example.com/a`b",
    "https://example.com/a@b",
    "https://example.com/a\tb",
    "https://example.com/\u00e9",
    "https://example.com/a\u00a0b",
    "https://exa_mple.com/",
    "https://example.com:/",
    "https://example.com:8080x/",
    "h1+.-://example.com/",
    "1http://example.com/",
    "https:/example.com/",
    "https://",
]


@pytest.mark.parametrize("loc", ODD_LOCS)
def test_twins_read_a_loc_with_one_odd_character_alike(
    compiled: None, monkeypatch: pytest.MonkeyPatch, loc: str
) -> None:
    data = urlset(f"<url><loc>{loc}</loc><lastmod>2024-06-01</lastmod></url>\n")
    built, built_said = read(data, monkeypatch, pure=False)
    pure, pure_said = read(data, monkeypatch, pure=True)
    assert [shape(entry) for entry in built] == [shape(entry) for entry in pure]
    assert built_said == pure_said


LOCS = st.sampled_from(
    [
        "https://example.com/",
        "https://example.com/a?b=c&amp;d=e",
        "HTTP://Example.COM:80/x",
        "https://example.com:123456/",
        "https://exa mple.com/",
        " https://example.com/pad ",
        "https://user@example.com/",
        "https://例え.jp/パス",
        "ftp://example.com/f",
        "/relative",
        "",
        "https://example.com/" + "a" * 2040,
        "https://example.com/%zz",
        "https://[::1]/",
        "https://example.com/#frag#again",
        *ODD_LOCS,
    ]
)
DATES = st.sampled_from(
    [
        "2024",
        "2024-06",
        "2024-06-01",
        "2024-02-30",
        "2024-06-01T10:20Z",
        "2024-06-01T10:20",
        "2024-06-01T23:59:60Z",
        "2024-06-01T10:20:30.123456789-14:00",
        "2024-06-01T10:20:30+14:01",
        " 2024-06-01",
        "yesterday",
        "0000-01-01",
        "\uff12\uff10\uff12\uff14",
        "2024-06-01T10:20:30.+00:00",
    ]
)
FREQS = st.sampled_from(["daily", "Daily", " weekly", "never", "sometimes", ""])
PRIORITIES = st.sampled_from(["0.5", "1.0", "0", "1.5", "-0.1", ".5", "0.50", " 0.3", "x"])


@st.composite
def url(draw: st.DrawFn) -> str:
    parts = [f"<loc>{draw(LOCS)}</loc>"] if draw(st.integers(0, 9)) else []
    for tag, values in (("lastmod", DATES), ("changefreq", FREQS), ("priority", PRIORITIES)):
        for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2]))):
            parts.append(f"<{tag}>{draw(values)}</{tag}>")
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
        inner = f"<image:loc>{draw(LOCS)}</image:loc>" if draw(st.integers(0, 5)) else ""
        if draw(st.booleans()):
            inner += "<image:caption>c</image:caption>"
        parts.append(f"<image:image>{inner}</image:image>")
    if not draw(st.integers(0, 12)):
        parts.append("<!-- note -->")
    if not draw(st.integers(0, 12)):
        parts.append("<extra>x</extra>")
    order = draw(st.permutations(parts))
    return "<url>" + "".join(order) + "</url>\n"


@pytest.mark.timeout(600)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(url(), min_size=1, max_size=12))
def test_twins_build_the_same_entries_from_hostile_urlsets(
    compiled: None, monkeypatch: pytest.MonkeyPatch, urls: list[str]
) -> None:
    data = urlset("".join(urls))
    built, built_said = read(data, monkeypatch, pure=False)
    pure, pure_said = read(data, monkeypatch, pure=True)
    assert [shape(entry) for entry in built] == [shape(entry) for entry in pure]
    assert built_said == pure_said
