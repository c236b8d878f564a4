"""Structured kernels for an out-of-tree backend (``structured:``, beyond torchgen).

The backend lists a structured family by its out= variant and writes only
``<Class>::structured_<kernel>::impl``; schemac declares that class in the
header (deriving from ATen's ``at::meta::structured_<op>``, so ``meta()``
is shared with every in-tree backend) and generates the functional, out=
and in-place wrappers with ATen's structured machinery, allocating through
the dispatcher.  The generated file must compile against torch's headers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac.backends.backend_stubs.backend import backend_files
from schemac.frontend.backend_loader import read_backend_yaml
from schemac.ir.module import Module

pytestmark = pytest.mark.torch

YAML = Path(__file__).resolve().parent / "data" / "backend_stubs" / "structured.yaml"


@pytest.fixture(scope="module")
def generated(schemac_module: Module, tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec, problems = read_backend_yaml(YAML)
    assert spec is not None and not problems
    out = tmp_path_factory.mktemp("structured-stubs")
    for file in backend_files(schemac_module, spec):
        (out / file.path).write_text(file.text)
    return out


def test_header_declares_the_impl_classes(generated: Path) -> None:
    header = (generated / "XLANativeFunctions.h").read_text()
    assert "#include <ATen/ops/add_meta.h>" in header
    assert (
        "struct structured_add_out : public at::meta::structured_add_Tensor {\n"
        "  void impl(const at::Tensor & self, const at::Tensor & other, "
        "const at::Scalar & alpha, const at::Tensor & out);\n};"
    ) in header
    assert "struct structured_tril_out : public at::meta::structured_tril {" in header
    # The structured families' members get no kernels of their own to write.
    assert "static at::Tensor add(" not in header and "static at::Tensor tril(" not in header


def test_every_member_is_registered_through_meta_and_impl(generated: Path) -> None:
    source = (generated / "RegisterXLA.cpp").read_text()
    for name in ("add.Tensor", "add.out", "add_.Tensor", "tril", "tril.out", "tril_"):
        assert f'm.impl("{name}", ' in source
    parent = "vendor::XLANativeFunctions::structured_add_out"
    for kind in ("functional", "out", "inplace"):
        assert f"struct structured_add_out_{kind} final : public {parent} {{" in source
    assert "op.meta(self, other, alpha);\n  op.impl(self, other, alpha, op.outputs_[0]);" in source
    # Outputs are allocated through the dispatcher: the device's own empty kernels.
    assert "return at::empty_strided(sizes, strides, options);" in source


def test_compiles(generated: Path, torch_include: Path, compile_cpp) -> None:  # type: ignore[no-untyped-def]
    includes = [generated, torch_include, torch_include / "torch/csrc/api/include"]
    result = compile_cpp(generated / "RegisterXLA.cpp", includes)
    assert result.returncode == 0, result.stderr[-4000:]
