"""An immutable, hashable mapping for IR fields.

The IR is made of frozen attrs classes so that a module can be kept, compared
and dumped after every pass.  Plain dicts would break that (mutable, not
hashable), and tuples of pairs make every lookup a linear scan; this class is a
tuple of pairs for equality and hashing with a private index for lookups.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Generic, TypeVar

import attrs

from schemac.ir.slots import Views

K = TypeVar("K")
V = TypeVar("V")


def _as_pairs(items: Iterable[tuple[K, V]]) -> tuple[tuple[K, V], ...]:
    return tuple(items)


class _MapIndex(Views, Generic[K, V]):
    """The slot of a map's lookup index (Note [IR classes without __getattr__])."""

    __slots__ = ("_index",)
    _index: dict[K, V]


# Slotted, with the lookup index in a slot of its own that is not an attrs
# field (generic IR printers walk the fields and must see only the pairs).
# A module holds ~3,000 of these maps (every dispatch table), and a
# per-instance __dict__ was one more object to build and free for each.
@attrs.frozen(eq=True, hash=True)
class FrozenMap(_MapIndex[K, V], Mapping[K, V]):
    """Insertion-ordered; ``FrozenMap(((k, v), ...))`` or :meth:`of`."""

    items_: tuple[tuple[K, V], ...] = attrs.field(default=(), converter=_as_pairs)

    def __attrs_post_init__(self) -> None:
        index = dict(self.items_)
        object.__setattr__(self, "_index", index)
        if len(index) != len(self.items_):
            raise ValueError("FrozenMap built with duplicate keys")

    @classmethod
    def of(cls, mapping: Mapping[K, V]) -> FrozenMap[K, V]:
        return cls(tuple(mapping.items()))

    def __getitem__(self, key: K) -> V:
        return self._index[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, key: object) -> bool:
        return key in self._index
