"""The harness: scenarios, isolated runs, probes, results, statistics and the report."""
