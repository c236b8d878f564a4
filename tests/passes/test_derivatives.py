"""match-derivatives on tiny inputs: what it computes and every error it reports.

Each error case is a small derivatives.yaml against a fixed native_functions.yaml;
the test checks the message, the hint and the exact line:column the
diagnostic points at in derivatives.yaml.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac.diagnostics import Diagnostic, PassError
from schemac.frontend.loader import load_module
from schemac.ir.module import Module
from schemac.passes.base import HelperNames, PassContext
from schemac.passes.derivatives import MatchDerivatives
from schemac.passes.manager import PassManager, run_pipeline
from schemac.profiles import reference_profile


def _strict() -> PassContext:
    """As when the target's headers were read: an unknown helper is an error."""
    names = reference_profile().names("autograd_helpers")
    return PassContext(helpers=HelperNames.of(names, authoritative=True))


NATIVE = """\
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  dispatch:
    CPU: add_cpu
- func: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
  variants: method
  dispatch:
    CPU: add_cpu_
- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: add_out
- func: neg(Tensor self) -> Tensor
  dispatch:
    CPU: neg
- func: neg_(Tensor(a!) self) -> Tensor(a!)
  dispatch:
    CPU: neg_
- func: sort(Tensor self, int dim=-1) -> (Tensor values, Tensor indices)
  dispatch:
    CPU: sort
- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
  dispatch:
    CPU: mul
- func: weird(Tensor self, Tensor result) -> Tensor
  dispatch:
    CPU: weird
"""

TAGS = """\
- tag: generated
  desc: synthesised
- tag: inplace_view
  desc: in-place view
"""


def _module(tmp_path: Path, derivatives: str) -> Module:
    (tmp_path / "native_functions.yaml").write_text(NATIVE, encoding="utf-8")
    (tmp_path / "tags.yaml").write_text(TAGS, encoding="utf-8")
    (tmp_path / "derivatives.yaml").write_text(derivatives, encoding="utf-8")
    return load_module(
        tmp_path / "native_functions.yaml",
        tmp_path / "tags.yaml",
        tmp_path / "derivatives.yaml",
    )


def _run(tmp_path: Path, derivatives: str) -> Module:
    module = _module(tmp_path, derivatives)
    return PassManager.default().run(_strict(), module, stop_after="match-derivatives").module


def _errors(tmp_path: Path, derivatives: str) -> list[Diagnostic]:
    with pytest.raises(PassError) as info:
        _run(tmp_path, derivatives)
    return list(info.value.diagnostics)


def _where(diag: Diagnostic) -> tuple[str, int, int]:
    return (Path(diag.span.file).name, diag.span.line, diag.span.column)


# -- what the pass computes -------------------------------------------------


def test_node_names_and_variant_matching(tmp_path: Path) -> None:
    module = _run(
        tmp_path,
        """\
- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  self: grad
  other: maybe_multiply(grad, alpha.conj())
  result: self_t + maybe_multiply(other_t, alpha)
- name: neg(Tensor self) -> Tensor
  self: grad.neg()
  result: auto_linear
- name: sort(Tensor self, int dim=-1) -> (Tensor values, Tensor indices)
  self: sum_backward(grad, self.sym_sizes(), dim, true) * indices
  output_differentiability: [True, False]
  values: auto_linear
""",
    )
    table = module.autograd
    by_name = {str(e.function): e for e in table.functions}
    add = by_name["add.Tensor"]
    assert add.nodes == (("Default", "AddBackward0"),) and add.exact_match
    assert table.for_function(add.function) is add
    # The in-place variant borrows the functional formulas and node.
    add_ = by_name["add_.Tensor"]
    assert add_.nodes == (("Default", "AddBackward0"),) and not add_.exact_match
    # Its forward formula is rewritten to update self's tangent in place.
    ((_, (fw,)),) = add_.forward_derivatives
    assert fw.formula.startswith("self_t_raw.defined() ? self_t_raw.copy_(")
    assert fw.is_reusing_outplace_formula
    info = add.infos[0]
    assert [a.name for a in info.args_with_derivatives] == ["self", "other"]
    assert [s.name for s in info.all_saved_inputs] == ["alpha"]
    assert by_name["neg_"].nodes == (("Default", "NegBackward0"),)
    assert by_name["neg"].infos[0].forward_derivatives[0].formula == "at::neg(self_t)"
    sort = by_name["sort"].infos[0]
    assert sort.node == "SortBackward0"
    assert sort.output_differentiability == (True, False)
    # self.sym_sizes() is saved as a property, not the whole tensor.
    assert [(s.name, s.prop.name) for s in sort.all_saved_inputs] == [
        ("self_sym_sizes", "sym_sizes"),
        ("dim", "value"),
    ]
    assert [s.name for s in sort.all_saved_outputs] == ["indices"]
    assert "self_sym_sizes" in sort.derivatives[0].formula
    assert table.used_dispatch_keys == ("Default",)


