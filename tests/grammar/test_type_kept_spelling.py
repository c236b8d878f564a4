"""A type's kept ``spelling`` (built once, when the type is made) is its text.

``spelling`` is what ``str()`` returns and what signature keys hold; this
checks it against a printer that walks the fields on every call, for types
built directly (sizes the grammar cannot write included) and for types as
parsed.
"""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from schemac.frontend.schema_parser import parse_schema
from schemac.ir.types import (
    CUSTOM_CLASS_PREFIX,
    BaseTy,
    BaseType,
    CustomClassType,
    ListType,
    OptionalType,
    Type,
)

from . import strategies


def printed(ty: Type) -> str:
    """The canonical spelling, from the fields (no kept text is read)."""
    if isinstance(ty, BaseType):
        return ty.name.value
    if isinstance(ty, CustomClassType):
        return CUSTOM_CLASS_PREFIX + ty.class_name
    if isinstance(ty, OptionalType):
        return printed(ty.elem) + "?"
    return printed(ty.elem) + ("[]" if not ty.size else f"[{ty.size}]")


_leaves: st.SearchStrategy[Type] = st.one_of(
    st.sampled_from(list(BaseTy)).map(BaseType),
    st.text("abcXYZ_.09", min_size=1, max_size=8).map(CustomClassType),
)
_types: st.SearchStrategy[Type] = st.recursive(
    _leaves,
    lambda inner: st.one_of(
        inner.map(OptionalType),
        st.builds(ListType, inner, st.one_of(st.none(), st.integers(0, 20))),
    ),
    max_leaves=1,
)


@given(_types)
def test_kept_spelling_is_the_printed_one(ty: Type) -> None:
    assert ty.spelling == str(ty) == printed(ty)
    # Derived copies spell their own fields, not the original's.
    if isinstance(ty, ListType):
        resized = attrs.evolve(ty, size=(ty.size or 0) + 1)
        assert resized.spelling == printed(resized)


def fields(ty: Type) -> tuple[object, ...]:
    """The declared fields, nested (``int[0]`` and ``int[]`` differ here, not in print)."""
    if isinstance(ty, BaseType):
        return ("base", ty.name)
    if isinstance(ty, CustomClassType):
        return ("class", ty.class_name)
    if isinstance(ty, OptionalType):
        return ("optional", fields(ty.elem))
    return ("list", fields(ty.elem), ty.size)


@given(_types, _types)
def test_spelling_takes_no_part_in_equality(a: Type, b: Type) -> None:
    assert (a == b) == (fields(a) == fields(b))
    assert "spelling" not in repr(a)
    if a == b:
        assert hash(a) == hash(b)


@given(strategies.types)
def test_parsed_types_keep_their_text(text: str) -> None:
    schema = parse_schema(f"f({text} x) -> {text}")
    for ty in (schema.arguments.positional[0].type, schema.returns[0].type):
        assert ty.spelling == printed(ty)
