"""The test website: a deterministic site model and the aiohttp server that serves it."""
