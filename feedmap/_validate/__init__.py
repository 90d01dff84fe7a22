"""The ``validate`` command: sitemaps, text sitemaps and feeds checked against sitemaps.org 0.9, RSS 2.0 and
the ROR schema, with a report of findings."""
