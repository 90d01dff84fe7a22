"""The syndication feeds: RSS 2.0 and Atom read through feedparser and a streaming reader, RSS written, and
RSS 2.0 carrying ROR elements."""
