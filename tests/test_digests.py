"""schemac.digests: SHA-256 where output depends on it, BLAKE2b for schemac's own records."""

from __future__ import annotations

import hashlib

from schemac.backends.host_release import host_text_digest
from schemac.backends.output import shard_index
from schemac.digests import hasher, hex_of, sha256


def test_sha256_is_sha256() -> None:
    # FIPS 180-2's test vector: whichever implementation was found, it is SHA-256.
    assert sha256(b"abc").hexdigest() == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


def test_what_decides_output_bytes_stays_sha256() -> None:
    # The shards (torchgen's file layout) and the profiles' host digests (data
    # extracted from wheels) must not move with the internal digest.
    for name in ("add", "add_", "linalg_solve_ex", "_foreach_mul"):
        number = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
        assert shard_index(name, 7) == number % 7
    assert host_text_digest("x") == hashlib.sha256(b"x").hexdigest()[:16]


def test_the_internal_digest_has_sha256s_width() -> None:
    # The state's records and the code memo expect 64 hex digits.
    digest = hasher(b"ab")
    digest.update(b"c")
    assert (
        digest.hexdigest() == hex_of(b"abc") == hashlib.blake2b(b"abc", digest_size=32).hexdigest()
    )
    assert len(hex_of(b"")) == 64
