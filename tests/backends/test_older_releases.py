"""What 2.11 / 2.12 output differs in, on a tiny library: each profile feature switches it.

The features (tools/extract_profile.py reads them off each release's
torchgen) are ``structured_output_names``, ``autograd_node_intrusive_ptr``,
``python_method_has_torch_function``, ``python_factory_method_checks_dispatch``
and the ``shard_counts`` table.  The same library is emitted for 2.12 and for
2.13, and each difference is checked on both sides.  That the results compile
against 2.11.0's and 2.12.1's own headers is measured by g++ (docs/releases.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac.backends.driver import emit_targets
from schemac.frontend.loader import load_module
from schemac.ir.module import Module
from schemac.passes.base import PassContext
from schemac.passes.manager import PassManager
from schemac.profiles import load_profile

NATIVE = """\
- func: scale.out(Tensor self, Scalar factor, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: scale_out
- func: scale(Tensor self, Scalar factor) -> Tensor
  structured_delegate: scale.out
  variants: function, method
- func: twice(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CPU: twice
- func: fresh_like(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  variants: method
  dispatch:
    CompositeExplicitAutograd: fresh_like
"""  # noqa: E501
DERIVATIVES = """\
- name: scale(Tensor self, Scalar factor) -> Tensor
  self: grad * factor
  result: self_t * factor
- name: twice(Tensor self) -> Tensor
  self: grad * 2 * result
"""


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """Release -> path -> text, for ``cpu``, ``autograd`` and ``python``."""
    directory = tmp_path_factory.mktemp("older")
    (directory / "native_functions.yaml").write_text(NATIVE)
    (directory / "derivatives.yaml").write_text(DERIVATIVES)
    found = {}
    for release in ("2.12", "2.13"):
        profile = load_profile(release)
        module: Module = load_module(
            directory / "native_functions.yaml",
            derivatives=directory / "derivatives.yaml",
            profile=profile,
        )
        module = PassManager.default().run(PassContext(profile=profile), module).module
        files = emit_targets(module, ("cpu", "autograd", "python"), profile=profile)
        found[release] = {f.path: f.text for f in files}
    return found


def test_structured_outputs_take_names_before_2_13(outputs: dict[str, dict[str, str]]) -> None:
    old, new = (outputs[r]["ATen/RegisterCPUEverything.cpp"] for r in ("2.12", "2.13"))
    head = (
        "void set_output_raw_strided(int64_t output_idx, IntArrayRef sizes, IntArrayRef strides, "
        "TensorOptions options{}) override {{"
    )
    assert head.format(", DimnameList names") in old
    assert head.format("") in new
    assert "namedinference::propagate_names(outputs_[output_idx], names);" in old
    assert "#include <ATen/NamedTensorUtils.h>" in old
    assert "propagate_names" not in new and "NamedTensorUtils" not in new


def test_nodes_are_shared_ptrs_before_2_13(outputs: dict[str, dict[str, str]]) -> None:
    old, new = outputs["2.12"], outputs["2.13"]
    kernels = old["autograd/VariableTypeEverything.cpp"]
    assert "std::shared_ptr<ScaleBackward0> grad_fn;" in kernels
    assert "grad_fn = std::shared_ptr<ScaleBackward0>(new ScaleBackward0(), deleteNode);" in kernels
    assert "intrusive" not in kernels
    assert (
        "grad_fn = c10::make_intrusive<ScaleBackward0>();"
        in (new["autograd/VariableTypeEverything.cpp"])
    )
    header = old["autograd/Functions.h"]
    assert "std::shared_ptr<Node> saved_for = nullptr" in header
    assert "c10::intrusive_ptr<Node> saved_for = nullptr" in new["autograd/Functions.h"]
    # A saved output is unpacked against the node itself.
    assert "result_.unpack(shared_from_this())" in old["autograd/Functions.cpp"]
    assert "result_.unpack(getptr())" in new["autograd/Functions.cpp"]


def test_shard_counts_follow_the_release(outputs: dict[str, dict[str, str]]) -> None:
    def shards(release: str, stem: str) -> int:
        return sum(1 for p in outputs[release] if Path(p).name.startswith(f"{stem}_"))

    assert (shards("2.12", "VariableType"), shards("2.12", "TraceType")) == (5, 5)
    assert (shards("2.13", "VariableType"), shards("2.13", "TraceType")) == (10, 10)


def test_python_methods_use_the_release_spellings(outputs: dict[str, dict[str, str]]) -> None:
    old, new = (outputs[r]["python/python_variable_methods.cpp"] for r in ("2.12", "2.13"))
    assert "  if(check_has_torch_function(self_)) {" in old
    assert "  if (has_torch_function(self_)) {" in new
    assert "if (has_torch_function(self_))" not in old
    # Factory methods: 2.13 skips the device initialisation of tensors without dispatch.
    assert "at::impl::tensor_has_dispatch(self)" in new
    assert "at::impl::tensor_has_dispatch" not in old
    assert "torch::utils::maybe_initialize_device(options);" in old
