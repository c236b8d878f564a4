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


#: The aspects of an entry a *blind key* ignores, by position (Note [Keys blind
#: to an aspect]): its ``dispatch:`` kernel names, its default values, or both.
BLIND_ASPECTS: tuple[str, ...] = ("kernel-names", "defaults", "kernel-names+defaults")


class SourceKeyed(Views):
    """A slot for the value's source key (Note [Functions keyed by their source]
    in :mod:`schemac.ir.native`) and its blind keys (Note [Keys blind to an
    aspect]): outside the attrs fields, so ``attrs.evolve``, copies and pickles
    (all through ``__init__``) make values without them.

    Note [Keys blind to an aspect]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    Most emit calls print nothing of some parts of an entry: only the
    registrations, the ``_native.h`` headers and the functionalization kernels
    name a ``dispatch:`` entry's kernels, and nothing in ``Register<Key>.cpp``
    or ``VmapGeneratedPlumbing.h`` shows a default value.  Yet an edit of a
    kernel name changed the edited function's source key, so every unit whose
    slice held the function (all of them read every function) ran again, to
    rewrite nothing.  A value's *blind keys* are its source key with one aspect
    of the entry ignored, one per :data:`BLIND_ASPECTS`: the loader digests the
    entry's text with every kernel name, every default value, or both, replaced
    by a mark (``frontend/source_keys.py``), so two entries have equal blind
    keys for an aspect only if they differ in nothing but that aspect.  A unit
    that declares itself blind to an aspect (the registry's ``blind_to``) is
    keyed by those keys instead (``backends/reuse.py``'s :class:`Blind`).

    The keys travel as the source key does: :func:`derive_source_key` derives
    each blind key from the old value's with the same change, which is sound
    as long as the change maps values equal but for the aspect to values equal
    but for the aspect (a pass computing a resolution copies the kernel names,
    an out= variant copies the defaults).  What makes a unit's claim true is
    its code; ``tests/rebuild/test_blind_units.py`` compiles torch's YAML with
    every kernel name and every default changed and checks that each unit
    claiming blindness to that aspect writes the same bytes.

    Note [Derived keys kept as a path]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A derived key is its origin's key followed by each change that led to it
    (:func:`derive_source_key`).  Spelled out, every resolution, tagged copy,
    autogen'd variant and derivative info held its own copy of the origin's
    source key and three blind keys, each with the changes appended: ~31,000
    strings, 4 MiB of a ``-t headers`` run's heap at its peak.  So a value
    holds its origin's keys as one shared tuple (its *roots*) and the changes
    since as one string (its *path*), and the whole key is spelled only when
    asked for; the fingerprints hash the two parts without joining them
    (:meth:`SourceKeyed.key_parts`).
    """

    __slots__ = ("_key_path", "_key_roots")
    #: The origin's source key, then its blind keys (in BLIND_ASPECTS order) if it had them.
    _key_roots: tuple[str, ...]
    #: The changes since the origin, each ``+<length>:<change>``; "" for the origin itself.
    _key_path: str

    @property
    def source_key(self) -> str | None:
        """The digest of what this value was made from, if a loader or pass said;
        None for a value made any other way."""
        return self._spelled(0)

    def blind_key(self, aspect: int) -> str | None:
        """The source key blind to ``BLIND_ASPECTS[aspect]``, if the value has one."""
        return self._spelled(aspect + 1)

    @property
    def blind_keys(self) -> tuple[str, ...] | None:
        """Every blind key, in :data:`BLIND_ASPECTS` order, if the value has them."""
        try:
            roots = self._key_roots
        except AttributeError:
            return None
        if len(roots) == 1:
            return None
        path = self._key_path
        return tuple(root + path for root in roots[1:])

    def key_parts(self, slot: int) -> tuple[str, str] | None:
        """The root and path of key ``slot`` (0: the source key, ``1 + aspect``: a
        blind key), whose concatenation is the key; None if the value has no such key."""
        try:
            roots = self._key_roots
        except AttributeError:
            return None
        if slot >= len(roots):
            return None
        return roots[slot], self._key_path

    def _spelled(self, slot: int) -> str | None:
        parts = self.key_parts(slot)
        if parts is None:
            return None
        root, path = parts
        return root + path if path else root


def set_source_key(value: SourceKeyed, key: str, blind: tuple[str, ...] | None = None) -> None:
    """Record that ``value`` is exactly what ``key`` says it was made from, and
    (``blind``, one per :data:`BLIND_ASPECTS`) what each blind key says."""
    if blind is not None and len(blind) != len(BLIND_ASPECTS):
        raise ValueError(f"one blind key per aspect of {BLIND_ASPECTS}")
    _set_key(value, (key,) if blind is None else (key, *blind), "")


def _set_key(value: SourceKeyed, roots: tuple[str, ...], path: str) -> None:
    object.__setattr__(value, "_key_roots", roots)
    object.__setattr__(value, "_key_path", path)


def derive_source_key(old: SourceKeyed, new: SourceKeyed, change: str) -> None:
    """Give ``new`` a source key if ``old`` has one and ``new`` is exactly what
    ``change`` (a pass's description of what it did, with every value it used)
    makes of ``old``, and nothing else.  Equal old keys and equal changes then
    still mean equal values; and equal old blind keys, values equal but for
    their aspect (Note [Keys blind to an aspect])."""
    try:
        roots = old._key_roots
    except AttributeError:
        return
    _set_key(new, roots, f"{old._key_path}+{len(change)}:{change}")
