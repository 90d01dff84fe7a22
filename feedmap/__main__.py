"""``python -m feedmap``: the same as the ``feedmap`` command."""

import sys

from feedmap.cli import main

sys.exit(main())
