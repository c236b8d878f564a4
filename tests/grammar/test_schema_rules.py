"""Schema rules still fire for schemas that skip the full rule walk.

``FunctionSchema`` skips walking its rules for the shapes nearly every schema
has (``_obeys_rules_trivially``): no annotation, out argument or in-place name;
a plain out= operator; a plain in-place operator.  Each schema in ``BROKEN``
is close to one of those shapes and breaks one rule, so a shortcut that looked
at too little would accept it; the property test checks, on generated schemas,
that the shortcut never accepts a schema the walk objects to.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from schemac.diagnostics import SchemacError, SchemaSemanticError
from schemac.frontend.schema_parser import parse_schema
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
    "functional overload of a mutable op": "f.functional(Tensor self, Tensor(a!) other) -> ()",
    "out= without returns": "f.out(Tensor self, *, Tensor(a!) out) -> ()",
    "out= returning another alias": "f.out(Tensor self, *, Tensor(a!) out) -> Tensor(b!)",
    "out= with options": f"f.out(Tensor self, *, {OPTIONS}, Tensor(a!) out) -> Tensor(a!)",
    "out= returning a mutable input": (
        "f.out(Tensor self, Tensor(a!) x, *, Tensor(a!) out) -> Tensor(a!)"
    ),
    "out= with a scratch buffer returned": (
        "f.out(Tensor self, *, Tensor(a!) out, Tensor(b!) _scratch_x) -> (Tensor(a!), Tensor(b!))"
    ),
}


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
    ):
        assert _obeys_rules_trivially(parse_schema(text)), text
    for text in ("f(Tensor(a) self) -> Tensor(a)", "f(Tensor(a!) self, Tensor(b!) x) -> ()"):
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
