"""Field values given for every entry (``--set FIELD=VALUE``, ``Options(set=...)``), checked as readers check them.

One job: turn ``FIELD=VALUE`` (or a field and its value given in code) into the IR value an entry holds, or say
what is wrong with it, by the rules every reader applies to a value it reads (:mod:`feedmap.formats._fields`),
without the repairs: a value typed for every entry is taken as it is or refused.

* ``lastmod``: W3C Datetime (https://www.w3.org/TR/NOTE-datetime) or the sitemaps XSD's ``xsd:date |
  xsd:dateTime``, kept as written with its precision (:class:`~feedmap._core.dates.W3CDate`); a near miss
  (``2024/01/02``) is refused with the form that reads (``write 2024-01-02``);
* ``changefreq``: one of the seven sitemaps.org words, in lower case;
* ``priority``: an ``xsd:decimal`` from 0.0 to 1.0 (:func:`feedmap._core.priority.parse_priority`);
* ``keywords``: comma-separated (as ``ror:keywords`` and ``<meta name="keywords">`` hold them), each trimmed;
* ``title``, ``description``, ``type``: text XML 1.0 can hold;
* an empty value clears the field (the entry has none).

``loc`` is not set (every entry would be one URL), nor ``images``, ``alternates`` and ``extras`` (values of
their own per URL): per-URL values are given in the input (JSON lines or CSV turned into JSON lines).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Iterable, Mapping
from typing import TypeAlias

from feedmap._core.dates import W3CDate, parse_lenient
from feedmap._core.model import ChangeFreq
from feedmap._core.option_values import xml_text_problem
from feedmap._core.priority import parse_priority

__all__ = ["SETTABLE", "FieldValue", "assignment", "field_value", "field_values"]

#: The fields a value may be given for every entry, in the order of the IR.
SETTABLE = ("lastmod", "changefreq", "priority", "title", "description", "keywords", "type")
#: A field's value as an entry holds it (None: the field cleared).
FieldValue: TypeAlias = "W3CDate | ChangeFreq | float | str | tuple[str, ...] | None"

_PER_URL = "it holds values of its own for each URL: give them in the input (JSON lines, or CSV made JSON lines)"
_NOT_SET = {
    "loc": "every entry would be the same URL; give the URLs in the input",
    "images": _PER_URL,
    "alternates": _PER_URL,
    "extras": _PER_URL,
}
_CHANGEFREQS = {member.value: member for member in ChangeFreq}


def assignment(text: str) -> tuple[str, str]:
    """``FIELD=VALUE`` as ``(field, value)`` (the value may hold ``=`` and be empty); ValueError for no ``=`` or no
    field name."""
    name, equals, value = text.partition("=")
    name = name.strip()
    if not equals or not name:
        raise ValueError(f"{text!r} is no FIELD=VALUE (such as type=Product); the fields: {', '.join(SETTABLE)}")
    return name, value


def field_value(name: str, value: object) -> FieldValue:
    """The value entries get for ``name`` (text read as the readers read it; a value of the field's type taken
    as it is, checked); ValueError saying what is wrong, starting with the field's name."""
    if name in _NOT_SET:
        raise ValueError(f"{name} cannot be set on every entry: {_NOT_SET[name]}")
    if name not in SETTABLE:
        raise ValueError(f"{name!r} is no field that can be set; the fields: {', '.join(SETTABLE)}")
    if value is None or value == "" or value == ():
        return () if name == "keywords" else None
    try:
        return _READERS[name](value)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _lastmod(value: object) -> W3CDate:
    if isinstance(value, W3CDate):
        return value
    if isinstance(value, (_dt.datetime, _dt.date)):
        return W3CDate.from_datetime(value)
    text = _text(value).strip()
    try:
        return W3CDate(text)
    except ValueError:
        pass
    repaired, _ = parse_lenient(text)
    if repaired is not None:
        raise ValueError(f"{text!r} is not a W3C datetime: write {repaired.text}")
    raise ValueError(f"{text!r} is not a W3C datetime: write 2024-01-02 or 2024-01-02T10:30:00Z")


def _changefreq(value: object) -> ChangeFreq:
    if isinstance(value, ChangeFreq):
        return value
    text = _text(value).strip()
    member = _CHANGEFREQS.get(text)
    if member is not None:
        return member
    hint = f"; write {text.lower()!r}" if text.lower() in _CHANGEFREQS else ""
    raise ValueError(f"{text!r} is not one of {', '.join(_CHANGEFREQS)}{hint}")


def _priority(value: object) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value) or not 0.0 <= value <= 1.0:
            raise ValueError(f"{value!r} is not between 0.0 and 1.0")
        return abs(float(value))
    exact, problem = parse_priority(_text(value))
    if exact is None:
        raise ValueError(problem.removeprefix("priority "))
    return abs(float(exact))


def _keywords(value: object) -> tuple[str, ...]:
    words = _text(value).split(",") if isinstance(value, str) else list(_iterable(value))
    kept = tuple(word.strip() for word in (_xml(_text(word)) for word in words) if word.strip())
    return kept


def _iterable(value: object) -> Iterable[object]:
    if isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray, Mapping)):
        return value
    raise ValueError(f"give comma-separated text or a sequence of keywords, not {value!r}")


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"give text, not {value!r}")
    return value


def _xml(value: str) -> str:
    problem = xml_text_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _plain(value: object) -> str:
    return _xml(_text(value))


_READERS: dict[str, Callable[[object], FieldValue]] = {
    "lastmod": _lastmod,
    "changefreq": _changefreq,
    "priority": _priority,
    "title": _plain,
    "description": _plain,
    "keywords": _keywords,
    "type": _plain,
}


def field_values(given: object, option: str) -> tuple[tuple[str, FieldValue], ...]:
    """``given`` (a mapping of field to value, or an iterable of ``(field, value)`` pairs or ``FIELD=VALUE``
    texts) as ``(field, value)`` pairs in the order given, each value checked (:func:`field_value`); ValueError
    naming ``option`` (and the field) for anything wrong, a field given twice included."""
    if given is None:
        return ()
    if isinstance(given, Mapping):
        pairs: list[object] = list(given.items())
    elif isinstance(given, (str, bytes)) or not isinstance(given, Iterable):
        pairs = [given] if isinstance(given, str) else [None]
    else:
        pairs = list(given)
    made: list[tuple[str, FieldValue]] = []
    for pair in pairs:
        if isinstance(pair, str):
            try:
                pair = assignment(pair)
            except ValueError as exc:
                raise ValueError(f"{option}: {exc}") from None
        if not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[0], str):
            raise ValueError(f"{option}: give {{field: value}}, (field, value) pairs or 'FIELD=VALUE' texts")
        name = pair[0].strip()
        try:
            value = field_value(name, pair[1])
        except ValueError as exc:
            raise ValueError(f"{option}: {exc}") from None
        if any(name == done for done, _ in made):
            raise ValueError(f"{option}: {name} is given twice; give each field once")
        made.append((name, value))
    return tuple(made)
