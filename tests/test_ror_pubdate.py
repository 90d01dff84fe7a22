"""A ROR item's ``pubDate`` (RSS 2.0, RFC 822 with a four-digit year) for every form of lastmod: the common
forms are formatted from their digits at once (issue 19), and must say what ``email.utils.format_datetime``
says of the lastmod's instant: ``GMT`` for UTC (and for a lastmod without a zone), else the zone as written,
``+hhmm``; a fraction of a second left out."""

from __future__ import annotations

import datetime as dt
import re
from email.utils import format_datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feedmap
from feedmap import Entry, W3CDate


def expected_pubdate(lastmod: W3CDate) -> str:
    moment = lastmod.to_datetime()
    if lastmod.offset is None or lastmod.offset == dt.timedelta(0):
        return format_datetime(moment.astimezone(dt.timezone.utc), usegmt=True)
    return format_datetime(moment)


def pubdates(texts: list[str], folder: Path) -> list[str]:
    entries = [Entry(loc=f"https://e.example/{n}", lastmod=text, title="t") for n, text in enumerate(texts)]
    out = folder / "out.ror"
    feedmap.write(entries, str(out), "ror", feedmap.Options(channel_link="https://e.example/"))
    return re.findall(r"<pubDate>([^<]*)</pubDate>", out.read_text(encoding="utf-8"))


@st.composite
def lastmods(draw: st.DrawFn) -> str:
    year = draw(st.sampled_from(["0001", "1900", "1970", "2000", "2024", "9999"]))
    text = f"{year}-{draw(st.integers(1, 12)):02d}-{draw(st.integers(1, 28)):02d}"
    form = draw(st.sampled_from(["date", "seconds", "minutes", "fraction", "month", "year"]))
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
        text += "." + "9" * draw(st.integers(1, 7))
    zone = draw(st.sampled_from(["Z", "+00:00", "-00:00", "+02:00", "-05:30", "+13:45", "+14:00", "-23:59"]))
    return text + zone


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(lastmods(), min_size=1, max_size=20))
def test_every_pubdate_is_the_rfc822_form_of_its_instant(tmp_path: Path, texts: list[str]) -> None:
    valid = []
    for text in texts:
        try:
            valid.append(W3CDate(text))
        except ValueError:  # a leap second or an offset the W3C grammar refuses
            continue
    if not valid:
        return
    assert pubdates([date.text for date in valid], tmp_path) == [expected_pubdate(date) for date in valid]


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("2024-01-02", "Tue, 02 Jan 2024 00:00:00 GMT"),
        ("2024-01-02T12:00:00+02:00", "Tue, 02 Jan 2024 12:00:00 +0200"),
        ("2024-01-02T23:59:59.9-05:30", "Tue, 02 Jan 2024 23:59:59 -0530"),
        ("2024-01-02T00:00:00-00:00", "Tue, 02 Jan 2024 00:00:00 GMT"),
        ("2024-02-29T10:00:00Z", "Thu, 29 Feb 2024 10:00:00 GMT"),
        ("0001-01-01T00:00:00+01:00", "Mon, 01 Jan 0001 00:00:00 +0100"),
        ("2005-06", "Wed, 01 Jun 2005 00:00:00 GMT"),
    ],
)
def test_known_pubdates(tmp_path: Path, text: str, written: str) -> None:
    assert pubdates([text], tmp_path) == [written]
