"""The typed parts of Google's news and video extensions, read from their child elements and written back.

Shared by :mod:`._news` (Google News sitemaps 0.9) and :mod:`._video` (Google video sitemaps 1.1).  The values'
lexical forms are those of their XSDs (XML Schema Part 2, https://www.w3.org/TR/xmlschema-2/): a count is an
``xsd:nonNegativeInteger``, a number an ``xsd:decimal``, a date an ``xsd:date`` or ``xsd:dateTime`` (read as a
W3C Datetime, kept as written), a flag the XSDs' ``yes`` / ``no`` (in any case), a list of words (country codes,
platforms) white-space separated.

A child is read into its part when the part holds it exactly: text only (no element inside), only the attributes
the part names, a value of the part's kind, and, for a part of one value, the first child of its name.  Any other
child is kept verbatim in the value's ``extras`` under its Clark name (as ``Entry.extras`` keeps foreign
elements, several of one name concatenated) and reported: ``unknown-element`` for a child the XSD does not name,
``element-repeated`` for a second one of a part of one value, ``news-value-invalid`` / ``video-value-invalid``
for one its part cannot hold.  A child the XSD names that no part holds (a video's ``category``) is kept the same
way, without a word.  Nothing is lost: the writers write the parts, and what ``extras`` keeps, in the XSD's order
(:func:`write_children`), each kept child where its name stands, those of names the XSD does not know last.
"""

from __future__ import annotations

import dataclasses
import decimal
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lxml import etree

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate
from feedmap._core.model import MAX_COUNT, Entry, VideoPrice
from feedmap._xml import line_of, local_name
from feedmap.formats._elements import serialize_element
from feedmap.formats._extras import extra_problem
from feedmap.formats._fields import strip_value
from feedmap.formats._output import output_url
from feedmap.formats._xmlwrite import attribute_of, text_of, undeclared

__all__ = ["Part", "Reading", "read_children", "write_children"]


@dataclass(frozen=True, slots=True)
class Part:
    """What one child element is read into: the ``field`` of the value, its ``kind`` (``text``, ``url``: a text
    written as a URL, ``words``, ``count``, ``number``, ``flag``, ``date``, ``price``), the attributes it holds
    (attribute name -> (field, kind ``text`` or ``flag``)), and whether it may come several times (a tuple)."""

    field: str
    kind: str = "text"
    attributes: Mapping[str, tuple[str, str]] = dataclasses.field(default_factory=dict)
    repeated: bool = False


@dataclass(slots=True)
class Reading:
    """One extension element being read: what its parts got, what is kept verbatim, whom to tell."""

    #: ``news`` or ``video`` (the prefix its children are named with in messages), the element as written in
    #: messages (``video:video``), the code of a child its part cannot hold (``video-value-invalid``).
    extension: str
    what: str
    code: str
    ctx: Context
    offset: int
    values: dict[str, Any] = dataclasses.field(default_factory=dict)
    extras: dict[str, str] = dataclasses.field(default_factory=dict)

    def keep(self, child: etree._Element) -> None:
        """Keep ``child`` verbatim in ``extras`` under its Clark name."""
        key = str(child.tag)
        self.extras[key] = self.extras.get(key, "") + serialize_element(child)

    def refuse(self, child: etree._Element, why: str) -> None:
        """Keep ``child`` verbatim, reported as a value its part cannot hold."""
        name = f"<{self.extension}:{local_name(str(child.tag))}>"
        self.ctx.warning(
            self.code,
            f"{name} in <{self.what}> {why}; kept as written in its extras",
            line_of(child) + self.offset,
        )
        self.keep(child)


