"""The compiled sitemap walk and its pure-Python twin (issue 19, point 1): same entries, same diagnostics.

The sitemap reader walks each ``<url>``/``<sitemap>`` with a compiled twin where it was built (``pip install``
with a C compiler) and with the pure-Python twin under ``FEEDMAP_PURE=1`` or where it was not.  Both must read
every input alike: the whole conformance corpus and generated entries (fields, images, markup, repeats, odd
namespaces, whitespace, entities, comments).  Under ``FEEDMAP_REQUIRE_ACCEL=1`` (CI, ``.ci/run``) the compiled
twin must be the one in use, so CI proves it was built; elsewhere the twin comparisons skip without it.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import env_flag, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Diagnostic, Entry, Options, Reporter

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML = "http://www.w3.org/1999/xhtml"

REQUIRE_ACCEL = "FEEDMAP_REQUIRE_ACCEL"
PURE = "FEEDMAP_PURE"


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled twin in use (the test skips where it was not built, and fails then under CI)."""
    monkeypatch.delenv(PURE, raising=False)
    if not feedmap.accelerated():
        message = "the compiled sitemap walk is not built here (pip install with a C compiler builds it)"
        if env_flag(REQUIRE_ACCEL):
            pytest.fail(f"{message}; {REQUIRE_ACCEL} is set")
        pytest.skip(message)


Read = tuple[list[tuple[Entry, object]], list[Diagnostic]]


def read_all(data: bytes, monkeypatch: pytest.MonkeyPatch, *, pure: bool, fmt: str | None = None) -> Read:
    """Entries (each with its origin, which entry equality leaves out) and diagnostics of ``data``."""
    if pure:
        monkeypatch.setenv(PURE, "1")
    else:
        monkeypatch.delenv(PURE, raising=False)
    reporter = Reporter()
    try:
        with feedmap.read(io.BytesIO(data), format=fmt, options=Options(follow=False), reporter=reporter) as doc:
            entries: list[tuple[Entry, object]] = [(entry, entry.origin) for entry in doc]
    except feedmap.FeedmapError as error:
        entries = [(Entry(loc="error:"), (type(error).__name__, str(error)))]
    return entries, list(reporter.diagnostics)


def both(data: bytes, monkeypatch: pytest.MonkeyPatch, fmt: str | None = None) -> Read:
    """What both twins read from ``data`` (asserted equal)."""
    compiled_read = read_all(data, monkeypatch, pure=False, fmt=fmt)
    pure_read = read_all(data, monkeypatch, pure=True, fmt=fmt)
    assert compiled_read == pure_read
    return compiled_read


# ------------------------------------------------------------------------------------------ which walk runs


def test_feedmap_pure_forces_the_twin_per_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PURE, "1")
    assert feedmap.accelerated() is False
    monkeypatch.setenv(PURE, "0")  # "0" and "" do not force it
    switched_back = feedmap.accelerated()
    monkeypatch.delenv(PURE)
    assert feedmap.accelerated() is switched_back


def test_compiled_walk_is_in_use_where_required(monkeypatch: pytest.MonkeyPatch) -> None:
    """CI sets FEEDMAP_REQUIRE_ACCEL=1: the install built the compiled walk and the reader uses it."""
    monkeypatch.delenv(PURE, raising=False)
    if not env_flag(REQUIRE_ACCEL):
        pytest.skip(f"{REQUIRE_ACCEL} is not set (CI sets it)")
    assert feedmap.accelerated(), "the compiled sitemap walk was not built or does not load"


@pytest.mark.parametrize("pure", [True, False])
def test_version_names_the_walk(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, pure: bool
) -> None:
    if pure:
        monkeypatch.setenv(PURE, "1")
    else:
        monkeypatch.delenv(PURE, raising=False)
    code, out, _ = run(capsys, "--version")
    assert code == 0
    walk = "compiled" if feedmap.compiled_parts()["sitemap walk"] else "pure-Python"
    assert out.startswith(f"feedmap {feedmap.__version__} (") and out.endswith(")\n")
    assert f"{walk}: " in out and "sitemap walk" in out
    if pure:
        assert walk == "pure-Python"


