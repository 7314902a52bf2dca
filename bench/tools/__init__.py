"""Investigation programs: run by hand to check a choice, never by the pipeline."""
