"""The RSS 2.0 / ROR rules of ``feedmap validate`` (feedmap.formats.feeds._channel_checks): each rule with a
failing and a
passing input, the line it names, well-formedness, the ROR namespace, duplicate guids past the spill."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

import feedmap._io.seen_keys
from feedmap import Diagnostic
from feedmap.cli import main
from feedmap.formats.feeds._channel_checks import validate_feed

ATOM = 'xmlns:atom="http://www.w3.org/2005/Atom"'
ROR = 'xmlns:ror="http://rorweb.com/0.1/"'
SELF = '<atom:link rel="self" href="https://example.com/feed.xml" type="application/rss+xml"/>'
CHANNEL = "<title>T</title><link>https://example.com/</link><description>D</description>" + SELF
ITEM = "<title>A page</title><link>https://example.com/a</link>"


def rule_table() -> dict[str, dict[str, str | None]]:
    """code -> its rule (level, repaired, summary, spec), as ``feedmap codes --json`` prints the one table."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["codes", "--json"]) == 0
    return {entry["code"]: entry for entry in json.loads(out.getvalue())}


TABLE = rule_table()


def feed(items: str = f"<item>{ITEM}</item>", channel: str = CHANNEL, root: str = f'version="2.0" {ATOM} {ROR}') -> str:
    return f'<?xml version="1.0" encoding="utf-8"?>\n<rss {root}><channel>{channel}\n{items}\n</channel></rss>\n'


def check(text: str, base_url: str | None = None) -> tuple[list[Diagnostic], int]:
    found: list[Diagnostic] = []
    count = validate_feed(io.BytesIO(text.encode()), "feed.xml", found.append, base_url=base_url)
    for diagnostic in found:  # every finding is a rule of the table, at the table's level
        assert TABLE[diagnostic.code]["level"] == str(diagnostic.level), diagnostic
        assert diagnostic.source == "feed.xml"
    return found, count


def codes(text: str, base_url: str | None = None) -> set[str]:
    return {diagnostic.code for diagnostic in check(text, base_url)[0]}


def test_a_complete_feed_has_no_finding() -> None:
    items = (
        "<item><title>A</title><link>https://example.com/a</link><guid>https://example.com/a</guid>"
        "<pubDate>Sat, 07 Sep 2002 00:00:01 GMT</pubDate><ror:updatePeriod>daily</ror:updatePeriod>"
        "<ror:type>Article</ror:type></item>"
        '<item><description>B</description><guid isPermaLink="false">b-1</guid>'
        "<pubDate>7 Sep 2002 09:30 +0200</pubDate></item>"
    )
    channel = CHANNEL + "<lastBuildDate>Sun, 08 Sep 2002 10:00:00 -0500</lastBuildDate>"
    assert check(feed(items, channel), base_url="https://example.com/feed.xml") == ([], 2)


