"""`python -m server ARGS`: the same as `c10k serve ARGS`."""

import sys

from server.cli import main

sys.exit(main())
