"""``selective-build``: drop every operator a build does not select.

PyTorch threads its selector through each code generator, which then skips
unselected registrations one emitter at a time.  In schemac selection is one
pass: it removes unselected functions from the module (and from every table
that refers to them: resolutions, groups, derivative entries and infos,
deprecated signatures), so no backend needs to know selection exists.  What
is kept and why is in :mod:`schemac.passes.selective_build_keep`.

The pass takes the selection as an option (``selection``); without one it
changes nothing.  It records the selection, the selected functions and the
dependencies kept for them on ``Module.selection``, so backends can reach the
kernel dtype metadata and avoid registering dependencies.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from schemac.ir.autograd import AutogradTable
from schemac.ir.frozen import FrozenMap
from schemac.ir.groups import Grouped, VariantGroup, ViewGroup, ViewGrouped
from schemac.ir.module import Module
from schemac.ir.names import OperatorName
from schemac.ir.selection import OperatorSelection, SelectionResult
from schemac.passes.base import Pass, PassContext
from schemac.passes.selective_build_keep import kept_functions


@attrs.frozen
class SelectiveBuild(Pass):
    name: ClassVar[str] = "selective-build"
    summary: ClassVar[str] = "keep only the selected operators (and what they need)"
    requires: ClassVar[tuple[str, ...]] = ("groups", "view-groups", "autograd-infos")
    provides: ClassVar[tuple[str, ...]] = ("selected",)

    #: The operator selection; None keeps every operator.
    selection: OperatorSelection | None = None

    def run(self, ctx: PassContext, module: Module) -> Module:
        if self.selection is None:
            return module
        kept_set = kept_functions(module, self.selection)
        kept = kept_set.all
        schemas = {f.func for f in module.functions if f.name in kept}
        kept_bases = {f.name.name.base for f in module.functions if f.name in kept}
        return attrs.evolve(
            module,
            functions=tuple(f for f in module.functions if f.name in kept),
            resolutions=FrozenMap.of(
                {name: r for name, r in module.resolutions.items() if name in kept}
            ),
            grouped_functions=_prune_groups(module.grouped_functions, kept),
            grouped_views=_prune_view_groups(module.grouped_views, kept),
            derivatives=tuple(e for e in module.derivatives if e.schema in schemas),
            deprecated=tuple(d for d in module.deprecated if d.schema.name.name.base in kept_bases),
            autograd=AutogradTable(
                tuple(a for a in module.autograd.functions if a.function in kept),
                module.autograd.used_dispatch_keys,
            ),
            selection=SelectionResult(self.selection, kept_set.selected, kept_set.dependencies),
        )


def _optional(name: OperatorName | None, kept: frozenset[OperatorName]) -> OperatorName | None:
    return name if name in kept else None


def _prune_groups(items: tuple[Grouped, ...], kept: frozenset[OperatorName]) -> tuple[Grouped, ...]:
    result: list[Grouped] = []
    for item in items:
        if isinstance(item, VariantGroup):
            # Keeping any member keeps functional and out (see selective_build_keep).
            if item.functional in kept:
                result.append(
                    attrs.evolve(
                        item,
                        inplace=_optional(item.inplace, kept),
                        mutable=_optional(item.mutable, kept),
                    )
                )
        elif item in kept:
            result.append(item)
    return tuple(result)


def _prune_view_groups(
    items: tuple[ViewGrouped, ...], kept: frozenset[OperatorName]
) -> tuple[ViewGrouped, ...]:
    result: list[ViewGrouped] = []
    for item in items:
        if isinstance(item, ViewGroup):
            if item.view in kept:
                result.append(
                    attrs.evolve(
                        item,
                        view_copy=_optional(item.view_copy, kept),
                        view_inplace=_optional(item.view_inplace, kept),
                    )
                )
        elif item in kept:
            result.append(item)
    return tuple(result)
