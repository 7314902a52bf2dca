"""The harness: a plan of runs, each in its own process, and results.json with every figure."""
