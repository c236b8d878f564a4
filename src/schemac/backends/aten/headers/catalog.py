"""The operators of a module, arranged the way ATen's headers are split.

Per-operator headers are named after an operator's *root* name (``add`` for
``add.Tensor``, ``add_.Tensor`` and ``add.out``; ``and`` for ``__and__``), so
every emitter starts from the same question: which functions, which variant
groups, which structured groups share a root name.  :class:`Catalog`
answers it once, and carries each function's signature views
(:class:`Entry`) so that no emitter computes a view itself.

The module must have been through the resolution and grouping passes; a
function without a resolved dispatch table is a pipeline error, not an input
error, and raises ``KeyError``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import attrs

from schemac.backends.aten.signatures import (
    CppSignatureGroup,
    DispatcherSignature,
    cpp_signature_group,
    has_symint,
)
from schemac.backends.aten.signatures.naming import root_name, unambiguous_name
from schemac.backends.aten.signatures.structured import StructuredMeta
from schemac.backends.aten.signatures.table import ViewTable
from schemac.ir.groups import VariantGroup
from schemac.ir.module import Module
from schemac.ir.names import OperatorName
from schemac.ir.native import NativeFunction, Variant
from schemac.ir.resolved import Kernel, Resolution
from schemac.profiles import ReleaseProfile, reference_profile


@attrs.frozen
class Entry:
    """One native function with its resolved dispatch and its C++ views.

    The views are computed on first use (and kept): a re-run that keeps a
    function's files and reuses its fragments of the aggregate headers (Note
    [File reuse], Note [Fragment reuse]) never computes them.
    """

    fn: NativeFunction
    resolution: Resolution
    #: The run's view table, which the views are asked of.
    views: ViewTable = attrs.field(eq=False, repr=False)

    #: What a file made from this entry reads (Note [File reuse]): every view
    #: is computed from ``fn``.
    reuse_fields = ("fn", "resolution")

    @functools.cached_property
    def direct(self) -> CppSignatureGroup:
        """``at::`` overloads as the per-dispatch-key namespaces declare them
        (never a fallback binding)."""
        return self.views.cpp_group(self.fn)

    @functools.cached_property
    def functions(self) -> CppSignatureGroup:
        """``at::`` overloads as Functions.h declares them (``__dispatch_*`` for
        ``manual_cpp_binding`` operators)."""
        fn = self.fn
        return (
            cpp_signature_group(fn, fallback_binding=True) if fn.manual_cpp_binding else self.direct
        )

    @functools.cached_property
    def methods(self) -> CppSignatureGroup | None:
        """``Tensor::`` overloads; None unless the operator is a method."""
        fn = self.fn
        if not self.is_method:
            return None
        return cpp_signature_group(fn, method=True, fallback_binding=fn.manual_cpp_binding)

    @functools.cached_property
    def dispatcher(self) -> DispatcherSignature:
        return self.views.dispatcher(self.fn)

    @functools.cached_property
    def struct_name(self) -> str:
        """``add_Tensor``: the operator's struct in ``at::_ops``."""
        return unambiguous_name(self.fn.func)

    @functools.cached_property
    def schema(self) -> str:
        """The canonical schema text, printed once (headers quote it many times)."""
        return str(self.fn.func)

    @property
    def name(self) -> OperatorName:
        return self.fn.func.name

    @property
    def qualified_schema(self) -> str:
        return f"{self.fn.namespace}::{self.schema}"

    @property
    def is_function(self) -> bool:
        return Variant.function in self.fn.variants

    @property
    def is_method(self) -> bool:
        return Variant.method in self.fn.variants

    @property
    def has_symint(self) -> bool:
        return has_symint(self.fn.func)

    def kernel(self, key: str) -> Kernel | None:
        return self.resolution.dispatch.get(key)


