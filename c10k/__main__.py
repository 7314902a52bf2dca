"""`python -m c10k`: the same as the `c10k` command."""

import sys

from c10k.cli import main

sys.exit(main())
