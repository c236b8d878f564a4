"""Properties of variant synthesis, over every schema of the real file.

Whatever schema synthesis starts from, the variant it builds must be a valid
schema (FunctionSchema checks that when it is built), of the intended kind,
and in the same family: its normalised signature equals the source's.
"""

from __future__ import annotations

import pytest

from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import TorchYamlPaths
from schemac.ir.schema import FunctionSchema, SchemaKind
from schemac.ir.signature import signature_key
from schemac.ir.types import BaseTy, is_like
from schemac.passes.generate import functional_variant_schema, out_variant_schema


@pytest.fixture(scope="module")
def schemas(torch_paths: TorchYamlPaths) -> list[FunctionSchema]:
    module = load_module(torch_paths.native_functions, torch_paths.tags)
    return [f.func for f in module.functions]


def _can_have_out(schema: FunctionSchema) -> bool:
    kind = schema.kind()
    if kind is SchemaKind.inplace:
        return True
    # Mixed Tensor / non-Tensor returns cannot make a valid out= schema (the
    # pass reports that as an error; see test_generate_and_group).
    return (
        kind in (SchemaKind.functional, SchemaKind.mutable)
        and bool(schema.returns)
        and all(is_like(r.type, BaseTy.Tensor) for r in schema.returns)
    )


def test_synthesised_out_variants_stay_in_the_family(schemas: list[FunctionSchema]) -> None:
    checked = 0
    for schema in schemas:
        # Note [bernoulli.p signature]: its family is joined by name, not shape.
        if not _can_have_out(schema) or str(schema.name) == "bernoulli.p":
            continue
        out = out_variant_schema(schema)
        assert out.kind() is SchemaKind.out, str(schema)
        assert signature_key(out) == signature_key(schema), str(schema)
        checked += 1
    assert checked > 1500


def test_synthesised_functional_variants_stay_in_the_family(
    schemas: list[FunctionSchema],
) -> None:
    checked = 0
    for schema in schemas:
        if schema.kind() not in (SchemaKind.inplace, SchemaKind.mutable, SchemaKind.out):
            continue
        functional = functional_variant_schema(schema)
        assert functional.kind() is SchemaKind.functional, str(schema)
        assert signature_key(functional) == signature_key(schema), str(schema)
        checked += 1
    assert checked > 900
