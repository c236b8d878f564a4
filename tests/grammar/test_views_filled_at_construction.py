"""Views filled when an IR object is made equal the ones computed on first use.

Note [Computed-once views filled at construction] (schemac.ir.schema): the
kind of a schema, an argument list's ``self`` index and TensorOptions split,
and a name's text are put in their slots by ``__attrs_post_init__``.  The
cached properties that compute them lazily stay as the fallback for objects
made without ``__init__``; a copy made that way (its slots left empty) must
read the same values as the original.
"""

from __future__ import annotations

import pickle

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemac.diagnostics import SchemacError
from schemac.frontend.schema_parser import parse_schema
from schemac.ir.names import BaseOperatorName, OperatorName
from schemac.ir.schema import Arguments, FunctionSchema

from . import strategies


def bare_copy(obj: object) -> object:
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
    assert lazy.family_key == schema.family_key
    for name in (schema.name, schema.name.name):
        lazy_name = bare_copy(name)
        assert isinstance(lazy_name, (OperatorName, BaseOperatorName))
        assert str(lazy_name) == str(name)
    restored = pickle.loads(pickle.dumps(schema))
    assert restored == schema
    assert restored.kind() is schema.kind()
    assert views(restored.arguments) == views(schema.arguments)


def test_names_spelled_when_made() -> None:
    name = OperatorName(BaseOperatorName("add", inplace=True, namespace="aten"), "Tensor")
    assert str(name) == "aten::add_.Tensor"
    assert str(name.with_overload("out")) == "aten::add.out"
    assert str(BaseOperatorName("and", True, True)) == "__iand__"
