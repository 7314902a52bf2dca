"""The regression gate: the benchmark suites, their comparison with a baseline, stability."""
