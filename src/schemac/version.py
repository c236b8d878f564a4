"""schemac's own version: one function, for ``--version`` and every file's banner."""

from __future__ import annotations

import functools


@functools.cache
def schemac_version() -> str:
    """The installed distribution's version (the source tree's when not installed)."""
    from importlib import metadata

    try:
        return metadata.version("schemac")
    except metadata.PackageNotFoundError:
        return "0+unknown"
