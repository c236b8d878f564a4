"""The ``derivatives`` and ``selection`` sections of ``dump-ir --format json``.

Kept apart from :mod:`schemac.ir.resolved_printer`, which lists them in its
``SECTIONS``: each pass that derives facts owns how they are printed.  Only
functions still in the module are listed, so ``--op`` narrows these sections
too.
"""

from __future__ import annotations

from typing import Any

from schemac.ir.module import Module

JsonObject = dict[str, Any]


def derivatives_section(module: Module) -> list[JsonObject]:
    """``{function, nodes: {autograd key: node or null}, exact_match}`` per function."""
    present = {f.name for f in module.functions}
    return [
        {
            "function": str(entry.function),
            "nodes": dict(entry.nodes),
            "exact_match": entry.exact_match,
        }
        for entry in module.autograd.functions
        if entry.function in present
    ]


def selection_section(module: Module) -> list[JsonObject]:
    """``{function, role}``: ``selected`` or ``dependency``; empty without a selection."""
    if module.selection is None:
        return []
    present = {f.name for f in module.functions}
    roles = [(name, "selected") for name in module.selection.selected]
    roles += [(name, "dependency") for name in module.selection.dependencies]
    return [{"function": str(name), "role": role} for name, role in roles if name in present]
