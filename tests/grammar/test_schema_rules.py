"""Schema rules still fire for schemas that skip the full rule walk.

``FunctionSchema`` skips walking its rules for the shapes nearly every schema
has (``_obeys_rules_trivially``): nothing written (views included); a plain
out= operator; a plain in-place operator (``_foreach`` ones included).  Each
schema in ``BROKEN`` is close to one of those shapes and breaks one rule, so a
shortcut that looked at too little would accept it; the property tests check,
on generated schemas, that the shortcut never accepts a schema the walk
objects to (the second one builds schemas that break rules, which parsing
cannot return).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemac.diagnostics import NO_SPAN, SchemacError, SchemaSemanticError
from schemac.frontend.schema_parser import _transform_piece, parse_schema
from schemac.frontend.schema_transformer import ToIR
from schemac.ir.schema import _obeys_rules_trivially, _schema_rule_violations

from . import strategies

OPTIONS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"

BROKEN = {
    "tensor options twice": f"f(Tensor self, *, {OPTIONS}, {OPTIONS}) -> Tensor",
    "annotation on a non-Tensor": "f(int(a) x) -> Tensor",
    "mutable return without alias": "f(Tensor self) -> Tensor(a!)",
    "in-place without mutable self": "f_(Tensor self) -> Tensor",
    "in-place returning another alias": "f_(Tensor(a!) self) -> Tensor(b!)",
    "in-place returning a read alias": "f_(Tensor(a!) self) -> Tensor(a)",
    "in-place with options": f"f_(Tensor(a!) self, *, {OPTIONS}) -> Tensor(a!)",
    "in-place and functional": "f_.functional(Tensor(a!) self) -> Tensor(a!)",
    "view returning an annotated non-Tensor": "f(Tensor(a) self) -> int(a)",
    "view of an annotated non-Tensor": "f(int(a) self) -> Tensor(a)",
    "list in-place returning something": "f_(Tensor(a!)[] self) -> Tensor[]",
    "list in-place of a non-Tensor": "f_(int(a!)[] self) -> ()",
    "list in-place with options": f"f_(Tensor(a!)[] self, *, {OPTIONS}) -> ()",
    "functional overload of a mutable op": "f.functional(Tensor self, Tensor(a!) other) -> ()",
    "out= returning too much": "f.out(Tensor self, *, Tensor(a!) out) -> (Tensor(a!), Tensor)",
    "out= returning another alias": "f.out(Tensor self, *, Tensor(a!) out) -> Tensor(b!)",
    "out= with options": f"f.out(Tensor self, *, {OPTIONS}, Tensor(a!) out) -> Tensor(a!)",
    "out= returning a mutable input": (
        "f.out(Tensor self, Tensor(a!) x, *, Tensor(a!) out) -> Tensor(a!)"
    ),
    "out= with a scratch buffer returned": (
        "f.out(Tensor self, *, Tensor(a!) out, Tensor(b!) _scratch_x) -> (Tensor(a!), Tensor(b!))"
    ),
}


@pytest.mark.parametrize(
    "text",
    [
        "f.out(Tensor self, *, Tensor(a!) out) -> ()",
        "f_(Tensor(a!) self, Scalar factor) -> ()",
    ],
)
def test_mutating_operators_may_return_nothing(text: str) -> None:
    # Note [Mutating operators may return nothing]: custom operators must.
    assert str(parse_schema(text)) == text


@pytest.mark.parametrize("text", BROKEN.values(), ids=BROKEN.keys())
def test_each_rule_fires(text: str) -> None:
    with pytest.raises(SchemaSemanticError):
        parse_schema(text)


def test_the_usual_shapes_take_the_shortcut() -> None:
    for text in (
        "f.Scalar(Tensor self, Scalar other, *, int[] dims=[]) -> Tensor",
        f"f(int[] size, *, {OPTIONS}) -> Tensor",
        "f_(Tensor(a!) self, Scalar other) -> Tensor(a!)",
        "f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        "f.out(Tensor self, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))",
        "f(Tensor(a) self) -> Tensor(a)",
        "f(Tensor(a -> *) self, int n) -> Tensor(a)[]",
        "f_(Tensor(a!)[] self, Scalar[] other) -> ()",
    ):
        assert _obeys_rules_trivially(parse_schema(text)), text
    for text in (
        "f(Tensor(a!) self, Tensor(b!) x) -> ()",
        "f_(Tensor(a!)[] self, Tensor(b!) x) -> ()",
    ):
        assert not _obeys_rules_trivially(parse_schema(text)), text


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(strategies.schema_like_text())
def test_the_shortcut_never_hides_a_violation(text: str) -> None:
    try:
        schema = parse_schema(text)
    except SchemacError:
        return
    if _obeys_rules_trivially(schema):
        assert list(_schema_rule_violations(schema)) == []


_PIECES = st.sampled_from(
    ["*", "Tensor self", "Tensor(a) self", "Tensor(a!) self", "Tensor(a!)[] self",
     "Tensor(a!)? self", "int(a) self", "Tensor(a!) out", "Tensor(b!) out",
     "Tensor(b!) _scratch_x", "int[] out",
     "Tensor(a) x", "Tensor(b!) x", "int(b) y", "Tensor(a -> *) z", "Scalar alpha=1",
     "ScalarType? dtype=None", "Layout? layout=None", "Device? device=None",
     "bool? pin_memory=None", "ScalarType dtype"]
)  # fmt: skip
_RETURNS = st.sampled_from(
    ["()", "Tensor", "Tensor(a!)", "Tensor(b!)", "Tensor(a)", "Tensor(a)[]", "int(a)",
     "(Tensor(a!), Tensor(b!))", "(Tensor(a!), Tensor)", "(Tensor, Tensor)", "Tensor[]"]
)  # fmt: skip
_NAMES = st.sampled_from(["f", "f_", "f.out", "f.functional", "f_.functional", "__iadd__"])


@settings(max_examples=1000, deadline=None)
@given(_NAMES, st.lists(_PIECES, max_size=7), _RETURNS)
def test_the_shortcut_never_hides_a_violation_of_a_built_schema(
    name: str, pieces: list[str], returns: str
) -> None:
    """Schemas assembled without their checks, most of them breaking some rule."""
    items = [_transform_piece(piece, "argument_item") for piece in pieces]
    transformer = ToIR("", 1, 1)
    arguments = transformer.argument_list(items)
    if transformer.problems:
        return
    operator = _transform_piece(name, "operator_name").value  # type: ignore[attr-defined]
    unchecked = SimpleNamespace(
        name=operator,
        arguments=arguments,
        returns=_transform_piece(returns, "returns"),
        span=NO_SPAN,
        name_span=NO_SPAN,
        is_functional_fn="functional" in operator.overload,
    )
    if _obeys_rules_trivially(unchecked):  # type: ignore[arg-type]
        assert list(_schema_rule_violations(unchecked)) == []  # type: ignore[arg-type]
