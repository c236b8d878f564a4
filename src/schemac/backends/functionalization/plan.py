"""Which operators the Functionalize key gets a kernel for, read off the IR's groups.

Functionalization needs a kernel for every operator that writes an argument
or returns an alias, and it finds the functional replacement through the
groups the passes built:

* a **variant family** (``VariantGroup``): each member that writes an
  argument (in-place, out=, mutable) gets a kernel calling the family's
  functional member (:mod:`.mutation`), unless it is
  CompositeImplicitAutograd (it decomposes into operators that have one);
* a **view group** (``ViewGroup``): the view and its in-place view get view
  kernels (:mod:`.views`) calling the ``_copy`` twin, and one ViewMeta class
  each.  A CompositeImplicitAutograd view instead registers its composite
  kernel directly on the Functionalize key, so it decomposes *before*
  functionalization sees it (the key as a whole cannot be made composite:
  ``at::ones`` must not decompose);
* anything else (a mutating operator in no family) gets nothing: torchgen
  would register a kernel it never defines, and only ever does so for the
  operators its policy lists, which PyTorch handles by hand.

The release profile's ``functionalization_hand_written`` list names the
operators PyTorch functionalizes by hand (2.13: ``set_.source_Tensor``,
``lift``, ``resize_``, ``lift_fresh``); see :mod:`schemac.backends.release_policy`.

The mutation kernels, the bulk of the printing, are fragments in buckets
(Note [Fragment reuse] in :mod:`schemac.backends.reuse`, Note [Fragment
buckets] in :mod:`schemac.backends.buckets`): a kernel's text is a function
of the operator and its functional twin, the release policy and the view
cache being fixed for the run.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.signatures.naming import root_name
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.buckets import SEPARATOR, bucketed_texts
from schemac.backends.cppmodel import cpp_string_literal
from schemac.backends.functionalization.mutation import mutation_kernel, writes_arguments
from schemac.backends.functionalization.names import kernel_name
from schemac.backends.functionalization.view_meta import (
    ViewMetaClass,
    inverse_declaration,
    view_meta_class,
)
from schemac.backends.functionalization.views import inplace_view_kernel, view_kernel
from schemac.backends.release_policy import ReleasePolicy
from schemac.backends.reuse import Fragments
from schemac.ir.dispatch import COMPOSITE_IMPLICIT
from schemac.ir.groups import VariantGroup, ViewGroup
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction


@attrs.frozen
class Item:
    """What one family or view group contributes to a RegisterFunctionalization shard."""

    root: str
    headers: tuple[str, ...]
    kernels: tuple[str, ...]
    #: ``(operator namespace, m.impl(...) line)``.
    registrations: tuple[tuple[str, str], ...]


@attrs.frozen
class ViewEntry:
    """A non-composite view group: its inverse and ViewMeta classes."""

    root: str
    headers: tuple[str, ...]
    inverse: str
    classes: tuple[ViewMetaClass, ...]


@attrs.frozen
class Plan:
    items: tuple[Item, ...]
    views: tuple[ViewEntry, ...]


@attrs.frozen
class _KernelContext:
    """What a mutation kernel's render reads besides its two functions: fixed for the run."""

    policy: ReleasePolicy
    views: ViewTable


def _render_mutation(context: _KernelContext, inputs: tuple[NativeFunction, NativeFunction]) -> str:
    f, functional = inputs
    return mutation_kernel(f, functional, context.policy, context.views)


@attrs.frozen
class _Context:
    module: Module
    policy: ReleasePolicy
    views: ViewTable
    fragments: Fragments
    kernels: _KernelContext

    def composite(self, f: NativeFunction) -> bool:
        return self.module.resolution(f.name).has_composite_implicit_autograd_kernel


def _headers(functions: list[NativeFunction]) -> tuple[str, ...]:
    roots = dict.fromkeys(root_name(f.func) for f in functions)
    return tuple(f"ATen/ops/{root}{suffix}.h" for root in roots for suffix in ("_native", "_ops"))


def _register_kernel(f: NativeFunction) -> tuple[str, str]:
    return (
        f.namespace,
        f"m.impl({cpp_string_literal(str(f.func.name))}, TORCH_FN({kernel_name(f.func)}));",
    )


