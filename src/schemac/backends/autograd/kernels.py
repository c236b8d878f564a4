"""Autograd kernels (VariableType): record the backward graph around a redispatch.

A kernel for one operator and one autograd key does, in order: check tensor
arguments are defined (``unpack``), decide whether any differentiable input
requires grad, build the backward node and save what its formulas read,
redispatch below autograd, attach the outputs to the node (``set_history``,
or ``rebase_history`` for in-place results) and save the outputs the formulas
read.  :class:`KernelView` holds each step's C++ statements; the template
lays them out.

Not generated yet (see docs/autograd.md): forward-mode AD formulas, the
debug-build aliasing checks, and per-element nodes of in-place foreach
operators (those record a NotImplemented node, which fails at backward).
"""

from __future__ import annotations

import attrs

from schemac.backends.autograd.operators import OperatorPlan, return_names, wrapper_name
from schemac.backends.autograd.saved import Storage, saved_member
from schemac.backends.aten.signatures.conventions import Conventions
from schemac.backends.aten.signatures.dispatcher import dispatcher_signature
from schemac.backends.aten.signatures.naming import unambiguous_name
from schemac.ir.autograd import SavedAttribute, SavedProperty
from schemac.ir.schema import SchemaKind
from schemac.ir.types import BaseTy, BaseType, ListType, is_like

_TENSOR = BaseType(BaseTy.Tensor)


@attrs.frozen
class KernelView:
    name: str
    head: str
    unpacks: tuple[str, ...]
    #: Names of the inputs whose requires_grad makes a node necessary.
    grad_inputs: tuple[str, ...]
    #: Node class, or None for a pass-through kernel.
    node: str | None
    inplace_checks: tuple[str, ...]
    saves_before: tuple[str, ...]
    call: str
    #: Names the results are bound to (empty for void).
    results: tuple[str, ...]
    returns_void: bool
    history: tuple[str, ...]
    rebase: bool
    saves_after: tuple[str, ...]
    return_expr: str
    out_error: str | None = None
    #: Inputs of an out= operator that must not require grad.
    out_error_args: tuple[str, ...] = ()
    options: str | None = None
    not_implemented: str | None = None

    @property
    def node_type(self) -> str:
        return self.node or "Node"

    @property
    def binding(self) -> str:
        if len(self.results) == 1:
            return f"auto {self.results[0]} = std::move(_tmp);"
        return f"auto [{', '.join(self.results)}] = std::move(_tmp);"


def _value_assignment(member_name: str, expr: str, saved: SavedAttribute, cpp: str) -> str:
    if saved.prop in (SavedProperty.sym_sizes, SavedProperty.sym_strides):
        return f"grad_fn->{member_name} = {expr}.vec();"
    if cpp.startswith("std::vector<") and saved.prop is SavedProperty.value:
        return f"grad_fn->{member_name} = {expr}.vec();"
    if cpp == "std::string":
        return f"grad_fn->{member_name} = std::string({expr});"
    if cpp == "std::optional<std::string>":
        return (
            f"grad_fn->{member_name} = {expr}.has_value() ? "
            f"std::optional<std::string>(std::string({expr}.value())) : std::nullopt;"
        )
    return f"grad_fn->{member_name} = {expr};"


def _save(saved: SavedAttribute, *, is_output: bool, conv: Conventions, inplace: bool) -> str:
    member = saved_member(saved, is_output=is_output, conv=conv)
    expr = saved.expr if not (is_output and inplace and saved.source == "result") else "self"
    if member.storage is Storage.variable:
        flag = "true" if is_output else "false"
        if is_output and inplace:
            return f"grad_fn->{member.member} = SavedVariable({expr}, true, self.is_view());"
        return f"grad_fn->{member.member} = SavedVariable({expr}, {flag});"
    if member.storage in (Storage.variable_list, Storage.optional_variable_list):
        flag = "true" if is_output else "false"
        return f"grad_fn->{member.member} = make_saved_variable_list({expr}, {flag});"
    return _value_assignment(member.member, expr, saved, member.cpp_type)


