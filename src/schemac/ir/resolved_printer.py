"""The resolved IR (after passes) as JSON or text, for ``schemac dump-ir``.

:mod:`schemac.ir.printer` shows the file as written; this shows what the
passes made of it, in a fixed, documented shape (docs/passes.md, "The
resolved IR as JSON") that tools and tests may rely on: for each function its
canonical schema and fully resolved dispatch table, then the variant groups
and the view groups.  Sections a pass has not filled yet are printed empty.

Each top-level section is one function in :data:`SECTIONS`; a pass that adds
derived facts adds its section there.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from typing import Any

import attrs

from schemac.ir.autograd_printer import derivatives_section, selection_section
from schemac.ir.groups import VariantGroup, ViewGroup
from schemac.ir.module import Module
from schemac.ir.names import OperatorName
from schemac.ir.native import NativeFunction, Variant
from schemac.ir.resolved import DEFAULT_KERNEL_NAMESPACE, Kernel

JsonObject = dict[str, Any]


def _opt(name: OperatorName | None) -> str | None:
    return None if name is None else str(name)


def _kernel_text(kernel: Kernel) -> str:
    # Kernels outside at::native carry their namespace, as written in the file.
    if kernel.namespace == DEFAULT_KERNEL_NAMESPACE:
        return kernel.name
    return f"{kernel.namespace.removesuffix('::native')}::{kernel.name}"


def function_data(module: Module, f: NativeFunction) -> JsonObject:
    resolution = module.resolutions.get(f.name)
    dispatch = {} if resolution is None else resolution.dispatch
    return {
        "name": str(f.name),
        "namespace": f.namespace,
        "schema": str(f.func),
        "dispatch": {key: _kernel_text(kernel) for key, kernel in dispatch.items()},
        "structured": f.structured,
        "structured_delegate": _opt(f.structured_delegate),
        "tags": list(f.tags),
        "variants": [v.value for v in Variant if v in f.variants],
        "generated": f.generated,
        "is_abstract": None if resolution is None else resolution.is_abstract,
    }


def _functions(module: Module) -> list[JsonObject]:
    return [function_data(module, f) for f in module.functions]


def _groups(module: Module) -> list[JsonObject]:
    return [
        {
            "functional": str(g.functional),
            "inplace": _opt(g.inplace),
            "out": str(g.out),
            "mutable": _opt(g.mutable),
            "structured": g.structured,
        }
        for g in module.groups
    ]


def _view_groups(module: Module) -> list[JsonObject]:
    return [
        {"view": str(g.view), "view_copy": _opt(g.view_copy), "view_inplace": _opt(g.view_inplace)}
        for g in module.view_groups
    ]


#: Top-level keys of the JSON document, in order, and how each is built.
SECTIONS: tuple[tuple[str, Callable[[Module], list[JsonObject]]], ...] = (
    ("functions", _functions),
    ("groups", _groups),
    ("view_groups", _view_groups),
    ("derivatives", derivatives_section),
    ("selection", selection_section),
)


def resolved_to_data(module: Module) -> JsonObject:
    return {key: build(module) for key, build in SECTIONS}


def resolved_to_json(module: Module) -> str:
    return json.dumps(resolved_to_data(module), indent=2)


def resolved_to_text(module: Module) -> str:
    lines: list[str] = []
    for f in module.functions:
        data = function_data(module, f)
        mark = "  [generated]" if f.generated else ""
        lines.append(f"{f.namespace}::{data['schema']}{mark}")
        if data["dispatch"]:
            table = ", ".join(f"{k}: {v}" for k, v in data["dispatch"].items())
            lines.append(f"    dispatch: {table}")
        if f.structured:
            lines.append("    structured")
        if f.structured_delegate is not None:
            lines.append(f"    structured_delegate: {f.structured_delegate}")
        if f.tags:
            lines.append(f"    tags: {', '.join(f.tags)}")
        lines.append(f"    variants: {', '.join(data['variants'])}")
    if module.groups:
        lines.append("")
        lines.append(f"groups ({len(module.groups)}):")
        for g in module.groups:
            members = ", ".join(f"{role}={name}" for role, name in _roles(g) if name)
            lines.append(f"  {members}" + ("  structured" if g.structured else ""))
    if module.view_groups:
        lines.append("")
        lines.append(f"view groups ({len(module.view_groups)}):")
        for v in module.view_groups:
            roles = (("view", v.view), ("view_copy", v.view_copy), ("view_inplace", v.view_inplace))
            lines.append("  " + ", ".join(f"{role}={name}" for role, name in roles if name))
    return "\n".join(lines) + "\n"


def _roles(g: VariantGroup) -> tuple[tuple[str, OperatorName | None], ...]:
    return (
        ("functional", g.functional),
        ("inplace", g.inplace),
        ("out", g.out),
        ("mutable", g.mutable),
    )


def select_resolved(module: Module, names: Collection[str]) -> Module:
    """Only the named operators (``add.Tensor`` or ``add``) and the groups they are in."""
    wanted = set(names)

    def chosen(name: OperatorName) -> bool:
        return str(name) in wanted or str(name.name) in wanted

    def group_chosen(item: VariantGroup | ViewGroup | OperatorName) -> bool:
        if isinstance(item, OperatorName):
            return chosen(item)
        return any(chosen(m) for m in item.members())

    return attrs.evolve(
        module,
        functions=tuple(f for f in module.functions if chosen(f.name)),
        grouped_functions=tuple(g for g in module.grouped_functions if group_chosen(g)),
        grouped_views=tuple(g for g in module.grouped_views if group_chosen(g)),
    )
