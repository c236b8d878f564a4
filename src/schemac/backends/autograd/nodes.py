"""Backward nodes: one C++ ``Node`` subclass per differentiable derivatives entry.

A :class:`NodeView` is everything Functions.h and Functions.cpp print about one
node, computed once from a :class:`~schemac.ir.autograd.DifferentiabilityInfo`:
the saved members (:mod:`.saved`), the gradient slots of the inputs, and one
:class:`GradientBlock` per backward formula, which evaluates the formula only
when the engine asks for one of its inputs' gradients.

Note [Gradient slots]: the node's outputs (the gradients it produces) are laid
out in ``args_with_derivatives`` order; a tensor-list input takes as many
slots as it had tensors (``<name>_size_``, recorded when the node is built),
every other input one.  ``needs_input_grad[i]`` says whether slot range ``i``
is wanted; a formula producing several gradients at once (``var_names`` of
length > 1) gets ``grad_input_mask`` built from those flags when it uses it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping

import attrs

from schemac.backends.aten.signatures.conventions import DEFAULT_CONVENTIONS, Conventions
from schemac.backends.aten.signatures.naming import base_name
from schemac.backends.autograd.policy import (
    INTRUSIVE,
    AutogradPolicy,
    NodePointers,
    reference_policy,
)
from schemac.backends.autograd.saved import SavedMember, saved_member
from schemac.backends.lazy import cached
from schemac.diagnostics import Diagnostic, SchemacError
from schemac.ir.autograd import DifferentiabilityInfo
from schemac.ir.module import Module
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType

_TENSOR_OR_OPTIONAL = (BaseType(BaseTy.Tensor), OptionalType(BaseType(BaseTy.Tensor)))
_TENSOR_LIST = ListType(BaseType(BaseTy.Tensor))


@functools.cache
def _word(ident: str) -> re.Pattern[str]:
    # A pure function of ``ident`` (only a few identifiers are ever asked
    # for): kept so each kernel and node does not rebuild the pattern.
    return re.compile(rf"(^|\W){re.escape(ident)}(\W|$)")


def uses_identifier(info: DifferentiabilityInfo, ident: str) -> bool:
    """True when some backward formula of ``info`` mentions ``ident`` as a word."""
    search = _word(ident).search
    return any(search(d.formula) for d in info.derivatives)


@attrs.frozen
class GradientInput:
    """One differentiable input and its gradient slot range (Note [Gradient slots])."""

    name: str
    index: int
    #: True for tensor lists, which take ``<name>_size_`` slots.
    is_list: bool

    @property
    def size(self) -> str:
        return f"{self.name}_size_" if self.is_list else "1"


@attrs.frozen
class GradientBlock:
    """One backward formula and the slots its results go to."""

    formula: str
    #: (input name, slot index) of every gradient the formula produces.
    targets: tuple[tuple[str, int], ...]
    #: Single-gradient formula wrapped in ``any_grad_defined ? (...) : Tensor()``.
    checks_any_grad_defined: bool = False
    #: Per-tensor loop over ``grads`` (foreach nodes).
    foreach: bool = False
    #: The formula reads ``grad_input_mask``.
    uses_mask: bool = False

    @property
    def is_single(self) -> bool:
        return len(self.targets) == 1

    @property
    def condition(self) -> str:
        return " || ".join(f"needs_input_grad[{i}]" for _, i in self.targets)


# Not slotted, so that its cached properties are instance-dict hits (see OperatorPlan).
@attrs.frozen(slots=False)
class NodeView:
    op: str
    superclass: str
    members: tuple[SavedMember, ...]
    inputs: tuple[GradientInput, ...]
    #: ``const auto& <name> = grads[<i>];`` aliases (``grad`` when single-output).
    grad_aliases: tuple[tuple[str, int], ...]
    blocks: tuple[GradientBlock, ...]
    retains_variables: bool

    @cached
    def list_inputs(self) -> tuple[GradientInput, ...]:
        return tuple(i for i in self.inputs if i.is_list)

    @cached
    def needs_any_grad_defined(self) -> bool:
        return any(b.checks_any_grad_defined for b in self.blocks)

    @cached
    def release_lines(self) -> tuple[str, ...]:
        return tuple(line for m in self.members for line in m.release)

    @cached
    def released_checks(self) -> tuple[str, ...]:
        return tuple(c for m in self.members if (c := m.released_check) is not None)

    @cached
    def unpacks(self) -> tuple[str, ...]:
        return tuple(u for m in self.members if (u := m.unpack) is not None)

    @cached
    def functional_params(self) -> tuple[tuple[str, str], ...]:
        """(type, name) of what the apply function takes after the input mask."""
        params = [("size_t", i.size) for i in self.list_inputs]
        params += [(m.unpacked_type, m.name) for m in self.members]
        if self.retains_variables:
            params.append(("bool", "retain_variables"))
        return tuple(params)

    @cached
    def functional_param_tail(self) -> str:
        """``, T& a, U& b``: the apply function's parameters after the input mask."""
        return "".join(", " + t + "& " + n for t, n in self.functional_params)

    @cached
    def functional_arg_tail(self) -> str:
        return "".join(", " + n for _, n in self.functional_params)

    @cached
    def data_member_declarations(self) -> tuple[str, ...]:
        lines = [d for m in self.members for d in m.declarations]
        lines += [f"size_t {i.name}_size_;" for i in self.list_inputs]
        return tuple(lines)


