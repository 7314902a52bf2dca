"""The benchmark: the harness, the report and the regression gate, one folder each."""
