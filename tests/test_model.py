"""The IR's fast constructors build exactly what the keyword constructors build."""

from __future__ import annotations

import copy
import pickle

import pytest

from feedmap import Alternate, ChangeFreq, Entry, Image, Position, W3CDate
from feedmap._core.model import blank_image, new_entry, new_position


def test_new_entry_equals_the_keyword_constructor() -> None:
    images = (Image(loc="http://e.com/i.png", caption="c"),)
    alternates = (Alternate(hreflang="de", href="http://e.com/de"),)
    fast = new_entry(
        "http://e.com/", W3CDate("2024"), ChangeFreq.DAILY, 0.5, images, alternates, {"{u}x": "<x/>"}, None
    )
    slow = Entry(
        loc="http://e.com/",
        lastmod=W3CDate("2024"),
        changefreq=ChangeFreq.DAILY,
        priority=0.5,
        images=images,
        alternates=alternates,
        extras={"{u}x": "<x/>"},
    )
    assert fast == slow
    assert (fast.title, fast.description, fast.keywords, fast.type) == (None, None, (), None)


def test_new_position_is_a_position() -> None:
    position = new_position("a.xml", 3)
    assert position == Position("a.xml", 3)
    assert isinstance(position, Position)
    assert str(position) == "a.xml:3"


def test_w3cdate_is_immutable_hashable_and_copyable() -> None:
    value = W3CDate("2024-01-02T10:00:00+01:00")
    with pytest.raises(AttributeError):
        value.text = "2025"  # type: ignore[misc]
    assert {value: 1}[W3CDate("2024-01-02T10:00:00+01:00")] == 1
    assert copy.deepcopy(value) == value
    assert pickle.loads(pickle.dumps(value)) == value
    assert value != W3CDate("2024-01-02T09:00:00Z")  # same instant, written differently


def test_blank_image_equals_the_keyword_constructor() -> None:
    assert blank_image() == Image(loc="")