def test_overloads_share_a_counter_in_file_order(tmp_path: Path) -> None:
    module = _run(
        tmp_path,
        """\
- name: mul.Tensor(Tensor self, Tensor other) -> Tensor
  self: mul_tensor_backward(grad, other, self.scalar_type())
  other: mul_tensor_backward(grad, self, other.scalar_type())
- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  self: grad
  other: non_differentiable
- name: neg(Tensor self) -> Tensor
  self: non_differentiable
""",
    )
    by_name = {str(e.function): e for e in module.autograd.functions}
    assert by_name["mul.Tensor"].infos[0].node == "MulBackward0"
    add = by_name["add.Tensor"].infos[0]
    assert add.node == "AddBackward0"
    assert add.non_differentiable_arg_names == ("other",)
    # Nothing differentiable: an info without a node.
    assert by_name["neg"].infos[0].node is None


def test_dispatch_keys_get_their_own_node_names(tmp_path: Path) -> None:
    module = _run(
        tmp_path,
        """\
- name: neg(Tensor self) -> Tensor
  dispatch:
    Default:
      self: grad.neg()
    AutogradNestedTensor:
      self: grad.neg()
""",
    )
    (neg,) = (e for e in module.autograd.functions if str(e.function) == "neg")
    assert neg.nodes == (
        ("Default", "NegBackward0"),
        ("AutogradNestedTensor", "NegBackwardAutogradNestedTensor0"),
    )
    assert module.autograd.used_dispatch_keys == ("Default", "AutogradNestedTensor")


def test_extra_helpers_option(tmp_path: Path) -> None:
    text = "- name: neg(Tensor self) -> Tensor\n  self: my_neg_backward(grad)\n"
    module = _module(tmp_path, text)
    module = run_pipeline(module, stop_after="autogen-variants").module
    with pytest.raises(PassError):
        MatchDerivatives().run(_strict(), module)
    extended = MatchDerivatives(extra_helpers=frozenset({"my_neg_backward"}))
    result = extended.run(_strict(), module)
    assert result.autograd.functions[0].infos[0].node == "NegBackward0"


# -- errors ------------------------------------------------------------------

