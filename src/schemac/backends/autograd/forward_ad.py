"""Forward-mode AD in the Autograd kernels: tangents of outputs from input tangents.

After the redispatch, an output's tangent is computed from the forward
formula of derivatives.yaml (``result: self_t * other_p + ...``) when some
input it depends on carries a tangent.  Names the formulas use: ``<x>_t``
(the input's tangent, zeros when it has none), ``<x>_t_raw`` (the tangent or
an undefined tensor), ``<x>_p`` (the primal), and ``original_self_p`` /
``original_self_t`` for in-place operators whose formula needs ``self``
before it was modified (the kernel clones it first).

Four shapes are covered: one Tensor output (``result: self_t * 2``), one
Tensor[] output whose formula returns a vector (``unbind``), several Tensor
outputs from a formula returning a tuple (``Q, R: linalg_qr_jvp(...)``), and foreach
operators, whose per-tensor formula runs for each ``i`` with list inputs read
as ``self[i]`` (``ForwardGrad.per_element``).  Every other kernel with
differentiable inputs refuses a tangent with TORCH_CHECK_NOT_IMPLEMENTED
instead of silently dropping it (out= operators always do: they have no
forward formulas).
"""

from __future__ import annotations

import re

import attrs

from schemac.ir.autograd import ForwardDerivative
from schemac.ir.schema import FunctionSchema, SchemaKind
from schemac.ir.types import TENSOR, ListType, OptionalType, Type

_SINGLE_TENSOR_TYPES = (TENSOR, OptionalType(TENSOR))


@attrs.frozen
class TangentInput:
    """How one input's tangent and primal are bound before a formula runs."""

    name: str
    #: The expression the input is read from (``self``, ``original_self``).
    source: str
    #: Zero-fill with a real tensor (it may be written in place), not a zero tensor.
    dense_zeros: bool
    tangent: bool
    primal: bool

    @property
    def zeros(self) -> str:
        return "at::zeros_symint" if self.dense_zeros else "at::_efficientzerotensor_symint"


@attrs.frozen
class ForwardGrad:
    output: str
    inputs: tuple[TangentInput, ...]
    formula: str
    #: Expressions whose tangents make the formula run (``self``, ``other[i]``).
    condition: tuple[str, ...]
    inplace: bool
    #: The output is a Tensor[] and the formula gives all its tangents at once.
    list_output: bool = False
    #: Foreach: run the formula once per tensor ``i`` of ``size`` (``self``).
    per_element: bool = False
    size: str = "self"
    #: Several Tensor outputs from one formula returning a tuple (``Q``, ``R``).
    parts: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        return f"_any_has_forward_grad_{self.output}"

    @property
    def tuple_type(self) -> str:
        return f"::std::tuple<{','.join(['at::Tensor'] * len(self.parts))}>"

    @property
    def any_defined(self) -> str:
        return " || ".join(f"isFwGradDefined({n})" for n in self.condition) or "false"

    @property
    def target(self) -> str:
        """The output tensor that receives the tangent."""
        return f"{self.output}[i]" if self.per_element else self.output


@attrs.frozen
class ForwardPlan:
    grads: tuple[ForwardGrad, ...] = ()
    #: Clone ``self`` before an in-place op when these flags are set.
    original_self_flags: tuple[str, ...] = ()
    #: In-place foreach: clone ``self[i]`` when ``flag[i]`` is set.
    per_element: bool = False
    #: TORCH_CHECK_NOT_IMPLEMENTED condition and message when tangents are refused.
    forbid_condition: str | None = None
    forbid_message: str = ""


def _any_defined(func: FunctionSchema, *, include_out: bool) -> str | None:
    """``isFwGradDefined(a) || ...`` over the tensor arguments, None if there are none."""
    checks = []
    args = func.arguments.flat_all if include_out else func.arguments.flat_non_out
    for arg in args:
        check = _FW_GRAD_DEFINED.get(arg.type)
        if check is not None:
            checks.append(f"{check}({arg.name})")
    return " || ".join(checks) or None


