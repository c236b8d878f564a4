"""selective-build: the selection file loader, the pruning pass, and torchgen agreement."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schemac.diagnostics import InputError
from schemac.frontend.selection import load_selection, parse_selection
from schemac.ir.module import Module
from schemac.ir.names import OperatorName
from schemac.ir.selection import OperatorSelection, SelectedOperator
from schemac.passes.base import PassContext
from schemac.passes.selective_build import SelectiveBuild
from schemac.passes.selective_build_keep import qualified_name
from schemac.passes.verify import verify_module

#: A few dozen operators: exact overloads, base names with and without
#: include_all_overloads, in-place, out=, views, view copies, foreach, and
#: names the module does not have.
SELECTION_YAML = """\
include_all_non_op_selectives: false
operators:
  aten::add.Tensor:
    {is_root_operator: true, is_used_for_training: false, include_all_overloads: false}
  aten::add_.Tensor: {}
  aten::sub: {include_all_overloads: true}
  aten::mul: {include_all_overloads: false}
  aten::div.out: {}
  aten::relu: {}
  aten::relu_: {}
  aten::sigmoid.out: {}
  aten::tanh_: {}
  aten::conv2d: {}
  aten::convolution: {}
  aten::linear: {}
  aten::addmm: {}
  aten::addmm_: {}
  aten::mm.out: {}
  aten::matmul: {}
  aten::transpose.int: {}
  aten::transpose_copy.int: {}
  aten::view: {}
  aten::expand_copy: {}
  aten::as_strided_: {}
  aten::cat: {}
  aten::sum.dim_IntList: {}
  aten::mean: {}
  aten::softmax.int: {}
  aten::_softmax: {}
  aten::_log_softmax.out: {}
  aten::max_pool2d: {}
  aten::batch_norm: {}
  aten::native_batch_norm: {}
  aten::embedding: {}
  aten::index.Tensor: {}
  aten::index_put_: {}
  aten::_foreach_add.List: {}
  aten::_foreach_mul_.Scalar: {}
  aten::zeros: {}
  aten::empty.memory_format: {}
  aten::copy_: {}
  aten::clone: {}
  aten::sort: {}
  aten::topk.values: {}
  aten::gelu.out: {}
  aten::upsample_nearest2d: {}
  aten::does_not_exist: {}
  prim::NumToTensor.Scalar: {}
kernel_metadata:
  add_kernel: [Float, Double]
