"""``python -m feedmap``: the same as the ``feedmap`` command."""

from feedmap.cli import console

console()
