"""Every grammar rule has exactly one place that turns it into IR.

A rule added to grammar/schema.lark without a handler in ``ToIR`` would fall
through to ``__default__``; these tests make that a test failure rather than a
crash on the first schema that uses the rule.
"""

from __future__ import annotations

import pytest
from lark import Tree

from schemac.frontend.grammar import START_SYMBOLS, schema_parser
from schemac.frontend.schema_transformer import ToIR


def _tree_names() -> set[str]:
    """Names the transformer will be called with: rule names or their aliases.

    Lark inlines the helper rules it makes for ``*``/``+`` (names starting
    with ``_``), so those never reach the transformer.
    """
    names = set()
    for rule in schema_parser().rules:
        name = rule.alias or rule.origin.name
        if not str(name).startswith("_"):
            names.add(str(name))
    return names


def test_the_grammar_has_the_rules_we_expect() -> None:
    assert {"schema", "argument", "type", "annotation", "no_returns"} <= _tree_names()
    assert set(START_SYMBOLS) - {"returns"} <= _tree_names()


@pytest.mark.parametrize("name", sorted(_tree_names()))
def test_every_rule_has_a_handler(name: str) -> None:
    handler = getattr(ToIR, name, None)
    assert callable(handler), f"grammar rule '{name}' has no ToIR method"
    assert handler is not ToIR.__default__


def test_an_unknown_rule_is_an_error_not_a_silent_tree() -> None:
    with pytest.raises(Exception, match="no IR for grammar rule 'mystery'"):
        ToIR("<test>", 1, 1).transform(Tree("mystery", []))


def test_every_start_symbol_parses_its_piece() -> None:
    pieces = {
        "schema": "f(Tensor x) -> Tensor",
        "operator_name": "aten::add_.Tensor",
        "argument_item": "Tensor(a!)? out=None",
        "returns": "(Tensor(a) x, int)",
    }
    assert set(pieces) == set(START_SYMBOLS)
    for start, text in pieces.items():
        assert schema_parser().parse(text, start=start).data
