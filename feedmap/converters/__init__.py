"""The steps between a reader and a writer: URL and field checks, repeated URLs, filters, sorting, the
conversions between document kinds (feed to sitemap, sitemap to ROR) and enrichment from the pages."""
