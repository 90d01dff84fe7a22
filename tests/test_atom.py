"""The Atom 1.0 writer (``-t atom``, ``-o x.atom``; issue 22, item 3): RFC 4287 feeds the W3C Feed Validator
takes without an error or an avoidable warning, read back with the fields Atom holds, split into a directory as
RSS is, with the feed channel options, the same bytes for the same input.

The validator is the corpus's (``w3c-feedvalidator/src``, run offline as ``test_feed_validator.py`` runs it, which
also converts every corpus input to Atom); here it judges the samples and hostile text.
"""

from __future__ import annotations

import dataclasses
import datetime
import io
import re
from pathlib import Path

import pytest
import test_feed_validator as w3c
from conftest import SITEMAP_NS, codes, run, urlset_xml
from jobsite import SITE
from jobsite import jobs_site as _site
from lxml import etree

import feedmap
from feedmap import Alternate, ChangeFreq, Entry, Image, Options, Reporter, W3CDate

ATOM = "http://www.w3.org/2005/Atom"
A = f"{{{ATOM}}}"
SELF = "https://feeds.example.com/feed.atom"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
offline = w3c.offline  # the validator fetches DTDs and looks up domains: only the loopback is reachable


def atom(entries: list[Entry], options: Options | None = None) -> tuple[bytes, Reporter]:
    """``entries`` written as Atom, and what was said."""
    sink, reporter = io.BytesIO(), Reporter()
    feedmap.write(entries, sink, "atom", options or Options(self_url=SELF), reporter=reporter)
    return sink.getvalue(), reporter


def read_back(data: bytes) -> list[Entry]:
    with feedmap.read(io.BytesIO(data), reporter=Reporter()) as doc:
        return list(doc)


def events(corpus: Path, data: bytes, base: str = SELF) -> list[str]:
    """The validator's errors and warnings of ``data`` (their class names)."""
    oracle = w3c.Oracle(*w3c._validator(corpus))
    return [type(event).__name__ for event in oracle.events(data, base)]


#: Entries with every field Atom holds, and text an XML or HTML reader could mistake.
HOSTILE = [
    Entry(
        loc="https://www.example.com/a?x=1&y=2",
        lastmod=W3CDate("2024-01-02"),
        changefreq=ChangeFreq.DAILY,
        priority=0.8,
        title='Fish & <chips> &lang; ]]> "quoted"',
        description="<p>Hello <b>world</b></p><script>alert(1)</script> Paws&Toebeans",
        keywords=("shoes", "red & blue", "<tag>"),
        images=(Image(loc="https://www.example.com/i.png", caption="A <caption> & more", title="T"),),
        alternates=(
            Alternate(hreflang="de", href="https://www.example.com/de/a"),
            Alternate(hreflang="x-default", href="https://www.example.com/a"),
        ),
    ),
    Entry(loc="https://www.example.com/b", lastmod=W3CDate("2024-03-05T10:30:00+01:00"), title="Plain"),
    Entry(loc="https://www.example.com/c", lastmod=W3CDate("2023"), description="Only a description"),
    Entry(loc="https://www.example.com/d", lastmod=W3CDate("2024-04-01T08:15:30.25Z")),
    Entry(loc="https://www.example.com/caf%C3%A9/%7Euser", lastmod=W3CDate("2024-02-01T10:00Z")),
    # blank text: an empty title or summary is the validator's NotBlank; the URL stands in (read back as none)
    Entry(loc="https://www.example.com/e", lastmod=W3CDate("2024-02-02"), title=" ", description="<script></script>"),
]


# ------------------------------------------------------------------------------ the W3C Feed Validator