def _blocks(info: DifferentiabilityInfo, index: dict[str, int]) -> Iterator[GradientBlock]:
    foreach = info.name.startswith("_foreach_")
    types = {a.name: a.type for a in info.args_with_derivatives}
    for derivative in info.derivatives:
        targets = tuple((name, index[name]) for name in derivative.var_names)
        formula = derivative.formula
        if len(targets) > 1:
            yield GradientBlock(formula, targets, uses_mask="grad_input_mask" in formula)
            continue
        checks = (
            "not_implemented" not in formula and types.get(targets[0][0]) in _TENSOR_OR_OPTIONAL
        )
        if checks:
            formula = f"any_grad_defined ? ({formula}) : Tensor()"
        yield GradientBlock(formula, targets, checks_any_grad_defined=checks, foreach=foreach)


def node_view(
    info: DifferentiabilityInfo,
    conv: Conventions,
    view_functions: Mapping[str, str],
    pointers: NodePointers = INTRUSIVE,
) -> NodeView:
    """``view_functions``: the release's view operators, whose nodes are plain ``Node``s;
    ``pointers``: how the release's nodes point at themselves."""
    if info.node is None:
        raise ValueError(f"{info.name} has no backward node")
    inputs = tuple(
        # Only Tensor[] takes a variable number of slots; Tensor?[] takes one.
        GradientInput(a.name, i, a.type == _TENSOR_LIST)
        for i, a in enumerate(info.args_with_derivatives)
    )
    index = {i.name: i.index for i in inputs}
    members = [
        saved_member(s, is_output=False, conv=conv)
        for s in sorted(info.all_saved_inputs, key=lambda s: s.name)
    ]
    members += [
        saved_member(s, is_output=True, conv=conv)
        for s in sorted(info.all_saved_outputs, key=lambda s: s.name)
    ]
    if pointers != INTRUSIVE:
        members = [attrs.evolve(m, this=pointers.this) for m in members]
    if uses_identifier(info, "grad"):
        aliases: tuple[tuple[str, int], ...] = (("grad", 0),)
    else:
        available = info.available_named_gradients
        aliases = tuple((n, available.index(n)) for n in sorted(info.used_named_gradients))
    return NodeView(
        op=info.node,
        superclass="Node" if info.name in view_functions else "TraceableFunction",
        members=tuple(members),
        inputs=inputs,
        grad_aliases=aliases,
        blocks=tuple(_blocks(info, index)),
        retains_variables=uses_identifier(info, "retain_variables"),
    )


