"""The fast paths of the shared read path give what the general path gives (issue 19: speed never drops a check).

* The hardened iterparse (``iter_elements``) walks up from a wanted element only when its parent is not one
  it already knows to lie outside every wanted element: items of one channel, items in two channels, items
  in a wrapper, and wanted elements nested inside a wanted one (kept whole, never entries of their own) are
  read as before; a document that breaks off still keeps the entry it cut, with the same diagnostics.
* ROR items: what each child's tag says (its local name, the field it fills, the reader of its namespace) is
  worked out once per tag; a field given twice, a field holding markup and children no reader takes read as
  before, whatever order the tags first appear in.
* ``priority``: the usual forms (``0``, ``1``, ``0.5``, ``0.25``) are read without a Decimal; every value reads
  as the ``xsd:decimal`` it is (sitemaps.org 0.9), with the same notes, in a sitemap and in a ROR feed.
"""

from __future__ import annotations

import io
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Diagnostic, Entry, Reporter

ROR = "http://rorweb.com/0.1/"
SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
HEADER = (
    "<item><title>ROR Sitemap</title><link>https://www.example.com/</link>"
    "<ror:about>sitemap</ror:about><ror:type>SiteMap</ror:type></item>"
)


def ror_doc(channels: str) -> bytes:
    """A ROR document whose ``<rss>`` holds ``channels`` (each a whole ``<channel>``, or anything else)."""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:ror="{ROR}" xmlns:sitemap="{SM}" '
        f'xmlns:image="{IMAGE}" xmlns:x="urn:x">\n{channels}\n</rss>\n'
    ).encode()


def channel(items: str) -> str:
    return f"<channel><title>t</title><link>https://www.example.com/</link><description>d</description>\n{items}\n</channel>"


def item(path: str, more: str = "") -> str:
    return f"<item><link>https://www.example.com/{path}</link>{more}</item>"


def read(data: bytes, format: str | None = "ror") -> tuple[list[Entry], list[Diagnostic]]:
    reporter = Reporter()
    with feedmap.read(io.BytesIO(data), format=format, reporter=reporter) as doc:
        entries = list(doc)
    return entries, reporter.diagnostics


def locs(entries: list[Entry]) -> list[str]:
    return [entry.loc.rsplit("/", 1)[1] for entry in entries]


def seen(diagnostics: list[Diagnostic]) -> list[tuple[str, int]]:
    return [(diagnostic.code, diagnostic.line) for diagnostic in diagnostics]


# ------------------------------------------------------------------------------------ the nested-wanted check


def test_items_of_one_channel_and_of_a_second_channel_are_all_read() -> None:
    data = ror_doc(channel(HEADER + item("a") + item("b")) + channel(item("c") + item("d")))
    entries, _ = read(data)
    assert locs(entries) == ["a", "b", "c", "d"]


def test_items_in_a_wrapper_between_items_of_the_channel_are_read_in_order() -> None:
    data = ror_doc(channel(HEADER + item("a") + "<x:group>" + item("b") + item("c") + "</x:group>" + item("d")))
    entries, _ = read(data)
    assert locs(entries) == ["a", "b", "c", "d"]


def test_items_nested_in_an_item_stay_part_of_it_however_many_share_their_parent() -> None:
    """The first nested item must not make its parent known as outside every item: the second would be
    read as an entry of its own."""
    nested = "<x:more>" + item("inner1") + item("inner2") + "</x:more>"
    data = ror_doc(
        channel(HEADER + item("a", nested) + item("b") + item("c", "<x:more>" + item("inner3") + "</x:more>"))
    )
    entries, _ = read(data)
    assert locs(entries) == ["a", "b", "c"]
    assert all("inner" in "".join(entry.extras.values()) for entry in (entries[0], entries[2]))


def test_a_sitemap_url_nested_in_an_unknown_element_then_at_the_top_is_read_with_the_same_reports() -> None:
    data = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}">\n'
        "<url><loc>https://www.example.com/a</loc></url>\n"
        "<group>\n<url><loc>https://www.example.com/b</loc></url>\n<url><loc>https://www.example.com/c</loc></url>\n"
        "</group>\n<url><loc>https://www.example.com/d</loc></url>\n</urlset>\n"
    ).encode()
    entries, diagnostics = read(data, format=None)
    assert locs(entries) == ["a", "b", "c", "d"]
    assert [code for code, _ in seen(diagnostics)].count("unknown-element") == 1  # <group>, once


