"""Views filled when an IR object is made equal the ones computed from its fields.

Note [Computed-once views filled at construction] (schemac.ir.schema): a
schema's kind, an argument list's ``self`` and TensorOptions views and flat
lists, and a name's texts are put in their slots by ``__attrs_post_init__``.
The slots belong to a base class, not to cached properties, so that the hot
IR classes have no ``__getattr__`` (Note [IR classes without __getattr__] in
schemac.ir.slots); copies and unpickled objects are made by ``__init__`` and
must read the same values as the original.
"""

from __future__ import annotations

import copy
import pickle

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemac.diagnostics import SchemacError, Span
from schemac.frontend.schema_parser import parse_schema
from schemac.ir.frozen import FrozenMap
from schemac.ir.names import BaseOperatorName, OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Arguments, FunctionSchema, family_key, schema_text

from . import strategies

#: The classes whose instances passes and backends read most.
HOT_CLASSES = (BaseOperatorName, OperatorName, Arguments, FunctionSchema, NativeFunction, FrozenMap)


@pytest.mark.parametrize("cls", HOT_CLASSES, ids=lambda cls: cls.__name__)
def test_hot_ir_classes_keep_the_fast_attribute_path(cls: type) -> None:
    # A __getattr__ anywhere in the class (attrs adds one for a cached_property)
    # costs every attribute read of every instance the interpreter's fast path.
    assert not hasattr(cls, "__getattr__")
    assert cls.__getattribute__ is object.__getattribute__


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
    args = schema.arguments
    fresh = Arguments(args.positional, args.kwarg_only, args.out)
    assert views(fresh) == views(args)
    assert views(copy.copy(args)) == views(args)
    assert schema.family_key == family_key(schema)
    assert str(schema) == schema_text(schema)
    unremembered = FunctionSchema(schema.name, args, schema.returns)
    assert str(unremembered) == str(schema)  # printed on demand
    for made in (copy.copy(schema), pickle.loads(pickle.dumps(schema))):
        assert made == schema
        assert made.kind() is schema.kind()
        assert made.is_out_fn == schema.is_out_fn == bool(schema.arguments.out)
        assert made.family_key == schema.family_key
        assert str(made) == str(schema)
        assert views(made.arguments) == views(schema.arguments)
    for name in (schema.name, schema.name.name):
        for made_name in (copy.copy(name), pickle.loads(pickle.dumps(name))):
            assert made_name == name and str(made_name) == str(name)
    base = schema.name.name
    assert pickle.loads(pickle.dumps(base)).unqualified == base.unqualified
    function = NativeFunction(schema, span=Span("f.yaml", 1, 1, 1, 2))
    restored = pickle.loads(pickle.dumps(function))
    assert restored == function and restored.span == function.span
    assert restored.is_view_op == function.is_view_op
    table = FrozenMap(((schema.name, 1),))
    assert pickle.loads(pickle.dumps(table))[schema.name] == 1
    assert attrs.evolve(schema, name=schema.name).kind() is schema.kind()


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
