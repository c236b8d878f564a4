"""Schema rules still fire for schemas that skip the full rule walk.

``FunctionSchema`` skips walking its rules when a schema has no alias
annotation, no out argument, no in-place name and no TensorOptions quartet
(``_obeys_rules_trivially``).  Each schema here has exactly one of those
features and breaks one rule, so a fast path that looked at too little would
accept it.
"""

from __future__ import annotations

import pytest

from schemac.diagnostics import SchemaSemanticError
from schemac.frontend.schema_parser import parse_schema
from schemac.ir.schema import _obeys_rules_trivially

OPTIONS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"

BROKEN = {
    "tensor options twice": f"f(Tensor self, *, {OPTIONS}, {OPTIONS}) -> Tensor",
    "annotation on a non-Tensor": "f(int(a) x) -> Tensor",
    "mutable return without alias": "f(Tensor self) -> Tensor(a!)",
    "in-place without mutable self": "f_(Tensor self) -> Tensor",
    "functional overload of a mutable op": "f.functional(Tensor self, Tensor(a!) other) -> ()",
    "out= without returns": "f.out(Tensor self, *, Tensor(a!) out) -> ()",
}


@pytest.mark.parametrize("text", BROKEN.values(), ids=BROKEN.keys())
def test_each_rule_fires(text: str) -> None:
    with pytest.raises(SchemaSemanticError):
        parse_schema(text)


def test_plain_schemas_take_the_fast_path() -> None:
    plain = parse_schema("f.Scalar(Tensor self, Scalar other, *, int[] dims=[]) -> Tensor")
    assert _obeys_rules_trivially(plain)
    for text in (
        "f_(Tensor(a!) self) -> Tensor(a!)",
        "f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        "f(Tensor(a) self) -> Tensor(a)",
        f"f(*, {OPTIONS}) -> Tensor",
    ):
        assert not _obeys_rules_trivially(parse_schema(text)), text
