"""``python -m schemac``: the same as the ``schemac`` command."""

from schemac.cli import main

raise SystemExit(main())
