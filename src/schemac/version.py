"""schemac's version: the one place it is written down.

``pyproject.toml`` reads it from here (hatch's version source), ``schemac
--version`` prints it, generated files' banners and the no-op fingerprint
(:mod:`schemac.rebuild`) include it.  This module imports nothing, so any
layer may use it and the no-op path pays nothing for it.
"""

from __future__ import annotations

__version__ = "0.1.0"


def version() -> str:
    """schemac's version, as ``pip show schemac`` reports it (``0.1.0``)."""
    return __version__
