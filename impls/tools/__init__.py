"""Programs beside the crawlers: idle units, the fixed CPU loop, the replay, the thread ceiling."""
