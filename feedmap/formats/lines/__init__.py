"""The line formats: plain-text sitemaps (one URL per line) and JSON lines (one entry per line)."""