# (code, failing document, passing document): the passing one differs only where the rule looks.
RULES = [
    ("rss-root", '<?xml version="1.0"?><feed><entry/></feed>', feed()),
    ("rss-version", feed(root=f"{ATOM}"), feed(root=f'version="0.92" {ATOM}')),
    ("rss-version", feed(root=f'version="3.0" {ATOM}'), feed(root=f'version="2.0" {ATOM}')),
    ("rss-channel", f'<rss version="2.0" {ATOM}><title>T</title></rss>', feed()),
    ("rss-channel", feed().replace("</rss>", "<channel><title>2</title></channel></rss>"), feed()),
    ("rss-channel-title", feed(channel=CHANNEL.replace("<title>T</title>", "")), feed()),
    ("rss-channel-title", feed(channel=CHANNEL.replace("<title>T</title>", "<title> </title>")), feed()),
    ("rss-channel-link", feed(channel=CHANNEL.replace("<link>https://example.com/</link>", "")), feed()),
    ("rss-channel-description", feed(channel=CHANNEL.replace("<description>D</description>", "")), feed()),
    ("rss-channel-description", feed(channel=CHANNEL.replace("D</description>", "</description>")), feed()),
    ("rss-item-title-or-description", feed("<item><link>https://example.com/a</link></item>"), feed()),
    (
        "rss-item-title-or-description",
        feed("<item><title/><description/></item>"),
        feed("<item><description>x</description></item>"),
    ),
    (
        "rss-date",
        feed(f"<item>{ITEM}<pubDate>2002-09-07T00:00:01Z</pubDate></item>"),
        feed(f"<item>{ITEM}<pubDate>Sat, 07 Sep 2002 00:00:01 GMT</pubDate></item>"),
    ),
    (
        "rss-date",
        feed(f"<item>{ITEM}<pubDate>Sun, 07 Sep 2002 00:00:01 GMT</pubDate></item>"),
        feed(f"<item>{ITEM}<pubDate>07 Sep 2002 00:00:01 GMT</pubDate></item>"),
    ),
    (
        "rss-date",
        feed(f"<item>{ITEM}<pubDate>31 Feb 2002 00:00:01 GMT</pubDate></item>"),
        feed(f"<item>{ITEM}<pubDate>28 Feb 2002 23:59:60 +0100</pubDate></item>"),
    ),
    (
        "rss-date",
        feed(f"<item>{ITEM}<pubDate>07 Sep 2002 00:00:01 XYZ</pubDate></item>"),
        feed(f"<item>{ITEM}<pubDate>07 Sep 2002 00:00:01 EDT</pubDate></item>"),
    ),
    ("rss-date", feed(f"<item>{ITEM}<pubDate/></item>"), feed()),
    (
        "rss-date",
        feed(channel=CHANNEL + "<lastBuildDate>yesterday</lastBuildDate>"),
        feed(channel=CHANNEL + "<lastBuildDate>Sat, 07 Sep 2002 00:00:01 GMT</lastBuildDate>"),
    ),
    (
        "rss-date-form",
        feed(f"<item>{ITEM}<pubDate>Sat, 07 Sep 02 00:00:01 GMT</pubDate></item>"),
        feed(f"<item>{ITEM}<pubDate>Sat, 07 Sep 2002 00:00:01 GMT</pubDate></item>"),
    ),
    ("rss-date-form", feed(f"<item>{ITEM}<pubDate>sat, 07 sep 2002 00:00:01 gmt</pubDate></item>"), feed()),
    ("rss-date-form", feed(f"<item>{ITEM}<pubDate>Sat, 07 Sep 2002 00:00:01</pubDate></item>"), feed()),
    (
        "rss-guid-permalink",
        feed(f"<item>{ITEM}<guid>article-1</guid></item>"),
        feed(f'<item>{ITEM}<guid isPermaLink="false">article-1</guid></item>'),
    ),
    (
        "rss-guid-permalink",
        feed(f'<item>{ITEM}<guid isPermaLink="true">/a</guid></item>'),
        feed(f'<item>{ITEM}<guid isPermaLink="true">https://example.com/a</guid></item>'),
    ),
    (
        "rss-guid-permalink",
        feed(f"<item>{ITEM}<guid>tag:example.com,2002:a</guid></item>"),
        feed(f'<item>{ITEM}<guid isPermaLink="false">tag:example.com,2002:a</guid></item>'),
    ),
    (
        "rss-guid-permalink",
        feed(f"<item>{ITEM}<guid>https://example.com/a b</guid></item>"),
        feed(f"<item>{ITEM}<guid>https://example.com/a%20b</guid></item>"),
    ),
    (
        "rss-guid-permalink",
        feed(f"<item>{ITEM}<guid>http:/example.com/a</guid></item>"),
        feed(f"<item>{ITEM}<guid>mailto:a@example.com</guid></item>"),
    ),
    (
        "rss-guid-ispermalink",
        feed(f'<item>{ITEM}<guid isPermaLink="no">a-1</guid></item>'),
        feed(f'<item>{ITEM}<guid isPermaLink="false">a-1</guid></item>'),
    ),
    (
        "rss-duplicate-guid",
        feed(
            f'<item>{ITEM}<guid isPermaLink="false">a</guid></item>'
            f'<item>{ITEM}<guid isPermaLink="false">a</guid></item>'
        ),
        feed(
            f'<item>{ITEM}<guid isPermaLink="false">a</guid></item>'
            f'<item>{ITEM}<guid isPermaLink="false">b</guid></item>'
        ),
    ),
    ("rss-link", feed("<item><title>A</title><link>/a</link></item>"), feed()),
    (
        "rss-link",
        feed("<item><title>A</title><link>https://example.com/a b</link></item>"),
        feed("<item><title>A</title><link>https://example.com/a%20b</link></item>"),
    ),
    ("rss-link", feed(channel=CHANNEL.replace("https://example.com/</link>", "example.com</link>")), feed()),
    ("rss-link-scheme", feed("<item><title>A</title><link>ftp://example.com/a</link></item>"), feed()),
    ("rss-self-link", feed(channel=CHANNEL.replace(SELF, "")), feed()),
    (
        "rss-self-link",
        feed(channel=CHANNEL.replace('rel="self"', 'rel="alternate"')),
        feed(channel=CHANNEL.replace(SELF, ""), root=f'version="0.91" {ATOM}'),
    ),
    ("ror-namespace", feed(root=f'version="2.0" {ATOM} xmlns:ror="http://rorweb.com/0.1"'), feed()),
    (
        "ror-namespace",
        feed(root=f'version="2.0" {ATOM} xmlns:r="https://www.rorweb.com/0.1/"'),
        feed(root=f'version="2.0" {ATOM} xmlns:r="http://rorweb.com/0.1/"'),
    ),
    (
        "ror-update-period",
        feed(f"<item>{ITEM}<ror:updatePeriod>day</ror:updatePeriod></item>"),
        feed(f"<item>{ITEM}<ror:updatePeriod>daily</ror:updatePeriod></item>"),
    ),
    (
        "ror-update-period",
        feed(f"<item>{ITEM}<ror:updatePeriod>Weekly</ror:updatePeriod></item>"),
        feed(f"<item>{ITEM}<ror:updatePeriod>weekly</ror:updatePeriod></item>"),
    ),
    (
        "ror-empty-value",
        feed(f"<item>{ITEM}<ror:updatePeriod></ror:updatePeriod></item>"),
        feed(f"<item>{ITEM}<ror:updatePeriod>never</ror:updatePeriod></item>"),
    ),
    (
        "ror-empty-value",
        feed(f"<item>{ITEM}<ror:type/></item>"),
        feed(f"<item>{ITEM}<ror:type>SiteMap</ror:type></item>"),
    ),
    (
        "ror-type-case",
        feed(f"<item>{ITEM}<ror:type>sitemap</ror:type></item>"),
        feed(f"<item>{ITEM}<ror:type>SiteMap</ror:type></item>"),
    ),
    (
        "ror-custom-type",
        feed(f"<item>{ITEM}<ror:type>resource</ror:type></item>"),
        feed(f"<item>{ITEM}<ror:type>Product</ror:type></item>"),
    ),
    ("feed-not-rss2", '<feed xmlns="http://www.w3.org/2005/Atom"><entry/></feed>', feed()),
    ("xml-not-well-formed", feed().replace("</channel>", ""), feed()),
    (
        "xml-not-well-formed",
        feed("<item><title>A &nbsp; B</title></item>"),
        feed("<item><title>A &#160; B</title></item>"),
    ),
]