@pytest.mark.usefixtures("offline")
def test_the_samples_written_as_atom_have_no_error_and_no_avoidable_warning(
    corpus_dir: Path, samples_dir: Path
) -> None:
    """Every sample feedmap reads, written as Atom: the validator says nothing but UnknownNamespace for the
    namespaces the input uses (the sitemap fields and Google images: data only those namespaces hold), and
    DuplicateUpdated where the input has two entries of one date (test_feed_validator.py says when)."""
    written = 0
    for source in sorted(samples_dir.glob("*/*")):
        if ".expected." in source.name or ".options." in source.name or not source.is_file():
            continue
        sink = io.BytesIO()
        try:
            feedmap.convert(str(source), sink, "atom", Options(self_url=SELF, follow=False), reporter=Reporter())
        except feedmap.FeedmapError:
            continue  # not an input feedmap converts (a page of the sample site)
        written += 1
        found = events(corpus_dir, sink.getvalue())
        allowed = {"UnknownNamespace", *(["DuplicateUpdated"] if w3c._updated_shared(source) else [])}
        assert set(found) <= allowed, (source.name, found)
    assert written >= 6


@pytest.mark.usefixtures("offline")
def test_hostile_text_gives_a_valid_feed_that_reads_back(corpus_dir: Path) -> None:
    data, reporter = atom(HOSTILE)
    etree.fromstring(data)  # well-formed
    assert events(corpus_dir, data) == ["UnknownNamespace", "UnknownNamespace"]  # sitemap fields, images
    assert "html-sanitized" in codes(reporter.diagnostics)
    back = read_back(data)
    assert back[0].title == 'Fish & <chips> &lang; ]]> "quoted"'
    assert back[0].keywords == ("shoes", "red & blue", "<tag>")
    assert back[0].images[0].caption == "A <caption> & more"
    assert "<script>" not in (back[0].description or "") and "Hello <b>world</b>" in (back[0].description or "")


@pytest.mark.usefixtures("offline")
def test_an_atom_feed_without_a_self_url_misses_only_the_self_link(corpus_dir: Path) -> None:
    """Without ``self_url`` the feed's id is the channel link; the validator asks for a self link (a warning, as it
    does of RSS): give ``--self-url``."""
    data, _ = atom([Entry(loc="https://www.example.com/a", lastmod=W3CDate("2024-01-02T00:00:00Z"))], Options())
    assert events(corpus_dir, data, "") == ["MissingSelf"]
    assert etree.fromstring(data).findtext(f"{A}id") == "https://www.example.com/"


# ------------------------------------------------------------------------------ what an entry holds


def test_each_field_atom_holds_reads_back() -> None:
    data, reporter = atom(HOSTILE)
    back = read_back(data)
    assert [entry.loc for entry in back] == [entry.loc for entry in HOSTILE]
    assert [entry.lastmod for entry in back] == [entry.lastmod for entry in HOSTILE]  # exact, date-only included
    first = back[0]
    assert (first.changefreq, first.priority) == (ChangeFreq.DAILY, 0.8)
    assert first.alternates == HOSTILE[0].alternates
    assert first.images == HOSTILE[0].images
    assert [entry.title for entry in back[1:]] == ["Plain", None, None, None, None]  # untitled stays untitled
    assert [entry.description for entry in back[1:]] == [None, "Only a description", None, None, None]
    assert reporter.diagnostics == [] or set(codes(reporter.diagnostics)) <= {"html-sanitized", "ampersand-escaped"}


def test_the_entry_holds_id_title_link_updated_and_summary_in_atoms_elements() -> None:
    data, _ = atom(HOSTILE[1:2])
    entry = etree.fromstring(data).find(f"{A}entry")
    assert entry is not None
    assert entry.findtext(f"{A}id") == "https://www.example.com/b"
    assert entry.findtext(f"{A}title") == "Plain"
    assert [(link.get("rel"), link.get("href")) for link in entry.iter(f"{A}link")] == [
        ("alternate", "https://www.example.com/b")
    ]
    assert entry.findtext(f"{A}updated") == "2024-03-05T10:30:00+01:00"
    assert entry.findtext(f"{A}summary") == "https://www.example.com/b"  # textual content: reads back as none


