"""Splitting output into files of at most 50,000 URLs / 52,428,800 bytes (sitemaps.org) with an index, and
publishing a directory without churn (unchanged files kept, a lock, atomic replacement)."""
