"""The checks of one ``news:news`` or ``video:video`` of a sitemap, on the raw XML: each says what is wrong.

Specs: Google News sitemaps 0.9 (https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap:
the publication's name and language, the publication date and the title are required; the language an ISO 639
code of two or three letters, ``zh-cn`` or ``zh-tw``; the date W3C Datetime; only articles of the last two days
belong in a news sitemap; at most 1,000 ``news:news`` a file) and Google video sitemaps 1.1
(https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps: ``thumbnail_loc``,
``title``, ``description`` and ``content_loc`` or ``player_loc`` are required; the description at most 2,048
characters; the duration 1 to 28,800 seconds; the rating 0.0 to 5.0; the URLs absolute; yes/no values, dates,
``relationship`` ``allow`` or ``deny``, at most 32 tags).  Text is read as the XSDs read it: blanks around a
value do not count.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

from lxml import etree

from feedmap._core.dates import W3CDate
from feedmap._core.model import MAX_COUNT
from feedmap._core.urls import is_http_url
from feedmap._xml import NEWS_NS, VIDEO_NS, line_of

__all__ = ["NEWS_TAG", "VIDEO_TAG", "check_news", "check_video"]

NEWS_TAG = f"{{{NEWS_NS}}}news"
VIDEO_TAG = f"{{{VIDEO_NS}}}video"
#: ``news:news`` elements one file may hold.
#: How old an article of a news sitemap may be.
NEWS_AGE = dt.timedelta(days=2)
_MAX_DESCRIPTION = 2048
_MAX_DURATION = 28_800
_MAX_TAGS = 32
_LANGUAGE = re.compile(r"zh-cn|zh-tw|[a-z]{2,3}")
_COUNT = re.compile(r"\+?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_YES_NO = frozenset({"yes", "no"})
_RELATIONSHIPS = frozenset({"allow", "deny"})

#: Reports one finding: code, message, line.
Find = Callable[[str, str, int], None]


def _text(element: etree._Element | None) -> str:
    return (element.text or "").strip() if element is not None else ""


def _date(text: str) -> W3CDate | None:
    try:
        return W3CDate(text)
    except ValueError:
        return None


def check_news(news: etree._Element, find: Find, now: dt.datetime) -> None:
    """The findings of one ``news:news``: required parts missing or empty, a language or date of the wrong form,
    an article older than two days."""
    ns = f"{{{NEWS_NS}}}"
    publication = news.find(f"{ns}publication")
    name = publication.find(f"{ns}name") if publication is not None else None
    language = publication.find(f"{ns}language") if publication is not None else None
    date = news.find(f"{ns}publication_date")
    parts = (("news:name", name), ("news:language", language), ("news:publication_date", date))
    missing = [what for what, element in (*parts, ("news:title", news.find(f"{ns}title"))) if not _text(element)]
    if missing:
        find("news-incomplete", f"<news:news> without {', '.join(missing)} (Google requires each)", line_of(news))
    code = _text(language)
    if language is not None and code and _LANGUAGE.fullmatch(code) is None:
        message = f"news:language {code!r} is not an ISO 639 code (two or three lowercase letters, zh-cn, zh-tw)"
        find("news-value-invalid", message, line_of(language))
    written = _text(date)
    if date is None or not written:
        return
    when = _date(written)
    if when is None:
        find("news-value-invalid", f"news:publication_date {written!r} is not a W3C Datetime", line_of(date))
    elif when.to_datetime() < now - NEWS_AGE:
        message = f"news:publication_date {written} is more than two days old: Google News leaves the article out"
        find("news-old", message, line_of(date))


def check_video(video: etree._Element, find: Find) -> None:
    """The findings of one ``video:video``: required parts missing, URLs not absolute, a description, duration,
    rating or other value out of its range or of the wrong form."""
    line = line_of(video)
    values: dict[str, list[etree._Element]] = {}
    for child in video:
        if isinstance(child.tag, str) and child.tag.startswith(f"{{{VIDEO_NS}}}"):
            values.setdefault(child.tag[len(VIDEO_NS) + 2 :], []).append(child)

    def text(name: str) -> str:
        return _text(values[name][0]) if name in values else ""

    def at(name: str) -> int:
        return line_of(values[name][0]) if name in values else line

    missing = [name for name in ("thumbnail_loc", "title", "description") if not text(name)]
    if not text("content_loc") and not text("player_loc"):
        missing.append("content_loc or player_loc")
    if missing:
        find("video-incomplete", f"<video:video> without {', '.join(missing)} (Google requires each)", line)
    for name in ("thumbnail_loc", "content_loc", "player_loc"):
        url = text(name)
        if url and not is_http_url(url):
            find("video-url-invalid", f"video:{name} {url!r} is not an absolute http(s) URL", at(name))
    description = text("description")
    if len(description) > _MAX_DESCRIPTION:
        message = f"video:description of {len(description):,} characters; Google takes at most {_MAX_DESCRIPTION:,}"
        find("video-description-too-long", message, at("description"))
    duration = text("duration")
    if duration and (_COUNT.fullmatch(duration) is None or not 1 <= _small(duration) <= _MAX_DURATION):
        message = f"video:duration {duration!r} is not 1 to {_MAX_DURATION:,} seconds"
        find("video-duration-invalid", message, at("duration"))
    rating = text("rating")
    if rating and (_DECIMAL.fullmatch(rating) is None or not 0.0 <= float(rating) <= 5.0):
        find("video-rating-invalid", f"video:rating {rating!r} is not a number from 0.0 to 5.0", at("rating"))
    for message, where in _forms(values, text):
        find("video-value-invalid", message, line_of(where) if where is not None else line)


def _small(digits: str) -> int:
    """The value of a count's digits, or one more than :data:`MAX_COUNT` for a longer text (never converted:
    Python refuses integers of over 4,300 digits)."""
    significant = digits.lstrip("+0")
    return int(digits) if len(significant) <= len(str(MAX_COUNT)) else MAX_COUNT + 1


def _forms(
    values: dict[str, list[etree._Element]], text: Callable[[str], str]
) -> list[tuple[str, etree._Element | None]]:
    """The values of the wrong form (yes/no, a count, a date, a relationship, too many tags), each with its
    element."""
    wrong: list[tuple[str, etree._Element | None]] = []
    for name in ("family_friendly", "requires_subscription", "live"):
        if name in values and text(name).lower() not in _YES_NO:
            wrong.append((f"video:{name} {text(name)!r} is not yes or no", values[name][0]))
    count = text("view_count")
    if "view_count" in values and (_COUNT.fullmatch(count) is None or _small(count) > MAX_COUNT):
        message = f"video:view_count {count[:40]!r} is not a whole number of at most {MAX_COUNT:,}"
        wrong.append((message, values["view_count"][0]))
    for name in ("expiration_date", "publication_date"):
        if name in values and _date(text(name)) is None:
            wrong.append((f"video:{name} {text(name)!r} is not a W3C Datetime", values[name][0]))
    for name in ("restriction", "platform"):
        for element in values.get(name, ()):
            relationship = element.get("relationship")
            if relationship not in _RELATIONSHIPS:
                wrong.append((f'video:{name} needs relationship="allow" or "deny", not {relationship!r}', element))
    tags = values.get("tag", [])
    if len(tags) > _MAX_TAGS:
        wrong.append((f"{len(tags)} video:tag elements; Google reads at most {_MAX_TAGS}", tags[_MAX_TAGS]))
    return wrong
