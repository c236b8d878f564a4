"""Parser signatures of the python target against torchgen's, operator by operator.

For every binding file PyTorch generates, the operators bound there and, for
each, its PythonArgParser signature strings in parser order must be exactly
the ones torchgen computes from the same YAML (torchgen's Python API is run
in-process here, once per session).  Small hand-checked cases pin the rules
the corpus test would only show as a mass of diffs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schemac import parse_schema
from schemac.backends.python.operators import PythonBindings, is_bound, python_bindings
from schemac.backends.python.overloads import OverloadGroup, SignedFunction, sort_overloads
from schemac.backends.python.routing import BINDING_MODULES
from schemac.backends.python.signatures import python_signature
from schemac.frontend.loader import load_module
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction
from schemac.passes.base import PassContext
from schemac.passes.registry import default_pipeline_names, pass_class

SignatureTable = dict[str, dict[str, list[str]]]


def _torchgen_dir() -> Path:
    import torchgen

    return Path(torchgen.__file__).parent / "packaged"


def _inputs() -> tuple[str, str, str, str]:
    root = _torchgen_dir()
    return (
        str(root / "ATen/native/native_functions.yaml"),
        str(root / "ATen/native/tags.yaml"),
        str(root / "autograd/derivatives.yaml"),
        str(root / "autograd/deprecated.yaml"),
    )


@pytest.fixture(scope="session")
def torchgen_signatures() -> SignatureTable:
    """file -> operator -> parser signatures, as torchgen's binding generator orders them."""
    from torchgen.gen import parse_native_yaml
    from torchgen.packaged.autograd import gen_python_functions as gpf

    native, tags, _, deprecated = _inputs()
    functions = parse_native_yaml(native, tags).native_functions
    functions = [f for f in functions if gpf.should_generate_py_binding(f)]
    methods = gpf.load_signatures(functions, deprecated, method=True)
    plain = gpf.load_signatures(functions, deprecated, method=False)
    selections = [
        ("python_variable_methods.cpp", methods, gpf.is_py_variable_method),
        ("python_torch_functions.cpp", plain, gpf.is_py_torch_function),
    ]
    for short in ("nn", "fft", "linalg", "nested", "sparse", "special"):
        predicate = getattr(gpf, f"is_py_{short}_function")
        selections.append((f"python_{short}_functions.cpp", plain, predicate))
    table: SignatureTable = {}
    for filename, pairs, predicate in selections:
        grouped = gpf.group_filter_overloads(pairs, predicate)
        table[filename] = {
            str(name): [g.signature.signature_str() for g in gpf.group_overloads(overloads)]
            for name, overloads in grouped.items()
        }
    return table


@pytest.fixture(scope="session")
def schemac_module() -> Module:
    module = load_module(*_inputs())
    for name in default_pipeline_names():
        module = pass_class(name)().run(PassContext(), module)
    return module


@pytest.fixture(scope="session")
def schemac_bindings(schemac_module: Module) -> PythonBindings:
    return python_bindings(schemac_module)


@pytest.mark.torch
@pytest.mark.parametrize("filename", [m.filename for m in BINDING_MODULES])
def test_signatures_match_torchgen(
    filename: str, torchgen_signatures: SignatureTable, schemac_bindings: PythonBindings
) -> None:
    (target,) = [m for m in BINDING_MODULES if m.filename == filename]
    ours = {
        str(op.name): [g.signature.text() for g in op.groups]
        for op in schemac_bindings.for_module(target)
    }
    theirs = torchgen_signatures[filename]
    assert sorted(ours) == sorted(theirs)
    mismatched = {name: (ours[name], theirs[name]) for name in theirs if ours[name] != theirs[name]}
    assert mismatched == {}
    assert len(theirs) > 0


# -- small cases, checked by hand ---------------------------------------------------------


def _fn(schema: str, **fields: object) -> NativeFunction:
    return NativeFunction(func=parse_schema(schema), **fields)  # type: ignore[arg-type]


def _text(schema: str, *, method: bool = False, category: str | None = None) -> str:
    sig = python_signature(parse_schema(schema), category_override=category, method=method)
    return sig.text()


def test_self_becomes_input_for_functions_and_disappears_for_methods() -> None:
    schema = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert _text(schema) == "add(Tensor input, Tensor other, *, Scalar alpha=1)"
    assert _text(schema, method=True) == "add(Tensor other, *, Scalar alpha=1)"


def test_factory_gets_scattered_tensor_options() -> None:
    schema = (
        "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None) -> Tensor"
    )
    assert _text(schema) == (
        "zeros(SymIntArrayRef size, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)"
    )