def differentiable_infos(module: Module) -> tuple[DifferentiabilityInfo, ...]:
    """Every info that gets a node, each node once.

    Nodes of derivatives.yaml entries come in the file's order (so a diff of
    Functions.h follows a diff of the YAML), then the ``*_copy`` twins of view
    entries in the order of their views, then the nodes synthesised for
    foreach operators, by C++ name.
    """
    position = {entry.schema.name: i for i, entry in enumerate(module.derivatives)}
    seen: dict[str, DifferentiabilityInfo] = {}
    for entry in module.autograd.functions:
        for info in entry.infos:
            if info.node is None or not info.args_with_derivatives or info.node in seen:
                continue
            seen[info.node] = info
    listed = sorted(
        (i for i in seen.values() if i.operator in position), key=lambda i: position[i.operator]
    )
    by_base = {(n.name.base, n.overload): i for n, i in reversed(position.items())}
    rest = [i for i in seen.values() if i.operator not in position]

    def twin_of(info: DifferentiabilityInfo) -> int | None:
        base = info.operator.name.base
        if not base.endswith("_copy"):
            return None
        return by_base.get((base.removesuffix("_copy"), info.operator.overload))

    twins = sorted((i for i in rest if twin_of(i) is not None), key=lambda i: twin_of(i) or 0)
    synthesised = sorted(
        (i for i in rest if twin_of(i) is None), key=lambda i: base_name(i.operator)
    )
    return tuple(listed + twins + synthesised)


class AutogradLoweringError(SchemacError):
    """A derivatives.yaml formula that the match pass accepted cannot become C++."""


def _ownership_problems(info: DifferentiabilityInfo, view: NodeView) -> Iterator[Diagnostic]:
    for member in view.members:
        if not member.is_non_owning:
            continue
        span = next(
            (
                d.span
                for d in info.derivatives
                if any(s.name == member.name for s in d.saved_inputs + d.saved_outputs)
            ),
            info.span,
        )
        yield Diagnostic(
            span,
            f"'{member.name}' would be saved in {view.op} as '{member.cpp_type}', which does "
            "not own its data: the backward node would read freed memory",
            hint="use a property the node can own (e.g. .sym_sizes(), .scalar_type()) or "
            "give the argument an owning type",
        )


def node_conventions(module: Module, info: DifferentiabilityInfo) -> Conventions:
    """The conventions of the function ``info``'s formulas were resolved against."""
    function = module.find_function(info.operator)
    return Conventions.of(function) if function is not None else DEFAULT_CONVENTIONS


def checked_node_view(
    info: DifferentiabilityInfo,
    conv: Conventions,
    view_functions: Mapping[str, str],
    pointers: NodePointers = INTRUSIVE,
) -> NodeView:
    """:func:`node_view`, raising :class:`AutogradLoweringError` for a formula
    that cannot be lowered."""
    view = node_view(info, conv, view_functions, pointers)
    problems = list(_ownership_problems(info, view))
    if problems:
        raise AutogradLoweringError(problems)
    return view


def node_views(module: Module, policy: AutogradPolicy | None = None) -> tuple[NodeView, ...]:
    """Every backward node; formulas that cannot be lowered are reported together.

    ``policy``: the target release's lists (the reference release's by default).
    """
    policy = reference_policy() if policy is None else policy
    view_functions = policy.view_functions
    views = []
    problems: list[Diagnostic] = []
    for info in differentiable_infos(module):
        view = node_view(info, node_conventions(module, info), view_functions, policy.pointers)
        problems.extend(_ownership_problems(info, view))
        views.append(view)
    if problems:
        raise AutogradLoweringError(problems)
    return tuple(views)
