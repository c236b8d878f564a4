"""Autograd kernels (VariableType): record the backward graph around a redispatch.

A kernel for one operator and one autograd key does, in order: check tensor
arguments are defined (``unpack``), decide whether any differentiable input
requires grad, build the backward node and save what its formulas read,
redispatch below autograd, attach the outputs to the node (``set_history``,
or ``rebase_history`` for in-place results), save the outputs the formulas
read, and compute forward-mode tangents (:mod:`.forward_ad`).
:class:`KernelView` holds each step's C++ statements; the template lays them
out.

In-place operators whose backward formula reads ``self`` save a clone of
``self`` taken before the operator runs (saving ``self`` itself would fail
at backward time: the operator bumped its version).  In-place and view
operators redispatch below Autograd only, so the ADInplaceOrView kernel still
bumps versions and records views; others skip that key too.

Not generated (see docs/autograd.md): the debug-build aliasing checks, and
per-element nodes of in-place foreach operators (those record a
NotImplemented node, which fails at backward).
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.signatures.conventions import Conventions
from schemac.backends.autograd.calls import Redispatch, redispatch
from schemac.backends.autograd.forward_ad import ForwardPlan, forward_plan
from schemac.backends.autograd.operators import OperatorPlan, wrapper_name
from schemac.backends.autograd.saved import Storage, saved_member
from schemac.ir.autograd import (
    DEFAULT_AUTOGRAD_KEY,
    DifferentiabilityInfo,
    SavedAttribute,
    SavedProperty,
)
from schemac.ir.schema import SchemaKind
from schemac.ir.types import TENSOR, BaseTy, ListType, is_like

KEYSET = "ks & c10::after_autograd_keyset"


@attrs.frozen
class GraphRecording:
    """How a kernel records its backward node (absent: the kernel records nothing)."""

    #: Inputs whose requires_grad makes a node necessary.
    grad_inputs: tuple[str, ...]
    #: Outputs attached to the node.
    history: tuple[str, ...]
    #: In-place: ``rebase_history`` instead of ``set_history``, and ``check_inplace``.
    rebase: bool
    #: Node class; None when a NotImplemented node is recorded instead.
    node: str | None = None
    #: Name a NotImplemented node reports (in-place foreach operators).
    not_implemented: str | None = None
    saves_before: tuple[str, ...] = ()
    saves_after: tuple[str, ...] = ()
    #: A saved value reads the packed TensorOptions.
    options: bool = False

    @property
    def node_type(self) -> str:
        return self.node or "NotImplemented"


@attrs.frozen
class KernelView:
    name: str
    call: Redispatch
    unpacks: tuple[str, ...]
    #: ``at::AutoDispatchBelowAutograd`` or ``...BelowADInplaceOrView``.
    guard: str
    graph: GraphRecording | None = None
    #: out= operators with a formula somewhere refuse inputs that require grad.
    out_error: str | None = None
    out_error_args: tuple[str, ...] = ()
    forward: ForwardPlan = attrs.field(factory=ForwardPlan)


def _value_assignment(member: str, expr: str, saved: SavedAttribute, cpp: str) -> str:
    if cpp.startswith("std::vector<") and saved.prop in (
        SavedProperty.value,
        SavedProperty.sym_sizes,
        SavedProperty.sym_strides,
    ):
        return f"grad_fn->{member} = {expr}.vec();"
    if cpp == "std::string":
        return f"grad_fn->{member} = std::string({expr});"
    if cpp == "std::optional<std::string>":
        return (
            f"grad_fn->{member} = {expr}.has_value() ? "
            f"std::optional<std::string>(std::string({expr}.value())) : std::nullopt;"
        )
    return f"grad_fn->{member} = {expr};"


def _save(saved: SavedAttribute, *, is_output: bool, conv: Conventions, inplace: bool) -> str:
    member = saved_member(saved, is_output=is_output, conv=conv)
    flag = "true" if is_output else "false"
    if member.storage is Storage.variable:
        if is_output and inplace:
            # The in-place result is self: saved as an output of this node.
            return f"grad_fn->{member.member} = SavedVariable(self, true, self.is_view());"
        if inplace and saved.name == "self":
            return (
                "if (!original_self.has_value()) original_self = self.clone();\n"
                f"grad_fn->{member.member} = SavedVariable(original_self.value(), false);"
            )
        return f"grad_fn->{member.member} = SavedVariable({saved.expr}, {flag});"
    if member.storage in (Storage.variable_list, Storage.optional_variable_list):
        return f"grad_fn->{member.member} = make_saved_variable_list({saved.expr}, {flag});"
    return _value_assignment(member.member, saved.expr, saved, member.cpp_type)


def _graph(plan: OperatorPlan, info: DifferentiabilityInfo) -> GraphRecording | None:
    func = plan.fn.func
    conv = Conventions.of(plan.fn)
    inplace = plan.kind is SchemaKind.inplace
    per_element = info.node is not None and not info.node.startswith("Foreach")
    if inplace and plan.base.startswith("_foreach_") and per_element:
        # The borrowed info names the per-tensor operator's arguments: use ours.
        inputs = tuple(
            a.name for a in func.arguments.flat_non_out if is_like(a.type, BaseTy.Tensor)
        )
        return GraphRecording(inputs, ("self",), True, not_implemented=str(func.name.name))
    grad_inputs = tuple(
        a.name
        for a in info.args_with_derivatives
        if a.type is not None and is_like(a.type, BaseTy.Tensor)
    )
    if not grad_inputs or info.node is None:
        return None
    saves = [_save(s, is_output=False, conv=conv, inplace=inplace) for s in info.all_saved_inputs]
    saves += [
        f"grad_fn->{a.name}_size_ = {a.name}.size();"
        for a in info.args_with_derivatives
        if a.type == ListType(TENSOR)
    ]
    return GraphRecording(
        grad_inputs=grad_inputs,
        history=plan.differentiable_outputs(info),
        rebase=inplace,
        node=info.node,
        saves_before=tuple(saves),
        saves_after=tuple(
            _save(s, is_output=True, conv=conv, inplace=inplace) for s in info.all_saved_outputs
        ),
        options=func.arguments.tensor_options is not None
        and any(s.source_type is None for s in info.all_saved_inputs),
    )


def kernel_view(plan: OperatorPlan, key: str) -> KernelView:
    func = plan.fn.func
    args = func.arguments.flat_all
    name = plan.wrapper if key == DEFAULT_AUTOGRAD_KEY else wrapper_name(plan.fn, key)
    call = redispatch(plan, name, KEYSET, {a.name: f"{a.name}_" for a in args if a.type == TENSOR})
    unpacks = tuple(
        f'auto& {a.name}_ = unpack({a.name}, "{a.name}", {i});'
        for i, a in enumerate(args)
        if a.type == TENSOR
    )
    below_view = plan.view_of is not None or plan.modifies_arguments
    guard = (
        "at::AutoDispatchBelowAutograd" if below_view else "at::AutoDispatchBelowADInplaceOrView"
    )
    info = plan.info_for(key)
    graph = None
    if info is not None and info.has_derivatives and plan.kind is not SchemaKind.out:
        graph = _graph(plan, info)
    out_error_args = tuple(
        a.name for a in func.arguments.flat_non_out if is_like(a.type, BaseTy.Tensor)
    )
    refuses = plan.kind is SchemaKind.out and bool(out_error_args) and plan.autograd is not None
    outputs = plan.differentiable_outputs(info)
    return KernelView(
        name=name,
        call=call,
        unpacks=unpacks,
        guard=guard,
        graph=graph,
        out_error=plan.cpp_name if refuses else None,
        out_error_args=out_error_args if refuses else (),
        forward=forward_plan(func, outputs, plan.forward_derivatives(key), plan.cpp_name),
    )