ERROR_CASES = [
    pytest.param(
        "- name: neg(Tensor self) -> Tensor\n  self: grad * selff.sgn()\n",
        ("derivatives.yaml", 2, 16),
        "unknown name 'selff' in a derivative formula",
        "did you mean 'self'?",
        id="unknown-variable",
    ),
    pytest.param(
        "- name: neg(Tensor self) -> Tensor\n"
        '  self: "mul_tensor_backwrd(grad, self, self.scalar_type())"\n',
        ("derivatives.yaml", 2, 10),
        "call to unknown function 'mul_tensor_backwrd' in a derivative formula",
        "did you mean 'mul_tensor_backward'?",
        id="unknown-call-quoted",
    ),
    pytest.param(
        "- name: sort(Tensor self, int dim=-1) -> (Tensor values, Tensor indices)\n"
        "  self: grads[0] + grads[2]\n",
        ("derivatives.yaml", 2, 20),
        "grads[2] is out of range: 'sort' has 2 outputs",
        "use grads[0] .. grads[1]",
        id="grads-index-out-of-range",
    ),
    pytest.param(
        "- name: sort(Tensor self, int dim=-1) -> (Tensor values, Tensor indices)\n"
        "  self: grad\n"
        "  output_differentiability: [True, False, False]\n",
        ("derivatives.yaml", 3, 29),
        "output_differentiability has 3 entries but 'sort' has 2 outputs",
        "give one True/False per output",
        id="output-differentiability-length",
    ),
    pytest.param(
        "- name: sort(Tensor self, int dim=-1) -> (Tensor values, Tensor indices)\n"
        "  self: grad + grads[1]\n",
        ("derivatives.yaml", 2, 3),
        "formulas mix 'grad' and 'grads'",
        "replace 'grad' with 'grads[0]'",
        id="grad-and-grads",
    ),
    pytest.param(
        "- name: sort(Tensor self, int dim=-1) -> (Tensor values, Tensor indices)\n"
        "  self: grads[0]\n",
        ("derivatives.yaml", 2, 3),
        "formulas use only 'grads[0]'",
        "if the first output is the only differentiable one, write 'grad'",
        id="only-grads-0",
    ),
    pytest.param(
        "- name: neg(Tensor self) -> Tensor\n  self: grad.expand(self.sizes())\n",
        ("derivatives.yaml", 2, 25),
        "'.sizes()' is not allowed in a derivative formula",
        "use .sym_sizes() instead of .sizes() in derivative formulas",
        id="sizes-not-symint",
    ),
    pytest.param(
        "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n"
        "  self: grad * other\n  other: grad * self\n  result: self_t * other\n",
        ("derivatives.yaml", 4, 3),
        "forward formula uses 'other', which is ambiguous",
        "use 'other_p' for the primal value or 'other_t' for the tangent",
        id="forward-ambiguous-input",
    ),
    pytest.param(
        "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n"
        "  self: grad * other\n  other: grad * self\n  result: auto_element_wise\n",
        ("derivatives.yaml", 4, 3),
        "auto_element_wise needs exactly one differentiable input and one output",
        None,
        id="element-wise-two-inputs",
    ),
    pytest.param(
        "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n"
        "  self, other: mul_tensor_backward(grad, self, other)\n  other: non_differentiable\n",
        ("derivatives.yaml", 2, 3),
        "'other' has a formula and is also marked non_differentiable",
        None,
        id="differentiable-and-not",
    ),
    pytest.param(
        "- name: neg_(Tensor(a!) self) -> Tensor(a!)\n  self: grad.neg()\n"
        "  output_differentiability: [False]\n",
        ("derivatives.yaml", 3, 29),
        "output of in-place 'neg_' marked not differentiable",
        "an in-place output must stay differentiable so its version counter is updated",
        id="inplace-not-differentiable",
    ),
    pytest.param(
        "- name: neg_(Tensor(a!) self) -> Tensor(a!)\n  self: grad.neg()\n  result: -self_p\n",
        ("derivatives.yaml", 3, 3),
        "forward formula of in-place 'neg_' reads 'self_p', which is overwritten",
        "use 'result' (the updated self) or 'original_self_p'",
        id="inplace-forward-reads-self",
    ),
    pytest.param(
        "- name: weird(Tensor self, Tensor result) -> Tensor\n  self: grad\n",
        ("derivatives.yaml", 1, 9),
        "'weird' has an argument named 'result'",
        "rename it in native_functions.yaml: formulas use it for the operator's output",
        id="reserved-argument-name",
    ),
    pytest.param(
        "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n"
        "  self, other: mul_tensor_backward(grad, self.sym_strides(), other)\n",
        ("derivatives.yaml", 2, 16),
        "'self.sym_strides()' used in a formula for self, other",
        "only a formula computing just 'self's gradient may save its strides",
        id="strides-multi-variable",
    ),
    pytest.param(
        "- name: sort(Tensor self, int dim=-1) -> (Tensor values, Tensor indices)\n"
        "  self: grad_values + grad\n",
        ("derivatives.yaml", 2, 3),
        "formulas mix 'grad_<output>' with 'grad' or 'grads[i]'",
        "use one way of naming output gradients",
        id="named-grad-and-grad",
    ),
    pytest.param(
        "- name: sort(Tensor self, int dim=-1) -> (Tensor values, Tensor indices)\n"
        "  self: grad\n  values, indices: auto_linear\n",
        ("derivatives.yaml", 3, 3),
        "auto_linear needs exactly one differentiable output",
        None,
        id="linear-two-outputs",
    ),
    pytest.param(
        "- name: neg_(Tensor(a!) self) -> Tensor(a!)\n  self: grad.neg()\n"
        "  result: auto_element_wise\n",
        ("derivatives.yaml", 3, 3),
        "auto_element_wise cannot be used for in-place 'neg_'",
        None,
        id="element-wise-in-place",
    ),
    pytest.param(
        "- name: neg(Tensor self) -> Tensor\n"
        "  self: grad.as_strided_symint(self.sym_sizes(), self.sym_strides())\n",
        ("derivatives.yaml", 2, 3),
        "'.sym_strides()' in the 'self' formula cannot serve in-place 'neg_'",
        "give the in-place operator its own entry without strides",
        id="strides-borrowed-by-in-place",
    ),
]


