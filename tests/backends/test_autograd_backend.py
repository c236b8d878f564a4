"""The autograd backend on small libraries: readable facts, and lowering diagnostics.

Uses examples/toyops (its own namespace, derivatives for a handful of
operators) and tiny YAML written here.  The whole-corpus comparison with
torchgen is test_autograd_conformance.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schemac.backends.autograd.backend import emit_autograd
from schemac.backends.autograd.nodes import AutogradLoweringError
from schemac.frontend.loader import load_module
from schemac.ir.module import Module
from schemac.passes.manager import run_pipeline

TOYOPS = Path(__file__).resolve().parents[2] / "examples" / "toyops"


def _compile(native: Path, tags: Path, derivatives: Path) -> dict[str, str]:
    module: Module = run_pipeline(load_module(native, tags, derivatives)).module
    return {f.path.removeprefix("autograd/"): f.text for f in emit_autograd(module)}


@pytest.fixture(scope="module")
def toy() -> dict[str, str]:
    return _compile(
        TOYOPS / "native_functions.yaml", TOYOPS / "tags.yaml", TOYOPS / "derivatives.yaml"
    )


def _struct(text: str, name: str) -> str:
    match = re.search(rf"^struct TORCH_API {name} : .*?^\}};", text, re.M | re.S)
    assert match is not None, name
    return match.group(0)


def test_blend_node_saves_only_what_its_formulas_read(toy: dict[str, str]) -> None:
    node = _struct(toy["Functions.h"], "BlendBackward0")
    assert "public TraceableFunction" in node
    # self: grad * (1 - weight), other: grad * weight -> only weight is saved.
    assert "  double weight;\n" in node
    assert "SavedVariable " not in node  # no saved tensor member
    assert 'std::string name() const override { return "BlendBackward0"; }' in node


def test_saved_sizes_are_owned_vectors(toy: dict[str, str]) -> None:
    node = _struct(toy["Functions.h"], "TotalBackward0")
    assert "  std::vector<c10::SymInt> self_sym_sizes;\n" in node
    assert "  c10::OptionalArray<int64_t> dim;\n" in node


def test_not_implemented_formula_stays_in_the_apply_function(
    toy: dict[str, str],
) -> None:
    functions = toy["Functions.cpp"]
    body = functions[functions.index("SplitExtremesBackward0_apply_functional(") :]
    body = body[: body.index("\n}\n")]
    assert "not_implemented(" in body


def test_registrations_use_the_library_namespace(toy: dict[str, str]) -> None:
    everything = toy["VariableTypeEverything.cpp"]
    assert "TORCH_LIBRARY_IMPL(toyops, Autograd, m)" in everything
    assert "TORCH_LIBRARY_IMPL(aten," not in everything
    assert 'm.impl("blend.Tensor", TORCH_FN(VariableType::blend_Tensor));' in everything


def test_blend_kernel_records_the_node_and_the_forward_formula(toy: dict[str, str]) -> None:
    everything = toy["VariableTypeEverything.cpp"]
    start = everything.index("at::Tensor blend_Tensor(c10::DispatchKeySet ks")
    kernel = everything[start : everything.index("\n}\n", start)]
    assert "grad_fn = c10::make_intrusive<BlendBackward0>();" in kernel
    assert "grad_fn->weight = weight;" in kernel
    assert "set_history(flatten_tensor_args(result), grad_fn);" in kernel
    assert "result_new_fw_grad_opt = self_t * (1 - weight) + other_t * weight;" in kernel


def test_out_variant_refuses_forward_ad(toy: dict[str, str]) -> None:
    everything = toy["VariableTypeEverything.cpp"]
    start = everything.index("split_extremes_out_out(c10::DispatchKeySet ks")
    kernel = everything[start : everything.index("\n}\n", start)]
    assert "because it is an out= function" in kernel
    assert 'throw_error_out_requires_grad("split_extremes")' in kernel


def test_non_owning_saved_value_is_a_positioned_error(tmp_path: Path) -> None:
    (tmp_path / "native_functions.yaml").write_text(
        "- func: toyops::weigh(Tensor self, float[] weights) -> Tensor\n"
        "  dispatch:\n"
        "    CPU: weigh_cpu\n"
    )
    (tmp_path / "tags.yaml").write_text("- tag: core\n  desc: core operators\n")
    (tmp_path / "derivatives.yaml").write_text(
        "- name: weigh(Tensor self, float[] weights) -> Tensor\n  self: grad * weights[0]\n"
    )
    with pytest.raises(AutogradLoweringError) as error:
        _compile(
            tmp_path / "native_functions.yaml",
            tmp_path / "tags.yaml",
            tmp_path / "derivatives.yaml",
        )
    (diagnostic,) = error.value.diagnostics
    assert diagnostic.span.file.endswith("derivatives.yaml")
    assert diagnostic.span.line == 2
    assert "'weights'" in diagnostic.message and "at::ArrayRef<double>" in diagnostic.message
