"""The sitemaps.org 0.9 family (https://www.sitemaps.org/protocol.html): two formats, one reader.

* ``sitemap`` (:mod:`feedmap.formats.sitemap._urlset`): the ``<urlset>``, with the Google image and hreflang
  extensions of :mod:`feedmap.formats.ext`;
* ``sitemapindex`` (:mod:`feedmap.formats.sitemap._index`): the ``<sitemapindex>``, its own entries (following
  its children is :mod:`feedmap._web.follow`'s);
* :mod:`feedmap.formats.sitemap._read`: what both read, the root check and one ``<url>`` or ``<sitemap>``.

Each format module exposes ``FORMAT`` (a ``FormatSpec`` of :mod:`feedmap.formats`) and imports no other format.
"""