@pytest.mark.parametrize(
    ("lastmod", "updated", "dc_date"),
    [
        ("2024-01-02", "2024-01-02T00:00:00Z", "2024-01-02"),
        ("2024-01", "2024-01-01T00:00:00Z", "2024-01"),
        ("2023", "2023-01-01T00:00:00Z", "2023"),
        ("2024-01-02T10:30+02:00", "2024-01-02T10:30:00+02:00", "2024-01-02T10:30+02:00"),
        ("2024-01-02T10:30:00.123-05:00", "2024-01-02T10:30:00.123-05:00", None),
        ("2024-01-02T10:30:00Z", "2024-01-02T10:30:00Z", None),
    ],
)
def test_a_lastmod_is_an_rfc3339_updated_and_kept_exactly_in_dc_date_when_coarser(
    lastmod: str, updated: str, dc_date: str | None
) -> None:
    data, reporter = atom([Entry(loc="https://e.example/a", lastmod=W3CDate(lastmod))])
    entry = etree.fromstring(data).find(f"{A}entry")
    assert entry is not None
    assert entry.findtext(f"{A}updated") == updated
    assert entry.findtext("{http://purl.org/dc/elements/1.1/}date") == dc_date
    assert read_back(data)[0].lastmod == W3CDate(lastmod)
    assert "lastmod-as-rfc3339" not in codes(reporter.diagnostics)


@pytest.mark.parametrize(
    ("lastmod", "updated"),
    [("2024-01-02T10:30:00", "2024-01-02T10:30:00Z"), ("2024-01-02+02:00", "2024-01-02T00:00:00+02:00")],
)
def test_an_xsd_lastmod_w3c_datetime_refuses_is_written_as_its_instant_and_said(lastmod: str, updated: str) -> None:
    """A time without zone (read as UTC everywhere in feedmap) or a date with one: no W3C Datetime for dc:date, so
    the RFC 3339 form is what reads back, said once (INFO ``lastmod-as-rfc3339``)."""
    data, reporter = atom([Entry(loc="https://e.example/a", lastmod=W3CDate(lastmod))])
    assert read_back(data)[0].lastmod == W3CDate(updated)
    assert codes(reporter.diagnostics).count("lastmod-as-rfc3339") == 1


def test_ids_are_in_the_normal_form_rfc_4287_asks_for_links_as_written() -> None:
    data, _ = atom([Entry(loc="HTTP://Www.Example.COM:80/a/./b/../c?q=%7e#f", lastmod=W3CDate("2024-01-02"))])
    entry = etree.fromstring(data).find(f"{A}entry")
    assert entry is not None
    assert entry.findtext(f"{A}id") == "http://www.example.com/a/c?q=~#f"
    assert entry.find(f"{A}link").get("href") == "HTTP://Www.Example.COM:80/a/./b/../c?q=%7e#f"  # type: ignore[union-attr]


def test_a_repeated_hreflang_is_left_out_and_said() -> None:
    alternates = (
        Alternate(hreflang="de", href="https://e.example/de"),
        Alternate(hreflang="de", href="https://e.example/de-2"),
        Alternate(hreflang=" ", href="https://e.example/blank"),
    )
    data, reporter = atom([Entry(loc="https://e.example/", lastmod=W3CDate("2024-01-02"), alternates=alternates)])
    assert codes(reporter.diagnostics).count("alternate-repeated") == 2
    assert read_back(data)[0].alternates == alternates[:1]


def test_markup_in_a_title_is_written_as_its_text() -> None:
    data, reporter = atom([Entry(loc="https://e.example/", lastmod=W3CDate("2024-01-02"), title="A <b>bold</b> move")])
    assert read_back(data)[0].title == "A bold move"
    assert "markup-in-text" in codes(reporter.diagnostics)


def test_type_and_text_extras_have_no_place_in_atom() -> None:
    entry = Entry(loc="https://e.example/", lastmod=W3CDate("2024-01-02"), type="Product", extras={"ror:about": "x"})
    data, reporter = atom([entry])
    said = [d.message for d in reporter.diagnostics if d.code == "field-dropped"]
    assert any("type" in message for message in said) and any("ror:about" in message for message in said)
    assert b"Product" not in data


