"""Atom links as feeds use them: the Atom namespace and link relations, with nothing else to import.

Spec: Atom 1.0 (RFC 4287): the namespace ``http://www.w3.org/2005/Atom`` and ``atom:link`` relations
(§4.2.7.2: ``alternate`` when none is given; a registered name may be written as the IANA registry's URI).
Shared by the feed readers (:mod:`feedmap.formats.feeds._vocab`) and the hreflang extension's feed variant
(:mod:`feedmap.formats.ext._hreflang`), which sitemap reading loads too: it stays free of HTML parsing.
"""

from __future__ import annotations

__all__ = ["ATOM_NS", "IANA_RELATIONS", "link_relation"]

ATOM_NS = "http://www.w3.org/2005/Atom"

#: RFC 4287 4.2.7.2: a link relation may be written as the IANA registry's URI of a registered name.
IANA_RELATIONS = "http://www.iana.org/assignments/relation/"


def link_relation(rel: str | None) -> str:
    """The relation of an Atom link: ``alternate`` when none is given, an IANA URI as its short name."""
    rel = (rel or "").strip()
    if not rel:
        return "alternate"
    if rel.startswith(IANA_RELATIONS) and rel[len(IANA_RELATIONS) :]:
        return rel[len(IANA_RELATIONS) :]
    return rel
