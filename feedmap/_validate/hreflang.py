"""The hreflang alternates of one ``<url>``, checked as written: their values, their hrefs, the page's own set.

Specs: Google's localized versions in sitemaps
(https://developers.google.com/search/docs/specialty/international/localized-versions): an alternate is an
``<xhtml:link rel="alternate" hreflang=".." href=".."/>`` of the XHTML namespace; its value is ``x-default`` or a
language (ISO 639-1), optionally a script (ISO 15924, ``zh-Hant``) and a region (ISO 3166-1 alpha-2), which is a
BCP 47 language tag (RFC 5646 §2.1, https://www.rfc-editor.org/rfc/rfc5646); its href is fully qualified; "each
language version must list itself as well as all other language versions".  Google ignores a value it cannot
read, so each problem here is a warning: ``hreflang-invalid`` (no BCP 47 tag by RFC 5646's grammar),
``hreflang-language-unknown`` (a well-formed tag whose language is no ISO 639-1 code: ``jp``, ``eng``, a
grandfathered or private-use tag), ``hreflang-region-unknown`` (a region that is no ISO 3166-1 alpha-2 code:
``en-UK``, ``es-419``), ``alternate-href-invalid`` (an href that is no absolute http(s) URL),
``hreflang-duplicate`` (one value, compared without case, for two URLs: ``x-default`` twice too),
``alternate-self-missing`` (a page with alternates that does not name itself), and ``alternate-incomplete`` as
reading reports it (:mod:`feedmap.formats.ext._hreflang`).  The code lists are :mod:`feedmap._validate._subtags`
(generated from Debian's iso-codes); URLs compare by the key repeated URLs are found by (``url_key``), so that an
IRI and its escaped form are one page.

The return links, which span files, are :mod:`feedmap._validate.return_links`'; this module gives it each page's
alternates (:func:`check_links`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from lxml import etree

from feedmap._core.urls import is_http_url
from feedmap._validate._subtags import ISO_639_1, ISO_639_2_TO_1, ISO_3166_1
from feedmap._validate.values import check_url, plain_url
from feedmap._xml import XHTML_NS, line_of

__all__ = ["LINK_TAG", "Alternate", "check_hreflang", "check_links", "page_key"]

#: The tag of an alternate (the XHTML namespace's ``link``).
LINK_TAG = f"{{{XHTML_NS}}}link"

#: RFC 5646 §2.1's ``langtag``, lower case (tags are compared without case, §2.1.1); its named groups are the
#: primary language, the script and the region.
_LANGTAG = re.compile(
    r"(?P<language>[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4,8})"  # 2*3ALPHA ["-" extlang] / 4ALPHA / 5*8ALPHA
    r"(?:-(?P<script>[a-z]{4}))?"
    r"(?:-(?P<region>[a-z]{2}|[0-9]{3}))?"
    r"(?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*"  # variants
    r"(?:-[0-9a-wyz](?:-[a-z0-9]{2,8})+)*"  # extensions: a singleton other than x, then subtags
    r"(?:-x(?:-[a-z0-9]{1,8})+)?"  # private use
)
#: A private-use tag (``privateuse``) and the grandfathered tags (``irregular`` and ``regular``), lower case.
_PRIVATE = re.compile(r"x(?:-[a-z0-9]{1,8})+")
_GRANDFATHERED_TAGS = (
    "en-gb-oed i-ami i-bnn i-default i-enochian i-hak i-klingon i-lux i-mingo i-navajo i-pwn i-tao i-tay i-tsu "
    "sgn-be-fr sgn-be-nl sgn-ch-de art-lojban cel-gaulish no-bok no-nyn zh-guoyu zh-hakka zh-min zh-min-nan zh-xiang"
)
_GRANDFATHERED = frozenset(_GRANDFATHERED_TAGS.split())

#: Language codes written for another (a country's code, a code ISO 639-1 withdrew): what to write instead.
_LANGUAGE_HINTS = {
    "jp": "ja",
    "cn": "zh",
    "gr": "el",
    "dk": "da",
    "cz": "cs",
    "ua": "uk",
    "kr": "ko",
    "vn": "vi",
    "iw": "he",
    "in": "id",
    "ji": "yi",
    "jw": "jv",
    "mo": "ro",
    "sh": "sr, hr or bs",
}
_REGION_HINTS = {"uk": "GB"}

Problem = tuple[str, str]

#: The answers of :func:`check_hreflang` (a site writes a few values again and again); cleared when full.
_CHECKED: dict[str, Problem | None] = {}
_CHECKED_MAX = 4096
_UNKNOWN: Problem = ("", "")


def check_hreflang(value: str) -> Problem | None:
    """What is wrong with an hreflang value for Google (a ``(code, message)``), or None."""
    if value in _CHECKED:
        return _CHECKED[value]
    if len(_CHECKED) >= _CHECKED_MAX:
        _CHECKED.clear()
    problem = _CHECKED[value] = _problem(value)
    return problem


def _problem(value: str) -> Problem | None:
    tag = value.lower()
    if tag == "x-default":
        return None
    match = _LANGTAG.fullmatch(tag)
    if match is None:
        if tag in _GRANDFATHERED or _PRIVATE.fullmatch(tag):
            kind = "a private-use" if tag.startswith("x-") else "a grandfathered"
            return "hreflang-language-unknown", (
                f"hreflang {value!r} is {kind} BCP 47 tag, no ISO 639-1 language: Google reads a two-letter "
                "language code (de, en-GB) or x-default"
            )
        return "hreflang-invalid", f"hreflang {value!r} is no BCP 47 language tag{_written_as(value)}"
    language = match["language"].partition("-")[0]
    if language not in ISO_639_1:
        return "hreflang-language-unknown", f"hreflang {value!r}: {_language_hint(language)}"
    region = match["region"]
    if region is not None and region.upper() not in ISO_3166_1:
        return "hreflang-region-unknown", f"hreflang {value!r}: {_region_hint(region)}"
    return None


def _written_as(value: str) -> str:
    """What a value that is no language tag was meant to be, said as a hint (or nothing)."""
    dashed = value.strip().replace("_", "-")
    if dashed != value and _LANGTAG.fullmatch(dashed.lower()) is not None:
        return f"; write {dashed!r} (subtags are joined by '-')"
    return " (a language such as de, with an optional region: de-AT; or x-default)"


def _language_hint(language: str) -> str:
    said = f"language {language!r} is no ISO 639-1 code, which Google reads"
    meant = _LANGUAGE_HINTS.get(language) or ISO_639_2_TO_1.get(language)
    if meant is not None:
        return f"{said}; write {meant!r}"
    if language.upper() in ISO_3166_1:
        return f"{said} ({language.upper()} is a country's code: give the language first, then the region)"
    return said


def _region_hint(region: str) -> str:
    said = f"region {region.upper()!r} is no ISO 3166-1 alpha-2 country code, which Google reads"
    if region.isdigit():
        return f"{said} (a UN M.49 area code is BCP 47, but Google reads only country codes)"
    meant = _REGION_HINTS.get(region)
    return f"{said}; write {meant!r}" if meant is not None else said


#: One alternate of a page that names a page: its hreflang and href as written, the href's key, its line.
Alternate = tuple[str, str, str, int]

#: Reports one finding: code, message, line.
Find = Callable[[str, str, int], None]


def check_links(
    loc: str, own: str, line: int, links: Sequence[etree._Element], key: Callable[[str], str], find: Find
) -> list[Alternate]:
    """Check the ``xhtml:link`` elements of the ``<url>`` of ``loc`` (at ``line``; ``own``: its key); its
    alternates whose href is an absolute http(s) URL are returned (those the return links are checked for)."""
    alternates: list[Alternate] = []
    named: dict[str, Alternate] = {}  # hreflang, lower case -> its first alternate
    itself = False
    for link in links:
        alternate = _alternate(link, key, find)
        if alternate is None:
            continue
        alternates.append(alternate)
        hreflang, href, target, at = alternate
        itself = itself or target == own
        value = hreflang.lower()
        first = named.setdefault(value, alternate)
        if first[2] != target:
            what = "x-default" if value == "x-default" else f"hreflang {hreflang!r}"
            find(
                "hreflang-duplicate",
                f"{what} is given twice, for {first[1]} (line {first[3]}) and {href}: Google cannot tell which "
                "page is meant",
                at,
            )
    if alternates and not itself:
        find(
            "alternate-self-missing",
            f"{loc} names alternates but not itself: each language version lists itself as well as the others",
            line,
        )
    return alternates


def page_key(url: str, problem: tuple[str, str] | None, key: Callable[[str], str]) -> str:
    """The key of a URL :func:`~feedmap._validate.values.check_url` found no problem with (``problem``): the URL
    itself, an escaped URI, which both keys leave as it is (no call); else ``key(url)``."""
    return url if problem is None else key(url)


def _alternate(link: etree._Element, key: Callable[[str], str], find: Find) -> Alternate | None:
    """One ``xhtml:link``: an alternate with an absolute http(s) href, else None (its problem reported)."""
    get = link.get
    rel, hreflang, href = get("rel"), (get("hreflang") or "").strip(), (get("href") or "").strip()
    if rel != "alternate" or not hreflang or not href:
        _incomplete(link, rel, hreflang, href, find)
        return None
    at = line_of(link)
    problem = _CHECKED.get(hreflang, _UNKNOWN)
    if problem is _UNKNOWN:
        problem = check_hreflang(hreflang)
    if problem is not None:
        find(*problem, at)
    if plain_url(href) is not None and href.count("#") < 2:  # most hrefs: an escaped URI, its own key
        return hreflang, href, href, at
    url_problem = check_url(href)
    if url_problem is not None and url_problem[0] == "loc-not-absolute":
        find(
            "alternate-href-invalid",
            f"alternate href {href!r} is no absolute http(s) URL (Google wants it fully qualified)",
            at,
        )
        return None
    return hreflang, href, page_key(href, url_problem, key), at


def _incomplete(link: etree._Element, rel: str | None, hreflang: str, href: str, find: Find) -> None:
    """A link that is no alternate: reported as reading reports it, but for another relation (``amphtml``) and an
    app's link (``rel="alternate" href="android-app://..."``, which names no language)."""
    app_link = bool(href) and not is_http_url(href)
    if rel is None or (rel == "alternate" and not app_link):
        missing = " and ".join(
            name for name, value in (("rel", rel), ("hreflang", hreflang), ("href", href)) if not value
        )
        find(
            "alternate-incomplete",
            f"<xhtml:link> without {missing} is no hreflang alternate (Google's localized versions need "
            'rel="alternate", hreflang and href)',
            line_of(link),
        )
