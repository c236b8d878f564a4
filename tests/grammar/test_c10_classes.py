"""schemac's documented choice for each way torchgen's and c10's parsers disagree.

docs/schema-parsers.md lists the classes; every one has an example here, and
the test checks three things for it: the two PyTorch parsers really disagree
in that way (so the documentation cannot rot when torch changes), the
classifier names the class, and schemac does what the documentation says.
"""

from __future__ import annotations

import keyword
import os
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemac import SchemacError, parse_schema

from . import strategies
from .c10_classes import C10_RESERVED_WORDS, classify
from .reference import c10_parse, torchgen_parse

pytestmark = [pytest.mark.torch, pytest.mark.filterwarnings("ignore")]

ACCEPT = "accept"  # schemac accepts and prints torchgen's canonical form
REJECT = "reject"

# (class, example, schemac's choice)
TORCHGEN_ONLY = [
    ("free_text_names_or_defaults", "f(int x-y) -> ()", REJECT),
    ("free_text_names_or_defaults", "f(int x=1+2) -> ()", REJECT),
    ("free_text_names_or_defaults", "a::b::f(int x) -> ()", REJECT),
    ("reserved_word_names", "f(int def) -> ()", ACCEPT),
    ("reserved_word_names", "return(int x) -> ()", ACCEPT),
    ("types_unknown_to_c10", "f(DimVector x) -> ()", ACCEPT),
    ("types_unknown_to_c10", "f(GraphModule x) -> ()", ACCEPT),
    ("custom_classes", "f(__torch__.torch.classes.ns.Unregistered x) -> ()", ACCEPT),
    ("nested_optionals", "f(int[3]?? x) -> ()", ACCEPT),
    ("overloads_starting_with_a_digit", "f.0(int x) -> ()", ACCEPT),
    ("sized_lists_inside_lists", "f(int[2][] x) -> ()", ACCEPT),
    ("required_after_default", "f(int a=1, Tensor b) -> ()", ACCEPT),
    ("defaults_c10_cannot_type", "f(int x=[1]) -> ()", ACCEPT),
    ("defaults_c10_cannot_type", "f(Device d=cpu) -> ()", ACCEPT),
]

C10_ONLY = [
    ("non_canonical_spelling", "f(Tensor  x)->Tensor", REJECT),
    ("non_canonical_spelling", "f(Tensor x,int y) -> ()", REJECT),
    ("bare_kwarg_marker", "f(Tensor x, *) -> ()", REJECT),
    ("kwarg_marker_twice", "f(*, int x, *, int y) -> ()", REJECT),
    ("alias_set_too_large", "f(Tensor(a|b|c) x) -> ()", REJECT),
    ("unnamed_return_with_alias_after", "f(Tensor(a) x) -> Tensor(a -> *)", REJECT),
    ("annotation_on_non_tensor", "f(int(a) x) -> ()", REJECT),
    (
        "tensor_options_twice",
        "f(*, ScalarType dtype, Layout layout, Device device, bool pin_memory, "
        "ScalarType dtype, Layout layout, Device device, bool pin_memory) -> Tensor",
        REJECT,
    ),
    ("codegen_schema_rules", "add_(Tensor self) -> Tensor", REJECT),
    ("codegen_schema_rules", "f(*, Tensor(a!) out) -> Tensor", REJECT),
    ("codegen_schema_rules", "neg_out(Tensor self) -> Tensor", REJECT),
    ("c10_only_types", "f(Any x) -> ()", REJECT),
    ("c10_only_types", "f(complex x) -> ()", REJECT),
    ("c10_only_syntax", "f(Dict(str, Tensor) x) -> ()", REJECT),
]

PRINTED_DIFFERENTLY = [
    ("alias_sets_as_sets", "f(Tensor(a|b) x) -> Tensor(a|b)"),
    ("alias_sets_as_sets", "f(Tensor(a|a) x) -> ()"),
    ("alias_sets_as_sets", "f(Tensor(a -> a) x) -> ()"),
    ("nested_optionals", "f(int?? x) -> ()"),
    ("device_index_printed_as_int", "f(DeviceIndex x) -> ()"),
    ("defaults_reprinted", "f(float x=1e-5) -> ()"),
    ("defaults_reprinted", "f(int[] x=[1,2]) -> ()"),
    ("defaults_reprinted", "f(ScalarType x=long) -> ()"),
    ("defaults_reprinted", "f(str x='a') -> ()"),
    ("defaults_reprinted", "__a__(ScalarType a=',a') -> ()"),
]


def _schemac_choice(text: str) -> str:
    try:
        schema = parse_schema(text)
    except SchemacError:
        return REJECT
    assert str(schema) == text, "schemac accepted but printed a different form"
    return ACCEPT


@pytest.mark.parametrize(("name", "text", "choice"), TORCHGEN_ONLY)
def test_torchgen_only(name: str, text: str, choice: str) -> None:
    assert torchgen_parse(text) is not None and c10_parse(text) is None
    kind, classes = classify(text)
    assert kind == "torchgen_only" and name in classes
    assert _schemac_choice(text) == choice


@pytest.mark.parametrize(("name", "text", "choice"), C10_ONLY)
def test_c10_only(name: str, text: str, choice: str) -> None:
    assert torchgen_parse(text) is None and c10_parse(text) is not None
    kind, classes = classify(text)
    assert kind == "c10_only" and name in classes
    assert _schemac_choice(text) == choice


@pytest.mark.parametrize(("name", "text"), PRINTED_DIFFERENTLY)
def test_printed_differently(name: str, text: str) -> None:
    reference = torchgen_parse(text)
    assert reference is not None and str(reference) == text
    assert c10_parse(text) not in (None, text)
    kind, classes = classify(text)
    assert kind == "printed_differently" and name in classes
    # schemac prints what torchgen prints: the text as written.
    assert str(parse_schema(text)) == text


def test_reserved_words_are_what_c10_rejects() -> None:
    candidates = set(keyword.kwlist) | {"NoneType", "true", "false", "none", "self", "out"}
    rejected = {w for w in candidates if c10_parse(f"f(int {w}) -> ()") is None}
    assert rejected == C10_RESERVED_WORDS


_EXAMPLES = max(int(os.environ.get("SCHEMAC_FUZZ_EXAMPLES", "1000")) // 10, 100)


@settings(
    max_examples=_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.one_of(strategies.loose_schemas(), strategies.mutated_schemas()))
def test_every_fuzzed_disagreement_is_a_documented_class(text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kind, classes = classify(text)
    assert "unclassified" not in classes, (kind, text)
