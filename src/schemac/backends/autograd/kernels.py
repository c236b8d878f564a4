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
from schemac.backends.autograd.operators import (
    DONT_REQUIRE_DERIVATIVE,
    OperatorPlan,
    return_names,
    wrapper_name,
)
from schemac.backends.autograd.policy import (
    GRADIENT_IMPLEMENTED_FOR_COMPLEX,
    RESET_GRAD_ACCUMULATOR,
)
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

    #: Inputs whose requires_grad makes a node necessary; the node's next edges.
    grad_inputs: tuple[str, ...]
    #: Outputs attached to the node.
    history: tuple[str, ...]
    #: In-place: ``rebase_history`` instead of ``set_history``, and ``check_inplace``.
    rebase: bool
    #: Node class; None when a NotImplemented node is recorded instead.
    node: str | None = None
    #: Name a NotImplemented node reports (no formula, or in-place foreach).
    not_implemented: str | None = None
    saves_before: tuple[str, ...] = ()
    saves_after: tuple[str, ...] = ()
    #: A saved value reads the packed TensorOptions.
    options: bool = False
    #: ``check_no_requires_grad(x, "x", op)`` lines: tensor inputs without a formula.
    no_grad_checks: tuple[str, ...] = ()
    #: Outputs refused when complex (the formulas are not known to hold for complex).
    complex_checks: tuple[str, ...] = ()

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
    #: ``set_`` and ``resize_`` drop the gradient accumulator of ``self``.
    resets_grad_accumulator: bool = False


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


def _differentiable_inputs(
    plan: OperatorPlan, info: DifferentiabilityInfo | None
) -> tuple[str, ...]:
    excluded = info.non_differentiable_arg_names if info is not None else ()
    return tuple(
        a.name
        for a in plan.fn.func.arguments.flat_non_out
        if is_like(a.type, BaseTy.Tensor) and a.name not in excluded
    )


def _requires_derivative(
    plan: OperatorPlan, inputs: tuple[str, ...], outputs: tuple[str, ...]
) -> bool:
    if plan.base in DONT_REQUIRE_DERIVATIVE or plan.cpp_name in DONT_REQUIRE_DERIVATIVE:
        return False
    return bool(inputs) and (bool(outputs) or plan.is_inplace_foreach)


def _complex_checks(plan: OperatorPlan, outputs: tuple[str, ...]) -> tuple[str, ...]:
    if plan.base in GRADIENT_IMPLEMENTED_FOR_COMPLEX:
        return ()
    func = plan.fn.func
    plain = {
        name
        for name, ret in zip(return_names(func), func.returns, strict=True)
        if ret.type == TENSOR and not ret.is_write
    }
    return tuple(
        f'throw_error_for_complex_autograd({name}, "{plan.base}");'
        for name in outputs
        if name in plain
    )


def _graph(
    plan: OperatorPlan,
    info: DifferentiabilityInfo | None,
    inputs: tuple[str, ...],
    outputs: tuple[str, ...],
) -> GraphRecording:
    func = plan.fn.func
    conv = Conventions.of(plan.fn)
    inplace = plan.kind is SchemaKind.inplace
    complex_checks = _complex_checks(plan, outputs)
    if (
        info is None
        or not info.has_derivatives
        or (plan.is_inplace_foreach and not (info.node or "").startswith("Foreach"))
    ):
        # No formula (or one per tensor of an in-place foreach): the forward
        # runs, and backward through the result fails naming the operator.
        history = ("self",) if plan.is_inplace_foreach else outputs
        return GraphRecording(
            inputs, history, inplace, not_implemented=plan.cpp_name, complex_checks=complex_checks
        )
    with_formula = {name for d in info.derivatives for name in d.var_names}
    edges = tuple(a.name for a in info.args_with_derivatives if a.name in with_formula)
    no_grad_checks = tuple(
        f'check_no_requires_grad({name}, "{name}", "{plan.cpp_name}");'
        for name in inputs
        if name not in edges and name != "output"
    )
    saves = [_save(s, is_output=False, conv=conv, inplace=inplace) for s in info.all_saved_inputs]
    saves += [
        f"grad_fn->{a.name}_size_ = {a.name}.size();"
        for a in info.args_with_derivatives
        if a.type == ListType(TENSOR)
    ]
    return GraphRecording(
        grad_inputs=edges,
        history=outputs,
        rebase=inplace,
        node=info.node,
        saves_before=tuple(saves),
        saves_after=tuple(
            _save(s, is_output=True, conv=conv, inplace=inplace) for s in info.all_saved_outputs
        ),
        options=func.arguments.tensor_options is not None
        and any(s.source_type is None for s in info.all_saved_inputs),
        no_grad_checks=no_grad_checks,
        complex_checks=complex_checks,
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
    inputs = _differentiable_inputs(plan, info)
    outputs = plan.differentiable_outputs(info)
    requires = _requires_derivative(plan, inputs, outputs)
    is_out = plan.kind is SchemaKind.out
    graph = _graph(plan, info, inputs, outputs) if requires and not is_out else None
    if is_out or requires:
        forward = forward_plan(func, outputs, plan.forward_derivatives(key), plan.cpp_name)
    else:
        forward = ForwardPlan()
    refused = inputs + outputs if is_out and requires else ()
    return KernelView(
        name=name,
        call=call,
        unpacks=unpacks,
        guard=guard,
        graph=graph,
        out_error=plan.base if refused else None,
        out_error_args=refused,
        forward=forward,
        resets_grad_accumulator=str(func.name.name) in RESET_GRAD_ACCUMULATOR,
    )
