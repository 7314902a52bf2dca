"""Peers: crawlers a user would pick instead of writing one, run under the crawl contract."""
