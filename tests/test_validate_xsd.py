"""feedmap validate against the sitemaps.org 0.9 XSDs (from the external corpus) as the oracle.

Generated sitemaps and indexes, valid and invalid: every document the XSD rejects gets at least one error,
except the documented differences (an empty urlset is a warning: search engines read it; W3C Datetime forms the
XSD rejects are warnings, and so is a namespace variant readers accept); an XSD-valid document gets no error,
except the protocol's rules the XSD cannot say (a loc must be an absolute http(s) URL, escaped, shorter than
2,048 characters; a lastmod must be a W3C Datetime, narrower than xsd:date and xsd:dateTime: no hour 24, no
year of five digits or below zero).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import feedmap

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
#: Errors for XSD-valid documents: protocol rules beyond the XSD.
PROTOCOL_ONLY = {"loc-not-absolute", "loc-not-escaped", "loc-too-long", "lastmod-invalid"}
#: Warnings (not errors) for XSD-invalid documents: the documented differences.
XSD_ONLY = {"urlset-empty", "lastmod-not-xsd", "namespace-variant"}

LOCS = [
    "https://example.com/a",
    "https://example.com/b?x=1&amp;y=2",
    "http://example.com:8080/c",
    "/relative/page.html",
    "https://example.com/a b",
    "http://a.io",
    "",
    "https://example.com/" + "x" * 2040,
    "https://example.com/%zz",
    "  https://example.com/padded  ",
    "mailto:someone@example.com",
    "https://example.com/\u00fc",
    'https://example.com/"q"',
]
LASTMODS = [
    "2024-06-01",
    "2024-06-01T10:11:12Z",
    "2024-06-01T10:11:12.5+02:00",
    "2024-06-01T10:11:12",
    "2024-06-01+01:00",
    "2024",
    "2024-06",
    "2024-06-01T10:11Z",
    "2024-13-01",
    "yesterday",
    " 2024-06-01 ",
    "2024-06-01Z",
    "2024-06-01T24:00:00Z",
    "12024-06-01",
    "2024-06-01T10:30:00+14:30",
]
CHANGEFREQS = ["daily", "never", "Daily", " weekly", "weekly ", "sometimes", ""]
PRIORITIES = ["0.5", "1", "0", ".3", "1.0", "1.5", "-0.1", "high", "1e-1", " 0.8 ", "+0.3", "-0.0", "1.", "0,5"]
PRIORITIES += ["1.00000000000000000001", "0.99999999999999999999999", ""]
#: The root's namespace: the right one mostly, none, another, or a variant readers accept (a warning).
NAMESPACES = [NS] * 8 + [
    "",
    "urn:other",
    "http://www.google.com/schemas/sitemap/0.84",
    "https://www.sitemaps.org/schemas/sitemap/0.9",
]


@pytest.fixture(scope="module")
def schemas(corpus_dir: Path) -> dict[str, etree.XMLSchema]:
    folder = corpus_dir / "xsd"
    paths = {"urlset": folder / "sitemap-0.9.xsd", "sitemapindex": folder / "siteindex-0.9.xsd"}
    if not all(path.is_file() for path in paths.values()):
        pytest.skip("sitemaps.org XSD not found in the corpus")
    return {root: etree.XMLSchema(etree.parse(str(path))) for root, path in paths.items()}


@st.composite
def entry(draw: st.DrawFn, kind: str) -> str:
    names = ["loc", "lastmod"] + (["changefreq", "priority"] if kind == "url" else [])
    values = {"loc": LOCS, "lastmod": LASTMODS, "changefreq": CHANGEFREQS, "priority": PRIORITIES}
    fields = [name for name in names if (name == "loc" and draw(st.integers(0, 9))) or draw(st.booleans())]
    if draw(st.integers(0, 2)) == 0:
        fields = draw(st.permutations(fields))
    if draw(st.integers(0, 19)) == 0:
        fields.append(draw(st.sampled_from([*names, "title"])))  # repeated, or unknown
    body = "".join(f"<{name}>{draw(st.sampled_from(values.get(name, ['x'])))}</{name}>" for name in fields)
    return f"<{kind}>{body}</{kind}>"


@st.composite
def document(draw: st.DrawFn) -> tuple[str, bytes]:
    root = draw(st.sampled_from(["urlset", "sitemapindex"]))
    kind = "url" if root == "urlset" else "sitemap"
    entries = draw(st.lists(entry(kind), min_size=0, max_size=4))
    namespace = draw(st.sampled_from(NAMESPACES))
    xmlns = f' xmlns="{namespace}"' if namespace else ""
    return root, f'<?xml version="1.0"?>\n<{root}{xmlns}>\n{"".join(entries)}\n</{root}>\n'.encode()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=document())
def test_errors_agree_with_the_xsd(schemas: dict[str, etree.XMLSchema], case: tuple[str, bytes]) -> None:
    root, data = case
    valid = schemas[root].validate(etree.parse(io.BytesIO(data)))
    report = feedmap.validate(io.BytesIO(data), options=feedmap.Options(follow=False))
    errors = {f.code for f in report.findings if f.level == feedmap.Level.ERROR}
    warnings = {f.code for f in report.findings if f.level == feedmap.Level.WARNING}
    if valid:
        assert errors <= PROTOCOL_ONLY, (data, errors)
    else:
        assert errors or warnings & XSD_ONLY, (data, schemas[root].error_log)
