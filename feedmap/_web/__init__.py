"""Following the web of sitemaps: index children under the site and depth rules, discovery from robots.txt,
and the sitemap tree."""
