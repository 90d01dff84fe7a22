"""The syndication feeds: RSS 0.9x/1.0/2.0 and Atom read, RSS 2.0 and Atom 1.0 written, and ROR in RSS 2.0.

* ``rss`` (:mod:`feedmap.formats.feeds._rss`): feeds read by :mod:`._feedread` (streamed with lxml,
  :mod:`._stream`, one item at a time by :mod:`._item`, their extension elements by :mod:`._ext`; those lxml
  cannot read through feedparser, :mod:`._parsed`, after :mod:`._repair`), written as RSS 2.0 (:mod:`._rsswrite`,
  items by :mod:`._rssitem`, HTML by :mod:`._html`);
* ``atom`` (:mod:`feedmap.formats.feeds._atom`): Atom 1.0 written by :mod:`._atomwrite` (ids by :mod:`._atomid`,
  dates by :mod:`._rfc3339`), read by :mod:`._feedread` as ``rss`` reads;
* ``ror`` (:mod:`feedmap.formats.feeds._ror`): RSS 2.0 carrying ROR elements (http://rorweb.com/0.1/), read
  by :mod:`._rorread`, written through :mod:`._rsswrite`;
* what the readers share: :mod:`._vocab` (namespaces, text constructs, dates) and :mod:`._links` (Atom links);
* what ``feedmap validate`` checks of a feed: :mod:`._channel_checks` and :mod:`._channel_values`.

Each format module exposes ``FORMAT`` (a ``FormatSpec`` of :mod:`feedmap.formats`) and imports no other format.
"""