# ------------------------------------------------------------------------------------- the twins read alike


def test_twins_read_the_common_case_alike(compiled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    body = (
        f'<urlset xmlns="{SM}" xmlns:image="{IMAGE}">\n<url>\n <loc>https://a.example/p</loc>\n'
        " <lastmod>2024-05-06T07:08:09Z</lastmod><changefreq>daily</changefreq><priority>0.5</priority>\n"
        " <image:image><image:loc>https://a.example/i.png</image:loc><image:caption>A cat</image:caption>"
        "<image:title>Cat</image:title></image:image>\n</url>\n"
        "<url><loc>https://a.example/q</loc><image:image><image:loc>https://a.example/j.png</image:loc>"
        "<image:license>https://a.example/l</image:license><image:geo_location>Paris</image:geo_location>"
        "</image:image></url>\n</urlset>\n"
    )
    entries, diagnostics = both(body.encode(), monkeypatch)
    assert [entry.loc for entry, _ in entries] == ["https://a.example/p", "https://a.example/q"]
    first, origin = entries[0]
    assert (first.lastmod, first.priority, origin) == (
        feedmap.W3CDate("2024-05-06T07:08:09Z"),
        0.5,
        feedmap.Position("<stream>", 2),
    )
    assert [image.caption for image in first.images] == ["A cat"]
    assert entries[1][0].images[0].geo_location == "Paris"
    assert diagnostics == []


def test_twins_hand_what_is_not_plain_to_the_full_reader(compiled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    body = (
        f'<urlset xmlns="{SM}" xmlns:image="{IMAGE}">\n'
        "<url><loc> https://a.example/p </loc><priority>0.50000</priority></url>\n"
        "<url><loc>https://a.example/q</loc><loc>https://a.example/r</loc></url>\n"
        "<url><loc>https://a.example/s<b/></loc></url>\n"
        "<url><loc>https://a.example/t</loc><image:image><image:caption>no loc</image:caption></image:image></url>\n"
        "<url><!-- a comment --><loc>https://a.example/u</loc><other>x</other></url>\n"
        "</urlset>\n"
    )
    entries, diagnostics = both(body.encode(), monkeypatch)
    assert [entry.loc for entry, _ in entries] == [
        "https://a.example/p",
        "https://a.example/q",
        "https://a.example/t",
        "https://a.example/u",
    ]
    assert {diagnostic.code for diagnostic in diagnostics} >= {"element-repeated", "unknown-element", "loc-missing"}


#: One thing out of the common case each (on an otherwise plain entry): the walk hands it to the full reader,
#: which reads it as before, with its diagnostics (besides ``doctype-ignored``, for the subset declaring ``e``).
LOC = "<loc>https://a.example/p</loc>"
IMG = "<image:loc>https://a.example/i.png</image:loc>"
ODD: list[tuple[str, str, int, list[str]]] = [
    (
        "plain",
        f"<url>{LOC}<lastmod>2024-01-02</lastmod><image:image>{IMG}<image:caption>C</image:caption></image:image></url>",
        1,
        [],
    ),
    ("loc-blanks", "<url><loc> https://a.example/p</loc></url>", 1, ["whitespace-trimmed"]),
    ("loc-nbsp", "<url><loc>https://a.example/p\u00a0</loc></url>", 1, ["whitespace-trimmed"]),
    ("loc-empty", "<url><loc></loc></url>", 0, ["loc-missing"]),
    ("loc-markup", "<url><loc>https://a.example/<b/>p</loc></url>", 0, ["unknown-element"]),
    ("loc-comment", "<url><loc>https://a.example/<!-- c -->p</loc></url>", 1, []),
    ("loc-entity", "<url><loc>https://a.example/&e;</loc></url>", 0, ["unresolved-entity"]),
    ("loc-twice", f"<url>{LOC}<loc>https://a.example/q</loc></url>", 1, ["element-repeated"]),
    ("loc-missing", "<url><lastmod>2024-01-02</lastmod></url>", 0, ["loc-missing"]),
    ("loc-as-text", "<url>https://a.example/bare</url>", 1, ["loc-as-text"]),
    ("loc-no-namespace", '<url><loc xmlns="">https://a.example/p</loc></url>', 0, ["loc-missing"]),
    ("loc-other-namespace", '<url><x:loc xmlns:x="urn:x">https://a.example/p</x:loc></url>', 0, ["loc-missing"]),
    ("loc-relative", "<url><loc>relative/p</loc></url>", 1, ["relative-url"]),
    (
        "lastmod-twice",
        f"<url>{LOC}<lastmod>2024-01-02</lastmod><lastmod>2024-01-03</lastmod></url>",
        1,
        ["element-repeated"],
    ),
    ("lastmod-invalid", f"<url>{LOC}<lastmod>2024-13-40</lastmod></url>", 1, ["lastmod-invalid"]),
    ("lastmod-empty", f"<url>{LOC}<lastmod/></url>", 1, ["lastmod-invalid"]),
    ("changefreq-case", f"<url>{LOC}<changefreq>Daily</changefreq></url>", 1, ["changefreq-case"]),
    (
        "changefreq-twice",
        f"<url>{LOC}<changefreq>daily</changefreq><changefreq>never</changefreq></url>",
        1,
        ["element-repeated"],
    ),
    ("priority-long", f"<url>{LOC}<priority>0.50000</priority></url>", 1, []),
    ("priority-high", f"<url>{LOC}<priority>1.5</priority></url>", 1, ["priority-invalid"]),
    (
        "image-caption-twice",
        f"<url>{LOC}<image:image>{IMG}<image:caption>C</image:caption><image:caption>D</image:caption></image:image></url>",
        1,
        ["element-repeated"],
    ),
    (
        "image-loc-twice",
        f"<url>{LOC}<image:image>{IMG}<image:loc>https://a.example/j.png</image:loc></image:image></url>",
        1,
        ["element-repeated"],
    ),
    (
        "image-without-loc",
        f"<url>{LOC}<image:image><image:caption>C</image:caption></image:image></url>",
        1,
        ["loc-missing"],
    ),
    ("image-empty-caption", f"<url>{LOC}<image:image>{IMG}<image:caption></image:caption></image:image></url>", 1, []),
    (
        "image-caption-blanks",
        f"<url>{LOC}<image:image>{IMG}<image:caption> C </image:caption></image:image></url>",
        1,
        ["whitespace-trimmed"],
    ),
    (
        "image-loc-blanks",
        f"<url>{LOC}<image:image><image:loc> https://a.example/i.png</image:loc></image:image></url>",
        1,
        ["whitespace-trimmed"],
    ),
    (
        "image-other-child",
        f"<url>{LOC}<image:image>{IMG}<image:other>x</image:other></image:image></url>",
        1,
        ["unknown-element"],
    ),
    (
        "image-child-namespace",
        f"<url>{LOC}<image:image>{IMG}<caption>C</caption></image:image></url>",
        1,
        ["unknown-element"],
    ),
    (
        "image-markup",
        f"<url>{LOC}<image:image>{IMG}<image:title>a<b/>c</image:title></image:image></url>",
        1,
        ["unknown-element"],
    ),
    ("image-comment", f"<url>{LOC}<image:image>{IMG}<!-- c --></image:image></url>", 1, []),
    ("url-comment", f"<url><!-- c -->{LOC}</url>", 1, []),
    ("url-pi", f"<url><?pi x?>{LOC}</url>", 1, []),
    ("url-entity", f"<url>&e;{LOC}</url>", 1, ["unresolved-entity"]),
    ("unknown-element", f"<url>{LOC}<other>x</other></url>", 1, ["unknown-element"]),
    ("extension-element", f'<url>{LOC}<ex:thing xmlns:ex="urn:ex">x</ex:thing></url>', 1, []),
    ("hreflang", f'<url>{LOC}<xhtml:link rel="alternate" hreflang="de" href="https://a.example/de"/></url>', 1, []),
    ("too-many-images", f"<url>{LOC}" + f"<image:image>{IMG}</image:image>" * 1001 + "</url>", 1, ["too-many-images"]),
]


@pytest.mark.parametrize(("case", "body", "count", "reported"), ODD, ids=[case for case, *_ in ODD])
def test_twins_read_each_odd_entry_as_the_full_reader(
    compiled: None, monkeypatch: pytest.MonkeyPatch, case: str, body: str, count: int, reported: list[str]
) -> None:
    head = f'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY e "x">]>\n<urlset xmlns="{SM}" xmlns:image="{IMAGE}"'
    data = f'{head} xmlns:xhtml="{XHTML}">\n{body}\n</urlset>\n'.encode()
    entries, diagnostics = both(data, monkeypatch, "sitemap")
    assert len(entries) == count
    assert sorted({diagnostic.code for diagnostic in diagnostics} - {"doctype-ignored"}) == reported


def corpus_sitemaps(corpus: Path) -> list[Path]:
    """Every file of the corpus that holds a sitemap or a sitemap index (gzipped or not)."""
    found = []
    for path in sorted(corpus.rglob("*")):
        if not path.is_file():
            continue
        head = path.read_bytes()[:4096]
        if head[:2] == b"\x1f\x8b" or b"urlset" in head or b"sitemapindex" in head:
            found.append(path)
    return found


@pytest.mark.timeout(900)  # every sitemap of the corpus, read twice
def test_twins_read_the_whole_corpus_alike(compiled: None, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = corpus_sitemaps(corpus_dir)
    assert len(paths) >= 30
    read_some = 0
    for path in paths:
        entries, _ = both(path.read_bytes(), monkeypatch)
        read_some += bool(entries)
    assert read_some >= 20


# ------------------------------------------------------------------------------------- generated entries

#: Values of every kind: plain, blanks around, empty, entities, CDATA, markup, comments, PIs, bad values.
VALUES = st.sampled_from(
    [
        "https://a.example/p",
        "https://a.example/p?a=1&amp;b=2",
        " https://a.example/p",
        "https://a.example/p\n",
        "\u00a0https://a.example/p",
        "https://a.example/&#233;t&#xe9;",
        "&#x20;https://a.example/p",
        "<![CDATA[https://a.example/c]]>",
        "https://a.example/<![CDATA[c]]>d",
        "https://a.example/<b/>x",
        "https://a.example/<!--c-->y",
        "https://a.example/<?pi x?>z",
        "",
        " ",
        "relative/path",
        "https://a.example/ü",
        "https://a .example/",
        "2024-01-02",
        "2024-01-02T03:04:05+01:00",
        "2024-13-40",
        "daily",
        "Daily",
        "0.5",
        "0.50",
        "1.5",
        "+0.5",
        "abc",
        "https://a.example/&e;",
        "&e;",
    ]
)
#: Plain values of each field (and of an image's), the common case that the walk reads.
PLAIN = {
    "loc": [
        "https://a.example/p",
        "https://a.example/p?a=1&amp;b=2",
        "https://a.example/&#233;",
        "https://a.example/ü",
    ],
    "lastmod": ["2024-01-02", "2024-01-02T03:04:05+01:00", "<![CDATA[2024-01-02]]>"],
    "changefreq": ["daily", "never"],
    "priority": ["0.5", "1.0", "0"],
    "caption": ["A caption", "Caf&#233; &lt;3", "<![CDATA[Cat]]>"],
}
FIELD_NAMES = st.sampled_from(["loc", "lastmod", "changefreq", "priority"])
#: How a field's element is named: in the entry's namespace, under a prefix for it, in no namespace, in another.
SPELLINGS = st.sampled_from(["{n}", "sm:{n}", '{n} xmlns=""', 'x:{n} xmlns:x="urn:x"', 'sm:{n} xmlns:sm="urn:y"'])


def value(name: str) -> st.SearchStrategy[str]:
    """Mostly a plain value of field ``name``, else a value of any kind."""
    plain = st.sampled_from(PLAIN.get(name, PLAIN["loc"] + PLAIN["caption"]))
    return st.one_of(*[plain] * 8, VALUES)


@st.composite
def field(draw: st.DrawFn, name: str | None = None) -> str:
    name = name or draw(FIELD_NAMES)
    spelled = draw(st.one_of(*[st.just("{n}")] * 6, SPELLINGS)).format(n=name)
    return f"<{spelled}>{draw(value(name))}</{spelled.split(' ')[0]}>"


SEPARATORS = st.sampled_from(["", " ", "\n  "] * 4 + ["<!-- c -->"])


IMAGE_NAMES = st.sampled_from(["caption", "geo_location", "title", "license"])


@st.composite
def image(draw: st.DrawFn) -> str:
    """Mostly a plain image (a loc, other children once each), else repeats, another element, no loc."""
    names = draw(st.lists(IMAGE_NAMES, unique=True, max_size=3).map(lambda drawn: ["loc", *drawn]))
    if not draw(st.integers(0, 5)):
        names.remove("loc")
    if not draw(st.integers(0, 3)):
        names.append(draw(st.sampled_from(["loc", "caption", "other"])))
    parts = []
    for name in draw(st.permutations(names)):
        prefix = "sm" if not draw(st.integers(0, 14)) else "image"
        parts += [f"<{prefix}:{name}>{draw(value(name))}</{prefix}:{name}>", draw(SEPARATORS)]
    return f"<image:image>{''.join(parts)}</image:image>"


OTHERS = st.sampled_from(
    [
        '<xhtml:link rel="alternate" hreflang="de" href="https://a.example/de"/>',
        '<xhtml:link rel="next" href="https://a.example/2"/>',
        "<extra>kept</extra>",
        '<ex:thing xmlns:ex="urn:ex">x</ex:thing>',
        "<!-- a comment -->",
        "<?pi x?>",
        "https://a.example/bare",
        "&#x20;",
        "\n   ",
    ]
)


@st.composite
def entry(draw: st.DrawFn) -> str:
    """Mostly the common case (each field once, plain images), else repeats, other elements, a missing loc."""
    names = draw(st.lists(FIELD_NAMES, unique=True, max_size=4).map(lambda drawn: ["loc", *drawn]))
    if not draw(st.integers(0, 5)):
        names.remove("loc")
    children = [draw(field(name)) for name in dict.fromkeys(names)]
    children += draw(st.lists(image(), max_size=3))
    children += draw(st.lists(st.one_of(field(), OTHERS), max_size=2)) if not draw(st.integers(0, 2)) else []
    order = draw(st.permutations(children))
    return "<{tag}>" + draw(st.sampled_from(["", "\n "])).join(order) + "</{tag}>"


ROOT_NAMESPACES = st.sampled_from([SM, SM, "", "https://www.sitemaps.org/schemas/sitemap/0.9", "urn:other"])


@st.composite
def document(draw: st.DrawFn) -> tuple[bytes, str]:
    kind = draw(st.sampled_from(["urlset", "sitemapindex"]))
    tag = "url" if kind == "urlset" else "sitemap"
    namespace = draw(ROOT_NAMESPACES)
    xmlns = f' xmlns="{namespace}"' if namespace else ""
    declarations = f' xmlns:sm="{namespace or SM}" xmlns:image="{IMAGE}" xmlns:xhtml="{XHTML}"'
    entries = "\n".join(draw(entry()).format(tag=tag) for _ in range(draw(st.integers(1, 4))))
    # an entity of the internal subset (not expanded by the hardened parser) is declared where it is used
    declared = "&e;" in entries or draw(st.booleans())
    doctype = f'<!DOCTYPE {kind} [<!ENTITY e "https://a.example/e">]>\n' if declared else ""
    text = f'<?xml version="1.0" encoding="UTF-8"?>\n{doctype}<{kind}{xmlns}{declarations}>\n{entries}\n</{kind}>\n'
    return text.encode(), ("sitemap" if kind == "urlset" else "sitemapindex")


@pytest.mark.timeout(900)
@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(document())
def test_twins_read_generated_entries_alike(
    compiled: None, monkeypatch: pytest.MonkeyPatch, doc: tuple[bytes, str]
) -> None:
    data, fmt = doc
    both(data, monkeypatch, fmt)


#: Bytes a hostile or broken input holds, put anywhere in a generated document: what the cleaning stream repairs
#: (NUL and other controls, bytes that are not UTF-8, a bare ``&``, references to forbidden characters), what
#: breaks the XML (a stray ``<``, an end of CDATA, a cut), an entity reference that is not expanded, a namespace
#: undeclared, and elements nested past the parser's depth limit.
HOSTILE = st.sampled_from(
    [
        b"\x00",
        b"\x01\x1f",
        b"\xff\xfe",
        b"\xc3",
        b"&",
        b"&#0;",
        b"&#xD800;",
        b"&e;",
        b"&unknown;",
        b"<",
        b"]]>",
        b"<![CDATA[x]]>",
        b"<![CDATA[",
        b'<url xmlns="">',
        b"</url>",
        b"<loc>",
        b"\xef\xbf\xbe",
        b"<a>" * 300,
        b"<x:y>",
        b"\n" * 3,
    ]
)


@st.composite
def hostile(draw: st.DrawFn) -> tuple[bytes, str]:
    """A generated document with hostile bytes put in, or cut short, or both."""
    data, fmt = draw(document())
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.integers(0, len(data)))
        data = data[:where] + draw(HOSTILE) + data[where:]
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return data, fmt


@pytest.mark.timeout(900)
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(hostile())
def test_twins_read_hostile_bytes_alike(
    compiled: None, monkeypatch: pytest.MonkeyPatch, doc: tuple[bytes, str]
) -> None:
    """The compiled loop's hostile-input review (issue 19, round 3): whatever the bytes, both twins read the same
    entries, lines and diagnostics, or fail with the same error."""
    data, fmt = doc
    both(data, monkeypatch, fmt)


# ----------------------------------------------------------------------------- the compiled read loop (19b)

#: Locs and lastmods at the edges of the loop's own checks in C (a yes there only where the pure checks say yes,
#: every other value asked of them): the twins must read each alike, with the same diagnostics.
EDGE_LOCS = [
    "https://a.example/p",
    "HTTPS://A.EXAMPLE/P",
    "https://a.example:8080/p",
    "https://a.example:12345/p",
    "https://a.example:99999/p",
    "https://a.example:/p",
    "https://a.example:80x/p",
    "https://user:pw@a.example/p",
    "https://a.example/p@q",
    "https://[::1]/p",
    "https://[::1/p",
    "https://a]b.example/p",
    "https:///p",
    "https:/a.example/p",
    "https//a.example/p",
    "1https://a.example/p",
    "h+t.t-p://a.example/p",
    "https://a.example",
    "https://a.example?q",
    "https://a.example#f",
    "https://a.example/p?x=[1]",
    "https://a.example/p|q",
    "https://a.example/p^q",
    "https://a.example/p\\q",
    "https://a.example/p`q",
    "https://a.example/p{q}",
    "https://a.example/p\tq",
    "https://a.example/p\u00e9",
    "https://\u00e9.example/p",
    "https://a.example/p\x7fq",
    "https://a.example/" + "x" * 2028,
    "https://a.example/" + "x" * 2029,
    "https://a.example/" + "x" * 2030,
    "mailto:someone@a.example",
]
EDGE_DATES = [
    "2024-02-29",
    "2023-02-29",
    "1900-02-29",
    "2000-02-29",
    "2024-04-31",
    "2024-04-30",
    "0000-01-01",
    "0001-01-01",
    "2024-00-10",
    "2024-12-00",
    "2024-01-01T00:00:00Z",
    "2024-01-01T23:59:59Z",
    "2024-01-01T24:00:00Z",
    "2024-01-01T23:60:00Z",
    "2024-01-01T23:59:60Z",
    "2024-01-01T10:00:00+14:00",
    "2024-01-01T10:00:00-14:00",
    "2024-01-01T10:00:00+14:30",
    "2024-01-01T10:00:00+13:59",
    "2024-01-01T10:00:00+13:60",
    "2024-01-01T10:00:00+15:00",
    "2024-01-01T10:00:00z",
    "2024-01-01t10:00:00Z",
    "2024-01-01T10:00:00.5Z",
    "2024-01-01T10:00Z",
    "2024-01-01T10:00:00",
    "2024-01-01+01:00",
    "2024-1-01",
    "2024-01-01T10:00:00+0100",
    "2024-01-01T1a:00:00Z",
    "\u0662024-01-01",
    "2024",
    "2024-05",
    "0000",
    "2024-13",
    "2024-05-",
    "2024-01-01Z",
    "2024-01-01-05:00",
    "2024-01-01T10:00+14:30",
    "2024-01-01T10:00-05:00",
    "2024-01-01T10:00:00.Z",
    "2024-01-01T10:00:00.123456789+01:00",
    "2024-01-01T10:00:00.1",
    "2024-01-01T10:00:60Z",
    "2024-01-01T10",
]


def _urlset(body: str) -> bytes:
    return f'<?xml version="1.0"?>\n<urlset xmlns="{SM}" xmlns:image="{IMAGE}">\n{body}\n</urlset>\n'.encode()


def test_loop_checks_locs_as_check_loc(compiled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from xml.sax.saxutils import escape

    body = "\n".join(f"<url><loc>{escape(loc)}</loc></url>" for loc in EDGE_LOCS)
    entries, diagnostics = both(_urlset(body), monkeypatch)
    read = {entry.loc for entry, _ in entries}
    assert "https://a.example/p" in read and "HTTPS://A.EXAMPLE/P" in read
    reported = {(diagnostic.code, diagnostic.line) for diagnostic in diagnostics}
    assert ("loc-not-absolute", 3 + EDGE_LOCS.index("https://a.example:99999/p")) in reported
    assert ("loc-too-long", 3 + EDGE_LOCS.index("https://a.example/" + "x" * 2030)) in reported
    assert not {line for _, line in reported} & {3 + EDGE_LOCS.index("https://a.example/" + "x" * 2029)}


def test_loop_checks_lastmods_as_w3cdate(compiled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    body = "\n".join(
        f"<url><loc>https://a.example/{n}</loc><lastmod>{d}</lastmod></url>" for n, d in enumerate(EDGE_DATES)
    )
    entries, diagnostics = both(_urlset(body), monkeypatch)
    dates = {entry.loc: entry.lastmod for entry, _ in entries}
    assert dates["https://a.example/0"] == feedmap.W3CDate("2024-02-29")
    assert dates["https://a.example/15"] == feedmap.W3CDate("2024-01-01T10:00:00+14:00")
    flagged = {diagnostic.line for diagnostic in diagnostics if diagnostic.code.startswith("lastmod")}
    for bad in ("2023-02-29", "2024-04-31", "0000-01-01", "2024-01-01T24:00:00Z", "2024-01-01T10:00:00+14:30"):
        assert 3 + EDGE_DATES.index(bad) in flagged, bad
    assert 3 + EDGE_DATES.index("2024-02-29") not in flagged


#: Documents where the loop frees, skips or stops as iter_elements does: siblings that are no entry (reported
#: when the entry after them is freed), an entry nested in an extension, one in no namespace, entity references
#: between entries, a break of the XML with entries before it and one cut by it.
LOOP_CASES = {
    "siblings": "<url><loc>https://a.example/1</loc></url>\n<other>x</other><more/>\n"
    "<url><loc>https://a.example/2</loc></url>\n<url><loc>https://a.example/3</loc></url>\n<tail/>",
    "first-sibling": "<first/>\n<url><loc>https://a.example/1</loc></url>",
    "nested": '<url><loc>https://a.example/1</loc><ex:box xmlns:ex="urn:ex"><url><loc>https://a.example/in</loc>'
    "</url></ex:box></url>\n<url><loc>https://a.example/2</loc></url>",
    "no-namespace": '<url xmlns=""><loc>https://a.example/1</loc></url>\n<url><loc>https://a.example/2</loc></url>',
    "bad-then-plain": "<url><loc>https://a.example/1</loc><lastmod>2024-13-01</lastmod></url>\n"
    "<url><loc>https://a.example/2</loc></url>",
}


@pytest.mark.parametrize("case", sorted(LOOP_CASES))
def test_loop_frees_and_reports_as_iter_elements(compiled: None, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    entries, diagnostics = both(_urlset(LOOP_CASES[case]), monkeypatch)
    assert entries and all(entry.loc.startswith("https://a.example/") for entry, _ in entries)
    if case in ("siblings", "first-sibling"):
        assert [d.code for d in diagnostics] == ["unknown-element"] * (3 if case == "siblings" else 1)


def test_loop_keeps_what_came_before_a_break(compiled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _urlset("<url><loc>https://a.example/1</loc></url>\n<url><loc>https://a.example/2</loc><lastmod>2024")
    entries, diagnostics = both(data[: data.index(b"2024") + 4], monkeypatch)
    assert [entry.loc for entry, _ in entries] == ["https://a.example/1", "https://a.example/2"]
    assert [d.code for d in diagnostics] == ["xml-not-well-formed", "truncated-entry"]


def test_loop_counts_the_entries_of_a_file(compiled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    body = "\n".join(f"<url><loc>https://a.example/{n}</loc></url>" for n in range(50_001))
    entries, diagnostics = both(_urlset(body), monkeypatch)
    assert len(entries) == 50_001
    assert [d.code for d in diagnostics] == ["too-many-entries"]


def test_entries_past_line_65535_keep_their_lines(compiled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """libxml2 keeps an element's line in 16 bits (65,535 meaning "look elsewhere"): entries and the values
    reported past that line keep their true lines in both twins, whatever the entry's first child (text, an
    element, nothing at all)."""
    lead = "\n" * 65_600  # the first entry at line 65,603
    body = (
        f"{lead}<url><loc>https://a.example/1</loc></url>\n"
        "<url><loc>https://a.example/2</loc>\n<priority>2</priority></url>\n"
        "<url><loc>https://a.example/3</loc><!-- c --></url>\n"
        "<url>\n  <loc>https://a.example/4</loc></url>"  # its line is libxml2's first text node's: the twins agree
    )
    entries, diagnostics = both(_urlset(body), monkeypatch)
    first = 3 + len(lead)
    assert [(entry.loc, origin.line) for entry, origin in entries][:3] == [  # type: ignore[attr-defined]
        ("https://a.example/1", first),
        ("https://a.example/2", first + 1),
        ("https://a.example/3", first + 3),
    ]
    assert len(entries) == 4
    assert [(d.code, d.line) for d in diagnostics] == [("priority-invalid", first + 2)]
    short = both(_urlset("<url><loc>https://a.example/1</loc></url>"), monkeypatch)[0]
    assert [origin.line for _, origin in short] == [3]  # type: ignore[attr-defined]


@pytest.mark.parametrize("pure", [True, False])
def test_loop_yields_each_entry_before_reading_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, pure: bool
) -> None:
    """A later step's diagnostic for an entry comes before what the reader reports while it reads on (a sibling
    freed after the next entry): the loop hands over one entry at a time."""
    if pure:
        monkeypatch.setenv(PURE, "1")
    else:
        monkeypatch.delenv(PURE, raising=False)
    source = tmp_path / "order.xml"
    source.write_bytes(
        _urlset(
            "<url><loc>ftp://a.example/1</loc></url>\n<other>x</other>\n"
            "<url><loc>ftp://a.example/2</loc></url>\n<url><loc>ftp://a.example/3</loc></url>"
        )
    )
    code, _, err = run(capsys, "convert", str(source), "-t", "sitemap", "-o", str(tmp_path / "out.xml"))
    assert code == 0
    lines = [
        line.split(": ")[1] + "@" + line.split(":")[1] for line in err.splitlines() if line.startswith(str(source))
    ]
    assert lines == [
        "warning[non-web-url]@3",
        "warning[non-web-url]@5",
        "warning[unknown-element]@4",
        "warning[non-web-url]@6",
    ]
