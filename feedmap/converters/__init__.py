"""Post-read steps that turn one document into another (feed -> sitemap, sitemap -> ROR, ...)."""
