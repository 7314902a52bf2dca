"""Investigation tools: experiments run by hand beside the pipeline, never by `c10k bench`."""