custom_classes: [LinearPackedParams]
build_features: [quantized]
"""


def _torchgen_selected(reference: Any, builder: Any) -> set[str]:
    functions, _ = reference
    return {str(f.func.name) for f in functions if builder.is_native_function_selected(f)}


def _names(names: tuple[OperatorName, ...]) -> set[str]:
    return {str(n) for n in names}


def _is_justified(module: Module, kept: set[str], name: str) -> bool:
    """Note [selective build dependencies]: why a dependency may be kept."""
    for f in module.functions:
        if str(f.name) in kept and str(f.structured_delegate) == name:
            return True
    for group in module.groups:
        if name in (str(group.functional), str(group.out)) and any(
            str(m) in kept for m in group.members()
        ):
            return True
    return any(
        name == str(g.view) and (str(g.view_copy) in kept or str(g.view_inplace) in kept)
        for g in module.view_groups
    )


@pytest.mark.torch
@pytest.mark.parametrize("form", ["yaml", "legacy-list"])
def test_kept_set_matches_torchgen(
    real_module: Module, reference: Any, tmp_path: Path, form: str
) -> None:
    from torchgen.selective_build.selector import SelectiveBuilder

    if form == "yaml":
        path = tmp_path / "selected_operators.yaml"
        path.write_text(SELECTION_YAML, encoding="utf-8")
        builder = SelectiveBuilder.from_yaml_path(str(path))
    else:
        names = ["aten::add", "aten::relu_", "aten::mm.out", "aten::transpose_copy.int"]
        path = tmp_path / "ops.txt"
        path.write_text("# allow list\n" + "\n".join(names) + "\n", encoding="utf-8")
        builder = SelectiveBuilder.from_legacy_op_registration_allow_list(set(names), True, False)
    selection = load_selection(path)
    pruned = SelectiveBuild(selection).run(PassContext(), real_module)
    assert pruned.selection is not None
    expected = _torchgen_selected(reference, builder)
    assert len(expected) >= 4
    assert _names(pruned.selection.selected) == expected
    kept = {str(f.name) for f in pruned.functions}
    dependencies = _names(pruned.selection.dependencies)
    assert kept == expected | dependencies
    assert not expected & dependencies
    assert [d for d in sorted(dependencies) if not _is_justified(real_module, kept, d)] == []
    # The same rules PyTorch applies per name, and a well-formed module.
    for f in real_module.functions:
        name = qualified_name(f)
        assert selection.is_root_operator(name) == builder.is_root_operator(name)
        assert selection.is_operator_selected_for_training(
            name
        ) == builder.is_operator_selected_for_training(name)
    assert verify_module(pruned, {"resolved-dispatch", "groups", "view-groups"}) == ()


@pytest.mark.torch
def test_kernel_metadata_and_switches_pass_through(real_module: Module) -> None:
    from torchgen.selective_build.selector import SelectiveBuilder

    selection = parse_selection(SELECTION_YAML, "selected_operators.yaml")
    builder = SelectiveBuilder.from_yaml_str(SELECTION_YAML)
    pruned = SelectiveBuild(selection).run(PassContext(), real_module)
    assert pruned.selection is not None
    carried = pruned.selection.selection
    assert carried.kernel_metadata == (("add_kernel", ("Float", "Double")),)
    assert carried.custom_classes == frozenset(builder.custom_classes)
    assert carried.build_features == frozenset(builder.build_features)
    for tag, dtype in [("add_kernel", "Float"), ("add_kernel", "Half"), ("mul_kernel", "Float")]:
        assert carried.is_kernel_dtype_selected(tag, dtype) == builder.is_kernel_dtype_selected(
            tag, dtype
        )


def test_pruning_keeps_tables_consistent(real_module: Module) -> None:
    selection = OperatorSelection(
        operators=(SelectedOperator("aten::add_.Tensor", include_all_overloads=False),)
    )
    pruned = SelectiveBuild(selection).run(PassContext(), real_module)
    names = {str(f.name) for f in pruned.functions}
    # add_ needs its group's functional and out= members (structured delegate).
    assert names == {"add.Tensor", "add_.Tensor", "add.out"}
    assert set(map(str, pruned.resolutions)) == names
    assert {str(a.function) for a in pruned.autograd.functions} == names
    # The in-place op keeps the node it borrowed from the functional entry.
    (inplace,) = (a for a in pruned.autograd.functions if str(a.function) == "add_.Tensor")
    assert inplace.nodes == (("Default", "AddBackward0"),)
    assert [str(e.schema.name) for e in pruned.derivatives] == ["add.Tensor"]
    assert _names(pruned.selection.dependencies) == {"add.Tensor", "add.out"}  # type: ignore[union-attr]


def test_no_selection_changes_nothing(real_module: Module) -> None:
    assert SelectiveBuild().run(PassContext(), real_module) is real_module


def test_include_all_operators_keeps_everything(real_module: Module) -> None:
    selection = parse_selection("include_all_operators: true\n", "all.yaml")
    pruned = SelectiveBuild(selection).run(PassContext(), real_module)
    assert len(pruned.functions) == len(real_module.functions)
    assert pruned.selection is not None and pruned.selection.dependencies == ()


# -- loader -----------------------------------------------------------------


def test_loads_every_field() -> None:
    selection = parse_selection(
        "operators:\n"
        "  aten::add.Tensor:\n"
        "    is_root_operator: false\n"
        "    include_all_overloads: false\n"
        "    debug_info: [model.pt, 3]\n"
        "  aten::mul:\n"
        "et_kernel_metadata:\n"
        "  aten::add.out: ['v1/6;0,1|6;0,1']\n"
        "debug_info: [traced]\n",
        "s.yaml",
    )
    add = selection.operator("aten::add.Tensor")
    assert add is not None
    assert (add.is_root_operator, add.is_used_for_training, add.include_all_overloads) == (
        False,
        True,
        False,
    )
    assert add.debug_info == ("model.pt", "3")
    assert add.span.line == 2
    assert selection.operator("aten::mul") == SelectedOperator("aten::mul")
    assert selection.et_kernel_metadata == (("aten::add.out", ("v1/6;0,1|6;0,1",)),)
    assert selection.debug_info == ("traced",)
    assert selection.is_operator_selected("aten::mul.Tensor")
    assert not selection.is_operator_selected("aten::add.Scalar")


def test_plain_lists() -> None:
    from_yaml = parse_selection("- aten::add\n- aten::mul.Tensor\n", "ops.yaml")
    from_text = parse_selection("aten::add  # comment\n\naten::mul.Tensor\n", "ops.txt", yaml=False)
    for selection in (from_yaml, from_text):
        assert [op.name for op in selection.operators] == ["aten::add", "aten::mul.Tensor"]
        assert selection.include_all_non_op_selectives
        assert all(not op.is_used_for_training for op in selection.operators)
    assert from_text.operators[1].span.line == 3


ERRORS = [
    pytest.param(
        "include_all_operators: 3\n",
        True,
        (1, 24),
        "expected True or False for 'include_all_operators', got the number 3",
        id="wrong-type-bool",
    ),
    pytest.param(
        "operator:\n  aten::add: {}\n",
        True,
        (1, 1),
        "unknown key 'operator' in selection file",
        id="unknown-top-level-key",
    ),
    pytest.param(
        "operators:\n  add.Tensor: {}\n",
        True,
        (2, 3),
        "malformed operator name 'add.Tensor'",
        id="name-without-namespace",
    ),
    pytest.param(
        "operators:\n  aten::add:\n    include_all_overload: false\n",
        True,
        (3, 5),
        "unknown key 'include_all_overload' in entry of 'aten::add'",
        id="unknown-operator-key",
    ),
    pytest.param(
        "operators: [aten::add]\n",
        True,
        (1, 12),
        "expected a mapping for 'operators', got a list",
        id="operators-not-a-mapping",
    ),
    pytest.param(
        "operators:\n  aten::add: {name: aten::mul}\n",
        True,
        (2, 21),
        "'name: aten::mul' does not match the key 'aten::add'",
        id="name-mismatch",
    ),
    pytest.param(
        "operators:\n  aten::add: {}\n  aten::add: {}\n",
        True,
        (3, 3),
        "operator 'aten::add' is listed twice",
        id="duplicate-operator",
    ),
    pytest.param(
        "kernel_metadata:\n  add_kernel: Float\n",
        True,
        (2, 15),
        "expected a list of strings for 'add_kernel' in 'kernel_metadata', got the string 'Float'",
        id="kernel-metadata-not-a-list",
    ),
    pytest.param(
        "aten::add\n  aten::mul(x)\n",
        False,
        (2, 3),
        "malformed operator name 'aten::mul(x)'",
        id="text-bad-name",
    ),
    pytest.param(
        "- aten::add\n- [aten::mul]\n",
        True,
        (2, 3),
        "expected an operator name (a string) in the list",
        id="yaml-list-item",
    ),
]


@pytest.mark.parametrize(("text", "yaml", "where", "message"), ERRORS)
def test_malformed_selection_files(
    text: str, yaml: bool, where: tuple[int, int], message: str
) -> None:
    with pytest.raises(InputError) as info:
        parse_selection(text, "sel.yaml" if yaml else "sel.txt", yaml=yaml)
    (diag,) = info.value.diagnostics
    assert (diag.span.line, diag.span.column) == where
    assert diag.message == message


def test_hints() -> None:
    with pytest.raises(InputError) as info:
        parse_selection("operator:\n  aten::add: {}\nbuild_feature: []\n", "s.yaml")
    assert [d.hint for d in info.value.diagnostics] == [
        "did you mean 'operators'?",
        "did you mean 'build_features'?",
    ]
    with pytest.raises(InputError) as info:
        parse_selection("- add.Tensor\n", "s.yaml")
    assert info.value.diagnostics[0].hint == "did you mean 'aten::add.Tensor'?"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_selection(tmp_path / "nope.yaml")
    assert "cannot read selection file" in info.value.diagnostics[0].message


# -- CLI ----------------------------------------------------------------------

NATIVE = """\
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  structured_delegate: add.out
- func: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
  structured_delegate: add.out
- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: add_out
- func: neg(Tensor self) -> Tensor
  dispatch:
    CPU: neg
"""


def test_dump_ir_select(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from schemac.cli import main

    (tmp_path / "native_functions.yaml").write_text(NATIVE, encoding="utf-8")
    (tmp_path / "ops.txt").write_text("aten::add_.Tensor\n", encoding="utf-8")
    native = str(tmp_path / "native_functions.yaml")
    code = main(["dump-ir", native, "--format", "json", "--select", str(tmp_path / "ops.txt")])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert [f["name"] for f in data["functions"]] == ["add.Tensor", "add_.Tensor", "add.out"]
    assert data["selection"] == [
        {"function": "add_.Tensor", "role": "selected"},
        {"function": "add.Tensor", "role": "dependency"},
        {"function": "add.out", "role": "dependency"},
    ]
    (tmp_path / "bad.txt").write_text("aten::add_.Tensor\nneg\n", encoding="utf-8")
    code = main(["dump-ir", native, "--select", str(tmp_path / "bad.txt")])
    assert code == 1
    assert "bad.txt:2:1: error: malformed operator name 'neg'" in capsys.readouterr().err


def test_format_is_told_by_suffix_or_content(tmp_path: Path) -> None:
    names = "aten::add\naten::mul.Tensor  # used by the model\n"
    mapping = "operators:\n  aten::add: {}\n"
    for file, text, count in [
        ("ops", names, 2),
        ("selection", mapping, 1),
        ("ops.list", "- aten::add\n", 1),
        ("ops.txt", names, 2),
    ]:
        (tmp_path / file).write_text(text, encoding="utf-8")
        assert len(load_selection(tmp_path / file).operators) == count, file
