"""Which functions a selective build keeps: the selected ones and what they need.

Selection follows PyTorch exactly (see :mod:`schemac.ir.selection`): a
function ``ns::name.overload`` is selected when the selection names it, or
names ``ns::name`` with ``include_all_overloads``.

PyTorch's selective build only filters *registrations* and still compiles
every kernel; schemac removes unselected functions from the module, so it
must keep whatever the code for a selected function refers to
(Note [selective build dependencies]):

- the structured delegate of a kept function (``add.Tensor`` is implemented
  by ``add.out``'s meta/impl functions), transitively;
- the functional and out= members of a kept function's variant group, which
  a group cannot exist without (structured kernels and functionalization
  work per group); in-place and mutable members are kept only if selected;
- the view of a kept view ``_copy`` or in-place view (a view group needs it).

Such functions are *dependencies*: kept, reported separately, never
registered by a backend that honours the selection.
"""

from __future__ import annotations

import attrs

from schemac.ir.module import Module
from schemac.ir.names import OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.selection import OperatorSelection


def qualified_name(f: NativeFunction) -> str:
    """``aten::add.Tensor``: the name a selection file uses for ``f``."""
    name = attrs.evolve(f.name.name, namespace=None)
    overload = f"{name}.{f.name.overload}" if f.name.overload else str(name)
    return f"{f.namespace}::{overload}"


@attrs.frozen
class KeptSet:
    selected: tuple[OperatorName, ...]
    dependencies: tuple[OperatorName, ...]

    @property
    def all(self) -> frozenset[OperatorName]:
        return frozenset(self.selected) | frozenset(self.dependencies)


def _unqualified(name: OperatorName) -> OperatorName:
    return OperatorName(attrs.evolve(name.name, namespace=None), name.overload)


def kept_functions(module: Module, selection: OperatorSelection) -> KeptSet:
    selected = [
        f.name for f in module.functions if selection.is_operator_selected(qualified_name(f))
    ]
    needs = _needs_table(module)
    kept = set(selected)
    frontier = list(selected)
    while frontier:
        name = frontier.pop()
        for needed in needs.get(name, ()):
            if needed not in kept:
                kept.add(needed)
                frontier.append(needed)
    chosen = set(selected)
    dependencies = tuple(
        f.name for f in module.functions if f.name in kept and f.name not in chosen
    )
    return KeptSet(tuple(selected), dependencies)


def _needs_table(module: Module) -> dict[OperatorName, list[OperatorName]]:
    """Function -> the functions its code needs (Note [selective build dependencies])."""
    by_plain = {_unqualified(f.name): f.name for f in module.functions}
    needs: dict[OperatorName, list[OperatorName]] = {}
    for f in module.functions:
        if f.structured_delegate is not None:
            delegate = by_plain.get(_unqualified(f.structured_delegate))
            if delegate is not None:
                needs.setdefault(f.name, []).append(delegate)
    for group in module.groups:
        for member in group.members():
            needs.setdefault(member, []).extend((group.functional, group.out))
    for view_group in module.view_groups:
        for optional in (view_group.view_copy, view_group.view_inplace):
            if optional is not None:
                needs.setdefault(optional, []).append(view_group.view)
    return needs
