"""Where schemac keeps derived files between runs (built parser tables, compiled templates).

Everything stored here is content-addressed: a file's name hashes everything
its contents depend on, so a stale entry is never used, only left behind.  The
directory is the user's own cache directory (``$XDG_CACHE_HOME/schemac`` or
``~/.cache/schemac``), created private, never a shared temporary directory:
both Lark's tables and Mako's compiled templates are loaded as code.
Setting ``SCHEMAC_NO_CACHE`` turns caching off; a directory that cannot be
created means working without a cache, never an error.

This module imports nothing from schemac but :mod:`schemac.digests`, so every
layer may use it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

from schemac.digests import hasher

DISABLE_VARIABLE = "SCHEMAC_NO_CACHE"


def cache_subdir(*parts: str) -> Path | None:
    """``<cache>/schemac/<parts...>``, created if needed; None when caching is off."""
    if os.environ.get(DISABLE_VARIABLE):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    directory = Path(base, "schemac", *parts)
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return None
    return directory


def content_key(pieces: Iterable[str | bytes]) -> str:
    """A short hex digest of ``pieces`` (order matters), for cache file names."""
    digest = hasher()
    for piece in pieces:
        data = piece.encode("utf-8") if isinstance(piece, str) else piece
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()[:32]


def store(path: Path, data: bytes) -> None:
    """Write ``data`` to the cache file ``path`` atomically (a temporary file
    beside it, then a rename); errors are ignored: a cache may always miss."""
    import tempfile

    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
