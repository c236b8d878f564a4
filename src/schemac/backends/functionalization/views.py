"""Functionalization kernels of views and in-place views.

A view of a functional tensor is a new functional tensor that shares the
base's storage wrapper and records a ViewMeta (:mod:`.view_meta`), so that a
later mutation of either can be replayed on the other.  Below the key the
kernel calls the view itself when views are re-applied
(``getFunctionalizationReapplyViewsTLS``), else its ``_copy`` twin, so the
program below functionalization has no aliasing at all.

An in-place view (``transpose_``) changes the metadata of its argument: the
kernel appends the ViewMeta to it (``mutate_view_meta``) instead of making a
new tensor.

XLA and lazy tensors do not compute strides as eager does, so for them the
view is also run on meta tensors and the result's sizes and strides copied
over (``set_sizes_strides_offset``); ``TORCH_DISABLE_FUNCTIONALIZATION_META_REFERENCE=1``
turns that off.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.registrations.cpp import block, call
from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.naming import unambiguous_name
from schemac.backends.aten.signatures.signature import Signature
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.functionalization.arguments import (
    IMPL,
    Unwrapped,
    has_symbolic_inputs,
    if_else,
    on_meta,
    unwrap,
)
from schemac.backends.functionalization.names import kernel_name
from schemac.backends.functionalization.view_meta import ViewMetaClass
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Argument

_MODE = (
    "const auto inverse_return_mode = reapply_views\n"
    "    ? at::functionalization::InverseReturnMode::ViewOrScatterInverse\n"
    "    : at::functionalization::InverseReturnMode::NeverView;"
)


def _reference(self_name: str, returns: str) -> list[str]:
    return [
        "const bool compute_reference_meta =\n"
        f"    {self_name}.key_set().has_backend(c10::BackendComponent::XLABit) ||\n"
        f"    {self_name}.key_set().has_backend(c10::BackendComponent::LazyBit);",
        f"{returns} reference_tensor_output;",
    ]


@attrs.frozen
class _ViewCall:
    """What both view kernels start from: ``f``'s arguments unwrapped, and its calls."""

    sig: Signature
    copy_sig: Signature
    copy_args: tuple[Argument, ...]
    unwrapped: Unwrapped
    #: The unwrapped values in the order ``f`` (and its ``_copy`` twin) take them.
    below: tuple[str, ...]
    #: ``at::_ops::<f>::call``.
    op: str
    #: The statements that run ``f`` on meta copies into ``reference_tensor_output``.
    reference: tuple[str, ...]

    @property
    def self_name(self) -> str:
        return self.sig.params[0].name

    def view_call(self) -> str:
        return call(self.op, self.below)

    def returns(self) -> str:
        return str(C.strip_reference(self.sig.returns))


def _view_call(f: NativeFunction, copy: NativeFunction, views: ViewTable) -> _ViewCall:
    args = f.func.arguments.flat_all
    sig = views.dispatcher(f)
    unwrapped = unwrap(sig, args, sync=False)
    op = f"at::_ops::{unambiguous_name(f.func)}::call"
    reference = on_meta(sig, args, lambda exprs: f"reference_tensor_output = {op}({exprs});")
    return _ViewCall(
        sig=sig,
        copy_sig=views.dispatcher(copy),
        copy_args=copy.func.arguments.flat_all,
        unwrapped=unwrapped,
        below=tuple(unwrapped.values[a.name] for a in copy.func.arguments.flat_all),
        op=op,
        reference=tuple(reference),
    )


def view_kernel(
    f: NativeFunction, copy: NativeFunction, meta: ViewMetaClass, views: ViewTable
) -> str:
    """The Functionalize kernel of view ``f`` (not in-place), whose twin is ``copy``."""
    v = _view_call(f, copy, views)
    view_call = v.view_call()
    copy_call = call(f"at::_ops::{unambiguous_name(copy.func)}::call", v.below)
    body = [
        *v.unwrapped.statements,
        block(
            f"if (!{IMPL}::isFunctionalTensor({v.self_name}))",
            ["at::AutoDispatchSkipFunctionalize skip_functionalize;", f"return {view_call};"],
        ),
        f"const bool reapply_views = {IMPL}::getFunctionalizationReapplyViewsTLS();",
        _MODE,
        *_reference(v.self_name, v.returns()),
        block("if (compute_reference_meta && !meta_reference_disabled())", v.reference),
        f"{v.returns()} tmp_output;",
        block(
            "",
            [
                "at::AutoDispatchSkipFunctionalize skip_functionalize;",
                if_else(
                    "reapply_views",
                    [f"tmp_output = {view_call};"],
                    [f"tmp_output = {copy_call};"],
                ),
            ],
        ).lstrip(),
        *has_symbolic_inputs(v.copy_sig, v.copy_args),
        f"auto view_meta = {meta.make()};",
        f"auto out = {IMPL}::create_functional_tensor_with_view_meta"
        f"(tmp_output, {v.self_name}, view_meta);",
        block(
            "if (compute_reference_meta && !meta_reference_disabled())",
            [f"{IMPL}::set_sizes_strides_offset(out, reference_tensor_output);"],
        ),
        "return out;",
    ]
    return block(v.sig.defn(kernel_name(f.func), redispatch=True), body)


def inplace_view_kernel(
    f: NativeFunction, copy: NativeFunction, meta: ViewMetaClass, views: ViewTable
) -> str:
    """The Functionalize kernel of in-place view ``f``: it changes ``self``'s view metadata."""
    v = _view_call(f, copy, views)
    body = [
        block(
            f"if (!{IMPL}::isFunctionalTensor({v.self_name}))",
            [
                *v.unwrapped.statements,
                "at::AutoDispatchSkipFunctionalize skip_functionalize;",
                f"return {v.view_call()};",
            ],
        ),
        f"const bool reapply_views = {IMPL}::getFunctionalizationReapplyViewsTLS();",
        _MODE,
        *has_symbolic_inputs(v.copy_sig, v.copy_args),
        f"auto view_meta = {meta.make()};",
        *_reference(v.self_name, v.returns()),
        block("if (compute_reference_meta && !meta_reference_disabled())", v.reference),
        # The reference ran on the old metadata; now replay the views off the base.
        f"{IMPL}::mutate_view_meta({v.self_name}, view_meta);",
        block(
            "if (compute_reference_meta && !meta_reference_disabled())",
            [f"{IMPL}::set_sizes_strides_offset({v.self_name}, reference_tensor_output);"],
        ),
        f"return {v.self_name};",
    ]
    return block(v.sig.defn(kernel_name(f.func), redispatch=True), body)
