"""``group-views``: pair each view operator with its in-place view and its ``_copy`` twin.

Functionalization replaces a view (``transpose.int``) by its non-aliasing copy
(``transpose_copy.int``) and needs the in-place view (``transpose_``) next to
them; backends emit the three together.  Functions are bucketed by their view
signature (the signature with ``_copy`` stripped, ``_scatter`` read as
``_inverse``); in a bucket the aliasing operator is the view, the aliasing
in-place one the in-place view and the functional one the copy.

Checked here: a view that should have a ``_copy`` twin has one, the twin is
named ``*_copy``/``*_scatter``, carries the ``view_copy`` tag and matches the
view's signature; an in-place view carries ``inplace_view`` and agrees with
the view on being CompositeImplicitAutograd.
"""

from __future__ import annotations

import enum
from typing import ClassVar

import attrs

from schemac.diagnostics import DiagnosticSink, PassError
from schemac.ir.groups import ViewGroup, ViewGrouped
from schemac.ir.module import Module
from schemac.ir.names import BaseOperatorName, OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.schema import SchemaKind
from schemac.ir.signature import signature
from schemac.passes.base import Pass, PassContext
from schemac.passes.derivatives_signature import FamilyKey, SignatureKey, view_copy_key
from schemac.passes.function_checks import first_span
from schemac.passes.generate import is_view_op


class ViewKind(enum.Enum):
    aliasing = "aliasing"
    aliasing_inplace = "aliasing_inplace"


@attrs.frozen
class GroupViews(Pass):
    name: ClassVar[str] = "group-views"
    summary: ClassVar[str] = "group view operators with their in-place views and _copy twins"
    requires: ClassVar[tuple[str, ...]] = ("resolved-dispatch", "generated-variants")
    provides: ClassVar[tuple[str, ...]] = ("view-groups",)

    def run(self, ctx: PassContext, module: Module) -> Module:
        sink = DiagnosticSink()
        # Keyed by the view signature made from the schema's family key (equal
        # exactly when the IR view signatures are, see view_copy_key), which
        # grouping computed already: building each view signature's name and
        # argument list was half of this pass.
        buckets: dict[SignatureKey, dict[ViewKind | SchemaKind, NativeFunction]] = {}
        for f in module.functions:
            kind = _view_kind(f, sink)
            plain: FamilyKey = f.func.family_key  # type: ignore[assignment]
            bucket = buckets.setdefault(view_copy_key(plain), {})
            if kind in bucket:
                sink.error(
                    f.span_of("func"),
                    f"'{f.name}' and '{bucket[kind].name}' are both "
                    f"{kind.value} variants of one view signature",
                )
                continue
            bucket[kind] = f
        grouped: list[ViewGrouped] = []
        for bucket in buckets.values():
            view = bucket.pop(ViewKind.aliasing, None)
            if view is not None:
                view_inplace = bucket.pop(ViewKind.aliasing_inplace, None)
                view_copy = bucket.pop(SchemaKind.functional, None)
                _check_view_group(module, view, view_copy, view_inplace, sink)
                grouped.append(
                    ViewGroup(
                        view.name,
                        None if view_copy is None else view_copy.name,
                        None if view_inplace is None else view_inplace.name,
                    )
                )
            grouped.extend(f.name for f in bucket.values())
        sink.raise_if_any(PassError)
        return module.evolve(grouped_views=tuple(grouped))  # keeps the name index


def _view_kind(f: NativeFunction, sink: DiagnosticSink) -> ViewKind | SchemaKind:
    if not is_view_op(f):
        return f.func.kind()
    if not f.func.name.name.inplace:
        return ViewKind.aliasing
    if "inplace_view" not in f.tags:
        sink.error(
            first_span(f, "tags", "func"),
            f"in-place view '{f.name}' lacks the 'inplace_view' tag",
            "add 'tags: inplace_view'",
        )
    return ViewKind.aliasing_inplace


def needs_view_copy(f: NativeFunction, module: Module) -> bool:
    """Whether view ``f`` must have a ``_copy`` twin for functionalization."""
    return (
        is_view_op(f)
        and not module.resolution(f.name).has_composite_implicit_autograd_kernel
        and "inplace_view" not in f.tags
        and not f.func.name.name.base.endswith("_inverse")
    )


def _check_view_group(
    module: Module,
    view: NativeFunction,
    view_copy: NativeFunction | None,
    view_inplace: NativeFunction | None,
    sink: DiagnosticSink,
) -> None:
    if view_copy is None:
        if needs_view_copy(view, module):
            copy_name = OperatorName(
                BaseOperatorName(
                    f"{view.func.name.name.base}_copy", dunder=view.func.name.name.dunder
                ),
                view.func.name.overload,
            )
            sink.error(
                view.span_of("func"),
                f"view operator '{view.name}' has no non-aliasing twin '{copy_name}'",
                f"add '{copy_name}' with tag 'view_copy' "
                "(functionalization replaces views by copies)",
            )
    else:
        if not view_copy.func.name.name.base.endswith(("_copy", "_scatter")):
            sink.error(
                view_copy.span_of("func"),
                f"copy twin '{view_copy.name}' of view '{view.name}' must be named "
                "*_copy or *_scatter",
            )
        elif signature(view.func) != signature(view_copy.func, strip_view_copy_name=True):
            sink.error(
                view_copy.span_of("func"),
                f"copy twin '{view_copy.name}' does not match the signature of view '{view.name}'",
            )
        if "view_copy" not in view_copy.tags:
            sink.error(
                first_span(view_copy, "tags", "func"),
                f"'{view_copy.name}' is the copy twin of view '{view.name}' but lacks the "
                "'view_copy' tag",
                "add 'tags: view_copy'",
            )
    if view_inplace is None:
        return
    if signature(view.func) != signature(view_inplace.func):
        sink.error(
            view_inplace.span_of("func"),
            f"in-place view '{view_inplace.name}' does not match the signature of '{view.name}'",
        )
    view_res = module.resolution(view.name)
    inplace_res = module.resolution(view_inplace.name)
    for flag, key in (
        ("has_composite_implicit_autograd_kernel", "CompositeImplicitAutograd"),
        (
            "has_composite_implicit_autograd_nested_tensor_kernel",
            "CompositeImplicitAutogradNestedTensor",
        ),
    ):
        if getattr(view_res, flag) and not getattr(inplace_res, flag):
            sink.error(
                first_span(view_inplace, "dispatch", "func"),
                f"view '{view.name}' has a {key} kernel but its in-place view "
                f"'{view_inplace.name}' does not",
                "give both the same kind of composite kernel",
            )