def _register_composite(ctx: _Context, f: NativeFunction) -> tuple[str, str]:
    kernel = ctx.module.resolution(f.name).dispatch[COMPOSITE_IMPLICIT]
    sig = ctx.views.native(f, kernel=kernel.name)
    target = f"static_cast<{sig.ptr_type()}>({kernel.namespace}::{kernel.name})"
    return f.namespace, f"m.impl({cpp_string_literal(str(f.func.name))}, {target});"


@attrs.frozen
class _Family:
    """A family that gets mutation kernels: its members, those that get one, its functional one."""

    members: list[NativeFunction]
    mutating: list[NativeFunction]
    functional: NativeFunction


def _family(ctx: _Context, group: VariantGroup) -> _Family | None:
    if ctx.policy.hand_writes(frozenset(group.members())):
        return None
    members = [ctx.module.function(name) for name in group.members()]
    mutating = [f for f in members if writes_arguments(f) and not ctx.composite(f)]
    if not mutating:
        return None
    return _Family(members, mutating, ctx.module.function(group.functional))


def _family_items(ctx: _Context, families: list[_Family | None]) -> list[Item | None]:
    """Each family's item, its mutation kernels printed in buckets by name (Note
    [Fragment buckets]: ~1,200 kernels were as many fragments)."""
    pieces = [(f, family.functional) for family in families if family for f in family.mutating]
    texts = iter(
        bucketed_texts(
            ctx.fragments,
            _render_mutations,
            "functionalization",
            pieces,
            [str(f.func.name) for f, _ in pieces],
            ctx.kernels,
        )
    )
    return [
        None
        if family is None
        else Item(
            root=root_name(family.functional.func),
            headers=_headers(family.members),
            kernels=tuple(next(texts) for _ in family.mutating),
            registrations=tuple(_register_kernel(f) for f in family.mutating),
        )
        for family in families
    ]


def _render_mutations(
    context: _KernelContext, inputs: tuple[str, tuple[tuple[NativeFunction, NativeFunction], ...]]
) -> str:
    """A bucket of mutation kernels, each followed by the separator."""
    return "".join(_render_mutation(context, piece) + SEPARATOR for piece in inputs[1])


def _view_members(module: Module, group: ViewGroup) -> list[NativeFunction]:
    names = [group.view] if group.view_inplace is None else [group.view, group.view_inplace]
    return [module.function(name) for name in names]


def _view_entry(ctx: _Context, group: ViewGroup) -> ViewEntry | None:
    view = ctx.module.function(group.view)
    if ctx.composite(view) or group.view_copy is None:
        return None
    copy = ctx.module.function(group.view_copy)
    members = _view_members(ctx.module, group)
    return ViewEntry(
        root=root_name(view.func),
        headers=_headers([view, copy]),
        inverse=inverse_declaration(view, ctx.views),
        classes=tuple(view_meta_class(f, view, copy, ctx.policy, ctx.views) for f in members),
    )


def _view_group(ctx: _Context, group: ViewGroup, entry: ViewEntry | None) -> Item | None:
    view = ctx.module.function(group.view)
    if str(view.func.name) in ctx.policy.hand_written_functionalization:
        return None
    members = _view_members(ctx.module, group)
    copy = None if group.view_copy is None else ctx.module.function(group.view_copy)
    kernels: list[str] = []
    if entry is not None and copy is not None:
        for f, meta in zip(members, entry.classes, strict=True):
            make = view_kernel if f is view else inplace_view_kernel
            kernels.append(make(f, copy, meta, ctx.views))
    registrations = tuple(
        _register_composite(ctx, f) if ctx.composite(f) else _register_kernel(f) for f in members
    )
    everyone = members if copy is None else [*members, copy]
    return Item(root_name(view.func), _headers(everyone), tuple(kernels), registrations)


def functionalization_plan(
    module: Module, policy: ReleasePolicy, views: ViewTable, fragments: Fragments | None = None
) -> Plan:
    """``fragments``: where mutation kernels are printed (the target's, Note [Fragment reuse])."""
    pieces = Fragments() if fragments is None else fragments
    ctx = _Context(module, policy, views, pieces, _KernelContext(policy, views))
    items = _family_items(ctx, [_family(ctx, g) for g in module.groups])
    entries = [(g, _view_entry(ctx, g)) for g in module.view_groups]
    items += [_view_group(ctx, g, entry) for g, entry in entries]
    return Plan(
        items=tuple(item for item in items if item is not None),
        views=tuple(entry for _, entry in entries if entry is not None),
    )
