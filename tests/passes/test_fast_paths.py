"""Fast paths of the passes agree with the general code they stand in for."""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from schemac.frontend.schema_parser import parse_schema
from schemac.ir.evolve import field_replacer
from schemac.ir.native import NativeFunction, Variant
from schemac.ir.types import (
    BaseTy,
    BaseType,
    CustomClassType,
    ListType,
    OptionalType,
    Type,
    is_like,
)
from schemac.passes.function_checks import is_generator

types: st.SearchStrategy[Type] = st.recursive(
    st.sampled_from(list(BaseTy)).map(BaseType) | st.just(CustomClassType("ns.Gen")),
    lambda inner: (
        inner.map(OptionalType) | st.builds(ListType, inner, st.none() | st.integers(0, 3))
    ),
    max_leaves=4,
)


@given(types)
def test_is_generator_is_is_like_generator(ty: Type) -> None:
    assert is_generator(ty) == is_like(ty, BaseTy.Generator)


@given(
    st.sampled_from([f.name for f in attrs.fields(NativeFunction)]),
    st.lists(st.sampled_from(["core", "inplace", "out"]), unique=True),
)
def test_field_replacer_is_attrs_evolve(name: str, tags: list[str]) -> None:
    f = NativeFunction(
        parse_schema("f(Tensor self) -> Tensor"),
        tags=("core",),
        variants=frozenset({Variant.method}),
    )
    value = tuple(tags) if name == "tags" else getattr(f, name)
    ours = field_replacer(NativeFunction, name)(f, value)
    theirs = attrs.evolve(f, **{name: value})
    assert ours == theirs
    assert all(
        getattr(ours, a.name) == getattr(theirs, a.name) for a in attrs.fields(NativeFunction)
    )
    assert f.tags == ("core",)  # the original is untouched