def _bound(
    fw: ForwardDerivative, inputs: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(tangents, primals) a formula reads among the differentiable tensor inputs.

    The pass lists every argument an element-wise formula may read; only
    tensors have tangents and primals to bind (None means all of them).
    """
    tangents = tuple(
        n for n in inputs if fw.required_inputs_fw_grad is None or n in fw.required_inputs_fw_grad
    )
    primals = tuple(
        n for n in inputs if fw.required_inputs_primal is None or n in fw.required_inputs_primal
    )
    return tangents, primals


_LIST_OF_TENSORS = ListType(TENSOR)

#: The check that an argument of each tensor type has a tangent.  A dict, not
#: ``in``/``==`` tests: a type's hash is cached, each ``==`` is an attrs call.
_FW_GRAD_DEFINED: dict[Type, str] = {
    **dict.fromkeys(_SINGLE_TENSOR_TYPES, "isFwGradDefined"),
    _LIST_OF_TENSORS: "isFwGradDefinedTensorList",
}


def _supported(
    fw: ForwardDerivative,
    outputs: tuple[str, ...],
    types: dict[str, Type],
    inputs: tuple[str, ...],
    foreach: bool,
) -> bool:
    if not fw.var_names or any(name not in outputs for name in fw.var_names):
        return False
    if len(fw.var_names) > 1:
        if foreach or any(t != TENSOR for t in fw.var_types):
            return False
    elif fw.var_types[0] not in (TENSOR, _LIST_OF_TENSORS):
        return False
    tangents, primals = _bound(fw, inputs)
    allowed = (*_SINGLE_TENSOR_TYPES, _LIST_OF_TENSORS) if foreach else _SINGLE_TENSOR_TYPES
    return all(types.get(name) in allowed for name in tangents + primals)


def forward_plan(
    func: FunctionSchema,
    outputs: tuple[str, ...],
    derivatives: tuple[ForwardDerivative, ...],
    name: str,
    inputs: tuple[str, ...],
    renames: tuple[tuple[str, str], ...] = (),
) -> ForwardPlan:
    """Forward grads of one kernel.

    ``outputs`` are its differentiable outputs, ``inputs`` its differentiable
    tensor inputs.
    """
    kind = func.kind()
    if kind is SchemaKind.out:
        condition = _any_defined(func, include_out=True)
        message = (
            f"Trying to use forward AD with {name} that does not support it because it is "
            "an out= function"
        )
        return ForwardPlan(forbid_condition=condition, forbid_message=message)
    types = {a.name: a.type for a in func.arguments.flat_all}
    inplace = kind is SchemaKind.inplace
    foreach = func.name.name.base.startswith("_foreach_")
    sources: dict[str, str] = {}
    if renames:
        # A borrowed formula names the per-tensor operator's arguments: its
        # tensors are bound under those names, read from ours (end_t <- tensors1[i]).
        ours = {expr: expr.removesuffix("[i]") for _, expr in renames}
        sources = {ref: expr for ref, expr in renames if ours[expr] in inputs}
        types = {ref: types[ours[expr]] for ref, expr in sources.items()}
        inputs = tuple(sources)
    if derivatives and all(_supported(fw, outputs, types, inputs, foreach) for fw in derivatives):
        grads = tuple(
            _grad(_renamed(fw, renames, sources), inplace, inputs, types, foreach, sources)
            for fw in derivatives
        )
        flags = tuple(
            g.flag
            for g, fw in zip(grads, derivatives, strict=True)
            if inplace and fw.required_original_self_value
        )
        return ForwardPlan(grads=grads, original_self_flags=flags, per_element=foreach)
    in_place_foreach = inplace and func.name.name.base.startswith("_foreach_")
    if not outputs and not in_place_foreach:
        return ForwardPlan()
    condition = _any_defined(func, include_out=False)
    message = (
        f"Trying to use forward AD with {name} that does not support it because it has not "
        "been implemented yet."
    )
    return ForwardPlan(forbid_condition=condition, forbid_message=message)


def _renamed(
    fw: ForwardDerivative, renames: tuple[tuple[str, str], ...], bound: dict[str, str]
) -> ForwardDerivative:
    """An in-place foreach op's borrowed formula, in the foreach op's argument names.

    ``value`` -> ``scalars[i]``, ``weight`` -> ``weight[i]``; tensors in
    ``bound`` keep their names (``end_t``, ``end_p`` are bound per tensor).  A name
    is replaced only where it is a whole identifier that is not a member or a
    call (``at::max(`` stays).
    """
    formula = fw.formula
    for old, new in renames:
        if new == old or old in bound:
            continue
        formula = re.sub(rf"(?<![\w.:]){re.escape(old)}(?![\w(])", new, formula)
    # Almost every kernel renames nothing: skip attrs.evolve's field introspection.
    return fw if formula == fw.formula else attrs.evolve(fw, formula=formula)


def _grad(
    fw: ForwardDerivative,
    inplace: bool,
    inputs: tuple[str, ...],
    types: dict[str, Type],
    foreach: bool,
    sources: dict[str, str],
) -> ForwardGrad:
    tangents, primals = _bound(fw, inputs)

    def source(name: str) -> str:
        if name in sources:
            return sources[name]
        return f"{name}[i]" if foreach and types.get(name) == _LIST_OF_TENSORS else name

    bound = [
        TangentInput(
            n,
            source(n),
            dense_zeros=inplace and n == "self",
            tangent=n in tangents,
            primal=n in primals,
        )
        for n in dict.fromkeys(tangents + primals)
    ]
    if inplace and fw.required_original_self_value:
        original = "original_selfs[i]" if foreach else "original_self"
        bound.append(TangentInput("original_self", original, False, True, True))
    return ForwardGrad(
        output="_".join(fw.var_names),
        parts=fw.var_names if len(fw.var_names) > 1 else (),
        inputs=tuple(bound),
        formula=fw.formula,
        condition=tuple(source(n) for n in tangents),
        inplace=inplace,
        # A foreach formula gives one tensor's tangent, whatever type it declares.
        list_output=not foreach and fw.var_types[0] == _LIST_OF_TENSORS,
        per_element=foreach,
    )
