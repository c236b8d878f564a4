"""Slices shared by several backends (Note [Unit slices] in :mod:`schemac.backends.reuse`)."""

from __future__ import annotations

from schemac.ir.groups import VariantGroup, ViewGroup
from schemac.ir.module import Module


def grouped_members(module: Module) -> tuple[object, object]:
    """Every variant family and every view group, in module order, each with its
    members' functions and resolved dispatch tables (None for a member the module
    lacks): all that a backend made from the groups alone reads of the module
    (the functionalization kernels, ``CompositeViewCopyKernels.cpp``).  A
    function in no group (``isclose``) is not in it."""

    def read(group: VariantGroup | ViewGroup) -> object:
        members = []
        for name in group.members():
            f = module.find_function(name)
            members.append((f, None if f is None else module.resolutions.get(name)))
        return (group, tuple(members))

    return tuple(read(g) for g in module.groups), tuple(read(g) for g in module.view_groups)
