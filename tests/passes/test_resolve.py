"""resolve-dispatch: default kernels exactly as PyTorch fills them in, and its errors."""

from __future__ import annotations

from schemac.ir.names import BaseOperatorName, OperatorName

from .conftest import LoadYaml
from .helpers import pass_errors, run


def op(text: str) -> OperatorName:
    name, _, overload = text.partition(".")
    inplace = name.endswith("_")
    return OperatorName(BaseOperatorName(name.rstrip("_"), inplace=inplace), overload)


def kernels(module, name: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {k: v.name for k, v in module.resolution(op(name)).dispatch.items()}


def test_defaults(load_yaml: LoadYaml) -> None:
    module = run(
        load_yaml(
            """\
- func: foo(Tensor self) -> Tensor
- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
- func: bar(Tensor self) -> Tensor
  dispatch:
    CPU, CUDA: bar_impl
    CompositeExplicitAutograd: custom::bar_any
""",
        ),
        stop_after="resolve-dispatch",
    )
    assert kernels(module, "foo") == {"CompositeImplicitAutograd": "foo"}
    assert kernels(module, "foo.out") == {"CompositeImplicitAutograd": "foo_out"}
    bar = module.resolution(op("bar"))
    assert list(bar.dispatch) == ["CPU", "CUDA", "CompositeExplicitAutograd"]
    assert bar.dispatch["CompositeExplicitAutograd"].namespace == "custom::native"
    assert bar.dispatch["CPU"].namespace == "at::native"
    assert bar.is_abstract and bar.has_composite_explicit_autograd_kernel
    foo = module.resolution(op("foo"))
    assert not foo.is_abstract and foo.has_composite_implicit_autograd_kernel


def test_structured_family_and_ufunc(load_yaml: LoadYaml) -> None:
    module = run(
        load_yaml(
            """\
- func: add(Tensor self, Tensor other) -> Tensor
  structured_delegate: add.out
- func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  ufunc_inner_loop:
    Generic: add (AllAndComplex)
  dispatch:
    MPS: add_mps
    SparseCPU: add_sparse
""",
        ),
        stop_after="resolve-dispatch",
    )
    delegate = module.resolution(op("add"))
    assert dict(delegate.dispatch) == {} and delegate.is_abstract
    table = module.resolution(op("add.out")).dispatch
    assert {k: v.name for k, v in table.items()} == {
        "MPS": "add_mps",
        "SparseCPU": "add_sparse",
        "CPU": "ufunc_add_CPU",
        "CUDA": "ufunc_add_CUDA",
    }
    assert [k for k, v in table.items() if v.structured] == ["MPS", "CPU", "CUDA"]


def test_implicit_tags(load_yaml: LoadYaml) -> None:
    module = run(
        load_yaml(
            """\
- func: foo_(Tensor(a!) self) -> Tensor(a!)
  tags: core
- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
"""
        ),
        stop_after="resolve-dispatch",
    )
    assert module.functions[0].tags == ("core", "pt2_compliant_tag", "inplace")
    assert module.functions[1].tags == ("pt2_compliant_tag", "out")


def test_dispatch_errors(load_yaml: LoadYaml) -> None:
    errors = pass_errors(
        load_yaml(
            """\
- func: redundant(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: redundant
- func: misnamed(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: other_name
- func: new_thing(Tensor self) -> Tensor
- func: both(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd, CompositeExplicitAutograd: both_impl
- func: unsupported(Tensor self) -> Tensor
  dispatch:
    Autograd: unsupported_impl
- func: sym(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: sym_symint
"""
        )
    )
    assert errors == [
        (3, 5, "unnecessary dispatch table: it only repeats the default kernel"),
        (6, 32, "a lone CompositeImplicitAutograd kernel must be named 'misnamed'"),
        (7, 9, "factory function 'new_thing' has no dispatch table"),
        (
            10,
            5,
            "more than one composite kernel: CompositeImplicitAutograd, CompositeExplicitAutograd",
        ),
        (13, 5, "dispatch key 'Autograd' does not get generated kernels"),
    ]


def test_delegate_and_ufunc_conflicts(load_yaml: LoadYaml) -> None:
    errors = pass_errors(
        load_yaml(
            """\
- func: mul(Tensor self) -> Tensor
  structured_delegate: mul.out
  dispatch:
    CPU: mul_cpu
- func: mul.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  ufunc_inner_loop:
    Generic: mul (AllAndComplex)
  dispatch:
    CUDA: mul_cuda
"""
        )
    )
    assert errors == [
        (4, 5, "'CPU' kernel given for a structured delegate"),
        (10, 5, "'CUDA' kernel given although ufunc_inner_loop generates it"),
    ]


def test_function_checks(load_yaml: LoadYaml) -> None:
    errors = pass_errors(
        load_yaml(
            """\
- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  variants: function, method
- func: bar(Tensor self, int dim=0) -> Tensor
  cpp_no_default_args: ['dim', 'self']
- func: _foreach_baz(Tensor[] self) -> Tensor[]
- func: my_rand(Tensor self) -> Tensor
- func: qux(Tensor self, int lambda) -> Tensor
- func: t_(Tensor(a!) self) -> Tensor(a!)
  tags: inplace_view
"""
        )
    )
    assert errors == [
        (2, 13, "out= operator 'foo.out' must only have the function variant"),
        (
            4,
            24,
            "cpp_no_default_args names 'self', which is not an argument with a default",
        ),
        (5, 9, "foreach operator '_foreach_baz' must use 'device_check: NoCheck'"),
        (6, 9, "'my_rand' looks random but lacks the 'nondeterministic_seeded' tag"),
        (7, 26, "argument name 'lambda' is a Python keyword"),
        (9, 9, "'t_' is tagged inplace_view but there is no view operator 't'"),
    ]


def test_custom_namespace(load_yaml: LoadYaml) -> None:
    module = run(
        load_yaml(
            """\
- func: myops::scale(Tensor self, float k) -> Tensor
- func: myops::scale.out(Tensor self, float k, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: myops::scale_out_cpu
"""
        )
    )
    scale, scale_out = module.functions
    assert scale.namespace == "myops" and str(scale.func).startswith("scale(")
    assert scale.tags == ()  # pt2_compliant_tag is implied for aten only
    assert scale_out.tags == ("out",)
    kernel = module.resolution(scale_out.name).dispatch["CPU"]
    assert (kernel.namespace, kernel.name) == ("myops::native", "scale_out_cpu")
    assert module.resolution(scale.name).dispatch["CompositeImplicitAutograd"].name == "scale"
    (group,) = module.groups
    assert (group.functional, group.out) == (scale.name, scale_out.name)