def kernel_view(plan: OperatorPlan, key: str) -> KernelView:
    fn = plan.fn
    func = fn.func
    conv = Conventions.of(fn)
    sig = dispatcher_signature(fn)
    name = wrapper_name(fn, key)
    params = ", ".join(["c10::DispatchKeySet ks", *(p.defn() for p in sig.params)])
    head = f"{sig.returns} {name}({params})"
    info = plan.info_for(key)
    kind = func.kind()
    inplace = kind is SchemaKind.inplace
    args = func.arguments.flat_all

    unpacks = tuple(
        f'auto& {a.name}_ = unpack({a.name}, "{a.name}", {i});'
        for i, a in enumerate(args)
        if a.type == _TENSOR
    )
    call_args = ", ".join(
        ["ks & c10::after_autograd_keyset", *(f"{a.name}_" if a.type == _TENSOR else a.name for a in args)]
    )
    call = f"at::_ops::{unambiguous_name(func)}::redispatch({call_args})"

    names = return_names(func)
    returns_void = not func.returns
    if kind in (SchemaKind.inplace, SchemaKind.out):
        results: tuple[str, ...] = ()
        if len(names) == 1:
            return_expr = names[0]
        else:
            return_expr = f"std::forward_as_tuple({', '.join(names)})"
    elif returns_void:
        results, return_expr = (), ""
    else:
        results = names
        return_expr = (
            names[0] if len(names) == 1
            else f"std::make_tuple({', '.join(f'std::move({n})' for n in names)})"
        )

    grad_inputs: tuple[str, ...] = ()
    node: str | None = None
    saves_before: list[str] = []
    saves_after: list[str] = []
    history: tuple[str, ...] = ()
    not_implemented = None
    options = None
    out_error = None
    out_error_args = tuple(
        a.name for a in func.arguments.flat_non_out if is_like(a.type, BaseTy.Tensor)
    )
    if kind is SchemaKind.out and out_error_args and plan.autograd is not None:
        # Only operators that have a formula somewhere can be asked for a gradient.
        out_error = plan.cpp_name
    if info is not None and info.has_derivatives and kind is not SchemaKind.out:
        grad_inputs = tuple(
            a.name for a in info.args_with_derivatives
            if a.type is not None and is_like(a.type, BaseTy.Tensor)
        )
        history = plan.differentiable_outputs(info)
        if inplace and func.name.name.base.startswith("_foreach_") and info.node and not info.node.startswith("Foreach"):
            not_implemented = str(func.name.name)
        else:
            node = info.node
            if func.arguments.tensor_options is not None:
                options = (
                    "const auto options = TensorOptions().dtype(dtype).layout(layout)"
                    ".device(device).pinned_memory(pin_memory);"
                )
            saves_before = [
                _save(s, is_output=False, conv=conv, inplace=inplace) for s in info.all_saved_inputs
            ]
            saves_before += [
                f"grad_fn->{a.name}_size_ = {a.name}.size();"
                for a in info.args_with_derivatives
                if a.type == ListType(_TENSOR)
            ]
            saves_after = [
                _save(s, is_output=True, conv=conv, inplace=inplace) for s in info.all_saved_outputs
            ]
    inplace_checks: tuple[str, ...] = ()
    if inplace and func.arguments.self_arg is not None and grad_inputs:
        inplace_checks = ("check_inplace(self, _any_requires_grad);",)
    return KernelView(
        name=name,
        head=head,
        unpacks=unpacks,
        grad_inputs=grad_inputs,
        node=node,
        inplace_checks=inplace_checks,
        saves_before=tuple(saves_before),
        call=call,
        results=results,
        returns_void=returns_void,
        history=history if (node or not_implemented) else (),
        rebase=inplace,
        saves_after=tuple(saves_after),
        return_expr=return_expr,
        out_error=out_error,
        out_error_args=out_error_args,
        options=options,
        not_implemented=not_implemented,
    )