def test_a_feed_that_breaks_off_in_an_item_keeps_it_with_its_complete_fields() -> None:
    whole = ror_doc(channel(HEADER + item("a") + item("b", "<ror:updated>2024-01-02</ror:updated>")))
    cut = whole[: whole.index(b"</ror:updated>") + len(b"</ror:updated>")] + b"\n<ror:keywords>x"
    entries, diagnostics = read(cut)
    assert locs(entries) == ["a", "b"]
    assert str(entries[1].lastmod) == "2024-01-02"
    codes = [code for code, _ in seen(diagnostics)]
    assert codes.count("xml-not-well-formed") == 1
    assert codes.count("truncated-entry") == 1


# ------------------------------------------------------------------------------------- facts per tag, per item


def test_a_field_twice_markup_and_unread_children_read_alike_in_every_item() -> None:
    """The same tags in the second and third items (their facts then known) give what the first gave."""
    children = (
        "<ror:updated>2024-01-02</ror:updated><ror:updated>2025-01-01</ror:updated>"
        "<title>T<x:b>old</x:b></title><x:note>kept</x:note><category>k</category><category>l</category>"
    )
    data = ror_doc(channel(HEADER + item("a", children) + item("b", children) + item("c", children)))
    entries, diagnostics = read(data)
    assert locs(entries) == ["a", "b", "c"]
    shapes = {(str(e.lastmod), e.title, e.keywords, tuple(e.extras.items())) for e in entries}
    assert len(shapes) == 1
    lastmod, title, keywords, extras = shapes.pop()
    assert (lastmod, title, keywords) == ("2024-01-02", None, ("k", "l"))
    assert any("kept" in value for _, value in extras)
    by_code: dict[str, int] = {}
    for code, _line in seen(diagnostics):
        by_code[code] = by_code.get(code, 0) + 1
    assert by_code["element-repeated"] == 3
    assert by_code.get("unknown-element", 0) == 3  # the <x:b> inside each title


# ---------------------------------------------------------------------------------------------- the priority

_PLAIN = st.one_of(
    st.sampled_from(["0", "1", "0.0", "1.0", "0.00", "1.00"]),
    st.integers(0, 10).map(lambda tenths: f"{tenths / 10:.1f}"),
    st.integers(0, 100).map(lambda hundredths: f"{hundredths / 100:.2f}"),
)
_ANY = st.one_of(
    _PLAIN,
    st.from_regex(r"\A[+-]?(?:[0-9]{1,3}(?:\.[0-9]{0,22})?|\.[0-9]{1,22})\Z"),
    st.sampled_from(["1e-1", "0_5", "inf", "", ".", "+.5", "00.5", "0.", "-0", "-0.0", "1.5", "\u0660.\u0665"]),
)


def _expected(written: str) -> tuple[float | None, str | None]:
    """The priority ``written`` reads as, and the code of the note read with it (xsd:decimal, 0.0-1.0)."""
    import re

    if re.fullmatch(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", written) is None:
        return None, "priority-invalid"
    exact = Decimal(written)
    if not Decimal(0) <= exact <= Decimal(1):
        return None, "priority-invalid"
    number = abs(float(exact))
    if Decimal(repr(number)) != exact or re.match(r"[-+.]|0[0-9]|.*\.$", written) is not None:
        return number, "priority-normalised"
    return number, None


def _priority_codes(diagnostics: list[Diagnostic]) -> list[str]:
    return [d.code for d in diagnostics if d.code.startswith("priority")]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(written=_ANY, blanks=st.sampled_from(["", " ", "\n\t"]))
def test_a_priority_reads_as_its_decimal_with_the_same_note_in_a_sitemap_and_a_feed(written: str, blanks: str) -> None:
    value, code = _expected(written)
    sitemap = (
        f'<?xml version="1.0"?>\n<urlset xmlns="{SM}"><url><loc>https://www.example.com/a</loc>'
        f"<priority>{blanks}{written}{blanks}</priority></url></urlset>\n"
    ).encode()
    feed = ror_doc(channel(HEADER + item("a", f"<sitemap:priority>{blanks}{written}{blanks}</sitemap:priority>")))
    for data, format in ((sitemap, None), (feed, "ror")):
        entries, diagnostics = read(data, format)
        assert [entry.priority for entry in entries] == [value]
        assert _priority_codes(diagnostics) == ([code] if code else [])


def test_every_plain_priority_is_read_exactly_and_silently() -> None:
    plain = ["0", "1"] + [f"{n / 10:.1f}" for n in range(11)] + [f"{n / 100:.2f}" for n in range(101)]
    feed = ror_doc(
        channel(
            HEADER + "".join(item(str(i), f"<sitemap:priority>{p}</sitemap:priority>") for i, p in enumerate(plain))
        )
    )
    entries, diagnostics = read(feed)
    assert [entry.priority for entry in entries] == [float(p) for p in plain]
    assert _priority_codes(diagnostics) == []
