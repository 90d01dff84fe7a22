"""The sitemaps.org 0.9 family: ``urlset`` sitemaps and sitemap indexes."""
