"""Functionalization and vmap on a tiny library: what each operator gets, independent of torch.

FileCheck-style: the lines that must (and must not) appear.  The whole-corpus
comparisons with torchgen are test_functionalization_conformance.py and
test_vmap_conformance.py.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.driver import emit_targets
from schemac.backends.functionalization.plan import functionalization_plan
from schemac.backends.release_policy import default_policy
from schemac.backends.vmap.backend import plumbing_file_view
from schemac.frontend.loader import load_module
from schemac.ir.module import Module
from schemac.passes.manager import run_pipeline
from schemac.profiles import reference_profile

LIBRARY = """\
- func: toy::scale(Tensor self, Scalar factor) -> Tensor
  dispatch:
    CPU: scale_cpu

- func: toy::scale_(Tensor(a!) self, Scalar factor) -> Tensor(a!)
  dispatch:
    CPU: scale_cpu_

- func: toy::scale.out(Tensor self, Scalar factor, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: scale_out

- func: toy::pick(Tensor(a) self, int dim) -> Tensor(a)
  dispatch:
    CPU: pick

- func: toy::pick_(Tensor(a!) self, int dim) -> Tensor(a!)
  tags: inplace_view
  dispatch:
    CPU: pick_

- func: toy::pick_copy(Tensor self, int dim) -> Tensor
  tags: view_copy
  dispatch:
    CompositeExplicitAutogradNonFunctional: pick_copy
  autogen: pick_copy.out

- func: toy::pieces(Tensor(a -> *) self, SymInt[] sizes) -> Tensor(a)[]
  dispatch:
    CPU: pieces

- func: toy::pieces_copy(Tensor self, SymInt[] sizes) -> Tensor[]
  tags: view_copy
  dispatch:
    CompositeExplicitAutogradNonFunctional: pieces_copy
  autogen: pieces_copy.out

- func: toy::same(Tensor(a) self) -> Tensor(a)

- func: toy::check(Tensor self) -> ()
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Module:
    path = tmp_path_factory.mktemp("toy") / "native_functions.yaml"
    path.write_text(LIBRARY)
    return run_pipeline(load_module(path)).module


@pytest.fixture(scope="module")
def files(module: Module) -> dict[str, str]:
    return {f.path: f.text for f in emit_targets(module, ("functionalization",))}


def _registered(module: Module) -> list[str]:
    plan = functionalization_plan(module, default_policy(), ViewTable())
    return sorted(line for item in plan.items for _, line in item.registrations)


def test_file_names(files: dict[str, str]) -> None:
    assert sorted(files) == [
        "ATen/FunctionalInverses.h",
        "ATen/RegisterFunctionalizationEverything.cpp",
        *(f"ATen/RegisterFunctionalization_{i}.cpp" for i in range(4)),
        "ATen/ViewMetaClasses.cpp",
        "ATen/ViewMetaClasses.h",
        "functionalization/ViewMetaClassesPythonBinding.cpp",
    ]


def test_what_gets_registered(module: Module) -> None:
    assert _registered(module) == [
        'm.impl("pick", TORCH_FN(pick));',
        'm.impl("pick_", TORCH_FN(pick_));',
        'm.impl("pick_copy.out", TORCH_FN(pick_copy_out_out));',
        'm.impl("pieces", TORCH_FN(pieces));',
        'm.impl("pieces_copy.out", TORCH_FN(pieces_copy_out_out));',
        'm.impl("same", static_cast<at::Tensor (*)(const at::Tensor &)>(at::native::same));',
        'm.impl("scale.out", TORCH_FN(scale_out_out));',
        'm.impl("scale_", TORCH_FN(scale_));',
    ]


def test_registrations_are_in_the_library_namespace(files: dict[str, str]) -> None:
    everything = files["ATen/RegisterFunctionalizationEverything.cpp"]
    assert everything.count("TORCH_LIBRARY_IMPL(toy, Functionalize, m) {") == 1
    assert "TORCH_LIBRARY_IMPL(aten" not in everything


def test_mutation_calls_the_functional_variant(files: dict[str, str]) -> None:
    text = files["ATen/RegisterFunctionalizationEverything.cpp"]
    assert (
        "at::Tensor & scale_(c10::DispatchKeySet dispatchKeySet, at::Tensor & self, "
        "const at::Scalar & factor) {"
    ) in text
    assert "return at::_ops::scale::call(self_, factor);" in text
    assert "at::functionalization::impl::replace_(self, tmp_output);" in text
    # The in-place operator is first checked on meta tensors; the out= one is not.
    assert "at::_ops::scale_::call(self_meta, factor);" in text
    assert "at::_ops::scale_out::call(self_meta" not in text


def test_views_get_view_meta_classes(files: dict[str, str]) -> None:
    header = files["ATen/ViewMetaClasses.h"]
    for name in ("pick_ViewMeta", "pick__ViewMeta", "pieces_ViewMeta"):
        assert f"struct TORCH_API {name} : public ViewMeta {{" in header
    assert "same_ViewMeta" not in header  # composite: decomposes before functionalization
    # A multi-output view carries its output index; SymInt[] is stored owned.
    assert "::std::vector<c10::SymInt> sizes;" in header
    assert "std::shared_ptr<ViewMeta> to_out_index(int64_t out_idx) override;" in header
    inverses = files["ATen/FunctionalInverses.h"]
    assert (
        "static at::Tensor pieces_inverse(const at::Tensor & base, const at::Tensor & "
        "mutated_view, at::functionalization::InverseReturnMode inverse_return_mode, "
        "int64_t out_index, c10::SymIntArrayRef sizes);"
    ) in inverses
    definitions = files["ATen/ViewMetaClasses.cpp"]
    assert "return at::_ops::pieces_copy::call(base, sizes)[out_index];" in definitions
    # The in-place view replays the view (not itself) from the base.
    assert "at::Tensor pick__ViewMeta::forward(const at::Tensor& base) {" in definitions
    binding = files["functionalization/ViewMetaClassesPythonBinding.cpp"]
    assert "create_binding_with_pickle<at::functionalization::pick__ViewMeta>" in binding


def test_release_policy_decides_hand_written_kernels(module: Module) -> None:
    policy = attrs.evolve(
        default_policy(), hand_written_functionalization=frozenset({"scale_", "pick"})
    )
    plan = functionalization_plan(module, policy, ViewTable())
    registered = {line.split('"')[1] for item in plan.items for _, line in item.registrations}
    assert registered == {"pick_copy.out", "pieces", "pieces_copy.out", "same"}


def test_vmap_kinds(module: Module) -> None:
    text = "\n".join(plumbing_file_view(module, ViewTable()).functions)
    assert "at::Tensor scale_generated_plumbing(const at::Tensor & self, " in text
    assert "at::Tensor & scale__generated_plumbing(at::Tensor & self, " in text
    assert "void check_generated_plumbing(const at::Tensor & self)" in text
    assert "scale_out_generated_plumbing" not in text  # out= has no generated plumbing
    assert "pick__generated_plumbing" not in text  # in-place views neither
    assert "return makeBatchedVector(std::get<0>(results), std::get<1>(results), cur_level);" in (
        text
    )


SPLITS = """\
- func: toy::chunks(Tensor(a -> *) self, SymInt size, int dim=0) -> Tensor(a)[]
  dispatch:
    CPU: chunks

- func: toy::chunks_copy(Tensor self, SymInt size, int dim=0) -> Tensor[]
  tags: view_copy
  dispatch:
    CompositeExplicitAutogradNonFunctional: chunks_copy

- func: toy::parts(Tensor(a -> *) self, SymInt[] sizes, int dim=0) -> Tensor(a)[]
  dispatch:
    CPU: parts

- func: toy::parts_copy(Tensor self, SymInt[] sizes, int dim=0) -> Tensor[]
  tags: view_copy
  dispatch:
    CompositeExplicitAutogradNonFunctional: parts_copy

- func: toy::rows(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]
  dispatch:
    CPU: rows

- func: toy::rows_copy(Tensor self, int dim=0) -> Tensor[]
  tags: view_copy
  dispatch:
    CompositeExplicitAutogradNonFunctional: rows_copy
"""


def _forward(definitions: str, name: str) -> str:
    start = definitions.index(f"at::Tensor {name}_ViewMeta::forward(")
    return " ".join(definitions[start : definitions.index("\n}\n", start)].split())


def test_single_output_replay_follows_the_release(tmp_path: Path) -> None:
    path = tmp_path / "native_functions.yaml"
    path.write_text(SPLITS)
    splits = run_pipeline(load_module(path)).module
    # Without the release's table every output replays the whole view.
    definitions = {f.path: f.text for f in emit_targets(splits, ("functionalization",))}
    text = definitions["ATen/ViewMetaClasses.cpp"]
    assert "return at::_ops::chunks::call(base, size, dim)[out_index];" in text
    # With it (Note [Single-output replay]), each output is one slice or select.
    replay = {"chunks": "slice", "parts": "slice", "rows": "select"}
    profile = attrs.evolve(
        reference_profile(),
        tables={**reference_profile().tables, "view_meta_single_output_replay": replay},
    )
    files = {f.path: f.text for f in emit_targets(splits, ("functionalization",), profile=profile)}
    text = files["ATen/ViewMetaClasses.cpp"]
    assert (
        "if (reapply_views) { auto start = size * out_index; "
        "return at::_ops::slice_Tensor::call(base, dim, start, start + size, 1); } else { "
        "auto start = size * out_index; "
        "return at::_ops::slice_copy_Tensor::call(base, dim, start, start + size, 1); }"
    ) in _forward(text, "chunks")
    assert (
        "c10::SymInt start = 0; for (int64_t i = 0; i < out_index; ++i) { start += sizes[i]; } "
        "return at::_ops::slice_Tensor::call(base, dim, start, start + sizes[out_index], 1);"
    ) in _forward(text, "parts")
    assert "return at::_ops::select_copy_int::call(base, dim, out_index);" in _forward(text, "rows")
    # The reverse direction still goes through the view's inverse.
    assert "FunctionalInverses::rows_inverse(base, mutated_view" in text
