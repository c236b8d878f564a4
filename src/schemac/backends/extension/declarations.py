"""``OUT/<ns>/kernels/<root>.h``: every kernel the YAML names, declared.

Each kernel of ``dispatch:`` gets ATen's native signature for its schema, in
the namespace of its name (``<ns>::native`` unless written ``ns::kernel``);
a structured out= operator gets its meta class (``<ns>::meta::structured_<op>``,
whose ``meta()`` the user writes with ``TORCH_META_FUNC``) and one class per
backend kernel (``impl()``, ``TORCH_IMPL_FUNC``).  ``kernels.h`` includes
every family's header; a kernel source that includes only its own family's
header is recompiled only when that family changes.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.registrations.cpp import block
from schemac.backends.cppmodel import namespace_block
from schemac.backends.extension.library import ExtensionLibrary, Family
from schemac.backends.extension.views import ExtensionViews
from schemac.ir.groups import VariantGroup
from schemac.ir.native import NativeFunction


@attrs.frozen
class FamilyDeclarations:
    """What ``kernels.h.mako`` lays out for one family."""

    root: str
    structured: bool
    #: ``namespace a::b { ... }`` blocks, meta classes first.
    blocks: tuple[str, ...]


def structured_groups(library: ExtensionLibrary) -> dict[str, VariantGroup]:
    """Structured variant groups by the name of their out= member."""
    return {str(g.out): g for g in library.module.groups if g.structured}


def family_declarations(
    library: ExtensionLibrary, family: Family, views: ExtensionViews
) -> FamilyDeclarations:
    by_namespace: dict[str, list[str]] = {}
    groups = structured_groups(library)
    structured = False
    for f in family.functions:
        group = groups.get(str(f.func.name))
        if group is not None:
            structured = True
            functional = library.module.function(group.functional)
            meta = views.structured_meta(functional, f)
            by_namespace.setdefault(library.meta_namespace, []).append(
                block(
                    f"struct {meta.class_name} : public {meta.base_class}",
                    [f"{meta.meta.decl()};"],
                    tail=";",
                )
            )
        by_namespace_items = _kernel_declarations(library, f, views)
        for namespace, text in by_namespace_items:
            by_namespace.setdefault(namespace, []).append(text)
    blocks = tuple(
        namespace_block(namespace, "\n\n".join(texts)) for namespace, texts in by_namespace.items()
    )
    return FamilyDeclarations(family.root, structured, blocks)


def _kernel_declarations(
    library: ExtensionLibrary, f: NativeFunction, views: ExtensionViews
) -> Iterator[tuple[str, str]]:
    resolution = library.module.resolutions.get(f.func.name)
    if resolution is None:
        return
    seen: set[tuple[str, str]] = set()
    groups = structured_groups(library)
    for kernel in resolution.dispatch.values():
        if (kernel.namespace, kernel.name) in seen:
            continue
        seen.add((kernel.namespace, kernel.name))
        group = groups.get(str(f.func.name))
        if kernel.structured and group is not None:
            functional = library.module.function(group.functional)
            meta = views.structured_meta(functional, f)
            impl = views.structured_impl(meta, f, kernel.name)
            text = block(
                f"struct {impl.class_name} : public {meta.qualified_class_name}",
                [f"{impl.impl.decl()};"],
                tail=";",
            )
        else:
            text = views.native(f, kernel=kernel.name).decl() + ";"
        yield kernel.namespace, text
