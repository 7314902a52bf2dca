"""Results in, derived figures out: every figure the report shows, computed from the runs."""