def test_dummy_category_keeps_options_out() -> None:
    schema = "empty_stub(int n) -> Tensor"
    assert "requires_grad" in _text(schema)
    assert "requires_grad" not in _text(schema, category="dummy")


def test_defaults_are_spelled_the_python_way() -> None:
    schema = (
        "f(Tensor self, int[] dim=[], bool keepdim=False, float eps=1e-5, "
        "str mode='mean', Tensor? w=None, int red=Mean) -> Tensor"
    )
    assert _text(schema) == (
        "f(Tensor input, IntArrayRef dim=None, bool keepdim=False, double eps=1e-05, "
        'c10::string_view mode="mean", Tensor? w=None, int64_t red=at::Reduction::Mean)'
    )


def test_several_outs_merge_into_one_tuple_argument() -> None:
    schema = (
        "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
        "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)"
    )
    assert _text(schema) == (
        "max(Tensor input, int64_t dim, bool keepdim=False, *, TensorList[2] out=None)"
    )


def test_tensor_overload_is_tried_before_scalar_overload() -> None:
    schemas = [
        "bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor",
        "bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor",
    ]
    groups = []
    for schema in schemas:
        fn = _fn(schema)
        sig = python_signature(fn.func, category_override=None, method=False)
        groups.append(OverloadGroup(sig, fn))
    order = [g.signature.text() for g in sort_overloads(groups)]
    assert order == [
        "bitwise_and(Tensor input, Tensor other)",
        "bitwise_and(Tensor input, Scalar other)",
    ]
    _ = SignedFunction  # the pair type the grouping consumes


def test_skip_rules() -> None:
    assert not is_bound(_fn("size.int(Tensor self, int dim) -> int"))
    assert not is_bound(_fn("conv_backward(Tensor grad) -> Tensor"))
    assert not is_bound(_fn("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"))
    assert not is_bound(
        _fn(
            "abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
            tags=("generated",),
            generated=True,
        )
    )
    assert is_bound(
        _fn(
            "view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
            tags=("generated", "view_copy"),
            generated=True,
        )
    )
    assert is_bound(_fn("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"))


@given(st.text())
def test_parser_string_literal_fast_path_agrees_with_the_escaper(text: str) -> None:
    from schemac.backends.cppmodel import cpp_string_literal
    from schemac.backends.python.bindings import _string_literal

    assert _string_literal(text) == cpp_string_literal(text)


def test_parser_string_literal_escapes_string_defaults() -> None:
    from schemac.backends.python.bindings import _string_literal

    assert (
        _string_literal('f(c10::string_view mode="mean")')
        == '"f(c10::string_view mode=\\"mean\\")"'
    )


# -- user errors become diagnostics at the YAML entry -----------------------------------


def _module(*functions: NativeFunction, deprecated: tuple[object, ...] = ()) -> Module:
    from schemac.ir.module import SourceFiles

    return Module(
        SourceFiles("native_functions.yaml"),
        functions=functions,
        deprecated=deprecated,  # type: ignore[arg-type]
    )


def test_out_overload_without_functional_twin_is_an_input_error() -> None:
    from schemac.diagnostics import InputError, Span

    span = Span("native_functions.yaml", 7, 3, 7, 40)
    lonely = NativeFunction(
        func=parse_schema("frob.out(Tensor self, int n, *, Tensor(a!) out) -> Tensor(a!)"),
        span=span,
    )
    other = _fn("frob(Tensor self) -> Tensor")
    with pytest.raises(InputError) as caught:
        python_bindings(_module(lonely, other))
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.span == span
    assert "no functional twin" in diagnostic.message
    assert diagnostic.hint is not None and "minus out" in diagnostic.hint


def test_unmatched_deprecated_signature_is_an_input_error() -> None:
    from schemac.diagnostics import InputError, Span
    from schemac.ir.derivatives import DeprecatedSignature

    span = Span("deprecated.yaml", 4, 3, 4, 60)
    entry = DeprecatedSignature(
        parse_schema("frob(Tensor self, Scalar alpha) -> Tensor"), "frob(self, alpha)", span
    )
    module = _module(_fn("frob(Tensor self, Tensor other) -> Tensor"), deprecated=(entry,))
    with pytest.raises(InputError) as caught:
        python_bindings(module)
    assert {d.span for d in caught.value.diagnostics} == {span}
    assert "matches deprecated signature" in caught.value.diagnostics[0].message


