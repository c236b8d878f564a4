"""Differential fuzzing of schemac's schema parser against torchgen's.

The contract (docs/schema-parsers.md):

* schemac never accepts a string torchgen rejects, unless it falls in one of
  the named classes of :data:`reference.LOOSER_THAN_TORCHGEN`;
* schemac never rejects a string torchgen accepts, unless the string falls in
  one of the named classes of :data:`reference.STRICTER_THAN_TORCHGEN`;
* when both accept, the canonical strings are equal, and schemac's parse of
  its own output is the same schema;
* schemac raises nothing but :class:`~schemac.diagnostics.SchemacError`.

CI runs a few thousand examples.  For a long local run set
``SCHEMAC_FUZZ_EXAMPLES`` (every test here scales with it)::

    SCHEMAC_FUZZ_EXAMPLES=200000 PYTHONPATH=src pytest tests/grammar/test_differential.py
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemac import SchemacError, parse_schema
from schemac.diagnostics import SchemaSyntaxError
from schemac.frontend.schema_parser import SchemaParser, _parse_whole
from schemac.ir.schema import schema_text

from . import strategies
from .reference import looseness_classes, strictness_classes, torchgen_parse

pytestmark = pytest.mark.torch

#: Examples for each of the three main differential tests.
EXAMPLES = int(os.environ.get("SCHEMAC_FUZZ_EXAMPLES", "1000"))
#: The cheaper or narrower tests run a share of that (CI total: 5,800 examples).
SHARE = max(EXAMPLES * 7 // 10, 100)

_fuzz = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _schemac(text: str) -> object:
    """schemac's schema, or the SchemacError it raised (anything else fails)."""
    try:
        return parse_schema(text)
    except SchemacError as error:
        return error


def check_against_torchgen(text: str) -> None:
    ours = _schemac(text)
    theirs = torchgen_parse(text)
    if theirs is None:
        if not isinstance(ours, SchemacError):
            assert looseness_classes(ours), f"schemac accepts what torchgen rejects: {text!r}"
        return
    if isinstance(ours, SchemacError):
        classes = strictness_classes(theirs)
        assert classes, f"schemac rejects a schema torchgen accepts: {text!r}\n{ours}"
        # Every strictness class is about spelling, so the grammar is what says no.
        assert isinstance(ours, SchemaSyntaxError), f"{text!r}: {ours}"
        return
    assert str(ours) == str(theirs) == text
    assert parse_schema(str(ours)) == ours


@_fuzz
@given(strategies.valid_schemas())
def test_valid_schemas_are_accepted_by_both(text: str) -> None:
    assert torchgen_parse(text) is not None, f"generator produced an invalid schema: {text!r}"
    schema = parse_schema(text)
    assert str(schema) == text
    assert parse_schema(str(schema)) == schema


@_fuzz
@given(strategies.mutated_schemas())
def test_mutated_schemas_agree_with_torchgen(text: str) -> None:
    check_against_torchgen(text)


@settings(_fuzz, max_examples=SHARE)
@given(strategies.schema_like_text())
def test_any_text_agrees_with_torchgen(text: str) -> None:
    check_against_torchgen(text)


@settings(_fuzz, max_examples=SHARE)
@given(st.text())
def test_arbitrary_text_raises_only_schemac_errors(text: str) -> None:
    check_against_torchgen(text)


@settings(_fuzz, max_examples=SHARE)
@given(strategies.schema_like_text())
def test_piecewise_parse_equals_whole_parse(text: str) -> None:
    try:
        whole = _parse_whole(text, "f.yaml", 7, 9)
    except SchemacError as error:
        with pytest.raises(SchemacError) as raised:
            SchemaParser().parse(text, file="f.yaml", line=7, column=9)
        assert raised.value.diagnostics == error.diagnostics
        return
    assert_same_with_spans(SchemaParser().parse(text, file="f.yaml", line=7, column=9), whole)


def assert_same_with_spans(a: object, b: object) -> None:
    """Equality including the spans that ``==`` ignores, and the same printed text.

    ``str(a)`` may be the text the parser remembered (Note [Schemas that print
    as written]); ``schema_text`` prints ``b`` from its parts.
    """
    assert a == b
    assert _spans(a) == _spans(b)
    assert str(a) == schema_text(b)  # type: ignore[arg-type]


def _spans(schema: object) -> list[object]:
    spans = [schema.span, schema.name_span]  # type: ignore[attr-defined]
    for item in [*schema.arguments.flat_all, *schema.returns]:  # type: ignore[attr-defined]
        spans.append(item.span)
        spans.append(item.annotation.span if item.annotation is not None else None)
    return spans


@_fuzz
@given(strategies.loose_schemas())
def test_loose_schemas_agree_with_torchgen(text: str) -> None:
    check_against_torchgen(text)


def _from_grammar() -> st.SearchStrategy[str]:
    """Strings drawn from the shipped grammar itself (vyper-style).

    Type names are drawn from the known types: the grammar's TYPE_NAME is any
    dotted identifier, and random ones would only exercise 'unknown type'.
    """
    from hypothesis.extra.lark import from_lark

    from schemac.frontend.grammar import build_schema_parser

    type_names = st.one_of(
        st.sampled_from(strategies.BASE_TYPES), st.just("__torch__.torch.classes.ns.Foo")
    )
    # A freshly built parser: one loaded from the table cache has no grammar
    # object for from_lark to walk.
    parser = build_schema_parser()
    return from_lark(parser, start="schema", explicit={"TYPE_NAME": type_names})


@settings(_fuzz, max_examples=SHARE)
@given(_from_grammar())
def test_strings_from_the_grammar_agree_with_torchgen(text: str) -> None:
    check_against_torchgen(text)
