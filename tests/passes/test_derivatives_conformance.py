"""match-derivatives on the real files agrees with PyTorch's autograd codegen.

The reference is torchgen's own ``load_derivatives`` followed by
``match_differentiability_info`` on the same native functions, exactly what
``gen_autograd`` does.  For every function both must agree on: whether it has
derivative info, and per autograd key the backward node name, the arguments
with derivatives, the saved inputs and outputs, and output_differentiability.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from schemac.frontend.torch_paths import TorchYamlPaths
from schemac.ir.autograd import FunctionAutograd
from schemac.ir.module import Module

pytestmark = [pytest.mark.torch, pytest.mark.each_release]

#: (node, args with derivatives, saved inputs, saved outputs, output_differentiability)
Summary = tuple[str | None, tuple[str, ...], tuple[str, ...], tuple[str, ...], Any]


def _saved_name(name: Any) -> str:
    # torchgen names one argument with an enum (SpecialArgName) instead of a string.
    return name if isinstance(name, str) else str(name.name)


@pytest.fixture(scope="session")
def torchgen_matched(torch_paths: TorchYamlPaths, torchgen_of: Callable[[str], Any]) -> list[Any]:
    """torchgen's NativeFunctionWithDifferentiabilityInfo for every function."""
    match_differentiability_info = torchgen_of("torchgen.api.autograd").match_differentiability_info
    parse_native_yaml = torchgen_of("torchgen.gen").parse_native_yaml
    load_derivatives = torchgen_of("torchgen.packaged.autograd.load_derivatives").load_derivatives

    native, tags = str(torch_paths.native_functions), str(torch_paths.tags)
    functions = parse_native_yaml(native, tags).native_functions
    infos, _ = load_derivatives(str(torch_paths.derivatives), native, tags)
    # A copy: matching adds the generated foreach infos to the dict it is given,
    # and load_derivatives returns its module-level cache, which a later
    # gen_autograd_python in this process (test_python_conformance) would then
    # read, writing 62 more Foreach node classes than a fresh torchgen run.
    return list(match_differentiability_info(functions, dict(infos)))


@pytest.fixture(scope="session")
def torchgen_infos(torchgen_matched: list[Any]) -> dict[str, dict[str, Summary]]:
    result: dict[str, dict[str, Summary]] = {}
    for item in torchgen_matched:
        if not item.info:
            continue
        result[str(item.func.func.name)] = {
            key: (
                info.op,
                tuple(a.name for a in info.args_with_derivatives),
                tuple(_saved_name(s.nctype.name) for s in info.all_saved_inputs),
                tuple(_saved_name(s.nctype.name) for s in info.all_saved_outputs),
                None
                if info.output_differentiability is None
                else tuple(info.output_differentiability),
            )
            for key, info in item.info.items()
        }
    return result


def _summaries(entry: FunctionAutograd) -> dict[str, Summary]:
    return {
        info.dispatch_key: (
            info.node,
            tuple(a.name for a in info.args_with_derivatives),
            tuple(s.name for s in info.all_saved_inputs),
            tuple(s.name for s in info.all_saved_outputs),
            info.output_differentiability,
        )
        for info in entry.infos
    }


@pytest.fixture(scope="session")
def schemac_infos(real_module: Module) -> dict[str, dict[str, Summary]]:
    return {
        str(entry.function).split("::")[-1]: _summaries(entry)
        for entry in real_module.autograd.functions
    }


def _unordered_saved(summary: dict[str, Summary]) -> dict[str, Summary]:
    # torchgen collects a generated foreach info's saved variables in a set,
    # so their order is hash order; compare those as sets.
    return {
        key: (node, args, tuple(sorted(ins)), tuple(sorted(outs)), diff)
        for key, (node, args, ins, outs, diff) in summary.items()
    }


def test_same_functions_have_derivative_info(
    torchgen_infos: dict[str, dict[str, Summary]], schemac_infos: dict[str, dict[str, Summary]]
) -> None:
    assert len(torchgen_infos) > 1000
    assert sorted(set(torchgen_infos) - set(schemac_infos)) == []
    assert sorted(set(schemac_infos) - set(torchgen_infos)) == []


