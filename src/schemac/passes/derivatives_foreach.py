"""Derivatives of ``_foreach_*`` operators that derivatives.yaml does not list.

A foreach operator applies a per-tensor operator to each element of tensor
lists (``_foreach_add.List`` is ``add.Tensor`` over lists).  Unless it has its
own entry, an out-of-place foreach operator gets a generated info: the
reference operator's formulas applied per element (``grad`` becomes
``grads[i]``, a list argument ``self`` becomes ``self[i]``), saved inputs are
the whole lists, and its node is ``Foreach<reference node><overload>``.  An
in-place foreach operator reuses the reference operator's info unchanged.

The reference is the functional operator named like the foreach one without
``_foreach_`` whose arguments correspond one to one, each foreach argument
being the reference's type or a list of it.  A few foreach overloads are
exempt from the argument-count rule (they lack ``alpha``), and
``_foreach_zero_`` uses the in-place ``zero_``.
"""

from __future__ import annotations

from collections.abc import Iterable

from schemac.ir.autograd import (
    Derivative,
    DifferentiabilityInfo,
    DifferentiableArgument,
    ForwardDerivative,
    SavedAttribute,
    SavedProperty,
)
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Argument, FunctionSchema, SchemaKind
from schemac.ir.types import TENSOR, BaseTy, ListType, OptionalType, is_like
from schemac.passes.derivatives_naming import foreach_node_name

_INPLACE_REFERENCE = frozenset({"_foreach_zero_"})
_NO_ALPHA = frozenset(
    {
        "_foreach_add.Scalar", "_foreach_add_.Scalar", "_foreach_add.ScalarList",
        "_foreach_add_.ScalarList", "_foreach_sub.Scalar", "_foreach_sub_.Scalar",
        "_foreach_sub.ScalarList", "_foreach_sub_.ScalarList",
    }
)  # fmt: skip

#: (schema, infos of one entry) pairs to search for a reference.
Candidates = Iterable[tuple[FunctionSchema, DifferentiabilityInfo | None]]


def _unqualified(f: FunctionSchema) -> str:
    name = f.name
    base = str(name.name).split("::")[-1]
    return f"{base}.{name.overload}" if name.overload else base


def is_reference(foreach: FunctionSchema, candidate: FunctionSchema) -> bool:
    # The cheap name test first: almost every candidate fails it.
    if foreach.name.name.base.split("_foreach_")[-1] != candidate.name.name.base:
        return False
    name = _unqualified(foreach)
    ours, theirs = foreach.arguments.flat_non_out, _without_options(candidate)
    if name not in _NO_ALPHA and len(ours) != len(theirs):
        return False
    return all(
        ref.type == arg.type
        or (isinstance(arg.type, (ListType, OptionalType)) and ref.type == arg.type.elem)
        for arg, ref in zip(ours, theirs, strict=False)
    )


def _without_options(schema: FunctionSchema) -> tuple[Argument, ...]:
    # Signatures, which the reference is found by, leave TensorOptions out.
    args = schema.arguments
    return (
        args.positional + args.pre_tensor_options_kwarg_only + args.post_tensor_options_kwarg_only
    )


def foreach_info(
    f: NativeFunction, functional: Candidates, non_functional: Candidates
) -> tuple[DifferentiabilityInfo | None, FunctionSchema | None, bool]:
    """(info, reference schema, generated) for foreach operator ``f``."""
    reference: DifferentiabilityInfo | None = None
    ref_schema: FunctionSchema | None = None
    for schema, info in functional:
        if is_reference(f.func, schema):
            reference, ref_schema = info, schema
            if info is not None:
                break
    inplace = f.func.kind() is SchemaKind.inplace
    if reference is None and inplace and _unqualified(f.func) in _INPLACE_REFERENCE:
        for schema, info in non_functional:
            if is_reference(f.func, schema):
                reference, ref_schema = info, schema
                if info is not None:
                    break
    if reference is None or ref_schema is None:
        return None, None, False
    if inplace:
        return reference, ref_schema, False
    return _generate(f, reference, ref_schema), ref_schema, True