@attrs.frozen
class Group:
    """A variant group with its members' entries (see :class:`~schemac.ir.groups.VariantGroup`)."""

    functional: Entry
    out: Entry
    inplace: Entry | None = None
    mutable: Entry | None = None
    #: Whether the out= member is a structured kernel (then :attr:`meta` is its meta class).
    structured: bool = False

    #: What a file made from this group reads (Note [File reuse]): ``meta`` is
    #: computed from the functional and out= functions when ``structured``.
    reuse_fields = ("functional", "out", "inplace", "mutable", "structured")

    @property
    def meta(self) -> StructuredMeta | None:
        """The meta class of a structured group, made on first use (and kept by
        the view table): an edit run that keeps a family's files never asks.  A
        property, not a cached one: attrs would give the class a ``__getattr__``
        (Note [IR classes without __getattr__])."""
        if not self.structured:
            return None
        return self.functional.views.structured_meta(self.functional.fn, self.out.fn)

    def members(self) -> Iterator[Entry]:
        yield self.functional
        yield self.out
        if self.inplace is not None:
            yield self.inplace
        if self.mutable is not None:
            yield self.mutable


#: One item of a grouped listing: a variant group, or a function in none.
Item = Group | Entry


@attrs.frozen
class Family:
    """Everything sharing one root name: the contents of one set of ``ops/`` headers."""

    root: str
    entries: tuple[Entry, ...]
    items: tuple[Item, ...]

    #: Every field (Note [File reuse]); named so that a run digests a family once.
    reuse_fields = ("root", "entries", "items")

    @property
    def structured_groups(self) -> tuple[Group, ...]:
        return tuple(i for i in self.items if isinstance(i, Group) and i.structured)

    @property
    def has_methods(self) -> bool:
        return any(e.is_method for e in self.entries)


@attrs.frozen
class Catalog:
    #: Families in order of first appearance; each family's entries in module order.
    families: tuple[Family, ...]
    #: Every dispatch key some function has a kernel for, in order of first appearance.
    dispatch_keys: tuple[str, ...]
    #: Every function, in module order.
    entries: tuple[Entry, ...]
    #: The run's view table: a view an entry does not carry (a kernel's native
    #: signature) is asked of it, so it is computed once per run and shared
    #: with the registration files.
    views: ViewTable = attrs.field(factory=ViewTable, eq=False, repr=False)
    #: The target release's policy (export macros, TensorBody members).
    profile: ReleaseProfile = attrs.field(factory=reference_profile, eq=False, repr=False)

    @functools.cached_property
    def by_name(self) -> dict[OperatorName, Entry]:
        """Every entry by its operator's name.

        Kept here, not as a derived value of the view table: each entry holds
        the table, so a table holding the entries was a reference cycle that
        kept the catalog and every view alive until a cyclic collection (there
        is none in a compile: Note [Views dropped with the run] in
        :mod:`schemac.backends.driver`)."""
        return {e.name: e for e in self.entries}


def build_catalog(
    module: Module, views: ViewTable | None = None, profile: ReleaseProfile | None = None
) -> Catalog:
    """``views``: the run's view table, if other emitters share it."""
    views = ViewTable() if views is None else views
    entries = {
        f.func.name: Entry(f, module.resolution(f.func.name), views) for f in module.functions
    }

    def item(grouped: VariantGroup | OperatorName) -> Item:
        if not isinstance(grouped, VariantGroup):
            return entries[grouped]
        return Group(
            functional=entries[grouped.functional],
            out=entries[grouped.out],
            inplace=None if grouped.inplace is None else entries[grouped.inplace],
            mutable=None if grouped.mutable is None else entries[grouped.mutable],
            structured=grouped.structured,
        )

    by_root: dict[str, list[Entry]] = {}
    for entry in entries.values():
        by_root.setdefault(root_name(entry.fn.func), []).append(entry)
    items_by_root: dict[str, list[Item]] = {}
    for grouped in module.grouped_functions:
        it = item(grouped)
        head = it.functional if isinstance(it, Group) else it
        items_by_root.setdefault(root_name(head.fn.func), []).append(it)

    keys: dict[str, None] = {}
    for entry in entries.values():
        keys.update(dict.fromkeys(entry.resolution.dispatch))
    families = tuple(
        Family(root, tuple(members), tuple(items_by_root.get(root, ())))
        for root, members in by_root.items()
    )
    return Catalog(
        families=families,
        dispatch_keys=tuple(keys),
        entries=tuple(entries.values()),
        views=views,
        profile=reference_profile() if profile is None else profile,
    )
