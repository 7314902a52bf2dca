"""The crawlers: one sans-I/O core (impls.core) and one module per concurrency model."""
