"""Register<Key>.cpp on a tiny library: which wrappers each key gets, and their C++.

Small, readable checks in the FileCheck spirit (the lines that must appear),
independent of torch: the whole-corpus comparison with torchgen is
test_aten_registrations_conformance.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac.backends.aten.registrations.keys import key_traits
from schemac.backends.aten.registrations.plan import (
    PlanIndex,
    WrapperKind,
    may_plan,
    plan_key,
    plan_keys,
)
from schemac.backends.aten.registrations.register_key import PACKAGE, register_key_files
from schemac.backends.aten.registrations.translate import TranslationError, convert
from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.templating import Templates
from schemac.frontend.loader import load_module
from schemac.ir.module import Module
from schemac.passes.manager import run_pipeline
from schemac.profiles.catalog import load_profile

LIBRARY = """\
- func: toy::scale.out(Tensor self, Scalar factor, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU, CUDA: scale_out

- func: toy::scale(Tensor self, Scalar factor) -> Tensor
  structured_delegate: scale.out

- func: toy::scale_(Tensor(a!) self, Scalar factor) -> Tensor(a!)
  structured_delegate: scale.out

- func: toy::blend(Tensor self, Tensor other) -> Tensor
  dispatch:
    CPU, CUDA: blend_kernel

- func: toy::unchecked(Tensor self, Tensor other) -> Tensor
  device_check: NoCheck
  device_guard: False
  dispatch:
    CUDA: unchecked_kernel

- func: toy::make(int[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
    bool? pin_memory=None) -> Tensor
  dispatch:
    CUDA: make_cuda

- func: toy::fill_(Tensor(a!) self, Scalar value) -> Tensor(a!)
  dispatch:
    CPU: fill_cpu_
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Module:
    path = tmp_path_factory.mktemp("toy") / "native_functions.yaml"
    path.write_text(LIBRARY)
    return run_pipeline(load_module(path)).module


def _file(module: Module, key: str) -> str:
    """The key's Everything file (CPU has 4 shards, other keys 1)."""
    files = list(register_key_files(module, key, Templates(PACKAGE)))
    shards = 4 if key == "CPU" else 1
    expected = [f"ATen/Register{key}_{i}.cpp" for i in range(shards)]
    assert [f.path for f in files] == [*expected, f"ATen/Register{key}Everything.cpp"]
    return files[-1].text


def _kinds(module: Module, key: str) -> dict[str, WrapperKind]:
    return {
        str(w.name): w.kind for item in plan_key(module, key_traits(key)) for w in item.wrappers
    }


def test_cpu_plan(module: Module) -> None:
    assert _kinds(module, "CPU") == {
        "scale": WrapperKind.STRUCTURED,
        "scale.out": WrapperKind.STRUCTURED,
        "scale_": WrapperKind.STRUCTURED,
        "blend": WrapperKind.KERNEL,
        "fill_": WrapperKind.KERNEL,
    }


def test_meta_gets_structured_wrappers_and_inplace_stub(module: Module) -> None:
    kinds = _kinds(module, "Meta")
    assert kinds["scale"] is WrapperKind.STRUCTURED and kinds["scale.out"] is WrapperKind.STRUCTURED
    assert kinds["fill_"] is WrapperKind.INPLACE_META
    assert "blend" not in kinds
    text = _file(module, "Meta")
    assert (
        "struct structured_scale_meta_functional final : public at::meta::structured_scale" in text
    )
    assert "TORCH_CHECK_NOT_IMPLEMENTED(self.is_meta()," in text
    assert "op.impl(" not in text  # meta() alone computes a meta output


def test_composite_non_functional_has_no_out_wrapper(module: Module) -> None:
    assert _kinds(module, "CompositeExplicitAutogradNonFunctional") == {
        "scale": WrapperKind.STRUCTURED,
        "scale_": WrapperKind.STRUCTURED,
    }
    text = _file(module, "CompositeExplicitAutogradNonFunctional")
    assert "at::scale_outf(self, factor, op.outputs_[0]);" in text
    assert "void resize_out(" not in text


def test_cpu_structured_classes(module: Module) -> None:
    text = _file(module, "CPU")
    assert "TORCH_LIBRARY_IMPL(toy, CPU, m) {" in text
    assert 'm.impl("scale.out", TORCH_FN(wrapper_CPU_scale_out_out));' in text
    for kind in ("functional", "out", "inplace"):
        assert (
            f"struct structured_scale_out_{kind} final : public at::native::structured_scale_out"
            in text
        )
    assert "structured_scale_out_out(Tensor& out0) : outputs_{ std::ref(out0) } {}" in text
    assert "op.impl(self, factor, op.maybe_get_output(0));" in text
    assert "check_inplace(out, sizes, options);" in text
    assert "return at::detail::empty_strided_cpu(sizes, strides, options);" in text
    # CPU neither checks devices nor guards them.
    assert "check_and_update_common_device" not in text
    assert "namespace cpu {" in text and "at::Tensor & scale_outf(" in text


def test_cuda_device_checks_and_guards(module: Module) -> None:
    text = _file(module, "CUDA")
    blend = text[text.index("wrapper_CUDA__blend(") :]
    blend = blend[: blend.index("\n}")]
    assert (
        "c10::impl::check_and_update_common_device(common_device, other,"
        ' "wrapper_CUDA__blend", "other");' in blend
    )
    assert "const OptionalDeviceGuard device_guard(device_of(self));" in blend
    unchecked = text[text.index("wrapper_CUDA__unchecked(") :]
    unchecked = unchecked[: unchecked.index("\n}")]
    assert "// No device check" in unchecked and "// DeviceGuard omitted" in unchecked
    make = text[text.index("wrapper_CUDA__make(") :]
    make = make[: make.index("\n}")]
    assert "globalContext().lazyInitDevice(c10::DeviceType::CUDA);" in make
    assert "const DeviceGuard device_guard(device_or_default(device));" in make
    # The plain C++ API gathers TensorOptions; the direct call scatters them again.
    assert "c10::optTypeMetaToScalarType(options.dtype_opt())" in text
    assert "c10::cuda::OptionalCUDAGuard guard_;" in text
    assert "guard_.reset_device(options.device());" in text


def test_key_without_kernels_still_gets_files(module: Module) -> None:
    text = _file(module, "SparseCPU")
    assert "m.impl(" not in text and "namespace sparsecpu {" in text


def test_conversions() -> None:
    assert convert("n", C.SYMINT, C.INT64) == "n.guard_int(__FILE__, __LINE__)"
    assert convert("s", C.INT_ARRAY_REF, C.SYMINT_ARRAY_REF) == "c10::fromIntArrayRefSlow(s)"
    assert convert("t", C.ConstRef(C.TENSOR), C.MutRef(C.TENSOR)) == "t"
    with pytest.raises(TranslationError):
        convert("x", C.DOUBLE, C.TENSOR)


def test_composite_only_operator(tmp_path: Path) -> None:
    # No dispatch table: a CompositeImplicitAutograd kernel and nothing for CPU.
    path = tmp_path / "native_functions.yaml"
    path.write_text("- func: toy::plain(Tensor self) -> Tensor\n")
    module = run_pipeline(load_module(path)).module
    assert plan_key(module, key_traits("CPU")) == ()
    assert _kinds(module, "CompositeImplicitAutograd") == {"plain": WrapperKind.KERNEL}


@pytest.mark.parametrize("key", ["CPU", "CUDA", "Meta", "CompositeExplicitAutogradNonFunctional"])
def test_a_plan_reads_only_the_key_of_its_traits(module: Module, key: str) -> None:
    """The release's part of the traits (output names, headers) changes the text of
    a file, never its plan: the headers (reference traits) and the registrations
    (the release's) share one plan per key (PlanIndex)."""
    plain = key_traits(key)
    release = plain.for_release(load_profile("2.12"))
    assert release != plain
    assert plan_key(module, release) == plan_key(module, plain)  # each planned afresh
    index = PlanIndex.of(module)
    assert plan_key(module, release, index) is plan_key(module, plain, index)


@pytest.mark.parametrize(
    "key", ["CPU", "CUDA", "MPS", "Meta", "CompositeExplicitAutogradNonFunctional"]
)
def test_candidates_are_the_items_may_plan_admits(module: Module, key: str) -> None:
    """PlanIndex.candidates (the registration slices' items) sorts
    items by their may_keys: the same items as may_plan, in module order."""
    index = PlanIndex.of(module)
    traits = key_traits(key)
    expected = tuple(item for item in index.items if may_plan(item, traits))
    assert index.candidates(traits) == expected
    assert (key == "MPS") == (expected == ())  # no toy kernel for MPS
    # Meta admits items without a Meta kernel (the structured group, fill_'s stub).
    assert key != "Meta" or len(expected) > sum(key in i.kernel_keys for i in index.items)


def test_keys_planned_together_are_planned_as_each_alone(module: Module) -> None:
    """plan_keys walks the listing once for several keys (the headers' eleven):
    each key's items, in order, are plan_key's, and each is asked of may_plan."""
    keys = ["CPU", "CUDA", "Meta", "CompositeExplicitAutogradNonFunctional", "XPU", "CPU"]
    together = plan_keys(module, [key_traits(k) for k in keys], PlanIndex.of(module))
    assert together == [plan_key(module, key_traits(k)) for k in keys]
    assert together[0] is together[-1]  # one plan per key
    assert any(together) and not together[4]  # no XPU kernel in the library
    index = PlanIndex.of(module)
    for key in keys:
        traits = key_traits(key)
        planned = {id(p.source) for p in plan_key(module, traits, index)}
        assert planned <= {id(i) for i in index.items if may_plan(i, traits)}
