"""``ops/<op>_native.h`` and ``NativeFunctions.h``: declarations of the kernels.

For every dispatch key of every function, the kernel its dispatch table
names is declared in its C++ namespace (``at::native`` unless the YAML said
``ns::kernel``): an ordinary kernel as a function in the native view, a
structured kernel as the class that implements ``impl()`` for one backend,
deriving from the operator's meta class.  A kernel shared by several keys
or functions is declared once.  Kernels named ``legacy::...`` are bound
elsewhere and not declared.

Variant groups are asked for their kernel through the out= member, the one
a structured kernel is written for.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import attrs

from schemac.backends.aten.headers.catalog import Catalog, Entry, Family, Group
from schemac.backends.aten.headers.export_macros import (
    kernel_export,
    merges_shared_kernels,
    structured_export,
)
from schemac.backends.aten.signatures.native import kernel_is_symint
from schemac.backends.aten.signatures.table import ViewTable
from schemac.profiles import ReleaseProfile

LEGACY_MARK = "legacy::"


#: Keys whose kernels are not declared.  None today: MTIA's kernels live out
#: of tree, and torchgen declares them only with ``--mtia``; schemac always
#: does (a declaration nobody defines costs nothing, and ``_native.h`` then
#: does not depend on which targets a run selects).
UNDECLARED_KEYS: frozenset[str] = frozenset()


@attrs.frozen
class StructuredKernelDecl:
    structured: ClassVar[bool] = True

    export: str
    class_name: str
    base_class: str
    impl: str


@attrs.frozen
class KernelDecl:
    structured: ClassVar[bool] = False

    export: str
    #: The declaration without its export macro.
    signature: str

    @property
    def decl(self) -> str:
        return f"{self.export} {self.signature};"


Declaration = StructuredKernelDecl | KernelDecl


@attrs.frozen
class NamespaceDecls:
    namespace: str
    declarations: tuple[Declaration, ...]


#: Declarations already printed in one call, by (function, kernel name, export
#: macro): most kernels serve several dispatch keys.
_Printed = dict[tuple[str, str, str], KernelDecl]


@attrs.frozen
class _Scope:
    """What one call of :func:`kernel_declarations` shares between its items."""

    views: ViewTable
    profile: ReleaseProfile
    #: Whether the view table keeps the native signature views computed here
    #: (``ViewTable.native``): only for a later reader.
    keep_views: bool = True
    printed: _Printed = attrs.field(factory=dict)


def _unstructured(entry: Entry, key: str, scope: _Scope) -> Iterator[tuple[str, Declaration]]:
    kernel = entry.kernel(key)
    if kernel is None or kernel.name.startswith(LEGACY_MARK):
        return
    export = kernel_export(scope.profile, key, kernel.name)
    memo_key = (entry.schema, kernel.name, export)
    decl = scope.printed.get(memo_key)
    if decl is None:
        # A kernel's signature is its function's under the kernel's name: the
        # unnamed one (symbolic or not, as the name says) prints it, so a
        # function's kernels share one printed parameter list.
        symint = kernel_is_symint(kernel.name)
        sig = scope.views.native(entry.fn, kernel=None, symint=symint, keep=scope.keep_views)
        decl = scope.printed[memo_key] = KernelDecl(export, sig.decl(kernel.name))
    yield kernel.namespace, decl


def _declarations(
    item: Group | Entry, key: str, scope: _Scope
) -> Iterator[tuple[str, Declaration]]:
    if isinstance(item, Entry):
        yield from _unstructured(item, key, scope)
        return
    kernel = item.out.kernel(key)
    if item.meta is not None and kernel is not None and kernel.structured:
        impl = scope.views.structured_impl(item.meta, item.out.fn, kernel.name)
        yield (
            kernel.namespace,
            StructuredKernelDecl(
                structured_export(scope.profile, key, kernel.name),
                impl.class_name,
                item.meta.qualified_class_name,
                impl.impl.decl(),
            ),
        )
        return
    for member in item.members():
        yield from _unstructured(member, key, scope)


def _without_export(decl: Declaration) -> object:
    return attrs.evolve(decl, export="")


def _merged(existing: Declaration | None, incoming: Declaration) -> Declaration:
    """Note [One declaration per kernel]: TORCH_API wins, else the first key's macro."""
    if existing is None or (existing.export != "TORCH_API" and incoming.export == "TORCH_API"):
        return incoming
    return existing


def kernel_declarations(
    items: tuple[Group | Entry, ...],
    keys: tuple[str, ...],
    views: ViewTable,
    profile: ReleaseProfile,
    keep_views: bool = True,
) -> tuple[NamespaceDecls, ...]:
    # Declarations by namespace, keyed by themselves, or by their text without
    # the macro where the release merges a kernel shared by several keys.
    by_namespace: dict[str, dict[object, Declaration]] = {}
    scope = _Scope(views, profile, keep_views)
    merge = merges_shared_kernels(profile)
    for item in items:
        # Only keys some member has a kernel for can declare anything; most
        # functions have a kernel for two or three of the forty-odd keys.
        members = (item,) if isinstance(item, Entry) else tuple(item.members())
        present = {key for m in members for key in m.resolution.dispatch}
        for key in keys:
            if key not in present:
                continue
            for namespace, decl in _declarations(item, key, scope):
                decls = by_namespace.setdefault(namespace, {})
                if merge:
                    identity = _without_export(decl)
                    decls[identity] = _merged(decls.get(identity), decl)
                else:
                    decls[decl] = decl
    return tuple(NamespaceDecls(ns, tuple(decls.values())) for ns, decls in by_namespace.items())


def declared_keys(catalog: Catalog) -> tuple[str, ...]:
    return tuple(k for k in catalog.dispatch_keys if k not in UNDECLARED_KEYS)


@attrs.frozen
class NativeHeader:
    """One ``ops/<op>_native.h``."""

    root: str
    #: Structured operators' kernel classes derive from the meta classes.
    includes_meta: bool
    namespaces: tuple[NamespaceDecls, ...]


def native_header(
    family: Family,
    keys: tuple[str, ...],
    views: ViewTable,
    profile: ReleaseProfile,
    keep_views: bool = True,
) -> NativeHeader:
    """``keys``: the module's :func:`declared_keys`; ``keep_views``: whether
    ``views`` keeps the native signature views computed here."""
    return NativeHeader(
        root=family.root,
        includes_meta=bool(family.structured_groups),
        namespaces=kernel_declarations(family.items, keys, views, profile, keep_views),
    )


@attrs.frozen
class NativeUmbrella:
    includes: tuple[str, ...]


def native_umbrella(catalog: Catalog) -> NativeUmbrella:
    return NativeUmbrella(
        tuple(f"ATen/ops/{r}_native.h" for r in sorted(f.root for f in catalog.families))
    )
