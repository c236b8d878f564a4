"""schemac.ir.evolve.evolve behaves as attrs.evolve."""

from __future__ import annotations

import attrs
import pytest

from schemac.frontend.schema_parser import parse_schema
from schemac.ir.evolve import evolve
from schemac.ir.native import NativeFunction, Variant


def test_same_result_as_attrs_evolve() -> None:
    f = NativeFunction(parse_schema("f(Tensor self) -> Tensor"), tags=("core",))
    changes = {"tags": ("core", "inplace"), "variants": frozenset({Variant.method})}
    ours, theirs = evolve(f, **changes), attrs.evolve(f, **changes)
    assert ours == theirs
    assert all(
        getattr(ours, a.name) == getattr(theirs, a.name) for a in attrs.fields(NativeFunction)
    )
    assert f.tags == ("core",)  # the original is untouched


def test_unknown_field_is_a_type_error() -> None:
    f = NativeFunction(parse_schema("f(Tensor self) -> Tensor"))
    with pytest.raises(TypeError):
        evolve(f, no_such_field=1)


@attrs.frozen
class _KeywordOnly:
    a: int
    b: int = attrs.field(kw_only=True, default=0)


def test_classes_it_cannot_call_positionally_use_attrs() -> None:
    assert evolve(_KeywordOnly(1, b=2), a=3) == _KeywordOnly(3, b=2)
