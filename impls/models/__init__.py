"""The crawlers, one module per concurrency model, each readable alone."""
