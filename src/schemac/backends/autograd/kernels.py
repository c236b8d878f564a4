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

In-place foreach operators that borrow a per-tensor operator's formulas
build one node per tensor of ``self`` (``GraphRecording.per_element``).
Not generated (see docs/autograd.md): the debug-build aliasing checks.
"""

from __future__ import annotations

import re

import attrs

from schemac.backends.aten.signatures.conventions import Conventions
from schemac.backends.autograd.calls import Redispatch, redispatch
from schemac.backends.autograd.forward_ad import ForwardPlan, forward_plan
from schemac.backends.autograd.operators import OperatorPlan, wrapper_name
from schemac.backends.autograd.policy import INTRUSIVE, NodePointers
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
_TENSOR_LIST = ListType(TENSOR)
# A set: membership hashes once instead of comparing attrs values one by one.
_CHECKED_TYPES = frozenset({TENSOR, _TENSOR_LIST})


@attrs.frozen
class SaveStatement:
    """Statements storing one saved value in the node, optionally under a guard."""

    lines: tuple[str, ...]
    #: ``grad_fn->should_compute_output(i)``: only the gradient reading it needs it.
    guard: str | None = None


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
    saves_before: tuple[SaveStatement, ...] = ()
    saves_after: tuple[str, ...] = ()
    #: A saved value reads the packed TensorOptions.
    options: bool = False
    #: ``check_no_requires_grad(x, "x", op)`` lines: tensor inputs without a formula.
    no_grad_checks: tuple[str, ...] = ()
    #: Outputs refused when complex (the formulas are not known to hold for complex).
    complex_checks: tuple[str, ...] = ()
    #: One node per tensor of ``self`` (in-place foreach); ``grad_inputs`` index ``[i]``.
    per_element: bool = False
    #: Release policy (profile feature ``node_creation_hooks``): once the node is
    #: complete, ``fire_node_creation_hooks`` runs on it, or on the node
    #: ``rebase_history`` attached for in-place results (a CopySlices when
    #: ``self`` is a view), kept in ``_rebased_fn`` (``_rebased_fns[i]``).
    fires_creation_hooks: bool = False
    #: How the release holds and makes nodes.
    pointers: NodePointers = INTRUSIVE
    #: An in-place view (``transpose_``): ``self`` stays a view of its base,
    #: so the node is attached with ``set_history`` although ``rebase`` holds.
    attaches_view: bool = False

    @property
    def rebases_history(self) -> bool:
        return self.rebase and not self.attaches_view

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
    #: out= operators refuse differentiable inputs and outputs that require grad.
    out_error: str | None = None
    out_error_args: tuple[str, ...] = ()
    forward: ForwardPlan = attrs.field(factory=ForwardPlan)
    #: ``set_`` and ``resize_`` drop the gradient accumulator of ``self``.
    resets_grad_accumulator: bool = False
    #: The differentiable (list) inputs of an in-place foreach kernel.
    element_lists: tuple[str, ...] = ()
    is_inplace: bool = False
    is_foreach: bool = False

    @property
    def declares_original_self(self) -> bool:
        """``self`` as it was before an in-place op, for formulas that read it."""
        if not self.is_inplace or self.is_foreach:
            return False
        has_node = self.graph is not None and self.graph.node is not None
        return has_node or bool(self.forward.original_self_flags)

    @property
    def declares_original_selfs(self) -> bool:
        """The same, per tensor, for in-place foreach operators."""
        if not self.is_inplace or not self.is_foreach:
            return False
        per_element = self.graph is not None and self.graph.per_element
        return per_element or bool(self.forward.original_self_flags)


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


def _guard(info: DifferentiabilityInfo, saved: SavedAttribute) -> str | None:
    """Skip saving a tensor that only one unrequested gradient would read.

    Only plain tensors are worth it, only when one formula reads the value, and
    only when slot indices are static (no tensor-list inputs) and there is more
    than one gradient to choose from.  Formulas of ``*_backward`` entries run
    only when their gradients are wanted, so they are not guarded.
    """
    args = info.args_with_derivatives
    if len(args) <= 1 or "backward" in info.name or saved.source_type != TENSOR:
        return None
    if saved.prop is not SavedProperty.value or any(a.type == _TENSOR_LIST for a in args):
        return None
    readers = [d for d in info.derivatives if any(s.name == saved.name for s in d.saved_inputs)]
    if len(readers) != 1:
        return None
    (reader,) = readers
    if len(reader.var_names) == 1:
        slots = [i for i, a in enumerate(args) if a.name == reader.var_names[0]]
        return f"grad_fn->should_compute_output({slots[0]})" if slots else None
    # A multi-gradient formula may say when it reads the value: wrap_opt_if(x, cond).
    # The pattern needs this literal text: without it, no pattern is built
    # (each saved name's would be compiled once per process, ~60 for torch).
    if f"wrap_opt_if({saved.name}," not in reader.formula:
        return None
    match = re.search(rf"wrap_opt_if\({re.escape(saved.name)},(.*?)\)", reader.formula)
    if match is None:
        return None
    condition = match.group(1).strip()
    return re.sub(r"grad_input_mask\[(\d+)\]", r"grad_fn->should_compute_output(\1)", condition)


@attrs.frozen
class SaveContext:
    """Where a kernel finds the values it saves.

    An in-place foreach kernel builds one node per tensor of ``self``: there
    ``self`` is ``self[i]``, and the node's formulas (written for the per-tensor
    operator, say ``mul.Tensor``) name that operator's arguments, which
    ``renames`` maps to the foreach operator's (``other`` -> ``other[i]``).
    """

    inplace: bool
    self_expr: str = "self"
    original_self: str = "original_self"
    renames: tuple[tuple[str, str], ...] = ()

    def expr(self, saved: SavedAttribute) -> str:
        for old, new in self.renames:
            if saved.source == old:
                return re.sub(rf"\b{re.escape(old)}\b", new, saved.expr, count=1)
        return saved.expr


def _save(saved: SavedAttribute, *, is_output: bool, conv: Conventions, ctx: SaveContext) -> str:
    member = saved_member(saved, is_output=is_output, conv=conv)
    flag = "true" if is_output else "false"
    expr = ctx.expr(saved)
    if member.storage is Storage.variable:
        if is_output and ctx.inplace:
            # The in-place result is self: saved as an output of this node.
            this = ctx.self_expr
            return f"grad_fn->{member.member} = SavedVariable({this}, true, {this}.is_view());"
        if ctx.inplace and saved.name == "self":
            original = ctx.original_self
            return (
                f"if (!{original}.has_value()) {original} = {ctx.self_expr}.clone();\n"
                f"grad_fn->{member.member} = SavedVariable({original}.value(), false);"
            )
        return f"grad_fn->{member.member} = SavedVariable({expr}, {flag});"
    if member.storage in (Storage.variable_list, Storage.optional_variable_list):
        return f"grad_fn->{member.member} = make_saved_variable_list({expr}, {flag});"
    return _value_assignment(member.member, expr, saved, member.cpp_type)


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
    if plan.base in plan.policy.dont_require_derivative or (
        plan.cpp_name in plan.policy.dont_require_derivative
    ):
        return False
    return bool(inputs) and (bool(outputs) or plan.is_inplace_foreach)


def _complex_checks(plan: OperatorPlan, outputs: tuple[str, ...]) -> tuple[str, ...]:
    if plan.base in plan.policy.gradient_implemented_for_complex:
        return ()
    func = plan.fn.func
    plain = {
        name
        for name, ret in zip(plan.result_names, func.returns, strict=True)
        if ret.type == TENSOR and not ret.is_write
    }
    return tuple(
        f'throw_error_for_complex_autograd({name}, "{plan.base}");'
        for name in outputs
        if name in plain
    )


def _saves(
    info: DifferentiabilityInfo, conv: Conventions, ctx: SaveContext
) -> tuple[tuple[SaveStatement, ...], tuple[str, ...]]:
    before = [
        SaveStatement(
            tuple(_save(s, is_output=False, conv=conv, ctx=ctx).splitlines()), _guard(info, s)
        )
        for s in info.all_saved_inputs
    ]
    before += [
        SaveStatement((f"grad_fn->{a.name}_size_ = {a.name}.size();",))
        for a in info.args_with_derivatives
        if a.type == _TENSOR_LIST
    ]
    after = tuple(_save(s, is_output=True, conv=conv, ctx=ctx) for s in info.all_saved_outputs)
    return tuple(before), after


def _per_element_graph(
    plan: OperatorPlan, info: DifferentiabilityInfo, conv: Conventions
) -> GraphRecording:
    """An in-place foreach operator borrowing its per-tensor operator's node."""
    element = dict(plan.element_args)
    with_formula = {name for d in info.derivatives for name in d.var_names}
    edges = tuple(
        element.get(a.name, a.name) for a in info.args_with_derivatives if a.name in with_formula
    )
    ctx = SaveContext(True, "self[i]", "original_selfs[i]", plan.element_args)
    before, after = _saves(info, conv, ctx)
    return GraphRecording(
        grad_inputs=edges,
        history=("self",),
        rebase=True,
        node=info.node,
        saves_before=before,
        saves_after=after,
        per_element=True,
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
    if info is not None and info.has_derivatives and plan.element_args:
        return _per_element_graph(plan, info, conv)
    if (
        info is None
        or not info.has_derivatives
        or (plan.is_inplace_foreach and not (info.node or "").startswith("Foreach"))
    ):
        # No formula: the forward runs, and backward through the result fails
        # naming the operator.
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
    before, after = _saves(info, conv, SaveContext(inplace))
    return GraphRecording(
        grad_inputs=edges,
        history=outputs,
        rebase=inplace,
        node=info.node,
        saves_before=before,
        saves_after=after,
        options=func.arguments.tensor_options is not None
        and any(s.source_type is None for s in info.all_saved_inputs),
        no_grad_checks=no_grad_checks,
        complex_checks=complex_checks,
    )


def kernel_view(plan: OperatorPlan, key: str) -> KernelView:
    func = plan.fn.func
    args = func.arguments.flat_all
    name = plan.wrapper if key == DEFAULT_AUTOGRAD_KEY else wrapper_name(plan.fn, key)
    # Tensors and tensor lists must be defined; the checked values are passed on.
    checked = [(i, a) for i, a in enumerate(args) if a.type in _CHECKED_TYPES]
    call = redispatch(plan, name, KEYSET, {a.name: f"{a.name}_" for _, a in checked})
    unpacks = tuple(
        f'auto{"&" if a.type == TENSOR else ""} {a.name}_ = unpack({a.name}, "{a.name}", {i});'
        for i, a in checked
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
    if graph is not None:
        graph = attrs.evolve(
            graph,
            fires_creation_hooks=plan.policy.node_creation_hooks,
            pointers=plan.policy.pointers,
            attaches_view=graph.rebase and plan.view_of is not None,
        )
    if is_out or requires:
        # An in-place foreach op returns nothing; its tangents go to self.
        fw_outputs = ("self",) if plan.is_inplace_foreach else outputs
        derivatives = plan.forward_derivatives(key)
        forward = forward_plan(
            func, fw_outputs, derivatives, plan.cpp_name, inputs, plan.element_args
        )
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
        resets_grad_accumulator=str(func.name.name) in plan.policy.reset_grad_accumulator,
        element_lists=inputs if graph is not None and graph.per_element else (),
        is_inplace=plan.kind is SchemaKind.inplace,
        is_foreach=plan.base.startswith("_foreach_"),
    )
