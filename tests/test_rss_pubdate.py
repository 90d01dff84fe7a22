"""An RSS item's date (RSS 2.0 has one per item): ``pubDate`` (RFC 822, four-digit year) when it reads back as
exactly the lastmod, else ``dc:date`` with the lastmod's text.  The common forms (seconds with ``Z`` or an
offset) are known to read back (issue 19); every form must give what writing the RFC 822 form with
``email.utils.format_datetime`` and reading it back with ``email.utils.parsedate_to_datetime`` says."""

from __future__ import annotations

import datetime as dt
import re
from email.utils import format_datetime, parsedate_to_datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Entry, W3CDate


def _read_back(text: str) -> str | None:
    """The W3C text an RFC 822 date reads back as (feedmap's reading of a pubDate: Z for UTC; no year before
    1000), or None."""
    moment = parsedate_to_datetime(text)
    if moment.year < 1000:
        return None
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S")
    offset = moment.utcoffset()
    if not offset:
        return stamp + "Z"
    minutes = int(offset.total_seconds()) // 60
    return f"{stamp}{'-' if minutes < 0 else '+'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def expected_date(lastmod: W3CDate) -> tuple[str, str]:
    """(element, text) of the item's date."""
    try:
        moment = lastmod.to_datetime()
        if lastmod.offset is None or lastmod.offset == dt.timedelta(0):
            text = format_datetime(moment.astimezone(dt.timezone.utc), usegmt=True)
        else:
            text = format_datetime(moment)
    except (ValueError, OverflowError):
        return "dc:date", lastmod.text
    if _read_back(text) == lastmod.text:
        return "pubDate", text
    return "dc:date", lastmod.text


def written_dates(texts: list[str], folder: Path) -> list[tuple[str, str]]:
    entries = [Entry(loc=f"https://e.example/{n}", lastmod=W3CDate(text), title="t") for n, text in enumerate(texts)]
    out = folder / "out.rss"
    feedmap.write(entries, str(out), "rss", feedmap.Options(channel_link="https://e.example/"))
    items = out.read_text(encoding="utf-8").split("<item>")[1:]
    found = [re.search(r"<(pubDate|dc:date)(?: xmlns:dc=\"[^\"]*\")?>([^<]*)</", item) for item in items]
    return [(match[1], match[2]) if match else ("", "") for match in found]


@st.composite
def lastmods(draw: st.DrawFn) -> str:
    year = draw(st.sampled_from(["0001", "0050", "0999", "1000", "1970", "2024", "9999"]))
    text = f"{year}-{draw(st.integers(1, 12)):02d}-{draw(st.integers(1, 28)):02d}"
    form = draw(st.sampled_from(["date", "seconds", "seconds", "minutes", "fraction", "month", "year"]))
    if form == "month":
        return text[:7]
    if form == "year":
        return text[:4]
    if form == "date":
        return text
    text += f"T{draw(st.integers(0, 23)):02d}:{draw(st.integers(0, 59)):02d}"
    if form != "minutes":
        text += f":{draw(st.sampled_from(['00', '07', '59', '60']))}"
    if form == "fraction":
        # up to six digits: ".1000Z" is as long as an offset's "+02:00" (25 characters in all)
        text += "." + draw(st.text("0123456789", min_size=1, max_size=6))
    zone = draw(
        st.sampled_from(["Z", "+00:00", "-00:00", "+02:00", "-05:30", "+13:59", "-13:45", "+14:00", "-14:00", "+00:01"])
    )
    return text + zone


def _valid(texts: list[str]) -> list[str]:
    kept = []
    for text in texts:
        try:
            W3CDate(text)
        except ValueError:
            continue
        kept.append(text)
    return kept


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(lastmods(), min_size=1, max_size=25))
def test_an_item_has_a_pubdate_exactly_when_it_reads_back_as_its_lastmod(tmp_path: Path, texts: list[str]) -> None:
    valid = _valid(texts)
    assert written_dates(valid, tmp_path) == [expected_date(W3CDate(text)) for text in valid]


@pytest.mark.parametrize(
    ("text", "element", "written"),
    [
        ("2024-01-02T10:00:00Z", "pubDate", "Tue, 02 Jan 2024 10:00:00 GMT"),
        ("2024-01-02T10:00:00+02:00", "pubDate", "Tue, 02 Jan 2024 10:00:00 +0200"),
        ("2024-01-02T10:00:00-13:45", "pubDate", "Tue, 02 Jan 2024 10:00:00 -1345"),
        ("2024-01-02T10:00:00+00:00", "dc:date", "2024-01-02T10:00:00+00:00"),  # reads back as Z
        ("2024-01-02T10:00:00-00:00", "dc:date", "2024-01-02T10:00:00-00:00"),
        ("2024-01-02T10:00:00.5Z", "dc:date", "2024-01-02T10:00:00.5Z"),
        ("2024-01-02T10:00:00.1000Z", "dc:date", "2024-01-02T10:00:00.1000Z"),  # an offset's length, a fraction
        ("2024-01-02T10:00:00.0000Z", "dc:date", "2024-01-02T10:00:00.0000Z"),
        ("2024-01-02T10:00Z", "dc:date", "2024-01-02T10:00Z"),
        ("2024-01-02", "dc:date", "2024-01-02"),
        ("0999-01-02T10:00:00Z", "dc:date", "0999-01-02T10:00:00Z"),
        ("1000-01-02T10:00:00Z", "pubDate", "Thu, 02 Jan 1000 10:00:00 GMT"),
        ("2016-12-31T23:59:60Z", "dc:date", "2016-12-31T23:59:60Z"),
    ],
)
def test_known_item_dates(tmp_path: Path, text: str, element: str, written: str) -> None:
    assert written_dates([text], tmp_path) == [(element, written)]
    assert expected_date(W3CDate(text)) == (element, written)
