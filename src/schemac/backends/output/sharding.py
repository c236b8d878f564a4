"""Stable assignment of items to numbered shard files.

Large outputs (a registration file for every operator of a backend) are split
into ``Name_0.cpp`` ... ``Name_{N-1}.cpp`` so a build can compile them in
parallel, plus ``NameEverything.cpp`` holding every item, which build systems
that prefer one big file use instead (torchgen writes the same file list, so
schemac's outputs drop into PyTorch's build unchanged).

An item goes to the shard picked by a hash of its key (the operator name), not
by its position: adding an operator changes exactly one shard file (and the
Everything file), so an incremental build recompiles one shard, not all of
them.  The hash is SHA-256, not Python's ``hash()``, so the assignment is the
same for every ``PYTHONHASHSEED``, platform and Python version; and it stays
SHA-256 (:func:`schemac.digests.sha256`), since it decides output bytes.  Items keep
their input order inside a shard.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath
from typing import TypeVar

import attrs

from schemac.digests import sha256

T = TypeVar("T")

#: The suffix of the file that holds every item (``RegisterCPUEverything.cpp``).
EVERYTHING_SUFFIX = "Everything"


def shard_index(key: str, num_shards: int) -> int:
    """The shard, in ``range(num_shards)``, that the item with ``key`` goes to."""
    if num_shards < 1:
        raise ValueError(f"num_shards must be at least 1, got {num_shards}")
    return _key_number(key) % num_shards


@functools.cache
def _key_number(key: str) -> int:
    # Remembered for the process: a compile of torch's -t all shards the same
    # ~3,000 operator names ~15,000 times (every dispatch key's registration
    # files, the Operators and Python binding files); a pure function of key.
    digest = sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def sharded(
    items: Iterable[T], key: Callable[[T], str], num_shards: int
) -> tuple[tuple[T, ...], ...]:
    """``items`` split into ``num_shards`` tuples by :func:`shard_index` of ``key``."""
    buckets: list[list[T]] = [[] for _ in range(num_shards)]
    for item in items:
        buckets[shard_index(key(item), num_shards)].append(item)
    return tuple(tuple(bucket) for bucket in buckets)


def with_stem_suffix(path: str, suffix: str) -> str:
    """``path`` with ``suffix`` inserted before its extension, as
    ``PurePosixPath``'s ``with_name(stem + suffix + suffix)`` prints it.

    A plain relative path (no empty, ``.`` or absolute components, a name
    that neither starts nor ends with ``.``: every output path) is cut with
    string operations at its name's last ``.``, pathlib's rule for such a
    name; anything else goes through pathlib.  Building the
    ``PurePosixPath`` was ~50,000 instructions a call, ~100 calls a compile.
    """
    head, _, name = path.rpartition("/")
    if (
        not name
        or name.startswith(".")
        or name.endswith(".")
        or path.startswith("/")
        or "//" in path
        or "/./" in f"/{head}/"
        or "/" in suffix
    ):
        pure = PurePosixPath(path)
        return str(pure.with_name(f"{pure.stem}{suffix}{pure.suffix}"))
    dot = name.rfind(".")
    name = f"{name}{suffix}" if dot < 0 else f"{name[:dot]}{suffix}{name[dot:]}"
    return f"{head}/{name}" if head else name


@attrs.frozen
class ShardedFile:
    """The names of one sharded output: ``ATen/RegisterCPU.cpp`` with 4 shards."""

    path: str
    num_shards: int

    def _with_stem_suffix(self, suffix: str) -> str:
        return with_stem_suffix(self.path, suffix)

    def shard_path(self, index: int) -> str:
        if not 0 <= index < self.num_shards:
            raise ValueError(f"shard {index} out of range for {self.num_shards} shards")
        return self._with_stem_suffix(f"_{index}")

    @property
    def everything_path(self) -> str:
        return self._with_stem_suffix(EVERYTHING_SUFFIX)

    @property
    def shard_paths(self) -> tuple[str, ...]:
        return tuple(self.shard_path(index) for index in range(self.num_shards))