def test_same_nodes_arguments_and_saved_variables(
    torchgen_infos: dict[str, dict[str, Summary]], schemac_infos: dict[str, dict[str, Summary]]
) -> None:
    mismatches = {}
    for name, expected in torchgen_infos.items():
        got = schemac_infos.get(name)
        if got is None:
            continue
        if name.startswith("_foreach_"):
            expected, got = _unordered_saved(expected), _unordered_saved(got)
        if got != expected:
            mismatches[name] = (expected, got)
    assert mismatches == {}


def test_well_known_node_names(schemac_infos: dict[str, dict[str, Summary]]) -> None:
    # A few names users see in ``tensor.grad_fn``; a readable guard on top of the above.
    assert schemac_infos["add.Tensor"]["Default"][0] == "AddBackward0"
    assert schemac_infos["add_.Tensor"]["Default"][0] == "AddBackward0"
    assert schemac_infos["add.Scalar"]["Default"][0] == "AddBackward1"
    assert schemac_infos["_foreach_add.List"]["Default"][0] == "ForeachAddBackward0List"
    assert schemac_infos["expand_copy"]["Default"][0] == "ExpandBackward0_copy"


def test_used_autograd_keys(real_module: Module) -> None:
    assert set(real_module.autograd.used_dispatch_keys) == {
        "Default",
        "AutogradNestedTensor",
        "AutogradCUDA",
    }


def _forward_summary(fw: Any) -> tuple[Any, ...]:
    def names(items: Any) -> tuple[str, ...] | None:
        return None if items is None else tuple(sorted(items))

    return (
        tuple(fw.var_names),
        fw.formula,
        names(fw.required_inputs_fw_grad),
        names(fw.required_inputs_primal),
        fw.required_original_self_value,
        fw.is_reusing_outplace_formula,
    )


def _torchgen_details(item: Any, key: str) -> tuple[Any, ...]:
    info = item.info[key]
    return (
        info.name,
        tuple(
            (
                tuple(d.var_names),
                d.formula,
                tuple((_saved_name(v.nctype.name), v.expr) for v in d.saved_inputs),
                tuple((_saved_name(v.nctype.name), v.expr) for v in d.saved_outputs),
                tuple(sorted(d.named_gradients)),
            )
            for d in info.derivatives
        ),
        tuple(info.non_differentiable_arg_names),
        tuple(info.available_named_gradients),
        tuple(_forward_summary(fw) for fw in item.fw_derivatives[key]),
    )


def _schemac_details(entry: FunctionAutograd, key: str) -> tuple[Any, ...]:
    info = entry.info_for(key)
    assert info is not None
    return (
        info.name,
        tuple(
            (
                d.var_names,
                d.formula,
                tuple((v.name, v.expr) for v in d.saved_inputs),
                tuple((v.name, v.expr) for v in d.saved_outputs),
                d.named_gradients,
            )
            for d in info.derivatives
        ),
        info.non_differentiable_arg_names,
        info.available_named_gradients,
        tuple(_forward_summary(fw) for fw in dict(entry.forward_derivatives)[key]),
    )


def test_same_formulas_saved_expressions_and_forward_formulas(
    torchgen_matched: list[Any], real_module: Module
) -> None:
    """Formula text after substitution, save-time expressions, forward formulas
    (auto_element_wise / auto_linear expanded, in-place rewrites, foreach)."""
    ours = {str(e.function).split("::")[-1]: e for e in real_module.autograd.functions}
    mismatches = {}
    compared = 0
    for item in torchgen_matched:
        if not item.info:
            continue
        name = str(item.func.func.name)
        for key in item.info:
            expected = _torchgen_details(item, key)
            got = _schemac_details(ours[name], key)
            compared += 1
            if got != expected:
                mismatches[(name, key)] = (expected, got)
    assert compared > 1000
    assert mismatches == {}
