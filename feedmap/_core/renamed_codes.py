"""The diagnostic codes of earlier releases and the codes that report the same problems now.

One job: issue 18 gave each problem one name (:mod:`feedmap._core.rules`); a code of an earlier release given to
``feedmap codes CODE`` or ``validate --ignore CODE`` is not found, and :func:`renamed_hint` says what it is now.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["RENAMED", "renamed_hint"]

#: The codes of earlier releases and what reports the same problem now (issue 18: one name per problem).
RENAMED: Mapping[str, str] = MappingProxyType(
    {
        "duplicate-loc": "loc-duplicate",
        "invalid-priority": "priority-invalid",
        "invalid-lastmod": "lastmod-invalid",
        "duplicate-element": "element-repeated",
        "invalid-changefreq": "changefreq-invalid",
        "missing-loc": "loc-missing",
        "too-many-urls": "too-many-entries",
        "file-too-large": "too-many-bytes",
        "malformed-xml": "xml-not-well-formed",
        "child-failed": "child-unreadable",
        "not-a-url": "loc-not-absolute",
        "encoding": "not-utf8",
        "invalid-loc": "loc-not-absolute, loc-not-escaped or loc-too-long",
    }
)


def renamed_hint(code: str) -> str:
    """``"; it is now X"`` for a code of an earlier release, else ``""``: what to say beside "unknown code"."""
    now = RENAMED.get(code)
    return f"; {code} was renamed: it is now {now}" if now else ""
