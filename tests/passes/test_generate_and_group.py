"""autogen-variants and group-variants: synthesised schemas, kernels, families, errors."""

from __future__ import annotations

from schemac.ir.groups import VariantGroup

from .conftest import LoadYaml
from .helpers import pass_errors, run


def _by_name(module):  # type: ignore[no-untyped-def]
    return {str(f.name): f for f in module.functions}


def test_out_and_functional_synthesised_from_inplace(load_yaml: LoadYaml) -> None:
    module = run(
        load_yaml(
            """\
- func: relu_(Tensor(a!) self, SymInt n) -> Tensor(a!)
  dispatch:
    CPU: relu_cpu_
  autogen: relu, relu.out
  tags: core
"""
        )
    )
    fs = _by_name(module)
    out, functional = fs["relu.out"], fs["relu"]
    assert str(out.func) == "relu.out(Tensor self, SymInt n, *, Tensor(a!) out) -> Tensor(a!)"
    assert str(functional.func) == "relu(Tensor self, SymInt n) -> Tensor"
    assert out.generated and functional.generated
    assert out.tags == ("generated", "pt2_compliant_tag", "out")
    assert out.span == fs["relu_"].span  # diagnostics point at the source entry
    kernels = {name: dict(module.resolution(fs[name].name).dispatch) for name in fs}
    assert kernels["relu.out"]["CompositeExplicitAutograd"].name == "relu_out_symint"
    assert kernels["relu"]["CompositeExplicitAutograd"].name == "relu_symint"
    assert module.groups == (
        VariantGroup(
            functional=functional.name, out=out.name, inplace=fs["relu_"].name, structured=False
        ),
    )


def test_functional_twin_of_mutable_op(load_yaml: LoadYaml) -> None:
    module = run(
        load_yaml(
            """\
- func: norm_stats(Tensor input, Tensor(a!) running_mean, float eps) -> (Tensor, Tensor)
  dispatch:
    CPU: norm_stats_cpu
  autogen: norm_stats_functional, norm_stats.out
"""
        )
    )
    fs = _by_name(module)
    assert str(fs["norm_stats.out"].func) == (
        "norm_stats.out(Tensor input, Tensor(a!) running_mean, float eps, *, "
        "Tensor(b!) out0, Tensor(c!) out1) -> (Tensor(b!), Tensor(c!))"
    )
    assert str(fs["norm_stats_functional"].func) == (
        "norm_stats_functional(Tensor input, Tensor running_mean, float eps) -> "
        "(Tensor, Tensor, Tensor running_mean_out)"
    )
    (group,) = module.groups
    assert str(group.mutable) == "norm_stats" and str(group.functional) == "norm_stats_functional"


def test_out_from_functional_drops_tensor_options(load_yaml: LoadYaml) -> None:
    module = run(
        load_yaml(
            """\
- func: ones2(int[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  dispatch:
    CompositeExplicitAutograd: ones2
  autogen: ones2.out
"""  # noqa: E501
        )
    )
    assert str(_by_name(module)["ones2.out"].func) == (
        "ones2.out(int[] size, *, Tensor(a!) out) -> Tensor(a!)"
    )


def test_autogen_must_list_what_is_synthesised(load_yaml: LoadYaml) -> None:
    errors = pass_errors(
        load_yaml(
            """\
- func: relu_(Tensor(a!) self) -> Tensor(a!)
  dispatch:
    CPU: relu_cpu_
  autogen: relu.out, relu.extra
"""
        )
    )
    assert errors == [
        (
            4,
            12,
            "autogen lists 'relu.extra, relu.out' but the synthesised variants are "
            "'relu, relu.out'",
        ),
    ]


def test_generation_errors(load_yaml: LoadYaml) -> None:
    errors = pass_errors(
        load_yaml(
            """\
- func: lonely.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: lonely_out
- func: count(Tensor self) -> int
  dispatch:
    CPU: count_cpu
"""
        )
    )
    assert errors == [
        (1, 9, "out= operator 'lonely.out' has no functional or in-place variant"),
        (4, 9, "cannot synthesise an out= variant of 'count': it returns no Tensor"),
    ]


def test_same_kind_twice_in_one_family(load_yaml: LoadYaml) -> None:
    errors = pass_errors(
        load_yaml(
            """\
- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
- func: foo.other_out(Tensor self, *, Tensor(a!) result) -> Tensor(a!)
"""
        )
    )
    assert errors == [
        (
            2,
            9,
            "'foo.other_out' and 'foo.out' are both out variants of the same operator signature",
        ),
    ]


def test_family_without_functional(load_yaml: LoadYaml) -> None:
    errors = pass_errors(
        load_yaml(
            """\
- func: foo_(Tensor(a!) self) -> Tensor(a!)
- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
"""
        )
    )
    assert errors == [
        (1, 9, "the family of 'foo_' has variants 'foo_', 'foo.out' but no functional one"),
    ]


def test_unsynthesisable_out_variant(load_yaml: LoadYaml) -> None:
    # A Tensor and an int: the out= form would have to return the int but
    # alias its out argument, which no schema can do.
    errors = pass_errors(
        load_yaml(
            """\
- func: mixed(Tensor self) -> (Tensor, int)
  dispatch:
    CPU: mixed
  autogen: mixed.out
"""
        )
    )
    assert errors == [
        (
            4,
            12,
            "cannot synthesise the out= variant of 'mixed': return 'int' does not alias "
            "out argument 'out0'",
        ),
    ]