@pytest.mark.parametrize(("code", "bad", "good"), RULES, ids=[f"{code}-{n}" for n, (code, _, _) in enumerate(RULES)])
def test_each_rule_fails_and_passes(code: str, bad: str, good: str) -> None:
    assert code in codes(bad)
    assert code not in codes(good)


def test_every_rule_has_a_failing_and_a_passing_input() -> None:
    feed_rules = {code for code in TABLE if code.startswith(("rss-", "ror-"))} | {
        "feed-not-rss2",
        "xml-not-well-formed",
    }
    assert {code for code, _, _ in RULES} | {"rss-self-link-mismatch"} == feed_rules


def test_self_link_against_the_feeds_url() -> None:
    assert "rss-self-link-mismatch" in codes(feed(), base_url="https://example.com/other.xml")
    assert "rss-self-link-mismatch" not in codes(feed(), base_url="https://example.com/feed.xml")
    found, _ = check(feed(channel=CHANNEL.replace(SELF, "")), base_url="https://example.com/f.xml")
    assert 'href="https://example.com/f.xml"' in found[0].message


def test_findings_name_their_line() -> None:
    text = feed(f"<item>{ITEM}</item>\n<item>\n<link>https://example.com/b</link>\n<pubDate>no</pubDate></item>")
    found, count = check(text)
    lines = {diagnostic.code: diagnostic.line for diagnostic in found}
    assert count == 2
    assert lines == {"rss-item-title-or-description": 4, "rss-date": 6}


def test_not_well_formed_gives_line_and_column_then_stops() -> None:
    text = feed(f"<item>{ITEM}</item>\n<item><title>x</titel></item>\n<item><pubDate>no</pubDate></item>")
    found, count = check(text)
    assert [(d.code, d.line, d.column) for d in found] == [
        ("xml-not-well-formed", 4, 23)
    ]  # libxml2: just past the bad end tag
    assert count == 1
    assert found[0].message.endswith("titel")  # lxml's message, without the position the finding holds


@pytest.mark.parametrize("data", [b"", b"\xff\xfe<", b'<?xml version="1.0"?>', b"not xml at all"])
def test_input_that_is_no_xml_is_one_finding(data: bytes) -> None:
    found: list[Diagnostic] = []
    assert validate_feed(io.BytesIO(data), "feed.xml", found.append) == 0
    assert [d.code for d in found] == ["xml-not-well-formed"]


def test_a_doctype_with_entities_is_read_without_expanding_them() -> None:
    """feedmap's hardened parser: internal entities are left unexpanded (a billion laughs stays inert)."""
    bomb = '<!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
    text = feed("<item><title>&b;</title><link>https://example.com/a</link></item>").replace("?>\n", "?>\n" + bomb, 1)
    found, count = check(text)
    assert count == 1
    assert "xml-not-well-formed" not in {d.code for d in found}


def test_duplicate_guids_found_past_the_spill_to_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feedmap._io.seen_keys, "IN_MEMORY", 50)
    items = "".join(f'<item><title>{n}</title><guid isPermaLink="false">g{n}</guid></item>\n' for n in range(300))
    items += '<item><title>again</title><guid isPermaLink="false">g7</guid></item>'
    found, count = check(feed(items))
    duplicates = [d for d in found if d.code == "rss-duplicate-guid"]
    assert count == 301
    assert len(duplicates) == 1
    assert "line 10" in duplicates[0].message
