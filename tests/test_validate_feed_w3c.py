"""``feedmap validate``'s RSS rules against the W3C Feed Validator on its own RSS test feeds (issue 12, "Done when").

The oracle is the validator's code in the external corpus (``w3c-feedvalidator/src``, run as
``test_feed_validator.py`` runs it, offline).  The cases are its RSS test feeds (``testcases/rss`` and
``testcases/rss20``, root ``<rss>``) that exercise one of five rule families: the file's ``Expect:`` comment
names one of the family's events (expected or ruled out with ``!``, the "valid" events included) or the file
sits in the family's folder of the RSS 2.0 suite.  For each case and family, the validator's verdict (an Error
event of the family; channel events of the channel itself, not of its image or textInput) is compared with
feedmap's (an ERROR of the family's codes).  Agreement must reach 95%; the figure and every disagreement are
printed (``-s``).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import test_feed_validator as w3c

from feedmap import Diagnostic, Level
from feedmap.formats.feeds._channel_checks import validate_feed

offline = w3c.offline  # the validator fetches DTDs and looks up domains: only the loopback is reachable


@dataclass(frozen=True)
class Family:
    name: str
    events: frozenset[str]  # the validator's Error classes of the family
    expects: frozenset[str]  # ``Expect:`` names that select a case (the events and their "valid" counterparts)
    folders: tuple[str, ...]  # rss20 folders whose cases exercise the family
    codes: frozenset[str]  # feedmap's codes


FAMILIES = (
    Family(
        "missing channel element",
        frozenset({"MissingTitle", "MissingLink", "MissingDescription"}),
        frozenset({"MissingTitle", "MissingLink", "MissingDescription"}),
        ("element-channel-title", "element-channel-link", "element-channel-description"),
        frozenset({"rss-channel-title", "rss-channel-link", "rss-channel-description"}),
    ),
    Family(
        "item without title or description",
        frozenset({"ItemMustContainTitleOrDescription"}),
        frozenset({"ItemMustContainTitleOrDescription"}),
        ("element-channel-item", "element-channel-item-title", "element-channel-item-description"),
        frozenset({"rss-item-title-or-description"}),
    ),
    Family(
        "bad pubDate",
        frozenset({"InvalidRFC2822Date", "IncorrectDOW"}),
        frozenset({"InvalidRFC2822Date", "IncorrectDOW", "ValidRFC2822Date", "ProblematicalRFC822Date"}),
        ("element-channel-item-pubdate", "element-channel-lastbuilddate", "element-channel-pubdate"),
        frozenset({"rss-date"}),
    ),
    Family(
        "bad permalink guid",
        frozenset({"InvalidHttpGUID", "InvalidPermalink"}),
        frozenset({"InvalidHttpGUID", "InvalidPermalink", "ValidHttpGUID"}),
        ("element-channel-item-guid",),
        frozenset({"rss-guid-permalink"}),
    ),
    Family(
        "duplicate guid",
        frozenset({"DuplicateValue"}),  # of a <guid> (the class is also the validator's for other elements)
        frozenset({"DuplicateValue"}),
        ("element-channel-item-guid",),
        frozenset({"rss-duplicate-guid"}),
    ),
)
_EXPECT = re.compile(rb"Expect:\s*!?\s*([A-Za-z0-9]+)")
_RSS_ROOT = re.compile(rb"<rss[\s>]")
BASE = "http://www.feedvalidator.org/testcases/"


def _exercises(family: Family, relative: str, expected: str, data: bytes) -> bool:
    if family.name == "duplicate guid":
        return (expected == "DuplicateValue" and b"<guid" in data) or "element-channel-item-guid" in relative
    folder = relative.split("/")[-2]
    return expected in family.expects or folder in family.folders


def _w3c_says_error(family: Family, events: list[Any], oracle: Any) -> bool:
    for event in events:
        if isinstance(event, Exception):
            continue
        name, params = type(event).__name__, getattr(event, "params", {})
        if name not in family.events or not oracle.is_error(event):
            continue
        if family.name == "missing channel element" and params.get("parent") != "channel":
            continue  # an <image> or <textInput> without its title/link/description: not the channel's
        if family.name == "duplicate guid" and params.get("element") != "guid":
            continue
        return True
    return False


def _feedmap_says_error(family: Family, found: list[Diagnostic]) -> bool:
    return any(d.code in family.codes and d.level >= Level.ERROR for d in found)


@pytest.mark.usefixtures("offline")
def test_validate_feed_agrees_with_the_w3c_feed_validator(corpus_dir: Path) -> None:
    oracle = w3c.Oracle(*w3c._validator(corpus_dir))
    cases = corpus_dir / "w3c-feedvalidator" / "testcases"
    rows: list[tuple[str, str, bool, bool]] = []
    for path in sorted([*cases.glob("rss/**/*.xml"), *cases.glob("rss20/**/*.xml")]):
        data = path.read_bytes()
        if _RSS_ROOT.search(data) is None:
            continue
        relative = path.relative_to(cases).as_posix()
        match = _EXPECT.search(data)
        expected = match.group(1).decode() if match else ""
        families = [family for family in FAMILIES if _exercises(family, relative, expected, data)]
        if not families:
            continue
        events = oracle.events(data, BASE + relative)
        found: list[Diagnostic] = []
        validate_feed(io.BytesIO(data), relative, found.append)
        for family in families:
            rows.append(
                (family.name, relative, _w3c_says_error(family, events, oracle), _feedmap_says_error(family, found))
            )
    agreed = sum(w3c_error == feedmap_error for _, _, w3c_error, feedmap_error in rows)
    print(f"\nfeedmap validate vs the W3C Feed Validator: {agreed}/{len(rows)} cases agree ({agreed / len(rows):.1%})")
    for family in FAMILIES:
        mine = [row for row in rows if row[0] == family.name]
        errors = sum(row[2] for row in mine)
        print(f"  {family.name}: {sum(row[2] == row[3] for row in mine)}/{len(mine)} agree ({errors} W3C errors)")
    for name, relative, w3c_error, feedmap_error in rows:
        if w3c_error != feedmap_error:
            said = "error" if w3c_error else "no error"
            print(
                f"  disagreement ({name}): {relative}: W3C {said}, feedmap {'error' if feedmap_error else 'no error'}"
            )
    for family in FAMILIES:  # each family has cases of both verdicts
        assert {row[2] for row in rows if row[0] == family.name} == {True, False}, family.name
    assert agreed >= 0.95 * len(rows)