def test_foreign_xml_extras_are_written_as_they_are() -> None:
    extra = '<x:thing xmlns:x="urn:example:x" kind="a"><x:title>T</x:title></x:thing>'
    data, _ = atom(
        [Entry(loc="https://e.example/", lastmod=W3CDate("2024-01-02"), extras={"{urn:example:x}thing": extra})]
    )
    assert read_back(data)[0].extras == {"{urn:example:x}thing": extra}


# ------------------------------------------------------------------------------ the feed


def test_the_feed_takes_the_channel_options() -> None:
    options = Options(
        channel_title="News & more",
        channel_link="https://www.example.com/news/",
        channel_description="All the <news>",
        self_url=SELF,
        channel_author="Example Press",
        channel_updated="2025-06-01T12:00:00Z",
    )
    data, _ = atom(HOSTILE[1:2], options)
    feed = etree.fromstring(data)
    assert feed.findtext(f"{A}id") == SELF
    assert feed.findtext(f"{A}title") == "News & more"
    assert feed.findtext(f"{A}subtitle") == "All the <news>"
    assert feed.findtext(f"{A}author/{A}name") == "Example Press"
    assert feed.findtext(f"{A}updated") == "2025-06-01T12:00:00Z"
    links = {link.get("rel"): link.get("href") for link in feed.findall(f"{A}link")}
    assert links == {"alternate": "https://www.example.com/news/", "self": SELF}
    with feedmap.read(io.BytesIO(data)) as doc:
        assert (doc.meta.title, doc.meta.link, doc.meta.description) == (
            "News & more",
            "https://www.example.com/news/",
            "All the <news>",
        )


def test_without_options_the_feed_is_named_after_the_site_and_dated_by_its_newest_lastmod() -> None:
    data, _ = atom(HOSTILE, Options())
    feed = etree.fromstring(data)
    assert feed.findtext(f"{A}title") == "Pages of https://www.example.com/"
    assert feed.findtext(f"{A}author/{A}name") == "www.example.com"
    assert feed.findtext(f"{A}updated") == "2024-04-01T08:15:30.25Z"  # the newest of the lastmods
    assert feed.find(f"{A}subtitle") is None


def test_entries_without_a_lastmod_have_the_feeds_updated_said_once() -> None:
    entries = [Entry(loc="https://e.example/a", lastmod=W3CDate("2024-05-01")), Entry(loc="https://e.example/b")]
    data, reporter = atom(entries)
    assert [entry.findtext(f"{A}updated") for entry in etree.fromstring(data).iter(f"{A}entry")] == [
        "2024-05-01T00:00:00Z",
        "2024-05-01T00:00:00Z",
    ]
    assert [d.message.split(" (")[0] for d in reporter.diagnostics if d.code == "updated-assumed"] == [
        "1 entry without a lastmod"
    ]


def test_a_feed_without_any_date_is_dated_by_the_run_unless_updated_is_given() -> None:
    entries = [Entry(loc="https://e.example/a"), Entry(loc="https://e.example/b")]
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    data, reporter = atom(entries)
    after = datetime.datetime.now(datetime.timezone.utc)
    updated = datetime.datetime.fromisoformat(etree.fromstring(data).findtext(f"{A}updated").replace("Z", "+00:00"))  # type: ignore[union-attr]
    assert before <= updated <= after
    assert codes(reporter.diagnostics).count("updated-assumed") == 2  # the feed's, and the entries'
    given = Options(self_url=SELF, channel_updated="2020-02-02")
    assert atom(entries, given)[0] == atom(entries, given)[0]
    assert b"<updated>2020-02-02T00:00:00Z</updated>" in atom(entries, given)[0]


