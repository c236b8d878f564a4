"""The ``headers`` emitters on examples/toyops: small, reviewed expectations.

These pin the rules the emitters implement on a library small enough to read
(the torch-sized comparison with torchgen is in
test_aten_headers_conformance.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac.backends.aten.headers.backend import emit_headers
from schemac.frontend.loader import load_module
from schemac.passes.manager import run_pipeline

TOYOPS = Path(__file__).resolve().parents[2] / "examples" / "toyops"


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    module = run_pipeline(
        load_module(TOYOPS / "native_functions.yaml", TOYOPS / "tags.yaml")
    ).module
    return {f.path: f.text for f in emit_headers(module)}


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def test_structured_group_headers(files: dict[str, str]) -> None:
    meta = _lines(files["ATen/ops/scale_meta.h"])
    assert "struct TORCH_API structured_scale : public TensorIteratorBase {" in meta
    assert (
        "void meta(const at::Tensor & self, const at::Scalar & factor, const at::Scalar & offset);"
        in meta
    )
    native = _lines(files["ATen/ops/scale_native.h"])
    assert "#include <ATen/ops/scale_meta.h>" in native
    # CPU and CUDA share the kernel scale_out: one class, declared once.
    assert (
        native.count("struct TORCH_API structured_scale_out : public at::meta::structured_scale {")
        == 1
    )
    assert (
        "struct TORCH_API structured_scale_out_mps : public at::meta::structured_scale {" in native
    )


def test_generated_meta_and_nonfunctional_kernels_are_declared(files: dict[str, str]) -> None:
    # Structured groups get generated Meta kernels for every member and
    # CompositeExplicitAutogradNonFunctional ones for all but out=.
    meta = files["ATen/ops/scale_meta_dispatch.h"]
    assert "namespace meta {" in meta
    assert "TORCH_API at::Tensor & scale_outf(" in meta
    nonfunctional = files["ATen/ops/scale_compositeexplicitautogradnonfunctional_dispatch.h"]
    assert "TORCH_API at::Tensor scale(" in nonfunctional
    assert "TORCH_API at::Tensor & scale_(" in nonfunctional
    assert "scale_out" not in nonfunctional


def test_precomputed_meta_returns_the_all_set_struct(files: dict[str, str]) -> None:
    meta = files["ATen/ops/window_sum_meta.h"]
    assert "struct TORCH_API precompute_out {" in meta
    assert "using meta_return_ty = precompute_out <true, true, true, true>;" in meta
    assert "meta_return_ty meta(" in meta


def test_symint_operator_gets_symint_templates(files: dict[str, str]) -> None:
    ramp = files["ATen/ops/ramp.h"]
    assert (
        "inline at::Tensor ramp_symint(c10::SymIntArrayRef size, double start=0.0, "
        "at::TensorOptions options={}) {" in ramp
    )
    assert (
        "template <typename T, typename = std::enable_if_t<std::is_same_v<T, c10::SymInt>>>" in ramp
    )
    # The symint template is named without the suffix so T alone selects it.
    assert (
        "  at::Tensor ramp(c10::SymIntArrayRef size, double start=0.0, "
        "at::TensorOptions options={}) {" in ramp
    )


def test_operator_struct_carries_namespace_and_schema(files: dict[str, str]) -> None:
    ops = files["ATen/ops/blend_ops.h"]
    assert 'static constexpr const char* name = "toyops::blend";' in ops
    assert 'static constexpr const char* overload_name = "Tensor";' in ops
    assert (
        "static constexpr const char* schema_str = "
        '"blend.Tensor(Tensor self, Tensor other, *, float weight=0.5) -> Tensor";'
    ) in ops


def test_only_aten_defines_the_tensor_class(files: dict[str, str]) -> None:
    assert "ATen/core/TensorBody.h" not in files
    assert "ATen/MethodOperators.h" in files


def test_every_operator_listed_for_backends(files: dict[str, str]) -> None:
    declarations = [
        line for line in files["ATen/RegistrationDeclarations.h"].splitlines() if "// {" in line
    ]
    assert len(declarations) == len({line.split("//")[0] for line in declarations})
    assert any(line.startswith("at::Tensor blend(") for line in declarations)
