"""One module per concurrency model, each readable alone."""