def test_the_same_input_gives_the_same_bytes(tmp_path: Path, samples_dir: Path) -> None:
    outputs = []
    for name in ("one.atom", "two.atom"):
        feedmap.convert(str(samples_dir / "sitemap" / "basic.xml"), tmp_path / name, "atom", Options(self_url=SELF))
        outputs.append((tmp_path / name).read_bytes())
    assert outputs[0] == outputs[1]


def test_an_empty_document_is_a_valid_feed_said_empty() -> None:
    data, reporter = atom([], Options(self_url=SELF, channel_link="https://e.example/", channel_updated="2024-01-01"))
    assert etree.fromstring(data).find(f"{A}entry") is None
    assert "empty-document" in codes(reporter.diagnostics)


def test_rss_takes_updated_and_says_it_has_no_place_for_the_author() -> None:
    sink, reporter = io.BytesIO(), Reporter()
    options = Options(channel_updated="2025-06-01T12:00:00Z", channel_author="Example Press")
    feedmap.write([Entry(loc="https://e.example/a")], sink, "rss", options, reporter=reporter)
    assert b"<lastBuildDate>Sun, 01 Jun 2025 12:00:00 GMT</lastBuildDate>" in sink.getvalue()
    assert b"Example Press" not in sink.getvalue()
    assert any("author" in d.message for d in reporter.diagnostics if d.code == "field-dropped")


# ------------------------------------------------------------------------------ the command line, split, jobs


def test_dot_atom_names_the_format_and_atom_reads_as_any_feed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.xml"
    source.write_bytes(urlset_xml("https://www.example.com/a", "https://www.example.com/b"))
    code, _, err = run(capsys, "convert", source, "-o", tmp_path / "feed.atom", "--updated", "2024-01-01")
    assert code == 0 and "(atom)" in err
    assert etree.QName(etree.fromstring((tmp_path / "feed.atom").read_bytes())).localname == "feed"
    code, out, _ = run(capsys, "convert", tmp_path / "feed.atom", "-f", "atom", "-t", "text")
    assert (code, out.split()) == (0, ["https://www.example.com/a", "https://www.example.com/b"])
    with feedmap.read(tmp_path / "feed.atom", format="application/atom+xml") as doc:
        assert doc.format == "atom" and len(list(doc)) == 2


def test_split_into_a_directory_writes_numbered_feeds_each_with_its_own_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], samples_dir: Path
) -> None:
    out = tmp_path / "out"
    argv = ["convert", samples_dir / "sitemap" / "basic.xml", "-t", "atom", "-o", f"{out}/"]
    code, _, err = run(capsys, *argv, "--base-url", "https://feeds.example.com/f/")
    assert code == 2 and "--max-urls" in err  # a feed into a directory says how many entries a file holds
    code, _, _ = run(capsys, *argv, "--base-url", "https://feeds.example.com/f/", "--max-urls", "3")
    assert code == 0
    assert sorted(path.name for path in out.iterdir()) == ["atom-1.xml", "atom-2.xml", "sitemap_index.xml"]
    locs: list[str] = []
    for name in ("atom-1.xml", "atom-2.xml"):
        feed = etree.fromstring((out / name).read_bytes())
        own = f"https://feeds.example.com/f/{name}"
        assert feed.findtext(f"{A}id") == own
        assert [link.get("href") for link in feed.findall(f"{A}link") if link.get("rel") == "self"] == [own]
        locs += [entry.loc for entry in read_back((out / name).read_bytes())]
    with feedmap.read(samples_dir / "sitemap" / "basic.xml") as doc:
        assert locs == [entry.loc for entry in doc]
    index = (out / "sitemap_index.xml").read_text()
    assert index.count("<loc>https://feeds.example.com/f/atom-") == 2


def test_workers_write_the_same_feed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "site"
    _site(site, count=40)
    argv = [site / "index.xml", "--map", f"{SITE}={site}", "-t", "atom", "--updated", "2024-01-01"]
    one = run(capsys, "convert", *argv, "--jobs", "1")
    two = run(capsys, "convert", *argv, "--jobs", "2")
    assert one == two and one[1].startswith("<?xml")


