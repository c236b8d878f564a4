"""Fast paths of the passes agree with the general code they stand in for."""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from schemac.frontend.schema_parser import parse_schema
from schemac.frontend.torch_paths import TorchYamlPaths
from schemac.ir.evolve import field_replacer
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction, Variant
from schemac.ir.schema import Argument
from schemac.ir.types import (
    BaseTy,
    BaseType,
    CustomClassType,
    ListType,
    OptionalType,
    Type,
    is_like,
)
from schemac.passes.function_checks import any_of_base

types: st.SearchStrategy[Type] = st.recursive(
    st.sampled_from(list(BaseTy)).map(BaseType) | st.just(CustomClassType("ns.Gen")),
    lambda inner: (
        inner.map(OptionalType) | st.builds(ListType, inner, st.none() | st.integers(0, 3))
    ),
    max_leaves=4,
)


@given(st.lists(types, max_size=4), st.sampled_from(list(BaseTy)))
def test_any_of_base_is_any_is_like(items: list[Type], base: BaseTy) -> None:
    arguments = [Argument(f"a{i}", ty) for i, ty in enumerate(items)]
    assert any_of_base(arguments, base) == any(is_like(a.type, base) for a in arguments)


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


def test_any_of_base_on_torch_functions(real_module: Module) -> None:
    answers = set()
    for f in real_module.functions:
        for base in (BaseTy.SymInt, BaseTy.Generator):
            arguments = f.func.arguments.flat_non_out
            expected = any(is_like(a.type, base) for a in arguments)
            assert any_of_base(arguments, base) == expected, str(f.name)
            answers.add(expected)
    assert answers == {True, False}


def test_name_index_handed_between_passes_is_the_one_built_afresh(
    torch_paths: TorchYamlPaths,
) -> None:
    """autogen-variants indexes its result by name and match-derivatives keeps
    that index; it must be the index the module would build itself."""
    from schemac.frontend.loader import load_module
    from schemac.ir.module import _index_functions
    from schemac.passes.base import PassContext
    from schemac.passes.derivatives import MatchDerivatives
    from schemac.passes.generate import GenerateVariants
    from schemac.passes.resolve import ResolveDispatch

    ctx = PassContext()
    module = load_module(
        torch_paths.native_functions,
        torch_paths.tags,
        torch_paths.derivatives,
        torch_paths.deprecated,
    )
    generated = GenerateVariants().run(ctx, ResolveDispatch().run(ctx, module))
    handed = generated.__dict__["_by_name"]
    assert list(handed.items()) == list(_index_functions(generated.functions).items())
    matched = MatchDerivatives().run(ctx, generated)
    assert matched.__dict__["_by_name"] is handed


def test_entry_schemas_compare_by_text_as_by_ir(real_module: Module) -> None:
    """load_entries compares an entry's schema with its function's by their texts."""
    compared = 0
    for entry in real_module.derivatives:
        found = real_module.find_function(entry.schema.name)
        if found is not None:
            assert (str(found.func) == str(entry.schema)) == (found.func == entry.schema)
            compared += 1
    assert compared > 500
    near = [
        ("f(Tensor self, int x=1) -> Tensor", "f(Tensor self, int x=2) -> Tensor"),
        ("f(Tensor self) -> Tensor", "f(Tensor(a!) self) -> Tensor(a!)"),
        ("f(Tensor self) -> (Tensor a, Tensor b)", "f(Tensor self) -> (Tensor, Tensor)"),
    ]
    for one, other in near:
        a, b = parse_schema(one), parse_schema(other)
        assert str(a) != str(b) and a != b
