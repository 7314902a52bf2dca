"""`c10k crawl` and `c10k models`: the crawlers' command line."""
