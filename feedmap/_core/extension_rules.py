"""The diagnostic codes of Google's sitemap extensions: images, news, video and localized versions (hreflang).

Specs: Google image sitemaps
(https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps), Google News sitemaps
(https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap), Google video sitemaps
(https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps), localized versions
(https://developers.google.com/search/docs/specialty/international/localized-versions) and BCP 47 language tags.
One job: these rules, a part of the table :mod:`feedmap._core.rules` holds (and cites by :data:`SPECS` name).
"""

from __future__ import annotations

from feedmap._core.rule import E, N, Rule, W

__all__ = ["EXTENSION_RULES"]

_LOCALIZED = "Google localized versions"
_NEWS, _VIDEO = "Google News sitemaps", "Google video sitemaps"

#: In the order the codes page lists them (after the sitemaps.org limits, before the empty files).
EXTENSION_RULES: tuple[Rule, ...] = (
    Rule("too-many-images", E, "more than 1,000 <image:image> in one <url>", "Google image sitemaps", repaired=W),
    Rule(
        "image-loc-invalid",
        E,
        "an <image:image> without an <image:loc> that is an absolute http(s) URL",
        "Google image sitemaps",
    ),
    Rule(
        "news-incomplete",
        E,
        "a <news:news> without the publication's name or language, the publication_date or the title",
        _NEWS,
    ),
    Rule(
        "news-value-invalid",
        E,
        "a news:news value of the wrong form (language, date) or one it cannot hold: kept as written",
        _NEWS,
        repaired=W,
    ),
    Rule("news-old", W, "a news:publication_date more than two days old: Google News leaves the article out", _NEWS),
    Rule("news-too-many", E, "more than 1,000 <news:news> in one file (written: a warning)", _NEWS, repaired=W),
    Rule(
        "video-incomplete",
        E,
        "a <video:video> without thumbnail_loc, title, description, or content_loc or player_loc",
        _VIDEO,
    ),
    Rule("video-url-invalid", E, "a video's thumbnail_loc, content_loc or player_loc that is no absolute URL", _VIDEO),
    Rule("video-description-too-long", E, "a video:description of more than 2,048 characters", _VIDEO),
    Rule("video-duration-invalid", E, "a video:duration that is not a whole number from 1 to 28,800", _VIDEO),
    Rule("video-rating-invalid", E, "a video:rating that is not a number from 0.0 to 5.0", _VIDEO),
    Rule(
        "video-value-invalid",
        E,
        "a video value of the wrong form (yes/no, count, date, relationship, over 32 tags) or one it cannot hold: "
        "kept as written",
        _VIDEO,
        repaired=W,
    ),
    Rule(
        "alternate-incomplete",
        W,
        'an <xhtml:link> without rel="alternate", hreflang and href: no alternate',
        "Google localized versions",
    ),
    Rule("hreflang-invalid", W, "an hreflang that is no BCP 47 language tag (en_US): Google cannot use it", "BCP 47"),
    Rule("hreflang-language-unknown", W, "an hreflang whose language is no ISO 639-1 code (jp, eng)", _LOCALIZED),
    Rule("hreflang-region-unknown", W, "an hreflang whose region is no ISO 3166-1 alpha-2 code (en-UK)", _LOCALIZED),
    Rule("hreflang-duplicate", W, "one page gives one hreflang (x-default too) to two different URLs", _LOCALIZED),
    Rule("alternate-href-invalid", W, "an alternate's href that is no absolute http(s) URL", _LOCALIZED),
    Rule("alternate-self-missing", W, "a page with hreflang alternates that does not name itself", _LOCALIZED),
    Rule("alternate-no-return", W, "a page named as an alternate that does not name the page back", _LOCALIZED),
    Rule("alternate-not-checked", N, "alternates naming pages not in the input: return links unchecked", _LOCALIZED),
)
