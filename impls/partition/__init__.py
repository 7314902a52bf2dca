"""`c10k crawl --processes P`: the coordinator, and each style's link to it."""
