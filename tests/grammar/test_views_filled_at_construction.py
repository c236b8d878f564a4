"""Views filled when an IR object is made equal the ones computed on first use.

Note [Computed-once views filled at construction] (schemac.ir.schema): a
schema's kind, an argument list's ``self`` and TensorOptions views and flat
lists, and a name's texts are put in their slots by ``__attrs_post_init__``.  The
cached properties that compute them lazily stay as the fallback for objects
made without ``__init__``; a copy made that way (its slots left empty) must
read the same values as the original.
"""

from __future__ import annotations

import pickle
from typing import TypeVar

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemac.diagnostics import SchemacError
from schemac.frontend.schema_parser import parse_schema
from schemac.ir.names import BaseOperatorName, OperatorName
from schemac.ir.schema import Arguments, FunctionSchema

from . import strategies

T = TypeVar("T")


def bare_copy(obj: T) -> T:
    """A copy whose attrs fields are set and whose other slots are empty."""
    cls = type(obj)
    new = object.__new__(cls)
    for field in attrs.fields(cls):  # type: ignore[arg-type]
        object.__setattr__(new, field.name, getattr(obj, field.name))
    return new


def views(args: Arguments) -> tuple[object, ...]:
    return (
        args.self_index,
        args.self_arg,
        args.pre_tensor_options_kwarg_only,
        args.tensor_options,
        args.post_tensor_options_kwarg_only,
        args.post_self_positional,
        args.pre_self_positional,
        args.flat_non_out,
        args.flat_all,
    )


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(strategies.valid_schemas(), strategies.loose_schemas()))
def test_filled_views_equal_lazy_ones(text: str) -> None:
    try:
        schema = parse_schema(text)
    except SchemacError:
        return
    lazy_args = bare_copy(schema.arguments)
    assert isinstance(lazy_args, Arguments)
    assert views(lazy_args) == views(schema.arguments)
    lazy = bare_copy(schema)
    assert isinstance(lazy, FunctionSchema)
    assert lazy.kind() is schema.kind()
    assert lazy.is_out_fn == schema.is_out_fn == bool(schema.arguments.out)
    assert lazy.family_key == schema.family_key
    for name in (schema.name, schema.name.name):
        lazy_name = bare_copy(name)
        assert isinstance(lazy_name, (OperatorName, BaseOperatorName))
        assert str(lazy_name) == str(name)
    assert bare_copy(schema.name.name).unqualified == schema.name.name.unqualified
    restored = pickle.loads(pickle.dumps(schema))
    assert restored == schema
    assert restored.kind() is schema.kind()
    assert views(restored.arguments) == views(schema.arguments)


def test_names_spelled_when_made() -> None:
    name = OperatorName(BaseOperatorName("add", inplace=True, namespace="aten"), "Tensor")
    assert str(name) == "aten::add_.Tensor"
    assert str(name.with_overload("out")) == "aten::add.out"
    assert str(BaseOperatorName("and", True, True)) == "__iand__"
    for inplace, dunder, functional in (
        (True, False, False),
        (False, False, True),
        (True, True, False),
    ):
        plain = BaseOperatorName("mul", inplace, dunder, functional)
        qualified = BaseOperatorName("mul", inplace, dunder, functional, "aten")
        assert qualified.unqualified == plain.unqualified == str(plain)
        assert str(qualified) == "aten::" + str(plain)
        assert BaseOperatorName("mul", inplace, dunder, functional, "").unqualified == str(plain)
