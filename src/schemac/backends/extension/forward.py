"""Forward-mode AD in the extension's Autograd kernels.

The plan (which outputs get a tangent, from which formula, which inputs'
tangents and primals it binds, or the condition under which a tangent is
refused) is the autograd backend's
:func:`~schemac.backends.autograd.forward_ad.forward_plan`; this module
prints it.  Only functional operators with plain Tensor outputs get tangents;
every other kernel with differentiable inputs refuses them
(``TORCH_CHECK_NOT_IMPLEMENTED``), never drops them.
"""

from __future__ import annotations

import re

import attrs

from schemac.backends.aten.registrations.cpp import block
from schemac.backends.aten.signatures.naming import cpp_name
from schemac.backends.autograd.forward_ad import ForwardGrad, ForwardPlan, forward_plan
from schemac.backends.cppmodel import cpp_string_literal
from schemac.backends.extension.library import ExtensionLibrary
from schemac.ir.autograd import DEFAULT_AUTOGRAD_KEY, DifferentiabilityInfo, ForwardDerivative
from schemac.ir.native import NativeFunction
from schemac.ir.schema import SchemaKind

_ATEN_CALL = re.compile(r"\bat::([A-Za-z_][A-Za-z0-9_]*)\(")


def kernel_forward_plan(
    library: ExtensionLibrary, f: NativeFunction, info: DifferentiabilityInfo
) -> ForwardPlan:
    """Tangents of a functional operator's outputs; a refusal for any other kernel."""
    kind = f.func.kind()
    found = library.module.autograd.for_function(f.func.name)
    formulas = dict(found.forward_derivatives).get(DEFAULT_AUTOGRAD_KEY, ()) if found else ()
    inputs = tuple(a.name for a in info.args_with_derivatives)
    returns = f.func.returns
    names = [
        r.name or ("result" if len(returns) == 1 else f"result{i}") for i, r in enumerate(returns)
    ]
    differentiable = info.output_differentiability or (True,) * len(returns)
    outputs = tuple(n for n, d in zip(names, differentiable, strict=False) if d)
    if kind is not SchemaKind.functional:
        formulas = ()  # in-place tangents are not generated yet: refused below
    formulas = tuple(_in_library(library, fw) for fw in formulas)
    plan = forward_plan(f.func, outputs, formulas, str(f.func.name), inputs)
    if any(g.per_element or g.parts or g.list_output for g in plan.grads) or (
        kind is not SchemaKind.functional and plan.forbid_condition is None
    ):
        plan = forward_plan(f.func, outputs or ("self",), (), str(f.func.name), inputs)
    return plan


def _in_library(library: ExtensionLibrary, fw: ForwardDerivative) -> ForwardDerivative:
    """``auto_linear`` formulas call the operator as ``at::<op>``: here it is ``<ns>::<op>``."""
    formula = _ATEN_CALL.sub(
        lambda m: (
            f"{library.namespace}::{m.group(1)}("
            if m.group(1) in library_cpp_names(library)
            else m.group(0)
        ),
        fw.formula,
    )
    return fw if formula == fw.formula else attrs.evolve(fw, formula=formula)


def library_cpp_names(library: ExtensionLibrary) -> frozenset[str]:
    return frozenset(cpp_name(f.func) for f in library.module.functions) | frozenset(
        cpp_name(f.func, symint=True) for f in library.module.functions
    )


def forward_flags(plan: ForwardPlan) -> list[str]:
    lines = [f"[[maybe_unused]] auto {g.flag} = {g.any_defined};" for g in plan.grads]
    if plan.forbid_condition:
        lines.append(
            f"TORCH_CHECK_NOT_IMPLEMENTED(!({plan.forbid_condition}),"
            f" {cpp_string_literal(plan.forbid_message)});"
        )
    return lines


def forward_grad(g: ForwardGrad) -> list[str]:
    bind: list[str] = []
    for i in g.inputs:
        if i.tangent:
            bind += [
                f"auto {i.name}_t_raw = toNonOptFwGrad({i.source});",
                f"auto {i.name}_tensor = toNonOptTensor({i.source});",
                f"auto {i.name}_t = ({i.name}_t_raw.defined() || !{i.name}_tensor.defined())",
                f"    ? {i.name}_t_raw"
                f" : {i.zeros}({i.name}_tensor.sym_sizes(), {i.name}_tensor.options());",
                f"update_wrapped_number({i.name}_tensor, {i.name}_t);",
            ]
        if i.primal:
            bind.append(f"auto {i.name}_p = toNonOptPrimal({i.source});")
    opt = f"{g.output}_new_fw_grad_opt"
    inplace = "true" if g.inplace else "false"
    return [
        f"::std::optional<at::Tensor> {opt} = ::std::nullopt;",
        block(f"if ({g.flag} && {g.output}.defined())", [*bind, f"{opt} = {g.formula};"]),
        block(
            f"if ({opt}.has_value() && {opt}.value().defined() && {g.output}.defined())",
            [f"{g.output}._set_fw_grad({opt}.value(), /* level */ 0, {inplace});"],
        ),
    ]
