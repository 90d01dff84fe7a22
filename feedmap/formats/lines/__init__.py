"""The line formats: one entry per line, read and written as a stream.

* ``text`` (:mod:`feedmap.formats.lines._text`): the sitemaps.org 0.9 text sitemap, one URL per line;
* ``jsonl`` (:mod:`feedmap.formats.lines._jsonl`): the IR as JSON Lines (https://jsonlines.org/), one object
  per entry, every field kept;
* :mod:`feedmap.formats.lines._common`: what both read, lines split and capped (``line-too-long``).

Each format module exposes ``FORMAT`` (a ``FormatSpec`` of :mod:`feedmap.formats`) and imports no other format.
"""
