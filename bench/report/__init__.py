"""The report: a verdict table for the chapter's claims, charts and a self-contained page."""
