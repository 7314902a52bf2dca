"""c10k-bench's shared top: the `c10k` command, the catalog of every name, and statistics."""
