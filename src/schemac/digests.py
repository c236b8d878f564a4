"""The hash functions schemac uses, chosen in one place.

Not :mod:`hashlib`: importing it loads OpenSSL's ``libcrypto``, which adds
~3.5 MiB to the peak memory of every compile (more than the margin by which
``compile -t python`` missed torchgen's) and ~4 ms to its imports.  CPython
ships its own implementations as extension modules of a few dozen KiB:
``_blake2``, and ``_sha256`` (``_sha2`` from 3.12).  A Python built without
them (``--with-builtin-hashlib-hashes`` can leave them out) falls back to
:mod:`hashlib`, which then gives the same digests.

Two kinds of digest, never mixed:

* :func:`sha256` where the value is part of the output or of data schemac
  ships: the shard an operator's code goes to (output bytes, torchgen's
  layout), the release profiles' host-template digests.  These must never
  change.
* :func:`hasher` / :func:`hex_of` (BLAKE2b with a 32-byte digest, so 64 hex
  digits like SHA-256's) for everything schemac only ever compares with what
  it recorded itself: the run key, the state's file digests, unit, file and
  fragment keys, cache entries.  The builtin BLAKE2b hashes ~3x faster than
  the builtin SHA-256 on long data (~550-650 against ~200 MB/s here; a cold
  ``-t headers`` hashes ~38 MB) and as fast per short key.  Changing it
  changes every recorded digest: bump ``STATE_FORMAT`` (and the version of
  any cache keyed on it) so that old records are ignored, never misread.

This module imports only builtin modules, so every layer may use it, the
no-op check (:mod:`schemac.rebuild`) included.
"""

from __future__ import annotations

__all__ = ["INTERNAL", "hasher", "hex_of", "inner_hex_of", "sha256"]

# Not typing.TYPE_CHECKING: see schemac/__init__.py.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from typing_extensions import Buffer

    class Hasher(Protocol):
        """What schemac uses of a hash object (hashlib's and the builtins' alike)."""

        def update(self, data: Buffer, /) -> None: ...
        def digest(self) -> bytes: ...
        def hexdigest(self) -> str: ...

    # The builtins have no stubs; hashlib's function has their signature.
    from hashlib import sha256
else:
    import sys

    try:
        if sys.version_info >= (3, 12):
            from _sha2 import sha256
        else:
            from _sha256 import sha256
    except ImportError:  # a Python built without its own SHA-256
        from hashlib import sha256

try:
    from _blake2 import blake2b as _blake2b
except ImportError:  # a Python built without its own BLAKE2
    from hashlib import blake2b as _blake2b

#: The algorithm of :func:`hasher`, for keys and formats that must change with it.
INTERNAL = "blake2b-256"


def hasher(data: bytes = b"") -> Hasher:
    """A hash object for schemac's own records (see the module docstring)."""
    return _blake2b(data, digest_size=32)


def hex_of(data: bytes | memoryview) -> str:
    """The hex digest of ``data`` for schemac's own records: 64 hex digits."""
    return _blake2b(data, digest_size=32).hexdigest()


def inner_hex_of(data: bytes | memoryview) -> str:
    """A 128-bit BLAKE2b digest of ``data`` in 32 hex digits, for a digest that is
    only ever hashed again into one of :func:`hex_of`'s and kept by the
    thousand in memory (the remembered encodings of a run's fingerprints:
    Note [Remembered encodings kept small] in :mod:`schemac.backends.reuse`)."""
    return _blake2b(data, digest_size=16).hexdigest()