def test_matched_deprecated_signature_is_marked_and_ordered() -> None:
    from schemac.ir.derivatives import DeprecatedSignature

    entry = DeprecatedSignature(
        parse_schema("frob(Tensor self, Scalar alpha, Tensor other) -> Tensor"),
        "frob(self, other, alpha)",
    )
    target = _fn("frob(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    bindings = python_bindings(_module(target, deprecated=(entry,)))
    (torch_module,) = [m for m in BINDING_MODULES if m.filename == "python_torch_functions.cpp"]
    (frob,) = bindings.for_module(torch_module)
    assert [g.signature.text() for g in frob.groups] == [
        "frob(Tensor input, Scalar alpha, Tensor other)|deprecated",
        "frob(Tensor input, Tensor other, *, Scalar alpha=1)",
    ]


def test_reserved_argument_name_is_an_input_error() -> None:
    from schemac.diagnostics import InputError

    bad = _fn("frob(Tensor self, bool requires_grad) -> Tensor")
    with pytest.raises(InputError, match="requires_grad"):
        python_bindings(_module(bad))


def test_out_overload_in_another_python_module_gets_a_pointed_hint() -> None:
    from schemac.diagnostics import InputError

    functional = NativeFunction(func=parse_schema("ramp(int n) -> Tensor"), python_module="special")
    out = _fn("ramp.out(int n, *, Tensor(a!) out) -> Tensor(a!)")
    with pytest.raises(InputError) as caught:
        python_bindings(_module(functional, out))
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.hint is not None
    assert "python_module: special" in diagnostic.hint


def test_selective_build_drops_deprecated_signatures_of_unselected_overloads() -> None:
    import attrs

    from schemac.ir.derivatives import DeprecatedSignature
    from schemac.ir.selection import OperatorSelection, SelectionResult

    entry = DeprecatedSignature(
        parse_schema("frob(Tensor self, Scalar alpha) -> Tensor"), "frob(self, alpha)"
    )
    module = _module(_fn("frob(Tensor self, Tensor other) -> Tensor"), deprecated=(entry,))
    pruned = attrs.evolve(module, selection=SelectionResult(OperatorSelection()))
    (torch_module,) = [m for m in BINDING_MODULES if m.filename == "python_torch_functions.cpp"]
    (frob,) = python_bindings(pruned).for_module(torch_module)
    assert [g.signature.text() for g in frob.groups] == ["frob(Tensor input, Tensor other)"]


def test_selective_build_leaves_out_overloads_without_their_twin_unbound() -> None:
    import attrs

    from schemac.ir.selection import OperatorSelection, SelectionResult

    lonely = _fn("frob.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
    other = _fn("frob.int(Tensor self, int n) -> Tensor")
    module = attrs.evolve(_module(lonely, other), selection=SelectionResult(OperatorSelection()))
    (torch_module,) = [m for m in BINDING_MODULES if m.filename == "python_torch_functions.cpp"]
    (frob,) = python_bindings(module).for_module(torch_module)
    assert [g.signature.text() for g in frob.groups] == ["frob(Tensor input, int64_t n)"]
    assert [o.function for o in frob.overloads] == [other]


@pytest.mark.parametrize(
    ("schema_type", "parser_spelling"),
    [
        ("int[2]", "IntArrayRef[2]"),
        ("SymInt[]", "SymIntArrayRef"),
        ("bool[3]", "::std::array<bool,3>"),
        ("float[]?", "ArrayRef<double>?"),
        ("Tensor?[]", "c10::List<::std::optional<Tensor>>"),
        ("Scalar[]", "ScalarList"),
        ("str?", "c10::string_view?"),
        ("Generator?", "Generator?"),
    ],
)
def test_parser_type_spellings(schema_type: str, parser_spelling: str) -> None:
    text = _text(f"f(Tensor self, {schema_type} x) -> Tensor")
    assert text == f"f(Tensor input, {parser_spelling} x)"


def test_type_without_parser_form_is_an_input_error() -> None:
    from schemac.diagnostics import InputError

    bad = _fn("frob(Tensor self, __torch__.torch.classes.quantized.Packed w) -> Tensor")
    with pytest.raises(InputError) as caught:
        python_bindings(_module(bad))
    (diagnostic,) = caught.value.diagnostics
    assert "__torch__.torch.classes.quantized.Packed" in diagnostic.message
    assert diagnostic.hint is not None and "argument type" in diagnostic.hint


def test_unsized_list_with_a_scalar_default_is_an_input_error() -> None:
    # The default is spelled by the ATen C++ API view, which has no form for it.
    from schemac.diagnostics import InputError

    bad = _fn("frob(Tensor self, int[] dims=3) -> Tensor")
    with pytest.raises(InputError) as caught:
        python_bindings(_module(bad))
    (diagnostic,) = caught.value.diagnostics
    assert "list default must be '[...]', got '3'" in diagnostic.message
    assert diagnostic.hint is not None and "[0]" in diagnostic.hint