def test_the_rendered_entries_go_to_a_temporary_file_past_their_memory_share(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The feed's updated comes before the entries: they are held in a spooled file; past its memory share it is on
    disk, and the feed is the same."""
    entries = [Entry(loc=f"https://e.example/{n}", lastmod=W3CDate(f"2024-01-{1 + n % 28:02d}")) for n in range(300)]
    entries.append(Entry(loc="https://e.example/undated"))
    held = atom(entries)[0]
    monkeypatch.setattr("feedmap.formats.feeds._atomwrite._IN_MEMORY", 100)
    monkeypatch.setattr("feedmap.formats._output.BATCH_CHARACTERS", 1000)
    assert atom(entries)[0] == held
    assert feedmap.split(entries, tmp_path / "s", "atom", Options(base_url=SITE, max_urls=100)).entries == 301


# ------------------------------------------------------------------------------ reading Atom


def _feed(entry: str) -> bytes:
    head = f'<feed xmlns="{ATOM}"><title>t</title><id>urn:x</id><updated>2024-01-01T00:00:00Z</updated>'
    return f"{head}{entry}</feed>".encode()


def test_an_entry_whose_only_link_names_a_language_keeps_it_as_its_loc() -> None:
    """As before the Atom writer: an entry without a plain alternate link has its loc among those with hreflang,
    and no hreflang alternates (they would say the page is a translation of itself)."""
    back = read_back(_feed('<entry><link rel="alternate" hreflang="en" href="https://e.example/en"/></entry>'))
    assert [(entry.loc, entry.alternates) for entry in back] == [("https://e.example/en", ())]


def test_an_entry_with_a_plain_link_has_its_hreflang_links_as_alternates_in_any_order() -> None:
    entry = (
        '<entry><link href="https://e.example/a"/><link rel="alternate" hreflang="fr" href="https://e.example/fr"/>'
        "<summary>https://e.example/a</summary></entry>"
    )
    (back,) = read_back(_feed(entry))
    assert back.loc == "https://e.example/a"
    assert back.alternates == (Alternate(hreflang="fr", href="https://e.example/fr"),)
    assert back.description is None  # a summary that is the entry's URL is what a writer put for want of one


def test_converting_a_feed_to_atom_keeps_its_channel_and_its_items(samples_dir: Path) -> None:
    sink = io.BytesIO()
    feedmap.convert(str(samples_dir / "rss" / "feed.xml"), sink, "atom", reporter=Reporter())
    with feedmap.read(io.BytesIO(sink.getvalue())) as doc:
        entries = list(doc)
        assert (doc.meta.title, doc.meta.link, doc.meta.description) == (
            "Example News",
            "https://www.example.com/news/",
            "News from example.com",
        )
    with feedmap.read(samples_dir / "rss" / "feed.xml", options=Options(dedupe="newest")) as doc:
        expected = [dataclasses.replace(entry, origin=None) for entry in doc]
    assert [dataclasses.replace(entry, origin=None) for entry in entries] == expected
    assert re.search(rb"<title>Spring sale &#x26; more</title>", sink.getvalue())


def test_a_sitemap_namespace_prefix_on_an_atom_entry_reads_as_written() -> None:
    """What the atom writer writes of a sitemap's fields, read by namespace whatever the prefix."""
    entry = (
        f'<entry xmlns:s="{SITEMAP_NS}" xmlns:g="{IMAGE_NS}"><link href="https://e.example/a"/>'
        "<s:changefreq>weekly</s:changefreq><s:priority>0.4</s:priority>"
        "<g:image><g:loc>https://e.example/i.png</g:loc></g:image></entry>"
    )
    (back,) = read_back(_feed(entry))
    assert (back.changefreq, back.priority, back.images) == (
        ChangeFreq.WEEKLY,
        0.4,
        (Image(loc="https://e.example/i.png"),),
    )