_COUNT = re.compile(r"\+?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_FLAGS = {"yes": True, "no": False}
#: The longest decimal text read as a number (a float written in full, 5e-324 included, is shorter; a longer
#: text is kept as written).
_MAX_NUMBER_TEXT = 400


def _count(text: str) -> int | None:
    """A count an int64 holds (Parquet's and pandas' column; a longer text is never converted: Python refuses
    integers of over 4,300 digits), else None."""
    if not _COUNT.fullmatch(text) or len(text.lstrip("+0")) > len(str(MAX_COUNT)):
        return None
    count = int(text)
    return count if count <= MAX_COUNT else None


def _number(text: str) -> float | None:
    """A decimal a float holds exactly as written (``4.50`` is 4.5; 20 digits are not), else None: a value a
    float would round is kept as written."""
    if not _DECIMAL.fullmatch(text) or len(text) > _MAX_NUMBER_TEXT:
        return None
    number = float(text)
    exact = math.isfinite(number) and decimal.Decimal(text) == decimal.Decimal(repr(number))
    return number if exact else None


def _flag(text: str) -> bool | None:
    return _FLAGS.get(text.lower())


def _date(text: str) -> W3CDate | None:
    try:
        return W3CDate(text)
    except ValueError:
        return None


#: The reader of each kind of a single value: its text (stripped) -> the value, or None when it is none.
_VALUES: dict[str, Callable[[str], Any]] = {
    "count": _count,
    "number": _number,
    "flag": _flag,
    "date": _date,
    "words": lambda text: tuple(text.split()),
}
_WHY = {
    "count": f"is not a whole number (of at most {MAX_COUNT:,})",
    "number": "is not a decimal number that a float holds exactly",
    "flag": "is not yes or no",
    "date": "is not a W3C Datetime",
}


def read_children(
    children: Iterable[etree._Element],
    parts: Mapping[str, Part],
    namespace: str,
    known: frozenset[str],
    reading: Reading,
) -> None:
    """Read ``children`` (an element's) into ``reading``: those of ``namespace`` that ``parts`` names (by local
    name) into their parts, every other one kept (see the module's docstring; ``known``: the local names the XSD
    gives that no part holds, kept without a word)."""
    prefix = "{" + namespace + "}"
    for child in children:
        tag = child.tag
        if not isinstance(tag, str):
            continue  # a comment or processing instruction
        part = parts.get(tag[len(prefix) :]) if tag.startswith(prefix) else None
        if part is None:
            if not tag.startswith(prefix) or tag[len(prefix) :] not in known:
                name = f"{reading.extension}:{tag[len(prefix) :]}" if tag.startswith(prefix) else tag
                reading.ctx.warning(
                    "unknown-element",
                    f"<{name}> inside <{reading.what}> is not an element of it; kept as written in its extras",
                    line_of(child) + reading.offset,
                )
            reading.keep(child)
            continue
        _read_part(child, part, reading)


def _read_part(child: etree._Element, part: Part, reading: Reading) -> None:
    values = reading.values
    if not part.repeated and part.field in values:
        reading.ctx.warning(
            "element-repeated",
            f"a second <{reading.extension}:{local_name(str(child.tag))}> in <{reading.what}>; the first is read, "
            "this one kept as written in its extras",
            line_of(child) + reading.offset,
        )
        reading.keep(child)
        return
    if len(child):  # an element, or an entity reference, inside: no text value
        reading.refuse(child, "holds markup, not text only")
        return
    attributes = _attributes(child, part, reading)
    if attributes is None:
        return
    value = _value(child, part, reading)
    if value is None:
        return
    if part.kind == "price":
        value = VideoPrice(value=value, **attributes)
        attributes = {}
    if part.repeated:
        values.setdefault(part.field, []).append(value)
    else:
        values[part.field] = value
    values.update(attributes)


def _attributes(child: etree._Element, part: Part, reading: Reading) -> dict[str, Any] | None:
    """The values of the child's attributes by field, or None (kept, reported) when the part cannot hold one."""
    found: dict[str, Any] = {}
    for raw_name, text in child.attrib.items():
        name = str(raw_name)
        held = part.attributes.get(name)
        if held is None:
            reading.refuse(child, f"has an attribute {name} it cannot hold")
            return None
        field_name, kind = held
        value: Any = text.strip() if kind == "flag" else text
        if kind == "flag":
            value = _flag(value)
            if value is None:
                reading.refuse(child, f"has {name}={text!r}, which is not yes or no")
                return None
        found[field_name] = value
    return found


def _value(child: etree._Element, part: Part, reading: Reading) -> Any:
    """The child's value for its part, or None (kept, reported) when it has none of the part's kind."""
    raw = child.text or ""
    text = raw.strip()
    if len(text) != len(raw) and text:
        name = f"{reading.extension}:{local_name(str(child.tag))}"
        text = strip_value(raw, name, reading.ctx, line_of(child) + reading.offset)
    read = _VALUES.get(part.kind)
    if read is None:  # text, url, price: the text itself (an empty one too: the element is there)
        return text
    value = read(text)
    if value is None:
        reading.refuse(child, f"{text[:40]!r} {_WHY[part.kind]}")
    return value


# ------------------------------------------------------------------------------------------------- writing


def write_children(
    value: Any,
    order: Iterable[tuple[str, Part | None]],
    prefix: str,
    namespace: str,
    entry: Entry,
    ctx: Context,
    *,
    code: str,
    kept: bool = True,
) -> list[str]:
    """The children of a news entry or a video (``value``) as XML text: for each local name of ``order`` (the
    XSD's), its part's elements (None: no part), then what ``extras`` keeps under that name; then the kept
    children of names ``order`` does not give (``kept``: False, none of ``extras``).  Text is escaped, URLs written
    as the output's URLs are; a kept child that is not well-formed XML named by its key is left out
    (``invalid-extra``); a value no element holds (a rating that is not a number, the attribute of an absent
    element) is not written, said as ``code``."""
    extras: Mapping[str, str] = value.extras if kept else {}
    written: set[str] = set()
    parts: list[str] = []
    for local, part in order:
        if part is not None:
            parts += _part_elements(value, local, part, prefix, entry, ctx, code)
        key = f"{{{namespace}}}{local}"
        if extras and key in extras:
            written.add(key)
            parts += _kept(key, extras[key], prefix, namespace, entry, ctx)
    for key, text in extras.items():
        if key not in written:
            parts += _kept(key, text, prefix, namespace, entry, ctx)
    return parts


def _kept(key: str, text: str, prefix: str, namespace: str, entry: Entry, ctx: Context) -> list[str]:
    problem = extra_problem(key, text)
    if problem is not None:
        ctx.warning("invalid-extra", f"extra {key!r} of a {prefix} of {entry.loc} {problem}; not written")
        return []
    return [undeclared(text, {prefix: namespace})]  # the prefix is declared by the element around it


def _part_elements(value: Any, local: str, part: Part, prefix: str, entry: Entry, ctx: Context, code: str) -> list[str]:
    held = getattr(value, part.field)
    if held is None or (part.repeated and not held):
        _unheld_attributes(value, local, part, prefix, entry, ctx, code)
        return []
    if part.kind == "words" and not held and all(getattr(value, name) is None for name, _ in part.attributes.values()):
        return []  # no list, and no relationship: no element
    name = f"{prefix}:{local}"
    if part.repeated:
        out: list[str] = []
        for one in held:
            out += _element(name, one, part, value, entry, ctx, code)
        return out
    return _element(name, held, part, value, entry, ctx, code)


def _unheld_attributes(value: Any, local: str, part: Part, prefix: str, entry: Entry, ctx: Context, code: str) -> None:
    """Report the attributes of an element that has no value to be written with (``uploader_info`` without an
    ``uploader``): they are not written."""
    if part.repeated:  # a price's attributes are its own
        return
    lost = [attribute for attribute, (name, _) in part.attributes.items() if getattr(value, name) is not None]
    if lost:
        ctx.warning(code, f"{', '.join(lost)} of <{prefix}:{local}> of {entry.loc} without its {local}: not written")


def _element(name: str, held: Any, part: Part, value: Any, entry: Entry, ctx: Context, code: str) -> list[str]:
    loc = entry.loc
    if part.kind == "price":
        attributes = [("currency", held.currency), ("type", held.type), ("resolution", held.resolution)]
        text = text_of(held.value, name, loc, ctx)
    else:
        attributes = [(attribute, getattr(value, field_name)) for attribute, (field_name, _) in part.attributes.items()]
        written = _text(name, held, part.kind, entry, ctx, code)
        if written is None:
            return []
        text = written
    start = "".join(
        f' {attribute}="{_attribute(attribute, one, name, loc, ctx)}"'
        for attribute, one in attributes
        if one is not None
    )
    return [f"<{name}{start}>", text, f"</{name}>"]


def _attribute(attribute: str, value: Any, name: str, loc: str, ctx: Context) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    what = f"{name} {attribute}"
    if attribute == "info":  # a video uploader's page: a URL
        value = output_url(value, ctx)
    return attribute_of(str(value), what, loc, ctx)


def _text(name: str, held: Any, kind: str, entry: Entry, ctx: Context, code: str) -> str | None:
    """A part's value as the text of its element, or None (reported) for one no element can hold."""
    loc = entry.loc
    if kind == "url":
        return text_of(output_url(held, ctx, entry), name, loc, ctx)
    if kind == "text":
        return text_of(held, name, loc, ctx)
    if kind == "words":
        return text_of(" ".join(held), name, loc, ctx)
    if kind == "flag":
        return "yes" if held else "no"
    if kind == "date":
        return str(held.text)
    if kind == "count":
        return str(int(held))
    number = float(held)
    if not math.isfinite(number):
        ctx.warning(code, f"<{name}> {number} of {loc} is not a number; not written")
        return None
    text = repr(number)
    return format(decimal.Decimal(text), "f") if "e" in text else text