@pytest.mark.parametrize(("derivatives", "where", "message", "hint"), ERROR_CASES)
def test_errors(
    tmp_path: Path,
    derivatives: str,
    where: tuple[str, int, int],
    message: str,
    hint: str | None,
) -> None:
    errors = _errors(tmp_path, derivatives)
    assert [(e.message, e.hint) for e in errors] == [(message, hint)]
    assert _where(errors[0]) == where


def test_all_errors_are_reported_together(tmp_path: Path) -> None:
    errors = _errors(
        tmp_path,
        "- name: neg(Tensor self) -> Tensor\n  self: grad * selff\n"
        "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  self: grad * othr\n",
    )
    assert [(e.span.line, e.message) for e in errors] == [
        (2, "unknown name 'selff' in a derivative formula"),
        (4, "unknown name 'othr' in a derivative formula"),
    ]


def test_formula_for_a_missing_argument_is_a_load_error(tmp_path: Path) -> None:
    # Checked by the front end already; the pass never sees such an entry.
    from schemac.diagnostics import InputError

    with pytest.raises(InputError) as info:
        _module(tmp_path, "- name: neg(Tensor self) -> Tensor\n  other: grad\n")
    (diag,) = info.value.diagnostics
    assert _where(diag) == ("derivatives.yaml", 2, 3)
    assert "other" in diag.message


def test_json_dump_lists_backward_nodes(tmp_path: Path) -> None:
    from schemac.ir.resolved_printer import resolved_to_data

    module = _run(tmp_path, "- name: neg(Tensor self) -> Tensor\n  self: grad.neg()\n")
    data = resolved_to_data(module)
    assert data["derivatives"] == [
        {"function": "neg", "nodes": {"Default": "NegBackward0"}, "exact_match": True},
        {"function": "neg_", "nodes": {"Default": "NegBackward0"}, "exact_match": False},
    ]
    assert data["selection"] == []


def test_saved_properties_match_whole_names_only() -> None:
    from schemac.ir.types import TENSOR
    from schemac.passes.derivatives_saved import save_variables

    formula, saved = save_variables(
        "f(grad_self.sym_sizes(), self.sym_sizes(), x.self.dim())",
        (("self", TENSOR),),
        ("self",),
    )
    assert formula == "f(grad_self.sym_sizes(), self_sym_sizes, x.self.dim())"
    assert [(s.name, s.expr) for s in saved] == [
        ("self_sym_sizes", "self.sym_sizes()"),
        ("self", "self"),
    ]
