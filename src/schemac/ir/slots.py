"""Slots beside an attrs class's fields, for values computed from them.

Note [IR classes without __getattr__]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
attrs gives a slotted class that has a ``functools.cached_property`` a slot
for it and a generated ``__getattr__`` that fills the slot on first access.
A class with a ``__getattr__`` loses CPython's fast path for *every*
attribute read on its instances: the interpreter cannot specialise the read
of a field (``schema.name``, ``f.func``, ``args.positional``), which then
goes through the type's generic lookup and the ``__getattr__`` hook: ~90 ns
instead of ~10 ns a read, and the IR's names, schemas, argument lists,
functions and dispatch maps are read millions of times per compile.

So those classes declare the slots of their computed values in a plain base
class instead (:class:`Views` subclasses with ``__slots__``; attrs keeps them
and adds its fields' slots in the subclass it builds).  A value that nearly
every instance needs is put in its slot by ``__attrs_post_init__`` and read
as a plain attribute; a value computed on demand sits behind a property that
fills a private slot.  An instance made without ``__init__`` would have
empty slots, so copies and unpickled instances are made by ``__init__``
(:meth:`Views.__reduce__`), which fills them (and checks the value again).
tests/grammar/test_views_filled_at_construction.py checks that the hot IR
classes have no ``__getattr__`` and that copies read the same views.
"""

from __future__ import annotations

from typing import Any

import attrs


class Views:
    """The base of a slots-holding base class of an attrs class (see the Note above)."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Positional, in field order: each class using this has no keyword-only field.
        cls = type(self)
        return cls, tuple([getattr(self, field.name) for field in attrs.fields(cls)])  # type: ignore[arg-type]


class SourceKeyed(Views):
    """A slot for the value's source key (Note [Functions keyed by their source]
    in :mod:`schemac.ir.native`): outside the attrs fields, so ``attrs.evolve``,
    copies and pickles (all through ``__init__``) make values without one."""

    __slots__ = ("_source_key",)
    _source_key: str

    @property
    def source_key(self) -> str | None:
        """The digest of what this value was made from, if a loader or pass said;
        None for a value made any other way."""
        try:
            return self._source_key
        except AttributeError:
            return None


def set_source_key(value: SourceKeyed, key: str) -> None:
    """Record that ``value`` is exactly what ``key`` says it was made from."""
    object.__setattr__(value, "_source_key", key)


def derive_source_key(old: SourceKeyed, new: SourceKeyed, change: str) -> None:
    """Give ``new`` a source key if ``old`` has one and ``new`` is exactly what
    ``change`` (a pass's description of what it did, with every value it used)
    makes of ``old``, and nothing else.  Equal old keys and equal changes then
    still mean equal values."""
    key = old.source_key
    if key is not None:
        set_source_key(new, f"{key}+{len(change)}:{change}")
