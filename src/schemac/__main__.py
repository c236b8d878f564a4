"""``python -m schemac``: the same as the ``schemac`` command."""

from schemac.launcher import run

run()
