"""group-views and check-structured: families found, and every inconsistency reported."""

from __future__ import annotations

from .conftest import LoadYaml
from .helpers import pass_errors, run

VIEW_FAMILY = """\
- func: tr(Tensor(a) self) -> Tensor(a)
  dispatch:
    CompositeExplicitAutograd: tr
- func: tr_(Tensor(a!) self) -> Tensor(a!)
  tags: inplace_view
  dispatch:
    CompositeExplicitAutograd: tr_
- func: tr_copy(Tensor self) -> Tensor
  tags: view_copy
  dispatch:
    CompositeExplicitAutograd: tr_copy
"""


def test_view_group(load_yaml: LoadYaml) -> None:
    module = run(load_yaml(VIEW_FAMILY))
    (group,) = module.view_groups
    assert (str(group.view), str(group.view_copy), str(group.view_inplace)) == (
        "tr",
        "tr_copy",
        "tr_",
    )


def test_view_errors(load_yaml: LoadYaml) -> None:
    errors = pass_errors(
        load_yaml(
            """\
- func: alias_of(Tensor(a) self) -> Tensor(a)
  dispatch:
    CPU: alias_of
- func: tr(Tensor(a) self) -> Tensor(a)
  dispatch:
    CompositeExplicitAutograd: tr
- func: tr_copy(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: tr_copy
"""
        )
    )
    assert errors == [
        (1, 9, "view operator 'alias_of' has no non-aliasing twin 'alias_of_copy'"),
        (7, 9, "'tr_copy' is the copy twin of view 'tr' but lacks the 'view_copy' tag"),
    ]


STRUCTURED = """\
- func: sin(Tensor self) -> Tensor
  structured_delegate: sin.out
- func: sin_(Tensor(a!) self) -> Tensor(a!)
  structured_delegate: sin.out
- func: sin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: sin_out
"""


def test_structured_family(load_yaml: LoadYaml) -> None:
    module = run(load_yaml(STRUCTURED))
    (group,) = module.groups
    assert group.structured
    assert module.resolution(group.out).dispatch["CPU"].structured


def test_delegate_missing_or_unstructured(load_yaml: LoadYaml) -> None:
    errors = pass_errors(
        load_yaml(
            """\
- func: cos(Tensor self) -> Tensor
  structured_delegate: cos.outt
- func: tan(Tensor self) -> Tensor
  structured_delegate: tan.out
- func: tan.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: tan_out
"""
        )
    )
    assert errors == [
        (2, 24, "structured delegate 'cos.outt' of 'cos' does not exist"),
        (4, 24, "'tan' is structured, but its family's out= variant 'tan.out' is not"),
        (4, 24, "structured delegate 'tan.out' of 'tan' is not structured"),
    ]


def test_structured_flag_misuse(load_yaml: LoadYaml) -> None:
    errors = pass_errors(
        load_yaml(
            """\
- func: exp(Tensor self) -> Tensor
  structured: True
  dispatch:
    CPU: exp
- func: log.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured_delegate: log.out
- func: log(Tensor self) -> Tensor
  dispatch:
    CPU: log
- func: abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  device_guard: False
  dispatch:
    CPU: abs_out
- func: abs(Tensor self) -> Tensor
  structured_delegate: abs.out
"""
        )
    )
    assert errors == [
        (2, 15, "'structured: True' on 'exp', which is not an out= operator"),
        (6, 24, "'log.out' is structured, but its family's out= variant 'log.out' is not"),
        (6, 24, "'structured_delegate' on out= operator 'log.out'"),
        (6, 24, "structured delegate 'log.out' of 'log.out' is not structured"),
        (12, 17, "structured kernel 'abs.out' cannot disable its device guard"),
    ]


def test_structured_family_mismatch(load_yaml: LoadYaml) -> None:
    text = STRUCTURED.replace("  structured_delegate: sin.out\n", "", 1).replace(
        "- func: sin(Tensor self) -> Tensor\n",
        "- func: sin(Tensor self) -> Tensor\n  dispatch:\n    CPU: sin\n",
    )
    errors = pass_errors(load_yaml(text))
    assert errors == [
        (1, 9, "'sin' is in the family of structured 'sin.out' but does not delegate to it"),
    ]


def test_structured_composite_kernel(load_yaml: LoadYaml) -> None:
    text = STRUCTURED.replace("    CPU: sin_out\n", "    CompositeExplicitAutograd: sin_out\n")
    module = run(load_yaml(text))  # explicit composite is fine
    assert module.groups[0].structured
    text = STRUCTURED.replace(
        "    CPU: sin_out\n", "    CPU: sin_out\n    CompositeImplicitAutograd: sin_any\n"
    )
    errors = pass_errors(load_yaml(text))
    assert errors == [(8, 5, "structured kernel 'sin.out' has a CompositeImplicitAutograd kernel")]


def test_precomputed_checks(load_yaml: LoadYaml) -> None:
    text = STRUCTURED.replace(
        "  structured: True\n",
        "  structured: True\n  precomputed:\n  - dimm -> int dim\n  - int KMAX\n",
    )
    errors = pass_errors(load_yaml(text))
    # Each at its own position: the key for the replaced name, the argument for its case.
    assert errors == [
        (8, 3, "precomputed replaces 'dimm', which is not an argument of 'sin.out'"),
        (9, 5, "precomputed argument 'KMAX' is all upper case"),
    ]


def test_delegate_outside_its_family(load_yaml: LoadYaml) -> None:
    # cos delegates to sin.out, which exists and is structured but is the
    # out= member of another family.
    errors = pass_errors(
        load_yaml(
            STRUCTURED
            + "- func: cos(Tensor self, int k) -> Tensor\n  structured_delegate: sin.out\n"
        )
    )
    assert errors == [
        (
            10,
            24,
            "'cos' delegates to 'sin.out', which is not in its family (their signatures differ)",
        ),
    ]