def _generate(
    f: NativeFunction, ref: DifferentiabilityInfo, ref_schema: FunctionSchema
) -> DifferentiabilityInfo:
    pairs = list(zip(f.func.arguments.flat_non_out, _without_options(ref_schema), strict=False))
    to_foreach = {r.name: a.name for a, r in pairs}
    by_name = {a.name: a for a, _ in pairs}
    derivatives: list[Derivative] = []
    saved_in: list[SavedAttribute] = []
    saved_out: list[SavedAttribute] = []
    var_names: list[str] = []
    for d in ref.derivatives:
        formula = d.formula.replace("grad", "grads[i]").replace("result", "result[i]")
        inputs: list[SavedAttribute] = []
        for saved in d.saved_inputs:
            source = saved.expr.split(".")[0]
            mapped = to_foreach[source]
            arg = by_name[mapped]
            element = f"{mapped}[i]" if isinstance(arg.type, ListType) else mapped
            formula = formula.replace(saved.name, saved.expr.replace(source, element))
            inputs.append(SavedAttribute(mapped, mapped, arg.type, SavedProperty.value, mapped))
        outputs = [
            SavedAttribute("result", "result", ListType(TENSOR), SavedProperty.value, "result")
            for saved in d.saved_outputs
            if saved.name == "result"
        ]
        names = tuple(to_foreach[v] for v in d.var_names)
        var_names += names
        saved_in += inputs
        saved_out += outputs
        derivatives.append(
            Derivative(
                var_names=names,
                formula=formula,
                original_formula=d.formula,
                saved_inputs=tuple(inputs),
                saved_outputs=tuple(outputs),
                span=d.span,
            )
        )
    args = tuple(
        DifferentiableArgument(a.name, a.type)
        for a in f.func.arguments.flat_non_out
        if a.name in var_names
    )
    return DifferentiabilityInfo(
        name=f.func.name.name.base,
        operator=f.name,
        dispatch_key=ref.dispatch_key,
        node=foreach_node_name(ref.node, f.func.name.overload),
        derivatives=tuple(derivatives),
        forward_derivatives=tuple(_forward(f, ref_schema, fw) for fw in ref.forward_derivatives),
        all_saved_inputs=_unique(saved_in),
        all_saved_outputs=_unique(saved_out),
        args_with_derivatives=args,
        span=ref.span,
    )


def _unique(items: list[SavedAttribute]) -> tuple[SavedAttribute, ...]:
    # Each list is saved once however many formulas read it.
    return tuple(dict.fromkeys(items))


def _forward(
    f: NativeFunction, ref_schema: FunctionSchema, fw: ForwardDerivative
) -> ForwardDerivative:
    names = list(fw.var_names)
    types = list(fw.var_types)
    tangents = list(fw.required_inputs_fw_grad or ())
    primals = list(fw.required_inputs_primal or ())
    formula = fw.formula.replace("result", "result[i]") if "result" in fw.formula else fw.formula
    ref_args = [a.name for a in ref_schema.arguments.flat_non_out]
    for arg, ref_name in zip(f.func.arguments.flat_non_out, ref_args, strict=False):
        tensor_like = is_like(arg.type, BaseTy.Tensor)
        if isinstance(arg.type, ListType) and not tensor_like:
            formula = formula.replace(ref_name, arg.name + "[i]")
        elif tensor_like:
            for suffix in ("_p", "_t"):
                if ref_name + suffix in formula:
                    formula = formula.replace(ref_name + suffix, arg.name + suffix)
        elif arg.name != ref_name:
            formula = formula.replace(ref_name, arg.name)
        for items in (names, tangents, primals):
            for index, name in enumerate(items):
                if name == ref_name:
                    items[index] = arg.name
        for index, name in enumerate(fw.var_names):
            if name == ref_name:
                types[index] = arg.type
    return ForwardDerivative(
        var_names=tuple(names),
        var_types=tuple(types),
        formula=formula,
        required_inputs_fw_grad=tuple(tangents),
        required_inputs_primal=tuple(primals),
        required_original_self_value=fw.required_original_self_value,
        is_reusing_outplace_formula=fw.is_reusing_outplace_formula,
        span=fw.span,
    )
